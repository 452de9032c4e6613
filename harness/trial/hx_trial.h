/* SPDX-License-Identifier: MIT */
/*
 * hx_trial: running trials for a campaign: look a trial up by key in the store, or apply the
 * point's rule sets (only when they changed), measure, and commit the trial in its own
 * transaction before returning. This is where "nothing measured is ever lost" holds.
 *
 * When a trial shows rules in software (tc_not_in_hw > 0), every rule is removed before the
 * next rule set is applied, so that the NIC's fallback hysteresis cannot carry one point's
 * state into the next (and a resumed campaign measures what an uninterrupted one did).
 *
 * A runner drives one testbed (r->tb) or a pool of slots (hx_runner_slots: K client/server
 * pairs, K trials at once): each slot keeps the rule sets it applied. Trials of one point's
 * repeats, and the wall searches of different dimensions, run on the slots at once; every
 * decision reads only its own trials, in repeat order, and a trial's noise comes from its
 * key and the plan's seed alone, so a pooled campaign decides exactly what a serial one
 * does. hx_trial may be called from several threads at once on one runner.
 *
 * The runner owns the slot pool and the rule sets; testbeds, store and progress are borrowed.
 */
#ifndef HX_TRIAL_H
#define HX_TRIAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "generators/gen.h"
#include "harness/plan/hx_plan.h"
#include "harness/trial/hx_pool.h"  /* part of this door: the testbed slots */
#include "harness/trial/hx_stats.h" /* part of this door: summaries and Welch's test */
#include "results/res.h"
#include "testbeds/tb.h"

/* Who shows progress (the CLI's progress line): told when a phase starts and when a trial
 * ends. Callbacks may be NULL; the runner never prints. */
struct hx_observer {
	void *ctx;
	void (*phase)(void *ctx, const char *phase, unsigned long planned_more);
	void (*trial)(void *ctx, double cost_s, bool cached);
	/* The current phase needs MORE trials than it announced (a model point's layouts). */
	void (*more)(void *ctx, unsigned long more);
	/* Slot SLOT failed (WHY: the testbed's message) and was taken out of the pool;
	 * ALIVE slots are left. */
	void (*slot_lost)(void *ctx, unsigned slot, unsigned alive, const char *why);
};
/* Tell O (may be NULL) that PHASE starts with PLANNED_MORE trials more, or that one ended. */
void hx_observe_phase(const struct hx_observer *o, const char *phase, unsigned long planned_more);
void hx_observe_trial(const struct hx_observer *o, double cost_s, bool cached);
void hx_observe_more(const struct hx_observer *o, unsigned long more);

struct hx_runner {
	struct tb *tb;                 /* borrowed; the one slot unless hx_runner_slots was called */
	struct tb_description desc;
	struct res_db *db;             /* borrowed */
	int64_t campaign;
	uint64_t seed;                 /* plan seed: rule generation and trial noise derive from it */
	unsigned repeats;
	unsigned stop_after_failures; /* the plan's: a point whose first N repeats all failed
				       * stops there (0: never; hx_point_failing) */
	double budget_s;
	const struct hx_observer *observer; /* borrowed, may be NULL */
	volatile sig_atomic_t *stop;   /* set by a signal handler; checked between trials */
	/* state */
	struct hx_pool *pool;          /* the slots (created from tb at the first trial) */
	/* Built rule-set parts reused by content (made at the first build by hx_pool_rules,
	 * under the pool's build lock, and shared by the runner's slots: the cache is
	 * thread-safe and hx_pool_rules builds one at a time);
	 * no_rules_cache: build every rule set from scratch (the reference the benchmarks and
	 * tests compare against). */
	struct gen_rules_cache *rules_cache;
	bool no_rules_cache;
	bool dry_run;                  /* print commands only: no store, numbers are NAN */
	double cost_s;                 /* testbed-seconds of this campaign's trials */
	unsigned long measured, cached;
};

/* One trial's outcome as the analysis sees it. */
struct hx_trial_out {
	int64_t id;
	struct res_sample sample;
	bool cached;
	unsigned slot;  /* the slot that measured it (a cached trial: the stored one) */
};

void hx_runner_init(struct hx_runner *r);
void hx_runner_release(struct hx_runner *r);
/* Run trials on the N slots TB[] (borrowed, alike: tb_pool.h) instead of r->tb; r->tb
 * becomes TB[0]. Call before the first trial. 0, -EINVAL (N out of 1..HX_POOL_MAX) or
 * -ENOMEM. */
int hx_runner_slots(struct hx_runner *r, struct tb *const *tb, unsigned n);
/* Slots in the pool (1 for a runner of one testbed). */
/* Every slot as if its NIC held no rules: the next trial on it clears what it holds and
 * programs its rules from scratch (compare runs each strategy as it would run alone). */
void hx_runner_forget_rules(struct hx_runner *r);
unsigned hx_runner_width(struct hx_runner *r);

/* Run (or find) repeat REPEAT of the point L. PHASE is recorded with the point.
 * Returns 0, -EINTR when a stop was requested before it started, -EDQUOT when the budget is
 * spent, -EDOM when the point cannot be built (the generator refused its levels, e.g. more
 * masks than flows; ERR says why, nothing is measured or stored), or a negative errno with
 * ERR set (testbed device errors, store errors; a testbed error names the point and repeat
 * in front of the testbed's message). A trial whose status is timeout, completion_error,
 * apply_failed or unusable is a result, not an error. Every backend's ok sample is judged
 * with tb_sample_judge before it is stored, so a 0, negative or infinite number is never
 * stored as ok. */
int hx_trial(struct hx_runner *r, const struct gen_levels *l, const char *phase, int repeat,
	     struct hx_trial_out *out, struct scn_error *err);

/* All repeats of a point; the metric's number (bw or median latency) of each in X[], NAN for
 * a trial that failed or was unusable. Failed trials (status not "ok": timeouts, errors)
 * count in FAILED, are evidence of their own kind (a failure rate) and add no value.
 * Unusable trials (the testbed's numbers could not be used: status "unusable", or an ok
 * trial whose number is 0 or not finite) measured nothing about the NIC: they count in
 * UNUSABLE only and are no symptom. S summarises the usable values (mean NAN when none). */
struct hx_point_result {
	struct hx_summary s;
	double x[HX_MAX_REPEATS];
	int64_t ids[HX_MAX_REPEATS];
	unsigned n, failed, unusable;
	char status[24];  /* worst status seen ("ok" when all ok, "unusable" for no number) */
	double counters_not_in_hw; /* max tc_not_in_hw seen */
	double sw_share;           /* max share of rules in software: not_in_hw / (in_hw + not) */
};
int hx_point_run(struct hx_runner *r, const struct gen_levels *l, const char *phase,
		 struct hx_point_result *out, struct scn_error *err);

/* ---- Repeats (hx_repeats.c) -------------------------------------------------------------- */
/* Repeat indices: 0.. the plan's repeats and what sequential testing adds; a replicate
 * (fresh trials of a point already measured) starts at HX_REPLICATE_REPEAT; the k-th drift
 * check of a baseline at HX_DRIFT_REPEAT + k * HX_MAX_REPEATS. */
#define HX_REPLICATE_REPEAT 1000
#define HX_DRIFT_REPEAT 2000

/* Grow OUT (zeroed before the first call, or filled by an earlier call for the same L and
 * FIRST) to N repeats: runs repeats FIRST + OUT->n .. FIRST + N - 1 of L (at once, one per
 * slot, on a pool; added in repeat order), then summarises. One after the other, it stops
 * short of N once the point is failing (R->stop_after_failures). On an error the repeats
 * before the first failed one are kept in OUT and that error is returned. */
int hx_point_extend(struct hx_runner *r, const struct gen_levels *l, const char *phase,
		    int first, unsigned n, struct hx_point_result *out, struct scn_error *err);
/* True when R stops points after failures and OUT's first R->stop_after_failures repeats or
 * more all failed (no value, no unusable). */
bool hx_point_failing(const struct hx_runner *r, const struct hx_point_result *out);
/* Add one trial to OUT (its value, id, status, software share). */
void hx_point_add(struct hx_point_result *out, const struct gen_levels *l,
		  const struct hx_trial_out *t);
/* Recompute OUT's summary and failed count from X[] (values of metric M). */
void hx_point_finish(struct hx_point_result *out, enum gen_metric m);

struct hx_symptom; /* below */

/* Sequential testing, counted: points that needed more repeats, the trials added, the most
 * repeats a point reached, and points still undecided at max_repeats. */
struct hx_seq {
	unsigned long points, trials, undecided;
	unsigned max_n;
};
/* The next repeat count for a point of N repeats that is undecided: N + the plan's repeats,
 * at most max_repeats; 0 when it may not grow (sequential testing off, or at the cap). */
unsigned hx_seq_next(const struct hx_plan *p, unsigned n);
/* Count one point that ended at N repeats after starting at the plan's, still UNDECIDED. */
void hx_seq_count(struct hx_seq *q, const struct hx_plan *p, unsigned n, bool undecided);
/* Judge RES (point L, repeats from 0) against BASE; while it is undecided or its interval
 * straddles the threshold, and it may grow, add repeats and judge again (sequential
 * testing). Q (may be NULL) counts what was added. */
int hx_point_decide(struct hx_runner *r, const struct hx_plan *p, const struct gen_levels *l,
		    const char *phase, const struct hx_point_result *base,
		    struct hx_point_result *res, struct hx_symptom *s, struct hx_seq *q,
		    struct scn_error *err);

/* The metric value of a sample for L's metric (bandwidth Gb/s, or median latency us). */
double hx_sample_value(const struct gen_levels *l, const struct res_sample *s);

/* ---- Symptoms ---------------------------------------------------------------------------- */
/*
 * hx_symptom: is a point's result a symptom against its baseline? Needs both the plan's
 * threshold (relative bandwidth drop or latency rise) and significance (Welch's t-test) on
 * the usable values, or failed trials (timeouts, completion errors, rules refused, unusable
 * numbers) significantly more frequent than at the baseline (hx_failure_p) when the plan
 * counts errors: one failed trial of three is not a symptom by itself.
 * Software fallback (a larger share of rules not_in_hw than at the baseline) names it S1.
 * Classification into the paper's S1..S8 uses only what was measured: the counters, the
 * statuses and which dimension was being varied.
 */
struct hx_symptom {
	bool present;
	double effect;   /* relative change of the usable values vs baseline (-0.4 = 40% lower);
			  * NAN when no trial measured anything */
	double effect_lo, effect_hi; /* its 95% interval (delta method on ln(y / y0)) */
	double p_value;  /* Welch's test; for a symptom of failures, the failure test's p */
	char kind[16];   /* bw_drop, lat_rise, timeout, errors, unusable, sw_fallback, "" */
	bool fallback;   /* larger share of rules in software than at the baseline */
	bool failures;   /* failures significantly more frequent than at the baseline */
	bool undecided;  /* more repeats could decide it: beyond the threshold but not
			  * significant, an interval straddling the threshold, or failures
			  * that are not significant */
	bool straddles;  /* the effect's interval contains the threshold: R repeats cannot
			  * decide which side it is on (sequential testing adds repeats) */
	unsigned failed, n; /* failed (or unusable) trials, all trials */
	double fail_lo, fail_hi; /* Clopper-Pearson 95% interval of the failure rate */
};

void hx_symptom_judge(const struct hx_plan_thresholds *t, enum gen_metric metric,
		      const struct hx_point_result *base, const struct hx_point_result *at,
		      struct hx_symptom *out);
/* "S1" (software fallback), "S8" (timeouts: RNIC unresponsive), "S4" (rule churn),
 * "S6" (degradation growing with matching masks or flows), else "unclassified". */
const char *hx_symptom_class(const struct hx_symptom *s, const struct gen_dimension *dim);

#endif
