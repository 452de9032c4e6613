/* SPDX-License-Identifier: MIT */
/*
 * hx_verdict: a campaign's verdict with its causes. The campaign room judges criteria, walls
 * and the budget (hx_outcome_exit); a cause the analysis supports fails the plan too when it
 * lies inside the qualified ranges, so a run never says QUALIFIED beside a cause that hurts
 * at levels the plan qualifies.
 */
#include <math.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"

bool hx_cause_in_range(const struct hx_plan *p, const struct hx_cause *c)
{
	for (unsigned k = 0; k < c->n_members; k++) {
		double level = isnan(c->wall[k]) ? c->at[k] : c->wall[k];

		if (!hx_in_qualified_range(p, c->members[k], level))
			return false;
	}
	return c->n_members > 0;
}

int hx_verdict_exit(const struct hx_plan *p, struct hx_outcome *o)
{
	int code = hx_outcome_exit(p, o);
	struct hx_analysis *a = o->analysis;

	for (unsigned i = 0; a && i < a->n_causes; i++) {
		a->causes[i].in_range = hx_cause_in_range(p, &a->causes[i]);
		if (a->causes[i].in_range)
			code = 1;
	}
	return code;
}

unsigned hx_analysis_in_range(const struct hx_analysis *a)
{
	unsigned n = 0;

	for (unsigned i = 0; a && i < a->n_causes; i++)
		n += a->causes[i].in_range;
	return n;
}
