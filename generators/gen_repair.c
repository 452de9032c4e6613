/* SPDX-License-Identifier: MIT */
/*
 * gen_repair: the smallest flow count a point's rule sets can be built with, and the one
 * repair scalacn makes to a point that asks for fewer (see gen.h). Every matching mask needs
 * a flow of its own shape and every encap context a flow that uses it, so a point with M
 * masks on some table or C contexts needs max(M, C) flows; flows = 0 (no rules) needs none.
 */
#include "generators/gen.h"

uint32_t gen_levels_flows_needed(const struct gen_levels *l)
{
	uint32_t need = l->encap_contexts;

	for (int h = 0; h < GEN_HOSTS; h++)
		for (int d = 0; d < GEN_DIRS; d++)
			if (l->masks[h][d] > need)
				need = l->masks[h][d];
	return need;
}

bool gen_levels_repair(struct gen_levels *l)
{
	uint32_t need = gen_levels_flows_needed(l);

	if (l->flows == 0 || l->flows >= need)
		return false;
	l->flows = need;
	return true;
}
