/* SPDX-License-Identifier: MIT */
/*
 * test-fit-walls: the fitting's wall forms recovered from synthetic data with known
 * parameters (tests/fit-synth-util.h): a capacity cliff or spill in flows times a walk in
 * masks in either order of the inputs, the parameter a ridge leaves undetermined held, the
 * steering-cache forms (cache2, spillc2, walkc2, capc2, pipec2) and a slow NLS start carried on
 * (the points of a CX-6 campaign). test-fitting.c and test-fit-select.c hold
 * the rest of fitting/'s tests.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "fitting/fit.h"
#include "tests/fit-synth-util.h"

/* A wall in flows (form F, or FY with the inputs swapped) times a walk in masks, 1% noise:
 * fit_select picks the right orientation and recovers the corner X0 (parameter IX0). */
static void recover_wall(enum fit_form f, enum fit_form fy, const double *truth, size_t ix0)
{
	static const double flows[] = { 256, 1024, 2048, 4096, 6144, 7000, 7300, 7500, 7700,
					8192, 12288, 16384 };
	static const double masks[] = { 1, 4, 8, 16, 24, 32, 48, 64 };

	for (int swap = 0; swap < 2; swap++) {
		enum fit_form want = swap ? fy : f;
		struct synth s = { .n = 0 };
		struct fit_selection sel;
		struct fit_opts o;
		struct scn_error e;
		gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
		gsl_rng_set(r, 77 + swap);
		for (size_t i = 0; i < sizeof(flows) / sizeof(flows[0]); i++)
			for (size_t j = 0; j < sizeof(masks) / sizeof(masks[0]); j++) {
				const double in[2] = { flows[i], masks[j] };
				s.x[s.n][swap] = flows[i];
				s.x[s.n][1 - swap] = masks[j];
				s.y[s.n] = fit_form_eval(f, truth, in) *
					   (1 + gsl_ran_gaussian(r, 0.01));
				s.n++;
			}
		gsl_rng_free(r);
		struct fit_data d = data_of(&s);
		fit_opts_default(&o);
		assert_int_equal(fit_select(&d, 2, NULL, 0, &o, &sel, &e), 0);
		const struct fit_model *w = &sel.models[sel.best];
		print_message("# %s (%s): %s won, x0 %.0f (truth %.0f), R2 %.4f, CV max %.2f%%\n",
			      fit_form_name(f), swap ? "y" : "x", fit_form_name(w->form),
			      w->params[ix0], truth[ix0], w->q.r2, 100 * w->q.cv_max_bias);
		assert_int_equal(w->form, want);
		assert_true(fabs(w->params[ix0] - truth[ix0]) < 0.02 * truth[ix0]);
		assert_true(w->q.r2 > 0.99);
		for (size_t j = 0; j < w->n_params; j++)
			assert_true(isfinite(w->se[j]));
	}
}

/* A capacity cliff in one input (flows, at 7.5K) times a walk bottleneck in the other
 * (masks): the cliff form of the right orientation wins and recovers the cliff, in both
 * orders of the inputs (fit_forms_cliff.c); 1% noise. */
static void test_fitting_cliff_recovered_in_either_input(void **state)
{
	static const double truth[6] = { 88, 0.4, 0.03, 0.7, 7500, 150 };

	(void)state;
	recover_wall(FIT_CLIFF2, FIT_CLIFF2Y, truth, 4);
}

/* A ridge: where the walk never binds (the response does not move with the masks y) and
 * the fit has c > 1, cliff2 is (L/c) * the cliff at every point: L and c scaled together
 * change no prediction. The fit holds the parameter the others determine (standard error
 * 0) and gives finite standard errors for the rest, instead of a singular covariance with
 * every one NaN (which made such a model unexportable although its predictions are
 * determined). Seeds whose best start ends on the other branch (c < 1, where c is not
 * sensitive at all) are skipped; the first of 1..40 that ends on the ridge is checked. */
static void test_fitting_ridge_parameter_held(void **state)
{
	static const double truth[6] = { 95, 0.5, 1e-7, 0.7, 7500, 150 };
	static const double flows[] = { 256, 1024, 2048, 4096, 6144, 7000, 7300, 7500, 7700,
					8192, 12288, 16384 };
	static const double masks[] = { 1, 4, 8, 16, 24, 32, 48, 64 };
	struct synth s = { .n = 0 };
	struct fit_model m;
	struct fit_opts o;
	struct scn_error e;
	unsigned held = 0, seed;

	(void)state;
	synth_levels(&s, FIT_CLIFF2, truth, flows, sizeof(flows) / sizeof(flows[0]), masks,
		     sizeof(masks) / sizeof(masks[0]), 0.01, 91);
	struct fit_data d = data_of(&s);
	fit_opts_default(&o);
	for (seed = 1; seed <= 40; seed++) {
		o.seed = seed;
		assert_int_equal(fit_model_fit(FIT_CLIFF2, &d, &o, &m, &e), 0);
		if (m.valid && m.params[1] > 1.2)
			break;
	}
	assert_true(seed <= 40);
	for (size_t j = 0; j < m.n_params; j++) {
		assert_true(isfinite(m.se[j]));
		held += m.se[j] == 0;
	}
	print_message("# ridge (seed %u): L %.1f c %.3f, L/c %.2f (truth %.2f), x0 %.0f, %u held\n",
		      seed, m.params[0], m.params[1], m.params[0] / m.params[1], truth[0], m.params[4],
		      held);
	assert_true(held >= 1);
	assert_true(fabs(m.params[0] / m.params[1] - truth[0]) < 0.02 * truth[0]);
	assert_true(fabs(m.params[4] - truth[4]) < 0.02 * truth[4]);
	assert_true(m.q.cv_max_bias < 0.05);
	/* Inputs that always moved together (x = y at every point) are not a ridge of the
	 * form: off the diagonal the plane's slopes are unknown, nothing is held. */
	s.n = 0;
	for (size_t i = 0; i < 12; i++) {
		s.x[s.n][0] = s.x[s.n][1] = (double)(i + 1);
		s.y[s.n] = 3 + 0.1 * (double)i + 0.01 * (double)(i % 3);
		s.n++;
	}
	d = data_of(&s);
	assert_int_equal(fit_model_fit(FIT_PLANE, &d, NULL, &m, &e), 0);
	assert_true(isnan(m.se[0]) && isnan(m.se[1]));
}

/* Two walks on one host whose masks share a steering cache of 32 (a = b = 1/32): past 32
 * masks in all, a miss costs u = 0.08 more per probe. cache2 recovers the cache's capacity
 * (1/a, 1/b: 35 and 34.7) within 15% from 1% noise and holds the data out far more
 * closely than the cap form without a miss term (cap2, whose 1/(c + k*v) undershoots past
 * the cache: 37% against 3.6%). */
static void test_fitting_cache_recovered(void **state)
{
	static const double truth[8] = { 97, 0.4, 0.01, 0.012, 0.08, 1.0 / 32, 1.0 / 32, 80 };
	static const double masks[] = { 1, 4, 8, 12, 16, 24, 32, 40, 48, 64 };
	struct synth s = { .n = 0 };
	struct fit_model m, cap;
	struct scn_error e;

	(void)state;
	synth_levels(&s, FIT_CACHE2, truth, masks, sizeof(masks) / sizeof(masks[0]), masks,
		     sizeof(masks) / sizeof(masks[0]), 0.01, 123);
	struct fit_data d = data_of(&s);
	assert_int_equal(fit_model_fit(FIT_CACHE2, &d, NULL, &m, &e), 0);
	assert_int_equal(fit_model_fit(FIT_CAP2, &d, NULL, &cap, &e), 0);
	print_message("# cache2: capacity %.1f / %.1f masks (truth 32), u %.3f (0.08), R2 %.4f, "
		      "held-out max %.2f%% (cap2 %.2f%%)\n", 1 / m.params[5], 1 / m.params[6],
		      m.params[4], m.q.r2, 100 * m.q.cv_max_bias, 100 * cap.q.cv_max_bias);
	assert_true(m.valid);
	assert_true(fabs(1 / m.params[5] - 32) < 0.15 * 32);
	assert_true(fabs(1 / m.params[6] - 32) < 0.15 * 32);
	assert_true(fabs(m.params[4] - truth[4]) < 0.2 * truth[4]);
	assert_true(m.q.r2 > 0.99);
	assert_true(m.q.cv_max_bias < 0.05);
	assert_true(cap.q.cv_max_bias > 2 * m.q.cv_max_bias);
}

/* A hard corner: past e = x0 - 4 per mask (7200 flows with no mask) a share 1 - (e/x)^12
 * spills to a 13 Gb/s path. */
static void test_fitting_spill_recovered_in_either_input(void **state)
{
	static const double truth[8] = { 97, 0.3, 0.012, 13, 7200, 12, 4, 0 };

	(void)state;
	recover_wall(FIT_SPILL2, FIT_SPILL2Y, truth, 4);
}

/* A slow path that slows as it holds more: past the corner (7200 flows less 0.05 a mask) its
 * time per packet grows as (x/e)^0.2 (CX-6's software fallback: 22.4 Gb/s at 11K flows,
 * 21.0 at 16K). spill2 and lspill2 recover the growth g, the corner and the slow path from
 * 1% noise (held out, the points beside the corner miss by more: a fold without them cannot
 * place it). */
static void test_fitting_spill_growth_recovered(void **state)
{
	static const double truth[8] = { 97, 0.3, 0.012, 22, 7200, 10, 0.05, 0.2 };
	static const double ltruth[7] = { 17.8, 0.18, 71, 7200, 12, 0.05, 0.2 };
	static const double flows[] = { 256, 1024, 4096, 6144, 7000, 7512, 8281, 9129, 11094,
					13000, 16384 };
	static const double masks[] = { 1, 4, 16, 32, 64, 96, 128 };
	struct synth s = { .n = 0 };
	struct fit_model m;
	struct scn_error e;

	(void)state;
	for (int lat = 0; lat < 2; lat++) {
		enum fit_form f = lat ? FIT_LSPILL2 : FIT_SPILL2;
		const double *t = lat ? ltruth : truth;
		size_t ig = lat ? 6 : 7, ix0 = lat ? 3 : 4, islow = lat ? 2 : 3;

		synth_levels(&s, f, t, flows, sizeof(flows) / sizeof(flows[0]), masks,
			     sizeof(masks) / sizeof(masks[0]), 0.01, 401 + (unsigned)lat);
		struct fit_data d = data_of(&s);
		assert_int_equal(fit_model_fit(f, &d, NULL, &m, &e), 0);
		print_message("# %s: g %.3f (0.2), x0 %.0f (7200), slow path %.2f (%.0f), R2 %.4f, "
			      "held-out max %.2f%%\n", fit_form_name(f), m.params[ig],
			      m.params[ix0], m.params[islow], t[islow], m.q.r2,
			      100 * m.q.cv_max_bias);
		assert_true(m.valid);
		assert_true(fabs(m.params[ig] - 0.2) < 0.25 * 0.2);
		assert_true(fabs(m.params[ix0] - 7200) < 0.02 * 7200);
		assert_true(fabs(m.params[islow] - t[islow]) < 0.05 * t[islow]);
		assert_true(m.q.r2 > 0.999);
	}
}

/* A spill in flows whose fast path walks masks past a steering cache of r = 80 masks and
 * the rules of Q = 5000 flows (a missed probe costs u = 1.5 times a hit more): spillc2
 * recovers both capacities, the corner and the slow path from 1% noise, wins the selection
 * in either orientation, and holds the data out far more closely than spill2, whose walk is
 * straight in the masks; lspillc2 likewise recovers the mask capacity from the latency (with
 * no rule cache overflowing: with both, its 8 starts found a worse minimum, r 317, held-out
 * 12%, where 32 found the truth). */
static void test_fitting_spillc_recovered(void **state)
{
	static const double truth[11] = { 97, 0.3, 0.008, 1.5, 80, 5000, 21, 7300, 10, 1, 0 };
	static const double ltruth[10] = { 14, 0.09, 1.5, 80, 1e6, 84, 7300, 10, 1, 0 };
	static const double flows[] = { 256, 1024, 2048, 4096, 5500, 6500, 7000, 7500, 8192,
					12288, 16384 };
	static const double masks[] = { 1, 16, 32, 48, 64, 80, 88, 96, 104, 112, 120, 128 };
	const size_t nf = sizeof(flows) / sizeof(flows[0]), nm = sizeof(masks) / sizeof(masks[0]);
	struct synth s = { .n = 0 };
	struct fit_model m, sp;
	struct fit_selection sel;
	struct scn_error e;
	static const enum fit_form cands[] = { FIT_SPILL2, FIT_SPILL2Y, FIT_SPILLC2,
					       FIT_SPILLC2Y };

	(void)state;
	synth_levels(&s, FIT_SPILLC2, truth, flows, nf, masks, nm, 0.01, 321);
	struct fit_data d = data_of(&s);
	assert_int_equal(fit_model_fit(FIT_SPILLC2, &d, NULL, &m, &e), 0);
	assert_int_equal(fit_model_fit(FIT_SPILL2, &d, NULL, &sp, &e), 0);
	print_message("# spillc2: r %.1f (80), Q %.0f (5000), u %.2f (1.5), x0 %.0f (7300), S %.2f "
		      "(21), R2 %.4f, held-out max %.2f%% (spill2 %.2f%%)\n", m.params[4],
		      m.params[5], m.params[3], m.params[7], m.params[6], m.q.r2,
		      100 * m.q.cv_max_bias, 100 * sp.q.cv_max_bias);
	assert_true(m.valid);
	assert_true(fabs(m.params[4] - 80) < 0.1 * 80);
	assert_true(fabs(m.params[5] - 5000) < 0.15 * 5000);
	assert_true(fabs(m.params[7] - 7300) < 0.02 * 7300);
	assert_true(fabs(m.params[6] - 21) < 0.05 * 21);
	assert_true(m.q.cv_max_bias < 0.04);
	assert_true(sp.q.cv_max_bias > 2 * m.q.cv_max_bias);
	for (int swap = 0; swap < 2; swap++) {
		for (size_t i = 0; swap && i < s.n; i++) {
			double t = s.x[i][0];
			s.x[i][0] = s.x[i][1];
			s.x[i][1] = t;
		}
		d = data_of(&s);
		assert_int_equal(fit_select(&d, 2, cands, 4, NULL, &sel, &e), 0);
		print_message("# spillc2 (%s): %s won\n", swap ? "y" : "x",
			      fit_form_name(sel.models[sel.best].form));
		assert_int_equal(sel.models[sel.best].form, swap ? FIT_SPILLC2Y : FIT_SPILLC2);
	}
	synth_levels(&s, FIT_LSPILLC2, ltruth, flows, nf, masks, nm, 0.01, 322);
	d = data_of(&s);
	assert_int_equal(fit_model_fit(FIT_LSPILLC2, &d, NULL, &m, &e), 0);
	print_message("# lspillc2: r %.1f (80), u %.2f (1.5), x0 %.0f (7300), D %.1f (84), "
		      "held-out max %.2f%%\n", m.params[3], m.params[2], m.params[6], m.params[5],
		      100 * m.q.cv_max_bias);
	assert_true(fabs(m.params[3] - 80) < 0.1 * 80);
	assert_true(fabs(m.params[6] - 7300) < 0.02 * 7300);
	assert_true(m.q.cv_max_bias < 0.04);
}

/* Latency of two walks, one per host, past a steering cache of 32 masks on each (a missed
 * probe costs u = 0.15 more): walkc2 recovers the capacity and the miss cost from 1% noise,
 * AICc prefers it to the plane and walk2, and it holds the data out more closely than the
 * plane, which cannot bend past the cache. */
static void test_fitting_walkc_recovered(void **state)
{
	static const double truth[5] = { 15, 0.33, 0.3, 0.15, 32 };
	static const double masks[] = { 1, 2, 4, 8, 12, 16, 24, 28, 33, 40, 48, 64 };
	static const enum fit_form cands[] = { FIT_PLANE, FIT_WALK2, FIT_WALKC2 };
	const size_t nm = sizeof(masks) / sizeof(masks[0]);
	struct synth s = { .n = 0 };
	struct fit_selection sel;
	struct scn_error e;

	(void)state;
	synth_levels(&s, FIT_WALKC2, truth, masks, nm, masks, nm, 0.01, 77);
	struct fit_data d = data_of(&s);
	assert_int_equal(fit_select(&d, 2, cands, 3, NULL, &sel, &e), 0);
	const struct fit_model *w = &sel.models[sel.best], *pl = &sel.models[0];
	print_message("# walkc2: %s won (%s); r %.1f (32), u %.3f (0.15), held-out max %.2f%% "
		      "(plane %.2f%%)\n", fit_form_name(w->form), sel.reason, w->params[4],
		      w->params[3], 100 * w->q.cv_max_bias, 100 * pl->q.cv_max_bias);
	assert_int_equal(w->form, FIT_WALKC2);
	assert_true(fabs(w->params[4] - 32) < 0.15 * 32);
	assert_true(fabs(w->params[3] - 0.15) < 0.3 * 0.15);
	assert_true(fabs(w->params[1] - 0.33) < 0.05 * 0.33);
	assert_true(w->q.cv_max_bias < 0.04);
	assert_true(pl->q.cv_max_bias > 1.5 * w->q.cv_max_bias);
	for (size_t j = 0; j < w->n_params; j++)
		assert_true(isfinite(w->se[j]));
}

/* Data of FORM ([L, c, k1, k2, u, r], capc2's and pipec2's layout) at TRUTH over MASKS x
 * MASKS with 1% noise (SEED): fit_select over CANDS (FORM last) picks FORM, recovers r and
 * both slopes within 15% and u within 30%, holds out within 4%, and every other candidate
 * holds out more than twice as far. */
static void recover_cache_bw(enum fit_form form, const double truth[6], const double *masks,
			     size_t nm, const enum fit_form *cands, size_t nc, unsigned seed)
{
	struct synth s = { .n = 0 };
	struct fit_selection sel;
	struct scn_error e;

	synth_levels(&s, form, truth, masks, nm, masks, nm, 0.01, seed);
	struct fit_data d = data_of(&s);
	assert_int_equal(fit_select(&d, 2, cands, nc, NULL, &sel, &e), 0);
	const struct fit_model *w = &sel.models[sel.best];
	print_message("# %s: %s won (%s); r %.1f (%g), u %.2f (%g), k1 %.4f (%g), k2 %.4f (%g), "
		      "held-out max %.2f%%\n", fit_form_name(form), fit_form_name(w->form),
		      sel.reason, w->params[5], truth[5], w->params[4], truth[4], w->params[2],
		      truth[2], w->params[3], truth[3], 100 * w->q.cv_max_bias);
	assert_int_equal(w->form, form);
	assert_true(fabs(w->params[5] - truth[5]) < 0.15 * truth[5]);
	assert_true(fabs(w->params[4] - truth[4]) < 0.3 * truth[4]);
	assert_true(fabs(w->params[2] - truth[2]) < 0.15 * truth[2]);
	assert_true(fabs(w->params[3] - truth[3]) < 0.15 * truth[3]);
	assert_true(w->q.cv_max_bias < 0.04);
	for (size_t i = 0; i + 1 < nc; i++) {
		print_message("#   %s held out to %.2f%%\n", fit_form_name(sel.models[i].form),
			      100 * sel.models[i].q.cv_max_bias);
		assert_true(sel.models[i].q.cv_max_bias > 2 * w->q.cv_max_bias);
	}
}

/* One walk over the masks of both inputs on one host (a shared tree: every lookup walks
 * every group) past the host's steering cache of 30 masks: capc2 against cache2 (two
 * walks, each its own pipeline stage) and cap2, neither of which adds the two inputs'
 * probes in one walk. */
static void test_fitting_capc_recovered(void **state)
{
	static const double truth[6] = { 97, 0.2, 0.011, 0.022, 1.3, 30 };
	static const double masks[] = { 1, 2, 5, 8, 12, 16, 24, 28, 33, 40, 48, 64 };
	static const enum fit_form cands[] = { FIT_CAP2, FIT_CACHE2, FIT_CAPC2 };

	(void)state;
	recover_cache_bw(FIT_CAPC2, truth, masks, sizeof(masks) / sizeof(masks[0]), cands, 3, 78);
}

/* The wire and two hosts' walks, each past its host's steering cache of 24 masks (a missed
 * probe costs u = 1.5 more; the walls start before the cache fills, so that both the walk's
 * slope and the miss cost show): pipec2 against cap2 (walks that do not steepen), cache2
 * (one cache both walks fill) and rbf2, which the harness picked before pipec2 was a
 * candidate (held out at 83% on testbeds/sim/profiles/test-cache-walls.yaml). */
static void test_fitting_pipec_recovered(void **state)
{
	static const double truth[6] = { 388, 0.2, 0.05, 0.04, 1.5, 24 };
	static const double masks[] = { 1, 2, 4, 8, 12, 18, 24, 28, 34, 45, 64, 90, 128 };
	static const enum fit_form cands[] = { FIT_CAP2, FIT_CACHE2, FIT_RBF2, FIT_PIPEC2 };

	(void)state;
	recover_cache_bw(FIT_PIPEC2, truth, masks, sizeof(masks) / sizeof(masks[0]), cands, 4, 79);
}

/* CX-6's send bandwidth from qualify-full (flows, server decap masks; the simulated testbed's
 * points over rule layouts, 2 Dec 2026): one fold's best start ran out of iterations on the
 * ridge of the cache's parameters at a third of the residual of the converged starts, whose
 * minimum (L 209, a wire that never binds) won: held-out maximum 13.4%. Carried on from
 * where it stopped, it converges there: 8.9%. Since the starts and folds are drawn by GSL's
 * taus2 (8 Dec 2026) the folds are others: the worst held-out point (13.7%) is a knee point
 * the carrying on does not touch, and what it changes is the mean held-out bias, 1.33%
 * without it and 0.97% with it. */
static void test_fitting_slow_start_carried_on(void **state)
{
	static const double pts[][3] = {
		{ 256, 1, 96.7814 }, { 256, 3, 97.0016 }, { 256, 4, 96.9839 }, { 256, 7, 96.784 },
		{ 256, 18, 96.432 }, { 256, 21, 96.8726 }, { 256, 34, 96.8575 }, { 256, 49, 96.8497 },
		{ 256, 103, 86.5675 }, { 256, 128, 55.9699 }, { 588, 1, 97.4144 }, { 588, 3, 96.9131 },
		{ 588, 4, 96.7205 }, { 588, 7, 96.8861 }, { 588, 18, 97.1554 }, { 588, 21, 96.9046 },
		{ 588, 34, 97.1381 }, { 588, 49, 96.9536 }, { 588, 103, 82.4168 }, { 588, 128, 59.1549 },
		{ 1351, 1, 97.0445 }, { 1351, 3, 96.6657 }, { 1351, 4, 97.4338 }, { 1351, 7, 96.8603 },
		{ 1351, 18, 96.5564 }, { 1351, 21, 97.4655 }, { 1351, 34, 96.8824 }, { 1351, 49, 96.6087 },
		{ 1351, 103, 80.3283 }, { 1351, 128, 58.0868 }, { 3104, 1, 96.5572 }, { 3104, 3, 96.9441 },
		{ 3104, 4, 96.6465 }, { 3104, 7, 96.8844 }, { 3104, 18, 96.8762 }, { 3104, 21, 97.005 },
		{ 3104, 34, 97.1806 }, { 3104, 49, 96.6966 }, { 3104, 103, 79.5171 }, { 3104, 128, 56.2942 },
		{ 4096, 1, 96.7047 }, { 4096, 3, 96.7003 }, { 4096, 4, 96.8289 }, { 4096, 7, 96.5445 },
		{ 4096, 18, 96.7043 }, { 4096, 21, 96.7277 }, { 4096, 34, 96.343 }, { 4096, 49, 96.7099 },
		{ 4096, 103, 79.9462 }, { 4096, 128, 56.3319 }, { 7132, 1, 96.8756 }, { 7132, 3, 97.0789 },
		{ 7132, 4, 97.0626 }, { 7132, 7, 96.849 }, { 7132, 18, 96.5376 }, { 7132, 21, 96.7482 },
		{ 7132, 34, 97.077 }, { 7132, 49, 97.015 }, { 7132, 103, 59.1386 }, { 7132, 128, 45.0656 },
		{ 7512, 1, 39.8131 }, { 7512, 3, 39.5139 }, { 7512, 4, 40.062 }, { 7512, 7, 40.7416 },
		{ 7512, 18, 39.6427 }, { 7512, 21, 39.2488 }, { 7512, 34, 39.5731 }, { 7512, 49, 40.1775 },
		{ 7512, 103, 36.1536 }, { 7512, 128, 31.787 }, { 16384, 1, 20.9889 }, { 16384, 3, 20.9847 },
		{ 16384, 4, 21.0647 }, { 16384, 7, 21.062 }, { 16384, 18, 21.0402 }, { 16384, 21, 20.9978 },
		{ 16384, 34, 21.1037 }, { 16384, 49, 21.0555 }, { 16384, 103, 21.06 }, { 16384, 128, 21.1514 },
	};
	struct synth s = { .n = 0 };
	struct fit_model m;
	struct scn_error e;

	(void)state;
	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		s.x[s.n][0] = pts[i][0];
		s.x[s.n][1] = pts[i][1];
		s.y[s.n++] = pts[i][2];
	}
	struct fit_data d = data_of(&s);
	assert_int_equal(fit_model_fit(FIT_SPILLC2, &d, NULL, &m, &e), 0);
	print_message("# CX-6 send bw, spillc2: held-out max %.2f%% mean %.2f%%, L %.1f\n",
		      100 * m.q.cv_max_bias, 100 * m.q.cv_mean_bias, m.params[0]);
	assert_true(m.valid);
	assert_true(m.q.cv_mean_bias < 0.0115);
	assert_true(m.q.cv_max_bias < 0.15);
	assert_true(fabs(m.params[0] - 97) < 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fitting_cliff_recovered_in_either_input),
		cmocka_unit_test(test_fitting_ridge_parameter_held),
		cmocka_unit_test(test_fitting_cache_recovered),
		cmocka_unit_test(test_fitting_spill_recovered_in_either_input),
		cmocka_unit_test(test_fitting_spill_growth_recovered),
		cmocka_unit_test(test_fitting_spillc_recovered),
		cmocka_unit_test(test_fitting_walkc_recovered),
		cmocka_unit_test(test_fitting_capc_recovered),
		cmocka_unit_test(test_fitting_pipec_recovered),
		cmocka_unit_test(test_fitting_slow_start_carried_on),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
