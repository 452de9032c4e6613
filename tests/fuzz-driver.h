/* SPDX-License-Identifier: MIT */
/*
 * fuzz-driver: the standalone fuzz driver the *-fuzz-smoke tests share, for compilers without
 * libFuzzer (gcc) and for bounded CI runs. It holds a corpus of inputs, runs
 * LLVMFuzzerTestOneInput (defined by the fuzz entry linked next to it) on each of them, then
 * on seeded mutations of them: byte flips, inserted punctuation, deleted / duplicated /
 * spliced ranges, truncation, optionally a huge number, long runs. What a mutation may do is
 * described by struct fuzz_mutator, so each entry keeps its own alphabet and sizes. Same
 * seed, same inputs (xorshift64*, no other randomness).
 *
 * Ownership: a corpus owns its buffers (fuzz_corpus_add takes the malloc'd buffer it is
 * given); fuzz_corpus_free frees them and accepts an empty corpus.
 */
#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Largest input a mutation may grow to, and longest range it copies through its buffer. */
#define FUZZ_MAX_INPUT (1u << 20)
#define FUZZ_MAX_CHUNK 5000u

struct fuzz_buf {
	uint8_t *p; /* malloc'd */
	size_t n;
};

struct fuzz_corpus {
	struct fuzz_buf *v;
	size_t n;
};

/* Mutation parameters. Invariants: punct non-empty; max_dup and run_min + run_spread - 1
 * are at most FUZZ_MAX_CHUNK; every max_* and run_spread is at least 1. */
struct fuzz_mutator {
	const char *punct;     /* single bytes to insert */
	size_t max_delete;     /* deleted range: 1..max_delete bytes */
	size_t max_dup;        /* duplicated range: 1..max_dup bytes */
	size_t max_splice;     /* range spliced from another corpus input: 1..max_splice bytes */
	size_t max_splice_del; /* bytes it replaces: 0..max_splice_del-1 */
	const char *huge;      /* inserted as an extra mutation kind; NULL: none */
	size_t run_min, run_spread; /* a long run of run_min..run_min+run_spread-1 bytes */
	char run_a, run_b;     /* of run_a or run_b */
	unsigned max_steps;    /* 1..max_steps mutations per mutant */
};

/* Take ownership of B (malloc'd) and append it. Aborts when memory runs out. */
void fuzz_corpus_add(struct fuzz_corpus *c, struct fuzz_buf b);
/* Append every file of DIR whose name does not start with '.' (readdir order), each read up
 * to FUZZ_MAX_INPUT bytes; files that cannot be read are skipped, a missing DIR adds none. */
void fuzz_corpus_add_dir(struct fuzz_corpus *c, const char *dir);
void fuzz_corpus_free(struct fuzz_corpus *c);

/* Run the entry on every corpus input, then on MUTANTS mutants drawn from SEED with M.
 * The corpus must not be empty. */
void fuzz_run(const struct fuzz_corpus *c, const struct fuzz_mutator *m, uint64_t seed,
	      unsigned mutants);

#endif
