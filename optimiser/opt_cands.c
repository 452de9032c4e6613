/* SPDX-License-Identifier: MIT */
/*
 * The tick's hottest-first walk over the hyper candidates (opt_tick.c admits them in this
 * order), without ordering or even reading every rule: the masks' hot bounds (opt_window.c,
 * 4 bytes a rule, in order) say which rules can be candidates and bound their window hits.
 * The walk takes the hottest bounds in batches (one pass over the bounds keeps the largest
 * few), reads those rules' exact hits into a heap, and takes the next batch whenever the
 * heap's top is not above the least bound taken (a rule not taken yet could be hotter, or
 * tie with a lower id). A rule comes out only when no bound could hide a hotter one, so the
 * walk yields the order a full sort of every candidate by (hits, id) would give.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "optimiser/opt_heap.h"
#include "optimiser/opt_priv.h"

#define FIRST_BATCH 64  /* bounds in the first batch beyond the free hyper slots */

/* Bounds at their places (struct opt_slot) are ordered by (h, i, j), a total order, so that
 * a batch is a set of the largest and ties at its edge split cleanly. */
static bool slot_less(struct opt_slot a, struct opt_slot b)
{
	if (a.h != b.h)
		return a.h < b.h;
	return a.i != b.i ? a.i < b.i : a.j < b.j;
}

/* Is A to come out of the heap before B? More window hits, then the lower id: a total
 * order. */
static bool hotter(const struct opt_cand *a, const struct opt_cand *b)
{
	if (a->hits != b->hits)
		return a->hits > b->hits;
	return a->id < b->id;
}

OPT_HEAP_SIFT_DOWN(sift_down, struct opt_cand, hotter)

/* Make room for N more entries in W's heap. */
static int reserve(struct opt_walk *w, size_t n)
{
	size_t nc = w->cap ? w->cap : 256;
	struct opt_cand *nh;

	while (nc < w->n + n)
		nc *= 2;
	if (nc == w->cap)
		return 0;
	nh = realloc(w->h, nc * sizeof(*nh));
	if (!nh)
		return -ENOMEM;
	w->h = nh;
	w->cap = nc;
	return 0;
}

/* Keep the K largest slots seen in the min-heap H[0..*N) (K >= 1). */
static void keep_largest(struct opt_slot *h, size_t *n, size_t k, struct opt_slot v)
{
	size_t i = 0;

	if (*n < k) {
		for (i = (*n)++; i > 0 && slot_less(v, h[(i - 1) / 2]); i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = v;
		return;
	}
	if (!slot_less(h[0], v))
		return;
	for (;;) { /* replace the least, sift it down */
		size_t l = 2 * i + 1, c = l;

		if (l >= k)
			break;
		if (l + 1 < k && slot_less(h[l + 1], h[l]))
			c = l + 1;
		if (!slot_less(h[c], v))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

/* The least bound the walk wants: any candidate's while there is room, else only those
 * that may beat the coldest copy (a saturated bound may: its hits are unknown). */
static uint32_t least_wanted(const struct opt_walk *w)
{
	if (w->room)
		return 1;
	return w->coldest >= OPT_HOT_SAT - 1 ? OPT_HOT_SAT : (uint32_t)w->coldest + 1;
}

/* Into TOP the K largest slots wanted and not taken yet (below w->edge unless fresh).
 * One pass over the bounds; per rule a compare against the least kept, without a branch on
 * whether it is a candidate (a coin toss while the windows fill, which a branch would
 * mispredict half the time). */
static size_t largest(const struct opt_table *t, const struct opt_walk *w, struct opt_slot *top,
		      size_t k)
{
	uint32_t lo = least_wanted(w), hi = w->fresh ? OPT_HOT_SAT : w->edge.h;
	size_t n = 0;

	if (hi < lo)
		return 0;
	for (uint32_t i = 0; i < t->n_masks; i++) {
		const struct omask *m = t->order[i];
		const uint32_t *hot = m->hot;
		uint32_t n_rules = m->plan_del ? 0 : m->n_rules;

		for (uint32_t j = 0; j < n_rules; j++) {
			uint32_t h = hot[j], least = n < k ? 0 : top[0].h;
			struct opt_slot v = { h, i, j };

			if (!((h - lo <= hi - lo) & (h >= least)))
				continue;
			if (!w->fresh && h == w->edge.h && !slot_less(v, w->edge))
				continue; /* taken by an earlier batch */
			keep_largest(top, &n, k, v);
		}
	}
	return n;
}

/* Read rule R's exact hits (its window advanced to the tick) into the heap, unless it is no
 * candidate (or, with no room, does not beat the coldest copy). */
static void resolve(const struct planner *pl, struct opt_walk *w, struct orule *r)
{
	opt_rule_advance(pl->t, r, pl->now);
	if (w->n_read < OPT_WALK_TIGHTEN)
		w->read[w->n_read++] = r;
	if (!opt_hyper_candidate(pl->t, r) || (!w->room && r->win_sum <= w->coldest))
		return;
	w->h[w->n++] = (struct opt_cand){ r->win_sum, r->id, r };
}

/* Take the next batch of bounds: the w->want largest not taken yet, their rules' exact hits
 * into the heap; after it, every bound not taken is below w->edge (none when w->done). */
static int take_batch(const struct planner *pl, struct opt_walk *w)
{
	const struct opt_table *t = pl->t;
	size_t k = w->want, rules = 0, n;
	struct opt_slot *top;
	int rc = 0;

	for (uint32_t i = 0; i < t->n_masks; i++)
		rules += t->order[i]->n_rules;
	k = k < rules ? k : rules;
	top = malloc((k ? k : 1) * sizeof(*top));
	if (!top)
		return -ENOMEM;
	n = k ? largest(t, w, top, k) : 0;
	rc = reserve(w, n);
	for (size_t q = 0; rc == 0 && q < n; q++)
		resolve(pl, w, t->order[top[q].i]->rules[top[q].j]);
	for (size_t q = w->n / 2; rc == 0 && q-- > 0;)
		sift_down(w->h, w->n, q);
	w->done = n == 0 || n < k;
	if (n > 0)
		w->edge = top[0]; /* the least taken */
	w->fresh = false;
	w->want *= 2;
	free(top);
	return rc;
}

void opt_walk_start(struct opt_walk *w, bool room, uint64_t free_slots, uint64_t coldest)
{
	memset(w, 0, sizeof(*w));
	w->room = room;
	w->coldest = coldest;
	w->fresh = true;
	w->want = FIRST_BATCH + (free_slots < SIZE_MAX / 4 ? free_slots : SIZE_MAX / 4);
}

/* Are there bounds not taken that could beat the heap's top (or tie it: a tied bound may
 * hide a lower id)? */
static bool need_batch(const struct opt_walk *w)
{
	uint64_t edge = w->edge.h == OPT_HOT_SAT ? UINT64_MAX : w->edge.h;

	if (w->fresh)
		return true;
	return !w->done && (w->n == 0 || w->h[0].hits <= edge);
}

struct orule *opt_walk_next(const struct planner *pl, struct opt_walk *w, int *rc)
{
	struct orule *r;

	*rc = 0;
	while (need_batch(w))
		if ((*rc = take_batch(pl, w)) < 0)
			return NULL;
	if (w->n == 0)
		return NULL;
	r = w->h[0].r;
	w->h[0] = w->h[--w->n];
	sift_down(w->h, w->n, 0);
	return r;
}

void opt_walk_free(const struct opt_table *t, struct opt_walk *w)
{
	for (size_t i = 0; i < w->n_read; i++) /* not while walking: a bound then taken twice */
		opt_hot_note(t, w->read[i]);
	free(w->h);
	w->h = NULL;
	w->n = w->cap = 0;
}
