/* SPDX-License-Identifier: MIT */
/*
 * hx_model_refine: the model phase's last step, when the plan asks for it (model.refine:
 * the most rounds, 0 = none, the default). A design's grid is spread geometrically
 * over each input's range with the plan's levels beside each wall; where the response
 * keeps falling past a wall, two neighbouring levels of the grid can still be far apart in
 * value (a bandwidth of 370 Gb/s at 49 masks and 156 at 128, nothing measured between), and
 * a model can only guess the curve there. So, once every design's grid is measured (a
 * budget that runs short then costs refinement, never a design), each round adds to each
 * design's axes the level between the two neighbouring levels whose values differ the
 * most, relatively, over the other input's levels and the (verb, metric)s sharing the
 * design, when that is more than REFINE_CHANGE: the geometric middle of the two, measured
 * at every level of the other input like the grid's points. At most model.refine rounds;
 * neighbours closer than REFINE_MIN_RATIO (or with no whole level between) are left as
 * they are; a round starts only while the budget left covers twice what its new points are
 * expected to cost (the campaign's mean testbed-seconds per trial so far).
 */
#include <math.h>
#include <string.h>

#include "harness/campaign/hx_model_priv.h"

/* Relative difference of neighbouring levels' values worth a level between them: a tenth,
 * five times a point's noise. At a quarter, BlueField-3's read bandwidth wall lay between
 * grid levels 28 and 54 masks (a 13% step) with nothing measured in it, and its model was
 * 12.9% off held-out, not exportable; at a tenth it is 3.6%. (A tenth was worse before
 * `fit` took each point to the even walk: the levels it added showed the deal's saw-tooth,
 * docs/fitting.md "The even walk".) */
#define REFINE_CHANGE 0.10
#define REFINE_MIN_RATIO 1.10

/* The baselines whose design is LEAD's into SHARE; their count. */
static unsigned sharing(const struct hx_outcome *o, const struct design *dz, unsigned lead,
			unsigned *share)
{
	unsigned n = 0;

	for (unsigned b = lead; b < o->n_baselines; b++)
		if (dz[b].n_in && hx_model_same_design(&dz[b], &dz[lead]))
			share[n++] = b;
	return n;
}

/* Value of baseline B at index I of axis K and index J of the other axis. */
static double value_at(const struct model_values *mv, unsigned b, unsigned k, unsigned i,
		       unsigned j)
{
	return k == 0 ? mv->pt[b][i][j].value : mv->pt[b][j][i].value;
}

static double rel_change(double a, double b)
{
	double top = fmax(fabs(a), fabs(b));

	return isfinite(a) && isfinite(b) && top > 0 ? fabs(a - b) / top : 0;
}

/* Along axis K of design DZ (shared by SHARE[0..NS)): the index I whose step to I + 1 has
 * room for a level and changes the value the most; *CHANGE that change. -1 when none. */
static int widest_step(const struct design *dz, unsigned k, const struct model_values *mv,
		       const unsigned *share, unsigned ns, double *change)
{
	unsigned other = dz->n_in > 1 ? dz->n_axis[1 - k] : 1;
	int best = -1;

	*change = 0;
	for (unsigned i = 0; i + 1 < dz->n_axis[k]; i++) {
		double lo = dz->axis[k][i], hi = dz->axis[k][i + 1], c = 0;

		if (hi - lo < 2 || hi < REFINE_MIN_RATIO * lo)
			continue;
		for (unsigned s = 0; s < ns; s++)
			for (unsigned j = 0; j < other; j++)
				c = fmax(c, rel_change(value_at(mv, share[s], k, i, j),
						       value_at(mv, share[s], k, i + 1, j)));
		if (c > *change) {
			*change = c;
			best = (int)i;
		}
	}
	return best;
}

/* Insert LEVEL after index I of axis K in every design of SHARE, moving their values. */
static void insert_level(struct design *dz, const unsigned *share, unsigned ns, unsigned k,
			 unsigned i, double level, struct model_values *mv)
{
	for (unsigned s = 0; s < ns; s++) {
		struct design *d = &dz[share[s]];
		struct model_point(*v)[MODEL_MAX_AXIS] = mv->pt[share[s]];

		memmove(&d->axis[k][i + 2], &d->axis[k][i + 1],
			(d->n_axis[k] - i - 1) * sizeof(double));
		d->axis[k][i + 1] = level;
		for (unsigned a = d->n_axis[k]; a > i + 1; a--)
			for (unsigned j = 0; j < MODEL_MAX_AXIS; j++) {
				if (k == 0)
					v[a][j] = v[a - 1][j];
				else
					v[j][a] = v[j][a - 1];
			}
		for (unsigned j = 0; j < MODEL_MAX_AXIS; j++) {
			if (k == 0)
				v[i + 1][j] = (struct model_point){ .value = NAN };
			else
				v[j][i + 1] = (struct model_point){ .value = NAN };
		}
		d->n_axis[k]++;
	}
}

bool hx_model_budget_allows(const struct hx_runner *r, unsigned long new_trials)
{
	unsigned long seen = r->measured + r->cached; /* cost_s counts both */
	double per = seen ? r->cost_s / (double)seen : 0;

	return r->budget_s <= 0 || r->cost_s + 2.0 * per * (double)new_trials <= r->budget_s;
}

/* Measure the new level (index I of axis K) of LEAD's design for every baseline sharing
 * it, at every level of the other axis. */
static int measure_level(struct hx_runner *r, const struct hx_plan *p, const struct hx_outcome *o,
			 const struct design *dz, const unsigned *share, unsigned ns, unsigned k,
			 unsigned i, struct model_values *mv, struct scn_error *err)
{
	const struct design *d = &dz[share[0]];
	unsigned other = d->n_in > 1 ? d->n_axis[1 - k] : 1;
	int rc = 0;

	for (unsigned j = 0; j < other && rc == 0; j++)
		for (unsigned s = 0; s < ns && rc == 0; s++) {
			unsigned a = k == 0 ? i : j, b = k == 0 ? j : i;

			rc = hx_model_measure_point(r, p, o, share[s], d, a, b, p->model_layouts,
						    &mv->pt[share[s]][a][b], err);
		}
	return rc;
}

unsigned long hx_model_refine_planned(const struct hx_plan *p, const struct design *dz,
				      unsigned n)
{
	unsigned long trials = 0;

	for (unsigned b = 0; b < n; b++)
		for (unsigned k = 0; k < dz[b].n_in; k++)
			trials += (unsigned long)p->model_refine * hx_model_point_trials(p) *
				  (dz[b].n_in > 1 ? dz[b].n_axis[1 - k] : 1);
	return trials;
}

/* TRIALS about to be measured: counted against *LEFT, what goes beyond it announced. */
static void count_trials(struct hx_runner *r, unsigned long trials, unsigned long *left)
{
	if (trials <= *left) {
		*left -= trials;
		return;
	}
	hx_observe_more(r->observer, trials - *left);
	*left = 0;
}

/* One round over every design and axis; *ADDED counts the levels added. */
static int refine_round(struct hx_runner *r, const struct hx_plan *p, const struct hx_outcome *o,
			struct design *dz, const unsigned *lead, unsigned n_lead,
			struct model_values *mv, unsigned *added, unsigned long *left,
			struct scn_error *err)
{
	int rc = 0;

	for (unsigned g = 0; g < n_lead && rc == 0; g++) {
		unsigned share[HX_MAX_BASELINES], ns = sharing(o, dz, lead[g], share);

		for (unsigned k = 0; k < dz[lead[g]].n_in && rc == 0; k++) {
			const struct design *d = &dz[lead[g]];
			unsigned other = d->n_in > 1 ? d->n_axis[1 - k] : 1;
			unsigned long trials = (unsigned long)other * ns * hx_model_point_trials(p);
			double change, lo, hi, mid;
			int i = widest_step(d, k, mv, share, ns, &change);

			if (i < 0 || change <= REFINE_CHANGE || d->n_axis[k] >= MODEL_MAX_AXIS)
				continue;
			if (!hx_model_budget_allows(r, trials))
				return 0;
			lo = d->axis[k][i];
			hi = d->axis[k][i + 1];
			mid = round(sqrt(lo * hi));
			if (!(mid > lo && mid < hi))
				mid = round(0.5 * (lo + hi));
			insert_level(dz, share, ns, k, (unsigned)i, mid, mv);
			count_trials(r, trials, left);
			rc = measure_level(r, p, o, dz, share, ns, k, (unsigned)i + 1, mv, err);
			(*added)++;
		}
	}
	return rc;
}

int hx_model_refine(struct hx_runner *r, const struct hx_plan *p, const struct hx_outcome *o,
		    struct design *dz, const unsigned *lead, unsigned n_lead,
		    struct model_values *mv, unsigned long *planned_left, struct scn_error *err)
{
	int rc = 0;

	for (unsigned round = 0; round < p->model_refine && rc == 0; round++) {
		unsigned added = 0;

		rc = refine_round(r, p, o, dz, lead, n_lead, mv, &added, planned_left, err);
		if (!added)
			break;
	}
	return rc;
}
