/* SPDX-License-Identifier: MIT */
/*
 * hx_causal: from symptoms to causes (DESIGN.md "Causal testing", steps 4-6), and the two
 * baseline strategies it is compared with.
 *
 * Every strategy works per (verb, metric) that has a baseline and asks for points through one
 * evaluator (struct hx_eval): a memo of point results on top of hx_point_run, so a point is
 * judged once per strategy, every trial is committed by hx_trial, and a point measured by an
 * earlier strategy or campaign comes from the store for free. The evaluator counts the trials
 * and testbed-seconds a strategy *requested* (each distinct trial once, whether measured now
 * or found in the store): that is the strategy's own cost, comparable across strategies that
 * share one trial cache.
 *
 *   cct     stress point S (scale dimensions at their highest level, the others neutral, then
 *           each non-scale dimension moved to a level that makes the symptom significantly
 *           worse, or that makes S symptomatic at all); local sensitivity analysis (hx_lsa.c)
 *           picks and orders the candidates; a dimension LSA cannot see (a saturated wall:
 *           every trial times out one level lower too) is still walked when the candidates
 *           do not explain the symptom; a permutation-removal walk (hx_removal.c) finds a 1-minimal
 *           set, which is explained away (set neutral) before looking for the next cause; each
 *           cause is then re-examined at its isolation point (S with every other cause
 *           removed) with all the plan's removal orders: confidence = share of orders that
 *           keep a member. Walls: the wall search's for single-member causes, else a binary
 *           search over each member's levels.
 *   brute   full factorial over the plan's dimensions (neutral included); causes are the
 *           minimal supports (sets of non-neutral dimensions) of symptomatic points.
 *   anneal  black-box simulated annealing on the degradation, each symptomatic point found
 *           is minimised dimension by dimension (as earlier RDMA anomaly finders do).
 *
 * Points are requested as levels; a point the generators cannot build (more masks than flows,
 * more encap contexts than flows) is repaired by raising flows to the smallest level that
 * builds (gen_levels_repair, as every phase does). Causal sets are stated in requested levels.
 *
 * Every point result (and baseline) is judged without its outlier repeats (its summary is
 * hx_summarise_robust's, harness/trial), and a removal only "cures" when it moves the metric
 * beyond noise.
 *
 * Assumes: a dimension is "removed" at its plan neutral level; larger |level - neutral| on an
 * ordered dimension is more demanding. The harness never reads testbed internals.
 *
 * Ownership: hx_eval_new allocates, hx_eval_free releases (NULL ok). struct hx_analysis is a
 * plain value owned by the caller (large: allocate it on the heap or in a static context).
 */
#ifndef HX_CAUSAL_H
#define HX_CAUSAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "generators/gen.h"
#include "harness/plan/hx_plan.h"
#include "harness/trial/hx_trial.h"

struct hx_outcome;  /* harness/campaign/hx_campaign.h */
struct json_object; /* json-c: the evidence of a cause */

#define HX_CAUSE_MAX_MEMBERS 4
#define HX_MAX_CAUSES 64
#define HX_CAUSE_MAX_IDS 48
#define HX_MAX_NOTES 16

/* ---- Evaluator ------------------------------------------------------------------------ */

/* A point evaluation (tests replace hx_point_extend with a fake): grow OUT (OUT->n == 0 on
 * the first call for L and FIRST) to REPEATS repeats (0: the plan's) with repeat indices
 * from FIRST on, and summarise it. Returns 0 or a negative errno; COST_S receives the
 * testbed-seconds of the trials this call added. */
typedef int (*hx_eval_fn)(void *ctx, const struct gen_levels *l, const char *phase, int first,
			  unsigned repeats, struct hx_point_result *out, double *cost_s,
			  struct scn_error *err);

struct hx_eval;
/* R may be NULL when FN is given (fake testbed); FN NULL = hx_point_run on R. */
int hx_eval_new(struct hx_runner *r, hx_eval_fn fn, void *ctx, struct hx_eval **out);
void hx_eval_free(struct hx_eval *e);
/* Result of point L (repaired, memoised). The returned pointer stays valid until
 * hx_eval_free. */
int hx_eval_point(struct hx_eval *e, const struct gen_levels *l, const char *phase,
		  const struct hx_point_result **out, struct scn_error *err);
/* Measure the points L[0..N-1] at once (the plan's repeats each), on a runner of several
 * slots, so that the hx_eval_point calls that follow find them memoised; with one slot (or
 * a custom FN) it does nothing and each is measured when asked. For points a strategy
 * asks for whatever their results: the same trials are measured, only sooner. */
int hx_eval_prefetch(struct hx_eval *e, const struct gen_levels *l, unsigned n,
		     const char *phase, struct scn_error *err);
/* The same point grown to REPEATS repeats (sequential testing); the pointer hx_eval_point
 * returned for L sees the new repeats too. */
int hx_eval_extend(struct hx_eval *e, const struct gen_levels *l, const char *phase,
		   unsigned repeats, const struct hx_point_result **out, struct scn_error *err);
/* An independent replicate of L: the plan's repeats again, as fresh trials (repeat indices
 * from HX_REPLICATE_REPEAT), memoised apart from hx_eval_point's. */
int hx_eval_replicate(struct hx_eval *e, const struct gen_levels *l, const char *phase,
		      const struct hx_point_result **out, struct scn_error *err);
/* That replicate grown to REPEATS fresh trials. */
int hx_eval_replicate_extend(struct hx_eval *e, const struct gen_levels *l, const char *phase,
			     unsigned repeats, const struct hx_point_result **out,
			     struct scn_error *err);
/* L judged against BASE (hx_causal_judge); while it is undecided, more repeats up to the
 * plan's max_repeats (sequential testing, counted in hx_eval_seq). */
int hx_eval_judge(struct hx_eval *e, const struct hx_plan *p, const struct hx_point_result *base,
		  const struct gen_levels *l, const char *phase, const struct hx_point_result **out,
		  struct hx_symptom *s, struct scn_error *err);
const struct hx_seq *hx_eval_seq(const struct hx_eval *e);
unsigned long hx_eval_points(const struct hx_eval *e);
unsigned long hx_eval_trials(const struct hx_eval *e);
double hx_eval_cost(const struct hx_eval *e);



/* ---- Symptoms and sensitivity --------------------------------------------------------- */

/* Judge POINT against BASE with the plan's thresholds (hx_symptom_judge); *UNDECIDED (may be
 * NULL) is set when more repeats could decide it: the estimate is beyond the threshold but
 * the test is not significant, or the 95% interval of the effect straddles the threshold, or
 * trials failed but not significantly more often than at the baseline. */
void hx_causal_judge(const struct hx_plan *p, enum gen_metric m, const struct hx_point_result *base,
		     const struct hx_point_result *point, struct hx_symptom *sym, bool *undecided);

/* Degradation of POINT vs BASE (an objective for ordering, not an effect size): bw
 * 1 - y/y0, lat y/y0 - 1, over the usable values; the share of failed trials counts as a
 * full loss (bw) or +10 (lat). 0 = as good as the baseline. */
double hx_causal_degradation(enum gen_metric m, const struct hx_point_result *base,
			     const struct hx_point_result *point);

/* The ordered axis of a plan dimension: its levels plus neutral, ascending (categorical: the
 * levels in plan order, neutral first). Returns the count (<= HX_PLAN_MAX_LEVELS + 1). */
unsigned hx_causal_axis(const struct hx_plan_dim *d, double *axis);
/* How far LEVEL is from D's neutral level: |log(level / neutral)| for positive levels (a
 * 4x step counts the same up or down), else |level - neutral|. */
double hx_level_distance(const struct hx_plan_dim *d, double level);
/* The level of D at the stress point: a scale dimension's level farthest from neutral (the
 * higher one on a tie; mtu 256 when neutral is 4096), else neutral. */
double hx_causal_extreme(const struct hx_plan_dim *d);

struct hx_lsa_dim {
	unsigned dim;        /* index in plan->dims */
	double from, to;     /* level at the point, level moved to */
	double sens;         /* normalised sensitivity (elasticity, or relative effect/step) */
	double lo, hi;       /* its 95% interval */
	double harm;         /* degradation change of removing/adding one step (>0: worse) */
	bool candidate;      /* interval excludes zero */
	bool undecided;      /* estimate large (beyond the threshold) but interval has zero */
	bool categorical;
	const struct hx_point_result *res; /* the moved point (the evaluator's, borrowed) */
};

struct hx_lsa {
	unsigned n;
	struct hx_lsa_dim d[2 * HX_PLAN_MAX_DIMS];
	uint32_t candidates; /* bit i: plan dim i is a candidate */
	double sens[HX_PLAN_MAX_DIMS]; /* strongest |sens| per dim (ordering) */
	uint32_t undecided;
};

/* Local sensitivity at AT (symptomatic against BASE): every plan dimension not at neutral is
 * moved one level toward neutral and one away (when it exists); a non-scale dimension at
 * neutral is moved one level away on each side and to each end of its axis (context
 * dimensions that may aggravate the symptom). */
int hx_lsa_run(struct hx_eval *e, const struct hx_plan *p, const struct hx_point_result *base,
	       const struct gen_levels *at, struct hx_lsa *out, struct scn_error *err);

/* ---- Permutation removal -------------------------------------------------------------- */

struct hx_removal {
	unsigned n_orders;
	uint32_t kept[64];          /* 1-minimal set per order (bit = plan dim index) */
	double confidence[HX_PLAN_MAX_DIMS]; /* share of orders keeping the dim */
	uint32_t mode;              /* the most frequent kept set */
	unsigned mode_count;
	unsigned n_ids;
	int64_t ids[HX_CAUSE_MAX_IDS]; /* trials where a removal cured the symptom */
	/* evidence: one object per order {order, steps: [{remove, result, ...}], kept}
	 * (owned: hx_removal_release, or taken by the caller); steps of the walk running */
	struct json_object *orders, *steps;
};
void hx_removal_release(struct hx_removal *r);

/* One walk: remove (set neutral) the dims of ORDER one by one from AT, keeping a removal when
 * the symptom persists. *KEPT receives the 1-minimal set, *FINAL (may be NULL) the point with
 * every removal that was kept. EV (may be NULL) collects the trials that show a cure. */
int hx_removal_walk(struct hx_eval *e, const struct hx_plan *p,
		    const struct hx_point_result *base, const struct gen_levels *at,
		    const unsigned *order, unsigned n, uint32_t *kept, struct gen_levels *final,
		    struct hx_removal *ev, struct scn_error *err);
/* Orders: 0 ascending sensitivity (least sensitive removed first), 1 the reverse, then seeded
 * random permutations, N_ORDERS in all (1..64). */
void hx_removal_order(const uint32_t cand, const double *sens, unsigned k, uint64_t seed,
		      unsigned *order, unsigned *n);
int hx_removal_run(struct hx_eval *e, const struct hx_plan *p, const struct hx_point_result *base,
		   const struct gen_levels *at, uint32_t cand, const double *sens,
		   unsigned n_orders, uint64_t seed, struct hx_removal *out, struct scn_error *err);

/* ---- Causes and analysis -------------------------------------------------------------- */

/* Invariants: 1 <= n_members <= HX_CAUSE_MAX_MEMBERS; members are plan dims; 0 <= confidence
 * <= 1; effect_lo <= effect <= effect_hi when all are finite. */
struct hx_cause {
	enum topo_verb verb;
	enum gen_metric metric;
	unsigned n_members;
	const struct gen_dimension *members[HX_CAUSE_MAX_MEMBERS];
	double at[HX_CAUSE_MAX_MEMBERS];        /* member levels where it was shown */
	bool context[HX_CAUSE_MAX_MEMBERS];     /* a non-scale member (message size, ...): the
						 * workload's setting, not a scale to model */
	double wall[HX_CAUSE_MAX_MEMBERS];      /* first symptomatic level per member (NAN: ?) */
	double last_good[HX_CAUSE_MAX_MEMBERS];
	double effect, effect_lo, effect_hi;    /* relative change with vs without the cause */
	double confidence;                       /* min over members of their order share */
	char kind[16], class_[16];
	bool undecided;                          /* more repeats needed to be sure */
	unsigned failed_with, n_with;            /* failed trials with the cause / all trials */
	unsigned failed_without, n_without;      /* the same without it */
	struct gen_levels shown;                 /* where it was shown (the isolation point) */
	bool replicated;                         /* fresh trials: symptom with it, cured without */
	bool in_range;                           /* every member inside the qualified ranges */
	char through[16];                        /* "flows": its points need the flows past
						  * their wall (hx_through.c), else "" */
	char why[192];                           /* a suspect: why the evidence does not support it */
	unsigned n_ids;
	int64_t ids[HX_CAUSE_MAX_IDS];
	struct json_object *evidence;            /* hx_evidence.c (owned by the analysis) */
};

/* Causes and suspects are kept apart: causes[] holds only what the evidence supports
 * (hx_analysis_support), suspects[] the rest, each with its reasons in why[]. */
struct hx_analysis {
	enum hx_strategy strategy;
	unsigned n_causes;
	struct hx_cause causes[HX_MAX_CAUSES];
	unsigned n_suspects;
	struct hx_cause suspects[HX_MAX_CAUSES];
	unsigned long points, trials; /* requested by this strategy */
	double cost_s;                /* testbed-seconds requested by this strategy */
	struct hx_seq seq;            /* what sequential testing added */
	bool budget_exhausted;
	unsigned n_notes;
	char notes[HX_MAX_NOTES][160]; /* "undecided: ...", "unexplained symptom at ..." */
};

/* Run strategy S for every baseline of O (walls of O are used by cct when found). */
int hx_causal_cct(struct hx_eval *e, const struct hx_plan *p, const struct hx_outcome *o,
		  struct hx_analysis *a, struct scn_error *err);
int hx_strategy_brute(struct hx_eval *e, const struct hx_plan *p, const struct hx_outcome *o,
		      struct hx_analysis *a, struct scn_error *err);
int hx_strategy_anneal(struct hx_eval *e, const struct hx_plan *p, const struct hx_outcome *o,
		       struct hx_analysis *a, struct scn_error *err);
int hx_causal_run(struct hx_eval *e, const struct hx_plan *p, const struct hx_outcome *o,
		  enum hx_strategy s, struct hx_analysis *a, struct scn_error *err);

/* The campaign's analysis step: strategy from the plan, on runner R, causes stored in R's
 * campaign (after the symptoms). -EDQUOT (budget) still leaves A filled with what was found. */
int hx_analysis_phase(struct hx_runner *r, const struct hx_plan *p, const struct hx_outcome *o,
		      struct hx_analysis *a, struct scn_error *err);

/* Helpers shared by the strategies (hx_causal.c). */
void hx_analysis_note(struct hx_analysis *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Add a cause (members: bitset over plan dims), merging with an equal one. Returns it. */
struct hx_cause *hx_analysis_add(struct hx_analysis *a, const struct hx_plan *p,
				 enum topo_verb v, enum gen_metric m, uint32_t members,
				 const struct gen_levels *at);
uint32_t hx_cause_bits(const struct hx_plan *p, const struct hx_cause *c);
void hx_cause_add_ids(struct hx_cause *c, const struct hx_point_result *r);
/* Effect of the cause: relative change at WITH vs WITHOUT, 95% interval (delta method). */
void hx_cause_effect(enum gen_metric m, const struct hx_point_result *with,
		     const struct hx_point_result *without, struct hx_cause *c);

/* ---- Verdict (hx_verdict.c) ------------------------------------------------------------ */
/*
 * A supported cause inside the qualified ranges fails the plan like a wall there does: every
 * member's first symptomatic level (or, when unknown, the level it was shown at) lies in the
 * member dimension's qualified range (hx_in_qualified_range). A member no criterion names
 * has no qualified range, so such a cause is outside (as a wall is).
 */
bool hx_cause_in_range(const struct hx_plan *p, const struct hx_cause *c);
/* The campaign's exit status: hx_outcome_exit's (criteria, walls, budget), then 1 when a
 * cause of O's analysis is in range (marking each cause's in_range). */
int hx_verdict_exit(const struct hx_plan *p, struct hx_outcome *o);
/* How many causes of A are marked in range (after hx_verdict_exit). */
unsigned hx_analysis_in_range(const struct hx_analysis *a);

/* ---- Support (hx_support.c) ------------------------------------------------------------ */
/*
 * A cause is reported only when the evidence supports it: its effect's 95% interval excludes
 * zero in the symptom's direction (a bandwidth drop, a latency rise; for a cause whose trials
 * all failed, failures significantly more frequent with it than without), the estimate is at
 * least the plan's threshold, its confidence is at least the plan's min_confidence, and its
 * cure is replicated (fresh trials show the symptom with it and none without it). Anything
 * else is a suspect, with every reason that applies.
 */
/* Whether C (replicate already judged) is supported; WHY receives the reasons when not. */
bool hx_cause_supported(const struct hx_plan *p, const struct hx_cause *c, char *why,
			size_t len);
/* Mark the causes that act through the flows (hx_through.c): their isolation point needs
 * at least the flows of a flows cause's wall. */
void hx_analysis_mark_through(struct hx_analysis *a);
/* Move every cause of A whose baseline drifted by the check after the analysis (o->drift)
 * to A's suspects, with the reason "baseline drifted". */
void hx_analysis_mark_drift(struct hx_analysis *a, const struct hx_plan *p,
			    const struct hx_outcome *o);
/* Replicate every cause of A, judge it and move the unsupported ones to A's suspects. */
int hx_analysis_support(struct hx_eval *e, const struct hx_plan *p, const struct hx_outcome *o,
			struct hx_analysis *a, struct scn_error *err);

/* ---- Evidence (hx_evidence.c) ---------------------------------------------------------- */
/*
 * What `scalacn explain` shows, kept per cause in hx_cause.evidence (a JSON object built
 * here, stored in the causes table, printed by the CLI): "stress_point", "isolation_point"
 * (non-neutral plan dimensions), "baseline", "sensitivity" (each move: dimension, from, to,
 * kind, sensitivity, lo, hi, candidate, why, moved), "candidates", "orders" (each: order,
 * steps [{remove, result, mean, vs_baseline, p_vs_before, trial_ids}], kept), "with",
 * "without", "replicate" {with, without, effect, lo, hi, replicated}; every point result as
 * {mean, sd, n, failed, vs_baseline, trial_ids}.
 */
/* New JSON references. */
struct json_object *hx_ev_point(const struct hx_plan *p, const struct gen_levels *l);
struct json_object *hx_ev_result(const struct hx_point_result *r, const struct hx_point_result *base);
struct json_object *hx_ev_lsa(const struct hx_plan *p, const struct hx_lsa *lsa,
			      const struct hx_point_result *base);
struct json_object *hx_ev_dims(const struct hx_plan *p, uint32_t bits);
/* The evidence of a cause a search found at AT (brute, anneal): that point against the
 * baseline, which is the point without it. */
void hx_ev_found(struct hx_cause *c, const struct hx_plan *p, const char *strategy,
		 const struct gen_levels *at, const struct hx_point_result *with,
		 const struct hx_point_result *base);
/* Set C's evidence KEY to V (taking V's reference; replaces an earlier one). */
void hx_ev_set(struct hx_cause *c, const char *key, struct json_object *v);
/* Release the evidence of every cause and suspect of A (A stays usable, without it). */
void hx_analysis_release(struct hx_analysis *a);

/* ---- Texts and the store ----------------------------------------------------------------- */

/* Causes of A into CAMPAIGN (one symptom row per cause, then the cause). */
int hx_analysis_store(struct res_db *db, int64_t campaign, const struct hx_analysis *a,
		      struct scn_error *err);
/* "server.decap_masks+flows" */
const char *hx_cause_members_text(const struct hx_cause *c, char *buf, size_t len);
/* "flows@7512(ok 7194)" per member, "@?" where the wall is not known */
void hx_cause_walls_text(const struct hx_cause *c, char *buf, size_t len);

#endif
