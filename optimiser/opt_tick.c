/* SPDX-License-Identifier: MIT */
/*
 * The tick: advance every rule's hit window, ask the model whether the current mask count
 * degrades bandwidth beyond the threshold, and plan (in this order, under a token-bucket
 * budget of rule updates per second): evict dead hyper copies (always), delete idle masks,
 * admit hot exact flows into the hyper mask (LRU, threshold, frequency guard), then move
 * masks into locality order (opt_order.c). Ops that do not fit are counted as deferred;
 * the next tick plans again from the layout it finds, so deferral needs no queue.
 * Assumes the tick is called about once per second; the cost is O(rules + masks^2): one pass
 * over the rules (prefetched), then only as many hyper candidates ordered as it admits.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "optimiser/opt_model_priv.h"

static void refill(struct opt_table *t, uint64_t now)
{
	double b = t->cfg.update_budget;

	if (!t->tokens_init) {
		t->tokens = b;
		t->tokens_init = true;
	} else if (now > t->tokens_sec) {
		t->tokens += b * (double)(now - t->tokens_sec);
		if (t->tokens > b)
			t->tokens = b;
	}
	t->tokens_sec = now;
}

static int evict(struct planner *pl, struct orule *r)
{
	r->plan_mark = PLAN_EVICT;
	return opt_plan_push(pl->p, OPT_OP_HYPER_EVICT, NULL, 0, OPT_HYPER_PRIO, OPT_HYPER_PRIO,
			     &r->id, 1);
}

static int plan_dead_hyper(struct planner *pl)
{
	struct opt_table *t = pl->t;
	int rc = 0;

	for (size_t b = 0; t->hyper_n && b < t->hyper.n_buckets && rc == 0; b++)
		for (struct orule *r = t->hyper.b[b]; r && rc == 0; r = r->hy_next)
			if (r->hyper_dead && opt_spend(pl, 1))
				rc = evict(pl, r);
	return rc;
}

static bool deletable(const struct opt_table *t, const struct omask *m, uint64_t now)
{
	if (now - m->last_hit < t->cfg.idle_mask_s || now < m->last_hit)
		return false;
	for (uint32_t i = 0; i < t->n_masks; i++)
		if (opt_prec(t, m->slot, t->order[i]->slot))
			return false;
	return true;
}

static int plan_idle_masks(struct planner *pl)
{
	struct opt_table *t = pl->t;
	int rc = 0;

	for (uint32_t i = 0; i < t->n_masks && rc == 0; i++) {
		struct omask *m = t->order[i];
		uint32_t resident = 0;

		if (!deletable(t, m, pl->now))
			continue;
		for (uint32_t j = 0; j < m->n_rules; j++)
			resident += m->rules[j]->in_hyper && !m->rules[j]->plan_mark;
		if (!opt_spend(pl, opt_group_cost(m) + resident))
			break;
		for (uint32_t j = 0; j < m->n_rules && rc == 0; j++)
			if (m->rules[j]->in_hyper && !m->rules[j]->plan_mark)
				rc = evict(pl, m->rules[j]);
		if (rc == 0)
			rc = opt_mask_ids(pl, m);
		if (rc == 0)
			rc = opt_plan_push(pl->p, OPT_OP_MASK_DELETE, m, m->pos, m->prio, m->prio,
					   pl->ids, (uint32_t)pl->n_ids);
		m->plan_del = true;
	}
	return rc;
}

/* Is A hotter than B (more window hits, then lower id: a total order)? */
static bool hotter(const struct opt_cand *a, const struct opt_cand *b)
{
	return a->hits != b->hits ? a->hits > b->hits : a->id < b->id;
}

static void sift_down(struct opt_cand *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, best = i;
		struct opt_cand tmp;

		if (l < n && hotter(&h[l], &h[best]))
			best = l;
		if (l + 1 < n && hotter(&h[l + 1], &h[best]))
			best = l + 1;
		if (best == i)
			return;
		tmp = h[i];
		h[i] = h[best];
		h[best] = tmp;
		i = best;
	}
}

/* The hottest of H[0..*N) removed (a max-heap: candidates come out in the order a full sort
 * by hits would give, but only as many as the tick takes are ever ordered). */
static struct orule *pop_hottest(struct opt_cand *h, size_t *n)
{
	struct orule *r = h[0].r;

	h[0] = h[--*n];
	sift_down(h, *n, 0);
	return r;
}

static int by_lru(const void *a, const void *b)
{
	const struct orule *x = *(struct orule *const *)a, *y = *(struct orule *const *)b;

	if (x->last_hit != y->last_hit)
		return x->last_hit < y->last_hit ? -1 : 1;
	if (x->win_sum != y->win_sum)
		return x->win_sum < y->win_sum ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Order the gathered candidates as a heap, keeping only those that can still be admitted:
 * with no room left, a candidate must beat a resident's window hits (COLDEST: the fewest
 * any resident has), and the hottest-first walk stops at the first that does not, so the
 * others would never come out of the heap. */
static void heap_candidates(struct planner *pl, size_t room, uint64_t coldest)
{
	size_t n = 0;

	for (size_t i = 0; i < pl->n_cand; i++)
		if (room > 0 || pl->cand[i].hits > coldest)
			pl->cand[n++] = pl->cand[i];
	pl->n_cand = n;
	for (size_t k = n / 2; k-- > 0;)
		sift_down(pl->cand, n, k);
}

/* Hyper copies that may be replaced (not planned for eviction), least recently used first. */
static int residents(const struct opt_table *t, struct orule ***out, size_t *n)
{
	struct orule **res = malloc((t->hyper_n ? t->hyper_n : 1) * sizeof(*res));

	*n = 0;
	if (!res)
		return -ENOMEM;
	for (size_t b = 0; t->hyper_n && b < t->hyper.n_buckets; b++)
		for (struct orule *r = t->hyper.b[b]; r; r = r->hy_next)
			if (!r->plan_mark)
				res[(*n)++] = r;
	qsort(res, *n, sizeof(*res), by_lru);
	*out = res;
	return 0;
}

/* Admit candidates (hits >= threshold, not shadowed) hottest first; when full, replace the
 * least recently used copy, but only by a rule with more window hits (no thrash). The
 * candidates were gathered by the tick's pass over the rules (pl->cand, a heap); those of a
 * mask planned for deletion are skipped as they come out. */
static int plan_hyper(struct planner *pl)
{
	struct opt_table *t = pl->t;
	struct orule **res = NULL;
	size_t nr = 0, v = 0, count;
	uint64_t coldest = 0;
	int rc;

	if (t->cfg.hyper_capacity == 0 || pl->n_cand == 0)
		return 0;
	rc = residents(t, &res, &nr);
	count = t->hyper_n;
	for (size_t i = 0; i < t->hyper.n_buckets; i++) /* planned evictions free room */
		for (struct orule *r = t->hyper.b[i]; r; r = r->hy_next)
			count -= r->plan_mark == PLAN_EVICT;
	for (size_t i = 0; i < nr; i++)
		coldest = i == 0 || res[i]->win_sum < coldest ? res[i]->win_sum : coldest;
	heap_candidates(pl, count < t->cfg.hyper_capacity ? t->cfg.hyper_capacity - count : 0,
			nr ? coldest : UINT64_MAX);
	while (rc == 0 && pl->n_cand > 0) {
		struct orule *c = pop_hottest(pl->cand, &pl->n_cand);
		bool room = count < t->cfg.hyper_capacity;

		if (c->mask->plan_del)
			continue;
		if (!room && (v >= nr || res[v]->win_sum >= c->win_sum))
			break;
		if (opt_hyper_shadowed(t, c))
			continue;
		if (!opt_spend(pl, room ? 1 : 2))
			break;
		if (!room)
			rc = evict(pl, res[v++]);
		else
			count++;
		c->plan_mark = PLAN_ADD;
		if (rc == 0)
			rc = opt_plan_push(pl->p, OPT_OP_HYPER_ADD, NULL, 0, OPT_HYPER_PRIO,
					   OPT_HYPER_PRIO, &c->id, 1);
	}
	free(res);
	return rc;
}

/* Is R a hyper candidate (before any mask is planned for deletion)? */
static bool candidate(const struct opt_table *t, const struct orule *r)
{
	return !r->in_hyper && r->flow_single && r->win_sum > 0 &&
	       r->win_sum >= t->cfg.admission_hits;
}

#define AHEAD 16 /* rules ahead fetched into the cache by the tick's pass */

/* Plan marks are set only on the rules of hyper ops; clear those at the end of the tick
 * (rather than every rule's in its pass), so that no mark outlives the tick. */
static void clear_marks(struct opt_table *t, const struct opt_plan *p)
{
	for (size_t i = 0; i < p->n_ops; i++) {
		struct orule *r;

		if (p->ops[i].kind != OPT_OP_HYPER_ADD && p->ops[i].kind != OPT_OP_HYPER_EVICT)
			continue;
		r = opt_find_rule(t, p->rules[p->rule_off[i]]);
		if (r)
			r->plan_mark = 0;
	}
}

/* The tick's one pass over every rule: advance its window, sum its mask's hits outside the
 * hyper mask, and gather the hyper candidates into pl->cand (when
 * GATHER) as a heap. */
static int pass_rules(struct planner *pl, bool gather)
{
	struct opt_table *t = pl->t;
	size_t total = 0;

	for (uint32_t i = 0; i < t->n_masks; i++)
		total += t->order[i]->n_rules;
	if (gather && total) {
		pl->cand = malloc(total * sizeof(*pl->cand));
		if (!pl->cand)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < t->n_masks; i++) {
		struct omask *m = t->order[i];

		m->hits = 0;
		m->plan_del = false;
		for (uint32_t j = 0; j < m->n_rules; j++) {
			struct orule *r = m->rules[j];

			if (j + AHEAD < m->n_rules) { /* its first 24 bytes, wherever they fall */
				__builtin_prefetch(m->rules[j + AHEAD], 0);
				__builtin_prefetch((char *)m->rules[j + AHEAD] + 23, 0);
			}
			opt_rule_advance(t, r, pl->now);
			if (!r->in_hyper)
				m->hits += r->win_sum;
			if (gather && candidate(t, r))
				pl->cand[pl->n_cand++] = (struct opt_cand){ r->win_sum, r->id, r };
		}
	}
	return 0;
}


int opt_table_tick(struct opt_table *t, uint64_t now, const struct opt_model *model,
		   struct opt_plan **plan)
{
	struct planner pl = { .t = t, .now = now };
	struct opt_plan *p;
	double deg = 0.0;
	int rc = 0;

	if (!t || !plan)
		return -EINVAL;
	*plan = NULL;
	if (now < t->now)
		now = t->now;
	t->now = pl.now = now;
	opt_refresh_precedence(t);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pl.p = p;
	p->info.masks = t->n_masks + (t->hyper_n > 0);
	if (model) {
		double bx, b0, x, y, x0, y0;

		rc = opt_inputs_feed(t, model, p->info.masks, &x, &y);
		if (rc == 0)
			rc = opt_inputs_feed(t, model, 0, &x0, &y0);
		if (rc == 0)
			rc = opt_model_predict(model, t->cfg.verb, t->cfg.metric, x, y, &bx);
		if (rc == 0)
			rc = opt_model_predict(model, t->cfg.verb, t->cfg.metric, x0, y0, &b0);
		if (rc == 0 && b0 <= 0.0)
			rc = -EDOM;
		if (rc < 0) {
			opt_plan_free(p);
			return rc;
		}
		deg = 1.0 - bx / b0;
		p->info.triggered = deg > t->cfg.degradation_threshold;
	} else {
		p->info.triggered = t->cfg.always_optimise;
	}
	p->info.degradation = deg;
	refill(t, now);
	rc = pass_rules(&pl, p->info.triggered && t->cfg.hyper_capacity > 0);
	if (rc == 0)
		rc = plan_dead_hyper(&pl);
	if (rc == 0 && p->info.triggered)
		rc = plan_idle_masks(&pl);
	if (rc == 0 && p->info.triggered)
		rc = plan_hyper(&pl);
	if (rc == 0)
		rc = opt_plan_masks(&pl);
	free(pl.ids);
	free(pl.cand);
	clear_marks(t, p);
	if (rc < 0) {
		opt_plan_free(p);
		return rc;
	}
	p->generation = t->generation;
	*plan = p;
	return 0;
}
