/* SPDX-License-Identifier: MIT */
/*
 * gen_layout_cov: a rule layout's walk covariate (gen_layout_cov.h), from the
 * rules as stored (their group, flow and action list; groups are ordered by table and
 * priority) and the traffic's flow weights. One pass to tell each group's direction (its
 * rules' first action: encap or decap), one to number the groups along each direction's
 * walk, one over the rules. O(rules + groups + flows). The software covariate
 * (gen_layout_sw) walks each host's rules past what it kept in hardware: O(rules + flows).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generators/gen_layout_cov.h"
#include "generators/gen_packet.h"
#include "topology/topo.h"

/* Sums of one side (a host's direction): weighted and plain positions of its rules, and
 * the positions of its groups. */
struct side_sum {
	double w, walk, n, pos_sum;
	double groups, group_pos_sum;
};

/* Direction of rule list ACT: 0 encap, 1 decap, -1 neither (a goto, a plain forward). */
static int act_dir(const struct topo_ruleset *rs, uint32_t act)
{
	const struct topo_action_list *a = topo_ruleset_action_list(rs, act);

	if (!a || a->n == 0)
		return -1;
	return a->a[0].kind == TOPO_ACT_ENCAP ? 0 : a->a[0].kind == TOPO_ACT_DECAP ? 1 : -1;
}

/* POS[g]: group g's place (from 1) on the walk of its direction in its table, 0 for a
 * group of no direction; DIR[g] its direction. */
static void number_groups(const struct topo_ruleset *rs, signed char *dir, uint32_t *pos)
{
	size_t ng = topo_ruleset_n_groups(rs), nr = topo_ruleset_n_rules(rs);
	uint32_t count[2] = { 0, 0 }, table = UINT32_MAX;

	for (size_t g = 0; g < ng; g++)
		dir[g] = -1;
	for (size_t i = 0; i < nr; i++) {
		struct topo_rule_packed p;

		if (topo_ruleset_rule_packed(rs, i, &p) == 0 && p.flow && dir[p.group] < 0)
			dir[p.group] = (signed char)act_dir(rs, p.act);
	}
	for (size_t g = 0; g < ng; g++) {
		const struct topo_group *G = topo_ruleset_group(rs, g);

		if (G->table != table) {
			table = G->table;
			count[0] = count[1] = 0;
		}
		pos[g] = dir[g] >= 0 ? ++count[dir[g]] : 0;
	}
}

/* Add host RS's sides to SUM (two of them) under flow weights W (N flows). */
static void host_sums(const struct topo_ruleset *rs, const double *w, uint32_t n,
		      const signed char *dir, const uint32_t *pos, struct side_sum *sum)
{
	size_t nr = topo_ruleset_n_rules(rs);
	struct topo_rule_packed p;

	for (size_t i = 0; i < nr; i++) {
		struct side_sum *s;
		double wf;

		if (topo_ruleset_rule_packed(rs, i, &p) || !p.flow || p.flow > n || dir[p.group] < 0)
			continue;
		s = &sum[dir[p.group]];
		wf = w[p.flow - 1];
		s->w += wf;
		s->walk += wf * pos[p.group];
		s->pos_sum += pos[p.group];
		s->n += 1;
	}
	for (size_t g = 0; g < topo_ruleset_n_groups(rs); g++)
		if (dir[g] >= 0) {
			sum[dir[g]].groups += 1;
			sum[dir[g]].group_pos_sum += pos[g];
		}
}

static void add_side(const struct side_sum *s, int h, int d, struct gen_layout_cov *out)
{
	if (!(s->w > 0) || s->n == 0)
		return;
	out->side[h][d] = s->walk / s->w;
	out->side_mean[h][d] = s->pos_sum / s->n;
	out->side_even[h][d] = s->groups > 0 ? s->group_pos_sum / s->groups : out->side_mean[h][d];
	out->walk += out->side[h][d];
	out->walk_mean += out->side_mean[h][d];
	out->walk_even += out->side_even[h][d];
	out->sides++;
}

int gen_layout_cov(const struct gen_rules *r, const struct gen_traffic *t,
		   struct gen_layout_cov *out)
{
	double *w = malloc((r->flows ? r->flows : 1) * sizeof(*w));
	int rc = 0;

	*out = (struct gen_layout_cov){ 0 };
	if (!w)
		return -ENOMEM;
	gen_flow_weights(t, r->flows, w);
	for (int h = 0; h < GEN_HOSTS && rc == 0; h++) {
		const struct topo_ruleset *rs = r->host[h];
		size_t ng = rs ? topo_ruleset_n_groups(rs) : 0;
		signed char *dir = malloc(ng ? ng : 1);
		uint32_t *pos = malloc((ng ? ng : 1) * sizeof(*pos));
		struct side_sum sum[2];

		memset(sum, 0, sizeof(sum));
		if (!dir || !pos) {
			rc = -ENOMEM;
		} else if (rs) {
			number_groups(rs, dir, pos);
			host_sums(rs, w, r->flows, dir, pos, sum);
			add_side(&sum[0], h, 0, out);
			add_side(&sum[1], h, 1, out);
		}
		free(dir);
		free(pos);
	}
	free(w);
	return rc;
}

/* How many of its N[h] rules each host keeps in hardware when they keep IN_HW between them
 * (IN_HW < N[0] + N[1]): the first min(N[h], C) with C filled up to IN_HW. */
static void hw_kept(const size_t n[GEN_HOSTS], double in_hw, size_t keep[GEN_HOSTS])
{
	size_t lo = n[0] <= n[1] ? n[0] : n[1];
	double c = in_hw / 2 <= (double)lo ? in_hw / 2 : in_hw - (double)lo;

	c = floor(fmax(c, 0));
	for (int h = 0; h < GEN_HOSTS; h++)
		keep[h] = (double)n[h] < c ? n[h] : (size_t)c;
}

/* Mark in SW[f] (bit GEN_SW_FWD or GEN_SW_REV) the flows of host H's rules from KEEP on:
 * a send-side (encap) rule on the client and a receive-side (decap) one on the server carry
 * client->server packets, the others server->client. 0, or -ENOMEM. */
static int mark_software(const struct topo_ruleset *rs, int h, size_t keep, uint32_t n,
			 uint8_t *sw)
{
	size_t ng = topo_ruleset_n_groups(rs), nr = topo_ruleset_n_rules(rs);
	signed char *dir = malloc(ng ? ng : 1);
	uint32_t *pos = malloc((ng ? ng : 1) * sizeof(*pos));
	struct topo_rule_packed p;

	if (!dir || !pos) {
		free(dir);
		free(pos);
		return -ENOMEM;
	}
	number_groups(rs, dir, pos);
	for (size_t i = keep; i < nr; i++) {
		int d;

		if (topo_ruleset_rule_packed(rs, i, &p) || !p.flow || p.flow > n ||
		    (d = dir[p.group]) < 0)
			continue;
		sw[p.flow - 1] |= (uint8_t)(1u << ((h == GEN_CLIENT) == (d == GEN_ENCAP)
							   ? GEN_SW_FWD : GEN_SW_REV));
	}
	free(dir);
	free(pos);
	return 0;
}

int gen_layout_sw(const struct gen_rules *r, const struct gen_traffic *t, double in_hw,
		  struct gen_layout_sw *out)
{
	size_t n[GEN_HOSTS], keep[GEN_HOSTS];
	uint32_t nf = r->flows ? r->flows : 1;
	double *w;
	uint8_t *sw;
	int rc = 0;

	*out = (struct gen_layout_sw){ 0 };
	for (int h = 0; h < GEN_HOSTS; h++)
		n[h] = r->host[h] ? topo_ruleset_n_rules(r->host[h]) : 0;
	if (!(in_hw < (double)(n[0] + n[1])))
		return 0;
	hw_kept(n, in_hw, keep);
	w = malloc(nf * sizeof(*w));
	sw = calloc(nf, 1);
	if (!w || !sw) {
		free(w);
		free(sw);
		return -ENOMEM;
	}
	gen_flow_weights(t, r->flows, w);
	for (int h = 0; h < GEN_HOSTS && rc == 0; h++)
		if (r->host[h])
			rc = mark_software(r->host[h], h, keep[h], r->flows, sw);
	for (uint32_t f = 0; f < r->flows && rc == 0; f++)
		for (int k = 0; k < GEN_SW_PATHS; k++)
			if (sw[f] & (1u << k)) {
				out->share[k] += w[f];
				out->flows[k] += 1.0 / r->flows;
			}
	free(w);
	free(sw);
	return rc;
}
