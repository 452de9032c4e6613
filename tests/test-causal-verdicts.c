/* SPDX-License-Identifier: MIT */
/*
 * test-causal-verdicts: how causes are judged and reported. On the fake testbed of
 * causal-fake-util.h (and on hand-made causes): the support rules and the reasons a suspect
 * carries; a cure that does not replicate is a suspect, kept apart in the table, the JSON
 * and the counts; a replicate spoiled by an outlier gets a second look; sequential testing
 * adds repeats where noise hides the wall; a drifted baseline turns causes into suspects;
 * causes sharing a member and a cause hidden behind another both come out; a cause acts
 * through the flows when its point needs flows past a flows cause's wall. Finding causes
 * (strategies, noise, removal orders, sensitivity analysis) is test-causal.c. The fake
 * measures in microseconds, so these tests are fast (suite 'unit').
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "harness/cli/hx_report.h"
#include "tests/causal-fake-util.h"

/* The four rules, each alone, and the reasons a suspect carries. */
static void test_causal_support_rules(void **state)
{
	struct hx_plan *p = load_plan(5);
	struct hx_cause c = a_cause(-0.40, -0.45, -0.35, 1.0);
	char why[192];

	(void)state;
	assert_true(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_string_equal(why, "");
	c = a_cause(0.689, -0.804, 13.538, 0.5); /* the Soft-RoCE row of issue 19 */
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_non_null(strstr(why, "effect opposite to the symptom"));
	assert_non_null(strstr(why, "survives few orders (conf 0.50 < 0.75)"));
	c = a_cause(-0.30, -0.70, 0.20, 1.0);
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_string_equal(why, "interval spans zero [-70.0%, +20.0%]");
	c = a_cause(-0.06, -0.07, -0.05, 1.0);
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_string_equal(why, "effect below threshold (-6.0%, threshold 10%)");
	c = a_cause(-0.40, -0.45, -0.35, 1.0);
	c.replicated = false;
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_string_equal(why, "cure not replicated");
	/* every trial failed: failures speak, one of five is not significant */
	c = a_cause(NAN, NAN, NAN, 1.0);
	c.failed_with = 5;
	assert_true(hx_cause_supported(p, &c, why, sizeof(why)));
	c.failed_with = 1;
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_non_null(strstr(why, "failures not significant (1 of 5 failed"));
	p->min_confidence = 0.9;
	c = a_cause(-0.40, -0.45, -0.35, 0.875);
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_string_equal(why, "survives few orders (conf 0.88 < 0.90)");
	hx_plan_free(p);
}

/* A slowdown that fresh trials of the same point do not show is a suspect, not a cause; the
 * table, the JSON and the counts keep it apart. */
static void test_causal_unreplicated_cure_is_suspect(void **state)
{
	struct world *w = world_new(0.02, false, 5);
	struct json_object *causes, *suspects;
	char *text = NULL, *sus;
	size_t len = 0;
	FILE *mem;

	(void)state;
	w->f.transient = true;
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	if (getenv("CAUSAL_DEBUG"))
		hx_analysis_print(&w->a, stderr);
	assert_non_null(find_cause(&w->a, "server.decap_masks", NULL));
	assert_false(mentions(&w->a, "flows"));
	assert_int_equal(w->a.n_suspects, 1);
	assert_string_equal(w->a.suspects[0].members[0]->name, "flows");
	assert_string_equal(w->a.suspects[0].why, "cure not replicated");
	mem = open_memstream(&text, &len);
	hx_analysis_print(&w->a, mem);
	fclose(mem);
	sus = strstr(text, "Suspects");
	assert_non_null(sus);
	assert_non_null(strstr(sus, "cure not replicated"));
	assert_non_null(strstr(sus, " flows "));
	*sus = '\0';
	assert_null(strstr(text, " flows ")); /* not in the causes table */
	causes = hx_analysis_json(&w->a);
	suspects = hx_analysis_suspects_json(&w->a);
	assert_int_equal(json_object_array_length(causes), 1);
	assert_int_equal(json_object_array_length(suspects), 1);
	json_object_put(causes);
	json_object_put(suspects);
	free(text);
	world_free(w);
}

/* A replicate spoiled by one gross outlier (3 repeats: the interval spans zero) gets a
 * second look with more fresh trials, where the robust summary leaves the outlier out: the
 * cause stays a cause, and its replicate evidence shows the trials it took. */
static void test_causal_replicate_outlier_second_look(void **state)
{
	struct world *w = world_new(0.01, false, 3);
	const struct hx_cause *c;
	struct json_object *rep, *without, *n;

	(void)state;
	w->f.outlier = true;
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	if (getenv("CAUSAL_DEBUG"))
		hx_analysis_print(&w->a, stderr);
	c = find_cause(&w->a, "server.decap_masks", NULL);
	assert_non_null(c);
	assert_true(c->replicated);
	assert_int_equal(w->a.n_suspects, 0);
	assert_non_null(c->evidence);
	assert_true(json_object_object_get_ex(c->evidence, "replicate", &rep));
	assert_true(json_object_object_get_ex(rep, "without", &without));
	assert_true(json_object_object_get_ex(without, "n", &n));
	assert_int_equal(json_object_get_int(n), 6); /* 2 x the plan's 3 repeats */
	world_free(w);
}

/* Noise that three repeats cannot see through: sequential testing (max_repeats) adds repeats
 * to the points it cannot decide, counts them, and the wall's cause comes out. */
static void test_causal_sequential_testing(void **state)
{
	struct world *w = world_new(0.08, false, 3);
	struct gen_levels base;
	double cost;

	hx_levels_base(w->p, TOPO_VERB_WRITE, GEN_METRIC_BW, &base);
	(void)state;
	w->p->max_repeats = 15;
	w->p->thresholds.looks = 5;
	w->p->thresholds.alpha = w->p->thresholds.significance / 5;
	/* the campaign measures the baseline with max_repeats when sequential testing is on */
	assert_int_equal(fake_point(&w->f, &base, "baseline", 0, 15, &w->o.baselines[0].r, &cost,
				    NULL), 0);
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	if (getenv("CAUSAL_DEBUG"))
		hx_analysis_print(&w->a, stderr);
	assert_true(w->a.seq.points > 0);
	assert_true(w->a.seq.trials >= 3 * w->a.seq.points);
	assert_true(w->a.seq.max_n > 3 && w->a.seq.max_n <= 15);
	assert_non_null(find_cause(&w->a, "server.decap_masks", NULL));
	assert_false(mentions(&w->a, "flows"));
	world_free(w);
}

/* A cause of a baseline that drifted by the check after the analysis is a suspect. */
static void test_causal_drifted_baseline_makes_suspects(void **state)
{
	struct world *w = world_new(0.02, false, 5);
	struct hx_drift *d = &w->o.drift[0];

	(void)state;
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	assert_int_equal(w->a.n_causes, 1);
	hx_analysis_mark_drift(&w->a, w->p, &w->o); /* no check: nothing moves */
	assert_int_equal(w->a.n_causes, 1);
	memset(d, 0, sizeof(*d));
	snprintf(d->after, sizeof(d->after), "analysis");
	d->check = 3;
	d->change = -0.45;
	d->p_value = 0.001;
	d->drifted = true;
	w->o.n_drift = 1;
	hx_analysis_mark_drift(&w->a, w->p, &w->o);
	assert_int_equal(w->a.n_causes, 0);
	assert_int_equal(w->a.n_suspects, 1);
	assert_non_null(strstr(w->a.suspects[0].why, "baseline drifted during the analysis (-45.0%"));
	world_free(w);
}

/* {masks, flows} and {qps, flows}: the first cause found is explained away with flows, so
 * the second showed nothing; members are restored one at a time and the second comes out.
 * brute force agrees. */
static void test_causal_causes_sharing_a_member(void **state)
{
	(void)state;
	for (int s = 0; s < 2; s++) {
		struct world *w = world_new(0.02, false, 5);

		w->f.shared = true;
		world_rebase(w);
		assert_int_equal(hx_causal_run(w->e, w->p, &w->o,
					       s ? HX_STRATEGY_BRUTE : HX_STRATEGY_CCT, &w->a, NULL), 0);
		if (getenv("CAUSAL_DEBUG"))
			hx_analysis_print(&w->a, stderr);
		assert_true(has(&w->a, "server.decap_masks", "flows"));
		assert_true(has(&w->a, "qps", "flows"));
		assert_int_equal(w->a.n_causes, 2);
		world_free(w);
	}
}

/* 256 QPs with 4K pages cap the bandwidth at 50, but the mask wall caps it lower at the
 * stress point, so small pages change nothing there: once the mask cause is removed, the
 * context is probed again and the second cause comes out. brute force agrees. */
static void test_causal_cause_hidden_behind_another(void **state)
{
	(void)state;
	for (int s = 0; s < 2; s++) {
		struct world *w = world_new(0.02, false, 5);

		w->f.hidden = true;
		world_rebase(w);
		assert_int_equal(hx_causal_run(w->e, w->p, &w->o,
					       s ? HX_STRATEGY_BRUTE : HX_STRATEGY_CCT, &w->a, NULL), 0);
		if (getenv("CAUSAL_DEBUG"))
			hx_analysis_print(&w->a, stderr);
		assert_true(has(&w->a, "server.decap_masks", NULL));
		assert_true(has(&w->a, "qps", "page_size"));
		assert_false(mentions(&w->a, "flows"));
		assert_int_equal(w->a.n_causes, 2);
		world_free(w);
	}
}

/* A cause whose isolation point needs flows past a flows cause's wall acts through the
 * flows (4,096 encap contexts on 256 requested flows, the flows' wall at 3,024); one whose
 * point needs fewer (128 masks), or where the flows' wall lies beyond what it needs (7,512),
 * does not; nor does a cause of another (verb, metric). */
static void test_causal_cause_through_flows(void **state)
{
	struct hx_analysis *a = calloc(1, sizeof(*a));
	struct hx_cause *ctx, *masks, *other;

	(void)state;
	assert_non_null(a);
	a->causes[0] = a_cause(-0.89, -0.9, -0.88, 1.0); /* flows */
	a->causes[0].wall[0] = 3024;
	ctx = &a->causes[1];
	*ctx = a_cause(-0.88, -0.9, -0.86, 1.0);
	ctx->members[0] = gen_dimension_find("encap_contexts");
	gen_levels_neutral(&ctx->shown);
	ctx->shown.flows = 256;
	ctx->shown.encap_contexts = 4096;
	masks = &a->causes[2];
	*masks = *ctx;
	masks->members[0] = gen_dimension_find("server.decap_masks");
	masks->shown.encap_contexts = 1;
	gen_levels_set(&masks->shown, masks->members[0], 128, NULL);
	other = &a->causes[3];
	*other = *ctx;
	other->metric = GEN_METRIC_LAT;
	a->n_causes = 4;
	hx_analysis_mark_through(a);
	assert_string_equal(ctx->through, "flows");
	assert_string_equal(masks->through, "");
	assert_string_equal(other->through, ""); /* no flows cause of write latency */
	assert_string_equal(a->causes[0].through, "");
	a->causes[0].wall[0] = 7512;
	hx_analysis_mark_through(a);
	assert_string_equal(ctx->through, "");
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_causal_support_rules),
		cmocka_unit_test(test_causal_unreplicated_cure_is_suspect),
		cmocka_unit_test(test_causal_replicate_outlier_second_look),
		cmocka_unit_test(test_causal_sequential_testing),
		cmocka_unit_test(test_causal_drifted_baseline_makes_suspects),
		cmocka_unit_test(test_causal_causes_sharing_a_member),
		cmocka_unit_test(test_causal_cause_hidden_behind_another),
		cmocka_unit_test(test_causal_cause_through_flows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
