/* SPDX-License-Identifier: MIT */
/*
 * sim_rules: apply() of the simulated testbed, and the per-traffic aggregates measure() uses.
 *
 *  - each host's rule set is analysed once (sim_scan.c: per-flow probes, rule hashes); a host
 *    whose rule set has the content id of the one analysed last keeps that analysis, and one
 *    analysed earlier is installed from the memo (sim_memo.c);
 *  - the diff against the previous apply (multiset of rule hashes), over the profile's
 *    programming rate, is the apply's cost in testbed-seconds (both hosts program in
 *    parallel: the slower one counts), reported in the next sample;
 *  - capacity: rule_capacity refuses the whole set (E810-like ENOSPC: the next measure says
 *    apply_failed); steering_cache's hard capacity makes a host fall back to software, with
 *    hysteresis kept across applies;
 *  - aggregates: popularity-weighted mean probes per host and direction, the weight of
 *    flows missing a rule and of flows in software, cached per (flows, popularity).
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/sim/sim_internal.h"

static void host_free(struct sim_host *h)
{
	sim_host_arrays_drop(h);
	memset(h, 0, sizeof(*h));
}

/* Hysteresis of the software fallback (steering_cache): enter above hard_capacity, leave
 * only below recover_below. In fallback the hardware keeps recover_below rules (the table
 * the driver's re-offloading converges to); the rules programmed last stay in software. */
static void fallback_state(const struct sim_profile *p, struct sim_host *h)
{
	if (!p->cache.on) {
		h->fallback = false;
	} else if (!h->fallback && h->n_rules > p->cache.hard_capacity) {
		h->fallback = true;
	} else if (h->fallback && h->n_rules < p->cache.recover_below) {
		h->fallback = false;
	}
	h->in_hw = h->n_rules;
	if (h->fallback && h->in_hw > p->cache.recover_below)
		h->in_hw = (uint32_t)p->cache.recover_below;
	h->not_in_hw = h->n_rules - h->in_hw;
	assert(!h->fallback || p->cache.on);
	assert(h->in_hw + h->not_in_hw == h->n_rules);
}

/* Install one host's rule set into NH (fresh), keeping fallback from OLD. Returns the number
 * of rule changes against OLD through *changes. ID and OLD_ID: their content ids (0: none;
 * the memo, sim_memo.c, is used only with both known). */
static int install_host(struct tb_sim *s, const struct topo_ruleset *rs, uint64_t id,
			uint32_t n, uint64_t old_id, const struct sim_host *old,
			struct sim_host *nh, uint64_t *changes)
{
	size_t nr = rs ? topo_ruleset_n_rules(rs) : 0;
	int64_t diff;
	int rc;

	nh->fallback = old->fallback;
	nh->n_rules = (uint32_t)nr;
	nh->n_groups = rs ? (uint32_t)topo_ruleset_n_groups(rs) : 0;
	fallback_state(&s->prof, nh);
	if (!rs || !sim_memo_get(&s->memo, id, n, nh)) {
		rc = sim_host_arrays_new(nh, n, nr);
		if (rc < 0)
			return rc;
		if (rs) {
			rc = sim_scan_host(rs, n, s->prof.steer.shared_tree, nh);
			if (rc < 0)
				return rc;
			sim_memo_put(&s->memo, id, n, nh);
		}
	}
	if (sim_memo_diff_get(&s->memo, old_id, id, changes))
		return 0;
	diff = sim_scan_diff(&s->diff, nh->hashes, nr, old->hashes, old->n_rules);
	if (diff < 0)
		return -ENOMEM;
	*changes = (uint64_t)diff;
	sim_memo_diff_put(&s->memo, old_id, id, *changes);
	return 0;
}

/* Is host H of RULES the very rule set analysed last (the same nonzero content id, the same
 * flows and rule count)? Then its analysis is still right and programming it changes no rule
 * (generators/gen.h, gen_rules_host_id). */
static bool same_host(const struct tb_sim *s, const struct gen_rules *rules, enum gen_host h)
{
	uint64_t id = rules ? gen_rules_host_id(rules, h) : 0;

	return id && id == s->host_id[h] && rules->flows == s->n_flows &&
	       topo_ruleset_n_rules(rules->host[h]) == s->host[h].n_rules;
}

int sim_rules_apply(struct tb_sim *s, const struct gen_rules *rules, struct scn_error *err)
{
	struct sim_host nh[GEN_HOSTS];
	uint64_t changes[GEN_HOSTS] = { 0, 0 }, most;
	bool keep[GEN_HOSTS];
	uint32_t n = rules ? rules->flows : 0;
	int rc = 0;

	memset(nh, 0, sizeof(nh));
	for (int h = 0; h < GEN_HOSTS; h++)
		keep[h] = same_host(s, rules, (enum gen_host)h);
	for (int h = 0; h < GEN_HOSTS && rc == 0; h++)
		if (!keep[h])
			rc = install_host(s, rules ? rules->host[h] : NULL,
					  gen_rules_host_id(rules, (enum gen_host)h), n,
					  s->host_id[h], &s->host[h], &nh[h], &changes[h]);
	if (rc < 0) {
		for (int h = 0; h < GEN_HOSTS; h++)
			host_free(&nh[h]);
		return scn_error_set(err, SCN_ERR_INTERNAL, rc, "sim: out of memory in apply");
	}
	for (int h = 0; h < GEN_HOSTS; h++) {
		if (keep[h])
			continue; /* nothing changes: no rules to program, the analysis holds */
		host_free(&s->host[h]);
		s->host[h] = nh[h];
		s->host_id[h] = rules ? gen_rules_host_id(rules, (enum gen_host)h) : 0;
	}
	s->n_flows = n;
	s->encap_contexts = rules ? rules->encap_contexts : 0;
	s->agg.valid = false;
	s->apply_failed = false;
	for (int h = 0; h < GEN_HOSTS && s->prof.capacity.on; h++)
		if (s->host[h].n_rules > s->prof.capacity.max_rules ||
		    s->host[h].n_groups > s->prof.capacity.max_masks)
			s->apply_failed = true;
	most = changes[0] > changes[1] ? changes[0] : changes[1];
	if (s->prof.prog.on && most > 0)
		s->pending_cost_s += s->prof.prog.apply_overhead_s +
				     (double)most / s->prof.prog.rules_per_s;
	return 0;
}

void sim_rules_release(struct tb_sim *s)
{
	for (int h = 0; h < GEN_HOSTS; h++) {
		host_free(&s->host[h]);
		s->host_id[h] = 0;
	}
	free(s->weights);
	s->weights = NULL;
	sim_memo_free(&s->memo);
	sim_diff_table_free(&s->diff);
}

/* Popularity weights of N flows, equal to gen_flow_weight(t, i, n) (Zipf: w_i = w_0 (i+1)^-s,
 * so the normaliser is computed once). Kept for the next apply while (N, popularity, s)
 * stay the same: they do not depend on the rules. */
static int weights(struct tb_sim *s, const struct gen_traffic *t, uint32_t n)
{
	bool zipf = t->popularity == GEN_POP_ZIPF && t->zipf_s != 0.0;
	double *w;

	if (s->weights && s->w_flows == n && s->w_zipf == zipf && (!zipf || s->w_s == t->zipf_s))
		return 0;
	w = realloc(s->weights, (n ? n : 1) * sizeof(double));
	if (!w)
		return -ENOMEM;
	s->weights = w;
	s->w_flows = n;
	s->w_zipf = zipf;
	s->w_s = t->zipf_s;
	if (!zipf) {
		for (uint32_t i = 0; i < n; i++)
			w[i] = 1.0 / n;
		return 0;
	}
	w[0] = gen_flow_weight(t, 0, n);
	for (uint32_t i = 1; i < n; i++)
		w[i] = w[0] * pow((double)i + 1.0, -t->zipf_s);
	return 0;
}

/* Probes and flags of flow F at (h, d), including flows the rule sets do not know. */
static void flow_at(const struct tb_sim *s, int h, int d, uint32_t f, uint32_t *probes,
		    uint8_t *flags)
{
	const struct sim_host *sh = &s->host[h];

	if (f < s->n_flows) {
		*probes = sh->probes[d][f];
		*flags = sh->flags[d][f];
	} else if (sh->has_dir[d]) {
		*probes = sh->walk0[d];
		*flags = SIM_F_MISS;
	} else {
		*probes = 0;
		*flags = 0;
	}
}

int sim_rules_aggregate(struct tb_sim *s, const struct gen_traffic *t)
{
	uint32_t n = t->flows ? t->flows : 1;
	struct sim_agg *a = &s->agg;

	if (a->valid && a->n_flows == n && a->pop == t->popularity && a->zipf_s == t->zipf_s)
		return 0;
	if (sim_memo_agg_get(&s->memo, s, t, n, a))
		return 0;
	if (weights(s, t, n) < 0)
		return -ENOMEM;
	memset(a, 0, sizeof(*a));
	for (uint32_t f = 0; f < n; f++) {
		double w = s->weights[f];
		uint8_t fl[GEN_HOSTS][GEN_DIRS];

		for (int h = 0; h < GEN_HOSTS; h++)
			for (int d = 0; d < GEN_DIRS; d++) {
				uint32_t p;

				flow_at(s, h, d, f, &p, &fl[h][d]);
				a->probes[h][d] += w * p;
				if (fl[h][d] & SIM_F_MISS)
					a->miss[h][d] += w;
			}
		if ((fl[GEN_CLIENT][GEN_ENCAP] | fl[GEN_SERVER][GEN_DECAP]) & (SIM_F_MISS | SIM_F_SW))
			a->sw_fwd += w;
		if ((fl[GEN_SERVER][GEN_ENCAP] | fl[GEN_CLIENT][GEN_DECAP]) & (SIM_F_MISS | SIM_F_SW))
			a->sw_rev += w;
	}
	a->n_flows = n;
	a->pop = t->popularity;
	a->zipf_s = t->zipf_s;
	a->valid = true;
	sim_memo_agg_put(&s->memo, s, a);
	return 0;
}
