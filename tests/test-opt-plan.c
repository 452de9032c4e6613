/* SPDX-License-Identifier: MIT */
/*
 * test-opt-plan: unit tests of libscalacn-opt's plans over mask order: priorities across
 * masks, reordering by locality, idle mask removal after 600 s, the update budget, the prio
 * space under churn and its compaction, stale plans refused, and the tc and JSON rendering.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "optimiser/scalacn-opt.h"
#include "tests/opt-test-rng.h"
#include "tests/opt-test-util.h"

/* ---- Mask order and priorities --------------------------------------------------------- */

static void test_optimiser_priority_across_masks(void **state)
{
	struct opt_table *t = new_table(0, 1, 1000);
	struct opt_rule wide = { .id = 1, .priority = 10 }, exact = exact_rule(2, 5, 100);
	struct opt_table_stats st;
	struct opt_pkt p = pkt_of(&exact);
	uint32_t id, probes, order[2];

	(void)state;
	wide.mask.fields = 1u << OPT_F_IP_DST;
	wide.mask.plen[OPT_F_IP_DST] = 24;
	wide.v[OPT_F_IP_DST] = exact.v[OPT_F_IP_DST] & 0xffffff00u;
	assert_int_equal(opt_table_add_rule(t, &wide, 0), 0);
	assert_int_equal(opt_table_add_rule(t, &exact, 0), 0);
	/* static order puts the wide mask first: verification keeps the preferred rule */
	assert_int_equal(opt_table_classify(t, &p, &id, &probes), 0);
	assert_int_equal(id, 2);
	assert_int_equal(probes, 2);
	opt_table_stats(t, &st);
	assert_int_equal(st.flagged_masks, 1);
	/* the wide mask is far hotter, yet the plan must keep the exact mask in front */
	opt_table_record_hits(t, 1, 100000, 1);
	opt_plan_free(tick_apply(t, 1));
	assert_int_equal(opt_table_mask_order(t, order, 2), 2);
	assert_int_equal(order[0], 2);
	opt_table_stats(t, &st);
	assert_int_equal(st.flagged_masks, 0);
	assert_int_equal(opt_table_classify(t, &p, &id, &probes), 0);
	assert_int_equal(id, 2);
	assert_int_equal(probes, 1);
	opt_table_free(t);
}

static void test_optimiser_reorders_by_locality(void **state)
{
	struct opt_table *t = new_table(0, 1, 100000);
	uint32_t order[4], probes, id;
	struct opt_pkt p = { { 0 } };

	(void)state;
	for (uint32_t i = 0; i < 4; i++) { /* four disjoint masks: in_port i + field i */
		struct opt_rule r = { .id = i + 1, .priority = 1 };

		r.mask.fields = 1u << OPT_F_IN_PORT | 1u << (OPT_F_IP_PROTO + i);
		r.v[OPT_F_IN_PORT] = i;
		r.v[OPT_F_IP_PROTO + i] = 7;
		assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	}
	opt_table_record_hits(t, 4, 1000, 1);
	opt_table_record_hits(t, 3, 100, 1);
	opt_plan_free(tick_apply(t, 1));
	assert_int_equal(opt_table_mask_order(t, order, 4), 4);
	assert_int_equal(order[0], 4);
	assert_int_equal(order[1], 3);
	p.v[OPT_F_IN_PORT] = 3;
	p.v[OPT_F_TUN_ID] = 7; /* field IP_PROTO + 3 */
	assert_int_equal(opt_table_classify(t, &p, &id, &probes), 0);
	assert_int_equal(id, 4);
	assert_int_equal(probes, 1);
	opt_table_free(t);
}

/* ---- Idle masks and the budget --------------------------------------------------------- */

static void test_optimiser_idle_mask_deleted_after_600s(void **state)
{
	struct opt_table *t = new_table(0, 1, 100000);
	struct opt_rule a = { .id = 1, .priority = 5 }, b = { .id = 2, .priority = 5 };
	struct opt_rule guard = { .id = 3, .priority = 1 };
	struct opt_table_stats st;
	struct opt_pkt pk = { { 0 } };
	struct opt_plan *p;
	struct opt_op op;
	uint32_t id;

	(void)state;
	a.mask.fields = 1u << OPT_F_L4_DST;
	a.v[OPT_F_L4_DST] = 80;
	b.mask.fields = 1u << OPT_F_L4_SRC;
	b.v[OPT_F_L4_SRC] = 99;
	guard.mask.fields = (1u << OPT_F_L4_SRC) | (1u << OPT_F_IP_PROTO); /* preferred over a */
	guard.v[OPT_F_IP_PROTO] = 6;
	assert_int_equal(opt_table_add_rule(t, &a, 0), 0);
	assert_int_equal(opt_table_add_rule(t, &b, 0), 0);
	assert_int_equal(opt_table_add_rule(t, &guard, 0), 0);
	for (uint64_t now = 1; now < 600; now += 37) {
		opt_table_record_hits(t, 1, 5, now);
		p = tick_apply(t, now);
		assert_int_equal(count_ops(p, OPT_OP_MASK_DELETE), 0);
		opt_plan_free(p);
	}
	opt_table_record_hits(t, 1, 5, 600);
	p = tick_apply(t, 600);
	assert_int_equal(count_ops(p, OPT_OP_MASK_DELETE), 1);
	for (size_t i = 0; i < opt_plan_count(p); i++) {
		opt_plan_op(p, i, &op);
		if (op.kind == OPT_OP_MASK_DELETE) {
			assert_int_equal(op.n_rules, 1);
			assert_int_equal(op.rules[0], 2);
		}
	}
	opt_plan_free(p);
	opt_table_stats(t, &st);
	assert_int_equal(st.masks, 2); /* the guard's mask stays: it is preferred over a */
	assert_int_equal(st.rules, 2);
	pk.v[OPT_F_L4_SRC] = 99;
	assert_int_equal(opt_table_classify(t, &pk, &id, NULL), -ENOENT);
	opt_table_free(t);
}

static void test_optimiser_update_budget_respected(void **state)
{
	enum { MASKS = 12, PER = 30, BUDGET = 100 };
	struct opt_table *t = new_table(0, 1, BUDGET);
	struct opt_plan_info info;
	uint32_t order[MASKS];
	uint64_t now = 1;
	bool done = false;

	(void)state;
	for (uint32_t m = 0; m < MASKS; m++)
		for (uint32_t k = 0; k < PER; k++) {
			struct opt_rule r = { .id = m * PER + k + 1, .priority = 1 };

			r.mask.fields = 1u << OPT_F_IN_PORT | 1u << OPT_F_L4_DST;
			r.mask.fields |= (m & 1 ? 1u << OPT_F_L4_SRC : 0) |
					 (m & 2 ? 1u << OPT_F_IP_PROTO : 0) |
					 (m & 4 ? 1u << OPT_F_TUN_ID : 0) |
					 (m & 8 ? 1u << OPT_F_ETH_TYPE : 0);
			r.v[OPT_F_IN_PORT] = m;        /* masks never overlap */
			r.v[OPT_F_L4_DST] = k;
			assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
		}
	for (; now < 40 && !done; now++) {
		struct opt_plan *p = NULL;

		for (uint32_t m = 0; m < MASKS; m++) /* the last added mask is the hottest */
			opt_table_record_hits(t, m * PER + 1, (m + 1) * 1000, now);
		uint32_t spent;

		p = tick_apply(t, now);
		opt_plan_info(p, &info);
		spent = info.cost;
		done = opt_plan_count(p) == 0;
		if (now == 1)
			assert_true(info.deferred > 0);
		opt_plan_free(p);
		/* a second tick in the same second shares the same second's budget */
		assert_int_equal(opt_table_tick(t, now, NULL, &p), 0);
		opt_plan_info(p, &info);
		spent += info.cost;
		assert_true(spent <= BUDGET);
		opt_plan_free(p);
	}
	assert_true(done);
	assert_true(now > 4); /* 11 moves of 30 updates at 100/s take several seconds */
	assert_int_equal(opt_table_mask_order(t, order, MASKS), MASKS);
	for (uint32_t i = 0; i < MASKS; i++) /* mask ids follow creation: hottest last */
		assert_int_equal(order[i], MASKS - i);
	{
		struct opt_pkt pk = { { 0 } };
		struct opt_rule r;
		uint32_t id, probes;

		assert_int_equal(opt_table_get_rule(t, (MASKS - 1) * PER + 1, &r, NULL), 0);
		memcpy(pk.v, r.v, sizeof(pk.v));
		assert_int_equal(opt_table_classify(t, &pk, &id, &probes), 0);
		assert_int_equal(probes, 1);
	}
	opt_table_free(t);
}

/* Thousands of reorders must keep prios unique and increasing (asserted in apply), never
 * run out of prio space, and always end with the hottest mask first. */
static void test_optimiser_prio_space_survives_churn(void **state)
{
	enum { MASKS = 16 };
	struct opt_config c;
	struct opt_table *t = NULL;
	uint64_t s = 99;
	uint16_t prio, max_prio = 0;
	uint32_t order[MASKS];

	(void)state;
	opt_config_default(&c);
	c.always_optimise = true;
	c.window_s = 1;
	c.update_budget = 1000000;
	assert_int_equal(opt_table_new(&c, &t), 0);
	for (uint32_t m = 0; m < MASKS; m++) {
		struct opt_rule r = { .id = m + 1, .priority = 1 };

		r.mask.fields = 1u << OPT_F_IN_PORT | 1u << (OPT_F_ETH_SRC + m % 12) |
				(m >= 12 ? 1u << OPT_F_TUN_DPORT : 0);
		r.mask.plen[OPT_F_ETH_SRC + m % 12] = 32;
		r.v[OPT_F_IN_PORT] = m;
		assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	}
	for (uint64_t now = 1; now <= 3000; now++) {
		uint32_t hot = rng_below(&s, MASKS);

		for (uint32_t m = 0; m < MASKS; m++)
			opt_table_record_hits(t, m + 1, m == hot ? 1000000 : rng_below(&s, 1000), now);
		opt_plan_free(tick_apply(t, now));
		assert_int_equal(opt_table_mask_order(t, order, MASKS), MASKS);
		assert_int_equal(order[0], hot + 1);
		for (uint32_t m = 0; m < MASKS; m++) {
			assert_int_equal(opt_table_mask_info(t, order[m], NULL, &prio, NULL), 0);
			if (prio > max_prio)
				max_prio = prio;
		}
	}
	assert_true(max_prio > 1);
	opt_table_free(t);
}

/* Appending ~1000 masks walks to the end of the 16-bit prio space: the next tick re-spreads
 * every prio (in one go, order unchanged) even when no optimisation is wanted. */
static void test_optimiser_prio_compaction(void **state)
{
	static const enum opt_field nonip[9] = { OPT_F_IN_PORT, OPT_F_ETH_SRC, OPT_F_ETH_DST,
		OPT_F_ETH_TYPE, OPT_F_IP_PROTO, OPT_F_L4_SRC, OPT_F_L4_DST, OPT_F_TUN_ID,
		OPT_F_TUN_DPORT };
	enum { N = 1010 };
	struct opt_table *t = NULL;
	struct opt_plan *p = NULL;
	uint32_t *before = calloc(N, sizeof(*before)), *after = calloc(N + 1, sizeof(*after));
	uint16_t prio;
	uint32_t id;

	(void)state;
	assert_int_equal(opt_table_new(NULL, &t), 0);
	for (uint32_t k = 0; k <= N; k++) {
		struct opt_rule r = { .id = k + 1, .priority = 1 };
		uint32_t pat = k % 511 + 1;
		int rc;

		r.mask.fields = 1u << OPT_F_IP_DST | 1u << OPT_F_IP_SRC;
		for (int b = 0; b < 9; b++)
			if (pat & (1u << b))
				r.mask.fields |= 1u << nonip[b];
		r.mask.plen[OPT_F_IP_DST] = (uint8_t)(k / 511 + 1);
		r.mask.plen[OPT_F_IP_SRC] = 32;
		r.v[OPT_F_IP_SRC] = k; /* rules never overlap */
		rc = opt_table_add_rule(t, &r, 0);
		if (k < N) {
			assert_int_equal(rc, 0);
			continue;
		}
		assert_int_equal(rc, 0); /* still room: appends halve the last gap */
		assert_int_equal(opt_table_mask_info(t, k + 1, NULL, &prio, NULL), 0);
		assert_true(prio > 65535 - 1024);
	}
	assert_int_equal(opt_table_mask_order(t, before, N), N);
	assert_int_equal(opt_table_tick(t, 1, NULL, &p), 0);
	assert_int_equal(count_ops(p, OPT_OP_REPRIORITISE), N + 1);
	assert_int_equal(opt_plan_apply(t, p), 0);
	opt_plan_free(p);
	assert_int_equal(opt_table_mask_order(t, after, N + 1), N + 1);
	assert_memory_equal(before, after, N * sizeof(*before));
	assert_int_equal(opt_table_mask_info(t, after[N], NULL, &prio, NULL), 0);
	assert_true(prio < 65535 - 16 * 64);
	{
		struct opt_pkt pk = { { 0 } };
		struct opt_rule r;

		assert_int_equal(opt_table_get_rule(t, 777, &r, NULL), 0);
		memcpy(pk.v, r.v, sizeof(pk.v));
		assert_int_equal(opt_table_classify(t, &pk, &id, NULL), 0);
		assert_int_equal(id, 777);
	}
	assert_int_equal(opt_table_tick(t, 2, NULL, &p), 0); /* nothing left to do */
	assert_int_equal(opt_plan_count(p), 0);
	opt_plan_free(p);
	free(before);
	free(after);
	opt_table_free(t);
}

static void test_optimiser_stale_plan_refused(void **state)
{
	struct opt_table *t = new_table(4, 1, 1000);
	struct opt_rule r1 = exact_rule(1, 1, 100), r2 = exact_rule(2, 1, 200);
	struct opt_plan *p = NULL;

	(void)state;
	assert_int_equal(opt_table_add_rule(t, &r1, 0), 0);
	opt_table_record_hits(t, 1, 5, 1);
	assert_int_equal(opt_table_tick(t, 1, NULL, &p), 0);
	assert_int_equal(opt_plan_count(p), 1);
	assert_int_equal(opt_table_add_rule(t, &r2, 1), 0);
	assert_int_equal(opt_plan_apply(t, p), -ESTALE);
	assert_int_equal(opt_plan_render_tc(p, t, "rep0", stdout), -ESTALE);
	opt_plan_free(p);
	assert_int_equal(opt_table_add_rule(t, &r2, 1), -EEXIST);
	r2.id = 0;
	assert_int_equal(opt_table_add_rule(t, &r2, 1), -EINVAL);
	opt_table_free(t);
}

static void test_optimiser_render_tc_and_json(void **state)
{
	struct opt_table *t = new_table(4, 1, 1000);
	struct opt_rule r = { .id = 7, .priority = 1, .action = 0xabc };
	struct opt_rule e = exact_rule(9, 1, 0), r2;
	struct opt_plan *p = NULL;
	char buf[8192] = "";
	FILE *f;

	(void)state;
	r.mask.fields = 1u << OPT_F_IP_DST | 1u << OPT_F_TUN_ID;
	r.mask.plen[OPT_F_IP_DST] = 24;
	r.v[OPT_F_IP_DST] = 0x0a010203;
	r.v[OPT_F_TUN_ID] = 42;
	e.v[OPT_F_ETH_TYPE] = 0x0800;
	e.v[OPT_F_ETH_DST] = 0x0203040506a0ULL;
	assert_int_equal(opt_table_add_rule(t, &e, 0), 0);
	assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	opt_table_record_hits(t, 7, 500, 1);
	opt_table_record_hits(t, 9, 5, 1);
	assert_int_equal(opt_table_tick(t, 1, NULL, &p), 0);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(opt_plan_render_tc(p, t, "rep0", f), 0);
	fclose(f);
	/* the hyper copy of 9 (prio 1); the cold exact mask moves behind the hot one */
	assert_non_null(strstr(buf, "filter add dev rep0 ingress protocol 0x0800 prio 1 chain 0 "
				    "handle 9 flower src_mac 00:00:00:00:00:01 dst_mac "
				    "02:03:04:05:06:a0 src_ip 0.0.0.4/32 dst_ip 0.0.0.5/32 ip_proto 6 "
				    "src_port 7 dst_port 8 enc_key_id 9 enc_src_ip 0.0.0.10/32 "
				    "enc_dst_ip 0.0.0.11/32 enc_dst_port 12 action gact pass cookie "
				    "00000009\n"));
	assert_non_null(strstr(buf, "filter add dev rep0 ingress protocol 0x0800 prio 192 chain 0 "
				    "handle 9 flower src_mac"));
	assert_non_null(strstr(buf, "filter del dev rep0 ingress protocol 0x0800 prio 64 chain 0 "
				    "handle 9 flower\n"));
	assert_int_equal(opt_plan_render_tc(p, t, "bad dev", stdout), -EINVAL);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(opt_plan_render_json(p, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"triggered\":true"));
	assert_non_null(strstr(buf, "{\"op\":\"hyper_add\",\"mask\":0,\"position\":0,\"prio\":1,"
				    "\"old_prio\":1,\"rules\":[9]}"));
	assert_non_null(strstr(buf, "{\"op\":\"mask_move\",\"mask\":1,\"position\":1,"
				    "\"prio\":192,\"old_prio\":64,\"rules\":[9]}"));
	assert_int_equal(opt_plan_apply(t, p), 0);
	opt_plan_free(p);
	/* a wildcarded rule renders with protocol ip, its prefix and the action cookie */
	r2 = r;
	r2.id = 8;
	r2.v[OPT_F_TUN_ID] = 43;
	assert_int_equal(opt_table_add_rule(t, &r2, 2), 0);
	e = exact_rule(10, 1, 1000);
	assert_int_equal(opt_table_add_rule(t, &e, 2), 0);
	opt_table_record_hits(t, 10, 5000, 2); /* the exact mask is hot now: wide moves back */
	assert_int_equal(opt_table_tick(t, 2, NULL, &p), 0);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(opt_plan_render_tc(p, t, "rep0", f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "filter add dev rep0 ingress protocol ip prio 256 chain 0 "
				    "handle 8 flower dst_ip 10.1.2.0/24 enc_key_id 43 action gact "
				    "pass cookie 00000abc\n"));
	assert_non_null(strstr(buf, "filter del dev rep0 ingress protocol ip prio 128 chain 0 "
				    "handle 7 flower\n"));
	assert_int_equal(opt_plan_apply(t, p), 0);
	opt_plan_free(p);
	opt_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_optimiser_priority_across_masks),
		cmocka_unit_test(test_optimiser_reorders_by_locality),
		cmocka_unit_test(test_optimiser_idle_mask_deleted_after_600s),
		cmocka_unit_test(test_optimiser_update_budget_respected),
		cmocka_unit_test(test_optimiser_prio_space_survives_churn),
		cmocka_unit_test(test_optimiser_prio_compaction),
		cmocka_unit_test(test_optimiser_stale_plan_refused),
		cmocka_unit_test(test_optimiser_render_tc_and_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
