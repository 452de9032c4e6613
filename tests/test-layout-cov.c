/* SPDX-License-Identifier: MIT */
/*
 * test-layout-cov: the walk covariate of a rule layout (generators/gen_layout_cov.c), its sum
 * and each side's, against a count made another way (the full rule records, positions by
 * priority rank, weights one flow at a time), its mean, and its behaviour under uniform
 * traffic and one mask per side; the software covariate (gen_layout_sw) against a count by
 * hand of the rules past each host's share of the tc_in_hw gauge.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "generators/gen.h"
#include "generators/gen_layout_cov.h"
#include "topology/topo.h"

static struct gen_rules *build(const struct gen_levels *l)
{
	struct gen_rules *r = NULL;
	struct scn_error err = { 0 };

	assert_int_equal(gen_rules_build(NULL, NULL, l, 7, &r, &err), 0);
	return r;
}

static void levels(struct gen_levels *l, uint32_t flows, uint32_t server_decap, bool zipf)
{
	gen_levels_neutral(l);
	l->flows = flows;
	l->masks[GEN_CLIENT][GEN_ENCAP] = 1;
	l->masks[GEN_CLIENT][GEN_DECAP] = 1;
	l->masks[GEN_SERVER][GEN_ENCAP] = 1;
	l->masks[GEN_SERVER][GEN_DECAP] = server_decap;
	l->popularity = zipf ? GEN_POP_ZIPF : GEN_POP_UNIFORM;
	l->zipf_s = 1.0;
}

/* Direction of a full rule: 0 encap, 1 decap, -1 neither. */
static int rule_dir(const struct topo_rule *r)
{
	if (r->actions.n == 0)
		return -1;
	return r->actions.a[0].kind == TOPO_ACT_ENCAP   ? 0
	       : r->actions.a[0].kind == TOPO_ACT_DECAP ? 1
							: -1;
}

/* Rank (from 1) of priority PRIO among the distinct priorities of direction D's rules in
 * TABLE of RS. */
static unsigned prio_rank(const struct topo_ruleset *rs, uint32_t table, int d, uint32_t prio)
{
	uint32_t seen[1024];
	unsigned n = 0, below = 0;

	for (size_t i = 0; i < topo_ruleset_n_rules(rs); i++) {
		const struct topo_rule *r = topo_ruleset_rule(rs, i);
		bool dup = false;

		if (r->table != table || rule_dir(r) != d || r->flow == 0)
			continue;
		for (unsigned k = 0; k < n && !dup; k++)
			dup = seen[k] == r->priority;
		if (!dup && n < 1024) {
			seen[n++] = r->priority;
			below += r->priority < prio;
		}
	}
	return below + 1;
}

/* The walk of R under T, counted from the full records, one side at a time. */
static double walk_by_hand(const struct gen_rules *r, const struct gen_traffic *t)
{
	double total = 0;

	for (int h = 0; h < GEN_HOSTS; h++)
		for (int d = 0; d < GEN_DIRS; d++) {
			const struct topo_ruleset *rs = r->host[h];
			double w = 0, sum = 0;

			for (size_t i = 0; i < topo_ruleset_n_rules(rs); i++) {
				const struct topo_rule *ru = topo_ruleset_rule(rs, i);
				double wf;

				if (ru->flow == 0 || rule_dir(ru) != d)
					continue;
				wf = gen_flow_weight(t, ru->flow - 1, r->flows);
				w += wf;
				sum += wf * prio_rank(rs, ru->table, d, ru->priority);
			}
			total += w > 0 ? sum / w : 0;
		}
	return total;
}

static void test_walk_matches_a_count_by_hand(void **state)
{
	struct gen_levels l;
	struct gen_traffic t;
	double lo = INFINITY, hi = -INFINITY;

	(void)state;
	levels(&l, 256, 16, true);
	gen_traffic_from_levels(&l, &t);
	for (uint32_t k = 0; k < 4; k++) {
		struct gen_layout_cov c;
		struct gen_rules *r;

		l.layout = k;
		r = build(&l);
		assert_int_equal(gen_layout_cov(r, &t, &c), 0);
		assert_int_equal(c.sides, 4);
		assert_true(fabs(c.walk - walk_by_hand(r, &t)) < 1e-9 * c.walk);
		/* one mask on three sides (position 1 each) and 16 on the fourth */
		assert_true(fabs(c.walk_mean - (3.0 + 8.5)) < 1e-9);
		/* each side's own figures: the three at 1, the server's decap side the rest */
		assert_true(fabs(c.side[GEN_CLIENT][GEN_ENCAP] - 1.0) < 1e-9);
		assert_true(fabs(c.side[GEN_CLIENT][GEN_DECAP] - 1.0) < 1e-9);
		assert_true(fabs(c.side[GEN_SERVER][GEN_ENCAP] - 1.0) < 1e-9);
		assert_true(fabs(c.side[GEN_SERVER][GEN_DECAP] - (c.walk - 3.0)) < 1e-9 * c.walk);
		assert_true(fabs(c.side_mean[GEN_SERVER][GEN_DECAP] - 8.5) < 1e-9);
		lo = fmin(lo, c.walk);
		hi = fmax(hi, c.walk);
		gen_rules_free(r);
	}
	assert_true(hi - lo > 0.5); /* the layouts move the popular flows between masks */
}

/* 256 flows dealt over 104 masks: the first 48 hold 3 rules, the other 56 hold 2, so a
 * rule's mean position is (3 (1 + ... + 48) + 2 (49 + ... + 104)) / 256 = 47.25, while with
 * every mask holding as many (the even walk, what the fit's control variate aims at) it
 * is (1 + 104) / 2 = 52.5. */
static void test_uneven_deal_has_an_even_walk(void **state)
{
	struct gen_levels l;
	struct gen_traffic t;
	struct gen_layout_cov c;
	struct gen_rules *r;

	(void)state;
	levels(&l, 256, 104, true);
	gen_traffic_from_levels(&l, &t);
	r = build(&l);
	assert_int_equal(gen_layout_cov(r, &t, &c), 0);
	assert_true(fabs(c.side_mean[GEN_SERVER][GEN_DECAP] - 47.25) < 1e-9);
	assert_true(fabs(c.side_even[GEN_SERVER][GEN_DECAP] - 52.5) < 1e-9);
	assert_true(fabs(c.side_even[GEN_CLIENT][GEN_ENCAP] - 1.0) < 1e-9);
	assert_true(fabs(c.walk_even - (3.0 + 52.5)) < 1e-9);
	gen_rules_free(r);
	/* 16 masks share 256 flows evenly: both means are the same */
	levels(&l, 256, 16, true);
	r = build(&l);
	assert_int_equal(gen_layout_cov(r, &t, &c), 0);
	assert_true(fabs(c.walk_even - c.walk_mean) < 1e-9);
	gen_rules_free(r);
}

static void test_uniform_traffic_walks_the_mean(void **state)
{
	struct gen_levels l;
	struct gen_traffic t;

	(void)state;
	levels(&l, 300, 7, false);
	gen_traffic_from_levels(&l, &t);
	for (uint32_t k = 0; k < 3; k++) {
		struct gen_layout_cov c;
		struct gen_rules *r;

		l.layout = k;
		r = build(&l);
		assert_int_equal(gen_layout_cov(r, &t, &c), 0);
		assert_true(fabs(c.walk - c.walk_mean) < 1e-9 * c.walk_mean);
		gen_rules_free(r);
	}
}

static void test_one_mask_per_side_walks_one_each(void **state)
{
	struct gen_levels l;
	struct gen_traffic t;
	struct gen_layout_cov c;
	struct gen_rules *r;

	(void)state;
	levels(&l, 1000, 1, true);
	l.layout = 5;
	gen_traffic_from_levels(&l, &t);
	r = build(&l);
	assert_int_equal(gen_layout_cov(r, &t, &c), 0);
	assert_true(fabs(c.walk - 4.0) < 1e-9 && fabs(c.walk_mean - 4.0) < 1e-9);
	gen_rules_free(r);
}

/* Over the 8 layouts of a point (a systematic sample), the walk's mean is near its mean over
 * all layouts, which is what makes the deviations usable as a control variate. */
static void test_layouts_spread_around_the_mean(void **state)
{
	struct gen_levels l;
	struct gen_traffic t;
	double sum = 0, mean = 0;

	(void)state;
	levels(&l, 256, 128, true);
	gen_traffic_from_levels(&l, &t);
	for (uint32_t k = 0; k < 8; k++) {
		struct gen_layout_cov c;
		struct gen_rules *r;

		l.layout = k;
		r = build(&l);
		assert_int_equal(gen_layout_cov(r, &t, &c), 0);
		sum += c.walk;
		mean = c.walk_mean;
		gen_rules_free(r);
	}
	assert_true(fabs(sum / 8 - mean) < 0.05 * mean);
}

/* The software shares of R under T with host h keeping its first KEEP[h] rules, counted
 * from the full records one flow at a time: SHARE and FLOWS per path. */
static void software_by_hand(const struct gen_rules *r, const struct gen_traffic *t,
			     const size_t *keep, double *share, double *flows)
{
	for (int k = 0; k < GEN_SW_PATHS; k++)
		share[k] = flows[k] = 0;
	for (uint32_t f = 1; f <= r->flows; f++) {
		bool sw[GEN_SW_PATHS] = { false, false };

		for (int h = 0; h < GEN_HOSTS; h++)
			for (size_t i = keep[h]; i < topo_ruleset_n_rules(r->host[h]); i++) {
				const struct topo_rule *ru = topo_ruleset_rule(r->host[h], i);
				int d = rule_dir(ru);

				if (ru->flow != f || d < 0)
					continue;
				/* client encap and server decap carry client->server packets */
				sw[(h == GEN_CLIENT) == (d == GEN_ENCAP) ? GEN_SW_FWD : GEN_SW_REV] = true;
			}
		for (int k = 0; k < GEN_SW_PATHS; k++)
			if (sw[k]) {
				share[k] += gen_flow_weight(t, f - 1, r->flows);
				flows[k] += 1.0 / r->flows;
			}
	}
}

static void test_software_share_matches_a_count_by_hand(void **state)
{
	struct gen_levels l;
	struct gen_traffic t;
	struct gen_layout_sw sw;
	struct gen_rules *r;
	size_t n[GEN_HOSTS], keep[GEN_HOSTS];
	double share[GEN_SW_PATHS], flows[GEN_SW_PATHS];

	(void)state;
	levels(&l, 300, 16, true);
	gen_traffic_from_levels(&l, &t);
	r = build(&l);
	for (int h = 0; h < GEN_HOSTS; h++)
		n[h] = topo_ruleset_n_rules(r->host[h]);
	/* every rule in hardware (or the gauge unknown): nothing in software */
	assert_int_equal(gen_layout_sw(r, &t, (double)(n[0] + n[1]), &sw), 0);
	assert_true(sw.flows[GEN_SW_FWD] == 0 && sw.flows[GEN_SW_REV] == 0);
	assert_int_equal(gen_layout_sw(r, &t, NAN, &sw), 0);
	assert_true(sw.flows[GEN_SW_FWD] == 0 && sw.flows[GEN_SW_REV] == 0);
	/* 100 rules short on both hosts together: one capacity, 50 rules short on each */
	assert_int_equal(gen_layout_sw(r, &t, (double)(n[0] + n[1] - 100), &sw), 0);
	keep[0] = n[0] - 50;
	keep[1] = n[1] - 50;
	software_by_hand(r, &t, keep, share, flows);
	for (int k = 0; k < GEN_SW_PATHS; k++) {
		assert_true(flows[k] > 0.05 && share[k] > 0);
		assert_true(fabs(sw.share[k] - share[k]) < 1e-12);
		assert_true(fabs(sw.flows[k] - flows[k]) < 1e-12);
	}
	gen_rules_free(r);
}

static void test_software_share_under_uniform_traffic_is_the_flows_share(void **state)
{
	struct gen_levels l;
	struct gen_traffic t;
	struct gen_layout_sw sw;
	struct gen_rules *r;

	(void)state;
	levels(&l, 400, 8, false);
	gen_traffic_from_levels(&l, &t);
	r = build(&l);
	assert_int_equal(gen_layout_sw(r, &t, (double)(topo_ruleset_n_rules(r->host[0]) +
							topo_ruleset_n_rules(r->host[1])) * 0.8,
				       &sw), 0);
	for (int k = 0; k < GEN_SW_PATHS; k++) {
		assert_true(sw.flows[k] > 0.1);
		assert_true(fabs(sw.share[k] - sw.flows[k]) < 1e-9);
	}
	gen_rules_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_matches_a_count_by_hand),
		cmocka_unit_test(test_uneven_deal_has_an_even_walk),
		cmocka_unit_test(test_uniform_traffic_walks_the_mean),
		cmocka_unit_test(test_one_mask_per_side_walks_one_each),
		cmocka_unit_test(test_layouts_spread_around_the_mean),
		cmocka_unit_test(test_software_share_matches_a_count_by_hand),
		cmocka_unit_test(test_software_share_under_uniform_traffic_is_the_flows_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
