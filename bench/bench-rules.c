/* SPDX-License-Identifier: MIT */
/*
 * bench-rules: CPU cost of building a point's rule sets (generators/). First the first
 * build in a fresh process (cold memory: every page of rule storage comes from the kernel)
 * against the second build in that process, at 16K and 64K flows x 128 masks, each in a
 * process of its own (this program run again with --cold), with page faults. Then the
 * linearity table: a plain build (gen_rules_build, the reference) at 16K, 32K and 64K flows
 * and 1, 8, 32 and 128 masks on each of the four host/direction sides (4 rules per flow), one
 * untimed build of the same cell first (the steady state: what every build after the first
 * of a campaign pays), with ns per rule and its ratio to the 16K cell of the same masks (1.00
 * = linear in rules) and the page faults per build (a count: fresh memory from the kernel is
 * the part of the cost that is not the code's); then at 128 masks, through the rule-set
 * cache, a sweep step (one side's masks change: that host is rebuilt, the other reused) and a
 * point seen again (a hit: nothing is built); and the full build with the kept flow
 * permutations dropped before it (gen_perm_memo.c: every side's shuffle drawn again, what the
 * first build of a flow count and seed pays). Each figure is the median [min, max] of 5 runs
 * in CPU time (of this process, or of the build in the child). Figures only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench/bench-util.h"
#include "generators/gen.h"
#include "generators/gen_flows.h"

#define REPEATS 5

struct job {
	struct gen_rules_cache *cache; /* NULL: plain builds */
	struct gen_levels l;
	uint32_t step; /* sweep steps: server.decap_masks moves by one each run */
	bool draw_perms; /* the kept flow permutations dropped first: every one drawn anew */
};

static void die(const char *what, const struct scn_error *err)
{
	fprintf(stderr, "bench-rules: %s: %s\n", what, err->message);
	exit(1);
}

static void build_once(void *ctx)
{
	struct job *j = ctx;
	struct gen_rules *r = NULL;
	struct scn_error err;

	if (j->step)
		j->l.masks[GEN_SERVER][GEN_DECAP] = 128 - (j->step++ % 64);
	if (j->draw_perms)
		gen_perm_memo_clear();
	if (gen_rules_cache_get(j->cache, NULL, NULL, &j->l, 1, &r, &err) < 0)
		die("build", &err);
	gen_rules_free(r);
}

/* Minor page faults of this process so far. */
static long minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

static void set_masks(struct job *j, uint32_t flows, uint32_t masks)
{
	gen_levels_neutral(&j->l);
	j->l.flows = flows;
	for (int h = 0; h < GEN_HOSTS; h++)
		for (int d = 0; d < GEN_DIRS; d++)
			j->l.masks[h][d] = masks;
}

/* --cold FLOWS: two builds of FLOWS x 128 in this fresh process; prints the CPU ms and the
 * page faults of each. */
static int cold_child(uint32_t flows)
{
	struct job j = { 0 };

	set_masks(&j, flows, 128);
	for (int k = 0; k < 2; k++) {
		long faults = minor_faults();
		double t = bench_cpu_s();

		build_once(&j);
		t = bench_cpu_s() - t;
		printf("%.6f %ld ", t * 1e3, minor_faults() - faults);
	}
	printf("\n");
	return 0;
}

/* First and second build in fresh processes (this program with --cold), REPEATS of each. */
static void cold(void)
{
	static const uint32_t flows[] = { 16384, 65536 };
	char out[] = "/tmp/bench-rules-XXXXXX";
	int fd = mkstemp(out);

	if (fd < 0) {
		perror("bench-rules: mkstemp");
		exit(1);
	}
	close(fd);
	printf("first build in a fresh process (cold memory) and the second in it, 128 masks, CPU "
	       "median [min, max] of %d processes; page faults per build (mean):\n", REPEATS);
	for (size_t i = 0; i < sizeof(flows) / sizeof(flows[0]); i++) {
		double ms[2][REPEATS], faults[2] = { 0, 0 };
		char arg[16];
		char *argv[] = { "/proc/self/exe", "--cold", arg, NULL };

		snprintf(arg, sizeof(arg), "%u", flows[i]);
		for (int r = 0; r < REPEATS; r++) {
			FILE *f;
			long fa[2];
			int st, n = 0;

			if (bench_child_cmd_cpu_s(argv, NULL, out, &st) < 0 || st != 0 ||
			    !(f = fopen(out, "r"))) {
				fprintf(stderr, "bench-rules: the --cold child failed\n");
				exit(1);
			}
			n = fscanf(f, "%lf %ld %lf %ld", &ms[0][r], &fa[0], &ms[1][r], &fa[1]);
			fclose(f);
			if (n != 4) {
				fprintf(stderr, "bench-rules: the --cold child printed no figures\n");
				exit(1);
			}
			faults[0] += (double)fa[0] / REPEATS;
			faults[1] += (double)fa[1] / REPEATS;
		}
		for (int k = 0; k < 2; k++) {
			struct bench_spread s;

			bench_spread_of(ms[k], REPEATS, &s);
			printf("  %5u flows, %s build: %8.2f ms [%8.2f, %8.2f]  %6.1f ns per rule  "
			       "%6.0f faults\n", flows[i], k ? "second" : "first ", s.median, s.min,
			       s.max, s.median * 1e6 / (4.0 * flows[i]), faults[k]);
		}
	}
	unlink(out);
}

/* The linearity table: plain builds in the steady state (one untimed build of the cell
 * first), ns per rule against the 16K cell's. */
static void linearity(void)
{
	static const uint32_t flows[] = { 16384, 32768, 65536 };
	static const uint32_t masks[] = { 1, 8, 32, 128 };
	double first[4] = { 0 };

	printf("plain build (gen_rules_build) after one of the same size, CPU median [min, max] of "
	       "%d; ns per rule and its ratio to 16384 flows at the same masks; page faults per "
	       "build (mean):\n", REPEATS);
	printf("    flows  masks     rules         ms [min, max]              ns/rule  ratio  "
	       "faults\n");
	for (size_t i = 0; i < sizeof(flows) / sizeof(flows[0]); i++)
		for (size_t k = 0; k < sizeof(masks) / sizeof(masks[0]); k++) {
			struct job j = { 0 };
			double rules = 4.0 * flows[i], ns;
			struct bench_spread s;
			long faults;

			set_masks(&j, flows[i], masks[k]);
			build_once(&j);
			faults = minor_faults();
			bench_repeat(build_once, &j, REPEATS, &s);
			faults = minor_faults() - faults;
			ns = s.median / rules * 1e9;
			if (i == 0)
				first[k] = ns;
			printf("  %7u  %5u  %8.0f  %8.2f [%8.2f, %8.2f]  %8.1f  %5.2f  %6.0f\n",
			       flows[i], masks[k], rules, s.median * 1e3, s.min * 1e3, s.max * 1e3, ns,
			       ns / first[k], (double)faults / REPEATS);
		}
}

static void row(const char *what, struct job *j, double rules)
{
	struct bench_spread s;

	bench_repeat(build_once, j, REPEATS, &s);
	printf("  %-34s %8.2f ms [%8.2f, %8.2f]  %6.1f ns per rule\n", what, s.median * 1e3,
	       s.min * 1e3, s.max * 1e3, s.median / rules * 1e9);
}

int main(int argc, char **argv)
{
	static const uint32_t flows[] = { 16384, 32768, 65536 };

	if (argc == 3 && strcmp(argv[1], "--cold") == 0)
		return cold_child((uint32_t)strtoul(argv[2], NULL, 10));
	cold();
	linearity();
	printf("rule sets at 128 masks on each side (4 rules per flow), CPU median [min, max] "
	       "of %d:\n", REPEATS);
	for (size_t i = 0; i < sizeof(flows) / sizeof(flows[0]); i++) {
		struct job j = { 0 };
		double rules = 4.0 * flows[i];
		char what[64];

		set_masks(&j, flows[i], 128);
		printf(" %u flows, %.0f rules:\n", flows[i], rules);
		row("full build (reference)", &j, rules);
		j.draw_perms = true;
		row("full build, permutations drawn", &j, rules);
		j.draw_perms = false;
		j.cache = gen_rules_cache_new(0);
		build_once(&j); /* the flow table and the client host are now held */
		j.step = 1;
		snprintf(what, sizeof(what), "cache, sweep step (server rebuilt)");
		row(what, &j, rules);
		j.step = 0;
		build_once(&j);
		row("cache, point seen again", &j, rules);
		gen_rules_cache_free(j.cache);
	}
	return 0;
}
