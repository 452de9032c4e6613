/* SPDX-License-Identifier: MIT */
/*
 * topo_index: the exact-match index of a rule set. Every rule of a group shares the group's
 * mask, so a packet hits a rule of the group iff the packet's header values, cut to the
 * mask's bits, equal the rule's (normalised) values: one hash probe per group instead of a
 * scan. Keys use the group's creation number, which never changes when groups are inserted.
 */
#include "topology/topo.h"
#include "topology/topo_internal.h"
#include "topology/topo_ruleset_priv.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY UINT32_MAX

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

/* key_of for a rule: its values are normalised (already cut to the mask), so the same key
 * comes out without cutting them again. */
static uint64_t rule_key(const struct topo_ruleset *rs, size_t i)
{
	const struct topo_rule *r = &rs->rules[i];
	uint32_t fields = rs->groups[r->group].mask.fields;
	uint64_t h = mix(0x12345678ull, rs->group_seq[r->group]);

	for (unsigned f = 0; f < TOPO_F_COUNT; f++)
		if (fields & (1u << f))
			h = mix(h, r->match.value[f]);
	return h;
}

static void put(struct topo_ruleset *rs, uint64_t key, uint32_t rule)
{
	size_t i = (size_t)key & (rs->ix_cap - 1);

	assert(rs->ix_cap && !(rs->ix_cap & (rs->ix_cap - 1)));
	while (rs->ix_rule[i] != EMPTY)
		i = (i + 1) & (rs->ix_cap - 1);
	rs->ix_key[i] = key;
	rs->ix_rule[i] = rule;
}

/* Resize to CAP slots and insert rules [0, upto). */
static int resize(struct topo_ruleset *rs, size_t cap, size_t upto)
{
	uint64_t *k = malloc(cap * sizeof(*k));
	uint32_t *r = malloc(cap * sizeof(*r));

	if (!k || !r) {
		free(k);
		free(r);
		return -ENOMEM;
	}
	memset(r, 0xff, cap * sizeof(*r));
	free(rs->ix_key);
	free(rs->ix_rule);
	rs->ix_key = k;
	rs->ix_rule = r;
	rs->ix_cap = cap;
	for (size_t i = 0; i < upto; i++)
		put(rs, rule_key(rs, i), (uint32_t)i);
	return 0;
}

int topo__index_rebuild(struct topo_ruleset *rs)
{
	size_t cap = 64;

	while (cap < 2 * rs->n_rules + 2)
		cap *= 2;
	return resize(rs, cap, rs->n_rules);
}

int topo__index_reserve(struct topo_ruleset *rs, size_t n_rules)
{
	size_t cap = rs->ix_cap ? rs->ix_cap : 64;

	if (rs->ix_cap >= 2 * n_rules + 2)
		return 0;
	while (cap < 2 * n_rules + 2)
		cap *= 2;
	return resize(rs, cap, rs->n_rules);
}

int topo__index_add(struct topo_ruleset *rs, size_t rule)
{
	if (rs->ix_cap < 2 * (rule + 1) + 2) {
		size_t cap = rs->ix_cap ? rs->ix_cap : 64;

		while (cap < 2 * (rule + 1) + 2)
			cap *= 2;
		return resize(rs, cap, rule + 1);
	}
	put(rs, rule_key(rs, rule), (uint32_t)rule);
	return 0;
}

long topo__index_find(const struct topo_ruleset *rs, size_t g, const uint64_t pkt[TOPO_F_COUNT])
{
	uint64_t key;
	long best = -1;

	if (!rs->ix_cap) { /* no index (allocation failed): scan */
		for (size_t i = 0; i < rs->n_rules; i++)
			if (rs->rules[i].group == g && topo_match_hits(&rs->rules[i].match, pkt))
				return (long)i;
		return -1;
	}
	key = key_of(rs, g, pkt);
	for (size_t i = (size_t)key & (rs->ix_cap - 1); rs->ix_rule[i] != EMPTY;
	     i = (i + 1) & (rs->ix_cap - 1)) {
		const struct topo_rule *r;

		if (rs->ix_key[i] != key)
			continue;
		r = &rs->rules[rs->ix_rule[i]];
		if (r->group == g && topo_match_hits(&r->match, pkt) &&
		    (best < 0 || (long)rs->ix_rule[i] < best))
			best = (long)rs->ix_rule[i];
	}
	return best;
}
