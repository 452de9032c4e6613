/* SPDX-License-Identifier: MIT */
/*
 * hx_replay_layout: realise each replay policy's layout (hx_replay.h) as the rule sets of
 * the generators' two-host testbed and measure them (tb_apply + tb_measure), so the numbers
 * come from the testbed, never from the replay's own probe counts.
 *
 * The testbed point: the layout's flows (rank r = generator flow r, so the traffic's
 * popularity, fitted to the window's packets, weights them as the trace did), one encap mask
 * on the client (the send path is not what the policies change), the layout's masks as the
 * server's decap masks (the receive path, where masks hurt), the return paths not offloaded,
 * one encap context per subnet. gen_rules_build gives the rules and the decap mask shapes;
 * the server's rule set is then rebuilt per policy with the same ports, the same non-decap
 * rules and one decap rule per flow in the shape of the flow's layout mask:
 *   - the front cache (hyper mask / EMC), when it holds flows, is one group whose mask is
 *     every field (IP /32) at the first decap priority, holding an exact copy (the flow's
 *     full header and action) of each cached flow's rule; the original rule stays in its
 *     mask with flow id 0 (no traffic reaches it: the copy matches first), the copy carries
 *     the flow id;
 *   - mask k of the policy's order is the group at the next priorities, in order.
 * Rules are inserted in priority order (copies first), so a testbed that keeps the earliest
 * rules when it runs out of room keeps the front of the layout.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/gen_packet.h"
#include "harness/replay/hx_replay.h"

void hx_measure_opts_default(struct hx_measure_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->verb = TOPO_VERB_WRITE;
	o->bw_msg_size = 65536;
	o->qps = 4;
	o->mtu = 1024;
	o->subnets = 16;
	o->seed = 1;
}

/* Log-likelihood (up to a constant) of ranked counts C under Zipf(S) over N ranks. */
static double zipf_ll(const uint64_t *c, uint32_t n, double s, double total)
{
	double h = 0, acc = 0;

	for (uint32_t i = 0; i < n; i++) {
		double lr = log(i + 1.0);

		h += exp(-s * lr);
		acc += (double)c[i] * lr;
	}
	return -s * acc - total * log(h);
}

double hx_replay_fit_zipf(const uint64_t *packets, uint32_t n)
{
	double lo = 0, hi = 3, total = 0, gr = (sqrt(5.0) - 1) / 2;

	for (uint32_t i = 0; i < n; i++)
		total += (double)packets[i];
	if (n < 2 || total <= 0)
		return 0;
	for (int it = 0; it < 60; it++) { /* golden section: the likelihood is concave in s */
		double a = hi - gr * (hi - lo), b = lo + gr * (hi - lo);

		if (zipf_ll(packets, n, a, total) < zipf_ll(packets, n, b, total))
			lo = a;
		else
			hi = b;
	}
	return (lo + hi) / 2 < 0.02 ? 0 : (lo + hi) / 2;
}

static void full_mask(struct topo_mask *m)
{
	memset(m, 0, sizeof(*m));
	for (int f = 0; f < TOPO_F_COUNT; f++) {
		m->fields |= 1u << f;
		if (topo_field_has_prefix((enum topo_field)f))
			m->plen[f] = 32;
	}
}

static bool is_decap(const struct topo_rule *r)
{
	return r->table == 0 && r->priority >= GEN_PRIO_DECAP && r->flow != 0 &&
	       r->actions.n > 0 && r->actions.a[0].kind == TOPO_ACT_DECAP;
}

/* Copy ports, tables and the non-decap rules of SRC into a new rule set. */
static int copy_base(const struct topo_ruleset *src, struct topo_ruleset **out)
{
	struct topo_ruleset *rs = topo_ruleset_new();
	int rc = rs ? 0 : -ENOMEM;

	for (size_t i = 0; rc >= 0 && i < topo_ruleset_n_ports(src); i++)
		rc = topo_ruleset_add_port(rs, topo_ruleset_port(src, i));
	for (size_t i = 1; rc >= 0 && i < topo_ruleset_n_tables(src); i++)
		rc = topo_ruleset_add_table(rs);
	for (size_t i = 0; rc >= 0 && i < topo_ruleset_n_rules(src); i++) {
		const struct topo_rule *r = topo_ruleset_rule(src, i);

		if (!is_decap(r))
			rc = topo_ruleset_add_rule(rs, r->table, &r->match, r->priority,
						   &r->actions, r->flow);
	}
	if (rc < 0) {
		topo_ruleset_free(rs);
		return rc;
	}
	*out = rs;
	return 0;
}

/* Per generator flow: the index of its decap rule in SRC (or -1); the shapes of SRC's decap
 * groups (priority GEN_PRIO_DECAP + i) into SHAPE[0..nm). */
static int index_decap(const struct topo_ruleset *src, uint32_t nf, uint32_t nm,
		       int64_t *rule_of, struct topo_mask *shape)
{
	uint32_t found = 0;

	for (uint32_t f = 0; f < nf; f++)
		rule_of[f] = -1;
	for (size_t i = 0; i < topo_ruleset_n_rules(src); i++) {
		const struct topo_rule *r = topo_ruleset_rule(src, i);

		if (is_decap(r) && r->flow - 1 < nf)
			rule_of[r->flow - 1] = (int64_t)i;
	}
	for (size_t g = 0; g < topo_ruleset_n_groups(src); g++) {
		const struct topo_group *gr = topo_ruleset_group(src, g);

		if (gr->table == 0 && gr->priority >= GEN_PRIO_DECAP &&
		    gr->priority < GEN_PRIO_DECAP + nm) {
			shape[gr->priority - GEN_PRIO_DECAP] = gr->mask;
			found++;
		}
	}
	return found == nm ? 0 : -EPROTO;
}

static int add_decap(struct topo_ruleset *rs, const struct gen_rules *g, uint32_t f,
		     const struct topo_rule *orig, const struct topo_mask *mask, uint32_t prio,
		     uint32_t flow_id)
{
	struct topo_match m;
	uint64_t pkt[TOPO_F_COUNT];
	int rc = gen_flow_packet(g, GEN_SERVER, GEN_DECAP, f, pkt);

	if (rc < 0)
		return rc;
	m.mask = *mask;
	for (int k = 0; k < TOPO_F_COUNT; k++)
		m.value[k] = (mask->fields >> k) & 1u ? pkt[k] : 0;
	topo_match_normalise(&m);
	rc = topo_ruleset_add_rule(rs, 0, &m, prio, &orig->actions, flow_id);
	return rc < 0 ? rc : 0;
}

static int add_layout(struct topo_ruleset *rs, const struct hx_layout *l, enum hx_policy p,
		      const struct gen_rules *g, const int64_t *rule_of,
		      const struct topo_mask *shape)
{
	const struct topo_ruleset *src = g->host[GEN_SERVER];
	uint32_t *pos = malloc((l->n_masks ? l->n_masks : 1) * sizeof(*pos));
	struct topo_mask full;
	int rc = pos ? 0 : -ENOMEM;

	full_mask(&full);
	for (uint32_t k = 0; pos && k < l->n_masks; k++)
		pos[l->order[p][k]] = k;
	for (uint32_t f = 0; rc == 0 && f < l->n_flows; f++) /* front copies first */
		if (l->front[p][f] && rule_of[f] >= 0)
			rc = add_decap(rs, g, f, topo_ruleset_rule(src, (size_t)rule_of[f]), &full,
				       GEN_PRIO_DECAP, f + 1);
	for (uint32_t k = 0; rc == 0 && k < l->n_masks; k++) {
		uint32_t m = l->order[p][k];

		for (uint32_t f = 0; rc == 0 && f < l->n_flows; f++)
			if (l->flow_mask[f] == m && rule_of[f] >= 0)
				rc = add_decap(rs, g, f, topo_ruleset_rule(src, (size_t)rule_of[f]),
					       &shape[m], GEN_PRIO_DECAP + 1 + pos[m],
					       l->front[p][f] ? 0 : f + 1);
	}
	free(pos);
	return rc;
}

int hx_layout_server_rules(const struct hx_layout *l, enum hx_policy p,
			   const struct gen_rules *g, struct topo_ruleset **out,
			   struct scn_error *err)
{
	int64_t *rule_of = malloc((l->n_flows ? l->n_flows : 1) * sizeof(*rule_of));
	struct topo_mask *shape = calloc(l->n_masks ? l->n_masks : 1, sizeof(*shape));
	struct topo_ruleset *rs = NULL;
	int rc = rule_of && shape ? 0 : -ENOMEM;

	*out = NULL;
	if (rc == 0 && g->flows != l->n_flows)
		rc = -EINVAL;
	if (rc == 0)
		rc = index_decap(g->host[GEN_SERVER], l->n_flows, l->n_masks, rule_of, shape);
	if (rc == 0)
		rc = copy_base(g->host[GEN_SERVER], &rs);
	if (rc == 0)
		rc = add_layout(rs, l, p, g, rule_of, shape);
	free(rule_of);
	free(shape);
	if (rc < 0) {
		topo_ruleset_free(rs);
		return scn_error_set(err, SCN_ERR_INTERNAL, rc, "replay: building the %s layout "
				     "failed (%s)", hx_policy_name(p), strerror(-rc));
	}
	*out = rs;
	return 0;
}

void hx_replay_point(uint32_t n_flows, uint32_t n_masks, const struct hx_measure_opts *o,
		     double s, struct gen_levels *lv)
{
	gen_levels_neutral(lv);
	lv->flows = n_flows;
	lv->subnets = o->subnets < n_flows ? o->subnets : n_flows;
	lv->masks[GEN_CLIENT][GEN_ENCAP] = 1;
	lv->masks[GEN_SERVER][GEN_DECAP] = n_masks;
	lv->encap_contexts = lv->subnets;
	lv->verb = o->verb;
	lv->qps = o->qps;
	lv->mtu = o->mtu;
	lv->popularity = s > 0 ? GEN_POP_ZIPF : GEN_POP_UNIFORM;
	lv->zipf_s = s;
}

/* Apply RS as the server's rules (the client's as generated) on a fresh testbed, measure
 * the bandwidth and latency tests. */
static int measure_one(const char *testbed, struct gen_rules *g, struct topo_ruleset *rs,
		       const struct gen_levels *lv, const struct hx_measure_opts *o,
		       struct hx_policy_sample *out, char *model, struct scn_error *err)
{
	struct topo_ruleset *orig = g->host[GEN_SERVER];
	struct gen_levels bw = *lv, lat = *lv;
	struct gen_traffic tb_bw, tb_lat;
	struct tb_description d;
	struct tb *tb = NULL;
	int rc = tb_open(testbed, &tb, err);

	bw.metric = GEN_METRIC_BW;
	bw.msg_size = o->bw_msg_size;
	lat.metric = GEN_METRIC_LAT;
	lat.msg_size = 2;
	gen_traffic_from_levels(&bw, &tb_bw);
	gen_traffic_from_levels(&lat, &tb_lat);
	if (rc == 0)
		rc = tb_describe(tb, &d, err);
	if (rc == 0) {
		snprintf(model, 64, "%s", d.rnic_model);
		g->host[GEN_SERVER] = rs;
		rc = tb_apply(tb, g, err);
		g->host[GEN_SERVER] = orig;
	}
	if (rc == 0)
		rc = tb_measure(tb, &tb_bw, o->seed, &out->bw, err);
	if (rc == 0)
		rc = tb_measure(tb, &tb_lat, o->seed + 1, &out->lat, err);
	out->server_rules = (uint32_t)topo_ruleset_n_rules(rs);
	out->server_groups = (uint32_t)topo_ruleset_n_groups(rs);
	tb_close(tb);
	return rc;
}

int hx_replay_measure(const struct hx_layout *l, const char *testbed,
		      const struct hx_measure_opts *o, struct hx_measure_result *out,
		      struct scn_error *err)
{
	struct gen_rules *g = NULL;
	struct gen_levels lv;
	int rc;

	memset(out, 0, sizeof(*out));
	if (l->n_flows == 0)
		return scn_error_set(err, SCN_ERR_CONFIG, -ENODATA, "replay: no flow carried "
				     "packets in the layout window; nothing to measure");
	out->zipf_s = hx_replay_fit_zipf(l->packets, l->n_flows);
	out->flows = l->n_flows;
	out->masks = l->n_masks;
	hx_replay_point(l->n_flows, l->n_masks, o, out->zipf_s, &lv);
	rc = gen_rules_build(NULL, NULL, &lv, o->seed, &g, err);
	for (int p = 0; p < HX_POL_COUNT && rc == 0; p++) {
		struct topo_ruleset *rs = NULL;

		rc = hx_layout_server_rules(l, (enum hx_policy)p, g, &rs, err);
		if (rc == 0)
			rc = measure_one(testbed, g, rs, &lv, o, &out->pol[p], out->rnic_model,
					 err);
		topo_ruleset_free(rs);
	}
	gen_rules_free(g);
	return rc;
}
