/* SPDX-License-Identifier: MIT */
/*
 * bench-sim: CPU cost of simulated trials at campaign scale (16K flows, 128 masks on each of
 * the four host/direction sides), apply, measure and rule building (a plain build and a cache
 * hit) timed separately, trials per second with and without building, plus the CX-7
 * calibration table (model vs the public measurements) for the record. Every CPU figure is
 * the median [min, max] over REPEATS rounds, each round timing a batch of each operation in
 * CPU time of this process (bench-util.h); a ratio or a rate is computed within each round
 * from that round's figures, then summarised the same way. Prints only; asserts nothing about
 * time. Assumes SCALACN_SOURCE_ROOT (compile-time define, or environment).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench-util.h"
#include "generators/gen.h"
#include "testbeds/tb.h"

#ifndef SCALACN_SOURCE_ROOT
#define SCALACN_SOURCE_ROOT "."
#endif

#define REPEATS 5

static double cpu_s(void)
{
	return bench_cpu_s();
}

static int die(const char *what, const struct scn_error *err)
{
	char msg[1024];

	fprintf(stderr, "bench-sim: %s: %s\n", what, scn_error_format(err, msg, sizeof(msg)));
	return 1;
}

static void levels(struct gen_levels *l, uint32_t flows, uint32_t ce, uint32_t cd, uint32_t se,
		   uint32_t sd)
{
	gen_levels_neutral(l);
	l->flows = flows;
	l->masks[GEN_CLIENT][GEN_ENCAP] = ce;
	l->masks[GEN_CLIENT][GEN_DECAP] = cd;
	l->masks[GEN_SERVER][GEN_ENCAP] = se;
	l->masks[GEN_SERVER][GEN_DECAP] = sd;
}

/* CPU of building the scale point's rule sets: a plain build, and a cache hit (per build, N
 * of each). */
static int time_builds(struct gen_rules_cache *c, int n, double *build_s, double *hit_s)
{
	struct gen_rules *r = NULL;
	struct gen_levels l;
	struct scn_error err;
	double t0;

	levels(&l, 16384, 128, 128, 128, 128);
	t0 = cpu_s();
	for (int i = 0; i < n; i++) {
		if (gen_rules_build(NULL, NULL, &l, 1, &r, &err) < 0)
			return die("gen_rules_build", &err);
		gen_rules_free(r);
	}
	*build_s = (cpu_s() - t0) / n;
	if (gen_rules_cache_get(c, NULL, NULL, &l, 1, &r, &err) < 0)
		return die("gen_rules_cache_get", &err);
	gen_rules_free(r);
	t0 = cpu_s();
	for (int i = 0; i < n; i++) {
		if (gen_rules_cache_get(c, NULL, NULL, &l, 1, &r, &err) < 0)
			return die("gen_rules_cache_get", &err);
		gen_rules_free(r);
	}
	*hit_s = (cpu_s() - t0) / n;
	return 0;
}

/* One round's figures (seconds per operation). */
struct round {
	double apply, meas, pop, build, hit;
};

/* One round: N_APPLY applies (alternating two rule sets), N_MEASURE measures of the same
 * traffic, N_POP measures alternating popularity (the per-flow aggregates recomputed), and
 * the builds. */
static int one_round(struct tb *tb, struct gen_rules *const r[2], const struct gen_traffic t[2],
		     struct gen_rules_cache *c, struct round *out)
{
	const int n_apply = 8, n_measure = 4000, n_pop = 40, n_build = 4;
	struct scn_error err;
	struct tb_sample s;
	double t0;

	t0 = cpu_s();
	for (int i = 0; i < n_apply; i++)
		if (tb_apply(tb, r[i & 1], &err) < 0)
			return die("apply", &err);
	out->apply = (cpu_s() - t0) / n_apply;
	t0 = cpu_s();
	for (int i = 0; i < n_measure; i++)
		if (tb_measure(tb, &t[0], (uint64_t)i, &s, &err) < 0)
			return die("measure", &err);
	out->meas = (cpu_s() - t0) / n_measure;
	t0 = cpu_s();
	for (int i = 0; i < n_pop; i++)
		if (tb_measure(tb, &t[i & 1], (uint64_t)i, &s, &err) < 0)
			return die("measure", &err);
	out->pop = (cpu_s() - t0) / n_pop;
	return time_builds(c, n_build, &out->build, &out->hit);
}

/* Print LABEL: the median [min, max] of V[0..REPEATS) times SCALE, in UNIT, then WHAT. */
static void print_spread(const char *label, double *v, double scale, const char *unit,
			 const char *what)
{
	struct bench_spread sp;

	bench_spread_of(v, REPEATS, &sp);
	printf("  %-20s %10.4g [%10.4g, %10.4g] %s%s\n", label, sp.median * scale,
	       sp.min * scale, sp.max * scale, unit, what);
}

static void print_rounds(const struct round *rd)
{
	double v[10][REPEATS];

	for (int k = 0; k < REPEATS; k++) {
		const struct round *x = &rd[k];

		v[0][k] = x->apply;
		v[1][k] = x->meas;
		v[2][k] = x->pop;
		v[3][k] = 1.0 / (x->apply + x->meas);
		v[4][k] = 1.0 / x->meas;
		v[5][k] = x->apply / x->meas;
		v[6][k] = x->build;
		v[7][k] = x->hit;
		v[8][k] = 1.0 / (x->build + x->apply + x->meas);
		v[9][k] = 1.0 / (x->hit + x->apply + x->meas);
	}
	print_spread("apply", v[0], 1e3, "ms CPU", "");
	print_spread("measure", v[1], 1e6, "us CPU", " (aggregates cached)");
	print_spread("measure", v[2], 1e6, "us CPU", " (popularity changes every trial)");
	print_spread("trials/s", v[3], 1, "", " (apply + measure each trial)");
	print_spread("trials/s", v[4], 1, "", " (measure only, rules applied once)");
	print_spread("ratio apply/measure", v[5], 1, "x", "");
	print_spread("rule building", v[6], 1e3, "ms CPU", " (gen_rules_build)");
	print_spread("rule building", v[7], 1e3, "ms CPU", " (the cache, point built before)");
	print_spread("trials/s", v[8], 1, "", " (build + apply + measure, every point new)");
	print_spread("trials/s", v[9], 1, "", " (cache hit + apply + measure)");
}

static int scale_bench(struct tb *tb)
{
	struct gen_rules_cache *c = gen_rules_cache_new(0);
	struct gen_rules *r[2] = { NULL, NULL };
	struct round rd[REPEATS];
	struct gen_levels l;
	struct gen_traffic t[2];
	struct scn_error err;
	int rc = 0;

	if (!c)
		return 1;
	for (int i = 0; i < 2; i++) {
		levels(&l, 16384, 128, 128, 128, 128 - (uint32_t)i);
		l.popularity = i ? GEN_POP_ZIPF : GEN_POP_UNIFORM;
		if (gen_rules_build(NULL, NULL, &l, 1, &r[i], &err) < 0)
			return die("gen_rules_build", &err);
		gen_traffic_from_levels(&l, &t[i]);
	}
	for (int k = 0; rc == 0 && k < REPEATS; k++)
		rc = one_round(tb, r, t, c, &rd[k]);
	if (rc == 0) {
		printf("sim at 16384 flows, 128 masks per side (%zu + %zu rules per host), "
		       "median [min, max] of %d rounds:\n", (size_t)2 * 16384, (size_t)2 * 16384,
		       REPEATS);
		print_rounds(rd);
	}
	gen_rules_cache_free(c);
	gen_rules_free(r[0]);
	gen_rules_free(r[1]);
	return rc;
}

struct row {
	uint32_t ce, cd, se, sd;
	double bw[2], lat[2]; /* send, write: MiB/s, us */
};

static const struct row rows[] = {
	{ 0, 0, 0, 0, { 21118, 21115 }, { 2.74, 2.76 } },
	{ 0, 0, 0, 20, { 11224, 11852 }, { 4.49, 4.10 } },
	{ 20, 0, 0, 20, { 11187, 11312 }, { 5.23, 5.38 } },
	{ 20, 100, 80, 80, { 3176, 3221 }, { 22.02, 20.14 } },
};

static int one(struct tb *tb, const struct gen_levels *l, double *v)
{
	struct gen_rules *r = NULL;
	struct gen_traffic t;
	struct scn_error err;
	struct tb_sample s;

	if (gen_rules_build(NULL, NULL, l, 1, &r, &err) < 0 || tb_apply(tb, r, &err) < 0)
		return die("calibration apply", &err);
	gen_traffic_from_levels(l, &t);
	if (tb_measure(tb, &t, 11, &s, &err) < 0)
		return die("calibration measure", &err);
	*v = l->metric == GEN_METRIC_BW ? s.bw_gbps * 1e9 / 8 / 1048576 : s.lat_median_us;
	gen_rules_free(r);
	return 0;
}

static int calibration_table(struct tb *tb)
{
	printf("CX-7 calibration (one seeded trial each; measured in parentheses):\n");
	printf("  cen/cde/sen/sde   send MiB/s        write MiB/s       send lat us     "
	       "write lat us\n");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *w = &rows[i];
		double bw[2], lat[2];

		for (int v = 0; v < 2; v++) {
			struct gen_levels l;

			levels(&l, 400, w->ce, w->cd, w->se, w->sd);
			l.verb = v ? TOPO_VERB_WRITE : TOPO_VERB_SEND;
			l.msg_size = 8u << 20;
			l.mtu = 1024;
			l.qps = 4;
			if (one(tb, &l, &bw[v]))
				return 1;
			l.metric = GEN_METRIC_LAT;
			l.msg_size = 2;
			l.qps = 1;
			if (one(tb, &l, &lat[v]))
				return 1;
		}
		printf("  %3u/%3u/%3u/%3u   %6.0f (%5.0f)    %6.0f (%5.0f)    %5.2f (%5.2f)   "
		       "%5.2f (%5.2f)\n", w->ce, w->cd, w->se, w->sd, bw[0], w->bw[0], bw[1],
		       w->bw[1], lat[0], w->lat[0], lat[1], w->lat[1]);
	}
	return 0;
}

int main(void)
{
	const char *root = getenv("SCALACN_SOURCE_ROOT");
	struct scn_error err;
	struct tb *tb = NULL;
	char path[1024];
	int rc;

	snprintf(path, sizeof(path), "%s/examples/testbeds/sim-cx7.yaml",
		 root ? root : SCALACN_SOURCE_ROOT);
	scn_error_clear(&err);
	if (tb_open(path, &tb, &err) < 0)
		return die("tb_open", &err);
	rc = scale_bench(tb);
	if (rc == 0)
		rc = calibration_table(tb);
	tb_close(tb);
	return rc;
}
