/* SPDX-License-Identifier: MIT */
/*
 * Layout queries of the optimiser table: the precedence matrix between masks (which mask
 * must be probed before which, from overlapping rules of different priorities), the per-mask
 * "keep probing" flags, hyper shadow checks, classification and introspection.
 * Assumes precedence is recomputed lazily, per changed mask, against every other mask:
 * O(rules of both masks) per pair via a scratch hash on the masks' common fields.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "optimiser/opt_priv.h"

/* Scratch entry: the preferred and the least preferred rule of one common-field key. */
struct group {
	const struct orule *rep, *min, *max;
	uint64_t h;
};

static uint64_t common_hash(const struct orule *r, const uint64_t *c)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	for (int f = 0; f < OPT_F_COUNT; f++) {
		h ^= r->v[f] & c[f];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	return h;
}

static bool same_common(const struct orule *a, const struct orule *b, const uint64_t *c)
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		if ((a->v[f] ^ b->v[f]) & c[f])
			return false;
	return true;
}

/* Set prec[X][Y] / prec[Y][X] for one pair of masks; G has room for 2*|X| rounded up. */
static void pair_precedence(struct opt_table *t, const struct omask *x, const struct omask *y,
			    struct group *g, size_t ng)
{
	uint64_t c[OPT_F_COUNT];
	bool xy = false, yx = false;

	if (x->n_rules == 0 || y->n_rules == 0)
		goto out;
	for (int f = 0; f < OPT_F_COUNT; f++)
		c[f] = x->w[f] & y->w[f];
	memset(g, 0, ng * sizeof(*g));
	for (uint32_t i = 0; i < x->n_rules; i++) {
		const struct orule *r = x->rules[i];
		uint64_t h = common_hash(r, c);
		size_t j = h & (ng - 1);

		while (g[j].rep && !(g[j].h == h && same_common(g[j].rep, r, c)))
			j = (j + 1) & (ng - 1);
		if (!g[j].rep) {
			g[j] = (struct group){ r, r, r, h };
			continue;
		}
		if (opt_rule_less(r, g[j].min))
			g[j].min = r;
		if (opt_rule_less(g[j].max, r))
			g[j].max = r;
	}
	for (uint32_t i = 0; i < y->n_rules && !(xy && yx); i++) {
		const struct orule *r = y->rules[i];
		uint64_t h = common_hash(r, c);
		size_t j = h & (ng - 1);

		while (g[j].rep && !(g[j].h == h && same_common(g[j].rep, r, c)))
			j = (j + 1) & (ng - 1);
		if (!g[j].rep)
			continue;
		xy = xy || opt_rule_less(g[j].min, r);
		yx = yx || opt_rule_less(r, g[j].max);
	}
out:
	t->prec[(size_t)x->slot * t->slot_cap + y->slot] = xy;
	t->prec[(size_t)y->slot * t->slot_cap + x->slot] = yx;
}

void opt_update_flags(struct opt_table *t)
{
	for (uint32_t i = 0; i < t->n_masks; i++) {
		struct omask *b = t->order[i];

		b->flagged = false;
		for (uint32_t j = i + 1; j < t->n_masks && !b->flagged; j++)
			b->flagged = t->prec[(size_t)t->order[j]->slot * t->slot_cap + b->slot];
	}
}

void opt_refresh_precedence(struct opt_table *t)
{
	uint32_t most = 0;
	size_t ng = 2;
	struct group *g;

	if (!t->any_dirty)
		return;
	for (uint32_t i = 0; i < t->n_masks; i++)
		if (t->order[i]->n_rules > most)
			most = t->order[i]->n_rules;
	while (ng < 2 * (size_t)most)
		ng *= 2;
	g = malloc(ng * sizeof(*g));
	for (uint32_t i = 0; i < t->n_masks; i++) {
		struct omask *y = t->order[i];

		if (!y->dirty)
			continue;
		for (uint32_t j = 0; j < t->n_masks; j++) {
			struct omask *x = t->order[j];

			if (x == y || (x->dirty && x->slot < y->slot))
				continue;
			if (g) {
				pair_precedence(t, x, y, g, ng);
			} else { /* no memory: assume both orders are needed (always correct) */
				t->prec[(size_t)x->slot * t->slot_cap + y->slot] = 1;
				t->prec[(size_t)y->slot * t->slot_cap + x->slot] = 1;
			}
		}
	}
	free(g);
	for (uint32_t i = 0; i < t->n_masks; i++)
		t->order[i]->dirty = !g;
	t->any_dirty = !g;
	opt_update_flags(t);
}

bool opt_hyper_shadowed(const struct opt_table *t, const struct orule *r)
{
	uint64_t k[OPT_F_COUNT];

	for (uint32_t i = 0; i < t->n_masks; i++) {
		const struct omask *m = t->order[i];
		const struct orule *s;

		for (int f = 0; f < OPT_F_COUNT; f++)
			k[f] = r->flow[f] & m->w[f];
		s = opt_key_lookup(t, m, k);
		if (s && s != r && opt_rule_less(s, r))
			return true;
	}
	return false;
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
	b += (t->by_id.n_buckets + t->by_key.n_buckets + t->hyper.n_buckets) * sizeof(void *);
	b += (uint64_t)t->slot_cap * (2 * sizeof(void *) + t->slot_cap);
	for (uint32_t i = 0; i < t->n_masks; i++) {
		const struct omask *m = t->order[i];

		s->rules += m->n_rules;
		s->flagged_masks += m->flagged;
		b += sizeof(*m) + (uint64_t)m->cap_rules * sizeof(void *);
		b += (uint64_t)m->n_rules * (sizeof(struct orule) +
					     t->cfg.window_s * sizeof(uint32_t));
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
		memcpy(out->v, r->v, sizeof(out->v));
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
		*hits = r->win_sum;
	return 0;
}
