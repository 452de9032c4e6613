/* SPDX-License-Identifier: MIT */
/*
 * test-symptom: symptom decisions (hx_symptom.c): threshold plus significance, failed trials,
 * and software fallback judged against the baseline. On a software-only eSwitch (tc flower
 * on veth) every rule is not_in_hw from the start; that alone is not S1 (it was before).
 */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symptom_needs_threshold_and_significance),
		cmocka_unit_test(test_symptom_fallback_is_relative_to_baseline),
		cmocka_unit_test(test_symptom_timeouts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
