/* SPDX-License-Identifier: MIT */
/*
 * fake-tb: a testbed for tests of the campaign's decisions (walls, noise, drift): struct tb
 * with its own ops, whose bandwidth or latency is a function the test gives of the traffic
 * (qps, msg_size, ...), the trial's seed and how many trials it has run. It programs no
 * rules and has no counters: the harness sees only what it measures, as with a real host.
 * A campaign on it (fake_campaign_*) runs the real baseline and wall-search phases against a
 * temporary store.
 */
#ifndef TESTS_FAKE_TB_H
#define TESTS_FAKE_TB_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/campaign/hx_campaign.h"

struct fake_tb;
/* The value of one trial: bandwidth (Gb/s) or median latency (us) for T; *STATUS may be set
 * to a failure. U is uniform in [0, 1) from the trial's seed, Z standard normal from it. */
typedef double (*fake_tb_fn)(const struct fake_tb *f, const struct gen_traffic *t, double u,
			     double z, enum tb_status *status);

struct fake_tb {
	struct tb base;          /* first: the dispatcher's ops pointer */
	fake_tb_fn fn;
	double cv;               /* for the test function's use */
	int mode;                /* for the test function's use */
	unsigned long calls;     /* trials measured so far */
};

void fake_tb_init(struct fake_tb *f, fake_tb_fn fn, double cv, int mode);

/* A campaign of PLAN_TEXT on F: plan loaded, store in a temporary file, runner ready. */
struct fake_campaign {
	char dir[64], path[96];
	struct hx_plan *plan;
	struct res_db *db;
	struct hx_runner r;
	struct hx_outcome *o;
};
void fake_campaign_open(struct fake_campaign *c, struct fake_tb *f, const char *plan_text);
/* Baseline then wall search; fails the test on an error. */
void fake_campaign_walls(struct fake_campaign *c);
/* The drift check after phase AFTER; fails the test on an error. */
void fake_campaign_drift(struct fake_campaign *c, const char *after);
void fake_campaign_close(struct fake_campaign *c);

#endif
