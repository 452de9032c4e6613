/* SPDX-License-Identifier: MIT */
/*
 * test-sim: unit tests of the simulated testbed (testbeds/sim, testbeds/tb.c), one mechanism
 * at a time with every other mechanism switched off (profile variants written as YAML text
 * into temporary files): the steering walk (per-flow probes against topo_ruleset_classify on
 * small rule sets, masks on the receive and send paths, popularity weights), the steering
 * cache and its fallback, encap contexts, rule programming, the QP cache, UAR pages, MTU and
 * line rate, traffic classes. Calibration, noise and capacity cliffs are in
 * test-sim-calib.c; describe, the dispatcher and profile errors in test-sim-iface.c.
 * Assumes SCALACN_SOURCE_ROOT.
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

static double bw_of(struct tb *tb, const struct gen_levels *l)
{
	struct tb_sample s;

	su_run(tb, l, 7, &s);
	assert_int_equal(s.status, TB_OK);
	return s.bw_gbps;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
