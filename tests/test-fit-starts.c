/* SPDX-License-Identifier: MIT */
/*
 * test-fit-starts: what the cached-walk forms' walk is (the even walk, which the points'
 * values are taken to) and a fit that needs the start at the guessed corner (fit_nls.c's
 * place starts): a table share's corner has no gradient, so only a start that puts it in
 * the gap of the cliff finds the share's shape while other starts find the walk's cache.
 * Synthetic data from tests/fit-synth-util.h; test-fit-walls.c holds the forms' recovery.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "fitting/fit.h"
#include "tests/fit-synth-util.h"

/* Below both caches and any spill, spillc2's bandwidth and lspillc2's latency depend on the
 * masks alone: at 256 and at 4096 flows they are the same (the mean deal the forms once
 * walked made 128 masks over 256 flows 8% shorter a walk than over 4096). */
static void test_fitting_spillc_walk_is_even(void **state)
{
	static const double bw[11] = { 97, 0.3, 0.008, 1.5, 200, 5000, 21, 7300, 10, 1, 0 };
	static const double lat[10] = { 14, 0.09, 1.5, 200, 5000, 84, 7300, 10, 1, 0 };
	const double few[2] = { 256, 128 }, many[2] = { 4096, 128 };

	(void)state;
	assert_float_equal(fit_form_eval(FIT_SPILLC2, bw, few), fit_form_eval(FIT_SPILLC2, bw, many),
			   1e-12);
	assert_true(fabs(fit_form_eval(FIT_SPILLC2, bw, few) / (97 / (0.3 + 0.008 * 128)) - 1) <
		    1e-4); /* the smooth maximum of the walk and the wire, 32% past the wire */
	assert_float_equal(fit_form_eval(FIT_LSPILLC2, lat, few), 14 + 0.09 * 128, 1e-9);
	assert_float_equal(fit_form_eval(FIT_LSPILLC2, lat, many), 14 + 0.09 * 128, 1e-9);
}

/* Read bandwidth of a shared flow table (an unseen ConnectX-7 variant): the walk misses a
 * cache of 21 masks and of 1000 flows' rules, so its knee comes earlier as the flows grow;
 * past 2950 flows the table keeps fewer rules (a jump to a fifth of the rate) and sheds the
 * rest by 4400. The levels are the campaign's: the cliff lies between 2875 and 3024. With
 * the random starts alone the best found the walk's cache with the corner drawn at 767
 * flows, where the share cannot jump, and missed the decay by about 15% in sample; the start
 * at the guessed corner finds both. With the starts drawn by GSL's taus2 (8 Dec 2026) the
 * best left the cache's flows at the guess (8,320, where the walk does not feel them) and
 * missed by 14.6%: the places moved over the data's levels, two rounds (fit_nls.c,
 * grid_starts), find the cache. Over fit seeds 1-12 the fit passes this test for 10 (5 with
 * the generator before and no such starts, 3 with GSL's and none). */
static void test_fitting_corner_start_finds_jump(void **state)
{
	static const double truth[12] = { 194, 0.2, 0.05, 0.6, 21, 1000, 21, 2950, 4400, 0,
					   0, 1.1 };
	static const double flows[] = { 256, 588, 1351, 2021, 2472, 2734, 2875, 3024, 3104,
					 4096, 7132, 16384 };
	static const double masks[] = { 1, 2, 4, 5, 8, 11, 12, 17, 24, 28, 34, 41, 49, 59, 64 };
	const size_t nf = sizeof(flows) / sizeof(flows[0]), nm = sizeof(masks) / sizeof(masks[0]);
	struct synth s = { .n = 0 };
	struct fit_model m;
	struct scn_error e;
	double worst = 0;

	(void)state;
	synth_levels(&s, FIT_SPILLCT2, truth, flows, nf, masks, nm, 0.005, 41);
	struct fit_data d = data_of(&s);
	assert_int_equal(fit_model_fit(FIT_SPILLCT2, &d, NULL, &m, &e), 0);
	for (size_t i = 0; i < s.n; i++)
		worst = fmax(worst, fabs(fit_form_eval(FIT_SPILLCT2, m.params, s.x[i]) - s.y[i]) /
					    s.y[i]);
	print_message("# spillct2: x0 %.0f (2875..3024), w %.0f (4400), A %.2f (1.1), r %.1f "
		      "(21), Q %.0f (1000); in sample max %.2f%% (held out %.2f%%, not asserted)\n",
		      m.params[7], m.params[8], m.params[11], m.params[4], m.params[5],
		      100 * worst, 100 * m.q.cv_max_bias);
	assert_true(m.valid);
	assert_true(m.params[7] > 2875 && m.params[7] < 3024);
	assert_true(fabs(m.params[8] - 4400) < 0.05 * 4400);
	assert_true(worst < 0.03);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fitting_spillc_walk_is_even),
		cmocka_unit_test(test_fitting_corner_start_finds_jump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
