/* SPDX-License-Identifier: MIT */
/*
 * hx_strategy_brute: the reference strategy: the full factorial over the plan's dimensions
 * (each dimension's plan levels plus its neutral level) for every (verb, metric) with a
 * baseline. Causes are the minimal supports: a support is the set of dimensions not at
 * neutral in a requested point; a symptomatic support is a cause when no symptomatic point
 * has a support that is a strict subset of it. A member's wall is the lowest level (farthest
 * from neutral: the nearest) at which a point of that support is symptomatic.
 *
 * A point is judged against the baseline, or, when its context (its non-scale dimensions:
 * small messages, say) moves the metric by itself, against the point with only that context
 * (as cct judges a context that is not harmless), so a context alone is never a cause.
 *
 * Rule-shaping dimensions (masks, flows, subnets, encap contexts) vary slowest and the
 * baselines fastest, so the testbed re-programs rules only when they change. Factorials over
 * HX_BRUTE_MAX_POINTS points per baseline are refused (config error): shrink the plan.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"

#define HX_BRUTE_MAX_POINTS 200000.0

struct support {
	uint32_t bits;
	unsigned count;
	double wall[HX_PLAN_MAX_DIMS];  /* nearest-to-neutral symptomatic level per dim */
	double worst;                   /* highest degradation seen */
	const struct hx_point_result *r; /* the worst point (memo-owned) */
	const struct hx_point_result *ref; /* what it was judged against (memo-owned or base) */
	struct gen_levels at;
};

struct brute {
	const struct hx_plan *p;
	unsigned order[HX_PLAN_MAX_DIMS];
	unsigned n_axis[HX_PLAN_MAX_DIMS];
	double axis[HX_PLAN_MAX_DIMS][HX_PLAN_MAX_LEVELS + 1];
	struct support *sup[HX_MAX_BASELINES];
	unsigned n_sup[HX_MAX_BASELINES], cap_sup[HX_MAX_BASELINES];
};

static bool shapes_rules(const struct gen_dimension *d)
{
	return strstr(d->name, "_masks") || !strcmp(d->name, "flows") ||
	       !strcmp(d->name, "subnets") || !strcmp(d->name, "encap_contexts");
}

static int record(struct brute *bf, unsigned b, const struct gen_levels *l, uint32_t bits,
		  const struct hx_point_result *r, const struct hx_point_result *ref, double degr)
{
	struct support *s = NULL;

	for (unsigned i = 0; i < bf->n_sup[b] && !s; i++)
		if (bf->sup[b][i].bits == bits)
			s = &bf->sup[b][i];
	if (!s) {
		if (bf->n_sup[b] == bf->cap_sup[b]) {
			unsigned cap = bf->cap_sup[b] ? 2 * bf->cap_sup[b] : 64;
			struct support *n = realloc(bf->sup[b], cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			bf->sup[b] = n;
			bf->cap_sup[b] = cap;
		}
		s = &bf->sup[b][bf->n_sup[b]++];
		memset(s, 0, sizeof(*s));
		s->bits = bits;
		s->worst = -INFINITY;
		for (unsigned i = 0; i < HX_PLAN_MAX_DIMS; i++)
			s->wall[i] = NAN;
	}
	s->count++;
	for (unsigned i = 0; i < bf->p->n_dims; i++) {
		double lv = gen_levels_get(l, bf->p->dims[i].dim);

		if ((bits & (1u << i)) &&
		    (isnan(s->wall[i]) || hx_level_distance(&bf->p->dims[i], lv) <
						   hx_level_distance(&bf->p->dims[i], s->wall[i])))
			s->wall[i] = lv;
	}
	if (degr > s->worst) {
		s->worst = degr;
		s->r = r;
		s->ref = ref;
		s->at = *l;
	}
	return 0;
}

/* Previous level of D's axis toward neutral from LEVEL. */
static double toward(const struct brute *bf, unsigned i, double level)
{
	const struct hx_plan_dim *d = &bf->p->dims[i];
	double best = d->neutral;

	for (unsigned k = 0; k < bf->n_axis[i]; k++) {
		double a = bf->axis[i][k];

		if (hx_level_distance(d, a) < hx_level_distance(d, level) &&
		    hx_level_distance(d, a) > hx_level_distance(d, best) &&
		    (a - d->neutral) * (level - d->neutral) > 0)
			best = a;
	}
	return best;
}

static void emit(struct brute *bf, const struct hx_outcome *o, unsigned b, struct hx_analysis *a)
{
	const struct hx_baseline *base = &o->baselines[b];

	for (unsigned i = 0; i < bf->n_sup[b]; i++) {
		const struct support *s = &bf->sup[b][i];
		struct hx_cause *c;
		struct hx_symptom sym;
		bool minimal = true;

		for (unsigned j = 0; j < bf->n_sup[b] && minimal; j++)
			if (j != i && (bf->sup[b][j].bits & s->bits) == bf->sup[b][j].bits)
				minimal = false;
		if (!minimal)
			continue;
		c = hx_analysis_add(a, bf->p, base->verb, base->metric, s->bits, &s->at);
		if (!c)
			return;
		for (unsigned k = 0, m = 0; k < bf->p->n_dims; k++)
			if (s->bits & (1u << k) && m < c->n_members) {
				c->wall[m] = s->wall[k];
				c->last_good[m] = toward(bf, k, s->wall[k]);
				m++;
			}
		c->confidence = 1.0;
		hx_causal_judge(bf->p, base->metric, s->ref, s->r, &sym, &c->undecided);
		snprintf(c->kind, sizeof(c->kind), "%s", sym.kind);
		snprintf(c->class_, sizeof(c->class_), "%s", hx_symptom_class(&sym, c->members[0]));
		hx_cause_effect(base->metric, s->r, s->ref, c);
		hx_cause_add_ids(c, s->r);
		hx_cause_add_ids(c, s->ref);
		hx_ev_found(c, bf->p, "brute", &s->at, s->r, s->ref);
	}
}

/* What point L is judged against: BASE, or the point with only L's context when that context
 * is symptomatic by itself (then measured with as many repeats as BASE). */
static int reference(struct brute *bf, struct hx_eval *e, const struct hx_baseline *base,
		     const struct gen_levels *l, const struct hx_point_result **ref,
		     struct scn_error *err)
{
	const struct hx_point_result *r;
	struct gen_levels c;
	struct hx_symptom s;
	bool context = false;
	int rc;

	*ref = &base->r;
	hx_levels_base(bf->p, base->verb, base->metric, &c);
	for (unsigned i = 0; i < bf->p->n_dims; i++) {
		const struct hx_plan_dim *d = &bf->p->dims[i];
		double lv = gen_levels_get(l, d->dim);

		if (!d->scale && lv != d->neutral) {
			gen_levels_set(&c, d->dim, lv, NULL);
			context = true;
		}
	}
	if (!context)
		return 0;
	if ((rc = hx_eval_judge(e, bf->p, &base->r, &c, "brute", &r, &s, err)) < 0)
		return rc;
	if (!s.present && !s.undecided)
		return 0;
	if (r->n < base->r.n && (rc = hx_eval_extend(e, &c, "brute", base->r.n, &r, err)) < 0)
		return rc;
	*ref = r;
	return 0;
}

static int visit(struct brute *bf, struct hx_eval *e, const struct hx_outcome *o,
		 const unsigned *idx, struct scn_error *err)
{
	for (unsigned b = 0; b < o->n_baselines; b++) {
		const struct hx_baseline *base = &o->baselines[b];
		const struct hx_point_result *r, *ref;
		struct gen_levels l;
		struct hx_symptom s;
		uint32_t bits = 0;
		int rc;

		hx_levels_base(bf->p, base->verb, base->metric, &l);
		for (unsigned k = 0; k < bf->p->n_dims; k++) {
			unsigned i = bf->order[k];
			double lv = bf->axis[i][idx[k]];

			gen_levels_set(&l, bf->p->dims[i].dim, lv, NULL);
			if (lv != bf->p->dims[i].neutral)
				bits |= 1u << i;
		}
		/* judged as cct judges (sequential testing included), so that the reference
		 * does not lose a symptom to one outlier among a point's repeats */
		if ((rc = reference(bf, e, base, &l, &ref, err)) < 0)
			return rc;
		rc = hx_eval_judge(e, bf->p, ref, &l, "brute", &r, &s, err);
		if (rc < 0)
			return rc;
		if (s.present &&
		    record(bf, b, &l, bits, r, ref, hx_causal_degradation(base->metric, ref, r)) < 0)
			return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "brute: out of memory");
	}
	return 0;
}

static int factorial(struct brute *bf, struct hx_eval *e, const struct hx_outcome *o,
		     struct scn_error *err)
{
	const struct hx_plan *p = bf->p;
	unsigned idx[HX_PLAN_MAX_DIMS] = { 0 }, n = 0;
	double total = 1;

	for (int pass = 0; pass < 2; pass++)       /* rule-shaping dimensions first */
		for (unsigned i = 0; i < p->n_dims; i++)
			if (shapes_rules(p->dims[i].dim) == (pass == 0))
				bf->order[n++] = i;
	for (unsigned i = 0; i < p->n_dims; i++) {
		bf->n_axis[i] = hx_causal_axis(&p->dims[i], bf->axis[i]);
		total *= bf->n_axis[i];
	}
	if (total > HX_BRUTE_MAX_POINTS)
		return scn_error_set(err, SCN_ERR_CONFIG, -E2BIG,
				     "brute: the plan's full factorial has %.3g points per verb and "
				     "metric (at most %.0f): use fewer dimensions or levels",
				     total, HX_BRUTE_MAX_POINTS);
	for (;;) {
		int k, rc = visit(bf, e, o, idx, err);

		if (rc < 0)
			return rc;
		for (k = (int)p->n_dims - 1; k >= 0; k--) {
			unsigned i = bf->order[k];

			if (++idx[k] < bf->n_axis[i])
				break;
			idx[k] = 0;
		}
		if (k < 0)
			return 0;
	}
}

int hx_strategy_brute(struct hx_eval *e, const struct hx_plan *p, const struct hx_outcome *o,
		      struct hx_analysis *a, struct scn_error *err)
{
	struct brute *bf = calloc(1, sizeof(*bf));
	int rc;

	if (!bf)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "brute: out of memory");
	bf->p = p;
	rc = factorial(bf, e, o, err);
	for (unsigned b = 0; b < o->n_baselines; b++) {
		if (rc == 0)
			emit(bf, o, b, a);
		free(bf->sup[b]);
	}
	free(bf);
	return rc;
}
