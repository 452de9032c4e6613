/* SPDX-License-Identifier: MIT */
/*
 * ag_filter: the filter list's housekeeping (grow, sort, identity); see ag_filter.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ag_filter.h"

void ag_filters_free(struct ag_filters *fs)
{
	if (!fs)
		return;
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

int ag_filters_push(struct ag_filters *fs, const struct ag_filter *f)
{
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? 2 * fs->cap : 64;
		struct ag_filter *v = realloc(fs->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		fs->v = v;
		fs->cap = cap;
	}
	fs->v[fs->n++] = *f;
	return 0;
}

static int by_pref(const void *a, const void *b)
{
	const struct ag_filter *x = a, *y = b;

	if (x->pref != y->pref)
		return x->pref < y->pref ? -1 : 1;
	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

void ag_filters_sort(struct ag_filters *fs)
{
	if (fs->n > 1)
		qsort(fs->v, fs->n, sizeof(*fs->v), by_pref);
}

int ag_filter_same(const struct ag_filter *a, const struct ag_filter *b)
{
	return !strcmp(a->proto, b->proto) && !strcmp(a->match, b->match) &&
	       !strcmp(a->actions, b->actions);
}

long ag_filters_find(const struct ag_filters *fs, const struct ag_filter *f)
{
	for (size_t i = 0; i < fs->n; i++)
		if (ag_filter_same(&fs->v[i], f))
			return (long)i;
	return -1;
}
