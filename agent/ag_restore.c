/* SPDX-License-Identifier: MIT */
/*
 * ag_restore: the tc -batch lines that return a device's table to its original order (see
 * ag_state.h). Filters move in groups (same prio now, same prio originally): added at the
 * original prio with their original handles, then deleted one by one where they are (make
 * before break; a prio the agent merged splits back). A group waits until its original prio
 * holds no filter that belongs elsewhere; a cycle, and a group in its own prio under other
 * handles (which may be each other's), go through a free prio that no filter uses or wants.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ag_state.h"

struct restore {
	const struct ag_filters *cur;
	const char *dev;
	FILE *out;
	unsigned lines, moved;
	uint16_t *pref, *want;   /* per filter of CUR: prio now, original prio */
	uint32_t *handle, *want_handle;
	uint32_t *at, *wrong;    /* per prio: filters there, of which belonging elsewhere */
	uint8_t *wanted;         /* per prio: some filter's original prio */
};

static int line_out(struct restore *r, const char *line)
{
	if (fprintf(r->out, "%s\n", line) < 0)
		return -EIO;
	r->lines++;
	return 0;
}

/* Move the filters I (N of them, all at one prio, all wanting one prio) to prio TO. */
static int move_group(struct restore *r, const size_t *idx, size_t n, uint16_t to)
{
	char line[2 * AG_ARGS_MAX + 128];
	uint16_t from = r->pref[idx[0]];
	struct ag_filter f;
	int rc = 0;

	for (size_t k = 0; k < n && rc == 0; k++) { /* make ... */
		size_t i = idx[k];
		uint32_t h = to == r->want[i] ? r->want_handle[i] : r->handle[i];

		rc = ag_render_add(&r->cur->v[i], r->dev, to, h, line, sizeof(line)) < 0 ? -EIO
			: line_out(r, line);
	}
	for (size_t k = 0; k < n && rc == 0; k++) { /* ... before break */
		size_t i = idx[k];

		f = r->cur->v[i];
		f.pref = from;
		f.handle = r->handle[i];
		rc = ag_render_del_one(&f, r->dev, line, sizeof(line)) < 0 ? -EIO : line_out(r, line);
		r->handle[i] = to == r->want[i] ? r->want_handle[i] : r->handle[i];
		r->pref[i] = to;
	}
	r->at[from] -= (uint32_t)n;
	r->wrong[from] -= (uint32_t)n;
	r->at[to] += (uint32_t)n;
	r->wrong[to] += to == r->want[idx[0]] ? 0 : (uint32_t)n; /* placed: with its handle */
	return rc;
}

/* Filter I is not where it was: another prio, or its prio with another handle. */
static bool misplaced(const struct restore *r, size_t i)
{
	return r->pref[i] != r->want[i] || r->handle[i] != r->want_handle[i];
}

/* The misplaced filters at prio P that want prio W. */
static size_t group_at(const struct restore *r, size_t *idx, uint16_t p, uint16_t w)
{
	size_t n = 0;

	for (size_t i = 0; i < r->cur->n; i++)
		if (r->pref[i] == p && r->want[i] == w && misplaced(r, i))
			idx[n++] = i;
	return n;
}

static uint16_t free_prio(const struct restore *r)
{
	for (unsigned p = 65535; p >= 2; p--)
		if (!r->at[p] && !r->wanted[p])
			return (uint16_t)p;
	return 0;
}

static int run_moves(struct restore *r, size_t *idx)
{
	bool pending = true;
	int rc = 0;

	while (pending && rc == 0) {
		bool progress = false;

		pending = false;
		for (size_t i = 0; i < r->cur->n && rc == 0; i++) {
			size_t n;

			if (!misplaced(r, i))
				continue;
			pending = true;
			n = group_at(r, idx, r->pref[i], r->want[i]);
			if (r->pref[i] == r->want[i]) { /* its prio, other handles: via a free prio */
				uint16_t p = free_prio(r);

				rc = p ? move_group(r, idx, n, p) : -ENOSPC;
				progress = true;
				continue;
			}
			if (r->wrong[r->want[i]])
				continue; /* its place still holds a filter that belongs elsewhere */
			rc = move_group(r, idx, n, r->want[i]);
			r->moved += (unsigned)n;
			progress = true;
		}
		if (pending && !progress && rc == 0) { /* a cycle: one group steps aside */
			uint16_t p = free_prio(r);
			size_t i = 0;

			while (!misplaced(r, i))
				i++;
			rc = p ? move_group(r, idx, group_at(r, idx, r->pref[i], r->want[i]), p)
			       : -ENOSPC;
		}
	}
	return rc;
}

static int setup(struct restore *r, struct ag_filters *orig)
{
	const struct ag_filters *cur = r->cur;
	size_t n = cur->n + 1;

	r->pref = calloc(n, sizeof(*r->pref));
	r->want = calloc(n, sizeof(*r->want));
	r->handle = calloc(n, sizeof(*r->handle));
	r->want_handle = calloc(n, sizeof(*r->want_handle));
	r->at = calloc(65536, sizeof(*r->at));
	r->wrong = calloc(65536, sizeof(*r->wrong));
	r->wanted = calloc(65536, 1);
	if (!r->pref || !r->want || !r->handle || !r->want_handle || !r->at || !r->wrong ||
	    !r->wanted || ag_filters_index(orig) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < cur->n; i++) {
		long o = ag_filters_find(orig, &cur->v[i]); /* a new filter stays where it is */

		r->pref[i] = cur->v[i].pref;
		r->handle[i] = cur->v[i].handle;
		r->want[i] = o >= 0 ? orig->v[o].pref : cur->v[i].pref;
		r->want_handle[i] = o >= 0 ? orig->v[o].handle : cur->v[i].handle;
		r->at[r->pref[i]]++;
		r->wrong[r->pref[i]] += misplaced(r, i);
		r->wanted[r->want[i]] = 1;
	}
	return 0;
}

int ag_state_restore_batch(struct ag_filters *orig, const struct ag_filters *cur,
			   const char *dev, FILE *out, unsigned *lines, unsigned *moved)
{
	struct restore r = { .cur = cur, .dev = dev, .out = out };
	size_t *idx = calloc(cur->n + 1, sizeof(*idx));
	int rc = idx ? setup(&r, orig) : -ENOMEM;

	if (rc == 0)
		rc = run_moves(&r, idx);
	*lines = r.lines;
	*moved = r.moved;
	free(idx);
	free(r.pref);
	free(r.want);
	free(r.handle);
	free(r.want_handle);
	free(r.at);
	free(r.wrong);
	free(r.wanted);
	return rc;
}
