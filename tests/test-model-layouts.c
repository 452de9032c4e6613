/* SPDX-License-Identifier: MIT */
/*
 * test-model-layouts: when the model phase has measured a point over enough rule layouts
 * (harness/campaign/hx_model.c): the standard error of the layouts' mean against
 * MODEL_LAYOUT_SE, with their spread never taken below the testbed's trial noise, and that
 * noise pooled from the campaign's baselines (hx_model_noise_floor), nor a point whose
 * few layouts lost one to the robust screen taken as known; the relative standard error
 * the spare budget ranks points by (hx_model_layouts_se).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "harness/campaign/hx_model_priv.h"

/* Four layouts that agree to 0.1%: enough on their own spread, not on a 2% testbed. */
static void test_agreeing_layouts_on_a_noisy_testbed(void **state)
{
	const double v[] = { 100.0, 100.1, 99.9, 100.05 };

	(void)state;
	assert_true(hx_model_layouts_enough(v, 4, 0));      /* the spread alone: 0.04% */
	assert_false(hx_model_layouts_enough(v, 4, 0.02));  /* 2% / sqrt(4) = 1% > 0.5% */
	assert_true(hx_model_layouts_enough(v, 4, 0.005));  /* 0.5% / 2 = 0.25% <= 0.5% */
	assert_false(hx_model_layouts_enough(v, 4, 0.011)); /* 0.55% */
}

/* The floor never lowers the spread: layouts scattered by 4% stay not enough. */
static void test_floor_only_raises_the_spread(void **state)
{
	double v[16];

	(void)state;
	for (unsigned i = 0; i < 16; i++)
		v[i] = 100.0 * (1 + 0.04 * ((i % 2) ? 1 : -1));
	assert_false(hx_model_layouts_enough(v, 16, 0));
	assert_false(hx_model_layouts_enough(v, 16, 0.001));
	for (unsigned i = 0; i < 16; i++)
		v[i] = 100.0 + 0.01 * i;
	assert_true(hx_model_layouts_enough(v, 16, 0.019)); /* 1.9% / 4 = 0.475% */
	assert_false(hx_model_layouts_enough(v, 16, 0.021));
}

/* Three of four layouts that agree and one 12% below them: the robust mean would screen it
 * as a slow trial, but with four layouts that cannot be told from the layouts' own spread
 * (test-perturbed's send bandwidth at 11,094 flows and 7 masks stopped at these four; its
 * neighbours' sixteen layouts spread over 32-51 Gb/s). Not enough until eight; at eight one
 * screened layout no longer holds a point back. */
static void test_screened_layout_of_four_is_not_enough(void **state)
{
	const double four[] = { 42.03, 42.41, 42.59, 37.41 };
	const double eight[] = { 42.03, 42.41, 42.59, 28.0, 42.2, 42.35, 42.1, 42.5 };

	(void)state;
	assert_false(hx_model_layouts_enough(four, 4, 0));
	assert_false(hx_model_layouts_enough(four, 4, 0.005));
	assert_true(hx_model_layouts_enough(eight, 8, 0.005));
}

/* Failed layouts do not count; all failed: more will not help. */
static void test_failed_layouts(void **state)
{
	const double all_failed[] = { NAN, NAN, NAN, NAN };
	const double one_left[] = { NAN, 100.0, NAN, NAN };

	(void)state;
	assert_true(hx_model_layouts_enough(all_failed, 4, 0.02));
	assert_false(hx_model_layouts_enough(one_left, 4, 0));
}

/* The standard error the tightening ranks points by: the spread's (or the floor's) over
 * sqrt(n), relative; enough exactly when it is at most 0.5%. */
static void test_layouts_se(void **state)
{
	const double v[] = { 98, 102, 98, 102 };
	const double one[] = { 100, NAN };
	double sd = sqrt(16.0 / 3);

	(void)state;
	assert_float_equal(hx_model_layouts_se(v, 4, 0), sd / 2 / 100, 1e-12);
	assert_float_equal(hx_model_layouts_se(v, 4, 0.03), 0.03 / 2, 1e-12);
	assert_true(isnan(hx_model_layouts_se(one, 2, 0.01)));
	for (unsigned k = 1; k <= 40; k++) {
		double w[16], floor_cv = 0.001 * k;

		for (unsigned i = 0; i < 16; i++)
			w[i] = 100.0 + 0.5 * (double)(i % 3);
		assert_true(hx_model_layouts_enough(w, 16, floor_cv) ==
			    (hx_model_layouts_se(w, 16, floor_cv) <= 0.005));
	}
}

static void set_baseline(struct hx_baseline *b, enum gen_metric m, const double *x, unsigned n)
{
	b->metric = m;
	b->r.n = n;
	for (unsigned i = 0; i < n; i++)
		b->r.x[i] = x[i];
}

/* The floor is the trial cv pooled by degrees of freedom over the metric's baselines, a
 * gross outlier (a 1.5x slow trial) left out. */
static void test_noise_floor_pools_the_baselines(void **state)
{
	struct hx_outcome *o = calloc(1, sizeof(*o));
	const double a[] = { 98, 102, 98, 102, 66 }; /* 66: an outlier, left out */
	const double b[] = { 49, 51, 50 };
	const double lat[] = { 10, 10.5, 9.5 };
	double sa = sqrt(16.0 / 3) / 100, sb = 1.0 / 50, want;

	(void)state;
	assert_non_null(o);
	assert_float_equal(hx_model_noise_floor(o, GEN_METRIC_BW), 0, 0);
	o->n_baselines = 3;
	set_baseline(&o->baselines[0], GEN_METRIC_BW, a, 5);
	set_baseline(&o->baselines[1], GEN_METRIC_LAT, lat, 3);
	set_baseline(&o->baselines[2], GEN_METRIC_BW, b, 3);
	want = sqrt((3 * sa * sa + 2 * sb * sb) / 5);
	assert_float_equal(hx_model_noise_floor(o, GEN_METRIC_BW), want, 1e-12);
	assert_float_equal(hx_model_noise_floor(o, GEN_METRIC_LAT), 0.05, 1e-12);
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agreeing_layouts_on_a_noisy_testbed),
		cmocka_unit_test(test_floor_only_raises_the_spread),
		cmocka_unit_test(test_screened_layout_of_four_is_not_enough),
		cmocka_unit_test(test_failed_layouts),
		cmocka_unit_test(test_layouts_se),
		cmocka_unit_test(test_noise_floor_pools_the_baselines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
