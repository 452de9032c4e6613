/* SPDX-License-Identifier: MIT */
/*
 * hx_through: causes that act through the flows. A point whose masks or encap contexts
 * exceed its flows is measured with the flows it needs (gen_levels_repair: each mask and
 * each encap context holds a flow's rule). When a cause's isolation point needed more flows
 * than it asked for, and at least as many as the wall of a flows cause of the same (verb,
 * metric), the symptom there is the flows' wall reached through the repair: 4,096 encap
 * contexts on an RNIC whose rules spill past 3,000 flows show the flows' cliff, not one of
 * their own. Such a cause stays a cause (the contexts do need those flows), marked as acting
 * through the flows: the report says so and the model inputs leave it out
 * (results/res_cause_dims.c), since a model over it would see the flows move, not it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/causal/hx_causal.h"

/* A supported single-member flows cause of (V, M) in A, or NULL. */
static const struct hx_cause *flows_cause(const struct hx_analysis *a, enum topo_verb v,
					  enum gen_metric m)
{
	for (unsigned i = 0; i < a->n_causes; i++) {
		const struct hx_cause *c = &a->causes[i];

		if (c->verb == v && c->metric == m && c->n_members == 1 &&
		    !strcmp(c->members[0]->name, "flows") && isfinite(c->wall[0]))
			return c;
	}
	return NULL;
}

void hx_analysis_mark_through(struct hx_analysis *a)
{
	for (unsigned i = 0; i < a->n_causes; i++) {
		struct hx_cause *c = &a->causes[i];
		const struct hx_cause *f;
		uint32_t needed;

		c->through[0] = '\0';
		if (c->n_members != 1 || c->context[0] || !strcmp(c->members[0]->name, "flows"))
			continue;
		needed = gen_levels_flows_needed(&c->shown);
		f = flows_cause(a, c->verb, c->metric);
		if (f && needed > c->shown.flows && (double)needed >= f->wall[0])
			snprintf(c->through, sizeof(c->through), "flows");
	}
}
