/* SPDX-License-Identifier: MIT */
/*
 * topo_check_priv: the rule-set checks of topo_check_graph.c that topo_ruleset_check
 * (topo_check.c) runs after its per-rule checks (not public). Violations go to a sink
 * (topo_sink.h).
 */
#ifndef TOPO_CHECK_PRIV_H
#define TOPO_CHECK_PRIV_H

#include "topology/topo.h"
#include "topology/topo_sink.h"

/* Goto graph checks (loop, unreachable_table) and dead rules (topo_check_graph.c). Under
 * memory exhaustion they check nothing. */
void topo__check_graph(struct topo__sink *s, const struct topo_ruleset *rs);
void topo__check_dead(struct topo__sink *s, const struct topo_ruleset *rs);

#endif
