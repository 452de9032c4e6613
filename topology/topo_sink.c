/* SPDX-License-Identifier: MIT */
/*
 * topo_sink: the violation sink of the rule-set checks (see topo_sink.h).
 */
#include "topology/topo_sink.h"

#include <stdarg.h>
#include <stdio.h>

void topo__sink_add(struct topo__sink *s, enum topo_reason r, long table, long rule,
		    const char *fmt, ...)
{
	va_list ap;

	if (s->out && s->n < s->max) {
		struct topo_violation *v = &s->out[s->n];

		v->reason = r;
		v->table = (int)table;
		v->rule = (int)rule;
		va_start(ap, fmt);
		vsnprintf(v->message, sizeof(v->message), fmt, ap);
		va_end(ap);
	}
	s->n++;
}
