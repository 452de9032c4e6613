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

/* A (verb, metric)'s inputs and their levels (ascending). */
struct design {
	const struct hx_plan_dim *in[2];
	double axis[2][MODEL_MAX_AXIS];
	unsigned n_in, n_axis[2];
};

/* What the phase measured: per baseline, the value (robust mean over layouts) of its
 * design's point (i, j) (j = 0 for one input); NAN where nothing was measured. */
struct model_values {
	double v[HX_MAX_BASELINES][MODEL_MAX_AXIS][MODEL_MAX_AXIS];
};

/* Do designs A and B have the same inputs at the same levels? */
bool hx_model_same_design(const struct design *a, const struct design *b);

/* Point (I, J) of design DZ for baseline B over its layouts, its value in *VALUE (NAN when
 * nothing measured a number); -EDOM (cleared): it cannot be built, even repaired, and is
 * skipped. Other errors as hx_trial's (-EDQUOT: the budget is spent). */
int hx_model_measure_point(struct hx_runner *r, const struct hx_plan *p,
			   const struct hx_baseline *b, const struct design *dz, unsigned i,
			   unsigned j, double *value, struct scn_error *err);

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

#endif
