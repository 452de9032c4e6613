/* SPDX-License-Identifier: MIT */
/*
 * topo_sink: the violation sink the rule-set checks report into (topo_check.c,
 * topo_check_graph.c; not public). It uses nothing of the checks, so both depend on it and
 * it on neither.
 */
#ifndef TOPO_SINK_H
#define TOPO_SINK_H

#include "topology/topo.h"

/* Collects violations: writes up to MAX into OUT (may be NULL), counts all in N. */
struct topo__sink {
	struct topo_violation *out;
	size_t max, n;
};

void topo__sink_add(struct topo__sink *s, enum topo_reason r, long table, long rule,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
