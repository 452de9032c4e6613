/* SPDX-License-Identifier: MIT */
/*
 * hx_cct: what the two halves of the cct strategy share (harness/causal only): the search
 * state, and the calls between the search (hx_causal.c: stress point, LSA, discovery,
 * confirmation, hidden causes) and its context references (hx_cct_context.c: a context
 * level that moves the metric by itself is judged against its own reference point).
 */
#ifndef HX_CCT_H
#define HX_CCT_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"

#define MAX_FOUND 8 /* sets one search finds at most */

/* One search: the baseline B (a context's own reference within a context search) it judges
 * against. */
struct cct {
	struct hx_eval *e;
	const struct hx_plan *p;
	const struct hx_outcome *o;
	const struct hx_baseline *b;
	struct hx_analysis *a;
	struct scn_error *err;
	/* context dimensions held at their level while the search runs against their own
	 * reference point (b, measured at base_at): never removed, named with every set found
	 * there */
	uint32_t pinned;
	struct gen_levels base_at;
};

/* Judge L against X's reference (stage "cct"); *UNDECIDED (may be NULL) when more repeats are
 * needed; R: L's result. */
int cct_judge(struct cct *x, const struct gen_levels *l, struct hx_symptom *s, bool *undecided,
	      const struct hx_point_result **r);
/* The search from AT (hx_causal.c); DEPTH: rounds of hidden causes so far. */
int cct_search(struct cct *x, const struct gen_levels *at, unsigned depth);

/* hx_cct_context.c. Whether dimension D at LEVEL shows the symptom by itself (everything
 * else at the reference point); R: that point, measured with the baseline's repeats. */
int cct_alone(struct cct *x, const struct hx_plan_dim *d, double level, bool *yes,
	      const struct hx_point_result **r);
/* Move STRESS's non-scale dimensions at neutral to the context level that makes it
 * symptomatic with the highest degradation; OWN: those that move the metric by themselves;
 * *PRESENT: whether any did. */
int cct_context_levels(struct cct *x, struct gen_levels *stress, uint32_t *own, bool *present);
/* REF: the reference point for the contexts OWN of AT (X's own with OWN at AT's levels). */
int cct_context_reference(struct cct *x, const struct gen_levels *at, uint32_t own,
			  struct hx_baseline *ref);
/* The search from AT judged against REF, with OWN held (pinned). */
int cct_search_ref(struct cct *x, const struct gen_levels *at, unsigned depth,
		   const struct hx_baseline *ref, uint32_t own);

#endif
