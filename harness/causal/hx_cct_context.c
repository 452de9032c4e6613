/* SPDX-License-Identifier: MIT */
/*
 * hx_cct_context: context reference points of the cct strategy (hx_cct.h). A non-scale
 * level that moves the metric by itself (64-byte messages cut bandwidth on any RNIC) is the
 * operating point, not a cause: a search from a point with it is judged against the
 * reference point with that level (measured with as many repeats as the baseline), the
 * level is held and named with every set found there. The stress point's contexts are
 * chosen here too: the level of each non-scale dimension that makes the point symptomatic
 * with the highest degradation, judged against whichever reference applies.
 */
#include <math.h>

#include "harness/causal/hx_cct.h"

/* The search from AT judged against REF (a context's own reference point) instead of the
 * campaign's baseline. */
int cct_search_ref(struct cct *x, const struct gen_levels *at, unsigned depth,
		   const struct hx_baseline *ref, uint32_t own)
{
	struct cct in_context = *x;

	in_context.b = ref;
	in_context.pinned |= own;
	for (unsigned i = 0; i < x->p->n_dims; i++)
		if (own & (1u << i))
			gen_levels_set(&in_context.base_at, x->p->dims[i].dim,
				       gen_levels_get(at, x->p->dims[i].dim), NULL);
	return cct_search(&in_context, at, depth);
}

/* The reference for the contexts OWN of AT: the reference point now (the baseline's, or an
 * outer context's) with those dimensions at AT's levels, measured with as many repeats as
 * the baseline. */
int cct_context_reference(struct cct *x, const struct gen_levels *at, uint32_t own,
			  struct hx_baseline *ref)
{
	const struct hx_point_result *r;
	struct gen_levels l;
	int rc;

	*ref = *x->b;
	if (!own)
		return 0;
	l = x->base_at;
	for (unsigned i = 0; i < x->p->n_dims; i++)
		if (own & (1u << i))
			gen_levels_set(&l, x->p->dims[i].dim, gen_levels_get(at, x->p->dims[i].dim),
				       NULL);
	if ((rc = hx_eval_point(x->e, &l, "cct", &r, x->err)) < 0)
		return rc;
	if (r->n < x->b->r.n && (rc = hx_eval_extend(x->e, &l, "cct", x->b->r.n, &r, x->err)) < 0)
		return rc;
	ref->r = *r;
	return 0;
}

/* Whether dimension D at LEVEL shows the symptom by itself (everything else at the reference
 * point: neutral, or a context held); R is that point, the context's own reference (small
 * messages move the operating point itself). */
int cct_alone(struct cct *x, const struct hx_plan_dim *d, double level, bool *yes,
	      const struct hx_point_result **r)
{
	struct gen_levels l;
	struct hx_symptom s;
	int rc;

	l = x->base_at;
	gen_levels_set(&l, d->dim, level, NULL);
	rc = cct_judge(x, &l, &s, NULL, r);
	if (rc == 0 && (*r)->n < x->b->r.n)
		rc = hx_eval_extend(x->e, &l, "cct", x->b->r.n, r, x->err);
	*yes = rc == 0 && (s.present || s.undecided);
	return rc;
}

/* One context level of the stress point: the point with it, judged against the baseline,
 * or, when the level alone moves the metric (it is no harmless context then), against its
 * own reference REF: a symptom that the level's point shows beyond what the level does by
 * itself. DEGR: the degradation against whichever reference judged it. */
static int judge_context(struct cct *x, const struct hx_plan_dim *d, double level,
			 const struct gen_levels *at, bool *own, bool *present, double *degr)
{
	const struct hx_point_result *r, *own_r;
	struct hx_symptom s;
	int rc;

	*own = false;
	if ((rc = cct_judge(x, at, &s, NULL, &r)) < 0)
		return rc;
	*present = s.present;
	*degr = hx_causal_degradation(x->b->metric, &x->b->r, r);
	if (!s.present)
		return 0;
	if ((rc = cct_alone(x, d, level, own, &own_r)) < 0 || !*own)
		return rc;
	rc = hx_eval_judge(x->e, x->p, own_r, at, "cct", &r, &s, x->err);
	*present = rc == 0 && s.present;
	*degr = hx_causal_degradation(x->b->metric, own_r, r);
	return rc;
}

/* The stress point shows nothing: try each non-scale dimension (at neutral) at the other
 * levels of its axis; keep the level that makes the point symptomatic with the highest
 * degradation (a context such as small pages that a scale dimension needs to collapse).
 * A level that moves the metric by itself is judged against its own reference point and is
 * set in OWN (the search from there needs that reference). */
int cct_context_levels(struct cct *x, struct gen_levels *stress, uint32_t *own, bool *present)
{
	double axis[HX_PLAN_MAX_LEVELS + 1];

	*present = false;
	*own = 0;
	for (unsigned i = 0; i < x->p->n_dims; i++) {
		const struct hx_plan_dim *d = &x->p->dims[i];
		unsigned n = hx_causal_axis(d, axis);
		double best = d->neutral, worst = -INFINITY;

		if (d->scale || gen_levels_get(stress, d->dim) != d->neutral)
			continue;
		for (unsigned k = 0; k < n; k++) {
			struct gen_levels l = *stress;
			bool sym, by_itself;
			double degr;
			int rc;

			if (axis[k] == d->neutral || gen_levels_set(&l, d->dim, axis[k], NULL) < 0)
				continue;
			if ((rc = judge_context(x, d, axis[k], &l, &by_itself, &sym, &degr)) < 0)
				return rc;
			if (sym && degr > worst) {
				worst = degr;
				best = axis[k];
				*own = by_itself ? *own | (1u << i) : *own & ~(1u << i);
			}
		}
		if (best != d->neutral) {
			gen_levels_set(stress, d->dim, best, NULL);
			*present = true;
		}
	}
	return 0;
}

