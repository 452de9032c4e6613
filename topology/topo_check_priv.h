/* SPDX-License-Identifier: MIT */
/*
 * topo_check_priv: the violation sink shared by the rule-set checks (not public).
 */
#ifndef TOPO_CHECK_PRIV_H
#define TOPO_CHECK_PRIV_H

#include "topology/topo.h"

/* Collects violations: writes up to MAX into OUT (may be NULL), counts all in N. */
struct topo__sink {
	struct topo_violation *out;
	size_t max, n;
};

void topo__sink_add(struct topo__sink *s, enum topo_reason r, long table, long rule,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Goto graph checks (loop, unreachable_table) and dead rules (topo_check_graph.c). Under
 * memory exhaustion they check nothing. */
void topo__check_graph(struct topo__sink *s, const struct topo_ruleset *rs);
void topo__check_dead(struct topo__sink *s, const struct topo_ruleset *rs);

#endif
