/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of libscalacn-opt on the paper's scale: 15K offloaded flows over 64 masks with
 * Zipf(1.0) popularity. Prints the mean masks probed per packet (exact expectation over the
 * popularity, via opt_table_classify on one packet per flow) for the static insertion order
 * and after 1 s ticks of the optimiser, their ratio, the CPU time of a tick (and of feeding
 * it the per-second counters) as % of one core, and heap bytes per rule.
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

#include "optimiser/scalacn-opt.h"

#define FLOWS 15000
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
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
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

static double mean_probes(struct opt_table *t, const struct opt_rule *rules, const double *p)
{
	double sum = 0;

	for (uint32_t i = 0; i < FLOWS; i++) {
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
	struct opt_rule *rules;
	struct opt_pkt *pkts;
	double *p;
};

/* Build the table for W, run SECONDS ticks of counters + tick + apply, print one block. */
/* Replace CHURN flows (uniformly chosen popularity slots) with new rules on random masks,
 * as flows depart and arrive (the agent deletes and adds rules before its tick). */
static void churn_flows(struct opt_table *t, const struct workload *w, uint32_t churn,
			uint64_t now, uint32_t *next_id, uint64_t *s)
{
	for (uint32_t c = 0; c < churn; c++) {
		uint32_t j = (uint32_t)(rng_next(s) % FLOWS), id = (*next_id)++;

		opt_table_del_rule(t, w->rules[j].id);
		make_rule(id - 1, (uint32_t)(rng_next(s) % MASKS), s, &w->rules[j]);
		w->rules[j].v[OPT_F_IP_DST] = 0x0b000000u + id; /* distinct from every other */
		memcpy(w->pkts[j].v, w->rules[j].v, sizeof(w->pkts[j].v));
		opt_table_add_rule(t, &w->rules[j], now);
	}
}

static int run_case(const char *name, const struct workload *w, uint32_t hyper_capacity,
		    uint32_t churn, bool catch_all)
{
	struct opt_rule dflt = { .id = UINT32_MAX, .priority = 1000 }; /* matches everything */
	uint32_t next_id = FLOWS + 1;
	uint64_t cs = 99;
	double static_probes, opt_probes, tick_cpu = 0, feed_cpu = 0, worst_tick = 0;
	double *carry = calloc(FLOWS, sizeof(*carry));
	struct opt_table_stats st;
	struct opt_table *t = NULL;
	struct opt_config cfg;
	uint64_t cost = 0;
	uint32_t last_change = 0;

	opt_config_default(&cfg);
	cfg.always_optimise = true; /* the model's verdict is tested elsewhere */
	cfg.hyper_capacity = hyper_capacity;
	if (!carry || opt_table_new(&cfg, &t) < 0)
		return -1;
	for (uint32_t i = 0; i < FLOWS; i++)
		if (opt_table_add_rule(t, &w->rules[i], 0) < 0)
			return -1;
	if (catch_all && opt_table_add_rule(t, &dflt, 0) < 0)
		return -1;
	static_probes = mean_probes(t, w->rules, w->p);
	for (uint64_t now = 1; now <= SECONDS; now++) {
		struct opt_plan *plan = NULL;
		struct opt_plan_info info;
		double c0 = cpu_now(), c1, c2;

		churn_flows(t, w, churn, now, &next_id, &cs);
		for (uint32_t i = 0; i < FLOWS; i++) { /* counters the agent read this second */
			double want = PPS * w->p[i] + carry[i];
			uint64_t n = (uint64_t)want;

			carry[i] = want - (double)n;
			if (n) /* one connection per flow: its header is the packet we classify */
				opt_table_record_flow(t, w->rules[i].id, &w->pkts[i], n, now);
		}
		c1 = cpu_now();
		if (opt_table_tick(t, now, NULL, &plan) < 0 || opt_plan_apply(t, plan) < 0)
			return -1;
		c2 = cpu_now();
		opt_plan_info(plan, &info);
		cost += info.cost;
		if (opt_plan_count(plan) > 0)
			last_change = (uint32_t)now;
		opt_plan_free(plan);
		feed_cpu += c1 - c0;
		tick_cpu += c2 - c1;
		if (c2 - c1 > worst_tick)
			worst_tick = c2 - c1;
	}
	opt_probes = mean_probes(t, w->rules, w->p);
	opt_table_stats(t, &st);
	printf("%s (hyper capacity %u, churn %u flows/s%s):\n", name, hyper_capacity, churn,
	       catch_all ? ", plus a catch-all default rule" : "");
	printf("  mean masks probed per packet: static %.2f, optimised %.2f, ratio %.2fx\n",
	       static_probes, opt_probes, static_probes / opt_probes);
	printf("  hyper entries %u, masks %u, rule updates spent %llu, last change at %u s\n",
	       st.hyper_entries, st.masks, (unsigned long long)cost, last_change);
	printf("  tick CPU: mean %.3f%% of one core (worst tick %.3f%%); feeding counters "
	       "(and churn) %.3f%%\n", 100.0 * tick_cpu / SECONDS, 100.0 * worst_tick,
	       100.0 * feed_cpu / SECONDS);
	printf("  memory: %.0f bytes per rule (%llu bytes for %u rules)\n",
	       (double)st.bytes / st.rules, (unsigned long long)st.bytes, st.rules);
	opt_table_free(t);
	free(carry);
	return 0;
}

int main(void)
{
	struct workload w = { calloc(FLOWS, sizeof(*w.rules)), calloc(FLOWS, sizeof(*w.pkts)),
			      calloc(FLOWS, sizeof(*w.p)) };
	uint32_t *rank = calloc(FLOWS, sizeof(*rank));
	uint64_t s = 20250401;
	double h = 0;
	int rc;

	if (!w.rules || !w.pkts || !w.p || !rank)
		return 1;
	for (uint32_t i = 0; i < FLOWS; i++) { /* popularity rank: a seeded permutation */
		uint32_t j = (uint32_t)(rng_next(&s) % (i + 1));

		rank[i] = rank[j];
		rank[j] = i;
	}
	for (uint32_t i = 0; i < FLOWS; i++)
		h += 1.0 / (i + 1);
	for (uint32_t i = 0; i < FLOWS; i++) {
		w.p[i] = 1.0 / ((rank[i] + 1) * h);
		make_rule(i, (uint32_t)(rng_next(&s) % MASKS), &s, &w.rules[i]);
		memcpy(w.pkts[i].v, w.rules[i].v, sizeof(w.pkts[i].v));
	}
	printf("bench-optimiser: %d flows, %d masks (uniform), Zipf(1.0), %.0f pkt/s, %d ticks "
	       "of 1 s\n", FLOWS, MASKS, PPS, SECONDS);
	rc = run_case("hyper + cascading masks", &w, 1024, 0, false);
	if (rc == 0)
		rc = run_case("cascading masks only", &w, 0, 0, false);
	if (rc == 0) /* changes rules: last */
		rc = run_case("hyper + cascading masks", &w, 1024, 20, false);
	if (rc == 0) /* a default rule overlaps every flow: its mask has no field in common */
		rc = run_case("hyper + cascading masks", &w, 1024, 20, true);
	free(w.rules);
	free(w.pkts);
	free(w.p);
	free(rank);
	return rc < 0;
}
