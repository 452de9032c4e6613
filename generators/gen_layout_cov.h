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
 * uniformly, i.e. the unweighted mean over the side's rules. And with the even walk
 * (walk_even): the unweighted mean over the side's groups, the walk when every mask holds
 * as many flows. The two differ when F flows do not divide evenly over m masks: the deal
 * gives the first F mod m masks one rule more, and the mean position falls by
 * (F mod m)(m - F mod m) / (2F) (256 flows over 104 masks: 47.25 against 52.5), a saw-tooth
 * in m that no smooth function of the mask count follows. A layout's deviation from the
 * even walk is what a control variate uses (harness/fit/hx_fit_layout.c).
 *
 *  - software share (gen_layout_sw): past a table's capacity the rules programmed last stay
 *    in software (tc's not_in_hw: the driver refuses them once the table is full), and a
 *    packet whose path has such a rule takes the vswitch's slow path. Given how many rules
 *    the hosts kept in hardware between them (the testbed's tc_in_hw gauge), the traffic
 *    share of each direction (client->server, server->client) whose flow has a rule in
 *    software on its path (the sender's encap, the receiver's decap), and the share of flows
 *    that do. The two agree on average over layouts (a layout moves every flow's place
 *    evenly over the insertion order); their difference is how much of the popular traffic
 *    this layout put late.
 */
#ifndef GEN_LAYOUT_COV_H
#define GEN_LAYOUT_COV_H

#include "generators/gen.h"

struct gen_layout_cov {
	double walk, walk_mean, walk_even;
	unsigned sides; /* sides with rules that carry flows */
	/* The same per side (host, direction): its walk and its mean over layouts; 0 and 0
	 * for a side without such rules. walk and walk_mean are their sums. */
	double side[GEN_HOSTS][GEN_DIRS], side_mean[GEN_HOSTS][GEN_DIRS];
	double side_even[GEN_HOSTS][GEN_DIRS]; /* each side's even walk; walk_even their sum */
};

/* The covariates of rule sets R under traffic T (R->flows flows). 0, or -ENOMEM. */
int gen_layout_cov(const struct gen_rules *r, const struct gen_traffic *t,
		   struct gen_layout_cov *out);

/* The software covariate of rule sets R under traffic T when the hosts keep IN_HW rules in
 * hardware between them (NAN or at least all rules: none in software). The gauge is one sum
 * over both hosts; its split assumes one capacity for both (the same RNIC model): each host
 * keeps its first min(rules, C) rules, with C such that they add up to IN_HW. */
enum { GEN_SW_FWD = 0, GEN_SW_REV = 1, GEN_SW_PATHS = 2 };
struct gen_layout_sw {
	double share[GEN_SW_PATHS];  /* traffic share with a rule in software on its path */
	double flows[GEN_SW_PATHS];  /* share of flows with one (0: no rule in software) */
};
int gen_layout_sw(const struct gen_rules *r, const struct gen_traffic *t, double in_hw,
		  struct gen_layout_sw *out);

#endif
