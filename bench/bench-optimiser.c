/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of libscalacn-opt on the paper's scale: 15K offloaded flows over 64 masks with
 * Zipf(1.0) popularity. Prints the mean masks probed per packet (exact expectation over the
 * popularity, via opt_table_classify on one packet per flow) for the static insertion order
 * and after 1 s ticks of the optimiser, their ratio (counts: the same in every run), the CPU
 * time of a tick (and of feeding it the per-second counters) as % of one core, the worst
 * tick, and heap bytes per rule; then the scale table: 1K to 100K flows with 20
 * replacements per second (counters fed as one poll per second, opt_table_record_batch, as
 * an agent reading tc -s or mlx5 counters would). Every CPU figure is the median [min, max]
 * of REPEATS runs of the same workload, each run's figure measured the same way (the worst
 * tick: the longest of a run's ticks). Feeding is the library's work: the churn's deletes and
 * adds and the poll's record calls, not the benchmark's own arithmetic that makes up the counts. CPU time
 * of this process (bench-util.h), the same clock on every row.
 * Assumes flows never overlap (distinct /32 destinations, as OVS megaflows), so the only
 * lever is the order of masks and the hyper mask; the last case adds one catch-all default
 * rule that overlaps every flow. Churn cases replace flows every second: the precedence
 * between masks is then maintained per rule change (in "feeding") and the tick only reads
 * it. Deterministic: everything from one seed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench-util.h"
#include "optimiser/scalacn-opt.h"

#define FLOWS_MAX 100000
#define REPEATS 5
#define MASKS 64
#define PPS 2000000.0 /* packets per second over all flows */
#define SECONDS 40

static const enum opt_field optional[6] = { OPT_F_ETH_TYPE, OPT_F_IP_PROTO, OPT_F_L4_DST,
					    OPT_F_TUN_ID, OPT_F_IP_SRC, OPT_F_L4_SRC };

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double cpu_now(void)
{
	return bench_cpu_s();
}

/* Mask 0 is the full mask (exact flows, eligible for the hyper mask); mask k > 0 matches
 * in_port, ip_dst/32 and the optional fields in the bits of k. */
static void make_rule(uint32_t i, uint32_t mask, uint64_t *s, struct opt_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->id = i + 1;
	r->priority = 100;
	r->action = i;
	if (mask == 0) {
		opt_mask_full(&r->mask);
	} else {
		r->mask.fields = 1u << OPT_F_IN_PORT | 1u << OPT_F_IP_DST;
		for (int b = 0; b < 6; b++)
			if (mask & (1u << b))
				r->mask.fields |= 1u << optional[b];
		for (int f = 0; f < OPT_F_COUNT; f++)
			if (opt_field_is_ip((enum opt_field)f))
				r->mask.plen[f] = 32;
	}
	for (int f = 0; f < OPT_F_COUNT; f++)
		r->v[f] = opt_field_is_ip((enum opt_field)f) ? rng_next(s) & 0xffffffffu
							     : rng_next(s) & 0xffff;
	r->v[OPT_F_IP_DST] = 0x0a000000u + i; /* distinct: flows never overlap */
}

static double mean_probes(struct opt_table *t, const struct opt_rule *rules, const double *p,
			  uint32_t flows)
{
	double sum = 0;

	for (uint32_t i = 0; i < flows; i++) {
		struct opt_pkt pk;
		uint32_t id = 0, probes = 0;

		memcpy(pk.v, rules[i].v, sizeof(pk.v)); /* wildcarded fields hold the flow's values */
		if (opt_table_classify(t, &pk, &id, &probes) < 0 || id != rules[i].id) {
			fprintf(stderr, "bench-optimiser: flow %u misclassified\n", i);
			exit(1);
		}
		sum += p[i] * probes;
	}
	return sum;
}

struct workload {
	uint32_t flows;
	struct opt_rule *rules;
	struct opt_pkt *pkts;
	double *p;
};

/* What one run measured. */
struct result {
	double static_probes, opt_probes;
	double tick_cpu, feed_cpu, worst_tick; /* seconds: totals over SECONDS ticks, worst one */
	uint64_t cost;
	uint32_t last_change;
	struct opt_table_stats st;
};

/* Build the table for W, run SECONDS ticks of counters + tick + apply, print one block. */
/* Replace CHURN flows (uniformly chosen popularity slots) with new rules on random masks,
 * as flows depart and arrive (the agent deletes and adds rules before its tick). */
static void churn_flows(struct opt_table *t, const struct workload *w, uint32_t churn,
			uint64_t now, uint32_t *next_id, uint64_t *s)
{
	for (uint32_t c = 0; c < churn; c++) {
		uint32_t j = (uint32_t)(rng_next(s) % w->flows), id = (*next_id)++;

		opt_table_del_rule(t, w->rules[j].id);
		make_rule(id - 1, (uint32_t)(rng_next(s) % MASKS), s, &w->rules[j]);
		w->rules[j].v[OPT_F_IP_DST] = 0x0b000000u + id; /* distinct from every other */
		memcpy(w->pkts[j].v, w->rules[j].v, sizeof(w->pkts[j].v));
		opt_table_add_rule(t, &w->rules[j], now);
	}
}

static int run(const struct workload *w, uint32_t hyper_capacity, uint32_t churn,
	       bool catch_all, struct result *res)
{
	struct opt_rule dflt = { .id = UINT32_MAX, .priority = 1000 }; /* matches everything */
	uint32_t next_id = FLOWS_MAX + 1;
	uint64_t cs = 99;
	double *carry = calloc(w->flows, sizeof(*carry));
	struct opt_count *poll = calloc(w->flows, sizeof(*poll));
	size_t n_polled;
	struct opt_table *t = NULL;
	struct opt_config cfg;

	memset(res, 0, sizeof(*res));
	opt_config_default(&cfg);
	cfg.always_optimise = true; /* the model's verdict is tested elsewhere */
	cfg.hyper_capacity = hyper_capacity;
	if (!carry || !poll || opt_table_new(&cfg, &t) < 0)
		return -1;
	for (uint32_t i = 0; i < w->flows; i++)
		if (opt_table_add_rule(t, &w->rules[i], 0) < 0)
			return -1;
	if (catch_all && opt_table_add_rule(t, &dflt, 0) < 0)
		return -1;
	res->static_probes = mean_probes(t, w->rules, w->p, w->flows);
	for (uint64_t now = 1; now <= SECONDS; now++) {
		struct opt_plan *plan = NULL;
		struct opt_plan_info info;
		double c0 = cpu_now(), c1, c2, cp;

		churn_flows(t, w, churn, now, &next_id, &cs);
		cp = cpu_now(); /* the counts below are the agent's reading, not the library's work */
		n_polled = 0;
		for (uint32_t i = 0; i < w->flows; i++) { /* counters the agent read this second */
			double want = PPS * w->p[i] + carry[i];
			uint64_t n = (uint64_t)want;

			carry[i] = want - (double)n;
			if (n) /* one connection per flow: its header is the packet we classify */
				poll[n_polled++] = (struct opt_count){ w->rules[i].id, n,
								       &w->pkts[i] };
		}
		c0 += cpu_now() - cp;
		if (opt_table_record_batch(t, poll, n_polled, now) != 0)
			return -1;
		c1 = cpu_now();
		if (opt_table_tick(t, now, NULL, &plan) < 0 || opt_plan_apply(t, plan) < 0)
			return -1;
		c2 = cpu_now();
		opt_plan_info(plan, &info);
		res->cost += info.cost;
		if (opt_plan_count(plan) > 0)
			res->last_change = (uint32_t)now;
		opt_plan_free(plan);
		res->feed_cpu += c1 - c0;
		res->tick_cpu += c2 - c1;
		if (c2 - c1 > res->worst_tick)
			res->worst_tick = c2 - c1;
	}
	res->opt_probes = mean_probes(t, w->rules, w->p, w->flows);
	opt_table_stats(t, &res->st);
	opt_table_free(t);
	free(carry);
	free(poll);
	return 0;
}

/* Flows I < N of W: seeded popularity ranks (Zipf(1.0) over N) and rules on random masks. */
static void make_workload(struct workload *w, uint32_t n, uint32_t *rank)
{
	uint64_t s = 20250401;
	double h = 0;

	w->flows = n;
	for (uint32_t i = 0; i < n; i++) { /* popularity rank: a seeded permutation */
		uint32_t j = (uint32_t)(rng_next(&s) % (i + 1));

		rank[i] = rank[j];
		rank[j] = i;
	}
	for (uint32_t i = 0; i < n; i++)
		h += 1.0 / (i + 1);
	for (uint32_t i = 0; i < n; i++) {
		w->p[i] = 1.0 / ((rank[i] + 1) * h);
		make_rule(i, (uint32_t)(rng_next(&s) % MASKS), &s, &w->rules[i]);
		memcpy(w->pkts[i].v, w->rules[i].v, sizeof(w->pkts[i].v));
	}
}

/* The CPU figures of REPEATS runs (% of one core, the worst tick in ms). */
struct spread3 {
	struct bench_spread tick, feed, load, worst;
};

static void spread_of(const double *tick, const double *feed, const double *worst,
		      struct spread3 *out)
{
	double t[REPEATS], f[REPEATS], l[REPEATS], w[REPEATS];

	for (int k = 0; k < REPEATS; k++) {
		t[k] = 100.0 * tick[k] / SECONDS;
		f[k] = 100.0 * feed[k] / SECONDS;
		l[k] = t[k] + f[k];
		w[k] = 1e3 * worst[k];
	}
	bench_spread_of(t, REPEATS, &out->tick);
	bench_spread_of(f, REPEATS, &out->feed);
	bench_spread_of(l, REPEATS, &out->load);
	bench_spread_of(w, REPEATS, &out->worst);
}

/* REPEATS runs of one case on a fresh copy of the workload each (churn changes its rules);
 * R: the last run's counts (the same in every run: everything comes from one seed). */
static int repeat_runs(struct workload *w, uint32_t n, uint32_t *rank, uint32_t hyper_capacity,
		       uint32_t churn, bool catch_all, struct result *r, struct spread3 *sp)
{
	double tick[REPEATS], feed[REPEATS], worst[REPEATS];

	for (int k = 0; k < REPEATS; k++) {
		make_workload(w, n, rank);
		if (run(w, hyper_capacity, churn, catch_all, r) < 0)
			return -1;
		tick[k] = r->tick_cpu;
		feed[k] = r->feed_cpu;
		worst[k] = r->worst_tick;
	}
	spread_of(tick, feed, worst, sp);
	return 0;
}

static int run_case(const char *name, struct workload *w, uint32_t *rank,
		    uint32_t hyper_capacity, uint32_t churn, bool catch_all)
{
	struct spread3 sp;
	struct result r;

	if (repeat_runs(w, 15000, rank, hyper_capacity, churn, catch_all, &r, &sp) < 0)
		return -1;
	printf("%s (hyper capacity %u, churn %u flows/s%s):\n", name, hyper_capacity, churn,
	       catch_all ? ", plus a catch-all default rule" : "");
	printf("  mean masks probed per packet: static %.2f, optimised %.2f, ratio %.2fx\n",
	       r.static_probes, r.opt_probes, r.static_probes / r.opt_probes);
	printf("  hyper entries %u, masks %u, rule updates spent %llu, last change at %u s\n",
	       r.st.hyper_entries, r.st.masks, (unsigned long long)r.cost, r.last_change);
	printf("  tick CPU %.3f%% [%.3f, %.3f] of one core; worst tick %.3f ms [%.3f, %.3f]\n",
	       sp.tick.median, sp.tick.min, sp.tick.max, sp.worst.median, sp.worst.min,
	       sp.worst.max);
	printf("  feeding counters (and churn) %.3f%% [%.3f, %.3f] of one core\n",
	       sp.feed.median, sp.feed.min, sp.feed.max);
	printf("  memory: %.0f bytes per rule (%llu bytes for %u rules)\n",
	       (double)r.st.bytes / r.st.rules, (unsigned long long)r.st.bytes, r.st.rules);
	return 0;
}

/* One row of the scale table: REPEATS runs of N flows with churn 20/s. */
static int scale_row(struct workload *w, uint32_t n, uint32_t *rank)
{
	struct spread3 sp;
	struct result r;

	if (repeat_runs(w, n, rank, 1024, 20, false, &r, &sp) < 0)
		return -1;
	printf("  %6u  %6.3f [%6.3f, %6.3f]  %6.3f [%6.3f, %6.3f]  %6.3f [%6.3f, %6.3f]"
	       "  %5.0f  %5.2fx\n", n, sp.load.median, sp.load.min, sp.load.max, sp.tick.median,
	       sp.tick.min, sp.tick.max, sp.worst.median, sp.worst.min, sp.worst.max,
	       (double)r.st.bytes / r.st.rules, r.static_probes / r.opt_probes);
	return 0;
}

static int scale_table(struct workload *w, uint32_t *rank)
{
	static const uint32_t rows[] = { 1000, 10000, 15000, 30000, 50000, 100000 };
	int rc = 0;

	printf("scale (Zipf(1.0), %d masks, %.0f pkt/s, churn 20 flows/s, hyper 1024, %d ticks; "
	       "median [min, max] of %d runs per row):\n", MASKS, PPS, SECONDS, REPEATS);
	printf("   flows  tick + feeding, %% core    tick, %% of a core       worst tick, ms"
	       "          B/rule  probes static/opt\n");
	for (size_t i = 0; rc == 0 && i < sizeof(rows) / sizeof(rows[0]); i++)
		rc = scale_row(w, rows[i], rank);
	return rc;
}

int main(void)
{
	struct workload w = { 0, calloc(FLOWS_MAX, sizeof(*w.rules)),
			      calloc(FLOWS_MAX, sizeof(*w.pkts)), calloc(FLOWS_MAX, sizeof(*w.p)) };
	uint32_t *rank = calloc(FLOWS_MAX, sizeof(*rank));
	int rc;

	if (!w.rules || !w.pkts || !w.p || !rank)
		return 1;
	printf("bench-optimiser: 15000 flows, %d masks (uniform), Zipf(1.0), %.0f pkt/s, %d ticks "
	       "of 1 s; CPU figures median [min, max] of %d runs\n", MASKS, PPS, SECONDS, REPEATS);
	rc = run_case("hyper + cascading masks", &w, rank, 1024, 0, false);
	if (rc == 0)
		rc = run_case("cascading masks only", &w, rank, 0, 0, false);
	if (rc == 0)
		rc = run_case("hyper + cascading masks", &w, rank, 1024, 20, false);
	if (rc == 0) /* a default rule overlaps every flow: its mask has no field in common */
		rc = run_case("hyper + cascading masks", &w, rank, 1024, 20, true);
	if (rc == 0)
		rc = scale_table(&w, rank);
	free(w.rules);
	free(w.pkts);
	free(w.p);
	free(rank);
	return rc < 0;
}
