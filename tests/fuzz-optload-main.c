/* SPDX-License-Identifier: MIT */
/*
 * fuzz-optload-main: a standalone driver for the fuzz-optload entry (model loader, number
 * arrays, trace reader and replay), for compilers without libFuzzer (gcc) and for bounded CI
 * runs. It runs LLVMFuzzerTestOneInput on every file of tests/corpus/optimiser/ (good and
 * damaged traces and model files, under $SCALACN_SOURCE_ROOT) and on N seeded mutations of
 * them (default 1500; argv[1] = seed, argv[2] = N): byte flips, inserted CSV punctuation and
 * digits, deleted / duplicated / spliced ranges, truncation, long runs. Same seed, same
 * inputs. Exit 0 when every input passed; a broken invariant aborts inside the entry.
 * The corpus walk, mutations and run loop are tests/fuzz-driver.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz-driver.h"

static const struct fuzz_mutator optload_mutator = {
	.punct = ",\n\r#.0123456789-:/ \"",
	.max_delete = 32,
	.max_dup = 128,
	.max_splice = 256,
	.max_splice_del = 16,
	.huge = NULL,
	.run_min = 64,
	.run_spread = 512,
	.run_a = '9',
	.run_b = 'k',
	.max_steps = 6,
};

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x0b7a11e5ULL;
	unsigned mutants = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 1500;
	const char *root = getenv("SCALACN_SOURCE_ROOT");
	struct fuzz_corpus corpus = { NULL, 0 };
	char dir[1024];

	snprintf(dir, sizeof(dir), "%s/tests/corpus/optimiser", root ? root : ".");
	fuzz_corpus_add_dir(&corpus, dir);
	if (corpus.n < 10) {
		fprintf(stderr, "optload-fuzz-smoke: only %zu corpus files in %s\n", corpus.n, dir);
		fuzz_corpus_free(&corpus);
		return 1;
	}
	fuzz_run(&corpus, &optload_mutator, seed, mutants);
	printf("optload-fuzz-smoke: %zu corpus files and %u mutants passed (seed %#llx)\n",
	       corpus.n, mutants, (unsigned long long)seed);
	fuzz_corpus_free(&corpus);
	return 0;
}
