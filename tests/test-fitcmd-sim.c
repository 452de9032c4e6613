/* SPDX-License-Identifier: MIT */
/*
 * test-fitcmd-sim: simulated campaigns on the CX-7 and CX-6 profiles (testbeds/sim): a grid
 * of client encap masks x server decap masks, 5 repeats (a campaign's R; their median per
 * point is fitted), send and write, bandwidth at 8 MiB and latency at 2 bytes, MTU 1024 (the
 * artifact's); every (verb, metric) model must reach R^2 >= 0.95 and a maximum held-out bias
 * whose median over FOLD_SEEDS fold assignments is <= 2.5%. Prints the figures per profile.
 * With the calibrated noise (cv 0.5%) the mechanism forms (cap2, walk2) leave ~1.1-1.4%
 * held-out bias without noise (the simulator deals flows to masks round-robin, so the mean
 * walk is a sawtooth no smooth form follows) and 1.1-1.9% with it over 8 noise seeds; 3
 * repeats gave 1.3-2.3%. Those were one fold assignment's: over fit seeds 1-8 (GSL's
 * shuffle) the same data's maximum ranges over 1.9-3.2% for CX-7's write bandwidth, whose
 * median is 2.0%, so one assignment alone decides little.
 * Assumes SCALACN_SOURCE_ROOT (set by meson) for examples/testbeds/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <json-c/json.h>
#include <sqlite3.h>

#include "generators/gen.h"
#include "harness/fit/hx_fit.h"
#include "optimiser/scalacn-opt.h"
#include "results/res.h"
#include "results/res_models.h"
#include "testbeds/tb.h"
#include "tests/fitcmd-util.h"

/* ---- (c) simulated campaigns on CX-7 and CX-6 ---------------------------------------- */

static const unsigned sim_x[] = { 0, 5, 10, 20, 40 };      /* client.encap_masks */
static const unsigned sim_y[] = { 0, 5, 10, 20, 40, 80 };  /* server.decap_masks */
#define SIM_REPEATS 5
#define FOLD_SEEDS 5

static void sim_point(struct fx *f, struct tb *tb, int64_t camp, const char *verb,
		      const char *metric, unsigned x, unsigned y, uint64_t seed)
{
	struct gen_levels l;
	struct gen_rules *rules = NULL;
	struct gen_traffic t;
	struct tb_sample s;
	char a[64];

	gen_levels_neutral(&l);
	snprintf(a, sizeof(a), "verb=%s", verb);
	assert_int_equal(gen_levels_assign(&l, a, &f->err), 0);
	l.metric = !strcmp(metric, "bw") ? GEN_METRIC_BW : GEN_METRIC_LAT;
	l.msg_size = !strcmp(metric, "bw") ? 8388608 : 2;
	l.flows = 128;
	l.mtu = 1024; /* the artifact's setting (docs/background.md) */
	l.masks[GEN_CLIENT][GEN_ENCAP] = x;
	l.masks[GEN_SERVER][GEN_DECAP] = y;
	assert_int_equal(gen_rules_build(NULL, NULL, &l, seed, &rules, &f->err), 0);
	assert_int_equal(tb_apply(tb, rules, &f->err), 0);
	gen_traffic_from_levels(&l, &t);
	for (int r = 0; r < SIM_REPEATS; r++) {
		struct trial_spec ts = { verb, metric, NULL, x, 0, 0, y, l.flows, l.msg_size, 0 };

		assert_int_equal(tb_measure(tb, &t, seed * 31 + (uint64_t)r, &s, &f->err), 0);
		ts.status = tb_status_name(s.status);
		ts.value = !strcmp(metric, "bw") ? s.bw_gbps : s.lat_median_us;
		put_trial(f, camp, &ts);
	}
	gen_rules_free(rules);
}

/* Measure the grid on TB_FILE, fit every (verb, metric), check and print the quality. */
static void sim_profile(struct fx *f, const char *tb_file)
{
	static const char *const verbs[] = { "send", "write" }, *const metrics[] = { "bw", "lat" };
	const char *root = getenv("SCALACN_SOURCE_ROOT");
	struct tb_description d;
	struct tb *tb = NULL;
	struct hx_fit_set *set = NULL;
	struct fit_selection *sel = calloc(1, sizeof(*sel));
	char path[512];
	uint64_t seed = 1;
	int64_t camp;
	double r2_min = 1, bias_max = 0;

	assert_non_null(root);
	assert_non_null(sel);
	snprintf(path, sizeof(path), "%s/examples/testbeds/%s", root, tb_file);
	if (tb_open(path, &tb, &f->err) != 0)
		fail_msg("%s: %s", path, f->err.message);
	assert_int_equal(tb_describe(tb, &d, &f->err), 0);
	camp = add_campaign(f, d.rnic_model, d.firmware);
	for (size_t v = 0; v < 2; v++)
		for (size_t m = 0; m < 2; m++)
			for (size_t i = 0; i < sizeof(sim_x) / sizeof(sim_x[0]); i++)
				for (size_t j = 0; j < sizeof(sim_y) / sizeof(sim_y[0]); j++)
					sim_point(f, tb, camp, verbs[v], metrics[m], sim_x[i],
						  sim_y[j], seed++);
	tb_close(tb);

	assert_int_equal(hx_fit_collect(f->db, d.rnic_model, NULL, NULL, &set, &f->err), 0);
	assert_int_equal(hx_fit_set_count(set), 4);
	for (size_t g = 0; g < 4; g++) {
		const struct hx_fit_data *fd = hx_fit_set_at(set, g);
		const struct fit_model *b = NULL;
		double mx[FOLD_SEEDS], med;
		struct fit_opts o;

		for (unsigned s = 0; s < FOLD_SEEDS; s++) {
			fit_opts_default(&o);
			o.seed = 1 + s;
			if (hx_fit_group(fd, NULL, 0, &o, sel, &f->err) != 0)
				fail_msg("%s: %s", tb_file, f->err.message);
			b = &sel->models[sel->best];
			mx[s] = b->q.cv_max_bias;
			r2_min = fmin(r2_min, b->q.r2);
		}
		gsl_sort(mx, 1, FOLD_SEEDS);
		med = gsl_stats_median_from_sorted_data(mx, 1, FOLD_SEEDS);
		print_message("%s (%s) %s %s: %s, %zu points (%zu not ok), R^2 %.4f, RMSE %.4g, "
			      "CV held-out bias max %.2f%% (median of %d fold assignments; "
			      "%.2f-%.2f%%) [%s]\n", tb_file, d.rnic_model, fd->verb, fd->metric,
			      fit_form_name(b->form), fd->n, fd->n_not_ok, b->q.r2, b->q.rmse,
			      100 * med, FOLD_SEEDS, 100 * mx[0], 100 * mx[FOLD_SEEDS - 1],
			      sel->reason);
		assert_int_equal(fd->n_trials + fd->n_not_ok, 5 * 6 * SIM_REPEATS);
		assert_int_equal(fd->n, 5 * 6);
		bias_max = fmax(bias_max, med);
	}
	hx_fit_set_free(set);
	free(sel);
	/* Checked after all four are printed, so a failure shows every figure. */
	assert_true(r2_min >= 0.95);
	assert_true(bias_max <= 0.025);
}

static void test_fitcmd_sim_cx7(void **state)
{
	sim_profile(*state, "sim-cx7.yaml");
}

static void test_fitcmd_sim_cx6(void **state)
{
	sim_profile(*state, "sim-cx6.yaml");
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fitcmd_sim_cx7, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_sim_cx6, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests_name("fitcmd-sim", tests, NULL, NULL);
}
