/* SPDX-License-Identifier: MIT */
/*
 * gen_rng: the one deterministic PRNG and the one stable hash of scalacn (see gen.h).
 *
 * PRNG: xoshiro256** (Blackman and Vigna), its state seeded by four outputs of splitmix64 from
 * the 64-bit seed, so any seed (including 0) gives a non-zero state. Normal deviates use
 * Marsaglia's polar method (one of the pair is discarded: the state holds nothing else).
 *
 * Hash: gen_hash64(data, len, seed) = fmix(FNV-1a-64 over the bytes, started from the FNV
 * offset basis XOR splitmix64(seed)), where fmix is the splitmix64 finaliser. It works on
 * bytes only, so it gives the same value on every platform for the same bytes and seed; it
 * is for keys (trial and point identities), not for cryptography. Never change it: stored
 * keys depend on it.
 */
#include <math.h>

#include "generators/gen.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void gen_rng_seed(struct gen_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

uint64_t gen_rng_next(struct gen_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double gen_rng_uniform(struct gen_rng *r)
{
	return (double)(gen_rng_next(r) >> 11) * 0x1.0p-53;
}

double gen_rng_normal(struct gen_rng *r)
{
	double u, v, q;

	do {
		u = 2.0 * gen_rng_uniform(r) - 1.0;
		v = 2.0 * gen_rng_uniform(r) - 1.0;
		q = u * u + v * v;
	} while (q >= 1.0 || q == 0.0);
	return u * sqrt(-2.0 * log(q) / q);
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
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}
