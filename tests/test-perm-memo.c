/* SPDX-License-Identifier: MIT */
/*
 * test-perm-memo: the rule builder's kept flow permutations (generators/gen_perm_memo.c).
 * A build whose permutations come from the memo is the build that draws them, rule for
 * rule, at every layout, flow count and seed; the memo hands back only what it was given
 * for the same (flows, stream), and keeps at most its slots, least recently used first out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "generators/gen.h"
#include "generators/gen_flows.h"

/* FNV-1a over every field of every rule and the group count of host H's rule set. */
static uint64_t host_digest(const struct gen_rules *r, enum gen_host h)
{
	const struct topo_ruleset *rs = r->host[h];
	uint64_t d = 0xcbf29ce484222325ull ^ topo_ruleset_n_groups(rs);

	for (size_t i = 0; i < topo_ruleset_n_rules(rs); i++) {
		const struct topo_rule *x = topo_ruleset_rule(rs, i);
		uint64_t w[] = { x->table, x->priority, x->flow, x->match.mask.fields,
				 x->actions.n, x->actions.n ? x->actions.a[0].arg : 0 };

		for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++)
			d = (d ^ w[k]) * 0x100000001b3ull;
		for (int f = 0; f < TOPO_F_COUNT; f++)
			d = (d ^ x->match.value[f]) * 0x100000001b3ull;
	}
	return d;
}

static struct gen_rules *build(const struct gen_levels *l, uint64_t seed)
{
	struct gen_rules *r = NULL;
	struct scn_error err;

	if (gen_rules_build(NULL, NULL, l, seed, &r, &err) < 0)
		fail_msg("build: %s", err.message);
	return r;
}

/* Digests of both hosts built with the memo emptied first (every permutation drawn) and
 * then again (every permutation from the memo). */
static void check_same(const struct gen_levels *l, uint64_t seed)
{
	struct gen_rules *drawn, *kept;

	gen_perm_memo_clear();
	drawn = build(l, seed);
	kept = build(l, seed);
	for (int h = 0; h < GEN_HOSTS; h++)
		assert_true(host_digest(drawn, (enum gen_host)h) == host_digest(kept, (enum gen_host)h));
	gen_rules_free(drawn);
	gen_rules_free(kept);
}

static void test_kept_builds_are_drawn_builds(void **state)
{
	static const uint32_t flows[] = { 16, 64, 1000, 5000 };
	struct gen_levels l;

	(void)state;
	gen_levels_neutral(&l);
	for (size_t i = 0; i < sizeof(flows) / sizeof(flows[0]); i++)
		for (uint32_t layout = 0; layout < 4; layout++) {
			l.flows = flows[i];
			l.subnets = flows[i] > 4 ? 4 : 1;
			l.layout = layout;
			for (int h = 0; h < GEN_HOSTS; h++)
				for (int d = 0; d < GEN_DIRS; d++)
					l.masks[h][d] = 1 + (uint32_t)(h * 2 + d) * 5;
			check_same(&l, 3 + layout);
		}
	/* a different seed is a different build, memo or not */
	l.flows = 1000;
	l.layout = 0;
	{
		struct gen_rules *a = build(&l, 1), *b = build(&l, 2);

		assert_true(host_digest(a, GEN_SERVER) != host_digest(b, GEN_SERVER));
		gen_rules_free(a);
		gen_rules_free(b);
	}
}

static void test_memo_keys_and_eviction(void **state)
{
	uint32_t p[16], q[16];

	(void)state;
	gen_perm_memo_clear();
	for (uint32_t i = 0; i < 16; i++)
		p[i] = 15 - i;
	assert_false(gen_perm_memo_get(16, 42, q));
	gen_perm_memo_put(16, 42, p);
	memset(q, 0, sizeof(q));
	assert_true(gen_perm_memo_get(16, 42, q));
	assert_memory_equal(p, q, sizeof(p));
	assert_false(gen_perm_memo_get(16, 43, q)); /* another stream */
	assert_false(gen_perm_memo_get(15, 42, q)); /* another flow count */
	assert_false(gen_perm_memo_get(0, 42, q));
	/* eight more streams: the least recently used one (42) goes, the others stay */
	for (uint64_t s = 100; s < 108; s++)
		gen_perm_memo_put(16, s, p);
	assert_false(gen_perm_memo_get(16, 42, q));
	for (uint64_t s = 101; s < 108; s++)
		assert_true(gen_perm_memo_get(16, s, q));
	/* taking one makes it recent: 101..107 were taken after 100, so 100 goes next */
	gen_perm_memo_put(16, 200, p);
	assert_false(gen_perm_memo_get(16, 100, q));
	assert_true(gen_perm_memo_get(16, 101, q));
	assert_true(gen_perm_memo_get(16, 200, q));
	gen_perm_memo_clear();
	assert_false(gen_perm_memo_get(16, 200, q));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept_builds_are_drawn_builds),
		cmocka_unit_test(test_memo_keys_and_eviction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
