/* SPDX-License-Identifier: MIT */
/*
 * The tick's hottest-first walk over the hyper candidates (opt_tick.c admits them in this
 * order), without ordering or even reading every rule: the masks' hot bounds (opt_window.c,
 * 4 bytes a rule, in order) say which rules can be candidates and bound their window hits.
 * The walk takes the hottest bounds in batches (one pass finds the least of the largest few,
 * a second copies those at or above it), keeps them in a
 * heap, reads a rule only when its bound comes to the top (its exact hits go back into the
 * heap), and takes the next batch only when the heap's top is below the batch's level. Exact
 * hits come out only when no bound could hide a hotter rule, so the walk yields the order a
 * full sort of every candidate by (hits, id) would give.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "optimiser/opt_priv.h"

#define FIRST_BATCH 64  /* bounds in the first batch beyond the free hyper slots */

static uint64_t bound_of(uint32_t hot)
{
	return hot == OPT_HOT_SAT ? UINT64_MAX : hot;
}

/* The bounds the walk takes and has not taken yet: those in [*LO, *HI] (false: none). */
static bool wanted_range(const struct opt_walk *w, uint64_t *lo, uint64_t *hi)
{
	*lo = w->room ? 1 : w->coldest + 1;
	*hi = w->fresh ? UINT64_MAX : w->hi - 1;
	if (!w->room && w->coldest == UINT64_MAX)
		return false;
	return (w->fresh || w->hi > 0) && *lo <= *hi;
}

/* Is A to come out of the heap before B? More window hits first; at equal hits a bound
 * before an exact count (the bound may hide a rule that must come first); then the lower id
 * (exact counts only: a total order on what is admitted). */
static bool hotter(const struct opt_cand *a, const struct opt_cand *b)
{
	if (a->hits != b->hits)
		return a->hits > b->hits;
	if (a->exact != b->exact)
		return !a->exact;
	return a->id < b->id;
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

static int push(struct opt_walk *w, struct opt_cand c)
{
	size_t i;
	int rc = reserve(w, 1);

	if (rc < 0)
		return rc;
	i = w->n++;
	w->h[i] = c;
	while (i > 0 && hotter(&w->h[i], &w->h[(i - 1) / 2])) {
		struct opt_cand tmp = w->h[i];

		w->h[i] = w->h[(i - 1) / 2];
		w->h[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
	return 0;
}

/* Keep the K largest values seen in the min-heap H[0..*N) (K >= 1). */
static void keep_largest(uint64_t *h, size_t *n, size_t k, uint64_t v)
{
	size_t i = 0;

	if (*n < k) {
		for (i = (*n)++; i > 0 && h[(i - 1) / 2] > v; i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = v;
		return;
	}
	if (v <= h[0])
		return;
	for (;;) { /* replace the least, sift it down */
		size_t l = 2 * i + 1, c = l;

		if (l >= k)
			break;
		if (l + 1 < k && h[l + 1] < h[l])
			c = l + 1;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

/* The least of the W->want largest bounds in [LO, HI] (LO when there are fewer: all of them
 * are taken). One pass over the bounds, a compare each once the heap holds large ones. */
static int batch_floor(const struct opt_table *t, const struct opt_walk *w, uint64_t lo,
		       uint64_t hi, uint64_t *floor)
{
	size_t n = 0, k = w->want, rules = 0;
	uint64_t *top, span = hi - lo;

	for (uint32_t i = 0; i < t->n_masks; i++)
		rules += t->order[i]->n_rules;
	k = k < rules ? k : rules;
	top = malloc((k ? k : 1) * sizeof(*top));
	if (!top)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n_masks; i++) {
		const struct omask *m = t->order[i];
		uint32_t n_rules = m->plan_del ? 0 : m->n_rules;

		for (uint32_t j = 0; j < n_rules; j++) {
			uint64_t h = bound_of(m->hot[j]);

			if (h - lo <= span && (n < k || h > top[0]))
				keep_largest(top, &n, k, h);
		}
	}
	*floor = n < k || n == 0 ? lo : top[0];
	free(top);
	return 0;
}

/* Take the next batch of bounds into the heap; after it, every bound not taken is < w->hi
 * (none when w->hi is 0). */
static int take_batch(const struct opt_table *t, struct opt_walk *w)
{
	uint64_t lo, hi, floor = 0;
	int rc;

	if (!wanted_range(w, &lo, &hi)) {
		w->fresh = false;
		w->hi = 0;
		return 0;
	}
	rc = batch_floor(t, w, lo, hi, &floor);
	for (uint32_t i = 0; rc == 0 && i < t->n_masks; i++) {
		const struct omask *m = t->order[i];
		uint32_t n_rules = m->plan_del ? 0 : m->n_rules;

		for (uint32_t j = 0; rc == 0 && j < n_rules; j++) {
			uint64_t h = bound_of(m->hot[j]);

			if (h - floor <= hi - floor && (rc = reserve(w, 1)) == 0)
				w->h[w->n++] = (struct opt_cand){ h, 0, false, m->rules[j] };
		}
	}
	for (size_t k = w->n / 2; rc == 0 && k-- > 0;)
		sift_down(w->h, w->n, k);
	w->hi = floor == lo ? 0 : floor;
	w->fresh = false;
	w->want *= 2;
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

/* Are there bounds not taken that could beat the heap's top? */
static bool need_batch(const struct opt_walk *w)
{
	if (w->fresh)
		return true;
	return w->hi > 0 && (w->n == 0 || w->h[0].hits < w->hi);
}

struct orule *opt_walk_next(const struct planner *pl, struct opt_walk *w, int *rc)
{
	*rc = 0;
	for (;;) {
		struct opt_cand top;
		struct orule *r;

		if (need_batch(w)) {
			*rc = take_batch(pl->t, w);
			if (*rc < 0)
				return NULL;
			continue;
		}
		if (w->n == 0)
			return NULL;
		top = w->h[0];
		w->h[0] = w->h[--w->n];
		sift_down(w->h, w->n, 0);
		if (top.exact)
			return top.r;
		r = top.r;
		opt_rule_advance(pl->t, r, pl->now);
		if (w->n_read < OPT_WALK_TIGHTEN)
			w->read[w->n_read++] = r;
		if (!opt_hyper_candidate(pl->t, r) || (!w->room && r->win_sum <= w->coldest))
			continue;
		*rc = push(w, (struct opt_cand){ r->win_sum, r->id, true, r });
		if (*rc < 0)
			return NULL;
	}
}

void opt_walk_free(const struct opt_table *t, struct opt_walk *w)
{
	for (size_t i = 0; i < w->n_read; i++) /* not while walking: a bound then taken twice */
		opt_hot_note(t, w->read[i]);
	free(w->h);
	w->h = NULL;
	w->n = w->cap = 0;
}
