/* SPDX-License-Identifier: MIT */
/*
 * causal-fake-util: the fake testbed of the causal-analysis tests (test-causal.c,
 * test-causal-verdicts.c), whose truth is known: bandwidth falls with the receive-side masks
 * (a single-dimension wall at 8 masks), collapses when many QPs meet small pages when asked
 * (an interaction: neither alone), and ignores flows and the traffic class; optional curves
 * plant a cause that does not replicate, two causes sharing a member, a cause hidden behind
 * another, and a gross outlier. Noise is seeded from the point, so results are reproducible.
 * Also the plan the tests analyse, a world (plan, fake, baseline, evaluator, analysis) and
 * helpers that look for causes in an analysis.
 */
#ifndef CAUSAL_FAKE_UTIL_H
#define CAUSAL_FAKE_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"
#include "harness/plan/hx_plan.h"

struct fake {
	double cv;          /* multiplicative noise */
	double mask_k;      /* bw = 100 / (1 + mask_k * masks) ... */
	bool interaction;   /* qps >= 256 and page 4K halve the bandwidth */
	bool transient;     /* flows >= 1024 halve it, but only in the first trials of a point
			     * (not in a replicate's): a cause whose cure does not replicate */
	bool shared;        /* no mask wall; flows >= 1024 halve it with 8+ masks, and again
			     * with 256+ QPs: two causes sharing flows */
	bool hidden;        /* masks cap it hard (min); 256+ QPs with 4K pages cap it at 50:
			     * a cause the mask wall hides until it is removed */
	bool outlier;       /* the first replicate trial of every point with fewer than 8
			     * masks ran 1.5x slow (a gross outlier) */
	uint64_t noise_seed; /* 0: the noise of every test before it; others: other draws */
	int64_t next_id;
	unsigned long calls;
	unsigned repeats;
};

/* The fake's measure (an hx_eval point callback, ctx a struct fake): REPEATS trials (the
 * fake's own when 0) of L, trial r from FIRST + r, 2 s of cost each; never fails. */
int fake_point(void *ctx, const struct gen_levels *l, const char *phase, int first,
	       unsigned repeats, struct hx_point_result *out, double *cost_s,
	       struct scn_error *err);

/* The test plan (masks, flows, qps, page_size, traffic_class; bw_drop 10%, 6 removal orders)
 * with REPEATS repeats, loaded through a temporary file. */
struct hx_plan *load_plan(unsigned repeats);

struct world {
	struct hx_plan *p;
	struct fake f;
	struct hx_outcome o;
	struct hx_analysis a;
	struct hx_eval *e;
};

/* A world on the test plan: a fake with noise CV, the mask wall, the QP/page interaction if
 * INTERACTION, REPEATS repeats, its baseline measured, and an evaluator over it. */
struct world *world_new(double cv, bool interaction, unsigned repeats);

/* Measure the baseline again after the fake's curve was changed. */
void world_rebase(struct world *w);

/* Release the world's analysis, evaluator and plan, and the world. */
void world_free(struct world *w);

/* The cause whose members are exactly M1 (and M2 when not NULL), or NULL. */
const struct hx_cause *find_cause(const struct hx_analysis *a, const char *m1, const char *m2);

/* Whether any cause has DIM among its members. */
bool mentions(const struct hx_analysis *a, const char *dim);

/* Assert the fake's truth: the mask wall at 8 masks, nothing of flows or traffic class, and
 * the QP/page interaction if and only if INTERACTION. */
void check_truth(const struct hx_analysis *a, bool interaction);

/* A replicated single-member (flows) write-bandwidth cause with this effect, interval and
 * confidence, 5 trials with and without. */
struct hx_cause a_cause(double effect, double lo, double hi, double conf);

/* Whether find_cause finds a cause of exactly M1 (and M2). */
bool has(const struct hx_analysis *a, const char *m1, const char *m2);

#endif
