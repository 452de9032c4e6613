/* SPDX-License-Identifier: MIT */
/*
 * fuzz-ptparse-main: a standalone driver for the ptparse fuzz entry, for compilers without
 * libFuzzer (gcc). It runs LLVMFuzzerTestOneInput on every fixture file (perftest and rdma
 * captures under $SCALACN_FIXTURES) and on 2000 seeded random mutations of them: byte flips,
 * inserted JSON/table punctuation, deleted/duplicated/spliced ranges, truncation, huge
 * numbers and over-long lines. Same seed, same inputs. argv[1] may give another seed.
 * Exit 0 when every input passed; an invariant violation aborts inside the entry.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/ptparse-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_MUTANTS 2000
#define MAX_INPUT (1u << 20)

struct buf {
	char *p;
	size_t n;
};

static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static size_t below(uint64_t *s, size_t n)
{
	return n ? (size_t)(next(s) % n) : 0;
}

/* Replace [at, at+del) of b with ins[0..nins). */
static void splice(struct buf *b, size_t at, size_t del, const char *ins, size_t nins)
{
	char *p;

	if (at > b->n)
		at = b->n;
	if (del > b->n - at)
		del = b->n - at;
	if (b->n - del + nins > MAX_INPUT)
		return;
	p = malloc(b->n - del + nins + 1);
	if (!p)
		abort();
	memcpy(p, b->p, at);
	memcpy(p + at, ins, nins);
	memcpy(p + at + nins, b->p + at + del, b->n - at - del);
	free(b->p);
	b->p = p;
	b->n = b->n - del + nins;
}

static void mutate_once(struct buf *b, const struct buf *corpus, size_t nc, uint64_t *s)
{
	static const char punct[] = "{}[],:\"\\\n\t #-0123456789.eE*";
	char c, tmp[5000];
	size_t at = below(s, b->n + 1), len;
	const struct buf *o;

	switch (below(s, 8)) {
	case 0:
		if (b->n)
			b->p[below(s, b->n)] = (char)next(s);
		break;
	case 1:
		c = punct[below(s, sizeof(punct) - 1)];
		splice(b, at, 0, &c, 1);
		break;
	case 2:
		splice(b, at, 1 + below(s, 64), "", 0);
		break;
	case 3:
		len = below(s, 256) + 1;
		if (at + len <= b->n) {
			memcpy(tmp, b->p + at, len);
			splice(b, below(s, b->n + 1), 0, tmp, len);
		}
		break;
	case 4:
		b->n = below(s, b->n + 1);
		break;
	case 5:
		o = &corpus[below(s, nc)];
		len = below(s, 512) + 1;
		if (o->n >= len) {
			size_t from = below(s, o->n - len + 1);
			splice(b, at, below(s, 32), o->p + from, len);
		}
		break;
	case 6:
		splice(b, at, 0, " 99999999999999999999999 ", 25);
		break;
	default:
		len = 4000 + below(s, 1000);
		memset(tmp, below(s, 2) ? '7' : 'x', len);
		splice(b, at, 0, tmp, len);
		break;
	}
}

static void add_dir(struct buf **corpus, size_t *nc, const char *dir)
{
	struct ptu_list l = ptu_list_fixtures(dir, "");

	for (size_t i = 0; i < l.n; i++) {
		struct buf b = { NULL, 0 };
		struct buf *grown;

		b.p = ptu_read_fixture(l.names[i], &b.n);
		if (!b.p)
			continue;
		grown = realloc(*corpus, (*nc + 1) * sizeof(**corpus));
		if (!grown)
			abort();
		*corpus = grown;
		(*corpus)[(*nc)++] = b;
	}
	ptu_list_free(&l);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x5ca1ac2025ULL;
	struct buf *corpus = NULL;
	size_t nc = 0;

	add_dir(&corpus, &nc, "perftest/scalacn-artifact/");
	add_dir(&corpus, &nc, "perftest/rxe-qemu/");
	add_dir(&corpus, &nc, "rdma/rxe-qemu/");
	if (nc < 100) {
		fprintf(stderr, "ptparse-fuzz-smoke: only %zu fixture files (SCALACN_FIXTURES?)\n", nc);
		return 1;
	}
	for (size_t i = 0; i < nc; i++)
		LLVMFuzzerTestOneInput((const uint8_t *)corpus[i].p, corpus[i].n);
	for (unsigned m = 0; m < N_MUTANTS; m++) {
		const struct buf *base = &corpus[below(&seed, nc)];
		struct buf b = { malloc(base->n + 1), base->n };
		unsigned k = 1 + (unsigned)below(&seed, 8);

		if (!b.p)
			abort();
		memcpy(b.p, base->p, base->n);
		while (k--)
			mutate_once(&b, corpus, nc, &seed);
		LLVMFuzzerTestOneInput((const uint8_t *)b.p, b.n);
		free(b.p);
	}
	printf("ptparse-fuzz-smoke: %zu fixture files and %d mutants passed (seed %#llx)\n", nc,
	       N_MUTANTS, (unsigned long long)(argc > 1 ? strtoull(argv[1], NULL, 0)
							: 0x5ca1ac2025ULL));
	for (size_t i = 0; i < nc; i++)
		free(corpus[i].p);
	free(corpus);
	return 0;
}
