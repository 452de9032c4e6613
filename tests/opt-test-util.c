/* SPDX-License-Identifier: MIT */
/*
 * opt-test-util: helpers of the optimiser table's tests (see opt-test-util.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/opt-test-rng.h"
#include "tests/opt-test-util.h"

struct opt_table *new_table(uint32_t cap, uint64_t admit, uint32_t budget)
{
	struct opt_config c;
	struct opt_table *t = NULL;

	opt_config_default(&c);
	c.hyper_capacity = cap;
	c.admission_hits = admit;
	c.update_budget = budget;
	c.always_optimise = true;
	assert_int_equal(opt_table_new(&c, &t), 0);
	return t;
}

struct opt_plan *tick_apply(struct opt_table *t, uint64_t now)
{
	struct opt_plan *p = NULL;

	assert_int_equal(opt_table_tick(t, now, NULL, &p), 0);
	assert_non_null(p);
	assert_int_equal(opt_plan_apply(t, p), 0);
	return p;
}

struct opt_rule exact_rule(uint32_t id, uint32_t prio, uint64_t key)
{
	struct opt_rule r = { .id = id, .priority = prio, .action = id };

	opt_mask_full(&r.mask);
	for (int f = 0; f < OPT_F_COUNT; f++)
		r.v[f] = key + (uint64_t)f;
	return r;
}

struct opt_pkt pkt_of(const struct opt_rule *r)
{
	struct opt_pkt p;

	memcpy(p.v, r->v, sizeof(p.v));
	return p;
}

size_t count_ops(const struct opt_plan *p, enum opt_op_kind k)
{
	struct opt_op op;
	size_t n = 0;

	for (size_t i = 0; i < opt_plan_count(p); i++) {
		assert_int_equal(opt_plan_op(p, i, &op), 0);
		n += op.kind == k;
	}
	return n;
}

/* Small value domains so that rules of different masks overlap often. */
uint64_t field_value(uint64_t *s, int f)
{
	if (opt_field_is_ip((enum opt_field)f))
		return 0x0a000000ULL | (rng_below(s, 3) << 8) | rng_below(s, 3);
	return rng_below(s, 3);
}

void random_pkt(uint64_t *s, struct opt_pkt *p)
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		p->v[f] = field_value(s, f);
}

/* A microflow of rule R: its values where it matches, seeded values elsewhere. */
struct opt_pkt flow_of(const struct opt_rule *r, uint64_t salt)
{
	struct opt_pkt p;
	uint64_t s = r->id * 7919u + salt;

	random_pkt(&s, &p);
	for (int f = 0; f < OPT_F_COUNT; f++)
		if (r->mask.fields & (1u << f))
			p.v[f] = r->v[f];
	return p;
}
