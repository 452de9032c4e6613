/* SPDX-License-Identifier: MIT */
/*
 * bench-sim: CPU cost of simulated trials at campaign scale (16K flows, 128 masks on each of
 * the four host/direction sides), apply, measure and rule building (a plain build and a cache
 * hit) timed separately, trials per second with and without building, plus the CX-7
 * calibration table (model vs the public measurements) for the record. Prints only; asserts
 * nothing about time. Assumes SCALACN_SOURCE_ROOT (compile-time define, or environment).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "generators/gen.h"
#include "testbeds/tb.h"

#ifndef SCALACN_SOURCE_ROOT
#define SCALACN_SOURCE_ROOT "."
#endif

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
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

/* CPU of building the scale point's rule sets: a plain build, and a cache hit. */
static int time_builds(double *build_s, double *hit_s)
{
	struct gen_rules_cache *c = gen_rules_cache_new(0);
	struct gen_rules *r = NULL;
	struct gen_levels l;
	struct scn_error err;
	const int n = 10;
	double t0;

	levels(&l, 16384, 128, 128, 128, 128);
	t0 = cpu_s();
	for (int i = 0; i < n; i++) {
		if (gen_rules_build(NULL, NULL, &l, 1, &r, &err) < 0)
			return die("gen_rules_build", &err);
		gen_rules_free(r);
	}
	*build_s = (cpu_s() - t0) / n;
	if (!c || gen_rules_cache_get(c, NULL, NULL, &l, 1, &r, &err) < 0)
		return die("gen_rules_cache_get", &err);
	gen_rules_free(r);
	t0 = cpu_s();
	for (int i = 0; i < n; i++) {
		if (gen_rules_cache_get(c, NULL, NULL, &l, 1, &r, &err) < 0)
			return die("gen_rules_cache_get", &err);
		gen_rules_free(r);
	}
	*hit_s = (cpu_s() - t0) / n;
	gen_rules_cache_free(c);
	return 0;
}

/* Time apply (alternating two rule sets) and measure (same traffic; and alternating
 * popularity, which recomputes the per-flow aggregates). */
static int scale_bench(struct tb *tb)
{
	struct gen_rules *r[2] = { NULL, NULL };
	struct gen_levels l;
	struct gen_traffic t[2];
	struct scn_error err;
	struct tb_sample s;
	const int n_apply = 40, n_measure = 20000, n_pop = 200;
	double t0, apply_s, meas_s, pop_s, build_s = 0, hit_s = 0;

	for (int i = 0; i < 2; i++) {
		levels(&l, 16384, 128, 128, 128, 128 - (uint32_t)i);
		l.popularity = i ? GEN_POP_ZIPF : GEN_POP_UNIFORM;
		if (gen_rules_build(NULL, NULL, &l, 1, &r[i], &err) < 0)
			return die("gen_rules_build", &err);
		gen_traffic_from_levels(&l, &t[i]);
	}
	t0 = cpu_s();
	for (int i = 0; i < n_apply; i++)
		if (tb_apply(tb, r[i & 1], &err) < 0)
			return die("apply", &err);
	apply_s = (cpu_s() - t0) / n_apply;
	t0 = cpu_s();
	for (int i = 0; i < n_measure; i++)
		if (tb_measure(tb, &t[0], (uint64_t)i, &s, &err) < 0)
			return die("measure", &err);
	meas_s = (cpu_s() - t0) / n_measure;
	t0 = cpu_s();
	for (int i = 0; i < n_pop; i++)
		if (tb_measure(tb, &t[i & 1], (uint64_t)i, &s, &err) < 0)
			return die("measure", &err);
	pop_s = (cpu_s() - t0) / n_pop;
	if (time_builds(&build_s, &hit_s) != 0)
		return 1;
	printf("sim at 16384 flows, 128 masks per side (%zu + %zu rules per host):\n",
	       (size_t)2 * 16384, (size_t)2 * 16384);
	printf("  apply          %9.3f ms CPU\n", apply_s * 1e3);
	printf("  measure        %9.3f us CPU (aggregates cached)\n", meas_s * 1e6);
	printf("  measure        %9.3f us CPU (popularity changes every trial)\n", pop_s * 1e6);
	printf("  trials/s       %9.0f (apply + measure each trial)\n", 1.0 / (apply_s + meas_s));
	printf("  trials/s       %9.0f (measure only, rules applied once)\n", 1.0 / meas_s);
	printf("  ratio apply/measure %.0fx\n", apply_s / meas_s);
	printf("  rule building  %9.3f ms CPU (gen_rules_build), %.3f ms through the cache when "
	       "the point was built before\n", build_s * 1e3, hit_s * 1e3);
	printf("  trials/s       %9.0f (build + apply + measure, every point new)\n",
	       1.0 / (build_s + apply_s + meas_s));
	printf("  trials/s       %9.0f (cache hit + apply + measure)\n",
	       1.0 / (hit_s + apply_s + meas_s));
	gen_rules_free(r[0]);
	gen_rules_free(r[1]);
	return 0;
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
