/* SPDX-License-Identifier: MIT */
/*
 * test-sim-memo: the simulator's memo of rule-set analyses and rule diffs (sim_memo.c) does
 * not change what a testbed shows. Two simulated CX-6s take the same sequence of points, one
 * through the rule-set cache (content ids: the memo is used) and one from plain builds (no
 * ids: every rule set scanned and diffed): every sample (numbers, cost, counters) is the
 * same. The sequence comes back to rule sets seen before, goes back and forth between two
 * (the diff memo), and visits one rule set both inside and outside the software fallback
 * (CX-6: 15000 rules per host enter it, below 12000 leave it), where the same rules are
 * analysed with a different share in hardware. And an apply of no rule set costs the
 * programming of removing every rule, with and without content ids.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test-sim-util.h"

static void apply_measure(struct tb *tb, struct gen_rules *r, const struct gen_levels *l,
			  uint64_t seed, struct tb_sample *s)
{
	struct gen_traffic t;
	struct scn_error err;

	scn_error_clear(&err);
	gen_traffic_from_levels(l, &t);
	assert_int_equal(tb_apply(tb, r, &err), 0);
	assert_int_equal(tb_measure(tb, &t, seed, s, &err), 0);
}

static void assert_same_sample(const struct tb_sample *a, const struct tb_sample *b,
			       unsigned step)
{
	print_message("step %u: bw %.4f / %.4f Gb/s, cost %.6f / %.6f s\n", step, a->bw_gbps,
		      b->bw_gbps, a->cost_s, b->cost_s);
	assert_int_equal(a->status, b->status);
	assert_memory_equal(&a->bw_gbps, &b->bw_gbps, sizeof(double));
	assert_memory_equal(&a->lat_median_us, &b->lat_median_us, sizeof(double));
	assert_memory_equal(&a->cost_s, &b->cost_s, sizeof(double));
	assert_int_equal(a->n_counters, b->n_counters);
	for (unsigned i = 0; i < a->n_counters; i++) {
		assert_string_equal(a->counters[i].name, b->counters[i].name);
		assert_memory_equal(&a->counters[i].value, &b->counters[i].value, sizeof(double));
	}
}

static void test_memo_keeps_samples(void **state)
{
	/* flows per step: 4096 (8192 rules per host), 8192 (16384: fallback), 7000 (14000:
	 * inside the hysteresis band, so in fallback only when it comes after 8192) */
	static const uint32_t flows[] = { 4096, 8192, 4096, 8192, 7000, 4096, 7000, 8192, 7000,
					  4096, 4096 };
	char *text = su_profile_text("cx6");
	struct tb *memo = su_open_text(text), *plain = su_open_text(text);
	struct gen_rules_cache *cache = gen_rules_cache_new(0);
	double first_7000 = 0, fallback_7000 = 0;

	(void)state;
	assert_non_null(cache);
	for (unsigned i = 0; i < sizeof(flows) / sizeof(flows[0]); i++) {
		struct gen_levels l;
		struct gen_rules *rc = NULL, *rp;
		struct tb_sample a, b;
		struct scn_error err;

		su_levels(&l, flows[i], 1, 1, 1, 8);
		rp = su_rules(&l);
		scn_error_clear(&err);
		assert_int_equal(gen_rules_cache_get(cache, NULL, NULL, &l, 1, &rc, &err), 0);
		assert_true(gen_rules_host_id(rc, GEN_SERVER) != 0);
		apply_measure(memo, rc, &l, 100 + i, &a);
		apply_measure(plain, rp, &l, 100 + i, &b);
		assert_same_sample(&a, &b, i);
		if (flows[i] == 7000 && i == 4)
			fallback_7000 = a.bw_gbps;
		if (flows[i] == 7000 && i == 6)
			first_7000 = a.bw_gbps;
		gen_rules_free(rc);
		gen_rules_free(rp);
	}
	/* the sequence did visit 7000 flows both in and out of the fallback */
	print_message("7000 flows: %.2f Gb/s after 8192, %.2f after 4096\n", fallback_7000,
		      first_7000);
	assert_true(fallback_7000 < 0.8 * first_7000);
	gen_rules_cache_free(cache);
	tb_close(memo);
	tb_close(plain);
	free(text);
}

/* Removing every rule (an apply of no rule set) is programming work like adding them: the
 * next sample pays for it, through the cache (content ids) and from plain builds alike. */
static void test_removing_the_rules_costs_their_programming(void **state)
{
	char *text = su_profile_text("cx6");
	struct gen_rules_cache *cache = gen_rules_cache_new(0);

	(void)state;
	for (int cached = 0; cached < 2; cached++) {
		struct tb *tb = su_open_text(text);
		struct gen_levels l;
		struct gen_rules *r = NULL;
		struct tb_sample a, b, c;
		struct scn_error err;

		su_levels(&l, 4096, 1, 1, 1, 8);
		scn_error_clear(&err);
		if (cached)
			assert_int_equal(gen_rules_cache_get(cache, NULL, NULL, &l, 1, &r, &err), 0);
		else
			r = su_rules(&l);
		apply_measure(tb, r, &l, 7, &a);
		apply_measure(tb, r, &l, 7, &b); /* the same rules again: nothing to program */
		apply_measure(tb, NULL, &l, 7, &c);
		print_message("%s: cost %.3f s programming, %.3f s none, %.3f s removing\n",
			      cached ? "cache" : "plain", a.cost_s, b.cost_s, c.cost_s);
		assert_true(a.cost_s > b.cost_s + 0.1);
		assert_true(c.cost_s > b.cost_s + 0.1);
		gen_rules_free(r);
		tb_close(tb);
	}
	gen_rules_cache_free(cache);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memo_keeps_samples),
		cmocka_unit_test(test_removing_the_rules_costs_their_programming),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
