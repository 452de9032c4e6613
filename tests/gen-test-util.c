/* SPDX-License-Identifier: MIT */
/*
 * gen-test-util: helpers of the generators' rule-set tests (see gen-test-util.h).
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

#include <cmocka.h>

#include "generators/gen.h"
#include "generators/gen_packet.h"
#include "tests/gen-test-util.h"

struct gen_levels levels(uint32_t flows, uint32_t subnets, uint32_t ce, uint32_t cd,
			 uint32_t se, uint32_t sd)
{
	struct gen_levels l;

	gen_levels_neutral(&l);
	l.flows = flows;
	l.subnets = subnets;
	l.masks[GEN_CLIENT][GEN_ENCAP] = ce;
	l.masks[GEN_CLIENT][GEN_DECAP] = cd;
	l.masks[GEN_SERVER][GEN_ENCAP] = se;
	l.masks[GEN_SERVER][GEN_DECAP] = sd;
	return l;
}

struct gen_rules *build(const struct gen_levels *l, uint64_t seed)
{
	struct gen_rules *r = NULL;
	struct scn_error err;

	scn_error_clear(&err);
	if (gen_rules_build(NULL, NULL, l, seed, &r, &err) != 0)
		fail_msg("gen_rules_build: %s", err.message);
	return r;
}

bool rule_is(const struct topo_rule *r, enum gen_dir d)
{
	return r->actions.n > 0 &&
	       r->actions.a[0].kind == (d == GEN_ENCAP ? TOPO_ACT_ENCAP : TOPO_ACT_DECAP);
}

/* Distinct masks and rules of one side (encap or decap rules) of a host. */
static void side_counts(const struct topo_ruleset *rs, enum gen_dir d, size_t *masks,
			size_t *rules)
{
	size_t ng = topo_ruleset_n_groups(rs);

	*masks = 0;
	*rules = 0;
	for (size_t g = 0; g < ng; g++) {
		const struct topo_group *grp = topo_ruleset_group(rs, g);
		bool dir = false, seen = false;

		for (size_t i = 0; i < topo_ruleset_n_rules(rs); i++) {
			const struct topo_rule *r = topo_ruleset_rule(rs, i);

			if (r->group == g && rule_is(r, d))
				dir = true;
		}
		if (!dir)
			continue;
		for (size_t h = 0; h < g; h++)
			seen |= topo_mask_equal(&topo_ruleset_group(rs, h)->mask, &grp->mask);
		*masks += !seen;
	}
	for (size_t i = 0; i < topo_ruleset_n_rules(rs); i++)
		*rules += rule_is(topo_ruleset_rule(rs, i), d);
}

void check_rules(const struct gen_levels *l, const struct gen_rules *r)
{
	struct topo_violation v[4];

	assert_int_equal(r->flows, l->flows);
	assert_int_equal(r->subnets, l->subnets);
	for (int h = 0; h < GEN_HOSTS; h++) {
		size_t nv = topo_ruleset_check(r->host[h], v, 4);

		if (nv)
			fail_msg("host %d: %zu violations, first: %s", h, nv, v[0].message);
		for (int d = 0; d < GEN_DIRS; d++) {
			size_t masks, rules;
			uint32_t m = l->masks[h][d];

			side_counts(r->host[h], (enum gen_dir)d, &masks, &rules);
			assert_int_equal(masks, m);
			assert_int_equal(rules, m ? l->flows : 0);
		}
		assert_int_equal(topo_ruleset_n_distinct_masks(r->host[h]),
				 l->masks[h][GEN_ENCAP] + l->masks[h][GEN_DECAP]);
	}
}

/* Position (1-based) of group G among the groups of its table. */
static unsigned group_position(const struct topo_ruleset *rs, uint32_t g)
{
	uint32_t table = topo_ruleset_group(rs, g)->table;
	unsigned pos = 0;

	for (uint32_t i = 0; i <= g; i++)
		pos += topo_ruleset_group(rs, i)->table == table;
	return pos;
}

/* Every flow's packet hits its own rule (probes = its group's position) or misses when the
 * side is not offloaded. */
void check_classify(const struct gen_levels *l, const struct gen_rules *r)
{
	for (int h = 0; h < GEN_HOSTS; h++)
		for (int d = 0; d < GEN_DIRS; d++)
			for (uint32_t f = 0; f < r->flows; f++) {
				const struct topo_ruleset *rs = r->host[h];
				uint64_t pkt[TOPO_F_COUNT];
				const struct topo_rule *rule;
				unsigned probes;
				int hit;

				assert_int_equal(gen_flow_packet(r, (enum gen_host)h,
								 (enum gen_dir)d, f, pkt), 0);
				assert_int_equal(topo_ruleset_classify(rs, pkt, &hit, &probes), 0);
				if (l->masks[h][d] == 0) {
					assert_int_equal(hit, -1);
					assert_int_equal(probes, topo_ruleset_n_groups(rs));
					continue;
				}
				assert_true(hit >= 0);
				rule = topo_ruleset_rule(rs, (size_t)hit);
				assert_int_equal(rule->flow, f + 1);
				assert_true(rule_is(rule, (enum gen_dir)d));
				assert_int_equal(probes, group_position(rs, rule->group));
			}
}
