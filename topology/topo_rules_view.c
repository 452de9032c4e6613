/* SPDX-License-Identifier: MIT */
/*
 * topo_rules_view: the full rule records (struct topo_rule) behind topo_ruleset_rule. Rules
 * are stored compactly (topo_rules_store.c); the first call of topo_ruleset_rule unpacks all
 * of them into one array, which later calls index. Building and scanning a rule set (what a
 * campaign does per point, topo_ruleset_rule_copy) never pays for it; readers that want
 * pointers (the replay's layouts, the tc renderer, tests) pay once per rule set.
 *
 * As the exact-match index (topo_index.c), the array is published with an atomic
 * compare-and-swap: threads that read the same finished (shared, read-only) rule set at once
 * build at most one array each and all use the one that won. Changing the rule set drops it.
 */
#include "topology/topo.h"
#include "topology/topo_ruleset_priv.h"

#include <stdlib.h>

static struct topo_rule *view_build(const struct topo_ruleset *rs)
{
	struct topo_rule *v = malloc((rs->n_rules ? rs->n_rules : 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < rs->n_rules; i++)
		topo__rule_get(rs, i, &v[i]);
	return v;
}

const struct topo_rule *topo__view_get(const struct topo_ruleset *rs)
{
	struct topo_ruleset *w = (struct topo_ruleset *)rs; /* the view slot only */
	struct topo_rule *v = atomic_load_explicit(&w->view, memory_order_acquire), *none = NULL;

	if (v)
		return v;
	v = view_build(rs);
	if (v && !atomic_compare_exchange_strong_explicit(&w->view, &none, v,
							   memory_order_acq_rel,
							   memory_order_acquire)) {
		free(v); /* another thread published one first */
		v = none;
	}
	return v;
}

void topo__view_drop(struct topo_ruleset *rs)
{
	free(atomic_exchange_explicit(&rs->view, NULL, memory_order_acq_rel));
}

size_t topo__view_bytes(const struct topo_ruleset *rs)
{
	const struct topo_rule *v = atomic_load_explicit(&rs->view, memory_order_acquire);

	return v ? (rs->n_rules ? rs->n_rules : 1) * sizeof(*v) : 0;
}
