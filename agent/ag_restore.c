/* SPDX-License-Identifier: MIT */
/*
 * ag_restore: the tc -batch lines that return a device's table to its original order (see
 * ag_state.h). Each prio (one mask) moves back as a whole, add at the original prio before
 * delete at the current one; a prio whose original place is taken waits for its holder to
 * leave, and a cycle is broken through a free prio no filter uses or wants.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ag_state.h"

struct group {
	size_t first, n;     /* filters of CUR (sorted) */
	unsigned cur, want;  /* prio now, original prio */
};

struct restore {
	const struct ag_filters *cur;
	const char *dev;
	FILE *out;
	unsigned lines, moved;
	uint8_t *used, *wanted; /* per prio */
};

static int emit_move(struct restore *r, struct group *g, unsigned to)
{
	if (ag_render_move(r->out, r->dev, &r->cur->v[g->first], NULL, g->n, (uint16_t)to,
			   (uint16_t)g->cur, &r->lines) < 0)
		return -EIO;
	r->used[g->cur] = 0;
	r->used[to] = 1;
	g->cur = to;
	return 0;
}

/* The groups of CUR (one per prio) with their original prios. */
static int make_groups(const struct ag_filters *orig, const struct ag_filters *cur,
		       struct group **out, size_t *n)
{
	struct group *g = calloc(cur->n + 1, sizeof(*g));

	*n = 0;
	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < cur->n; i++) {
		long o = ag_filters_find(orig, &cur->v[i]);
		unsigned want = o >= 0 ? orig->v[o].pref : cur->v[i].pref;

		if (*n && g[*n - 1].cur == cur->v[i].pref) {
			if (g[*n - 1].want != want) {
				free(g);
				return -EINVAL; /* one prio now, two originally: not the agent's doing */
			}
			g[*n - 1].n++;
			continue;
		}
		g[(*n)++] = (struct group){ i, 1, cur->v[i].pref, want };
	}
	*out = g;
	return 0;
}

static unsigned free_prio(const struct restore *r)
{
	for (unsigned p = 65535; p >= 2; p--)
		if (!r->used[p] && !r->wanted[p])
			return p;
	return 0;
}

static int run_moves(struct restore *r, struct group *g, size_t n)
{
	size_t pending = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		pending += g[i].cur != g[i].want;
	while (pending && rc == 0) {
		bool progress = false;

		for (size_t i = 0; i < n && rc == 0; i++)
			if (g[i].cur != g[i].want && !r->used[g[i].want]) {
				rc = emit_move(r, &g[i], g[i].want);
				r->moved += (unsigned)g[i].n;
				pending--;
				progress = true;
			}
		for (size_t i = 0; !progress && rc == 0 && i < n; i++)
			if (g[i].cur != g[i].want) { /* a cycle: step aside */
				unsigned p = free_prio(r);

				rc = p ? emit_move(r, &g[i], p) : -ENOSPC;
				progress = true;
			}
	}
	return rc;
}

int ag_state_restore_batch(struct ag_filters *orig, const struct ag_filters *cur,
			   const char *dev, FILE *out, unsigned *lines, unsigned *moved)
{
	struct restore r = { cur, dev, out, 0, 0, calloc(65536, 1), calloc(65536, 1) };
	struct group *g = NULL;
	size_t n = 0;
	int rc = r.used && r.wanted && ag_filters_index(orig) == 0 ? make_groups(orig, cur, &g, &n)
							     : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		r.used[g[i].cur] = 1;
		r.wanted[g[i].want] = 1;
	}
	if (rc == 0)
		rc = run_moves(&r, g, n);
	*lines = r.lines;
	*moved = r.moved;
	free(g);
	free(r.used);
	free(r.wanted);
	return rc;
}
