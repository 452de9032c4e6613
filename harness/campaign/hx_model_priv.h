/* SPDX-License-Identifier: MIT */
/*
 * hx_model_priv: the model phase's designs and measured values, shared by hx_model.c (the
 * designs, their grids, coarse to fine) and hx_model_refine.c (levels added where the
 * response changes the most, plan key model.refine). Only campaign/ includes it.
 */
#ifndef HX_MODEL_PRIV_H
#define HX_MODEL_PRIV_H

#include "harness/campaign/hx_campaign.h"

#define MODEL_MAX_AXIS 32
#define MODEL_LAYOUT_SE 0.005 /* of the mean: a quarter of the 2% a model is held to */

/* A (verb, metric)'s inputs and their levels (ascending). */
struct design {
	const struct hx_plan_dim *in[2];
	double axis[2][MODEL_MAX_AXIS];
	unsigned n_in, n_axis[2];
};

/* One design point of one baseline: its layouts' values so far (N of them; NAN for a
 * layout that measured no number) and its value, their robust mean (NAN: nothing measured). */
struct model_point {
	double value;
	unsigned n;
	double layout[HX_MAX_LAYOUTS];
};

/* What the phase measured: per baseline, its design's point (i, j) (j = 0 for one input). */
struct model_values {
	struct model_point pt[HX_MAX_BASELINES][MODEL_MAX_AXIS][MODEL_MAX_AXIS];
};

/* Do designs A and B have the same inputs at the same levels? */
bool hx_model_same_design(const struct design *a, const struct design *b);

/* Point (I, J) of design DZ for baseline B_INDEX of O over its layouts, into *PT: from
 * the PT->n layouts it has, more (doubling) until its value is known well enough
 * (hx_model_layouts_enough) or it has CAP; PT->value NAN when nothing measured a number.
 * -EDOM (cleared): it cannot be built, even repaired, and is skipped. Other errors as
 * hx_trial's (-EDQUOT: the budget is spent). */
int hx_model_measure_point(struct hx_runner *r, const struct hx_plan *p,
			   const struct hx_outcome *o, unsigned b_index, const struct design *dz,
			   unsigned i, unsigned j, unsigned cap, struct model_point *pt,
			   struct scn_error *err);

/* Is the mean of a point's layouts' values V[0..N) known well enough: the standard error of
 * their robust mean at most MODEL_LAYOUT_SE of it? Their spread counts as at least FLOOR_CV
 * of the mean (the testbed's trial noise, hx_model_noise_floor): four layouts that happen
 * to agree say little about a point whose every trial scatters by 2% (on a 2% testbed one
 * point in seven stopped at four layouts with a true standard error of 1%, and those
 * points set the held-out misses). Nor when the robust mean screened out one of fewer than 8
 * layouts (twice the first four): three that happen to agree make the fourth look like a slow
 * trial where the layouts spread by 20% (test-perturbed past its capacity). Layouts without
 * a usable value (failed trials) do not count; when every one failed, more will not give a
 * number (true). */
bool hx_model_layouts_enough(const double *v, unsigned n, double floor_cv);

/* The standard error of that robust mean over its magnitude, the spread taken at least
 * FLOOR_CV of the mean (what hx_model_layouts_enough holds to MODEL_LAYOUT_SE); NAN with
 * fewer than two usable values or a zero mean. */
double hx_model_layouts_se(const double *v, unsigned n, double floor_cv);

/* Would NEW_TRIALS more trials leave twice their expected cost (the mean testbed-seconds
 * per trial so far, stored trials read back included) within R's budget? */
bool hx_model_budget_allows(const struct hx_runner *r, unsigned long new_trials);

/* The testbed's trial noise for METRIC: the coefficient of variation of one trial, pooled
 * (by degrees of freedom) over O's baselines of that metric, their repeats being trials of
 * one point with nothing else changed (robust: a gross outlier left out); 0 when no
 * baseline has two usable repeats. A point's layouts scatter by at least this much. */
double hx_model_noise_floor(const struct hx_outcome *o, enum gen_metric metric);

/* Trials per layout of a point (the plan's repeats with one layout, else one). */
unsigned hx_model_layout_trials(const struct hx_plan *p);

/* Trials a new point starts with (its first layouts, times the trials per layout). */
unsigned hx_model_point_trials(const struct hx_plan *p);

/* Trials the phase plans for refining DZ[0..N) (one level per input a round, at every level
 * of the other input): what the progress line counts before refinement starts. */
unsigned long hx_model_refine_planned(const struct hx_plan *p, const struct design *dz,
				      unsigned n);

/* After every design's grid: up to plan.model_refine rounds of levels added where
 * neighbouring levels' responses differ the most, while the budget allows
 * (hx_model_refine.c). DZ[b] of every baseline sharing a design gets the same levels; MV
 * follows. *PLANNED_LEFT: refinement trials the progress line counts already; what goes
 * beyond is announced (hx_observe_more). */
int hx_model_refine(struct hx_runner *r, const struct hx_plan *p, const struct hx_outcome *o,
		    struct design *dz, const unsigned *lead, unsigned n_lead,
		    struct model_values *mv, unsigned long *planned_left, struct scn_error *err);

/* With budget left after the grids and refinement (plan key model.max_layouts above
 * model.layouts): rounds of more layouts for the points whose value is furthest from known
 * well enough, the cap doubling each round up to model.max_layouts (hx_model_tighten.c). */
int hx_model_tighten(struct hx_runner *r, const struct hx_plan *p, const struct hx_outcome *o,
		     const struct design *dz, const unsigned *lead, unsigned n_lead,
		     struct model_values *mv, struct scn_error *err);

#endif
