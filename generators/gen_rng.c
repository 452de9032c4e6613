/* SPDX-License-Identifier: MIT */
/*
 * gen_rng: the one deterministic PRNG and the one stable hash of scalacn (see gen.h).
 *
 * PRNG: GSL's taus2 (L'Ecuyer's maximally equidistributed combined Tausworthe generator) and
 * GSL's distributions. Its state lives in struct gen_rng, and each call wraps it in a
 * gsl_rng of that type (the struct is GSL's public one), so a gen_rng needs no allocation
 * or free and a copy is an independent copy of the stream. taus2 takes a 32-bit seed; the
 * 64-bit seed is folded to it through the hash's finaliser, so seeds that differ only in
 * their high bits give different streams.
 *
 * Hash: gen_hash64(data, len, seed) = fmix(FNV-1a-64 over the bytes, started from the FNV
 * offset basis XOR splitmix64(seed)), where fmix is the splitmix64 finaliser. It works on
 * bytes only, so it gives the same value on every platform for the same bytes and seed; it
 * is for keys (trial and point identities), not for cryptography. Never change it: stored
 * keys depend on it.
 */
#include <assert.h>
#include <math.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "generators/gen.h"

static uint64_t fmix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t splitmix64(uint64_t *x)
{
	return fmix(*x += 0x9e3779b97f4a7c15ULL);
}

/* R's state as a GSL generator (valid while R is). */
static gsl_rng view(struct gen_rng *r)
{
	return (gsl_rng){ .type = gsl_rng_taus2, .state = r->state };
}

void gen_rng_seed(struct gen_rng *r, uint64_t seed)
{
	uint64_t z = fmix(seed);
	gsl_rng g = view(r);

	assert(gsl_rng_taus2->size <= sizeof(r->state));
	gsl_rng_set(&g, (unsigned long)((z ^ (z >> 32)) & 0xffffffffULL));
}

uint64_t gen_rng_next(struct gen_rng *r)
{
	gsl_rng g = view(r);
	uint64_t hi = gsl_rng_get(&g);

	return hi << 32 | (uint64_t)gsl_rng_get(&g);
}

double gen_rng_uniform(struct gen_rng *r)
{
	gsl_rng g = view(r);

	return gsl_rng_uniform(&g);
}

double gen_rng_normal(struct gen_rng *r)
{
	gsl_rng g = view(r);

	return gsl_ran_gaussian_ziggurat(&g, 1.0);
}

uint32_t gen_rng_below(struct gen_rng *r, uint32_t n)
{
	gsl_rng g = view(r);

	return n ? (uint32_t)gsl_rng_uniform_int(&g, n) : 0;
}

uint64_t gen_rng_poisson(struct gen_rng *r, double mean)
{
	gsl_rng g = view(r);
	double v;

	if (!(mean > 0))
		return 0;
	if (mean <= 1e9)
		return gsl_ran_poisson(&g, mean);
	v = mean + gsl_ran_gaussian_ziggurat(&g, sqrt(mean));
	return v > 0 ? (uint64_t)llround(v) : 0;
}

double gen_rng_exponential(struct gen_rng *r, double mean)
{
	gsl_rng g = view(r);

	return gsl_ran_exponential(&g, mean);
}

void gen_rng_shuffle(struct gen_rng *r, void *base, size_t n, size_t size)
{
	gsl_rng g = view(r);

	if (n > 1)
		gsl_ran_shuffle(&g, base, n, size);
}

uint64_t gen_hash64(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t x = seed;
	uint64_t h = 0xcbf29ce484222325ULL ^ splitmix64(&x);

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return fmix(h);
}
