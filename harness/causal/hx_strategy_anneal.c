/* SPDX-License-Identifier: MIT */
/*
 * hx_strategy_anneal: a black-box anomaly finder in the style of earlier RDMA work (simulated
 * annealing over the configuration space, then per-dimension minimisation of what it finds).
 *
 * Per (verb, metric) with a baseline: the state is one level index per plan dimension
 * (neutral included), starting at the neutral point. A step moves one random dimension one
 * level up or down; the objective is the degradation against the baseline; a worse-looking
 * move is accepted with probability exp(delta / T), T cooling geometrically. A symptomatic
 * point that no known cause explains (no cause with all members present) is minimised: every
 * dimension in turn goes to neutral if the symptom persists without it, else down its levels
 * while the symptom persists. The non-neutral dimensions of the minimised point form a cause,
 * their levels its walls; the search then restarts from neutral. It stops after
 * ANNEAL_PATIENCE x dimensions steps without a new cause or ANNEAL_STEPS x dimensions steps.
 * Seeded from the plan's seed: the same plan gives the same search.
 */
#include <math.h>
#include <string.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"

#define ANNEAL_STEPS 60
#define ANNEAL_PATIENCE 25
#define ANNEAL_T0 0.3
#define ANNEAL_COOL 0.98

struct anneal {
	struct hx_eval *e;
	const struct hx_plan *p;
	const struct hx_baseline *b;
	struct hx_analysis *a;
	unsigned n_axis[HX_PLAN_MAX_DIMS], neutral_idx[HX_PLAN_MAX_DIMS];
	double axis[HX_PLAN_MAX_DIMS][HX_PLAN_MAX_LEVELS + 1];
	struct scn_error *err;
};

static void levels_of(const struct anneal *s, const unsigned *x, struct gen_levels *l)
{
	hx_levels_base(s->p, s->b->verb, s->b->metric, l);
	for (unsigned i = 0; i < s->p->n_dims; i++)
		gen_levels_set(l, s->p->dims[i].dim, s->axis[i][x[i]], NULL);
}

static int eval_x(struct anneal *s, const unsigned *x, double *degr, bool *present,
		  const struct hx_point_result **r)
{
	struct gen_levels l;
	struct hx_symptom sym;
	int rc;

	levels_of(s, x, &l);
	rc = hx_eval_point(s->e, &l, "anneal", r, s->err);
	if (rc < 0)
		return rc;
	hx_symptom_judge(&s->p->thresholds, s->b->metric, &s->b->r, *r, &sym);
	*present = sym.present;
	*degr = hx_causal_degradation(s->b->metric, &s->b->r, *r);
	return 0;
}

static bool explained(const struct anneal *s, const unsigned *x)
{
	for (unsigned c = 0; c < s->a->n_causes; c++) {
		const struct hx_cause *cause = &s->a->causes[c];
		uint32_t bits = hx_cause_bits(s->p, cause);
		bool all = cause->verb == s->b->verb && cause->metric == s->b->metric && bits;

		for (unsigned i = 0; all && i < s->p->n_dims; i++)
			if ((bits & (1u << i)) && x[i] == s->neutral_idx[i])
				all = false;
		if (all)
			return true;
	}
	return false;
}

static unsigned step_in(const struct anneal *s, unsigned i, unsigned k)
{
	return k > s->neutral_idx[i] ? k - 1 : k + 1;
}

/* Minimise X in place, dimension by dimension: remove it when the symptom persists without
 * it, else lower it while the symptom persists. */
static int minimise(struct anneal *s, unsigned *x)
{
	const struct hx_point_result *r;
	double degr;
	bool present;
	int rc;

	for (unsigned i = 0; i < s->p->n_dims; i++) {
		unsigned prev = x[i];

		if (prev == s->neutral_idx[i])
			continue;
		x[i] = s->neutral_idx[i];
		if ((rc = eval_x(s, x, &degr, &present, &r)) < 0)
			return rc;
		if (present)
			continue;
		x[i] = prev;
		while (step_in(s, i, x[i]) != s->neutral_idx[i]) {
			unsigned save = x[i];

			x[i] = step_in(s, i, save);
			if ((rc = eval_x(s, x, &degr, &present, &r)) < 0)
				return rc;
			if (!present) {
				x[i] = save;
				break;
			}
		}
	}
	return 0;
}

static int add_cause(struct anneal *s, const unsigned *x)
{
	const struct hx_point_result *r;
	struct gen_levels l;
	struct hx_symptom sym;
	struct hx_cause *c;
	uint32_t bits = 0;
	int rc;

	for (unsigned i = 0; i < s->p->n_dims; i++)
		if (x[i] != s->neutral_idx[i])
			bits |= 1u << i;
	if (!bits)
		return 0;
	levels_of(s, x, &l);
	if ((rc = hx_eval_point(s->e, &l, "anneal", &r, s->err)) < 0)
		return rc;
	c = hx_analysis_add(s->a, s->p, s->b->verb, s->b->metric, bits, &l);
	if (!c)
		return 0;
	for (unsigned i = 0, m = 0; i < s->p->n_dims; i++)
		if ((bits & (1u << i)) && m < c->n_members) {
			unsigned k = x[i];

			c->wall[m] = s->axis[i][k];
			c->last_good[m] = s->axis[i][step_in(s, i, k)];
			m++;
		}
	c->confidence = 1.0;
	hx_causal_judge(s->p, s->b->metric, &s->b->r, r, &sym, &c->undecided);
	snprintf(c->kind, sizeof(c->kind), "%s", sym.kind);
	snprintf(c->class_, sizeof(c->class_), "%s", hx_symptom_class(&sym, c->members[0]));
	hx_cause_effect(s->b->metric, r, &s->b->r, c);
	hx_cause_add_ids(c, r);
	hx_ev_found(c, s->p, "anneal", &l, r, &s->b->r);
	return 0;
}

static int search(struct anneal *s, struct gen_rng *rng)
{
	unsigned x[HX_PLAN_MAX_DIMS], y[HX_PLAN_MAX_DIMS], idle = 0;
	unsigned max_steps = ANNEAL_STEPS * s->p->n_dims, patience = ANNEAL_PATIENCE * s->p->n_dims;
	double fx, fy, t = ANNEAL_T0;
	const struct hx_point_result *r;
	bool present;
	int rc;

	memcpy(x, s->neutral_idx, sizeof(x));
	if ((rc = eval_x(s, x, &fx, &present, &r)) < 0)
		return rc;
	for (unsigned step = 0; step < max_steps && idle < patience; step++, idle++) {
		unsigned i = (unsigned)(gen_rng_uniform(rng) * s->p->n_dims);
		bool up = gen_rng_uniform(rng) < 0.5;

		memcpy(y, x, sizeof(y));
		if (s->n_axis[i] < 2)
			continue;
		if (up ? y[i] + 1 < s->n_axis[i] : y[i] == 0)
			y[i]++;
		else
			y[i]--;
		if ((rc = eval_x(s, y, &fy, &present, &r)) < 0)
			return rc;
		t *= ANNEAL_COOL;
		if (present && !explained(s, y)) {
			if ((rc = minimise(s, y)) < 0 || (rc = add_cause(s, y)) < 0)
				return rc;
			memcpy(x, s->neutral_idx, sizeof(x));
			if ((rc = eval_x(s, x, &fx, &present, &r)) < 0)
				return rc;
			idle = 0;
			t = ANNEAL_T0;
			continue;
		}
		if (fy >= fx || gen_rng_uniform(rng) < exp((fy - fx) / t)) {
			memcpy(x, y, sizeof(x));
			fx = fy;
		}
	}
	return 0;
}

int hx_strategy_anneal(struct hx_eval *e, const struct hx_plan *p, const struct hx_outcome *o,
		       struct hx_analysis *a, struct scn_error *err)
{
	struct anneal s = { .e = e, .p = p, .a = a, .err = err };
	int rc = 0;

	for (unsigned i = 0; i < p->n_dims; i++) {
		s.n_axis[i] = hx_causal_axis(&p->dims[i], s.axis[i]);
		for (unsigned k = 0; k < s.n_axis[i]; k++)
			if (s.axis[i][k] == p->dims[i].neutral)
				s.neutral_idx[i] = k;
	}
	for (unsigned b = 0; b < o->n_baselines && rc == 0; b++) {
		struct gen_rng rng;

		s.b = &o->baselines[b];
		gen_rng_seed(&rng, p->seed ^ (0xa22ea1ull << 8) ^ ((uint64_t)b << 40));
		rc = search(&s, &rng);
	}
	return rc;
}
