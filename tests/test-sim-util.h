/* SPDX-License-Identifier: MIT */
/*
 * test-sim-util: helpers of the simulator's tests (test-sim.c, test-sim-calib.c,
 * test-sim-iface.c, test-sim-memo.c): shipped profile text, profile variants as YAML text
 * (switch mechanisms, set keys), temporary testbed files, rule sets and traffic from a few
 * levels, testbeds on shipped profiles or with one mechanism on, relative tolerances.
 * Strings returned by su_profile_text and only are the caller's (free). The helpers at the
 * end fail the running test with cmocka: include after <cmocka.h>.
 */
#ifndef TEST_SIM_UTIL_H
#define TEST_SIM_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "generators/gen.h"
#include "testbeds/tb.h"

/* Text of shipped profile NAME ("cx7"). */
char *su_profile_text(const char *name);
/* Set KEY of top-level SECTION (NULL: a top-level key) to VALUE; *TEXT is reallocated. */
void su_set(char **text, const char *section, const char *key, const char *value);
/* Switch mechanism SECTION on or off; su_all_off switches every mechanism off. */
void su_enable(char **text, const char *section, int on);
void su_all_off(char **text);
/* 1-based line of the first occurrence of NEEDLE (0 when absent). */
int su_line_of(const char *text, const char *needle);
/* Write profile.yaml (PROFILE_TEXT) and testbed.yaml (kind sim) into a new temporary
 * directory; the testbed file's path goes to BUF, which is returned. su_remove cleans up. */
const char *su_write_testbed(const char *profile_text, char *buf, size_t len);
void su_remove(const char *path);
/* Open a sim testbed on profile TEXT (aborts on failure); close with tb_close. */
struct tb *su_open_text(const char *text);
/* Neutral levels with FLOWS flows and the four mask counts. */
void su_levels(struct gen_levels *l, uint32_t flows, uint32_t ce, uint32_t cd, uint32_t se,
	       uint32_t sd);
/* Rule sets of L (seed 1); free with gen_rules_free. */
struct gen_rules *su_rules(const struct gen_levels *l);
/* Apply L's rules and measure L's traffic with SEED. */
void su_run(struct tb *tb, const struct gen_levels *l, uint64_t seed, struct tb_sample *out);
/* Median over N (<= 64) seeds of bw (metric bw) or median latency (metric lat). */
double su_median(struct tb *tb, const struct gen_levels *l, int n);

/* Fail the test unless GOT is within TOL (relative) of WANT; WHAT names the number. */
void within(double got, double want, double tol, const char *what);
/* A cx7 profile with only MECH switched on (NULL: none); open_only opens a testbed on it. */
char *only(const char *mech);
struct tb *open_only(const char *mech);
/* Verb V, metric bw, message SIZE and MTU into L. */
void bw_levels(struct gen_levels *l, enum topo_verb v, uint32_t size, uint32_t mtu);
/* A testbed on shipped profile NAME. */
struct tb *open_shipped(const char *name);

#endif
