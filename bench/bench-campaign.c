/* SPDX-License-Identifier: MIT */
/*
 * bench-campaign: the CPU of a whole campaign (examples/plans/qualify-full.yaml on the
 * simulated testbed) with every rule set built from scratch (SCALACN_RULES_CACHE=off, the
 * reference) and with the rule-set cache (generators/gen_rules_cache.c), in the same run:
 * the two modes alternate, each run is a fresh child process on a fresh store, and its CPU
 * is the child's own (user + system from wait4). Prints the median and range of each mode,
 * the ratio of the medians and the worst-case ratio (slowest cached run against the fastest
 * reference run), the median peak resident set and minor page faults of each mode's child
 * (counts, from the same wait4), and whether every run printed the same bytes as the first
 * reference run.
 * Usage: bench-campaign SCALACN PLAN [REPEATS [REFERENCE]]: with REFERENCE (another scalacn,
 * e.g. a build of an older revision) the reference runs are that binary with its defaults
 * instead of SCALACN with the cache off. Figures only; nothing about time is asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench-util.h"

#define MAX_REPEATS 16

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

static void remove_store(const char *dir)
{
	static const char *const tails[] = { "", "-wal", "-shm", ".lock" };
	char p[512];

	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		snprintf(p, sizeof(p), "%s/c.db%s", dir, tails[i]);
		unlink(p);
	}
}

/* What one run's child used besides CPU. */
struct run_usage {
	double rss_mib, faults;
};

/* One campaign in a child; its CPU seconds (its memory in *U), and whether its stdout equals
 * REF (NULL: it becomes the reference). */
static double one_run(const char *exe, const char *plan, const char *dir, const char *env,
		      char **ref, size_t *ref_len, int *same, struct run_usage *u)
{
	long rss = 0, faults = 0;
	char db[512], out[512];
	char *argv[] = { (char *)exe, "run", (char *)plan, "--db", db, "--quiet", NULL };
	size_t len = 0;
	char *text;
	int status = 0;
	double cpu;

	snprintf(db, sizeof(db), "%s/c.db", dir);
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	remove_store(dir);
	cpu = bench_child_cmd_usage(argv, env, out, &status, &rss, &faults);
	u->rss_mib = (double)rss / 1024.0;
	u->faults = (double)faults;
	if (cpu < 0 || status > 1) {
		fprintf(stderr, "bench-campaign: %s run %s failed (exit %d)\n", exe, plan, status);
		exit(1);
	}
	text = slurp(out, &len);
	if (!*ref) {
		*ref = text;
		*ref_len = len;
		*same = 1;
		return cpu;
	}
	*same = text && len == *ref_len && !memcmp(text, *ref, len);
	free(text);
	return cpu;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/scalacn-bench-campaign-XXXXXX", out[600];
	double off[MAX_REPEATS], on[MAX_REPEATS];
	double rss[2][MAX_REPEATS], faults[2][MAX_REPEATS];
	struct bench_spread so, sn, m[2][2];
	char *ref = NULL;
	size_t ref_len = 0;
	int n = argc > 3 ? atoi(argv[3]) : 3, identical = 0;
	const char *ref_exe = argc > 4 ? argv[4] : argv[1];
	const char *ref_env = argc > 4 ? NULL : "SCALACN_RULES_CACHE=off";

	if (argc < 3 || n < 1 || n > MAX_REPEATS) {
		fprintf(stderr, "usage: bench-campaign SCALACN PLAN [REPEATS 1..%d [REFERENCE]]\n",
			MAX_REPEATS);
		return 2;
	}
	if (!mkdtemp(dir))
		return 1;
	for (int i = 0; i < n; i++) {
		int same_off, same_on;
		struct run_usage uo, un;

		off[i] = one_run(ref_exe, argv[2], dir, ref_env, &ref, &ref_len, &same_off, &uo);
		on[i] = one_run(argv[1], argv[2], dir, NULL, &ref, &ref_len, &same_on, &un);
		identical += same_off + same_on;
		rss[0][i] = uo.rss_mib;
		faults[0][i] = uo.faults;
		rss[1][i] = un.rss_mib;
		faults[1][i] = un.faults;
	}
	bench_spread_of(off, (size_t)n, &so);
	bench_spread_of(on, (size_t)n, &sn);
	for (int k = 0; k < 2; k++) {
		bench_spread_of(rss[k], (size_t)n, &m[k][0]);
		bench_spread_of(faults[k], (size_t)n, &m[k][1]);
	}
	printf("campaign %s, CPU of the scalacn process, median [min, max] of %d runs each:\n",
	       argv[2], n);
	printf("  %-29s %7.3f s [%7.3f, %7.3f]\n", argc > 4 ? ref_exe :
	       "rule sets built from scratch", so.median, so.min, so.max);
	printf("  rule-set cache                %7.3f s [%7.3f, %7.3f]\n", sn.median, sn.min,
	       sn.max);
	printf("  ratio %.2fx (medians), %.2fx worst case (fastest reference / slowest cached)\n",
	       so.median / sn.median, so.min / sn.max);
	printf("  peak RSS %.0f MiB and %.0f minor page faults (reference), %.0f MiB and %.0f (cache)\n",
	       m[0][0].median, m[0][1].median, m[1][0].median, m[1][1].median);
	printf("  same stdout as the first reference run: %d of %d runs\n", identical, 2 * n);
	free(ref);
	remove_store(dir);
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	unlink(out);
	rmdir(dir);
	return identical == 2 * n ? 0 : 1;
}
