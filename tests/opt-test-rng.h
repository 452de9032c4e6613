/* SPDX-License-Identifier: MIT */
/*
 * opt-test-rng: the seeded generator of the optimiser's tests (splitmix64), so that a seed
 * names the same rule sets and inputs in the optimiser's tests (test-optimiser.c,
 * test-opt-hyper.c, test-opt-plan.c, test-opt-model.c, opt-test-util.c).
 */
#ifndef OPT_TEST_RNG_H
#define OPT_TEST_RNG_H

#include <stdint.h>

static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint32_t rng_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rng_next(s) % n);
}

#endif
