/* SPDX-License-Identifier: MIT */
/*
 * test-opt-hyper: unit tests of libscalacn-opt's hyper mask: admission (one-hit flows stay
 * out), LRU eviction order without thrash, a copy that dies when a preferred rule is added,
 * and the microflow copy of a wildcarded rule (recorded flows, dead copies skipped).
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
#include "tests/opt-test-util.h"

/* ---- Hyper mask ------------------------------------------------------------------------ */

static void test_optimiser_hyper_admission_blocks_one_hit_flows(void **state)
{
	struct opt_table *t = new_table(8, 10, 100000);
	struct opt_table_stats st;
	struct opt_plan *p;

	(void)state;
	for (uint32_t i = 1; i <= 200; i++) {
		struct opt_rule r = exact_rule(i, 1, i * 100);

		assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	}
	for (uint64_t now = 1; now <= 30; now++) { /* churn: each flow is seen once */
		for (uint32_t i = 1; i <= 200; i++)
			if (i % 30 == now % 30)
				opt_table_record_hits(t, i, 1, now);
		p = tick_apply(t, now);
		assert_int_equal(count_ops(p, OPT_OP_HYPER_ADD), 0);
		opt_plan_free(p);
	}
	opt_table_stats(t, &st);
	assert_int_equal(st.hyper_entries, 0);
	opt_table_record_hits(t, 77, 10, 31);
	p = tick_apply(t, 31);
	assert_int_equal(count_ops(p, OPT_OP_HYPER_ADD), 1);
	assert_true(opt_table_in_hyper(t, 77));
	opt_plan_free(p);
	opt_table_free(t);
}

static void test_optimiser_hyper_lru_eviction_order(void **state)
{
	struct opt_table *t = new_table(3, 5, 100000);
	struct opt_plan *p;
	struct opt_op op;
	uint32_t want[][2] = { { OPT_OP_HYPER_EVICT, 2 }, { OPT_OP_HYPER_ADD, 4 },
			       { OPT_OP_HYPER_EVICT, 3 }, { OPT_OP_HYPER_ADD, 5 } };
	uint32_t id, probes;
	struct opt_rule r5 = exact_rule(5, 1, 500);
	struct opt_pkt pk = pkt_of(&r5);

	(void)state;
	for (uint32_t i = 1; i <= 5; i++) {
		struct opt_rule r = exact_rule(i, 1, i * 100);

		assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	}
	for (uint32_t i = 1; i <= 3; i++)
		opt_table_record_hits(t, i, 10, i);
	p = tick_apply(t, 4);
	assert_int_equal(count_ops(p, OPT_OP_HYPER_ADD), 3);
	opt_plan_free(p);
	opt_table_record_hits(t, 1, 1, 9); /* rule 1 becomes the most recently used */
	opt_table_record_hits(t, 4, 50, 10);
	opt_table_record_hits(t, 5, 40, 10);
	p = tick_apply(t, 10);
	assert_int_equal(opt_plan_count(p), 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(opt_plan_op(p, i, &op), 0);
		assert_int_equal(op.kind, want[i][0]);
		assert_int_equal(op.rules[0], want[i][1]);
	}
	opt_plan_free(p);
	assert_true(opt_table_in_hyper(t, 1));
	assert_false(opt_table_in_hyper(t, 2));
	assert_int_equal(opt_table_classify(t, &pk, &id, &probes), 0);
	assert_int_equal(id, 5);
	assert_int_equal(probes, 1);
	/* rule 6 (11 hits) is colder than every resident: no thrash */
	{
		struct opt_rule r6 = exact_rule(6, 1, 600);

		assert_int_equal(opt_table_add_rule(t, &r6, 10), 0);
		opt_table_record_hits(t, 6, 11, 11);
		p = tick_apply(t, 11);
		assert_int_equal(count_ops(p, OPT_OP_HYPER_ADD), 0);
		assert_int_equal(count_ops(p, OPT_OP_HYPER_EVICT), 0);
		opt_plan_free(p);
	}
	opt_table_free(t);
}

static void test_optimiser_hyper_copy_dies_when_preferred_rule_added(void **state)
{
	struct opt_table *t = new_table(4, 1, 100000);
	struct opt_rule r = exact_rule(1, 50, 100), w = { .id = 2, .priority = 1 };
	struct opt_pkt p = pkt_of(&r);
	struct opt_plan *pl;
	uint32_t id;

	(void)state;
	assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	opt_table_record_hits(t, 1, 5, 1);
	opt_plan_free(tick_apply(t, 1));
	assert_true(opt_table_in_hyper(t, 1));
	w.mask.fields = 1u << OPT_F_IN_PORT;
	w.v[OPT_F_IN_PORT] = r.v[OPT_F_IN_PORT];
	assert_int_equal(opt_table_add_rule(t, &w, 2), 0);
	assert_int_equal(opt_table_classify(t, &p, &id, NULL), 0);
	assert_int_equal(id, 2);
	pl = tick_apply(t, 2);
	assert_int_equal(count_ops(pl, OPT_OP_HYPER_EVICT), 1);
	assert_false(opt_table_in_hyper(t, 1));
	opt_plan_free(pl);
	opt_table_free(t);
}

static void test_optimiser_record_flow_wildcard_rule(void **state)
{
	struct opt_table *t = new_table(4, 5, 100000);
	struct opt_rule r = { .id = 1, .priority = 1 };
	struct opt_pkt f, g, got;
	struct opt_plan *p;
	uint32_t id, probes;

	(void)state;
	r.mask.fields = 1u << OPT_F_IP_DST;
	r.mask.plen[OPT_F_IP_DST] = 16;
	r.v[OPT_F_IP_DST] = 0x0a0b0000;
	assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	f = flow_of(&r, 1);
	f.v[OPT_F_IP_DST] = 0x0a0b0c0d;
	g = f;
	g.v[OPT_F_IP_DST] = 0x0b000000;
	assert_int_equal(opt_table_record_flow(t, 1, &g, 10, 1), -EINVAL); /* not its packet */
	assert_int_equal(opt_table_get_flow(t, 1, &got), -ENODATA);
	assert_int_equal(opt_table_record_flow(t, 1, &f, 10, 1), 0);
	assert_int_equal(opt_table_get_flow(t, 1, &got), 0);
	assert_memory_equal(got.v, f.v, sizeof(f.v));
	opt_plan_free(tick_apply(t, 1));
	assert_true(opt_table_in_hyper(t, 1));
	assert_int_equal(opt_table_classify(t, &f, &id, &probes), 0);
	assert_int_equal(probes, 1);
	g = f;
	g.v[OPT_F_L4_SRC] ^= 1; /* same rule, another microflow: the copy would miss it */
	assert_int_equal(opt_table_record_flow(t, 1, &g, 10, 2), 0);
	assert_int_equal(opt_table_classify(t, &f, &id, &probes), 0);
	assert_int_equal(id, 1);
	assert_int_equal(probes, 2); /* the dead copy is skipped */
	p = tick_apply(t, 2);
	assert_int_equal(count_ops(p, OPT_OP_HYPER_EVICT), 1);
	assert_int_equal(count_ops(p, OPT_OP_HYPER_ADD), 0);
	opt_plan_free(p);
	assert_false(opt_table_in_hyper(t, 1));
	opt_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_optimiser_hyper_admission_blocks_one_hit_flows),
		cmocka_unit_test(test_optimiser_hyper_lru_eviction_order),
		cmocka_unit_test(test_optimiser_hyper_copy_dies_when_preferred_rule_added),
		cmocka_unit_test(test_optimiser_record_flow_wildcard_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
