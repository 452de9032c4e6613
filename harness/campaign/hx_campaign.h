/* SPDX-License-Identifier: MIT */
/*
 * hx_campaign: a campaign from plan to conclusions: baseline per verb and metric,
 * enumeration of the component space, wall search along every scale dimension (geometric
 * sweep, then bisection to the knee), and the plan's qualification criteria. Every trial goes
 * through hx_trial (committed as it finishes), so a killed campaign resumes from the store
 * and ends with the same result as an uninterrupted one.
 *
 * The outcome (struct hx_outcome) is computed only from stored trials and the plan: nothing
 * depends on whether a trial was measured now or found in the store.
 */
#ifndef HX_CAMPAIGN_H
#define HX_CAMPAIGN_H

#include <stdbool.h>
#include <stdint.h>

#include "generators/gen.h"
#include "harness/plan/hx_plan.h"
#include "harness/trial/hx_trial.h"
#include "topology/topo_enum.h"
#include <stddef.h>
#include "results/res.h"

struct hx_analysis; /* harness/causal/hx_causal.h: the causal room sits above this one */

#define HX_MAX_WALLS 128
#define HX_MAX_BASELINES (TOPO_VERB_COUNT * 2)

struct hx_baseline {
	enum topo_verb verb;
	enum gen_metric metric;
	struct hx_point_result r;
};

/* How noisy a baseline is for the plan: its coefficient of variation and the smallest change
 * R repeats can show (two-sample, at the plan's per-look significance, 80% power). */
struct hx_noise {
	double cv;           /* sd / mean of the baseline's usable repeats */
	double mde;          /* minimum detectable relative change with max_repeats repeats */
	double threshold;    /* the plan's threshold for this metric */
	unsigned repeats_needed; /* repeats per point for MDE <= threshold (0: > 10000) */
	bool too_noisy;      /* MDE > threshold: the plan cannot decide its own threshold */
};

/* One wall search's result: a wall (found: a persistent symptom with a knee), a slope (no
 * knee, a significant trend reaching the threshold), or neither. Invariants: found and slope
 * are not both set; failed <= n; a wall's effect is NAN when every trial at LEVEL failed. */
struct hx_wall {
	const struct gen_dimension *dim;
	enum topo_verb verb;
	enum gen_metric metric;
	bool found;          /* a wall: the symptom persists above LEVEL and has a knee */
	double level;        /* first symptomatic level (after bisection); a slope: CROSSING */
	double last_good;    /* highest level without the symptom */
	double max_tried;
	double effect;       /* relative change of the usable values at LEVEL vs baseline
			      * (a slope: at the top level) */
	double p_value;      /* Welch's p, or the failure test's p for a symptom of failures */
	unsigned failed, n;  /* failed trials at LEVEL, all trials there */
	double fail_lo, fail_hi; /* Clopper-Pearson 95% interval of the failure rate */
	char kind[16];       /* bw_drop, lat_rise, timeout, errors, unusable, sw_fallback */
	char class_[16];     /* S1, S4, S6, S8, unclassified */
	bool slope;          /* no knee: the metric changes steadily with the level */
	double slope_per_doubling, slope_lo, slope_hi; /* relative change per doubling, 95% CI
							* (per halving when descending) */
	bool descending;     /* the plan's levels lie below neutral (mtu): swept downward */
	double crossing;     /* where the fitted slope reaches the threshold (NAN: no slope) */
	unsigned slope_points; /* trials the slope was fitted on */
	bool in_range;       /* inside the qualified range of a criterion */
	bool drifted;        /* its baseline drifted before the check after the wall search */
	unsigned trials;     /* trials this search used */
	unsigned repeats;    /* the most repeats a level of this search needed */
	char note[320];      /* blips above which the symptom did not persist, an undecided
			      * symptom, repaired levels, why the sweep stopped early */
};

struct hx_criterion_result {
	bool pass, measured;
	double value, baseline, ratio;
	char status[24];
	bool drifted;        /* judged against a baseline that drifted before the next check */
};

#define HX_DRIFT_CHECKS 4 /* after the walls, the criteria, the analysis; one spare */

/* A baseline measured again during the campaign (fresh trials, repeat indices from
 * HX_DRIFT_REPEAT): against the first measurement, drift is a change beyond the noise
 * (Welch's p < significance) and large enough to move decisions (at least half the plan's
 * threshold), or failures significantly more frequent. */
struct hx_drift {
	unsigned baseline;   /* index in the outcome's baselines */
	unsigned check;      /* 1, 2, ...: the order of the checks */
	char after[16];      /* the phase it follows: "walls", "criteria", "analysis" */
	struct hx_summary s; /* the re-measured baseline's usable values */
	unsigned failed, n;
	double change;       /* relative change vs the first measurement (NAN: all failed) */
	double p_value;
	bool drifted;
};

/* What the model phase measured of one (verb, metric)'s design (hx_model.c): its inputs,
 * its points (grid and refined levels) and how many of them have a value, the layouts
 * measured over those, the levels refinement added. n_in 0: no design (its causes name no
 * ordered dimension the plan explores). */
struct hx_model_design {
	char inputs[2][64];
	unsigned n_in, planned, points, refined;
	unsigned long layouts;
};

/* The model phase's account: whether it ran (the plan has a `model:` section and the
 * budget reached it), whether the budget ran out in it, one design per baseline. */
struct hx_model_summary {
	bool ran, budget_out;
	struct hx_model_design design[HX_MAX_BASELINES];
};

struct hx_outcome {
	int64_t campaign;
	unsigned n_baselines;
	struct hx_baseline baselines[HX_MAX_BASELINES];
	struct topo_enum_stats enum_stats;
	unsigned n_walls;
	struct hx_wall walls[HX_MAX_WALLS];
	struct hx_criterion_result criteria[HX_PLAN_MAX_CRITERIA];
	struct hx_noise noise[HX_MAX_BASELINES]; /* per baseline, same order */
	struct hx_seq seq;   /* sequential testing in the wall search */
	unsigned n_checks;   /* drift checks run (each over every baseline) */
	unsigned n_drift;
	struct hx_drift drift[HX_MAX_BASELINES * HX_DRIFT_CHECKS];
	bool budget_exhausted, interrupted;
	unsigned long trials, measured, cached;
	double cost_s;
	struct hx_analysis *analysis; /* causes, filled by the causal phase (causal/); owned by
				       * whoever runs the campaign (cli/hx_run.c) */
	struct hx_model_summary model; /* filled by hx_phase_model */
};

/* Phases, used by cli/hx_run.c (exposed for tests). Each returns 0 or a negative errno
 * (-EINTR interrupted, -EDQUOT budget spent) with ERR set on real errors. */
void hx_levels_base(const struct hx_plan *p, enum topo_verb v, enum gen_metric m,
		    struct gen_levels *out);
int hx_phase_baseline(struct hx_runner *r, const struct hx_plan *p, struct hx_outcome *o,
		      struct scn_error *err);
int hx_phase_walls(struct hx_runner *r, const struct hx_plan *p, struct hx_outcome *o,
		   struct scn_error *err);
/* Drift (hx_drift.c): measure every baseline again after phase AFTER ("walls", "criteria",
 * "analysis"), record the check and mark what that phase decided against a baseline that
 * drifted (walls, criteria; the analysis marks its causes itself). */
int hx_phase_drift(struct hx_runner *r, const struct hx_plan *p, struct hx_outcome *o,
		   const char *after, struct scn_error *err);
/* The newest check after phase AFTER of baseline B (NULL: none). */
const struct hx_drift *hx_outcome_drift(const struct hx_outcome *o, unsigned b, const char *after);
/* Judge check D of baseline B (the first measurement) for plan P: fills D's change, p and
 * drifted from D->s, D->failed and D->n. */
void hx_drift_judge(const struct hx_plan *p, const struct hx_baseline *b, struct hx_drift *d);

/* The noise of baseline B for plan P (hx_noise.c); hx_phase_baseline fills o->noise[]. */
void hx_noise_of(const struct hx_plan *p, const struct hx_baseline *b, struct hx_noise *out);
int hx_phase_criteria(struct hx_runner *r, const struct hx_plan *p, struct hx_outcome *o,
		      struct scn_error *err);
/* The model phase (hx_model.c; plan section `model:`, nothing when absent): a design over
 * the dimensions the stored causes of each (verb, metric) name, measured as phase "model";
 * what it measured into O->model. Run after the analysis is stored. Returns as the other
 * phases. */
int hx_phase_model(struct hx_runner *r, const struct hx_plan *p, struct hx_outcome *o,
		   struct scn_error *err);
const struct hx_baseline *hx_outcome_baseline(const struct hx_outcome *o, enum topo_verb v,
					      enum gen_metric m);

struct res_symptom;
/* The symptom row of found wall W in CAMPAIGN: every field from W, point 0 (set by the caller
 * once the wall's point is stored). Used by the campaign and by `scalacn analyze`. */
void hx_wall_symptom(const struct hx_wall *w, int64_t campaign, struct res_symptom *s);

/* The store row (results' criteria table) of criterion I of P as judged in outcome O. */
void hx_criterion_row(const struct hx_plan *p, const struct hx_outcome *o, unsigned i,
		      struct res_criterion *row);

/* A dead testbed never qualifies: 0 when every baseline of O has at least one trial that did
 * not fail, else -ENODATA with ERR (class device: CLI exit 3) naming the baseline, its
 * trials and their worst status. hx_phase_baseline ends with it. */
int hx_baselines_measured(const struct hx_outcome *o, struct scn_error *err);

/* Whether LEVEL of D lies in its qualified range: the span of D's neutral level and every
 * level a criterion of P names for D (false when no criterion names D). */
bool hx_in_qualified_range(const struct hx_plan *p, const struct gen_dimension *d, double level);
/* 0 qualified, 1 finding; also marks walls inside the qualified range. Causes are not seen
 * here (campaign/ knows nothing of causal/): hx_verdict_exit adds them. */
int hx_outcome_exit(const struct hx_plan *p, struct hx_outcome *o);

/* ---- Provenance of a campaign's files ---------------------------------------------------- */
/*
 * hx_provenance: which plan and testbed files a campaign ran with. A campaign records their
 * absolute paths (so `analyze` and `causes` work from any directory) and a hash of each
 * file's bytes (so a later command can say that the file changed since the campaign ran).
 * Campaigns stored before schema 2 have paths as typed and no hashes: nothing to compare.
 */
/* Hex 64-bit hash of the bytes of PATH into OUT[17]: 0, or a negative errno (OUT = ""). */
int hx_file_hash(const char *path, char out[17]);
/* Fill C's plan_path, testbed and their hashes from the files as they are now. */
void hx_provenance_record(struct res_campaign *c, const char *plan_path,
			  const char *testbed_path);
/* Whether the plan (TESTBED false) or testbed file of C differs from what the campaign
 * recorded; WHY says how ("changed since campaign 3 ran", "is gone"). False when C recorded
 * no hash. */
bool hx_provenance_changed(const struct res_campaign *c, bool testbed, char *why, size_t len);

#endif
