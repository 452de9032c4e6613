/* SPDX-License-Identifier: MIT */
/*
 * test-fit-table: the spill forms with the table share (spillt2 ..., fitting/
 * fit_spill_path.c) on synthetic data shaped as a table that overflows: past the corner
 * the share of flows whose rules come after what the table keeps (linear in 1/flows,
 * complete at w, with a jump at the corner). The table form recovers w and the slope A,
 * AICc picks it over the power share, and it holds the points past the corner out where
 * the power share cannot follow them (tests/fit-synth-util.h: seeded noise).
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

/* Flows levels as a campaign refined past a corner at 7300 measures them; masks 1..128. */
static const double flows[] = { 256, 1024, 4096, 6144, 7132, 7512, 8281, 9129, 11094, 16384 };
static const double masks[] = { 1, 4, 16, 32, 64, 96, 128 };
#define NF (sizeof(flows) / sizeof(flows[0]))
#define NM (sizeof(masks) / sizeof(masks[0]))

/* Fit TABLE and POWER (the same form with the power share) to S; the selection among the
 * two must be TABLE with w and A within 3% and 5%, and the held-out maximum of TABLE
 * below 3% and below half POWER's. */
static void check_table(const struct synth *s, enum fit_form table, enum fit_form power,
			size_t iw, double w, double a)
{
	const enum fit_form cands[] = { power, table };
	struct fit_data d = data_of(s);
	struct fit_selection sel;
	struct scn_error e;
	const struct fit_model *t = NULL, *p = NULL;

	assert_int_equal(fit_select(&d, 2, cands, 2, NULL, &sel, &e), 0);
	for (size_t i = 0; i < sel.n_models; i++) {
		if (sel.models[i].form == table)
			t = &sel.models[i];
		if (sel.models[i].form == power)
			p = &sel.models[i];
	}
	assert_non_null(t);
	assert_non_null(p);
	print_message("# %s: w %.0f (%.0f), A %.3f (%.3f), held-out max %.2f%% (%s %.2f%%), "
		      "%s won\n", fit_form_name(table), t->params[iw], w, t->params[iw + 3], a,
		      100 * t->q.cv_max_bias, fit_form_name(power), 100 * p->q.cv_max_bias,
		      fit_form_name(sel.models[sel.best].form));
	assert_int_equal(sel.models[sel.best].form, table);
	assert_true(fabs(t->params[iw] - w) < 0.03 * w);
	assert_true(fabs(t->params[iw + 3] - a) < 0.05 * a);
	assert_true(t->q.cv_max_bias < 0.03);
	assert_true(p->q.cv_max_bias > 2 * t->q.cv_max_bias);
}

/* Latency: 14 us plus 0.09 a mask, 83 us more for what is in software, a table that keeps
 * 12,000 flows' worth once it overflows at 7,300 (A = 1: a third of the flows spill at
 * once), 1% noise. */
static void test_fit_table_latency_recovered(void **state)
{
	static const double truth[8] = { 14.3, 0.09, 83, 7300, 12000, 0.05, 0.05, 1.0 };
	struct synth s = { .n = 0 };

	(void)state;
	synth_levels(&s, FIT_LSPILLT2, truth, flows, NF, masks, NM, 0.01, 711);
	check_table(&s, FIT_LSPILLT2, FIT_LSPILL2, 4, 12000, 1.0);
}

/* Bandwidth: 97 Gb/s until the walk binds (past ~60 masks), 21 Gb/s in software, the same
 * table. */
static void test_fit_table_bandwidth_recovered(void **state)
{
	static const double truth[9] = { 97, 0.3, 0.012, 21, 7300, 12000, 0.05, 0.15, 1.0 };
	struct synth s = { .n = 0 };

	(void)state;
	synth_levels(&s, FIT_SPILLT2, truth, flows, NF, masks, NM, 0.01, 712);
	check_table(&s, FIT_SPILLT2, FIT_SPILL2, 5, 12000, 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_table_latency_recovered),
		cmocka_unit_test(test_fit_table_bandwidth_recovered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
