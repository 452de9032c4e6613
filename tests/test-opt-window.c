/* SPDX-License-Identifier: MIT */
/*
 * White-box tests of the optimiser's incremental tick state (opt_window.c, opt_cands.c):
 * under seeded random adds, deletes, counter polls (single and several microflows, saturating
 * counts), ticks and gaps longer than the window, each mask's window sum equals the sum of
 * its rules' windows outside the hyper mask, bucket by bucket, and every hyper candidate's
 * hot bound covers its hits; the tick's hottest-first walk yields exactly the order a full
 * sort of every candidate by (hits, id) gives, with stale bounds, ties and several batches.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "optimiser/opt_priv.h"
#include "optimiser/scalacn-opt.h"

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static struct opt_table *new_table(uint32_t window_s, uint32_t cap, uint64_t admit)
{
	struct opt_config c;
	struct opt_table *t = NULL;

	opt_config_default(&c);
	c.window_s = window_s;
	c.hyper_capacity = cap;
	c.admission_hits = admit;
	c.always_optimise = true;
	assert_int_equal(opt_table_new(&c, &t), 0);
	return t;
}

/* Rule ID on one of three masks: exact (hyper candidates), or in_port + ip_dst/32 with or
 * without l4_dst; distinct ip_dst, so rules never overlap. */
static struct opt_rule rule_of(uint32_t id, uint32_t kind)
{
	struct opt_rule r = { .id = id, .priority = 10, .action = id };

	if (kind == 0) {
		opt_mask_full(&r.mask);
	} else {
		r.mask.fields = 1u << OPT_F_IN_PORT | 1u << OPT_F_IP_DST;
		if (kind == 2)
			r.mask.fields |= 1u << OPT_F_L4_DST;
		r.mask.plen[OPT_F_IP_DST] = 32;
	}
	r.v[OPT_F_IN_PORT] = 1;
	r.v[OPT_F_IP_DST] = 0x0a000000u + id;
	r.v[OPT_F_L4_DST] = 80;
	return r;
}

/* The invariants of opt_priv.h on every mask, at the table's latest second. */
static void check_windows(struct opt_table *t)
{
	for (uint32_t i = 0; i < t->n_masks; i++) {
		struct omask *m = t->order[i];
		uint64_t ring[OPT_RING_MAX] = { 0 }, sum = 0;

		opt_mask_advance(t, m, t->now); /* sliding changes no meaning, only the form */
		for (uint32_t j = 0; j < m->n_rules; j++) {
			struct orule *r = m->rules[j];

			opt_rule_advance(t, r, t->now);
			if (opt_hyper_candidate(t, r))
				assert_true(m->hot[j] == OPT_HOT_SAT || m->hot[j] >= r->win_sum);
			if (m->hot[j] != 0)
				assert_true(r->flow_single);
			if (r->in_hyper)
				continue;
			for (uint32_t b = 0; b < t->ring_len; b++)
				ring[b] += r->ring[b];
			sum += r->win_sum;
		}
		assert_int_equal(m->win_sum, sum);
		for (uint32_t b = 0; b < t->ring_len; b++)
			assert_int_equal(m->win_ring[b], ring[b]);
	}
}

/* One poll: every live rule with probability 1/2, a few with a second microflow (no longer
 * single), a few with counts near the 32-bit bucket limit. */
static void poll(struct opt_table *t, uint64_t *s, const bool *live, uint32_t n, uint64_t now)
{
	for (uint32_t id = 1; id <= n; id++) {
		struct opt_rule r = rule_of(id, id % 3);
		struct opt_pkt p;
		uint64_t x = rng_next(s), packets = x % 40;

		if (!live[id] || (x >> 8) % 2)
			continue;
		memcpy(p.v, r.v, sizeof(p.v));
		if ((x >> 16) % 29 == 0 && id % 3)
			p.v[OPT_F_L4_SRC] = 1 + (x >> 24) % 3; /* another microflow of a wildcard rule */
		if ((x >> 32) % 97 == 0)
			packets = UINT32_MAX - (x >> 40) % 4;
		assert_int_equal(opt_table_record_flow(t, id, &p, packets, now), 0);
	}
}

static void run_windows(uint32_t window_s, uint64_t seed)
{
	enum { N = 120 };
	struct opt_table *t = new_table(window_s, 12, 20);
	bool live[N + 1] = { false };
	uint64_t s = seed, now = 1;

	for (int step = 0; step < 160; step++) {
		uint64_t x = rng_next(&s);
		uint32_t id = 1 + (uint32_t)(x % N);
		struct opt_plan *p = NULL;

		if ((x >> 8) % 4 == 0) { /* a rule leaves or comes */
			struct opt_rule r = rule_of(id, id % 3);

			if (live[id])
				assert_int_equal(opt_table_del_rule(t, id), 0);
			else
				assert_int_equal(opt_table_add_rule(t, &r, now), 0);
			live[id] = !live[id];
		}
		poll(t, &s, live, N, now);
		check_windows(t);
		assert_int_equal(opt_table_tick(t, now, NULL, &p), 0);
		assert_int_equal(opt_plan_apply(t, p), 0);
		opt_plan_free(p);
		check_windows(t);
		now += (x >> 16) % 23 == 0 ? window_s + (x >> 24) % 9 : 1 + (x >> 24) % 3;
	}
	opt_table_free(t);
}

static void test_opt_window_mask_sums_and_bounds(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		run_windows(10, seed);  /* buckets of one second */
		run_windows(60, seed);  /* buckets of four seconds */
	}
}

/* The reference order: rules with candidacy, hits above COLDEST (unless ROOM), by hits
 * descending then id ascending. */
static int by_heat(const void *a, const void *b)
{
	const struct orule *x = *(struct orule *const *)a, *y = *(struct orule *const *)b;

	if (x->win_sum != y->win_sum)
		return x->win_sum > y->win_sum ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static size_t reference(struct opt_table *t, bool room, uint64_t coldest, struct orule **out)
{
	size_t n = 0;

	for (uint32_t i = 0; i < t->n_masks; i++)
		for (uint32_t j = 0; j < t->order[i]->n_rules; j++) {
			struct orule *r = t->order[i]->rules[j];

			opt_rule_advance(t, r, t->now);
			if (opt_hyper_candidate(t, r) && (room || r->win_sum > coldest))
				out[n++] = r;
		}
	qsort(out, n, sizeof(*out), by_heat);
	return n;
}

/* N rules with hits in few distinct values (ties), recorded at different seconds so that
 * at the walk's second many bounds are stale (the window has slid past some hits). */
static struct opt_table *heat_table(uint32_t n, uint64_t *s)
{
	struct opt_table *t = new_table(10, 4, 3);

	for (uint32_t id = 1; id <= n; id++) {
		struct opt_rule r = rule_of(id, id % 3);

		assert_int_equal(opt_table_add_rule(t, &r, 1), 0);
	}
	for (uint64_t now = 1; now <= 14; now++)
		for (uint32_t id = 1; id <= n; id++) {
			struct opt_rule r = rule_of(id, id % 3);
			struct opt_pkt p;
			uint64_t x = rng_next(s);

			memcpy(p.v, r.v, sizeof(p.v));
			if ((x % 5) == 0 && (id % 7 < 3 || now < 5))
				assert_int_equal(opt_table_record_flow(t, id, &p, 1 + (x >> 8) % 6,
								       now), 0);
		}
	return t;
}

static void check_walk(struct opt_table *t, bool room, uint64_t free_slots, uint64_t coldest)
{
	struct planner pl = { .t = t, .now = t->now };
	struct orule **ref = malloc((t->by_id.n + 1) * sizeof(*ref)), *r;
	struct opt_walk w;
	size_t n, k = 0;
	int rc = 0;

	assert_non_null(ref);
	opt_walk_start(&w, room, free_slots, coldest);
	n = reference(t, room, coldest, ref);
	assert_true(n > 0);
	while ((r = opt_walk_next(&pl, &w, &rc)) != NULL) {
		assert_true(k < n);
		assert_ptr_equal(r, ref[k]);
		k++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(k, n);
	opt_walk_free(t, &w);
	free(ref);
}

static void test_opt_walk_order_is_a_full_sort(void **state)
{
	uint64_t s = 7;
	struct opt_table *t = heat_table(3000, &s);

	(void)state;
	check_walk(t, true, 0, UINT64_MAX);  /* room: every candidate, in many batches */
	check_walk(t, true, 5000, UINT64_MAX); /* one batch holds them all */
	check_walk(t, false, 0, 9);           /* full: only those hotter than the coldest copy */
	check_walk(t, false, 0, 0);
	opt_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opt_window_mask_sums_and_bounds),
		cmocka_unit_test(test_opt_walk_order_is_a_full_sort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
