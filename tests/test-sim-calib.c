/* SPDX-License-Identifier: MIT */
/*
 * test-sim-calib: unit tests of the simulated testbed's numbers on shipped profiles:
 * calibration of the CX-7 profile against the public ScalaCN measurements; seeded noise
 * (bit-identical samples, CV, outliers); capacity cliffs of the shipped E810 and CX-6
 * profiles and traffic without rules. Assumes SCALACN_SOURCE_ROOT.
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
#include <unistd.h>

#include <cmocka.h>

#include "generators/gen.h"
#include "testbeds/tb.h"
#include "tests/test-sim-util.h"

static double mib_s(double gbps)
{
	return gbps * 1e9 / 8.0 / 1048576.0;
}

/* ---- calibration ------------------------------------------------------------------------ */

struct calib_row {
	uint32_t ce, cd, se, sd;
	double send_bw, send_lat, write_bw, write_lat; /* MiB/s, us */
};

static const struct calib_row calib[] = {
	{ 0, 0, 0, 0, 21118, 2.74, 21115, 2.76 },
	{ 0, 0, 0, 20, 11224, 4.49, 11852, 4.10 },
	{ 20, 0, 0, 20, 11187, 5.23, 11312, 5.38 },
	{ 20, 100, 80, 80, 3176, 22.02, 3221, 20.14 },
};

static void test_sim_calibration_cx7(void **state)
{
	struct tb *tb = open_shipped("cx7");

	(void)state;
	for (size_t i = 0; i < sizeof(calib) / sizeof(calib[0]); i++) {
		const struct calib_row *c = &calib[i];
		struct gen_levels l;
		char what[96];

		for (int v = 0; v < 2; v++) {
			enum topo_verb verb = v ? TOPO_VERB_WRITE : TOPO_VERB_SEND;

			su_levels(&l, 400, c->ce, c->cd, c->se, c->sd);
			bw_levels(&l, verb, 8u << 20, 1024);
			l.qps = 4;
			snprintf(what, sizeof(what), "%s bw %u/%u/%u/%u", v ? "write" : "send", c->ce,
				 c->cd, c->se, c->sd);
			within(mib_s(su_median(tb, &l, 5)), v ? c->write_bw : c->send_bw, 0.10, what);
			l.metric = GEN_METRIC_LAT;
			l.msg_size = 2;
			l.qps = 1;
			snprintf(what, sizeof(what), "%s lat %u/%u/%u/%u", v ? "write" : "send",
				 c->ce, c->cd, c->se, c->sd);
			within(su_median(tb, &l, 5), v ? c->write_lat : c->send_lat, 0.10, what);
		}
	}
	tb_close(tb);
}

/* ---- noise -------------------------------------------------------------------------------- */

static void test_sim_same_seed_same_sample(void **state)
{
	struct tb *tb = open_shipped("cx7"), *tb2 = open_shipped("cx7");
	struct gen_levels l;
	struct tb_sample a, b, c;

	(void)state;
	su_levels(&l, 64, 2, 2, 2, 2);
	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	su_run(tb, &l, 42, &a);                     /* two testbeds with the same history */
	su_run(tb2, &l, 42, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	su_run(tb, &l, 42, &b);                     /* same rules again: no programming cost */
	assert_true(b.bw_gbps == a.bw_gbps && b.lat_p99_us == a.lat_p99_us);
	su_run(tb, &l, 43, &c);
	assert_true(a.bw_gbps != c.bw_gbps);
	assert_true(a.lat_median_us != c.lat_median_us);
	tb_close(tb);
	tb_close(tb2);
}

static void cv_of(const double *v, int n, double *mean, double *cv)
{
	double s = 0, s2 = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	*mean = s / n;
	for (int i = 0; i < n; i++)
		s2 += (v[i] - *mean) * (v[i] - *mean);
	*cv = sqrt(s2 / (n - 1)) / *mean;
}

static void test_sim_noise_cv(void **state)
{
	char *t = su_profile_text("cx7");
	double bw[200], lat[200], mean, bw_mean, cv;
	struct gen_rules *r;
	struct gen_traffic tr;
	struct gen_levels l;
	struct scn_error err;
	struct tb *tb;
	int low = 0;

	(void)state;
	su_set(&t, "noise", "outlier_p", "0");
	/* The measured CV follows the configured one (set here, whatever the profile says). */
	su_set(&t, "noise", "cv", "0.02");
	tb = su_open_text(t);
	free(t);
	su_levels(&l, 64, 2, 2, 2, 2);
	r = su_rules(&l);
	gen_traffic_from_levels(&l, &tr);
	assert_int_equal(tb_apply(tb, r, &err), 0);
	for (int i = 0; i < 200; i++) {
		struct tb_sample s;

		assert_int_equal(tb_measure(tb, &tr, (uint64_t)i * 7919u, &s, &err), 0);
		bw[i] = s.bw_gbps;
		lat[i] = s.lat_median_us;
	}
	cv_of(bw, 200, &mean, &cv);
	within(cv, 0.02, 0.30, "bandwidth CV");
	bw_mean = mean;
	cv_of(lat, 200, &mean, &cv);
	within(cv, 0.02, 0.30, "latency CV");
	tb_close(tb);
	/* outliers: probability and magnitude from the profile */
	t = su_profile_text("cx7");
	su_set(&t, "noise", "outlier_p", "0.5");
	su_set(&t, "noise", "outlier_factor", "3");
	tb = su_open_text(t);
	free(t);
	assert_int_equal(tb_apply(tb, r, &err), 0);
	for (int i = 0; i < 200; i++) {
		struct tb_sample s;

		assert_int_equal(tb_measure(tb, &tr, (uint64_t)i, &s, &err), 0);
		low += s.bw_gbps < 0.5 * bw_mean;
	}
	assert_true(low > 70 && low < 130);
	gen_rules_free(r);
	tb_close(tb);
}

/* ---- capacity cliffs of shipped profiles --------------------------------------------------- */

static enum tb_status status_of(struct tb *tb, struct gen_levels *l, struct tb_sample *s)
{
	su_run(tb, l, 1, s);
	return s->status;
}

static void test_sim_e810_capacity_cliffs(void **state)
{
	struct tb *tb = open_shipped("e810");
	struct gen_levels l;
	struct tb_sample s;

	(void)state;
	su_levels(&l, 128, 0, 0, 0, 64);            /* 64 recipes: the limit */
	assert_int_equal(status_of(tb, &l, &s), TB_OK);
	l.masks[GEN_SERVER][GEN_DECAP] = 65;
	assert_int_equal(status_of(tb, &l, &s), TB_APPLY_FAILED);
	assert_true(isnan(s.bw_gbps));
	su_levels(&l, 8192, 1, 1, 1, 1);            /* 16384 entries per host: fits */
	assert_int_equal(status_of(tb, &l, &s), TB_OK);
	assert_true(s.bw_gbps > 50);
	l.flows = 8200;                             /* 16400: ENOSPC */
	assert_int_equal(status_of(tb, &l, &s), TB_APPLY_FAILED);
	tb_close(tb);
}

static void test_sim_cx6_collapse_between_7k_and_8k(void **state)
{
	struct tb *a = open_shipped("cx6"), *b = open_shipped("cx6");
	struct gen_levels l;
	struct tb_sample s7, s8;

	(void)state;
	su_levels(&l, 7000, 4, 4, 4, 4);
	bw_levels(&l, TOPO_VERB_WRITE, 65536, 4096);
	su_run(a, &l, 1, &s7);
	l.flows = 8000;
	su_run(b, &l, 1, &s8);
	assert_int_equal(s7.status, TB_OK);
	assert_int_equal(s8.status, TB_OK);
	assert_true(tb_sample_counter(&s7, "tc_not_in_hw") == 0);
	assert_true(tb_sample_counter(&s8, "tc_not_in_hw") > 0);
	assert_true(s8.bw_gbps < 0.5 * s7.bw_gbps);
	tb_close(a);
	tb_close(b);
}

static void test_sim_missing_rules_go_to_software(void **state)
{
	struct tb *tb = open_only(NULL);
	struct gen_levels l;
	struct gen_rules *r;
	struct gen_traffic t;
	struct scn_error err;
	struct tb_sample all, half;

	(void)state;
	su_levels(&l, 16, 1, 1, 1, 1);
	bw_levels(&l, TOPO_VERB_WRITE, 65536, 4096);
	r = su_rules(&l);
	gen_traffic_from_levels(&l, &t);
	assert_int_equal(tb_apply(tb, r, &err), 0);
	assert_int_equal(tb_measure(tb, &t, 1, &all, &err), 0);
	t.flows = 32;                               /* half the traffic has no rule */
	assert_int_equal(tb_measure(tb, &t, 1, &half, &err), 0);
	assert_true(tb_sample_counter(&all, "rx_steer_missed_packets") == 0);
	assert_true(tb_sample_counter(&half, "rx_steer_missed_packets") > 0);
	assert_true(half.bw_gbps < 0.5 * all.bw_gbps);
	gen_rules_free(r);
	tb_close(tb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_calibration_cx7),
		cmocka_unit_test(test_sim_same_seed_same_sample),
		cmocka_unit_test(test_sim_noise_cv),
		cmocka_unit_test(test_sim_e810_capacity_cliffs),
		cmocka_unit_test(test_sim_cx6_collapse_between_7k_and_8k),
		cmocka_unit_test(test_sim_missing_rules_go_to_software),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
