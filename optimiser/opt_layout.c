/* SPDX-License-Identifier: MIT */
/*
 * Layout queries of the optimiser table: the precedence matrix between masks (which mask
 * must be probed before which, from overlapping rules of different priorities), the per-mask
 * "keep probing" flags, hyper shadow checks, classification and introspection.
 * Assumes precedence is kept incrementally: every rule add/delete adjusts the counts of the
 * overlapping pairs it forms, found through the anchor hash (the fields all dense masks
 * share) plus a scan of the few rules of sparse masks lacking them (a catch-all default),
 * so a change costs its anchor chain plus those rules, and a tick only reads counts.
 * When dense masks share no field every chain is the whole table: still exact, but
 * O(rules) per change.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "optimiser/opt_priv.h"

/* Do A and B (of different masks) overlap, i.e. does some packet match both? Their values
 * must agree on the bits both masks match. */
static bool overlap(const struct orule *a, const struct orule *b)
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		if ((opt_hdr_get(&a->flow, f) ^ opt_hdr_get(&b->flow, f)) & a->mask->w[f] &
		    b->mask->w[f])
			return false;
	return true;
}

/* Add DELTA to the count of the pair (A, R) if they overlap: A's mask must precede R's if A
 * is preferred, R's mask A's otherwise. A count that reaches OPT_PAIRS_SAT stays there (more
 * than 4 billion pairs of two masks: a precedence edge kept until a mask goes, which can
 * only order masks more strictly than needed, never classify wrongly). */
static void count_pair(struct opt_table *t, const struct orule *a, const struct orule *r,
		       int delta)
{
	uint32_t *c, old;

	if (!overlap(a, r))
		return;
	if (opt_rule_less(a, r))
		c = &t->pairs[(size_t)a->mask->slot * t->slot_cap + r->mask->slot];
	else
		c = &t->pairs[(size_t)r->mask->slot * t->slot_cap + a->mask->slot];
	old = *c;
	if (old == OPT_PAIRS_SAT)
		return;
	assert(delta > 0 || old >= (uint32_t)-delta);
	if (delta > 0)
		*c = old > OPT_PAIRS_SAT - (uint32_t)delta ? OPT_PAIRS_SAT : old + (uint32_t)delta;
	else
		*c = old - (uint32_t)-delta;
	if ((old == 0) != (*c == 0)) /* a precedence edge appeared or vanished */
		t->flags_stale = true;
}

/* Add DELTA to the count of every overlapping pair R forms with the rules of other masks.
 * If R's mask is anchored, the overlapping rules of anchored masks agree with R on the
 * anchor fields and so sit in R's anchor chain (with some non-overlapping ones, rejected by
 * overlap()); the unanchored masks are scanned. Otherwise every other mask is scanned. */
void opt_count_pairs(struct opt_table *t, const struct orule *r, int delta)
{
	const struct omask *m = r->mask;

	if (m->anchored && t->by_anchor.n_buckets) {
		const struct orule *a = t->by_anchor.b[opt_anchor_bucket(t, r)];

		for (; a; a = a->an_next)
			if (a->mask != m)
				count_pair(t, a, r, delta);
	}
	for (uint32_t i = 0; i < t->n_masks; i++) {
		const struct omask *x = t->order[i];

		if (x == m || (x->anchored && m->anchored))
			continue;
		for (uint32_t j = 0; j < x->n_rules; j++)
			count_pair(t, x->rules[j], r, delta);
	}
}

bool opt_covers_anchor(const struct opt_table *t, const uint64_t *w)
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		if ((w[f] & t->anchor[f]) != t->anchor[f])
			return false;
	return true;
}

/* Recompute the anchor from the dense masks and the anchored flags from the anchor; refill
 * the anchor hash if either changed. O(masks), plus O(rules) on a change. */
void opt_anchor_update(struct opt_table *t)
{
	uint64_t a[OPT_F_COUNT];
	bool changed;

	memset(a, 0xff, sizeof(a));
	for (uint32_t i = 0; i < t->n_masks; i++)
		for (int f = 0; t->order[i]->dense && f < OPT_F_COUNT; f++)
			a[f] &= t->order[i]->w[f];
	changed = memcmp(a, t->anchor, sizeof(a)) != 0;
	memcpy(t->anchor, a, sizeof(a));
	for (uint32_t i = 0; i < t->n_masks; i++) {
		struct omask *m = t->order[i];
		bool in = opt_covers_anchor(t, m->w);

		changed = changed || in != m->anchored;
		m->anchored = in;
	}
	if (changed)
		opt_hash_rebuild(t, H_ANCHOR);
}

void opt_update_flags(struct opt_table *t)
{
	for (uint32_t i = 0; i < t->n_masks; i++) {
		struct omask *b = t->order[i];

		b->flagged = false;
		for (uint32_t j = i + 1; j < t->n_masks && !b->flagged; j++)
			b->flagged = opt_prec(t, t->order[j]->slot, b->slot);
	}
	t->flags_stale = false;
}

/* The pair counts are always exact; only the flags may lag behind them. */
void opt_refresh_precedence(struct opt_table *t)
{
	if (t->flags_stale)
		opt_update_flags(t);
}

/* Does a rule preferred over R match R's microflow? Only R's own mask (rules with R's key) and
 * masks that must precede R's can hold one: a rule of another mask that matches R's flow
 * overlaps R, and if it is preferred the pair is counted in pairs[] (kept exact), so masks
 * without that precedence edge are skipped without a lookup. */
bool opt_hyper_shadowed(const struct opt_table *t, const struct orule *r)
{
	for (uint32_t i = 0; i < t->n_masks; i++) {
		const struct omask *m = t->order[i];

		if ((m == r->mask || opt_prec(t, m->slot, r->mask->slot)) &&
		    opt_hyper_shadowed_by(t, r, m))
			return true;
	}
	return false;
}

bool opt_hyper_shadowed_by(const struct opt_table *t, const struct orule *r,
			   const struct omask *m)
{
	uint64_t k[OPT_F_COUNT];
	const struct orule *s;

	for (int f = 0; f < OPT_F_COUNT; f++)
		k[f] = opt_hdr_get(&r->flow, f) & m->w[f];
	s = opt_key_lookup(t, m, k);
	return s && s != r && opt_rule_less(s, r);
}

int opt_table_classify(struct opt_table *t, const struct opt_pkt *pkt, uint32_t *rule_id,
		       uint32_t *probes)
{
	const struct orule *best = NULL;
	uint64_t k[OPT_F_COUNT];
	uint32_t n = 0;
	bool all = false;

	if (!t || !pkt)
		return -EINVAL;
	opt_refresh_precedence(t);
	if (t->hyper_n) {
		const struct orule *h = opt_hyper_lookup(t, pkt->v);

		n++;
		if (h && !h->hyper_dead)
			best = h;
	}
	for (uint32_t i = 0; i < t->n_masks && (!best || all); i++) {
		const struct omask *m = t->order[i];
		const struct orule *r;

		for (int f = 0; f < OPT_F_COUNT; f++)
			k[f] = pkt->v[f] & m->w[f];
		n++;
		r = opt_key_lookup(t, m, k);
		if (!r)
			continue;
		if (!best || opt_rule_less(r, best))
			best = r;
		all = all || m->flagged;
	}
	if (probes)
		*probes = n;
	if (rule_id)
		*rule_id = best ? best->id : 0;
	return best ? 0 : -ENOENT;
}

/* ---- Introspection ------------------------------------------------------------------- */

void opt_table_stats(const struct opt_table *t, struct opt_table_stats *s)
{
	uint64_t b = sizeof(*t);

	memset(s, 0, sizeof(*s));
	if (!t)
		return;
	b += (t->by_id.n_buckets + t->by_key.n_buckets + t->hyper.n_buckets +
	      t->by_anchor.n_buckets) * sizeof(void *);
	b += (uint64_t)t->slot_cap * (2 * sizeof(void *) + t->slot_cap * sizeof(*t->pairs));
	for (uint32_t i = 0; i < t->n_masks; i++) {
		const struct omask *m = t->order[i];

		s->rules += m->n_rules;
		s->flagged_masks += m->flagged;
		b += sizeof(*m) + (uint64_t)m->cap_rules * (sizeof(void *) + sizeof(*m->hot));
		b += (uint64_t)m->n_rules * (sizeof(struct orule) +
					     t->ring_len * sizeof(uint32_t));
	}
	s->masks = t->n_masks;
	s->hyper_entries = t->hyper_n;
	s->bytes = b;
}

size_t opt_table_mask_order(const struct opt_table *t, uint32_t *ids, size_t cap)
{
	size_t n = 0;

	for (uint32_t i = 0; t && i < t->n_masks && n < cap; i++)
		ids[n++] = t->order[i]->id;
	return n;
}

int opt_table_mask_info(const struct opt_table *t, uint32_t mask_id, struct opt_mask *shape,
			uint16_t *prio, uint32_t *n_rules)
{
	const struct omask *m = t ? opt_find_mask(t, mask_id) : NULL;

	if (!m)
		return -ENOENT;
	if (shape)
		*shape = m->shape;
	if (prio)
		*prio = m->prio;
	if (n_rules)
		*n_rules = m->n_rules;
	return 0;
}

int opt_table_get_rule(const struct opt_table *t, uint32_t id, struct opt_rule *out,
		       uint32_t *mask_id)
{
	const struct orule *r = t ? opt_find_rule(t, id) : NULL;

	if (!r)
		return -ENOENT;
	if (out) {
		memset(out, 0, sizeof(*out));
		out->id = r->id;
		out->mask = r->mask->shape;
		opt_rule_v(r, out->v);
		out->priority = r->priority;
		out->action = r->action;
	}
	if (mask_id)
		*mask_id = r->mask->id;
	return 0;
}

bool opt_table_in_hyper(const struct opt_table *t, uint32_t id)
{
	const struct orule *r = t ? opt_find_rule(t, id) : NULL;

	return r && r->in_hyper;
}

int opt_table_window_hits(const struct opt_table *t, uint32_t id, uint64_t *hits)
{
	const struct orule *r = t ? opt_find_rule(t, id) : NULL;

	if (!r)
		return -ENOENT;
	if (hits)
		*hits = opt_rule_hits_at(t, r, t->now);
	return 0;
}
