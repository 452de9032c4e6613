/* SPDX-License-Identifier: MIT */
/*
 * agent-test-util: a stand-in for tc in the agent's tests: applies the agent's tc -batch
 * lines ("filter add ... prio P handle H flower MATCH ACTIONS", "filter del ... prio P") to
 * a list of filters, so plans and restores are checked on the table they produce.
 */
#ifndef AGENT_TEST_UTIL_H
#define AGENT_TEST_UTIL_H

#include "agent/ag_filter.h"

/* Apply BATCH (lines) to FS; each added filter must be one of KNOWN (same match and
 * actions), whose rule it takes. Returns 0, or -1 on a line it does not understand, an add
 * of an unknown filter, or a del of an empty prio. */
int agt_apply_batch(struct ag_filters *fs, const struct ag_filters *known, const char *batch);
/* JSON as `tc -s -j filter show dev veth1 ingress` prints it: MASKS never-matching decap
 * prios (2 .. MASKS+1, the shapes of a container network's decap rules, distinct tunnel-
 * prefix masks) of PER_MASK filters each, then the RoCE rule at prio 300 whose counter is
 * ROCE_PACKETS. malloc'ed. */
char *agt_table_json(unsigned masks, unsigned per_mask, uint64_t roce_packets);
/* The same table with mask M at prio PREFS[M] and the RoCE rule at PREFS[MASKS] (the
 * layout after the agent moved them). */
char *agt_table_json_at(unsigned masks, unsigned per_mask, uint64_t roce_packets,
			const uint16_t *prefs);
/* A fixture file's text (tests/fixtures/NAME), malloc'ed. */
char *agt_fixture(const char *name, size_t *len);

#endif
