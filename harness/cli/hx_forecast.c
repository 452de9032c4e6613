/* SPDX-License-Identifier: MIT */
/*
 * hx_forecast: how many trials each phase of `scalacn run` is expected to take, for the
 * progress line's ETA (hx_progress_forecast). A forecast, not a plan: the harness rooms
 * decide as they measure (bisection, extra repeats, what cct removes), so these are counts
 * from the plan and, once the wall search is done, from the walls it found:
 *   baseline: verbs x metrics x max_repeats (sequential testing measures it so);
 *   drift check: verbs x metrics x repeats;   criteria: criteria x repeats;
 *   wall search: each scale dimension's levels per baseline, twice (bisection to the knee);
 *   analysis (cct): per baseline with W walls (before the search: every scale dimension),
 *     2 x dimensions (sensitivity both ways) + (removal orders + 2) x W points (removal,
 *     isolation and replicate per wall), times repeats (anneal: the same); brute: the full
 *     factorial of the plan's levels plus neutral per baseline, times repeats.
 *   model phase (plan `model:`): per baseline with walls, min(model_inputs, W) inputs of
 *     model_levels + 2 levels each (the spread and the plan levels beside a wall), every
 *     combination, times 4 layouts (or the repeats with one layout); the phase itself
 *     announces its count when it starts.
 *   Once the wall search is done, the analysis and the criteria are scaled by what sequential
 *   testing added there (its trials over the trials it would have used without extra
 *   repeats): points the plan's repeats cannot decide get more, in every phase alike.
 * Checked against the shipped plans by the tmux test (tests/test-progress.py): within a
 * factor 2 of the time left at the half-way point of qualify-full.
 */
#include "harness/campaign/hx_campaign.h"
#include "harness/cli/hx_report.h"
#include "harness/plan/hx_plan.h"

static unsigned long baselines(const struct hx_plan *p)
{
	return (unsigned long)p->n_verbs * p->n_metrics;
}

/* Walls found for baseline B of O; before the search (O NULL): every scale dimension. */
static unsigned walls_of(const struct hx_plan *p, const struct hx_outcome *o,
			 enum topo_verb v, enum gen_metric m)
{
	unsigned n = 0;

	for (unsigned i = 0; !o && i < p->n_dims; i++)
		n += p->dims[i].scale;
	for (unsigned i = 0; o && i < o->n_walls; i++)
		n += o->walls[i].verb == v && o->walls[i].metric == m &&
		     (o->walls[i].found || o->walls[i].slope);
	return n;
}

static unsigned long analysis_points(const struct hx_plan *p, const struct hx_outcome *o,
				     enum hx_strategy s)
{
	unsigned long points = 0;

	if (s == HX_STRATEGY_BRUTE) {
		double full = 1;

		for (unsigned i = 0; i < p->n_dims; i++)
			full *= p->dims[i].n_levels + 1;
		return (unsigned long)(full < 1e9 ? full : 1e9) * baselines(p);
	}
	for (unsigned vi = 0; vi < p->n_verbs; vi++)
		for (unsigned mi = 0; mi < p->n_metrics; mi++) {
			unsigned w = walls_of(p, o, p->verbs[vi], p->metrics[mi]);

			if (w)
				points += 2UL * p->n_dims + (p->removal_orders + 2UL) * w;
		}
	return points;
}

/* Trials per trial the plan's repeats would take, as the wall search of O measured it (1
 * before the search, or when sequential testing added nothing). */
static double seq_factor(const struct hx_outcome *o)
{
	unsigned long all = 0;

	for (unsigned i = 0; o && i < o->n_walls; i++)
		all += o->walls[i].trials;
	return o && all > o->seq.trials ? (double)all / (double)(all - o->seq.trials) : 1.0;
}

static unsigned long model_trials(const struct hx_plan *p, const struct hx_outcome *o)
{
	/* as hx_model.c starts a point: 4 layouts of one trial, or the repeats of one layout */
	unsigned long trials = 0, per_point = p->model_layouts > 1
		? (p->model_layouts < 4 ? p->model_layouts : 4) : p->repeats;

	if (!p->model_levels)
		return 0;
	for (unsigned vi = 0; vi < p->n_verbs; vi++)
		for (unsigned mi = 0; mi < p->n_metrics; mi++) {
			unsigned w = walls_of(p, o, p->verbs[vi], p->metrics[mi]);
			unsigned k = w < p->model_inputs ? w : p->model_inputs;
			unsigned long points = 1;

			for (unsigned i = 0; i < k; i++)
				points *= p->model_levels + 2UL;
			trials += k ? points * per_point : 0;
			/* refinement: at most one level per input a round, at every level of the
			 * other input */
			trials += k ? (unsigned long)p->model_refine * k *
					      (k > 1 ? p->model_levels + 2UL : 1) * per_point
				    : 0;
		}
	return trials;
}

unsigned long hx_forecast_trials(const struct hx_plan *p, const struct hx_outcome *o,
				 enum hx_forecast_phase phase)
{
	unsigned long sweep = 0;

	switch (phase) {
	case HX_FC_BASELINE:
		return baselines(p) * p->max_repeats;
	case HX_FC_DRIFT:
		return baselines(p) * p->repeats;
	case HX_FC_CRITERIA:
		return (unsigned long)(p->n_criteria * p->repeats * seq_factor(o) + 0.5);
	case HX_FC_WALLS:
		for (unsigned i = 0; i < p->n_dims; i++)
			sweep += p->dims[i].scale ? p->dims[i].n_levels : 0;
		return 2 * sweep * baselines(p) * p->repeats;
	case HX_FC_ANALYSIS:
		return hx_forecast_analysis(p, o, p->strategy);
	case HX_FC_MODEL:
		return model_trials(p, o);
	}
	return 0;
}

unsigned long hx_forecast_analysis(const struct hx_plan *p, const struct hx_outcome *o,
				   enum hx_strategy s)
{
	return (unsigned long)(analysis_points(p, o, s) * p->repeats * seq_factor(o) + 0.5);
}
