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
	free(fs->index);
	memset(fs, 0, sizeof(*fs));
}

static void drop_index(struct ag_filters *fs)
{
	free(fs->index);
	fs->index = NULL;
}

int ag_filters_push(struct ag_filters *fs, const struct ag_filter *f)
{
	drop_index(fs);
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
	drop_index(fs);
	if (fs->n > 1)
		qsort(fs->v, fs->n, sizeof(*fs->v), by_pref);
}

int ag_filter_same(const struct ag_filter *a, const struct ag_filter *b)
{
	return !strcmp(a->proto, b->proto) && !strcmp(a->match, b->match) &&
	       !strcmp(a->actions, b->actions);
}

static uint64_t fnv(uint64_t h, const char *s)
{
	do
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	while (*s++);
	return h;
}

static uint64_t identity_hash(const struct ag_filter *f)
{
	return fnv(fnv(fnv(0xcbf29ce484222325ULL, f->proto), f->match), f->actions);
}

static int by_hash(const void *a, const void *b)
{
	const struct ag_key *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

int ag_filters_index(struct ag_filters *fs)
{
	drop_index(fs);
	fs->index = malloc((fs->n + 1) * sizeof(*fs->index));
	if (!fs->index)
		return -ENOMEM;
	for (size_t i = 0; i < fs->n; i++)
		fs->index[i] = (struct ag_key){ identity_hash(&fs->v[i]), i };
	qsort(fs->index, fs->n, sizeof(*fs->index), by_hash);
	return 0;
}

long ag_filters_find(const struct ag_filters *fs, const struct ag_filter *f)
{
	size_t lo = 0, hi = fs->n;
	uint64_t h;

	if (!fs->index) {
		for (size_t i = 0; i < fs->n; i++)
			if (ag_filter_same(&fs->v[i], f))
				return (long)i;
		return -1;
	}
	h = identity_hash(f);
	while (lo < hi) { /* the first key >= h */
		size_t mid = lo + (hi - lo) / 2;

		if (fs->index[mid].hash < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < fs->n && fs->index[lo].hash == h; lo++)
		if (ag_filter_same(&fs->v[fs->index[lo].i], f))
			return (long)fs->index[lo].i;
	return -1;
}
