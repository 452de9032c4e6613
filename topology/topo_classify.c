/* SPDX-License-Identifier: MIT */
/*
 * topo_classify: classify a packet the way an mlx5-style eSwitch does. Start at the root
 * table; probe its mask groups in priority order (one hash probe per group, counted in
 * *probes); the first group with a hit wins; a goto continues in the target table.
 * Assumes the rule set invariants of topo_ruleset_priv.h (groups sorted by table).
 */
#include "topology/topo.h"
#include "topology/topo_internal.h"
#include "topology/topo_ruleset_priv.h"

#include <errno.h>

/* First group index of table T (groups are sorted by table). */
static size_t first_group(const struct topo_ruleset *rs, uint32_t t)
{
	size_t lo = 0, hi = rs->n_groups;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs->groups[mid].table < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The goto target of a rule, or -1: its first terminal action decides (later ones never
 * run), as in the checks. */
static long goto_target(const struct topo_action_list *a)
{
	for (unsigned i = 0; i < a->n; i++)
		if (topo_action_is_terminal(a->a[i].kind))
			return a->a[i].kind == TOPO_ACT_GOTO ? (long)a->a[i].arg : -1;
	return -1;
}

int topo_ruleset_classify(const struct topo_ruleset *rs, const uint64_t pkt[TOPO_F_COUNT],
			  int *rule, unsigned *probes)
{
	uint32_t table = 0;
	unsigned n_probes = 0;
	int hit = -1;

	if (!rs || !pkt)
		return -EINVAL;
	for (size_t hops = 0;; hops++) {
		long found = -1;
		long target;

		if (hops > rs->n_tables) {
			if (rule)
				*rule = -1;
			if (probes)
				*probes = n_probes;
			return -ELOOP;
		}
		for (size_t g = first_group(rs, table); g < rs->n_groups; g++) {
			if (rs->groups[g].table != table)
				break;
			n_probes++;
			found = topo__index_find(rs, g, pkt);
			if (found >= 0)
				break;
		}
		hit = (int)found;
		if (found < 0)
			break;
		target = goto_target(topo__rule_actions(rs, (size_t)found));
		if (target < 0)
			break;
		table = (uint32_t)target;
	}
	if (rule)
		*rule = hit;
	if (probes)
		*probes = n_probes;
	return 0;
}
