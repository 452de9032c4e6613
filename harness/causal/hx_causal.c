/* SPDX-License-Identifier: MIT */
/*
 * hx_causal: the cct strategy (from symptoms to causes) and the analysis step of a campaign
 * (see hx_causal.h for the method and DESIGN.md "Causal testing").
 *
 * Per (verb, metric) with a baseline:
 *  1. S = every scale dimension at its level farthest from neutral, the others neutral
 *     (hx_causal_extreme).
 *     When S shows no symptom, each wall found by the wall search is a starting point instead.
 *  2. LSA at the starting point: candidates and their sensitivity order. A non-scale
 *     dimension whose move away from neutral makes the symptom significantly worse is moved
 *     there (the stress point gets its context) and LSA runs again.
 *  3. Discovery: a removal walk (sensitivity order) over the candidates still present gives a
 *     1-minimal set; it is explained away (set neutral) and the walk repeats while the rest is
 *     symptomatic. When the candidates alone do not explain the symptom, every non-neutral
 *     dimension is walked.
 *  4. Confirmation: each set is re-examined at its isolation point (start with every other
 *     set removed) with all the plan's removal orders (confidence), its effect is the change
 *     of the metric with vs without it, and its wall is the wall search's (single member) or
 *     a binary search over each member's plan levels.
 * Context levels that move the metric by themselves get their own reference point:
 * hx_cct_context.c (the state both files share: hx_cct.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"
#include "harness/causal/hx_cct.h"

/* ---- cct ------------------------------------------------------------------------------- */

int cct_judge(struct cct *x, const struct gen_levels *l, struct hx_symptom *s, bool *undecided,
	      const struct hx_point_result **r)
{
	int rc;

	if (undecided)
		*undecided = false;
	rc = hx_eval_judge(x->e, x->p, &x->b->r, l, "cct", r, s, x->err);
	if (rc == 0 && undecided)
		*undecided = s->undecided;
	return rc;
}

static uint32_t plan_nonneutral(const struct hx_plan *p, const struct gen_levels *l)
{
	uint32_t bits = 0;

	for (unsigned i = 0; i < p->n_dims; i++)
		if (gen_levels_get(l, p->dims[i].dim) != p->dims[i].neutral)
			bits |= 1u << i;
	return bits;
}

/* The dimensions of L away from neutral that the search may remove (not the pinned ones). */
static uint32_t removable(const struct cct *x, const struct gen_levels *l)
{
	return plan_nonneutral(x->p, l) & ~x->pinned;
}

static void remove_bits(const struct hx_plan *p, struct gen_levels *l, uint32_t bits)
{
	for (unsigned i = 0; i < p->n_dims; i++)
		if (bits & (1u << i))
			gen_levels_set(l, p->dims[i].dim, p->dims[i].neutral, NULL);
}

static const struct hx_wall *find_wall(const struct hx_outcome *o, const struct gen_dimension *d,
				       enum topo_verb v, enum gen_metric m)
{
	for (unsigned i = 0; o && i < o->n_walls; i++)
		if (o->walls[i].dim == d && o->walls[i].verb == v && o->walls[i].metric == m &&
		    o->walls[i].found)
			return &o->walls[i];
	return NULL;
}

/* Binary search for the first symptomatic plan level of member K in context CTX, over the
 * member's levels from neutral out to where the cause was shown. */
static int member_wall(struct cct *x, const struct gen_levels *ctx, struct hx_cause *c,
		       unsigned k)
{
	const struct hx_plan_dim *d = NULL;
	double axis[HX_PLAN_MAX_LEVELS + 1], seq[HX_PLAN_MAX_LEVELS + 1];
	unsigned n, kn = 0, ka = 0, m = 0, lo, hi;

	for (unsigned i = 0; i < x->p->n_dims; i++)
		if (x->p->dims[i].dim == c->members[k])
			d = &x->p->dims[i];
	n = hx_causal_axis(d, axis);
	for (unsigned i = 0; i < n; i++) {
		if (axis[i] == d->neutral)
			kn = i;
		if (axis[i] == c->at[k])
			ka = i;
	}
	for (unsigned i = kn;; i = ka > kn ? i + 1 : i - 1) {
		seq[m++] = axis[i];
		if (i == ka)
			break;
	}
	lo = 0;
	hi = m - 1;
	if (d->dim->kind == GEN_DIM_CATEGORICAL)
		lo = hi ? hi - 1 : 0;
	while (hi - lo > 1) {
		unsigned mid = (lo + hi) / 2;
		struct gen_levels l = *ctx;
		const struct hx_point_result *r;
		struct hx_symptom s;
		int rc;

		gen_levels_set(&l, d->dim, seq[mid], NULL);
		rc = cct_judge(x, &l, &s, NULL, &r);
		if (rc < 0)
			return rc;
		if (s.present) {
			hi = mid;
			hx_cause_add_ids(c, r);
		} else {
			lo = mid;
		}
	}
	c->wall[k] = seq[hi];
	c->last_good[k] = d->dim->kind == GEN_DIM_CATEGORICAL ? d->neutral : seq[lo];
	return 0;
}

static int cause_walls(struct cct *x, const struct gen_levels *q, struct hx_cause *c)
{
	const struct hx_wall *w = c->n_members == 1
		? find_wall(x->o, c->members[0], c->verb, c->metric) : NULL;
	const struct hx_point_result *r;
	struct gen_levels ctx;
	struct hx_symptom s;
	int rc;

	if (w) {
		c->wall[0] = w->level;
		c->last_good[0] = w->last_good;
		return 0;
	}
	hx_levels_base(x->p, c->verb, c->metric, &ctx);
	for (unsigned k = 0; k < c->n_members; k++)
		gen_levels_set(&ctx, c->members[k], c->at[k], NULL);
	rc = cct_judge(x, &ctx, &s, NULL, &r);
	if (rc < 0)
		return rc;
	if (!s.present)
		ctx = *q; /* the members need the rest of the stress point to show */
	for (unsigned k = 0; k < c->n_members && rc == 0; k++)
		rc = member_wall(x, &ctx, c, k);
	return rc;
}

/* Classify the cause where its wall starts (members at their wall levels): the stress point
 * may carry other symptoms (software fallback from the flows a point needs, ...). */
static int classify(struct cct *x, const struct gen_levels *q, struct hx_cause *c)
{
	const struct hx_point_result *r;
	struct gen_levels l;
	struct hx_symptom s;
	int rc;

	hx_levels_base(x->p, c->verb, c->metric, &l);
	for (unsigned k = 0; k < c->n_members; k++)
		gen_levels_set(&l, c->members[k], isnan(c->wall[k]) ? c->at[k] : c->wall[k], NULL);
	if ((rc = cct_judge(x, &l, &s, NULL, &r)) < 0)
		return rc;
	if (!s.present && (rc = cct_judge(x, q, &s, NULL, &r)) < 0)
		return rc;
	snprintf(c->kind, sizeof(c->kind), "%s", s.kind);
	snprintf(c->class_, sizeof(c->class_), "%s", hx_symptom_class(&s, c->members[0]));
	return 0;
}

/* Walk CAND at PT; then, unless removing every other non-neutral dimension from the walk's
 * final point leaves the symptom, walk those too (LSA can miss a dimension whose one-level
 * move does not cross a saturated wall). */
static int minimal_set(struct cct *x, const struct gen_levels *pt, uint32_t cand,
		       const struct hx_lsa *lsa, uint32_t *kept)
{
	uint32_t rest = removable(x, pt) & ~cand, more = 0;
	unsigned order[HX_PLAN_MAX_DIMS], n;
	const struct hx_point_result *r;
	struct gen_levels fin = *pt, all;
	struct hx_symptom s;
	bool undecided;
	int rc = 0;

	*kept = 0;
	if (cand) {
		hx_removal_order(cand, lsa->sens, 0, 0, order, &n);
		rc = hx_removal_walk(x->e, x->p, &x->b->r, pt, order, n, kept, &fin, NULL, x->err);
	}
	if (rc < 0 || !rest)
		return rc;
	all = fin;
	remove_bits(x->p, &all, rest);
	if ((rc = cct_judge(x, &all, &s, &undecided, &r)) < 0)
		return rc;
	if (s.present || undecided)
		return 0;
	hx_removal_order(rest, lsa->sens, 0, 0, order, &n);
	rc = hx_removal_walk(x->e, x->p, &x->b->r, &fin, order, n, &more, NULL, NULL, x->err);
	*kept |= more;
	return rc;
}

/* Record set K (its candidates CAND) unless it is known. */
static void add_found(uint32_t k, uint32_t cand, uint32_t *found, uint32_t *cands,
		      unsigned *n_found)
{
	for (unsigned i = 0; i < *n_found; i++)
		if (found[i] == k)
			return;
	if (*n_found < MAX_FOUND) {
		found[*n_found] = k;
		cands[(*n_found)++] = cand | k;
	}
}

/* Causes that share a member with set KEPT found at PT ({A, flows} found, {B, flows} and
 * {C, flows} hidden behind it: explaining KEPT away removes flows too). With KEPT removed,
 * each member is restored alone; while that point shows the symptom, the minimal set there is
 * another set needing the member, and it is explained away in turn (all but the member), so
 * every set sharing the member is found, not only the first. */
static int shared_members(struct cct *x, const struct gen_levels *pt, uint32_t kept,
			  const struct hx_lsa *lsa, uint32_t *found, uint32_t *cands,
			  unsigned *n_found)
{
	for (unsigned m = 0; m < x->p->n_dims && (kept & (kept - 1)); m++) {
		struct gen_levels q = *pt;
		uint32_t mb = 1u << m;

		if (!(kept & mb))
			continue;
		remove_bits(x->p, &q, kept & ~mb);
		while (*n_found < MAX_FOUND) {
			const struct hx_point_result *r;
			struct hx_symptom s;
			uint32_t cand = lsa->candidates & removable(x, &q), more = 0;
			int rc;

			if ((rc = cct_judge(x, &q, &s, NULL, &r)) < 0)
				return rc;
			if (!s.present)
				break;
			if ((rc = minimal_set(x, &q, cand, lsa, &more)) < 0)
				return rc;
			if (!(more & ~mb)) /* nothing left to explain away besides the member */
				break;
			if (more != kept && (more & mb))
				add_found(more, cand, found, cands, n_found);
			remove_bits(x->p, &q, more & ~mb);
		}
	}
	return 0;
}

/* Discovery: 1-minimal sets one after another, each explained away. */
static int discover(struct cct *x, const struct gen_levels *start, const struct hx_lsa *lsa,
		    uint32_t *found, uint32_t *cands, unsigned *n_found)
{
	struct gen_levels pt = *start;

	*n_found = 0;
	while (*n_found < MAX_FOUND) {
		const struct hx_point_result *r;
		struct hx_symptom s;
		uint32_t cand = lsa->candidates & removable(x, &pt), kept = 0;
		int rc = cct_judge(x, &pt, &s, NULL, &r);

		if (rc < 0)
			return rc;
		if (!s.present)
			break;
		if ((rc = minimal_set(x, &pt, cand, lsa, &kept)) < 0)
			return rc;
		if (!kept) {
			hx_analysis_note(x->a, "%s %s: a symptom no single removal explains",
					 topo_verb_name(x->b->verb), hx_metric_name(x->b->metric));
			break;
		}
		add_found(kept, cand, found, cands, n_found);
		if ((rc = shared_members(x, &pt, kept, lsa, found, cands, n_found)) < 0)
			return rc;
		remove_bits(x->p, &pt, kept);
	}
	return 0;
}

static void note_undecided(struct cct *x, const struct hx_lsa *lsa)
{
	for (unsigned i = 0; i < x->p->n_dims; i++)
		if ((lsa->undecided & (1u << i)) && !(lsa->candidates & (1u << i)))
			hx_analysis_note(x->a, "undecided: %s (%s %s): more repeats needed",
					 x->p->dims[i].dim->name, topo_verb_name(x->b->verb),
					 hx_metric_name(x->b->metric));
}

/* Evidence of C beyond its orders: where it was looked for and isolated, the baseline, the
 * sensitivities that chose the candidates, the points with and without it. */
static void cause_evidence(struct cct *x, struct hx_cause *c, const struct gen_levels *start,
			   const struct hx_lsa *lsa, const struct hx_point_result *with,
			   const struct hx_point_result *without)
{
	hx_ev_set(c, "strategy", json_object_new_string("cct"));
	hx_ev_set(c, "stress_point", hx_ev_point(x->p, start));
	hx_ev_set(c, "isolation_point", hx_ev_point(x->p, &c->shown));
	hx_ev_set(c, "baseline", hx_ev_result(&x->b->r, NULL));
	hx_ev_set(c, "sensitivity", hx_ev_lsa(x->p, lsa, &x->b->r));
	hx_ev_set(c, "with", hx_ev_result(with, &x->b->r));
	hx_ev_set(c, "without", hx_ev_result(without, &x->b->r));
}

/* Confirmation of set I at its isolation point: orders, effect, walls. */
static int confirm(struct cct *x, const struct gen_levels *start, const uint32_t *found,
		   const uint32_t *cands, unsigned n_found, unsigned i, const struct hx_lsa *lsa)
{
	const struct hx_point_result *rq, *r0;
	struct gen_levels q = *start, q0;
	struct hx_removal rem;
	struct hx_symptom s;
	struct hx_cause *c;
	bool undecided = false;
	uint64_t seed = x->p->seed ^ ((uint64_t)x->b->verb << 8) ^ ((uint64_t)x->b->metric << 16) ^
			((uint64_t)i << 24);
	int rc;

	for (unsigned j = 0; j < n_found; j++) /* every other set, but not what they share */
		if (j != i)
			remove_bits(x->p, &q, found[j] & ~found[i]);
	rc = cct_judge(x, &q, &s, &undecided, &rq);
	if (rc < 0)
		return rc;
	if (!s.present) { /* needs another set's context: confirm where it was discovered */
		q = *start;
		for (unsigned j = 0; j < i; j++)
			remove_bits(x->p, &q, found[j] & ~found[i]);
		if ((rc = cct_judge(x, &q, &s, &undecided, &rq)) < 0)
			return rc;
	}
	rc = hx_removal_run(x->e, x->p, &x->b->r, &q, cands[i] & removable(x, &q), lsa->sens,
			    x->p->removal_orders, seed, &rem, x->err);
	if (rc < 0 || !(c = hx_analysis_add(x->a, x->p, x->b->verb, x->b->metric,
					    found[i] | x->pinned, &q))) {
		hx_removal_release(&rem);
		return rc;
	}
	hx_ev_set(c, "orders", rem.orders); /* the evidence takes them */
	rem.orders = NULL;
	hx_ev_set(c, "candidates", hx_ev_dims(x->p, cands[i] & removable(x, &q)));
	c->confidence = 1.0;
	for (unsigned d = 0; d < x->p->n_dims; d++)
		if ((found[i] & (1u << d)) && rem.confidence[d] < c->confidence)
			c->confidence = rem.confidence[d];
	c->undecided = undecided;
	q0 = q;
	remove_bits(x->p, &q0, found[i]);
	if ((rc = hx_eval_point(x->e, &q0, "cct", &r0, x->err)) < 0)
		return rc;
	cause_evidence(x, c, start, lsa, rq, r0);
	hx_cause_effect(x->b->metric, rq, r0, c);
	hx_cause_add_ids(c, rq);
	hx_cause_add_ids(c, r0);
	for (unsigned k = 0; k < rem.n_ids && c->n_ids < HX_CAUSE_MAX_IDS; k++)
		c->ids[c->n_ids++] = rem.ids[k];
	if ((rc = cause_walls(x, &q, c)) < 0)
		return rc;
	return classify(x, &q, c);
}

/* Move every non-scale dimension at neutral to the level LSA shows to aggravate the symptom
 * significantly, unless that level shows the symptom by itself (64-byte messages: that is
 * the operating point, which a later round searches against its own reference). *MOVED:
 * how many moved. */
static int aggravate(struct cct *x, const struct hx_lsa *lsa, struct gen_levels *start,
		     unsigned *moved)
{
	*moved = 0;
	for (unsigned i = 0; i < x->p->n_dims; i++) {
		const struct hx_lsa_dim *best = NULL;

		for (unsigned k = 0; k < lsa->n; k++) {
			const struct hx_lsa_dim *d = &lsa->d[k];
			const struct hx_point_result *r;
			bool own;
			int rc;

			if (d->dim != i || d->from != x->p->dims[i].neutral || !d->candidate ||
			    d->harm <= 0 || (best && d->harm <= best->harm))
				continue;
			if ((rc = cct_alone(x, &x->p->dims[i], d->to, &own, &r)) < 0)
				return rc;
			if (!own)
				best = d;
		}
		if (best) {
			gen_levels_set(start, x->p->dims[i].dim, best->to, NULL);
			(*moved)++;
		}
	}
	return 0;
}

/* Rounds of "remove what was found, look at what is left" after the first search. */
#define CCT_MAX_ROUNDS 3

/* Causes hidden behind others: once every set found from START is removed, the rest of the
 * point may still show the symptom (a cause the first ones masked: its effect was invisible
 * while rules fell back to software, say), and then the search starts again there; or it may
 * need only a context (small pages, say) to show one. Each non-scale dimension at neutral is
 * then re-probed, and a context that is harmless by itself starts a search of its own. */
static int hidden_context(struct cct *x, const struct gen_levels *start, const uint32_t *found,
			  unsigned n_found, unsigned depth)
{
	const struct hx_point_result *r;
	struct gen_levels rest = *start;
	struct hx_baseline ref;
	struct hx_symptom s;
	uint32_t own = 0;
	bool present;
	int rc;

	if (depth + 1 >= CCT_MAX_ROUNDS || !n_found)
		return 0;
	for (unsigned i = 0; i < n_found; i++)
		remove_bits(x->p, &rest, found[i]);
	if ((rc = cct_judge(x, &rest, &s, NULL, &r)) < 0 || s.undecided)
		return rc;
	if (s.present)
		return cct_search(x, &rest, depth + 1);
	if ((rc = cct_context_levels(x, &rest, &own, &present)) < 0 || !present)
		return rc;
	if ((rc = cct_context_reference(x, &rest, own, &ref)) < 0)
		return rc;
	return cct_search_ref(x, &rest, depth + 1, &ref, own);
}

int cct_search(struct cct *x, const struct gen_levels *at, unsigned depth)
{
	uint32_t found[MAX_FOUND], cands[MAX_FOUND];
	const struct hx_point_result *r;
	struct gen_levels start = *at;
	struct hx_symptom s;
	struct hx_lsa lsa;
	unsigned n_found, moved;
	bool undecided;
	int rc = cct_judge(x, &start, &s, &undecided, &r);

	if (rc < 0)
		return rc;
	if (!s.present) {
		if (undecided)
			hx_analysis_note(x->a, "undecided: %s %s stress point: more repeats needed",
					 topo_verb_name(x->b->verb), hx_metric_name(x->b->metric));
		return 0;
	}
	if ((rc = hx_lsa_run(x->e, x->p, &x->b->r, &start, &lsa, x->err)) < 0)
		return rc;
	if ((rc = aggravate(x, &lsa, &start, &moved)) < 0)
		return rc;
	if (moved &&
	    (rc = hx_lsa_run(x->e, x->p, &x->b->r, &start, &lsa, x->err)) < 0)
		return rc;
	note_undecided(x, &lsa);
	if ((rc = discover(x, &start, &lsa, found, cands, &n_found)) < 0)
		return rc;
	for (unsigned i = 0; i < n_found && rc == 0; i++)
		rc = confirm(x, &start, found, cands, n_found, i, &lsa);
	if (rc == 0)
		rc = hidden_context(x, &start, found, n_found, depth);
	return rc;
}

static int cct_baseline(struct cct *x)
{
	const struct hx_point_result *r;
	struct gen_levels stress;
	struct hx_symptom s;
	uint32_t own;
	bool undecided;
	int rc;

	hx_levels_base(x->p, x->b->verb, x->b->metric, &stress);
	for (unsigned i = 0; i < x->p->n_dims; i++)
		gen_levels_set(&stress, x->p->dims[i].dim, hx_causal_extreme(&x->p->dims[i]), NULL);
	if ((rc = cct_judge(x, &stress, &s, &undecided, &r)) < 0)
		return rc;
	if (!s.present) {
		struct hx_baseline ref;

		if ((rc = cct_context_levels(x, &stress, &own, &s.present)) < 0)
			return rc;
		if (s.present && (rc = cct_context_reference(x, &stress, own, &ref)) < 0)
			return rc;
		if (s.present)
			return cct_search_ref(x, &stress, 0, &ref, own);
	}
	if (s.present)
		return cct_search(x, &stress, 0);
	if (undecided)
		hx_analysis_note(x->a, "undecided: %s %s stress point: more repeats needed",
				 topo_verb_name(x->b->verb), hx_metric_name(x->b->metric));
	for (unsigned w = 0; x->o && w < x->o->n_walls && rc == 0; w++) {
		const struct hx_wall *wall = &x->o->walls[w];
		struct gen_levels l;

		if ((!wall->found && !wall->slope) || wall->verb != x->b->verb ||
		    wall->metric != x->b->metric)
			continue;
		hx_levels_base(x->p, wall->verb, wall->metric, &l);
		gen_levels_set(&l, wall->dim, wall->found ? wall->level : wall->max_tried, NULL);
		rc = cct_search(x, &l, 0);
	}
	return rc;
}

int hx_causal_cct(struct hx_eval *e, const struct hx_plan *p, const struct hx_outcome *o,
		  struct hx_analysis *a, struct scn_error *err)
{
	struct cct x = { .e = e, .p = p, .o = o, .a = a, .err = err };
	int rc = 0;

	for (unsigned b = 0; b < o->n_baselines && rc == 0; b++) {
		x.b = &o->baselines[b];
		hx_levels_base(p, x.b->verb, x.b->metric, &x.base_at);
		rc = cct_baseline(&x);
	}
	return rc;
}

int hx_causal_run(struct hx_eval *e, const struct hx_plan *p, const struct hx_outcome *o,
		  enum hx_strategy s, struct hx_analysis *a, struct scn_error *err)
{
	int rc;

	memset(a, 0, sizeof(*a));
	a->strategy = s;
	switch (s) { /* baselines are summarised without outliers already (hx_point_finish) */
	case HX_STRATEGY_BRUTE: rc = hx_strategy_brute(e, p, o, a, err); break;
	case HX_STRATEGY_ANNEAL: rc = hx_strategy_anneal(e, p, o, a, err); break;
	default: rc = hx_causal_cct(e, p, o, a, err); break;
	}
	if (rc == 0 || rc == -EDQUOT) {
		int rs = hx_analysis_support(e, p, o, a, err);

		rc = rs < 0 && rs != -EDQUOT ? rs : rc ? rc : rs;
	}
	hx_analysis_mark_through(a);
	a->points = hx_eval_points(e);
	a->trials = hx_eval_trials(e);
	a->cost_s = hx_eval_cost(e);
	a->seq = *hx_eval_seq(e);
	a->budget_exhausted = rc == -EDQUOT;
	return rc;
}

int hx_analysis_phase(struct hx_runner *r, const struct hx_plan *p, const struct hx_outcome *o,
		      struct hx_analysis *a, struct scn_error *err)
{
	struct hx_eval *e;
	int rc = hx_eval_new(r, NULL, NULL, &e);

	if (rc < 0)
		return scn_error_set(err, SCN_ERR_INTERNAL, rc, "analysis: out of memory");
	hx_observe_phase(r->observer, "analysis", 0);
	rc = hx_causal_run(e, p, o, p->strategy, a, err);
	hx_eval_free(e);
	return rc;
}
