/* SPDX-License-Identifier: MIT */
/*
 * The tick: advance every rule's hit window, ask the model whether the current mask count
 * degrades bandwidth beyond the threshold, and plan (in this order, under a token-bucket
 * budget of rule updates per second): evict dead hyper copies (always), delete idle masks,
 * admit hot exact flows into the hyper mask (LRU, threshold, frequency guard), then move
 * masks into locality order (opt_order.c). Ops that do not fit are counted as deferred;
 * the next tick plans again from the layout it finds, so deferral needs no queue.
 * Assumes the tick is called about once per second. No pass over every rule: the masks' hits
 * and the candidates' bounds are kept as counters are fed (opt_window.c); the tick reads the
 * masks (O(masks^2)), the hyper copies, and the candidates' 4-byte bounds in order, and
 * reads a rule only when the hottest-first walk reaches it.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "optimiser/opt_heap.h"
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

/* Was A used less recently than B (then fewer window hits, then lower id: a total order)? */
static bool older(const struct orule *a, const struct orule *b)
{
	if (a->last_hit != b->last_hit)
		return a->last_hit < b->last_hit;
	if (a->win_sum != b->win_sum)
		return a->win_sum < b->win_sum;
	return a->id < b->id;
}

/* older() on heap entries (pointers to rules). */
static bool older_at(struct orule *const *a, struct orule *const *b)
{
	return older(*a, *b);
}

OPT_HEAP_SIFT_DOWN(lru_sift_down, struct orule *, older_at)

/* Hyper copies that may be replaced (not planned for eviction), their windows advanced to
 * the tick, as a heap with the least recently used on top (only as many come out in order
 * as the tick replaces); coldest: the fewest window hits any of them has (UINT64_MAX for
 * none). */
struct residents {
	struct orule **h;
	size_t n;
	uint64_t coldest;
};

static int residents(struct planner *pl, struct residents *rs)
{
	struct opt_table *t = pl->t;

	rs->n = 0;
	rs->coldest = UINT64_MAX;
	rs->h = malloc((t->hyper_n ? t->hyper_n : 1) * sizeof(*rs->h));
	if (!rs->h)
		return -ENOMEM;
	for (size_t b = 0; t->hyper_n && b < t->hyper.n_buckets; b++)
		for (struct orule *r = t->hyper.b[b]; r; r = r->hy_next) {
			opt_rule_advance(t, r, pl->now);
			if (r->plan_mark)
				continue;
			rs->h[rs->n++] = r;
			if (r->win_sum < rs->coldest)
				rs->coldest = r->win_sum;
		}
	for (size_t k = rs->n / 2; k-- > 0;)
		lru_sift_down(rs->h, rs->n, k);
	return 0;
}

/* The least recently used resident taken out (RS->n > 0). */
static struct orule *take_lru(struct residents *rs)
{
	struct orule *r = rs->h[0];

	rs->h[0] = rs->h[--rs->n];
	lru_sift_down(rs->h, rs->n, 0);
	return r;
}

/* The masks that may shadow a hyper copy of a rule: per mask slot, its own mask and those
 * that must precede it (opt_hyper_shadowed), listed once a tick for the masks the walk
 * reaches rather than found again for every candidate; off[s] == 0: not listed yet. */
struct shadows {
	size_t *off;             /* slot -> 1 + start of its list in m[] (NULL-terminated) */
	const struct omask **m;
	size_t n, cap;
};

static int shadows_list(const struct opt_table *t, struct shadows *sh, const struct omask *of)
{
	size_t need = sh->n + t->n_masks + 1;

	if (need > sh->cap) {
		const struct omask **nm = realloc(sh->m, 2 * need * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		sh->m = nm;
		sh->cap = 2 * need;
	}
	sh->off[of->slot] = sh->n + 1;
	for (uint32_t i = 0; i < t->n_masks; i++)
		if (t->order[i] == of || opt_prec(t, t->order[i]->slot, of->slot))
			sh->m[sh->n++] = t->order[i];
	sh->m[sh->n++] = NULL;
	return 0;
}

/* opt_hyper_shadowed(T, R), or a negative errno. */
static int shadowed(const struct opt_table *t, struct shadows *sh, const struct orule *r)
{
	int rc = 0;

	if (!sh->off[r->mask->slot])
		rc = shadows_list(t, sh, r->mask);
	for (size_t i = sh->off[r->mask->slot] - 1; rc == 0 && sh->m[i]; i++)
		if (opt_hyper_shadowed_by(t, r, sh->m[i]))
			return 1;
	return rc;
}

/* Admit candidates (hits >= threshold, not shadowed) hottest first; when full, replace the
 * least recently used copy, but only by a rule with more window hits (no thrash). Those of a
 * mask planned for deletion are not gathered. */
static int plan_hyper(struct planner *pl)
{
	struct opt_table *t = pl->t;
	struct shadows sh = { calloc(t->slot_cap, sizeof(size_t)), NULL, 0, 0 };
	struct residents rs = { NULL, 0, 0 };
	struct opt_walk w;
	struct orule *c;
	size_t count;
	int rc = 0;

	if (t->cfg.hyper_capacity == 0 || !sh.off) {
		free(sh.off);
		return t->cfg.hyper_capacity == 0 ? 0 : -ENOMEM;
	}
	rc = residents(pl, &rs);
	count = t->hyper_n;
	for (size_t i = 0; i < t->hyper.n_buckets; i++) /* planned evictions free room */
		for (struct orule *r = t->hyper.b[i]; r; r = r->hy_next)
			count -= r->plan_mark == PLAN_EVICT;
	opt_walk_start(&w, count < t->cfg.hyper_capacity,
		       count < t->cfg.hyper_capacity ? t->cfg.hyper_capacity - count : 0, rs.coldest);
	while (rc == 0 && (c = opt_walk_next(pl, &w, &rc)) != NULL) {
		bool room = count < t->cfg.hyper_capacity;

		if (!room && (rs.n == 0 || rs.h[0]->win_sum >= c->win_sum))
			break;
		if ((rc = shadowed(t, &sh, c)) != 0) {
			rc = rc < 0 ? rc : 0;
			continue;
		}
		if (!opt_spend(pl, room ? 1 : 2))
			break;
		if (!room)
			rc = evict(pl, take_lru(&rs));
		else
			count++;
		c->plan_mark = PLAN_ADD;
		if (rc == 0)
			rc = opt_plan_push(pl->p, OPT_OP_HYPER_ADD, NULL, 0, OPT_HYPER_PRIO,
					   OPT_HYPER_PRIO, &c->id, 1);
	}
	opt_walk_free(t, &w);
	free(rs.h);
	free(sh.off);
	free(sh.m);
	return rc;
}

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

/* The masks' window hits outside the hyper mask as of the tick: the sums opt_window.c keeps
 * as counters come, slid to the tick (O(masks), no rule is read). */
static void pass_masks(struct planner *pl)
{
	struct opt_table *t = pl->t;

	for (uint32_t i = 0; i < t->n_masks; i++) {
		struct omask *m = t->order[i];

		opt_mask_advance(t, m, pl->now);
		m->hits = m->win_sum;
		m->plan_del = false;
	}
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
	pass_masks(&pl);
	rc = plan_dead_hyper(&pl);
	if (rc == 0 && p->info.triggered)
		rc = plan_idle_masks(&pl);
	if (rc == 0 && p->info.triggered)
		rc = plan_hyper(&pl);
	if (rc == 0)
		rc = opt_plan_masks(&pl);
	free(pl.ids);
	clear_marks(t, p);
	if (rc < 0) {
		opt_plan_free(p);
		return rc;
	}
	p->generation = t->generation;
	*plan = p;
	return 0;
}
