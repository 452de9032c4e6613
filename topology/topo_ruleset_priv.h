/* SPDX-License-Identifier: MIT */
/*
 * topo_ruleset_priv: the members of the opaque struct topo_ruleset, shared by the rule-set
 * sources of topology/ only (classify, check). Not part of the public API.
 */
#ifndef TOPO_RULESET_PRIV_H
#define TOPO_RULESET_PRIV_H

#include <stdatomic.h>

#include "topology/topo.h"
#include "topology/topo_internal.h"

/* A rule as stored: everything but its values and actions comes from its group (table,
 * priority, mask), its values are VALUE_WORDS(mask) 32-bit words at words[voff] (the
 * mask's fields in field order, the significant bits only; a MAC takes two words, low
 * half first), its action list is acts[act] (lists are interned: equal lists share one). */
struct topo__rec {
	uint32_t group, flow, act, voff;
};

/*
 * Invariants:
 *  - n_tables >= 1 (table 0 is the root); tables are never removed.
 *  - groups[0..n_groups) are sorted by (table, priority, group_seq); group_seq is unique and
 *    increases with creation; no two groups share (table, mask, priority); a group's mask
 *    is valid (topo__mask_valid) with zero padding bytes.
 *  - every rule: rec.group < n_groups, rec.voff + its group's value words <= n_words,
 *    rec.act < n_acts; the sum of groups[].n_rules equals n_rules.
 *  - acts[] are distinct (n and a[0..n) compared; entries a[n..] are zero); aix indexes
 *    them (open addressing, act id + 1, 0 = empty; aix_cap a power of two >= 2 * n_acts).
 *  - every goto argument of a rule names an existing table.
 *  - port ids are unique.
 */
struct topo_ruleset {
	size_t n_tables;
	struct topo_port *ports;
	size_t n_ports, cap_ports;
	struct topo_group *groups;
	uint64_t *group_seq;
	size_t n_groups, cap_groups, cap_seq;
	uint64_t next_seq;
	struct topo__rec *recs;
	size_t n_rules, cap_rules;
	uint32_t *words;
	size_t n_words, cap_words;
	size_t words_res; /* words that topo_ruleset_reserve_values made room for */
	struct topo_action_list *acts;
	size_t n_acts, cap_acts;
	uint32_t *aix;
	size_t aix_cap;
	/* Exact-match index (topo_index.c): NULL until the first lookup builds it; dropped by
	 * any change of the rules. */
	_Atomic(struct topo_index *) ix;
	/* Full records (struct topo_rule) for topo_ruleset_rule (topo_rules_view.c): NULL
	 * until the first call builds them; dropped by any change of the rules. */
	_Atomic(struct topo_rule *) view;
	/* Port index: open addressing on the port id; pix[i] is a port index + 1, 0 = empty.
	 * pix_cap is 0 or a power of two >= 2 * n_ports. */
	uint32_t *pix;
	size_t pix_cap;
	/* How the values of the last rule's mask are packed (topo_rules_store.c), so that a
	 * run of rules of one mask costs one AND and one or two stores per field. */
	struct topo__plan {
		bool valid;
		struct topo_mask mask;
		uint8_t nf, words;
		uint8_t field[TOPO_F_COUNT]; /* the mask's fields in field order */
		uint8_t wide[TOPO_F_COUNT];  /* 1 for a field of two words (MACs) */
		uint64_t bits[TOPO_F_COUNT]; /* significant bits of field[k] */
	} plan;
};

/* 32-bit words that the values of a rule of mask M take (see struct topo__rec). */
static inline uint32_t topo__value_words(const struct topo_mask *m)
{
	const uint32_t macs = (1u << TOPO_F_ETH_SRC) | (1u << TOPO_F_ETH_DST);
	uint32_t f = m->fields & ((1u << TOPO_F_COUNT) - 1);

	return (uint32_t)(topo__popcount(f) + topo__popcount(f & macs));
}

/* Rule storage (topo_rules_store.c). Rule I's values (0 for fields not in its mask), its
 * match (mask and values), its action list, and the whole record as topo_ruleset_rule
 * shows it. */
void topo__rule_values(const struct topo_ruleset *rs, size_t i, uint64_t v[TOPO_F_COUNT]);
void topo__rule_match(const struct topo_ruleset *rs, size_t i, struct topo_match *out);
static inline const struct topo_action_list *topo__rule_actions(const struct topo_ruleset *rs,
								 size_t i)
{
	return &rs->acts[rs->recs[i].act];
}
void topo__rule_get(const struct topo_ruleset *rs, size_t i, struct topo_rule *out);
/* Id of the action list A (interned: added when new), or -ENOMEM. */
long topo__intern_actions(struct topo_ruleset *rs, const struct topo_action_list *a);
/* Rebuild the action-list index of acts[0..n_acts) with room for N lists. 0 or -ENOMEM. */
int topo__actions_reindex(struct topo_ruleset *rs, size_t n);
/* In place of *TAB, a zeroed open-addressing table of 32-bit slots for N entries (*CAP: a
 * power of two, at least 2N + 2); -ENOMEM leaves *TAB as it was (topo_ruleset.c). */
int topo__index_alloc(uint32_t **tab, size_t *cap, size_t n);
/* Append the words of values V under mask M (cut to M's bits); returns their offset, or
 * -ENOMEM / -ENOSPC. */
long topo__pack_values(struct topo_ruleset *rs, const struct topo_mask *m,
		       const uint64_t v[TOPO_F_COUNT]);
/* Append the words of the N value arrays V under mask M (as topo__pack_values, the plan
 * looked up once); rule i's words start at *OFF + i * topo__value_words(M). 0, -ENOMEM or
 * -ENOSPC (nothing appended). */
int topo__pack_many(struct topo_ruleset *rs, const struct topo_mask *m, size_t n,
		    const uint64_t (*v)[TOPO_F_COUNT], size_t *off);
/* Grow *ARR (element size SZ) so that it holds at least NEED elements: doubling (grow) or
 * to exactly NEED (reserve: a builder that knows its sizes). 0 or -ENOMEM. */
int topo__grow(void **arr, size_t *cap, size_t need, size_t sz);
int topo__reserve(void **arr, size_t *cap, size_t need, size_t sz);

/* Large rule storage kept for the next rule set (topo_blocks.c): arrays of at least
 * TOPO_BLOCK_MIN bytes. take: a kept malloc block of at least BYTES (at most twice that), or
 * NULL (then malloc); put: P (BYTES long; NULL ok) kept, or freed. */
#define TOPO_BLOCK_MIN ((size_t)256 << 10)
void *topo__block_take(size_t bytes);
void topo__block_put(void *p, size_t bytes);

/* The full records (topo_rules_view.c): built on first use, NULL when out of memory;
 * dropped after a change; their bytes (0 when none). */
const struct topo_rule *topo__view_get(const struct topo_ruleset *rs);
void topo__view_drop(struct topo_ruleset *rs);
size_t topo__view_bytes(const struct topo_ruleset *rs);

/* Index maintenance (topo_index.c): drop it (after a change), its bytes (0 when none). */
struct topo_index;
void topo__index_drop(struct topo_ruleset *rs);
size_t topo__index_bytes(const struct topo_ruleset *rs);
/* Lowest-index rule of group G whose match the header values PKT hit, or -1. */
long topo__index_find(const struct topo_ruleset *rs, size_t g, const uint64_t pkt[TOPO_F_COUNT]);

#endif
