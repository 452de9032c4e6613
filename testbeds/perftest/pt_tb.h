/* SPDX-License-Identifier: MIT */
/*
 * pt_tb: the members of the perftest backend's struct tb and the helpers its files share
 * (pt_backend.c: ops, open, describe, close; pt_exec.c: running and dry-run printing;
 * pt_apply.c: tc; pt_measure.c: traffic). Private to testbeds/perftest.
 */
#ifndef PT_TB_H
#define PT_TB_H

#include <stdio.h>

#include "testbeds/perftest/pt_argv.h"
#include "testbeds/perftest/pt_counters.h"
#include "testbeds/perftest/pt_host.h"
#include "testbeds/perftest/pt_inventory.h"
#include "testbeds/perftest/pt_net.h"
#include "testbeds/perftest/pt_proc.h"
#include "testbeds/perftest/pt_tc.h"
#include "testbeds/perftest/tb_perftest.h"

/* Invariant: installed[h] implies scope[h] describes what is on host h right now. */
struct tb_perftest {
	struct tb base;
	struct pt_inventory *inv;
	struct pt_ports *ports;
	bool dry_run;
	FILE *dry;                 /* where the dry run prints (not owned) */
	unsigned dry_trial;        /* trials printed so far */
	struct pt_tc_scope scope[PT_MAX_HOSTS];
	bool installed[PT_MAX_HOSTS];
	bool refused;              /* the last apply left rules out: next measure APPLY_FAILED */
	struct pt_tc_count tc;     /* read back after the last apply */
	bool have_tc;
	double pending_cost_s;     /* apply time not yet charged to a trial */
	char identity[160];
};

static inline struct tb_perftest *pt_tb_of(struct tb *tb)
{
	return (struct tb_perftest *)(void *)tb;
}

/* Print "[host] argv" (quoted for display) to the dry-run stream. */
void pt_tb_dry(struct tb_perftest *t, unsigned host, char *const *argv, const char *note);
/* Run CMD on host H and wait up to TIMEOUT_S (wrapped by its transport). In a dry run it is
 * printed and *out stays NULL (return 0). Otherwise *out is the finished process. */
int pt_tb_exec(struct tb_perftest *t, unsigned h, char *const *cmd, const struct pt_wrap *w,
	       const char *stdin_data, double timeout_s, struct pt_proc **out,
	       struct scn_error *err);
/* Start CMD on host H without waiting (dry run: print, *out NULL). */
int pt_tb_spawn(struct tb_perftest *t, unsigned h, char *const *cmd, const struct pt_wrap *w,
		struct pt_proc **out, struct scn_error *err);
/* The TCP socket table of host H (malloc'd; NULL in a dry run). */
int pt_tb_tcp_table(struct tb_perftest *t, unsigned h, char **out, struct scn_error *err);
/* Counters of host H's RNIC port into C (missing counters are not an error). */
void pt_tb_counters(struct tb_perftest *t, unsigned h, struct pt_counters *c);
/* Is host H one of the pairs' hosts? */
bool pt_tb_host_used(const struct tb_perftest *t, unsigned h);

int pt_tb_apply(struct tb *tb, const struct gen_rules *rules, struct scn_error *err);
/* Remove every filter this testbed installed (also after failures). */
int pt_tb_cleanup(struct tb_perftest *t, struct scn_error *err);
int pt_tb_measure(struct tb *tb, const struct gen_traffic *tr, uint64_t seed,
		  struct tb_sample *out, struct scn_error *err);

#endif
