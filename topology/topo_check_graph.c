/* SPDX-License-Identifier: MIT */
/*
 * topo_check_graph: the rule-set checks that look at more than one rule: goto cycles (loop),
 * tables without a goto path from the root (unreachable_table) and rules shadowed by an
 * earlier-probed rule of their table (dead_rule). Edges come from each rule's first terminal
 * action when it is a goto (later actions never run). The DFS is iterative (no recursion
 * depth limit on the number of tables).
 */
#include "topology/topo.h"
#include "topology/topo_check_priv.h"
#include "topology/topo_internal.h"
#include "topology/topo_ruleset_priv.h"
#include "topology/topo_sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct edge {
	uint32_t from, to;
	size_t rule;
};

static int edge_cmp(const void *pa, const void *pb)
{
	const struct edge *a = pa, *b = pb;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return a->rule < b->rule ? -1 : a->rule > b->rule;
}

/* Goto edges, sorted, one per (from, to) with its lowest rule index. */
static struct edge *collect_edges(const struct topo_ruleset *rs, size_t *n_out)
{
	struct edge *e = malloc((rs->n_rules + 1) * sizeof(*e));
	size_t n = 0, m = 0;

	if (!e)
		return NULL;
	for (size_t i = 0; i < rs->n_rules; i++) {
		const struct topo_action_list *a = topo__rule_actions(rs, i);

		for (unsigned k = 0; k < a->n; k++) {
			if (!topo_action_is_terminal(a->a[k].kind))
				continue;
			if (a->a[k].kind == TOPO_ACT_GOTO)
				e[n++] = (struct edge){ rs->groups[rs->recs[i].group].table, a->a[k].arg,
							i };
			break;
		}
	}
	qsort(e, n, sizeof(*e), edge_cmp);
	for (size_t i = 0; i < n; i++)
		if (!m || e[m - 1].from != e[i].from || e[m - 1].to != e[i].to)
			e[m++] = e[i];
	*n_out = m;
	return e;
}

struct dfs {
	const struct edge *e;
	size_t n_edges;
	size_t *start;    /* first edge of each table, n_tables + 1 entries */
	unsigned char *color; /* 0 white, 1 on the stack, 2 done */
	uint32_t *stack;  /* tables on the current path */
	size_t *next;     /* next edge to try, per stack level */
};

static void report_cycle(struct topo__sink *s, const struct dfs *d, size_t depth,
			 const struct edge *back)
{
	char path[160];
	size_t n = 0, from = 0;

	while (from < depth && d->stack[from] != back->to)
		from++;
	path[0] = '\0';
	for (size_t i = from; i < depth && n < sizeof(path); i++) {
		int w = snprintf(path + n, sizeof(path) - n, "%u -> ", d->stack[i]);

		if (w < 0)
			break;
		n += (size_t)w;
	}
	if (n < sizeof(path))
		snprintf(path + n, sizeof(path) - n, "%u", back->to);
	topo__sink_add(s, TOPO_R_LOOP, back->from, (long)back->rule,
		       "rule %zu in table %u jumps to table %u and closes a goto cycle (%s): "
		       "packets could loop forever", back->rule, back->from, back->to, path);
}

static void dfs_from(struct topo__sink *s, struct dfs *d, uint32_t root)
{
	size_t depth = 1;

	d->stack[0] = root;
	d->next[0] = d->start[root];
	d->color[root] = 1;
	while (depth) {
		uint32_t u = d->stack[depth - 1];

		if (d->next[depth - 1] >= d->start[u + 1]) {
			d->color[u] = 2;
			depth--;
			continue;
		}
		const struct edge *e = &d->e[d->next[depth - 1]++];

		if (d->color[e->to] == 1) {
			report_cycle(s, d, depth, e);
		} else if (d->color[e->to] == 0) {
			d->color[e->to] = 1;
			d->stack[depth] = e->to;
			d->next[depth] = d->start[e->to];
			depth++;
		}
	}
}

void topo__check_graph(struct topo__sink *s, const struct topo_ruleset *rs)
{
	size_t nt = rs->n_tables;
	struct dfs d = { 0 };

	d.e = collect_edges(rs, &d.n_edges);
	d.start = calloc(nt + 1, sizeof(*d.start));
	d.color = calloc(nt, 1);
	d.stack = calloc(nt, sizeof(*d.stack));
	d.next = calloc(nt, sizeof(*d.next));
	if (d.e && d.start && d.color && d.stack && d.next) {
		size_t k = 0;

		for (size_t t = 0; t <= nt; t++) {
			while (k < d.n_edges && d.e[k].from < t)
				k++;
			d.start[t] = k;
		}
		dfs_from(s, &d, 0);
		for (size_t t = 1; t < nt; t++)
			if (!d.color[t])
				topo__sink_add(s, TOPO_R_UNREACHABLE_TABLE, (long)t, -1,
					       "table %zu is not reached by any goto from the root "
					       "table 0, so its rules never see a packet", t);
		for (size_t t = 1; t < nt; t++)
			if (!d.color[t])
				dfs_from(s, &d, (uint32_t)t);
	}
	free((void *)d.e);
	free(d.start);
	free(d.color);
	free(d.stack);
	free(d.next);
}

/* Can rules of group G cover rules of group H (fields subset, prefixes no longer)? */
static bool shape_covers(const struct topo_mask *g, const struct topo_mask *h)
{
	if ((g->fields & h->fields) != g->fields)
		return false;
	for (unsigned f = 0; f < TOPO_F_COUNT; f++)
		if ((g->fields & (1u << f)) && g->plen[f] > h->plen[f])
			return false;
	return true;
}

void topo__check_dead(struct topo__sink *s, const struct topo_ruleset *rs)
{
	for (size_t i = 0; i < rs->n_rules; i++) {
		struct topo_rule rule, *r = &rule;
		size_t g;

		topo__rule_get(rs, i, r);
		g = r->group;

		while (g > 0 && rs->groups[g - 1].table == r->table)
			g--;
		for (; g <= r->group; g++) {
			long e;
			char mb[128];

			if (!rs->groups[g].n_rules || !shape_covers(&rs->groups[g].mask, &r->match.mask))
				continue;
			e = topo__index_find(rs, g, r->match.value);
			if (e < 0 || (g == r->group && (size_t)e >= i))
				continue;
			topo_mask_format(&rs->groups[g].mask, mb, sizeof(mb));
			topo__sink_add(s, TOPO_R_DEAD_RULE, r->table, (long)i,
				       "rule %zu in table %u can never match: rule %ld (mask %s, "
				       "probed %s) already matches every packet it would", i, r->table,
				       e, mb[0] ? mb : "any",
				       g == r->group ? "first in the same group" : "earlier");
			break;
		}
	}
}
