/* SPDX-License-Identifier: MIT */
/*
 * test-symptom: symptom decisions (hx_symptom.c): threshold plus significance, failed trials,
 * and software fallback judged against the baseline. On a software-only eSwitch (tc flower
 * on veth) every rule is not_in_hw from the start; that alone is not S1 (it was before).
 * Failed trials are evidence of their own kind (a failure rate, significant or not), and a
 * trial that measured 0 is unusable, not ok.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "harness/trial/hx_trial.h"

static const struct hx_plan_thresholds thr = { .bw_drop = 0.10, .lat_rise = 0.20,
					       .significance = 0.05, .errors = true };

static void point(struct hx_point_result *r, double mean, double sd, double sw_share)
{
	memset(r, 0, sizeof(*r));
	r->n = 5;
	r->s.n = 5;
	r->s.mean = mean;
	r->s.sd = sd;
	r->sw_share = sw_share;
	strcpy(r->status, "ok");
}

static void test_symptom_needs_threshold_and_significance(void **state)
{
	struct hx_point_result base, small, big;
	struct hx_symptom s;

	(void)state;
	point(&base, 100, 1, 0);
	point(&small, 95, 1, 0);  /* significant but under the 10% threshold */
	point(&big, 60, 1, 0);
	hx_symptom_judge(&thr, GEN_METRIC_BW, &base, &small, &s);
	assert_false(s.present);
	hx_symptom_judge(&thr, GEN_METRIC_BW, &base, &big, &s);
	assert_true(s.present);
	assert_string_equal(s.kind, "bw_drop");
	assert_true(s.effect < -0.39 && s.effect > -0.41);
	assert_string_equal(hx_symptom_class(&s, gen_dimension_find("server.decap_masks")), "S6");
}

static void test_symptom_fallback_is_relative_to_baseline(void **state)
{
	struct hx_point_result base, same, more;
	struct hx_symptom s;

	(void)state;
	point(&base, 100, 1, 1.0); /* a software-only eSwitch: every rule not_in_hw */
	point(&same, 50, 1, 1.0);  /* more masks: more rules, all still in software */
	hx_symptom_judge(&thr, GEN_METRIC_BW, &base, &same, &s);
	assert_true(s.present);
	assert_false(s.fallback);
	assert_string_equal(s.kind, "bw_drop");
	assert_string_equal(hx_symptom_class(&s, gen_dimension_find("server.decap_masks")), "S6");
	point(&base, 100, 1, 0.0); /* an offloading NIC */
	point(&more, 50, 1, 0.4);
	hx_symptom_judge(&thr, GEN_METRIC_BW, &base, &more, &s);
	assert_true(s.fallback);
	assert_string_equal(s.kind, "sw_fallback");
	assert_string_equal(hx_symptom_class(&s, gen_dimension_find("flows")), "S1");
}

static void test_symptom_timeouts(void **state)
{
	struct hx_point_result base, dead;
	struct hx_symptom s;

	(void)state;
	point(&base, 3, 0.1, 0);
	point(&dead, 3, 0.1, 0);
	dead.failed = 5;
	strcpy(dead.status, "timeout");
	hx_symptom_judge(&thr, GEN_METRIC_LAT, &base, &dead, &s);
	assert_true(s.present);
	assert_string_equal(s.kind, "timeout");
	assert_string_equal(hx_symptom_class(&s, gen_dimension_find("encap_contexts")), "S8");
}

/* One failed trial of three against a clean baseline of three is not a wall by itself
 * (exact binomial test against the baseline's rate by Laplace's rule: p = 0.49): undecided.
 * Three of three are (p = 0.008). A point whose trials all failed has no effect size. */
static void test_symptom_failures_need_significance(void **state)
{
	struct hx_point_result base, one, all;
	struct hx_symptom s;

	(void)state;
	point(&base, 10, 0.5, 0);
	base.n = base.s.n = 3;
	point(&one, 10.2, 0.5, 0);
	one.n = 3;
	one.s.n = 2;
	one.failed = 1;
	strcpy(one.status, "timeout");
	hx_symptom_judge(&thr, GEN_METRIC_BW, &base, &one, &s);
	assert_false(s.present);
	assert_true(s.undecided);
	assert_true(s.fail_lo > 0.008 && s.fail_lo < 0.009); /* Clopper-Pearson of 1/3 */
	assert_true(s.fail_hi > 0.90 && s.fail_hi < 0.91);
	assert_true(fabs(hx_failure_p(1, 3, 0, 3) - (1 - pow(0.8, 3))) < 1e-12);
	point(&all, NAN, 0, 0);
	all.n = 3;
	all.s.n = 0;
	all.failed = 3;
	strcpy(all.status, "timeout");
	hx_symptom_judge(&thr, GEN_METRIC_BW, &base, &all, &s);
	assert_true(s.present && s.failures);
	assert_string_equal(s.kind, "timeout");
	assert_true(isnan(s.effect)); /* not -100% */
	assert_true(fabs(s.p_value - 0.008) < 1e-12);
}

/* An ok trial whose number is 0 or not finite measured nothing: unusable, a failure, no 0 in
 * the mean. Any status other than ok is a failed trial. */
static void test_symptom_zero_is_unusable(void **state)
{
	struct gen_levels l;
	struct hx_point_result r;
	struct hx_trial_out t;
	const double bw[] = { 90, 0, 92, NAN };
	const char *const st[] = { "ok", "ok", "ok", "ok", "unusable" };

	(void)state;
	gen_levels_neutral(&l);
	memset(&r, 0, sizeof(r));
	for (unsigned i = 0; i < 5; i++) {
		memset(&t, 0, sizeof(t));
		t.id = i + 1;
		strcpy(t.sample.status, st[i]);
		t.sample.bw_gbps = i < 4 ? bw[i] : 91;
		strcpy(t.sample.counters_json, "{}");
		hx_point_add(&r, &l, &t);
	}
	hx_point_finish(&r, GEN_METRIC_BW);
	assert_int_equal(r.n, 5);
	assert_int_equal(r.failed, 0);   /* unusable: nothing measured, no failure */
	assert_int_equal(r.unusable, 3);
	assert_int_equal(r.s.n, 2);
	assert_true(r.s.mean == 91);
	assert_true(isnan(r.x[1]) && isnan(r.x[4]));
	assert_string_equal(r.status, "unusable");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symptom_needs_threshold_and_significance),
		cmocka_unit_test(test_symptom_fallback_is_relative_to_baseline),
		cmocka_unit_test(test_symptom_timeouts),
		cmocka_unit_test(test_symptom_failures_need_significance),
		cmocka_unit_test(test_symptom_zero_is_unusable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
