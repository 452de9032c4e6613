/* SPDX-License-Identifier: MIT */
/*
 * test-causal: finding causes. The causal analysis (harness/causal/hx_causal.h) on the fake
 * testbed of causal-fake-util.h, whose truth is known: bandwidth falls with the receive-side
 * masks (a single-dimension wall at 8 masks), collapses when many QPs meet small pages (an
 * interaction: neither alone), and ignores flows and the traffic class. Every strategy must
 * name exactly those causes; noise must not create causes; the removal orders and the
 * sensitivity analysis behave as documented. How causes are judged and reported (support
 * rules, suspects, replicates, drift, causes that share a member or hide behind another) is
 * test-causal-verdicts.c. The fake measures in microseconds, so these tests are fast (suite
 * 'unit').
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/cli/hx_report.h"
#include "tests/causal-fake-util.h"

static void test_causal_cct_finds_wall_and_interaction(void **state)
{
	struct world *w = world_new(0.02, true, 5);
	const struct hx_cause *m, *qp;

	(void)state;
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	check_truth(&w->a, true);
	m = find_cause(&w->a, "server.decap_masks", NULL);
	qp = find_cause(&w->a, "qps", "page_size");
	assert_true(m->confidence == 1.0);
	assert_true(qp->confidence == 1.0);
	/* the interaction: -50% with both, interval around it */
	assert_true(qp->effect < -0.4 && qp->effect > -0.6);
	assert_true(qp->effect_lo <= qp->effect && qp->effect <= qp->effect_hi);
	/* walls per member: 256 QPs, 4K pages (page_size's demanding side is down) */
	assert_true(qp->wall[0] == 256 && qp->last_good[0] == 64);
	assert_true(qp->wall[1] == 4096);
	assert_true(m->n_ids >= 5 && qp->n_ids >= 5);
	assert_true(w->a.trials >= 5 * w->a.points && w->a.trials % 5 == 0); /* + replicates */
	assert_true(w->a.cost_s == 2.0 * w->a.trials);
	world_free(w);
}

static void test_causal_cct_no_interaction_one_cause(void **state)
{
	struct world *w = world_new(0.02, false, 5);

	(void)state;
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	check_truth(&w->a, false);
	world_free(w);
}

static void test_causal_strategies_agree(void **state)
{
	for (int s = 0; s < 3; s++) {
		struct world *w = world_new(0.02, true, 5);

		(void)state;
		assert_int_equal(hx_causal_run(w->e, w->p, &w->o, (enum hx_strategy)s, &w->a, NULL), 0);
		if (getenv("CAUSAL_DEBUG"))
			hx_analysis_print(&w->a, stderr);
		if (s == HX_STRATEGY_ANNEAL) { /* black box: may miss, never lies */
			world_free(w);
			continue;
		}
		check_truth(&w->a, true);
		/* brute force: 7 x 4 x 5 x 3 x 3 = 1260 points */
		if (s == HX_STRATEGY_BRUTE)
			assert_int_equal(w->a.points, 1260);
		world_free(w);
	}
}

/* Annealing is a stochastic black box: over twenty of its seeds (and the fake's noise draws)
 * it never names a dimension that does nothing, and it finds the mask wall for many (13 of
 * 20 here; its walk may stop at its patience before reaching the wall: with other draws one
 * seed's 132 points found only the QP/page interaction). */
#define ANNEAL_SEEDS 20
static void test_causal_anneal_finds_wall_never_lies(void **state)
{
	unsigned found = 0;

	(void)state;
	for (unsigned seed = 0; seed < ANNEAL_SEEDS; seed++) {
		struct world *w = world_new(0.02, true, 5);

		w->p->seed = 7 + seed;
		w->f.noise_seed = seed;
		assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_ANNEAL, &w->a, NULL),
				 0);
		found += find_cause(&w->a, "server.decap_masks", NULL) != NULL;
		assert_false(mentions(&w->a, "flows"));
		assert_false(mentions(&w->a, "traffic_class"));
		world_free(w);
	}
	print_message("anneal found the mask wall for %u of %d seeds\n", found, ANNEAL_SEEDS);
	assert_true(5 * found >= 2 * ANNEAL_SEEDS);
}

static void test_causal_cct_cheaper_than_brute(void **state)
{
	struct world *c = world_new(0.02, true, 5), *b = world_new(0.02, true, 5);

	(void)state;
	assert_int_equal(hx_causal_run(c->e, c->p, &c->o, HX_STRATEGY_CCT, &c->a, NULL), 0);
	assert_int_equal(hx_causal_run(b->e, b->p, &b->o, HX_STRATEGY_BRUTE, &b->a, NULL), 0);
	print_message("cct %lu points, brute %lu points: %.1fx\n", c->a.points, b->a.points,
		      (double)b->a.points / (double)c->a.points);
	assert_true(c->a.points * 10 < b->a.points);
	world_free(c);
	world_free(b);
}

static void test_causal_noise_no_false_causes(void **state)
{
	for (unsigned seed = 0; seed < 4; seed++) {
		struct world *w = world_new(0.04, true, 5);

		(void)state;
		w->p->seed = 100 + seed;
		w->f.next_id = seed * 1000000;
		assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
		assert_false(mentions(&w->a, "flows"));
		assert_false(mentions(&w->a, "traffic_class"));
		assert_non_null(find_cause(&w->a, "qps", "page_size"));
		world_free(w);
	}
}

/* A degradation right at the threshold with few repeats: the report says so. */
static void test_causal_reports_too_few_repeats(void **state)
{
	bool said = false;

	(void)state;
	for (unsigned k = 0; k < 6 && !said; k++) {
		struct world *w = world_new(0.08, false, 2);

		w->f.mask_k = 0.0034 + 0.0002 * k; /* 32 masks: ~-10% */
		w->p->seed = 7 + k;
		assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
		if (getenv("CAUSAL_DEBUG"))
			hx_analysis_print(&w->a, stderr);
		for (unsigned i = 0; i < w->a.n_notes; i++)
			said |= strstr(w->a.notes[i], "more repeats needed") != NULL;
		for (unsigned i = 0; i < w->a.n_causes; i++)
			said |= w->a.causes[i].undecided;
		world_free(w);
	}
	assert_true(said);
}

/* One LSA at 16 masks, 1K flows, traffic class 3 with the fake's noise draws SEED: the mask
 * move is a candidate near its elasticity (*COVERED += its interval holds the true one),
 * categorical moves go to another category; how many moves of the dimensions that do
 * nothing (flows, traffic class) were candidates all the same into *FALSE_C, out of
 * *NULL_MOVES. */
static void lsa_once(uint64_t seed, unsigned *covered, unsigned *false_c, unsigned *null_moves)
{
	struct world *w = world_new(0.02, false, 5);
	struct gen_levels at;
	struct hx_lsa lsa;
	int masks = -1, tc = -1, flows = -1;

	w->f.noise_seed = seed;
	world_rebase(w);
	hx_levels_base(w->p, TOPO_VERB_WRITE, GEN_METRIC_BW, &at);
	gen_levels_set(&at, gen_dimension_find("server.decap_masks"), 16, NULL);
	gen_levels_set(&at, gen_dimension_find("flows"), 1024, NULL);
	gen_levels_set(&at, gen_dimension_find("traffic_class"), 3, NULL);
	assert_int_equal(hx_lsa_run(w->e, w->p, &w->o.baselines[0].r, &at, &lsa, NULL), 0);
	for (unsigned i = 0; i < lsa.n; i++) {
		const char *name = w->p->dims[lsa.d[i].dim].dim->name;

		if (!strcmp(name, "server.decap_masks") && lsa.d[i].to == 8)
			masks = (int)i;
		if (!strcmp(name, "traffic_class") && lsa.d[i].to == 0)
			tc = (int)i;
		if (!strcmp(name, "flows") && lsa.d[i].to == 64)
			flows = (int)i;
		if (!strcmp(name, "flows") || !strcmp(name, "traffic_class")) {
			(*null_moves)++;
			*false_c += lsa.d[i].candidate;
		}
	}
	assert_true(masks >= 0 && tc >= 0 && flows >= 0);
	/* bw = 100/(1 + 0.02 m): elasticity at 8..16 = ln(1.16/1.32)/ln 2 = -0.186; the
	 * estimate's standard error is about 0.018 (2% noise, 5 trials a side) */
	assert_true(fabs(lsa.d[masks].sens + 0.186) < 0.06);
	*covered += lsa.d[masks].lo <= -0.186 && -0.186 <= lsa.d[masks].hi;
	assert_true(lsa.d[masks].candidate);
	assert_true(lsa.d[masks].harm > 0);
	assert_true(lsa.d[tc].categorical);
	assert_true(lsa.d[tc].lo < lsa.d[tc].sens && lsa.d[tc].sens < lsa.d[tc].hi);
	/* categorical away move goes to another category (7), never to a rounded number */
	for (unsigned i = 0; i < lsa.n; i++)
		if (lsa.d[i].categorical && lsa.d[i].to != 0)
			assert_true(lsa.d[i].to == 7);
	world_free(w);
}

/* Over ten draws of the noise, the mask move's 95% interval holds the true elasticity for
 * most, and a dimension that does nothing is a candidate about as often as a 95% interval
 * excludes zero by chance. One draw alone may miss both: another generator's first draw
 * made the flows move a candidate and put the elasticity 0.03 from the truth. */
static void test_causal_lsa_categorical_and_ordered(void **state)
{
	unsigned covered = 0, false_c = 0, null_moves = 0;

	(void)state;
	for (uint64_t seed = 0; seed < 10; seed++)
		lsa_once(seed, &covered, &false_c, &null_moves);
	print_message("mask interval held the truth %u of 10; null moves that were candidates: "
		      "%u of %u\n", covered, false_c, null_moves);
	assert_true(covered >= 8);
	assert_true(null_moves >= 20);
	assert_true(5 * false_c <= null_moves);
}

static void test_causal_removal_orders(void **state)
{
	double sens[HX_PLAN_MAX_DIMS] = { 0.5, 0.1, 0.9, 0.3 };
	unsigned o0[HX_PLAN_MAX_DIMS], o1[HX_PLAN_MAX_DIMS], o2[HX_PLAN_MAX_DIMS];
	unsigned o3[HX_PLAN_MAX_DIMS], n;

	(void)state;
	hx_removal_order(0xf, sens, 0, 1, o0, &n);
	assert_int_equal(n, 4);
	assert_int_equal(o0[0], 1);
	assert_int_equal(o0[1], 3);
	assert_int_equal(o0[2], 0);
	assert_int_equal(o0[3], 2);
	hx_removal_order(0xf, sens, 1, 1, o1, &n);
	assert_int_equal(o1[0], 2);
	assert_int_equal(o1[3], 1);
	hx_removal_order(0xf, sens, 2, 1, o2, &n);
	hx_removal_order(0xf, sens, 2, 1, o3, &n);
	assert_memory_equal(o2, o3, 4 * sizeof(unsigned)); /* seeded: reproducible */
	unsigned seen = 0;
	for (unsigned i = 0; i < 4; i++)
		seen |= 1u << o2[i];
	assert_int_equal(seen, 0xf);                         /* a permutation */
}

static void test_causal_removal_keeps_pair(void **state)
{
	struct world *w = world_new(0.02, true, 5);
	struct gen_levels at;
	struct hx_removal rem;
	double sens[HX_PLAN_MAX_DIMS] = { 0 };

	(void)state;
	hx_levels_base(w->p, TOPO_VERB_WRITE, GEN_METRIC_BW, &at);
	gen_levels_set(&at, gen_dimension_find("qps"), 1024, NULL);
	gen_levels_set(&at, gen_dimension_find("page_size"), 4096, NULL);
	gen_levels_set(&at, gen_dimension_find("flows"), 4096, NULL);
	/* candidates: flows (1), qps (2), page_size (3) */
	assert_int_equal(hx_removal_run(w->e, w->p, &w->o.baselines[0].r, &at, 0xe, sens, 6, 3,
					&rem, NULL), 0);
	assert_int_equal(rem.n_orders, 6);
	assert_int_equal(rem.mode, 0xc);
	assert_int_equal(rem.mode_count, 6);
	assert_true(rem.confidence[2] == 1.0 && rem.confidence[3] == 1.0);
	assert_true(rem.confidence[1] == 0.0);
	hx_removal_release(&rem);
	world_free(w);
}

static void test_causal_axis_and_extreme(void **state)
{
	struct hx_plan *p = load_plan(3);
	double axis[HX_PLAN_MAX_LEVELS + 1];

	(void)state;
	assert_int_equal(hx_causal_axis(hx_plan_find_dim(p, "server.decap_masks"), axis), 7);
	assert_true(axis[0] == 0 && axis[6] == 32);
	assert_int_equal(hx_causal_axis(hx_plan_find_dim(p, "page_size"), axis), 3);
	assert_true(hx_causal_extreme(hx_plan_find_dim(p, "page_size")) == 2097152); /* not scale */
	assert_true(hx_causal_extreme(hx_plan_find_dim(p, "qps")) == 1024);
	assert_true(hx_causal_extreme(hx_plan_find_dim(p, "traffic_class")) == 0);
	hx_plan_free(p);
}

static void test_causal_repair(void **state)
{
	struct gen_levels l;

	(void)state;
	gen_levels_neutral(&l);
	l.masks[GEN_SERVER][GEN_DECAP] = 64;
	l.encap_contexts = 100;
	gen_levels_repair(&l);
	assert_int_equal(l.flows, 100);
	l.encap_contexts = 1;
	l.flows = 16;
	gen_levels_repair(&l);
	assert_int_equal(l.flows, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_causal_cct_finds_wall_and_interaction),
		cmocka_unit_test(test_causal_cct_no_interaction_one_cause),
		cmocka_unit_test(test_causal_strategies_agree),
		cmocka_unit_test(test_causal_anneal_finds_wall_never_lies),
		cmocka_unit_test(test_causal_cct_cheaper_than_brute),
		cmocka_unit_test(test_causal_noise_no_false_causes),
		cmocka_unit_test(test_causal_reports_too_few_repeats),
		cmocka_unit_test(test_causal_lsa_categorical_and_ordered),
		cmocka_unit_test(test_causal_removal_orders),
		cmocka_unit_test(test_causal_removal_keeps_pair),
		cmocka_unit_test(test_causal_axis_and_extreme),
		cmocka_unit_test(test_causal_repair),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
