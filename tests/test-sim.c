/* SPDX-License-Identifier: MIT */
/*
 * test-sim: unit tests of the simulated testbed (testbeds/sim, testbeds/tb.c).
 *
 * Calibration of the CX-7 profile against the public ScalaCN measurements; one test per
 * mechanism with every other mechanism switched off (profile variants written as YAML text
 * into temporary files); per-flow probes against topo_ruleset_classify on small rule sets;
 * seeded noise (bit-identical samples, CV); capacity cliffs of the shipped E810 and CX-6
 * profiles; profile and testbed-file errors with file:line. Assumes SCALACN_SOURCE_ROOT.
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
#include "generators/gen_packet.h"
#include "testbeds/sim/tb_sim.h"
#include "testbeds/tb.h"
#include "tests/test-sim-util.h"

static double mib_s(double gbps)
{
	return gbps * 1e9 / 8.0 / 1048576.0;
}

static void within(double got, double want, double tol, const char *what)
{
	double rel = fabs(got - want) / want;

	if (rel > tol)
		fail_msg("%s: got %.4g, want %.4g (+-%.0f%%), off by %.1f%%", what, got, want,
			 tol * 100, rel * 100);
}

/* A profile with only MECH switched on (NULL: none). Caller frees. */
static char *only(const char *mech)
{
	char *t = su_profile_text("cx7");

	su_all_off(&t);
	if (mech)
		su_enable(&t, mech, 1);
	return t;
}

static struct tb *open_only(const char *mech)
{
	char *t = only(mech);
	struct tb *tb = su_open_text(t);

	free(t);
	return tb;
}

static void bw_levels(struct gen_levels *l, enum topo_verb v, uint32_t size, uint32_t mtu)
{
	l->verb = v;
	l->metric = GEN_METRIC_BW;
	l->msg_size = size;
	l->mtu = mtu;
}

static double bw_of(struct tb *tb, const struct gen_levels *l)
{
	struct tb_sample s;

	su_run(tb, l, 7, &s);
	assert_int_equal(s.status, TB_OK);
	return s.bw_gbps;
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

static struct tb *open_shipped(const char *name)
{
	char *t = su_profile_text(name);
	struct tb *tb = su_open_text(t);

	free(t);
	return tb;
}

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

/* ---- steering walk ---------------------------------------------------------------------- */

/* Per-flow probes equal the classifier's on small generated sets: exactly with one shared
 * tree, and minus the other direction's groups (which come first in table 0) without. */
static void check_probes(bool shared)
{
	char *t = su_profile_text("cx7");
	struct gen_levels l;
	struct gen_rules *r;
	struct scn_error err;
	struct tb *tb;

	su_set(&t, "steering", "shared_tree", shared ? "true" : "false");
	tb = su_open_text(t);
	free(t);
	su_levels(&l, 12, 3, 4, 2, 5);
	r = su_rules(&l);
	assert_int_equal(tb_apply(tb, r, &err), 0);
	for (int h = 0; h < GEN_HOSTS; h++)
		for (int d = 0; d < GEN_DIRS; d++)
			for (uint32_t f = 0; f < l.flows; f++) {
				uint64_t pkt[TOPO_F_COUNT];
				unsigned probes = 0;
				int rule = -1;
				long want;

				assert_int_equal(gen_flow_packet(r, h, d, f, pkt), 0);
				assert_int_equal(topo_ruleset_classify(r->host[h], pkt, &rule,
								       &probes), 0);
				assert_true(rule >= 0);
				want = probes;
				if (!shared && d == GEN_DECAP)
					want -= l.masks[h][GEN_ENCAP];
				assert_int_equal(tb_sim_test_probes(tb, h, d, f), want);
			}
	assert_int_equal(tb_sim_test_probes(tb, GEN_CLIENT, GEN_ENCAP, 12), -1);
	gen_rules_free(r);
	tb_close(tb);
}

static void test_sim_probes_match_classifier(void **state)
{
	(void)state;
	check_probes(true);
	check_probes(false);
}

static void test_sim_steering_rx_masks(void **state)
{
	struct tb *tb = open_only("steering");
	static const uint32_t sd[] = { 0, 16, 64, 128 };
	double w[4], r[4], lat0, lat128;
	struct gen_levels l;

	(void)state;
	for (int i = 0; i < 4; i++) {
		su_levels(&l, 256, 0, 0, 0, sd[i]);
		bw_levels(&l, TOPO_VERB_WRITE, 65536, 1024);
		w[i] = bw_of(tb, &l);
		l.verb = TOPO_VERB_READ;
		r[i] = bw_of(tb, &l);
	}
	/* write data walks the server's decap masks: it falls, and keeps falling */
	assert_true(w[1] < 0.9 * w[0]);
	assert_true(w[2] < 0.8 * w[1]);
	assert_true(w[3] < 0.8 * w[2]);
	assert_true(w[3] < 0.3 * w[0]);
	/* read data goes server tx -> client rx: only its requests walk the server's decap */
	assert_true(r[3] > 0.95 * r[0]);
	/* latency rises with the masks */
	su_levels(&l, 256, 0, 0, 0, 0);
	l.metric = GEN_METRIC_LAT;
	l.msg_size = 2;
	lat0 = su_median(tb, &l, 1);
	l.masks[GEN_SERVER][GEN_DECAP] = 128;
	lat128 = su_median(tb, &l, 1);
	assert_true(lat128 > lat0 + 5.0);
	tb_close(tb);
}

static void test_sim_steering_read_follows_client_decap(void **state)
{
	struct tb *tb = open_only("steering");
	struct gen_levels l;
	double r0, r128, w_tx, w_rx;

	(void)state;
	su_levels(&l, 256, 0, 0, 0, 0);
	bw_levels(&l, TOPO_VERB_READ, 65536, 1024);
	r0 = bw_of(tb, &l);
	l.masks[GEN_CLIENT][GEN_DECAP] = 128;
	r128 = bw_of(tb, &l);
	assert_true(r128 < 0.3 * r0);
	/* the send path (encap) costs less per mask than the receive path */
	su_levels(&l, 256, 64, 0, 0, 0);
	bw_levels(&l, TOPO_VERB_WRITE, 65536, 1024);
	w_tx = bw_of(tb, &l);
	su_levels(&l, 256, 0, 0, 0, 64);
	bw_levels(&l, TOPO_VERB_WRITE, 65536, 1024);
	w_rx = bw_of(tb, &l);
	assert_true(w_tx > 1.5 * w_rx);
	tb_close(tb);
}

/* The walk is weighted by flow popularity: latency follows sum_f w_f * probes_f. */
static void test_sim_steering_popularity_weights(void **state)
{
	struct tb *tb = open_only("steering");
	struct gen_levels l;
	struct gen_traffic t;
	double base, lat, mean = 0;

	(void)state;
	su_levels(&l, 256, 0, 0, 0, 0);
	l.metric = GEN_METRIC_LAT;
	l.msg_size = 2;
	l.verb = TOPO_VERB_SEND;
	base = su_median(tb, &l, 1);
	l.masks[GEN_SERVER][GEN_DECAP] = 16;
	l.popularity = GEN_POP_ZIPF;
	l.zipf_s = 1.2;
	lat = su_median(tb, &l, 1);
	gen_traffic_from_levels(&l, &t);
	for (uint32_t f = 0; f < l.flows; f++)
		mean += gen_flow_weight(&t, f, l.flows) *
			(double)tb_sim_test_probes(tb, GEN_SERVER, GEN_DECAP, f);
	assert_true(fabs(mean - 8.5) > 0.2);        /* differs from the uniform mean */
	/* half RTT adds half the server's decap walk: 0.294 us per probe in cx7.yaml */
	within(lat - base, 0.294 * mean / 2, 1e-6, "latency added by a Zipf walk");
	tb_close(tb);
}

static void test_sim_steering_off_has_no_effect(void **state)
{
	struct tb *tb = open_only(NULL);
	struct gen_levels l;
	double a, b;

	(void)state;
	su_levels(&l, 256, 0, 0, 0, 0);
	bw_levels(&l, TOPO_VERB_WRITE, 65536, 1024);
	a = bw_of(tb, &l);
	l.masks[GEN_SERVER][GEN_DECAP] = 128;
	b = bw_of(tb, &l);
	assert_true(a == b);
	tb_close(tb);
}

/* ---- steering cache ---------------------------------------------------------------------- */

static void test_sim_cache_resident_masks(void **state)
{
	struct tb *tb = open_only("steering_cache");
	struct gen_levels l;
	double b0, b64, b512;

	(void)state;
	su_levels(&l, 512, 0, 0, 0, 0);
	bw_levels(&l, TOPO_VERB_WRITE, 65536, 1024);
	b0 = bw_of(tb, &l);
	l.masks[GEN_SERVER][GEN_DECAP] = 64;  /* all resident (128): no miss */
	b64 = bw_of(tb, &l);
	l.masks[GEN_SERVER][GEN_DECAP] = 512; /* 3/4 of the lookups go to host memory */
	b512 = bw_of(tb, &l);
	assert_true(b64 == b0);
	assert_true(b512 < 0.5 * b64);
	tb_close(tb);
}

static void fallback_point(struct tb *tb, uint32_t flows, double *bw, double *not_in_hw)
{
	struct gen_levels l;
	struct tb_sample s;

	su_levels(&l, flows, 1, 1, 1, 1);
	bw_levels(&l, TOPO_VERB_WRITE, 65536, 1024);
	su_run(tb, &l, 3, &s);
	assert_int_equal(s.status, TB_OK);
	*bw = s.bw_gbps;
	*not_in_hw = tb_sample_counter(&s, "tc_not_in_hw");
	assert_false(isnan(*not_in_hw));
}

static void test_sim_cache_fallback_hysteresis(void **state)
{
	char *t = only("steering_cache");
	struct tb *tb, *fresh;
	double ok, nhw, bw, nhw2;

	(void)state;
	su_set(&t, "steering_cache", "hard_capacity", "2000"); /* rules per host */
	su_set(&t, "steering_cache", "recover_below", "1200");
	tb = su_open_text(t);
	fresh = su_open_text(t);
	free(t);
	fallback_point(tb, 800, &ok, &nhw);        /* 1600 rules per host: in hardware */
	assert_true(nhw == 0);
	fallback_point(tb, 1200, &bw, &nhw);       /* 2400 > 2000: software fallback (S1) */
	assert_true(nhw > 0);
	assert_true(bw < 0.3 * ok);
	fallback_point(tb, 900, &bw, &nhw);        /* 1800: below capacity, above 1200: stays */
	assert_true(nhw > 0);
	assert_true(bw < 0.5 * ok);
	fallback_point(fresh, 900, &bw, &nhw2);    /* without the history: in hardware */
	assert_true(nhw2 == 0);
	assert_true(bw > 0.99 * ok);
	fallback_point(tb, 500, &bw, &nhw);        /* 1000 < 1200: recovered */
	assert_true(nhw == 0);
	assert_true(bw > 0.99 * ok);
	tb_close(tb);
	tb_close(fresh);
}

/* ---- encap contexts ---------------------------------------------------------------------- */

static void test_sim_encap_contexts_timeout(void **state)
{
	char *t = only("encap_contexts");
	struct gen_levels l;
	struct tb_sample s;
	struct tb *tb;

	(void)state;
	su_set(&t, "encap_contexts", "capacity", "8");
	tb = su_open_text(t);
	free(t);
	su_levels(&l, 64, 1, 0, 0, 1);
	l.encap_contexts = 8;
	su_run(tb, &l, 1, &s);
	assert_int_equal(s.status, TB_OK);
	assert_true(tb_sample_counter(&s, "local_ack_timeout_err") == 0);
	l.encap_contexts = 16;
	su_run(tb, &l, 1, &s);
	assert_int_equal(s.status, TB_TIMEOUT);
	assert_true(isnan(s.bw_gbps) && isnan(s.lat_median_us)); /* a timeout measured nothing */
	assert_true(tb_sample_counter(&s, "local_ack_timeout_err") > 0);
	tb_close(tb);
}

/* ---- rule programming -------------------------------------------------------------------- */

static void test_sim_churn_costs_bandwidth(void **state)
{
	struct tb *tb = open_only("rule_programming");
	struct gen_levels l;
	double b0, b1k, b16k;

	(void)state;
	su_levels(&l, 256, 1, 1, 1, 1);
	bw_levels(&l, TOPO_VERB_WRITE, 65536, 1024);
	b0 = bw_of(tb, &l);
	l.rule_churn = 1024;
	b1k = bw_of(tb, &l);
	l.rule_churn = 16384;
	b16k = bw_of(tb, &l);
	assert_true(b1k < b0);
	assert_true(b16k < b1k);
	assert_true(b16k < 0.9 * b0);
	tb_close(tb);
}

static double cost_after(struct tb *tb, const struct gen_levels *l, bool apply)
{
	struct gen_rules *r = su_rules(l);
	struct gen_traffic t;
	struct scn_error err;
	struct tb_sample s;

	gen_traffic_from_levels(l, &t);
	if (apply)
		assert_int_equal(tb_apply(tb, r, &err), 0);
	assert_int_equal(tb_measure(tb, &t, 1, &s, &err), 0);
	gen_rules_free(r);
	return s.cost_s;
}

static void test_sim_apply_cost_is_incremental(void **state)
{
	struct tb *tb = open_only("rule_programming");
	double first, plain, same, changed, overhead = 0.2, rate = 33000;
	struct gen_levels l;

	(void)state;
	su_levels(&l, 256, 1, 1, 1, 1);           /* 512 rules per host */
	first = cost_after(tb, &l, true);
	plain = cost_after(tb, &l, false);
	within(first - plain, overhead + 512 / rate, 1e-9, "first apply cost");
	same = cost_after(tb, &l, true);          /* nothing changed: nothing to program */
	assert_true(same == plain);
	l.masks[GEN_SERVER][GEN_DECAP] = 2;       /* half the server's decap rules move */
	changed = cost_after(tb, &l, true);
	assert_true(changed - plain > overhead);
	assert_true(changed - plain < first - plain);
	tb_close(tb);
}

/* ---- QP context / translation cache ---------------------------------------------------- */

static void test_sim_qp_cache_qps_and_pages(void **state)
{
	struct tb *tb = open_only("qp_cache");
	struct gen_levels l;
	double one, many_small, many_huge;

	(void)state;
	su_levels(&l, 16, 0, 0, 0, 0);
	bw_levels(&l, TOPO_VERB_WRITE, 8u << 20, 4096);
	l.page_size = 4096;
	l.qps = 1;
	one = bw_of(tb, &l);
	l.qps = 1024;
	many_small = bw_of(tb, &l);
	l.page_size = 2u << 20;
	many_huge = bw_of(tb, &l);
	assert_true(many_small < 0.7 * one);      /* translations of 1024 QPs miss */
	assert_true(many_huge > 0.95 * one);      /* hugepages: the working set fits */
	tb_close(tb);
}

/* ---- UAR pages ---------------------------------------------------------------------------- */

static double msg_rate(struct tb *tb, uint32_t size, uint32_t cores, uint32_t spread)
{
	struct gen_levels l;
	struct tb_sample s;

	su_levels(&l, 16, 0, 0, 0, 0);
	bw_levels(&l, TOPO_VERB_WRITE, size, 4096);
	l.qps = 16;
	l.cores = cores;
	l.uar_spread = spread;
	su_run(tb, &l, 1, &s);
	return s.msg_rate_mpps;
}

static void test_sim_uar_contention(void **state)
{
	struct tb *tb = open_only("uar");

	(void)state;
	/* 8 cores on one page serialise; spread over pages they do not */
	assert_true(msg_rate(tb, 64, 8, 16) < 0.7 * msg_rate(tb, 64, 8, 1));
	/* one core has nobody to contend with */
	assert_true(msg_rate(tb, 64, 1, 16) == msg_rate(tb, 64, 1, 1));
	/* large messages are limited by the wire, not by doorbells */
	assert_true(msg_rate(tb, 8u << 20, 8, 16) == msg_rate(tb, 8u << 20, 8, 1));
	tb_close(tb);
}

/* ---- link, MTU, traffic class --------------------------------------------------------------- */

static void test_sim_mtu_and_line_rate(void **state)
{
	struct tb *tb = open_only(NULL);
	struct gen_levels l;
	struct tb_sample s256, s4k;

	(void)state;
	su_levels(&l, 16, 0, 0, 0, 0);
	bw_levels(&l, TOPO_VERB_WRITE, 65536, 4096);
	su_run(tb, &l, 1, &s4k);
	l.mtu = 256;
	su_run(tb, &l, 1, &s256);
	/* 4096: wire-bound, the payload share of each packet on a 200 Gb/s line;
	 * 256: bound by the per-packet pipeline cost (20 ns) before the wire (15.5 ns) */
	within(s4k.bw_gbps, 200.0 * 4096 / (4096 + 132), 1e-9, "bw at mtu 4096");
	within(s256.bw_gbps, 256 * 8 / 20.0, 1e-9, "bw at mtu 256");
	/* packets per message = ceil(size / mtu): 256 vs 16 */
	within(tb_sample_counter(&s256, "tx_vport_rdma_unicast_packets") / l.iterations,
	       256 + 256 / 16.0, 1e-6, "packets (data + acks) per message at mtu 256");
	tb_close(tb);
}

static void test_sim_traffic_class(void **state)
{
	struct tb *tb = open_only("traffic_class");
	struct gen_levels l;
	double idle0, idle7, load0, load7;

	(void)state;
	su_levels(&l, 16, 0, 0, 0, 0);
	l.metric = GEN_METRIC_LAT;
	l.msg_size = 2;
	idle0 = su_median(tb, &l, 1);
	l.traffic_class = 7;
	idle7 = su_median(tb, &l, 1);
	bw_levels(&l, TOPO_VERB_WRITE, 65536, 4096);
	{
		struct tb_sample s;

		su_run(tb, &l, 1, &s);
		load7 = s.lat_median_us;
		l.traffic_class = 0;
		su_run(tb, &l, 1, &s);
		load0 = s.lat_median_us;
	}
	assert_true(idle7 < idle0);
	assert_true((idle0 - idle7) / idle0 < 0.05);      /* small without load */
	assert_true(load7 < load0);
	assert_true(load0 - load7 > 5 * (idle0 - idle7)); /* larger under load */
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

/* ---- interface: describe, dispatcher, profile errors ----------------------------------------- */

static void test_sim_describe_shows_no_parameters(void **state)
{
	static const char *const shipped[] = { "cx4", "cx5", "cx6", "cx7", "bf3", "e810" };
	const char *root = getenv("SCALACN_SOURCE_ROOT");

	(void)state;
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		struct tb_description d;
		struct scn_error err;
		struct tb *tb = NULL;
		struct gen_levels l;
		struct tb_sample s;
		char path[1024];
		bool steer = false;

		snprintf(path, sizeof(path), "%s/examples/testbeds/sim-%s.yaml", root ? root : ".",
			 shipped[i]);
		scn_error_clear(&err);
		assert_int_equal(tb_open(path, &tb, &err), 0);
		assert_int_equal(tb_describe(tb, &d, &err), 0);
		assert_string_equal(d.kind, "sim");
		assert_true(strlen(d.rnic_model) > 0 && strlen(d.firmware) > 0);
		assert_true(d.line_rate_gbps >= 25);
		assert_true(strstr(d.identity, "sim:") == d.identity);
		for (unsigned c = 0; c < d.n_counter_names; c++) {
			assert_null(strstr(d.counter_names[c], "cache"));
			steer |= strcmp(d.counter_names[c], "rx_steer_missed_packets") == 0;
		}
		assert_true(steer);
		su_levels(&l, 64, 4, 4, 4, 4);
		su_run(tb, &l, 1, &s);
		assert_int_equal(s.status, TB_OK);
		assert_int_equal(s.n_counters, d.n_counter_names);
		assert_true(s.bw_gbps > 0 && s.bw_gbps <= d.line_rate_gbps);
		tb_close(tb);
	}
	tb_close(NULL);
}

/* Every shipped profile gives finite, bounded numbers over a small grid of points. */
static void test_sim_shipped_profiles_sane(void **state)
{
	static const char *const shipped[] = { "cx4", "cx5", "cx6", "cx7", "bf3", "e810" };
	static const uint32_t masks[] = { 0, 1, 8, 64 }, flows[] = { 64, 2048 };

	(void)state;
	for (size_t p = 0; p < sizeof(shipped) / sizeof(shipped[0]); p++) {
		struct tb *tb = open_shipped(shipped[p]);
		struct tb_description d;
		struct scn_error err;

		assert_int_equal(tb_describe(tb, &d, &err), 0);
		for (size_t m = 0; m < 4; m++)
			for (size_t f = 0; f < 2; f++) {
				struct gen_levels l;
				struct gen_rules *r;
				struct gen_traffic t;

				su_levels(&l, flows[f], masks[m], masks[m], masks[m], masks[m]);
				r = su_rules(&l);
				assert_int_equal(tb_apply(tb, r, &err), 0);
				for (int v = 0; v < TOPO_VERB_COUNT; v++)
					for (int metric = 0; metric < 2; metric++) {
						struct tb_sample s;

						l.verb = (enum topo_verb)v;
						l.metric = (enum gen_metric)metric;
						gen_traffic_from_levels(&l, &t);
						assert_int_equal(tb_measure(tb, &t, 5, &s, &err), 0);
						if (p == 5 && 2 * masks[m] > 64) { /* e810: recipes */
							assert_int_equal(s.status, TB_APPLY_FAILED);
							continue;
						}
						assert_int_equal(s.status, TB_OK);
						/* a latency test measures no bandwidth (NAN) */
						assert_true(metric == GEN_METRIC_LAT ? isnan(s.bw_gbps)
										     : s.bw_gbps > 0);
						assert_true(metric == GEN_METRIC_LAT ||
							    s.bw_gbps <= d.line_rate_gbps * 1.2);
						assert_true(s.lat_median_us > 0 &&
							    s.lat_p99_us >= s.lat_median_us);
						assert_true(s.msg_rate_mpps > 0 && s.cost_s > 0);
						for (unsigned c = 0; c < s.n_counters; c++)
							assert_true(isfinite(s.counters[c].value) &&
								    s.counters[c].value >= 0);
					}
				gen_rules_free(r);
			}
		tb_close(tb);
	}
}

/* Open a testbed file with TEXT; return the formatted error (empty when it opened). */
static const char *open_error(const char *dir_text, const char *profile_text, char *msg,
			      size_t len)
{
	char path[512];
	struct scn_error err;
	struct tb *tb = NULL;
	FILE *f;

	su_write_testbed(profile_text ? profile_text : "", path, sizeof(path));
	if (dir_text) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(dir_text, f);
		fclose(f);
	}
	scn_error_clear(&err);
	msg[0] = '\0';
	if (tb_open(path, &tb, &err) < 0) {
		assert_int_equal(err.cls, SCN_ERR_CONFIG);
		scn_error_format(&err, msg, len);
	}
	tb_close(tb);
	su_remove(path);
	return msg;
}

static void expect_at(const char *msg, const char *file, int line, const char *needle)
{
	char want[64];

	snprintf(want, sizeof(want), "%s:%d:", file, line);
	if (!strstr(msg, want) || !strstr(msg, needle))
		fail_msg("error '%s' lacks '%s' or '%s'", msg, want, needle);
}

static void test_sim_dispatch_kinds(void **state)
{
	char msg[1024];

	(void)state;
	open_error("# lab\nkind: vm\n", NULL, msg, sizeof(msg));
	expect_at(msg, "testbed.yaml", 2,
		  "testbed kind 'vm' is not built yet in this version");
	open_error("kind: qemu\n", NULL, msg, sizeof(msg));
	expect_at(msg, "testbed.yaml", 1, "unknown testbed kind 'qemu' (known: sim");
	open_error("kind: sim\nprofile: cx6\n", NULL, msg, sizeof(msg));
	assert_string_equal(msg, "");               /* a shipped profile by bare name */
	open_error("kind: sim\nprofile: nosuch\n", NULL, msg, sizeof(msg));
	expect_at(msg, "testbed.yaml", 2, "profile 'nosuch' not found");
	open_error("kind: sim\nprofile: cx6\ncolour: red\n", NULL, msg, sizeof(msg));
	expect_at(msg, "testbed.yaml", 3, "unknown key 'colour'");
}

static void test_sim_profile_errors(void **state)
{
	char msg[1024], *t;
	char *p;

	(void)state;
	/* unknown key */
	t = su_profile_text("cx7");
	p = strstr(t, "  shared_tree:");
	assert_non_null(p);
	memcpy(p, "  shared_trex:", 14);
	open_error(NULL, t, msg, sizeof(msg));
	expect_at(msg, "profile.yaml", su_line_of(t, "shared_trex"), "unknown key 'shared_trex'");
	free(t);
	/* negative capacity */
	t = su_profile_text("cx7");
	su_set(&t, "encap_contexts", "capacity", "-4096");
	open_error(NULL, t, msg, sizeof(msg));
	expect_at(msg, "profile.yaml", su_line_of(t, "capacity: -4096"), "-4096 is out of range [0,");
	assert_non_null(strstr(msg, "encap_contexts.capacity"));
	free(t);
	/* missing field of an enabled mechanism */
	t = su_profile_text("cx7");
	p = strstr(t, "  rx_probe_ns:");
	assert_non_null(p);
	memcpy(p, "# ", 2);
	open_error(NULL, t, msg, sizeof(msg));
	/* reported at the mapping: its first key, the line after "steering:" */
	expect_at(msg, "profile.yaml", su_line_of(t, "\nsteering:") + 2, "missing key");
	assert_non_null(strstr(msg, "steering.rx_probe_ns"));
	free(t);
	/* cross-field check */
	t = su_profile_text("cx7");
	su_set(&t, "steering_cache", "recover_below", "300000");
	open_error(NULL, t, msg, sizeof(msg));
	expect_at(msg, "profile.yaml", su_line_of(t, "recover_below: 300000"),
		  "must not exceed hard_capacity");
	free(t);
	/* a disabled mechanism may leave its numbers out */
	t = strdup("model: m\nfirmware: f\nline_rate_gbps: 100\n"
		   "link: {mtu: 1024, max_mtu: 4096, wire_overhead_bytes: 82, per_packet_ns: 10,"
		   " per_message_ns: 100, ack_every_packets: 16, base_latency_us: 2,"
		   " lat_per_kib_us: 0.1, read_extra_us: 0.5, p99_ratio: 1.1,"
		   " rx_overflow_drop: 0, cnp_interval_us: 4, software_gbps: 10,"
		   " software_latency_us: 80}\n"
		   "timing: {setup_s: 1, settle_s: 0}\n"
		   "steering: {enabled: false}\nsteering_cache: {enabled: false}\n"
		   "rule_capacity: {enabled: false}\nencap_contexts: {enabled: false}\n"
		   "rule_programming: {enabled: false}\nqp_cache: {enabled: false}\n"
		   "uar: {enabled: false}\ntraffic_class: {enabled: false}\n"
		   "noise: {enabled: false}\n");
	open_error(NULL, t, msg, sizeof(msg));
	assert_string_equal(msg, "");
	free(t);
}

static void test_sim_sample_helpers(void **state)
{
	struct tb_sample s;
	enum tb_status st;
	char name[32];

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_true(isnan(tb_sample_counter(&s, "port_xmit_data")));
	assert_int_equal(tb_sample_add_counter(&s, "port_xmit_data", 4), 0);
	assert_int_equal(tb_sample_add_counter(&s, "port_xmit_data", 5), 0); /* overwrites */
	assert_int_equal(s.n_counters, 1);
	assert_true(tb_sample_counter(&s, "port_xmit_data") == 5);
	for (int i = 1; i < TB_MAX_COUNTERS; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		assert_int_equal(tb_sample_add_counter(&s, name, i), 0);
	}
	assert_int_equal(tb_sample_add_counter(&s, "one_too_many", 1), -ENOSPC);
	assert_int_equal(tb_sample_add_counter(&s, NULL, 1), -EINVAL);
	for (int i = 0; i < TB_STATUS_COUNT; i++) {
		assert_int_equal(tb_status_parse(tb_status_name((enum tb_status)i), &st), 0);
		assert_int_equal(st, i);
	}
	assert_string_equal(tb_status_name(TB_APPLY_FAILED), "apply_failed");
	assert_int_equal(tb_status_parse("fine", &st), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_calibration_cx7),
		cmocka_unit_test(test_sim_probes_match_classifier),
		cmocka_unit_test(test_sim_steering_rx_masks),
		cmocka_unit_test(test_sim_steering_read_follows_client_decap),
		cmocka_unit_test(test_sim_steering_popularity_weights),
		cmocka_unit_test(test_sim_steering_off_has_no_effect),
		cmocka_unit_test(test_sim_cache_resident_masks),
		cmocka_unit_test(test_sim_cache_fallback_hysteresis),
		cmocka_unit_test(test_sim_encap_contexts_timeout),
		cmocka_unit_test(test_sim_churn_costs_bandwidth),
		cmocka_unit_test(test_sim_apply_cost_is_incremental),
		cmocka_unit_test(test_sim_qp_cache_qps_and_pages),
		cmocka_unit_test(test_sim_uar_contention),
		cmocka_unit_test(test_sim_mtu_and_line_rate),
		cmocka_unit_test(test_sim_traffic_class),
		cmocka_unit_test(test_sim_same_seed_same_sample),
		cmocka_unit_test(test_sim_noise_cv),
		cmocka_unit_test(test_sim_e810_capacity_cliffs),
		cmocka_unit_test(test_sim_cx6_collapse_between_7k_and_8k),
		cmocka_unit_test(test_sim_missing_rules_go_to_software),
		cmocka_unit_test(test_sim_describe_shows_no_parameters),
		cmocka_unit_test(test_sim_shipped_profiles_sane),
		cmocka_unit_test(test_sim_dispatch_kinds),
		cmocka_unit_test(test_sim_profile_errors),
		cmocka_unit_test(test_sim_sample_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
