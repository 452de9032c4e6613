/* SPDX-License-Identifier: MIT */
/*
 * test-opt-record: feeding the optimiser's hit windows (optimiser/opt_record.c): the window's
 * buckets (per second up to 16 s, else 16 or fewer buckets of several seconds: a 60 s window
 * keeps a hit until its 4 s bucket leaves), and opt_table_record_batch against the same
 * counters fed one by one with opt_table_record_flow (same window hits, flows, hyper
 * eligibility and tick plans; refused counters counted and changing nothing).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "optimiser/scalacn-opt.h"

static struct opt_table *table(uint32_t window_s)
{
	struct opt_table *t = NULL;
	struct opt_config c;

	opt_config_default(&c);
	c.always_optimise = true;
	c.window_s = window_s;
	assert_int_equal(opt_table_new(&c, &t), 0);
	return t;
}

/* Rule ID matches in_port and ip_dst (a wildcarded rule), value ID. */
static void add(struct opt_table *t, uint32_t id)
{
	struct opt_rule r = { .id = id, .priority = 10 };

	r.mask.fields = 1u << OPT_F_IN_PORT | 1u << OPT_F_IP_DST;
	r.mask.plen[OPT_F_IP_DST] = 32;
	r.v[OPT_F_IN_PORT] = 1;
	r.v[OPT_F_IP_DST] = 0x0a000000u + id;
	assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
}

static void pkt_of(uint32_t id, uint64_t l4_src, struct opt_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->v[OPT_F_IN_PORT] = 1;
	p->v[OPT_F_IP_DST] = 0x0a000000u + id;
	p->v[OPT_F_L4_SRC] = l4_src;
}

static uint64_t hits(const struct opt_table *t, uint32_t id)
{
	uint64_t h = 0;

	assert_int_equal(opt_table_window_hits(t, id, &h), 0);
	return h;
}

static void test_opt_record_window_per_second(void **state)
{
	struct opt_table *t = table(10);

	(void)state;
	add(t, 1);
	assert_int_equal(opt_table_record_hits(t, 1, 5, 3), 0);
	assert_int_equal(opt_table_record_hits(t, 1, 7, 4), 0);
	assert_int_equal(opt_table_record_hits(t, 1, 0, 12), 0);
	assert_int_equal(hits(t, 1), 12); /* seconds 3 and 4 are in (2, 12] */
	assert_int_equal(opt_table_record_hits(t, 1, 0, 13), 0);
	assert_int_equal(hits(t, 1), 7);  /* second 3 left at 13 */
	assert_int_equal(opt_table_record_hits(t, 1, 0, 14), 0);
	assert_int_equal(hits(t, 1), 0);
	opt_table_free(t);
}

static void test_opt_record_window_buckets(void **state)
{
	struct opt_table *t = table(60);

	(void)state;
	add(t, 1);
	assert_int_equal(opt_table_record_hits(t, 1, 100, 1), 0); /* bucket 0: seconds 0..3 */
	assert_int_equal(opt_table_record_hits(t, 1, 10, 59), 0);
	assert_int_equal(hits(t, 1), 110);
	assert_int_equal(opt_table_record_hits(t, 1, 0, 60), 0);  /* bucket 15 pushes 0 out */
	assert_int_equal(hits(t, 1), 10);
	assert_int_equal(opt_table_record_hits(t, 1, 0, 200), 0); /* far later: all gone */
	assert_int_equal(hits(t, 1), 0);
	opt_table_free(t);
}

/* A poll of counters for rules 1..N: rule i sees I packets of microflow l4_src = I, except
 * that rule 3 also reports a second microflow (it stops being a single flow). */
#define N 40
static size_t make_poll(struct opt_count *c, struct opt_pkt *p, uint64_t sec)
{
	size_t n = 0;

	for (uint32_t i = 1; i <= N; i++) {
		pkt_of(i, i, &p[n]);
		c[n] = (struct opt_count){ i, 100 * i + sec, &p[n] };
		n++;
	}
	pkt_of(3, 999, &p[n]);
	c[n] = (struct opt_count){ 3, 5, &p[n] };
	return n + 1;
}

static void test_opt_record_batch_equals_one_by_one(void **state)
{
	struct opt_table *a = table(60), *b = table(60);
	struct opt_count c[N + 1];
	struct opt_pkt p[N + 1], fa, fb;

	(void)state;
	for (uint32_t i = 1; i <= N; i++) {
		add(a, i);
		add(b, i);
	}
	for (uint64_t sec = 1; sec <= 5; sec++) {
		size_t n = make_poll(c, p, sec);
		struct opt_plan *pa = NULL, *pb = NULL;

		for (size_t i = 0; i < n; i++)
			assert_int_equal(opt_table_record_flow(a, c[i].id, c[i].pkt, c[i].packets,
							       sec), 0);
		assert_int_equal(opt_table_record_batch(b, c, n, sec), 0);
		assert_int_equal(opt_table_tick(a, sec, NULL, &pa), 0);
		assert_int_equal(opt_table_tick(b, sec, NULL, &pb), 0);
		assert_int_equal(opt_plan_count(pa), opt_plan_count(pb));
		assert_int_equal(opt_plan_apply(a, pa), 0);
		assert_int_equal(opt_plan_apply(b, pb), 0);
		opt_plan_free(pa);
		opt_plan_free(pb);
	}
	for (uint32_t i = 1; i <= N; i++) {
		int ra = opt_table_get_flow(a, i, &fa), rb = opt_table_get_flow(b, i, &fb);

		assert_int_equal(hits(a, i), hits(b, i));
		assert_int_equal(ra, rb);
		assert_int_equal(opt_table_in_hyper(a, i), opt_table_in_hyper(b, i));
		if (ra == 0)
			assert_memory_equal(&fa, &fb, sizeof(fa));
	}
	assert_int_equal(opt_table_get_flow(b, 3, NULL), -ENODATA);
	assert_int_equal(hits(b, 2), 5 * 200 + 15);
	opt_table_free(a);
	opt_table_free(b);
}

static void test_opt_record_batch_refuses(void **state)
{
	struct opt_table *t = table(60);
	struct opt_pkt wrong, right;
	struct opt_count c[3];

	(void)state;
	add(t, 1);
	pkt_of(2, 0, &wrong); /* rule 1's mask does not match rule 2's address */
	pkt_of(1, 0, &right);
	c[0] = (struct opt_count){ 1, 10, &wrong };
	c[1] = (struct opt_count){ 77, 10, NULL }; /* unknown */
	c[2] = (struct opt_count){ 1, 4, &right };
	assert_int_equal(opt_table_record_batch(t, c, 3, 1), 2);
	assert_int_equal(hits(t, 1), 4);
	assert_int_equal(opt_table_record_batch(t, NULL, 1, 1), -EINVAL);
	assert_int_equal(opt_table_record_batch(NULL, c, 1, 1), -EINVAL);
	assert_int_equal(opt_table_record_batch(t, NULL, 0, 1), 0);
	opt_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opt_record_window_per_second),
		cmocka_unit_test(test_opt_record_window_buckets),
		cmocka_unit_test(test_opt_record_batch_equals_one_by_one),
		cmocka_unit_test(test_opt_record_batch_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
