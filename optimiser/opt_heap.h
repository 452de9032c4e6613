/* SPDX-License-Identifier: MIT */
/*
 * opt_heap: the one binary-heap sift-down the optimiser's heaps share (the tick's candidates
 * hottest first, opt_cands.c; the hyper residents least recently used first, opt_tick.c).
 * OPT_HEAP_SIFT_DOWN(NAME, TYPE, BEFORE) defines `static void NAME(TYPE *h, size_t n,
 * size_t i)`, which moves h[i] down until neither child comes before it, where
 * BEFORE(const TYPE *a, const TYPE *b) says whether a is to come out of the heap before b
 * (a strict total order). A macro rather than a function taking a comparator: the tick at
 * 100K rules sifts in its inner loop, and a call through a pointer per comparison costs.
 */
#ifndef OPT_HEAP_H
#define OPT_HEAP_H

#include <stddef.h>

#define OPT_HEAP_SIFT_DOWN(NAME, TYPE, BEFORE)                                     \
	static void NAME(TYPE *h, size_t n, size_t i)                              \
	{                                                                          \
		for (;;) {                                                         \
			size_t l = 2 * i + 1, best = i;                            \
			TYPE tmp;                                                  \
									   \
			if (l < n && BEFORE(&h[l], &h[best]))                      \
				best = l;                                          \
			if (l + 1 < n && BEFORE(&h[l + 1], &h[best]))              \
				best = l + 1;                                      \
			if (best == i)                                             \
				return;                                            \
			tmp = h[i];                                                \
			h[i] = h[best];                                            \
			h[best] = tmp;                                             \
			i = best;                                                  \
		}                                                                  \
	}

#endif
