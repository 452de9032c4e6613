/* SPDX-License-Identifier: MIT */
/*
 * bench-rules: CPU cost of building a point's rule sets (generators/). First the linearity
 * table: a fresh plain build (gen_rules_build, the reference) at 16K, 32K and 64K flows and
 * 1, 8, 32 and 128 masks on each of the four host/direction sides (4 rules per flow), with
 * ns per rule and its ratio to the 16K cell of the same masks (1.00 = linear in rules; one
 * untimed build first, so that no cell pays the process's first touch of memory) and the
 * page faults per build (a count: fresh memory from the kernel, which a build of large rule
 * sets pays for every page it touches, is the part of the cost that is not the code's); then at
 * 128 masks, through the rule-set cache, a sweep step (one side's masks change: that host is
 * rebuilt, the other reused) and a point seen again (a hit: nothing is built). Each figure is
 * the median [min, max] of 5 runs in CPU time of this process. Figures only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "bench/bench-util.h"
#include "generators/gen.h"

#define REPEATS 5

struct job {
	struct gen_rules_cache *cache; /* NULL: plain builds */
	struct gen_levels l;
	uint32_t step; /* sweep steps: server.decap_masks moves by one each run */
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

/* The linearity table: fresh plain builds, ns per rule against the 16K cell's. */
static void linearity(void)
{
	static const uint32_t flows[] = { 16384, 32768, 65536 };
	static const uint32_t masks[] = { 1, 8, 32, 128 };
	double first[4] = { 0 };
	struct job warm = { 0 };

	set_masks(&warm, 65536, 128);
	build_once(&warm);
	printf("fresh plain build (gen_rules_build), CPU median [min, max] of %d; ns per rule and "
	       "its ratio to 16384 flows at the same masks; page faults per build (mean):\n",
	       REPEATS);
	printf("    flows  masks     rules         ms [min, max]              ns/rule  ratio  "
	       "faults\n");
	for (size_t i = 0; i < sizeof(flows) / sizeof(flows[0]); i++)
		for (size_t k = 0; k < sizeof(masks) / sizeof(masks[0]); k++) {
			struct job j = { 0 };
			double rules = 4.0 * flows[i], ns;
			struct bench_spread s;
			long faults;

			set_masks(&j, flows[i], masks[k]);
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

int main(void)
{
	static const uint32_t flows[] = { 16384, 32768, 65536 };

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
