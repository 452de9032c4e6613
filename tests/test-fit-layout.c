/* SPDX-License-Identifier: MIT */
/*
 * test-fit-layout: a point's value over its rule layouts with the walk as a control variate
 * (harness/fit/hx_fit_layout.c): it finds the mean over all layouts where the raw mean of
 * eight is off, takes out a slow trial the raw spread hides, keeps the plain mean when the
 * walk explains nothing, and steps aside (NAN) when the walk does not vary; when one side's
 * walk sets the response and another side's only dilutes the sum, it uses that side's, and
 * a slow trial the diluted sum hides is still left out; with the traffic share in software
 * as the covariate it takes out the spread it explains and two 1.5x trials of eight, and a
 * share that barely moves is not extrapolated from.
 */
#include <math.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness/fit/hx_fit_layout.h"

/* Eight layouts' walk deviations, unbalanced (their mean is 0.6, not 0) as a systematic
 * sample of eight may be, and a small noise pattern. */
static const double walk8[8] = { -4.0, 2.6, 1.7, -8.4, -2.6, 11.0, 10.1, -5.6 };
static const double noise8[8] = { 0.3, -0.2, 0.1, -0.3, 0.2, -0.1, 0.25, -0.25 };

static void line(struct hx_layout_obs *o, double a, double b)
{
	for (int i = 0; i < 8; i++)
		o[i] = (struct hx_layout_obs){ a + b * walk8[i] + noise8[i], walk8[i], { 0 }, { 0 } };
}

static double plain_mean(const struct hx_layout_obs *o, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += o[i].v;
	return s / (double)n;
}

static void test_walk_takes_out_the_layout_spread(void **state)
{
	struct hx_layout_obs o[8];
	double se, v;
	struct hx_layout_fit fit;

	(void)state;
	line(o, 60.0, -1.5);
	v = hx_layout_value(o, 8, &se, &fit);
	assert_true(fit.walked);
	assert_int_equal(fit.cov, 0); /* the sum: every side moves alike */
	assert_true(fabs(fit.slope + 1.5) < 0.2);
	assert_true(fabs(v - 60.0) < 0.3);
	assert_true(fabs(plain_mean(o, 8) - 60.0) > 0.8); /* what the plain mean makes of it */
	assert_true(se > 0 && se < 0.3);
}

static void test_slow_trial_is_left_out(void **state)
{
	struct hx_layout_obs o[8];
	double se, v;

	(void)state;
	line(o, 60.0, -1.5);
	o[5].v /= 1.5; /* the deepest layout's one trial ran 1.5x slow */
	v = hx_layout_value(o, 8, &se, NULL);
	assert_true(fabs(v - 60.0) < 0.4);
}

static void test_walk_that_explains_nothing_changes_nothing(void **state)
{
	struct hx_layout_obs o[8];
	double se, v, mean;
	struct hx_layout_fit fit = { .walked = false };

	(void)state;
	/* values that do not depend on the walk: noise with no slope on it (least squares) */
	static const double e[8] = { 0.4, -0.4, 0.2, 0.1, -0.3, 0.3, -0.1, -0.2 };
	double wm = 0, em = 0, we = 0, ww = 0;

	for (int i = 0; i < 8; i++) {
		wm += walk8[i] / 8;
		em += e[i] / 8;
	}
	for (int i = 0; i < 8; i++) {
		we += (walk8[i] - wm) * (e[i] - em);
		ww += (walk8[i] - wm) * (walk8[i] - wm);
	}
	for (int i = 0; i < 8; i++)
		o[i] = (struct hx_layout_obs){ 40.0 + e[i] - we / ww * (walk8[i] - wm), walk8[i], { 0 }, { 0 } };
	mean = plain_mean(o, 8);
	v = hx_layout_value(o, 8, &se, &fit);
	assert_true(fit.walked);
	assert_true(fabs(fit.slope) < 1e-9);
	assert_true(fabs(v - mean) < 1e-9);
}

/* An uneven deal: every layout walks about 10 groups short of the even walk (their
 * deviations are walk8 - 10), and the value moves by only -0.03 a group, no more than the
 * noise over the layouts' spread. The plain mean is the value at the layouts' own walk,
 * 0.28 above the value at the even walk, 60; the walk fit's intercept is at the even walk,
 * whether or not the walk takes much of the spread out. */
static void test_uneven_deal_takes_the_even_walk(void **state)
{
	struct hx_layout_obs o[8];
	struct hx_layout_fit fit;
	double se, v;

	(void)state;
	for (int i = 0; i < 8; i++)
		o[i] = (struct hx_layout_obs){ 60.0 - 0.03 * (walk8[i] - 10.0) + noise8[i],
					       walk8[i] - 10.0, { 0 }, { 0 } };
	v = hx_layout_value(o, 8, &se, &fit);
	assert_true(fit.walked);
	assert_true(fabs(v - 60.0) < 0.2);
	assert_true(fabs(plain_mean(o, 8) - 60.0) > 0.25);
}

static void test_no_walk_or_too_few_layouts_step_aside(void **state)
{
	struct hx_layout_obs o[8];
	double se;

	(void)state;
	for (int i = 0; i < 8; i++)
		o[i] = (struct hx_layout_obs){ 50.0 + noise8[i], 0.0, { 0 }, { 0 } };
	assert_true(isnan(hx_layout_value(o, 8, &se, NULL)));
	line(o, 60.0, -1.5);
	assert_true(isnan(hx_layout_value(o, 3, &se, NULL)));
	/* four layouts the walk hardly moves, one a gross outlier: the raw screen leaves three,
	 * too few for the walk, and the robust mean (which also drops it) decides */
	line(o, 60.0, -0.05);
	o[0].v = 20.0;
	assert_true(isnan(hx_layout_value(o, 4, &se, NULL)));
}

/* Another side's walk over the same eight layouts, as large and unrelated to walk8. */
static const double other8[8] = { 9.0, -7.5, 6.0, 3.5, -10.0, 1.0, -4.0, 2.0 };

/* The server's decap side (host 1, direction 1: side 3) sets the value; the client's
 * encap side (side 0) moves the sum of the walks and nothing else. */
static void side_line(struct hx_layout_obs *o, double a, double b, bool sides)
{
	for (int i = 0; i < 8; i++) {
		o[i] = (struct hx_layout_obs){ a + b * walk8[i] + noise8[i], walk8[i] + other8[i],
					       { 0 }, { 0 } };
		if (sides) {
			o[i].side[0] = other8[i];
			o[i].side[3] = walk8[i];
		}
	}
}

static void test_side_that_sets_the_response(void **state)
{
	struct hx_layout_obs o[8];
	double se_side, se_sum, v_side, v_sum;
	struct hx_layout_fit fit;

	(void)state;
	side_line(o, 60.0, -1.5, false);
	v_sum = hx_layout_value(o, 8, &se_sum, NULL);
	side_line(o, 60.0, -1.5, true);
	v_side = hx_layout_value(o, 8, &se_side, &fit);
	print_message("sum of the walks: %.3f +- %.3f; the side's: %.3f +- %.3f\n", v_sum,
		      se_sum, v_side, se_side);
	assert_true(fit.walked);
	assert_true(fabs(v_side - 60.0) < 0.3);
	assert_true(se_side > 0 && se_side < 0.3);
	assert_true(se_side < 0.5 * se_sum);
}

static void test_slow_trial_hidden_by_the_sum_is_left_out(void **state)
{
	struct hx_layout_obs o[8];
	double se, v;

	(void)state;
	side_line(o, 60.0, -1.5, true);
	o[2].v /= 1.5; /* a layout near the mean walk ran 1.5x slow */
	v = hx_layout_value(o, 8, &se, NULL);
	assert_true(fabs(v - 60.0) < 0.4);
}

/* A point too few layouts fitted a slope for takes the median slope of the points that
 * fitted one on the covariate most of them used: six on the sum (median -1.0), one on a
 * side (left out); it walks 4 groups short of the even walk, so its value falls by 4. */
static void test_pooled_slope_for_a_point_without_one(void **state)
{
	static const double slopes[6] = { -1.0, -1.1, -0.9, -1.0, -1.2, -1.0 };
	struct hx_layout_point pw[9];
	double y[9];

	(void)state;
	memset(pw, 0, sizeof(pw));
	for (int i = 0; i < 6; i++) {
		pw[i] = (struct hx_layout_point){ true, { true, 0, slopes[i] }, { 0 } };
		y[i] = 20.0;
	}
	pw[6] = (struct hx_layout_point){ true, { true, 3, -5.0 }, { 0 } };
	y[6] = 20.0;
	pw[7].known = true; /* no fit of its own: 4 groups short on the sum, 1 on side 2 */
	pw[7].dev[0] = -4.0;
	pw[7].dev[3] = -1.0;
	y[7] = 10.0;
	pw[8].dev[0] = -4.0; /* covariates unknown: left as it is */
	y[8] = 10.0;
	hx_layout_pool(y, pw, 9);
	assert_true(fabs(y[7] - 6.0) < 1e-9);
	assert_true(y[8] == 10.0 && y[0] == 20.0 && y[6] == 20.0);
	/* with fewer than HX_LAYOUT_POOL_MIN slopes to pool, nothing moves */
	y[7] = 10.0;
	hx_layout_pool(y + 2, pw + 2, 7);
	assert_true(y[7] == 10.0);
}

/* Eight layouts' software shares less their flows' share (ConnectX-6 write latency at 7512
 * flows, 103 server masks: the campaign's), as a systematic sample of eight has them. */
static const double share8[8] = { -0.0438, 0.0284, 0.0783, -0.0849, 0.1279, -0.0708, 0.0833,
				  -0.0457 };

static void software_line(struct hx_layout_obs *o, double a, double b, double scale)
{
	for (int i = 0; i < 8; i++) {
		o[i] = (struct hx_layout_obs){ a + b * share8[i] + noise8[i], 0.0, { 0 }, { 0 } };
		o[i].sw[0] = o[i].sw[2] = scale * share8[i];
	}
}

static void test_software_share_takes_out_the_spread_and_two_slow_trials(void **state)
{
	struct hx_layout_obs o[8];
	struct hx_layout_fit f;
	double se, v;

	(void)state;
	software_line(o, 57.5, 90.0, 1.0);
	o[0].v *= 1.5; /* two outliers in a row: 1.5x latency, on the same side of the line */
	o[1].v *= 1.5;
	v = hx_layout_value(o, 8, &se, &f);
	assert_true(fabs(v - 57.5) < 0.5);
	assert_true(se < 0.5);
	assert_true(f.walked);
	assert_true(f.cov >= HX_LAYOUT_COV_SW);
	/* the plain mean of the eight is far off */
	assert_true(fabs(plain_mean(o, 8) - 57.5) > 5.0);
}

static void test_software_share_that_barely_moves_is_not_extrapolated(void **state)
{
	struct hx_layout_obs o[8];
	struct hx_layout_fit f;
	double se, v, mean;

	(void)state;
	/* a share moving by 1e-5 (nearly every rule in software): the spread is noise, and a
	 * line through it would land its intercept far from every value */
	software_line(o, 21.0, 0.0, 1e-4);
	for (int i = 0; i < 8; i++)
		o[i].sw[0] = o[i].sw[2] = 1e-4 + 1e-5 * noise8[(i + 3) % 8];
	mean = plain_mean(o, 8);
	v = hx_layout_value(o, 8, &se, &f);
	assert_true(isnan(v) || fabs(v - mean) < 0.2);
	assert_false(f.walked && f.cov >= HX_LAYOUT_COV_SW);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_takes_out_the_layout_spread),
		cmocka_unit_test(test_slow_trial_is_left_out),
		cmocka_unit_test(test_walk_that_explains_nothing_changes_nothing),
		cmocka_unit_test(test_uneven_deal_takes_the_even_walk),
		cmocka_unit_test(test_pooled_slope_for_a_point_without_one),
		cmocka_unit_test(test_no_walk_or_too_few_layouts_step_aside),
		cmocka_unit_test(test_side_that_sets_the_response),
		cmocka_unit_test(test_slow_trial_hidden_by_the_sum_is_left_out),
		cmocka_unit_test(test_software_share_takes_out_the_spread_and_two_slow_trials),
		cmocka_unit_test(test_software_share_that_barely_moves_is_not_extrapolated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
