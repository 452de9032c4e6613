/* SPDX-License-Identifier: MIT */
/*
 * topo_index: the exact-match index of a rule set. Every rule of a group shares the group's
 * mask, so a packet hits a rule of the group iff the packet's header values, cut to the
 * mask's bits, equal the rule's (normalised) values: one hash probe per group instead of a
 * scan. Keys use the group's creation number, which never changes when groups are inserted.
 *
 * The index is built on the first lookup, not while rules are added: building a rule set
 * (what a campaign does per point) then costs no hashing, and only rule sets that are
 * classified or checked pay for it, once. It is published with an atomic compare-and-swap,
 * so threads that look up in the same finished (shared, read-only) rule set at once build at
 * most one index each and all use the one that won. Changing the rule set drops it.
 */
#include "topology/topo.h"
#include "topology/topo_internal.h"
#include "topology/topo_ruleset_priv.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY UINT32_MAX

/* Open addressing over (group_seq, values under the group's mask); rule[i] == EMPTY marks an
 * empty slot. Holds every rule of the rule set it was built for; cap is a power of two
 * >= 2 * n_rules + 2. */
struct topo_index {
	uint64_t *key;
	uint32_t *rule;
	size_t cap;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return h;
}

/* Key of header values V under group G's mask (V cut to the mask's bits). */
static uint64_t key_of(const struct topo_ruleset *rs, size_t g, const uint64_t v[TOPO_F_COUNT])
{
	const struct topo_mask *m = &rs->groups[g].mask;
	uint64_t h = mix(0x12345678ull, rs->group_seq[g]);

	for (unsigned f = 0; f < TOPO_F_COUNT; f++)
		if (m->fields & (1u << f))
			h = mix(h, v[f] & topo__field_bits(m, (enum topo_field)f));
	return h;
}

static void index_free(struct topo_index *ix)
{
	if (!ix)
		return;
	free(ix->key);
	free(ix->rule);
	free(ix);
}

static struct topo_index *index_build(const struct topo_ruleset *rs)
{
	struct topo_index *ix = calloc(1, sizeof(*ix));
	size_t cap = 64;

	while (cap < 2 * rs->n_rules + 2)
		cap *= 2;
	if (ix) {
		ix->key = malloc(cap * sizeof(*ix->key));
		ix->rule = malloc(cap * sizeof(*ix->rule));
		ix->cap = cap;
	}
	if (!ix || !ix->key || !ix->rule) {
		index_free(ix);
		return NULL;
	}
	memset(ix->rule, 0xff, cap * sizeof(*ix->rule));
	for (size_t i = 0; i < rs->n_rules; i++) {
		uint64_t v[TOPO_F_COUNT], key;
		size_t k;

		topo__rule_values(rs, i, v); /* normalised: key_of cuts nothing more */
		key = key_of(rs, rs->recs[i].group, v);
		k = (size_t)key & (cap - 1);

		while (ix->rule[k] != EMPTY)
			k = (k + 1) & (cap - 1);
		ix->key[k] = key;
		ix->rule[k] = (uint32_t)i;
	}
	return ix;
}

/* The index of RS, built now if there is none (NULL when out of memory). */
static const struct topo_index *index_get(const struct topo_ruleset *rs)
{
	struct topo_ruleset *w = (struct topo_ruleset *)rs; /* the index slot only */
	struct topo_index *ix = atomic_load_explicit(&w->ix, memory_order_acquire), *none = NULL;

	if (ix)
		return ix;
	ix = index_build(rs);
	if (ix && !atomic_compare_exchange_strong_explicit(&w->ix, &none, ix,
							   memory_order_acq_rel,
							   memory_order_acquire)) {
		index_free(ix); /* another thread published one first */
		ix = none;
	}
	return ix;
}

void topo__index_drop(struct topo_ruleset *rs)
{
	index_free(atomic_exchange_explicit(&rs->ix, NULL, memory_order_acq_rel));
}

size_t topo__index_bytes(const struct topo_ruleset *rs)
{
	const struct topo_index *ix = atomic_load_explicit(&rs->ix, memory_order_acquire);

	return ix ? sizeof(*ix) + ix->cap * (sizeof(*ix->key) + sizeof(*ix->rule)) : 0;
}

static bool rule_hits(const struct topo_ruleset *rs, size_t i, const uint64_t pkt[TOPO_F_COUNT])
{
	struct topo_match m;

	topo__rule_match(rs, i, &m);
	return topo_match_hits(&m, pkt);
}

long topo__index_find(const struct topo_ruleset *rs, size_t g, const uint64_t pkt[TOPO_F_COUNT])
{
	const struct topo_index *ix = index_get(rs);
	uint64_t key;
	long best = -1;

	if (!ix) { /* no index (allocation failed): scan */
		for (size_t i = 0; i < rs->n_rules; i++)
			if (rs->recs[i].group == g && rule_hits(rs, i, pkt))
				return (long)i;
		return -1;
	}
	key = key_of(rs, g, pkt);
	for (size_t i = (size_t)key & (ix->cap - 1); ix->rule[i] != EMPTY;
	     i = (i + 1) & (ix->cap - 1)) {
		if (ix->key[i] != key)
			continue;
		if (rs->recs[ix->rule[i]].group == g && rule_hits(rs, ix->rule[i], pkt) &&
		    (best < 0 || (long)ix->rule[i] < best))
			best = (long)ix->rule[i];
	}
	return best;
}
