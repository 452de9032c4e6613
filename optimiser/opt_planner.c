/* SPDX-License-Identifier: MIT */
/*
 * The planner helpers shared by both steps of a tick (opt_tick.c plans hyper and idle ops,
 * opt_order.c the mask moves): what an op on a mask's rule group costs, spending it from the
 * update budget, and the scratch list of the rule ids an op carries. They use nothing of
 * either step, so both depend on this file and it on neither.
 */
#include <errno.h>
#include <stdlib.h>

#include "optimiser/opt_priv.h"

/* Spend COST tokens; a group larger than the budget passes only on a full bucket (debt). */
bool opt_spend(struct planner *pl, uint32_t cost)
{
	struct opt_table *t = pl->t;

	if ((double)cost <= t->tokens || t->tokens >= (double)t->cfg.update_budget) {
		t->tokens -= cost;
		pl->p->info.cost += cost;
		return true;
	}
	pl->p->info.deferred++;
	return false;
}

int opt_mask_ids(struct planner *pl, const struct omask *m)
{
	if (m->n_rules > pl->cap_ids) {
		uint32_t *n = realloc(pl->ids, m->n_rules * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pl->ids = n;
		pl->cap_ids = m->n_rules;
	}
	for (uint32_t i = 0; i < m->n_rules; i++)
		pl->ids[i] = m->rules[i]->id;
	pl->n_ids = m->n_rules;
	return 0;
}

uint32_t opt_group_cost(const struct omask *m)
{
	return m->n_rules ? m->n_rules : 1;
}
