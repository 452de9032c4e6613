/* SPDX-License-Identifier: MIT */
/*
 * gen_layout_cov: what a point's rule layout (gen_layout.c) did to where its traffic goes,
 * as two numbers the harness can compute from the rules it built and the traffic it sent
 * (nothing a testbed reports): covariates that explain part of the spread between a point's
 * layouts, so that `fit` can take it out of the point's value (a control variate,
 * harness/fit/hx_fit_layout.c).
 *
 *  - walk: over every side (host and direction) with offloaded rules, the traffic-weighted
 *    mean position of a flow's rule among the groups its direction walks in its table
 *    (groups in priority order, the first at 1), summed over the sides. A layout that puts
 *    the popular flows in late masks has a larger walk. Each side's term is kept too
 *    (side[h][d]): a bandwidth is set by its slowest side, a latency by their sum.
 * It comes with its mean over layouts (walk_mean): its value when a flow's place is drawn
 * uniformly, i.e. the unweighted mean over the side's rules. A layout's deviation from the
 * mean is what a control variate uses.
 */
#ifndef GEN_LAYOUT_COV_H
#define GEN_LAYOUT_COV_H

#include "generators/gen.h"

struct gen_layout_cov {
	double walk, walk_mean;
	unsigned sides; /* sides with rules that carry flows */
	/* The same per side (host, direction): its walk and its mean over layouts; 0 and 0
	 * for a side without such rules. walk and walk_mean are their sums. */
	double side[GEN_HOSTS][GEN_DIRS], side_mean[GEN_HOSTS][GEN_DIRS];
};

/* The covariates of rule sets R under traffic T (R->flows flows). 0, or -ENOMEM. */
int gen_layout_cov(const struct gen_rules *r, const struct gen_traffic *t,
		   struct gen_layout_cov *out);

#endif
