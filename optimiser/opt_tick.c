/* SPDX-License-Identifier: MIT */
/*
 * The tick: advance every rule's hit window, ask the model whether the current mask count
 * degrades bandwidth beyond the threshold, and plan (in this order, under a token-bucket
 * budget of rule updates per second): evict dead hyper copies (always), delete idle masks,
 * admit hot exact flows into the hyper mask (LRU, threshold, frequency guard), then move
 * masks into locality order (opt_order.c). Ops that do not fit are counted as deferred;
 * the next tick plans again from the layout it finds, so deferral needs no queue.
 * Assumes the tick is called about once per second; the cost is O(rules + masks^2).
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

static int by_hits_desc(const void *a, const void *b)
{
	const struct orule *x = *(struct orule *const *)a, *y = *(struct orule *const *)b;

	if (x->win_sum != y->win_sum)
		return x->win_sum > y->win_sum ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
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

/* Admit candidates (hits >= threshold, not shadowed) hottest first; when full, replace the
 * least recently used copy, but only by a rule with more window hits (no thrash). */
static int plan_hyper(struct planner *pl)
{
	struct opt_table *t = pl->t;
	struct orule **cand = NULL, **res = NULL;
	size_t nc = 0, nr = 0, v = 0, count, total = 0;
	int rc = 0;

	for (uint32_t i = 0; i < t->n_masks; i++)
		total += t->order[i]->n_rules;
	if (t->cfg.hyper_capacity == 0 || total == 0)
		return 0;
	cand = malloc(total * sizeof(*cand));
	res = malloc(total * sizeof(*res));
	if (!cand || !res) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < t->n_masks; i++) {
		const struct omask *m = t->order[i];

		for (uint32_t j = 0; j < m->n_rules && !m->plan_del; j++) {
			struct orule *r = m->rules[j];

			if (r->in_hyper && !r->plan_mark)
				res[nr++] = r;
			else if (!r->in_hyper && r->flow_single && r->win_sum > 0 &&
				 r->win_sum >= t->cfg.admission_hits)
				cand[nc++] = r;
		}
	}
	qsort(cand, nc, sizeof(*cand), by_hits_desc);
	qsort(res, nr, sizeof(*res), by_lru);
	count = t->hyper_n;
	for (size_t i = 0; i < t->hyper.n_buckets; i++) /* planned evictions free room */
		for (struct orule *r = t->hyper.b[i]; r; r = r->hy_next)
			count -= r->plan_mark == PLAN_EVICT;
	for (size_t i = 0; i < nc && rc == 0; i++) {
		struct orule *c = cand[i];
		bool room = count < t->cfg.hyper_capacity;

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
out:
	free(cand);
	free(res);
	return rc;
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
	for (uint32_t i = 0; i < t->n_masks; i++) {
		struct omask *m = t->order[i];

		m->hits = 0;
		m->plan_del = false;
		for (uint32_t j = 0; j < m->n_rules; j++) {
			struct orule *r = m->rules[j];

			opt_rule_advance(t, r, now);
			r->plan_mark = 0;
			if (!r->in_hyper)
				m->hits += r->win_sum;
		}
	}
	rc = plan_dead_hyper(&pl);
	if (rc == 0 && p->info.triggered)
		rc = plan_idle_masks(&pl);
	if (rc == 0 && p->info.triggered)
		rc = plan_hyper(&pl);
	if (rc == 0)
		rc = opt_plan_masks(&pl);
	free(pl.ids);
	if (rc < 0) {
		opt_plan_free(p);
		return rc;
	}
	p->generation = t->generation;
	*plan = p;
	return 0;
}
