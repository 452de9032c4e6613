/* SPDX-License-Identifier: MIT */
/*
 * fuzz-ptparse-main: a standalone driver for the ptparse fuzz entry, for compilers without
 * libFuzzer (gcc). It runs LLVMFuzzerTestOneInput on every fixture file (perftest and rdma
 * captures under $SCALACN_FIXTURES) and on 2000 seeded random mutations of them: byte flips,
 * inserted JSON/table punctuation, deleted/duplicated/spliced ranges, truncation, huge
 * numbers and over-long lines. Same seed, same inputs. argv[1] may give another seed.
 * Exit 0 when every input passed; an invariant violation aborts inside the entry.
 * The mutations and run loop are tests/fuzz-driver.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz-driver.h"
#include "tests/ptparse-util.h"

#define N_MUTANTS 2000

static const struct fuzz_mutator ptparse_mutator = {
	.punct = "{}[],:\"\\\n\t #-0123456789.eE*",
	.max_delete = 64,
	.max_dup = 256,
	.max_splice = 512,
	.max_splice_del = 32,
	.huge = " 99999999999999999999999 ",
	.run_min = 4000,
	.run_spread = 1000,
	.run_a = '7',
	.run_b = 'x',
	.max_steps = 8,
};

static void add_dir(struct fuzz_corpus *corpus, const char *dir)
{
	struct ptu_list l = ptu_list_fixtures(dir, "");

	for (size_t i = 0; i < l.n; i++) {
		struct fuzz_buf b = { NULL, 0 };

		b.p = (uint8_t *)ptu_read_fixture(l.names[i], &b.n);
		if (b.p)
			fuzz_corpus_add(corpus, b);
	}
	ptu_list_free(&l);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x5ca1ac2025ULL;
	struct fuzz_corpus corpus = { NULL, 0 };

	add_dir(&corpus, "perftest/scalacn-artifact/");
	add_dir(&corpus, "perftest/rxe-qemu/");
	add_dir(&corpus, "rdma/rxe-qemu/");
	if (corpus.n < 100) {
		fprintf(stderr, "ptparse-fuzz-smoke: only %zu fixture files (SCALACN_FIXTURES?)\n",
			corpus.n);
		fuzz_corpus_free(&corpus);
		return 1;
	}
	fuzz_run(&corpus, &ptparse_mutator, seed, N_MUTANTS);
	printf("ptparse-fuzz-smoke: %zu fixture files and %d mutants passed (seed %#llx)\n",
	       corpus.n, N_MUTANTS, (unsigned long long)seed);
	fuzz_corpus_free(&corpus);
	return 0;
}
