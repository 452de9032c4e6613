/* SPDX-License-Identifier: MIT */
/*
 * opt-test-util: what the optimiser table's tests share (test-optimiser.c, test-opt-hyper.c,
 * test-opt-plan.c): a table with a given hyper capacity, admission and budget, a tick whose
 * plan is applied, exact rules and their packets, op counts of a plan, and the small seeded
 * value domains and microflows of rules. Include after <cmocka.h> (helpers fail the running
 * test with cmocka asserts).
 */
#ifndef OPT_TEST_UTIL_H
#define OPT_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "optimiser/scalacn-opt.h"

/* A table (always optimising) of hyper capacity CAP, ADMIT hits to admit, BUDGET updates/s. */
struct opt_table *new_table(uint32_t cap, uint64_t admit, uint32_t budget);
/* Tick T at NOW and apply the plan, which is returned (the caller frees it). */
struct opt_plan *tick_apply(struct opt_table *t, uint64_t now);
/* A rule of every field (values KEY + field index), action ID. */
struct opt_rule exact_rule(uint32_t id, uint32_t prio, uint64_t key);
/* The packet of R's values. */
struct opt_pkt pkt_of(const struct opt_rule *r);
/* Ops of kind K in plan P. */
size_t count_ops(const struct opt_plan *p, enum opt_op_kind k);
/* Small value domains so that rules of different masks overlap often: field F's value. */
uint64_t field_value(uint64_t *s, int f);
/* A packet of field_value values. */
void random_pkt(uint64_t *s, struct opt_pkt *p);
/* A microflow of rule R: its values where it matches, seeded values elsewhere. */
struct opt_pkt flow_of(const struct opt_rule *r, uint64_t salt);

#endif
