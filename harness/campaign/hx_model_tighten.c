/* SPDX-License-Identifier: MIT */
/*
 * hx_model_tighten: the model phase's spare budget (plan key model.max_layouts above
 * model.layouts). A point stops at model.layouts layouts whether or not its value is known
 * to MODEL_LAYOUT_SE, so that a budget-bound testbed still gets every design's grid; on a
 * testbed with budget left after the grids and refinement, those points are what keeps a
 * model's held-out error up (with ninety points whose own noise is 1%, the largest of ninety
 * held-out errors is about 2.5%). So, last, rounds of more layouts: round k lets a point have
 * model.layouts * 2^k (at most model.max_layouts); its points are the design points with a
 * value not yet known well enough for some (verb, metric) sharing the design, taken in
 * order of that shortfall, worst first (the standard error over MODEL_LAYOUT_SE, the larger
 * over the (verb, metric)s), each only while the budget left covers twice what it is
 * expected to cost (hx_model_budget_allows). Stored trials are read back in the same order
 * on a resumed run, so it decides the same.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "harness/campaign/hx_model_priv.h"

/* A design point short of MODEL_LAYOUT_SE: its design (a lead baseline), where, how short. */
struct short_point {
	unsigned lead, i, j, order;
	double shortfall;
};

/* Worst first; the design order (lead, i, j) among equals, so the order is reproducible. */
static int cmp_short(const void *a, const void *b)
{
	const struct short_point *x = a, *y = b;

	if (x->shortfall != y->shortfall)
		return x->shortfall < y->shortfall ? 1 : -1;
	return (x->order > y->order) - (x->order < y->order);
}

/* How far baseline B's point PT is from known well enough with CAP layouts allowed: its
 * standard error over MODEL_LAYOUT_SE (0: enough, at CAP already, or nothing to extend). */
static double shortfall(const struct hx_outcome *o, unsigned b, const struct model_point *pt,
			unsigned cap)
{
	double floor_cv = hx_model_noise_floor(o, o->baselines[b].metric);
	double se;

	if (!isfinite(pt->value) || !pt->n || pt->n >= cap ||
	    hx_model_layouts_enough(pt->layout, pt->n, floor_cv))
		return 0;
	se = hx_model_layouts_se(pt->layout, pt->n, floor_cv);
	return isfinite(se) ? se / MODEL_LAYOUT_SE : 0;
}

/* The points of LEAD[0..N_LEAD)'s designs short with CAP into OUT (sorted, worst first);
 * their count. */
static unsigned short_points(const struct hx_outcome *o, const struct design *dz,
			     const unsigned *lead, unsigned n_lead, const struct model_values *mv,
			     unsigned cap, struct short_point *out)
{
	unsigned n = 0;

	for (unsigned g = 0; g < n_lead; g++) {
		const struct design *d = &dz[lead[g]];
		unsigned ny = d->n_in > 1 ? d->n_axis[1] : 1;

		for (unsigned i = 0; i < d->n_axis[0]; i++)
			for (unsigned j = 0; j < ny; j++) {
				double worst = 0;

				for (unsigned b = lead[g]; b < o->n_baselines; b++)
					if (dz[b].n_in && hx_model_same_design(&dz[b], d))
						worst = fmax(worst, shortfall(o, b, &mv->pt[b][i][j], cap));
				if (worst > 0) {
					out[n] = (struct short_point){ lead[g], i, j, n, worst };
					n++;
				}
			}
	}
	qsort(out, n, sizeof(*out), cmp_short);
	return n;
}

/* Trials that taking point S of every baseline sharing its design to CAP layouts could cost
 * (each doubles at most up to CAP). */
static unsigned long point_trials(const struct hx_plan *p, const struct hx_outcome *o,
				  const struct design *dz, const struct model_values *mv,
				  const struct short_point *s, unsigned cap)
{
	unsigned long trials = 0;

	for (unsigned b = s->lead; b < o->n_baselines; b++) {
		const struct model_point *pt = &mv->pt[b][s->i][s->j];

		if (dz[b].n_in && hx_model_same_design(&dz[b], &dz[s->lead]) && pt->n < cap)
			trials += (unsigned long)(cap - pt->n) * hx_model_layout_trials(p);
	}
	return trials;
}

/* One round with CAP layouts a point; *STOP when the budget does not cover the next point. */
static int tighten_round(struct hx_runner *r, const struct hx_plan *p, const struct hx_outcome *o,
			 const struct design *dz, const unsigned *lead, unsigned n_lead,
			 struct model_values *mv, unsigned cap, struct short_point *pts,
			 bool *stop, struct scn_error *err)
{
	unsigned n = short_points(o, dz, lead, n_lead, mv, cap, pts);
	int rc = 0;

	for (unsigned k = 0; k < n && rc == 0; k++) {
		const struct short_point *s = &pts[k];

		if (!hx_model_budget_allows(r, point_trials(p, o, dz, mv, s, cap))) {
			*stop = true;
			return 0;
		}
		for (unsigned b = s->lead; b < o->n_baselines && rc == 0; b++)
			if (dz[b].n_in && hx_model_same_design(&dz[b], &dz[s->lead]))
				rc = hx_model_measure_point(r, p, o, b, &dz[s->lead], s->i, s->j,
							    cap, &mv->pt[b][s->i][s->j], err);
	}
	return rc;
}

int hx_model_tighten(struct hx_runner *r, const struct hx_plan *p, const struct hx_outcome *o,
		     const struct design *dz, const unsigned *lead, unsigned n_lead,
		     struct model_values *mv, struct scn_error *err)
{
	struct short_point *pts;
	bool stop = false;
	int rc = 0;

	if (p->model_max_layouts <= p->model_layouts)
		return 0;
	pts = malloc(sizeof(*pts) * (size_t)n_lead * MODEL_MAX_AXIS * MODEL_MAX_AXIS);
	if (!pts)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "model phase: out of memory");
	for (unsigned cap = p->model_layouts; cap < p->model_max_layouts && !stop && rc == 0;) {
		cap = 2 * cap < p->model_max_layouts ? 2 * cap : p->model_max_layouts;
		rc = tighten_round(r, p, o, dz, lead, n_lead, mv, cap, pts, &stop, err);
	}
	free(pts);
	return rc;
}
