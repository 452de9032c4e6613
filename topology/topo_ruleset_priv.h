/* SPDX-License-Identifier: MIT */
/*
 * topo_ruleset_priv: the members of the opaque struct topo_ruleset, shared by the rule-set
 * sources of topology/ only (classify, check). Not part of the public API.
 */
#ifndef TOPO_RULESET_PRIV_H
#define TOPO_RULESET_PRIV_H

#include <stdatomic.h>

#include "topology/topo.h"

/*
 * Invariants:
 *  - n_tables >= 1 (table 0 is the root); tables are never removed.
 *  - groups[0..n_groups) are sorted by (table, priority, group_seq); group_seq is unique and
 *    increases with creation; no two groups share (table, mask, priority).
 *  - every rule: rule.group < n_groups, and groups[rule.group] has the rule's table,
 *    priority and mask; the sum of groups[].n_rules equals n_rules.
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
	struct topo_rule *rules;
	size_t n_rules, cap_rules;
	/* Exact-match index (topo_index.c): NULL until the first lookup builds it; dropped by
	 * any change of the rules. */
	_Atomic(struct topo_index *) ix;
	/* Port index: open addressing on the port id; pix[i] is a port index + 1, 0 = empty.
	 * pix_cap is 0 or a power of two >= 2 * n_ports. */
	uint32_t *pix;
	size_t pix_cap;
	/* The significant bits per field of the mask of the last rule added (norm_mask), so that
	 * normalising a run of rules of one mask costs one AND per field. */
	bool norm_valid;
	struct topo_mask norm_mask;
	uint64_t norm_bits[TOPO_F_COUNT];
};

/* Index maintenance (topo_index.c): drop it (after a change), its bytes (0 when none). */
struct topo_index;
void topo__index_drop(struct topo_ruleset *rs);
size_t topo__index_bytes(const struct topo_ruleset *rs);
/* Lowest-index rule of group G whose match the header values PKT hit, or -1. */
long topo__index_find(const struct topo_ruleset *rs, size_t g, const uint64_t pkt[TOPO_F_COUNT]);

#endif
