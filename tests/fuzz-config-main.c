/* SPDX-License-Identifier: MIT */
/*
 * fuzz-config-main: a standalone driver for the configuration-loader fuzz entry
 * (fuzz-config.c), for compilers without libFuzzer (gcc) and for bounded CI runs. It runs
 * LLVMFuzzerTestOneInput on every file of the committed corpus (tests/corpus/config/), on the
 * shipped plans, testbed files and simulator profiles, then on N_MUTANTS (2000) seeded mutations of
 * them: byte flips, inserted YAML punctuation (anchors, aliases, flow brackets, block
 * indicators), deleted / duplicated / spliced ranges, truncation, huge numbers and long
 * runs. Same seed, same inputs; argv[1] may give another seed. Exit 0 when every input
 * passed; an invariant violation aborts inside the entry. Mutations: tests/fuzz-driver.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz-driver.h"

#define N_MUTANTS 2000

static const struct fuzz_mutator config_mutator = {
	.punct = ":-[]{},&*!|>?#'\"\n\t 0123456789.%KMGe",
	.max_delete = 48,
	.max_dup = 400,
	.max_splice = 400,
	.max_splice_del = 32,
	.huge = " 999999999999999999999 ",
	.run_min = 2000,
	.run_spread = 2000,
	.run_a = '[',
	.run_b = ' ',
	.max_steps = 6,
};

static void add(struct fuzz_corpus *c, const char *root, const char *rel)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/%s", root, rel);
	fuzz_corpus_add_dir(c, dir);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0xc0f16ULL;
	const char *root = getenv("SCALACN_SOURCE_ROOT");
	struct fuzz_corpus corpus = { NULL, 0 };
	size_t committed;

	if (!root)
		root = ".";
	add(&corpus, root, "tests/corpus/config");
	committed = corpus.n;
	add(&corpus, root, "examples/plans");
	add(&corpus, root, "examples/testbeds");
	add(&corpus, root, "testbeds/sim/profiles");
	if (committed < 10 || corpus.n < committed + 10) {
		fprintf(stderr, "config-fuzz-smoke: only %zu corpus files (SCALACN_SOURCE_ROOT?)\n",
			corpus.n);
		fuzz_corpus_free(&corpus);
		return 1;
	}
	fuzz_run(&corpus, &config_mutator, seed, N_MUTANTS);
	printf("config-fuzz-smoke: %zu corpus files and %d mutants passed (seed %#llx)\n",
	       corpus.n, N_MUTANTS, (unsigned long long)seed);
	fuzz_corpus_free(&corpus);
	return 0;
}
