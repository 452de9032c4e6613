/* SPDX-License-Identifier: MIT */
/*
 * Rule and mask bookkeeping of the optimiser table: add/delete rules, create and remove
 * masks, hyper copies and the introspection calls (the hit window: opt_record.c). Assumes the caller's time is seconds on a monotonic clock.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "optimiser/opt_priv.h"

static const uint8_t bits_of[OPT_F_COUNT] = { 32, 48, 48, 16, 32, 32, 8, 16, 16, 32, 32, 32,
					      16 };

static double mask_specificity(const struct opt_mask *m)
{
	unsigned have = 0, all = 0;

	for (int f = 0; f < OPT_F_COUNT; f++) {
		all += bits_of[f];
		if (!(m->fields & (1u << f)))
			continue;
		have += opt_field_is_ip((enum opt_field)f) ? (m->plen[f] > 32 ? 32 : m->plen[f])
							   : bits_of[f];
	}
	return (double)(have ? have : 1) / all;
}

static int grow_slots(struct opt_table *t)
{
	uint32_t nc = t->slot_cap ? t->slot_cap * 2 : 16;
	struct omask **bs, **order;
	uint32_t *np;

	if (nc > t->cfg.max_masks)
		nc = t->cfg.max_masks;
	bs = calloc(nc, sizeof(*bs));
	order = calloc(nc, sizeof(*order));
	np = calloc((size_t)nc * nc, sizeof(*np));
	if (!bs || !order || !np) {
		free(bs);
		free(order);
		free(np);
		return -ENOMEM;
	}
	for (uint32_t a = 0; a < t->slot_cap; a++)
		memcpy(np + (size_t)a * nc, t->pairs + (size_t)a * t->slot_cap,
		       t->slot_cap * sizeof(*np));
	if (t->slot_cap) {
		memcpy(bs, t->by_slot, t->slot_cap * sizeof(*bs));
		memcpy(order, t->order, t->n_masks * sizeof(*order));
	}
	free(t->pairs);
	free(t->by_slot);
	free(t->order);
	t->pairs = np;
	t->by_slot = bs;
	t->order = order;
	t->slot_cap = nc;
	return 0;
}

static int free_slot(struct opt_table *t, uint32_t *slot)
{
	for (uint32_t s = 0; s < t->slot_cap; s++)
		if (!t->by_slot[s]) {
			*slot = s;
			return 0;
		}
	if (t->slot_cap >= t->cfg.max_masks)
		return -ENOSPC;
	{
		uint32_t s = t->slot_cap;
		int rc = grow_slots(t);

		if (rc < 0)
			return rc;
		*slot = s;
	}
	return 0;
}

static uint16_t append_prio(const struct opt_table *t)
{
	uint32_t last;

	if (t->n_masks == 0)
		return OPT_PRIO_FIRST;
	last = t->order[t->n_masks - 1]->prio;
	if (last + OPT_PRIO_GAP <= OPT_PRIO_MAX)
		return (uint16_t)(last + OPT_PRIO_GAP);
	if (last < OPT_PRIO_MAX)
		return (uint16_t)((last + 1 + OPT_PRIO_MAX) / 2);
	return 0; /* exhausted until the planner renumbers */
}

static int mask_get(struct opt_table *t, const struct opt_mask *shape, uint64_t now,
		    struct omask **out)
{
	uint64_t w[OPT_F_COUNT];
	struct omask *m;
	uint32_t slot;
	uint16_t prio;
	int rc;

	opt_mask_words(shape, w);
	for (uint32_t i = 0; i < t->n_masks; i++)
		if (memcmp(t->order[i]->w, w, sizeof(w)) == 0) {
			*out = t->order[i];
			return 0;
		}
	if (t->n_masks >= t->cfg.max_masks || (prio = append_prio(t)) == 0)
		return -ENOSPC;
	rc = free_slot(t, &slot);
	if (rc < 0)
		return rc;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->id = ++t->next_mask_id;
	m->slot = slot;
	m->pos = t->n_masks;
	m->prio = prio;
	memcpy(m->w, w, sizeof(w));
	for (int f = 0; f < OPT_F_COUNT; f++) /* canonical shape */
		if (w[f]) {
			m->shape.fields |= 1u << f;
			m->shape.plen[f] = opt_field_is_ip((enum opt_field)f)
				? (uint8_t)__builtin_popcountll(w[f]) : 0;
		}
	m->specificity = mask_specificity(&m->shape);
	m->full = m->shape.fields == OPT_F_ALL && m->specificity >= 1.0;
	m->last_hit = now;
	m->win_last_sec = now;
	m->anchored = opt_covers_anchor(t, w); /* sparse: the anchor stays */
	t->by_slot[slot] = m;
	t->order[t->n_masks++] = m;
	*out = m;
	return 0;
}

void opt_remove_mask(struct opt_table *t, struct omask *m)
{
	bool dense = m->dense;

	assert(m->n_rules == 0 && t->order[m->pos] == m);
	for (uint32_t i = m->pos + 1; i < t->n_masks; i++) {
		t->order[i - 1] = t->order[i];
		t->order[i - 1]->pos = i - 1;
	}
	t->n_masks--;
	for (uint32_t s = 0; s < t->slot_cap; s++) { /* no rules, so no pairs */
		assert(!opt_prec(t, s, m->slot) && !opt_prec(t, m->slot, s));
		t->pairs[(size_t)s * t->slot_cap + m->slot] = 0;
		t->pairs[(size_t)m->slot * t->slot_cap + s] = 0;
	}
	t->by_slot[m->slot] = NULL;
	free(m->rules);
	free(m->hot);
	free(m);
	if (dense) /* the anchor may grow back */
		opt_anchor_update(t);
	t->generation++;
	opt_update_flags(t);
}

/* A rule needs a non-zero id, known fields and values that fit their fields on its mask
 * (an IPv4 address in 32 bits, a MAC in 48, any other field in 32: opt_field_max). */
static bool rule_valid(const struct opt_rule *r)
{
	uint64_t w[OPT_F_COUNT];

	if (r->id == 0 || (r->mask.fields & ~OPT_F_ALL))
		return false;
	opt_mask_words(&r->mask, w);
	for (int f = 0; f < OPT_F_COUNT; f++) {
		bool used = r->mask.fields & (1u << f);

		if (used && opt_field_is_ip((enum opt_field)f) && r->v[f] > 0xffffffffULL)
			return false;
		if ((r->v[f] & w[f]) > opt_field_max(f))
			return false;
	}
	return true;
}


/* Does S match the microflow R's hyper copy holds? */
static bool hyper_copy_matches(const struct orule *s, const struct orule *r)
{
	uint64_t v[OPT_F_COUNT];

	opt_hdr_load(&r->flow, v);
	return opt_matches(s, v);
}

/* A new rule S kills hyper copies it is preferred over and overlaps. */
static void hyper_check_new(struct opt_table *t, const struct orule *s)
{
	for (size_t b = 0; t->hyper_n && b < t->hyper.n_buckets; b++)
		for (struct orule *r = t->hyper.b[b]; r; r = r->hy_next)
			if (r != s && opt_rule_less(s, r) && hyper_copy_matches(s, r))
				r->hyper_dead = true;
}

static int mask_push_rule(struct omask *m, struct orule *r)
{
	if (m->n_rules == m->cap_rules) {
		uint32_t nc = m->cap_rules ? m->cap_rules * 2 : 8;
		struct orule **nr = realloc(m->rules, nc * sizeof(*nr));
		uint32_t *nh;

		if (!nr)
			return -ENOMEM;
		m->rules = nr;
		nh = realloc(m->hot, nc * sizeof(*nh));
		if (!nh)
			return -ENOMEM;
		m->hot = nh;
		m->cap_rules = nc;
	}
	r->vec_idx = m->n_rules;
	m->hot[m->n_rules] = 0; /* no hits yet */
	m->rules[m->n_rules++] = r;
	return 0;
}

/* Put R (of mask M) into M's vector and the id, key and (if M is anchored) anchor hashes;
 * all or nothing. The anchor hash keeps room for every rule, anchored or not. */
static int insert_rule(struct opt_table *t, struct omask *m, struct orule *r)
{
	int rc = opt_hash_reserve(t, H_ANCHOR, t->by_id.n + 1);

	if (rc == 0)
		rc = mask_push_rule(m, r);
	if (rc < 0)
		return rc;
	rc = opt_hash_insert(t, r, H_ID);
	if (rc == 0) {
		rc = opt_hash_insert(t, r, H_KEY);
		if (rc == 0 && m->anchored) {
			rc = opt_hash_insert(t, r, H_ANCHOR);
			if (rc < 0)
				opt_hash_remove(t, r, H_KEY);
		}
		if (rc < 0)
			opt_hash_remove(t, r, H_ID);
	}
	if (rc < 0)
		m->n_rules--;
	return rc;
}

int opt_table_add_rule(struct opt_table *t, const struct opt_rule *in, uint64_t now)
{
	uint64_t v[OPT_F_COUNT];
	struct orule *r;
	struct omask *m;
	int rc;

	if (!t || !in || !rule_valid(in))
		return -EINVAL;
	if (opt_find_rule(t, in->id))
		return -EEXIST;
	if (now < t->now)
		now = t->now;
	t->now = now;
	rc = mask_get(t, &in->mask, now, &m);
	if (rc < 0)
		return rc;
	r = calloc(1, sizeof(*r) + (size_t)t->ring_len * sizeof(uint32_t));
	if (!r)
		return -ENOMEM;
	r->id = in->id;
	r->priority = in->priority;
	r->action = in->action;
	r->mask = m;
	for (int f = 0; f < OPT_F_COUNT; f++)
		v[f] = in->v[f] & m->w[f];
	opt_hdr_set(&r->flow, v);
	if (m->full)
		r->flow_seen = r->flow_single = true;
	r->last_sec = now;
	rc = insert_rule(t, m, r);
	if (rc < 0) {
		free(r);
		return rc;
	}
	opt_count_pairs(t, r, +1);
	if (!m->dense && m->n_rules >= OPT_DENSE_RULES) { /* once per mask: O(rules) */
		m->dense = true;
		opt_anchor_update(t);
	}
	t->generation++;
	hyper_check_new(t, r);
	return 0;
}

void opt_hyper_remove(struct opt_table *t, struct orule *r)
{
	if (!r->in_hyper)
		return;
	opt_hash_remove(t, r, H_HYPER);
	r->in_hyper = false;
	r->hyper_dead = false;
	t->hyper_n--;
	opt_window_take(t, r, +1); /* its hits count for its mask again */
	opt_hot_note(t, r);
}

int opt_hyper_insert(struct opt_table *t, struct orule *r)
{
	int rc;

	assert(r->flow_single);
	if (r->in_hyper)
		return 0;
	rc = opt_hash_insert(t, r, H_HYPER);
	if (rc < 0)
		return rc;
	opt_window_take(t, r, -1);
	r->in_hyper = true;
	r->hyper_dead = false;
	t->hyper_n++;
	opt_hot_note(t, r);
	return 0;
}

void opt_remove_rule(struct opt_table *t, struct orule *r)
{
	struct omask *m = r->mask;

	opt_count_pairs(t, r, -1);
	opt_hyper_remove(t, r);
	opt_window_take(t, r, -1);
	opt_hash_remove(t, r, H_ID);
	opt_hash_remove(t, r, H_KEY);
	if (m->anchored)
		opt_hash_remove(t, r, H_ANCHOR);
	assert(m->rules[r->vec_idx] == r);
	m->rules[r->vec_idx] = m->rules[--m->n_rules];
	m->hot[r->vec_idx] = m->hot[m->n_rules];
	m->rules[r->vec_idx]->vec_idx = r->vec_idx;
	t->generation++;
	free(r);
}

int opt_table_del_rule(struct opt_table *t, uint32_t id)
{
	struct orule *r = t ? opt_find_rule(t, id) : NULL;

	if (!r)
		return -ENOENT;
	opt_remove_rule(t, r);
	return 0;
}

