/* SPDX-License-Identifier: MIT */
/*
 * gen-test-util: what the rule-set tests of generators/ share (test-generators.c,
 * test-gen-models.c): levels of a few numbers, a build that fails the test on error, the
 * side of a rule, and the two checks of a built rule set (validity and exact mask and rule
 * counts; every flow's packet classified to its own rule). Include after <cmocka.h>.
 */
#ifndef GEN_TEST_UTIL_H
#define GEN_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "generators/gen.h"

/* Neutral levels with FLOWS flows, SUBNETS subnets and the four mask counts. */
struct gen_levels levels(uint32_t flows, uint32_t subnets, uint32_t ce, uint32_t cd,
			 uint32_t se, uint32_t sd);
/* The rule sets of L with SEED (no model); fails the test on error. */
struct gen_rules *build(const struct gen_levels *l, uint64_t seed);
/* R is an encap (D = GEN_ENCAP) or decap rule. */
bool rule_is(const struct topo_rule *r, enum gen_dir d);
/* R's flows and subnets are L's, every host's rules are valid, each side has L's masks and
 * one rule a flow (none when its masks are 0). */
void check_rules(const struct gen_levels *l, const struct gen_rules *r);
/* Every flow's packet hits its own rule (probes = its group's position) or misses when the
 * side is not offloaded. */
void check_classify(const struct gen_levels *l, const struct gen_rules *r);

#endif
