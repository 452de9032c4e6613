/* SPDX-License-Identifier: MIT */
/*
 * test-rules-cache: the rule-set cache (generators/gen_rules_cache.c) against the plain full
 * build (gen_rules_build), its reference: for sequences of points like a campaign's (sweeps
 * of each side's masks, flows, subnets, encap contexts, seeds, points seen again), every
 * cached gen_rules equals a fresh build port for port, group for group, rule for rule and
 * packet for packet; it builds only the parts it lacks; it stays right when it evicts (down
 * to one part), from several threads at once, and after it is freed; errors are the plain
 * build's. Then the simulated testbed: trials applied from cached rule sets (hosts the sim
 * keeps by content id) measure exactly what trials applied from fresh builds measure.
 * Last, the rule storage itself (topology/topo_ruleset.c): a rule array of several MB grown
 * rule by rule across alternating masks (the normalisation keeps the last mask's field
 * bits) holds exactly the normalised rules, classifies to them, and clones and deletes.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "generators/gen.h"
#include "generators/gen_packet.h"
#include "testbeds/tb.h"

/* ---- comparing rule sets -------------------------------------------------------------- */

static void same_rule(const struct topo_rule *a, const struct topo_rule *b)
{
	assert_int_equal(a->table, b->table);
	assert_int_equal(a->group, b->group);
	assert_int_equal(a->priority, b->priority);
	assert_int_equal(a->flow, b->flow);
	assert_int_equal(a->match.mask.fields, b->match.mask.fields);
	assert_memory_equal(a->match.mask.plen, b->match.mask.plen, sizeof(a->match.mask.plen));
	assert_memory_equal(a->match.value, b->match.value, sizeof(a->match.value));
	assert_int_equal(a->actions.n, b->actions.n);
	for (unsigned i = 0; i < a->actions.n; i++) {
		assert_int_equal(a->actions.a[i].kind, b->actions.a[i].kind);
		assert_int_equal(a->actions.a[i].arg, b->actions.a[i].arg);
	}
}

static void same_ruleset(const struct topo_ruleset *a, const struct topo_ruleset *b)
{
	assert_int_equal(topo_ruleset_n_tables(a), topo_ruleset_n_tables(b));
	assert_int_equal(topo_ruleset_n_ports(a), topo_ruleset_n_ports(b));
	for (size_t i = 0; i < topo_ruleset_n_ports(a); i++) {
		const struct topo_port *pa = topo_ruleset_port(a, i), *pb = topo_ruleset_port(b, i);

		assert_int_equal(pa->id, pb->id);
		assert_int_equal(pa->kind, pb->kind);
		assert_int_equal(pa->subnet, pb->subnet);
		assert_int_equal(pa->container, pb->container);
		assert_int_equal(pa->ip, pb->ip);
		assert_int_equal(pa->mac, pb->mac);
		assert_int_equal(pa->peer, pb->peer);
	}
	assert_int_equal(topo_ruleset_n_groups(a), topo_ruleset_n_groups(b));
	for (size_t i = 0; i < topo_ruleset_n_groups(a); i++) {
		const struct topo_group *ga = topo_ruleset_group(a, i), *gb = topo_ruleset_group(b, i);

		assert_int_equal(ga->table, gb->table);
		assert_int_equal(ga->priority, gb->priority);
		assert_int_equal(ga->n_rules, gb->n_rules);
		assert_true(topo_mask_equal(&ga->mask, &gb->mask));
	}
	assert_int_equal(topo_ruleset_n_rules(a), topo_ruleset_n_rules(b));
	for (size_t i = 0; i < topo_ruleset_n_rules(a); i++)
		same_rule(topo_ruleset_rule(a, i), topo_ruleset_rule(b, i));
}

/* A and B are the same rule sets of the same flows (and every flow's packets agree). */
static void same_rules(const struct gen_rules *a, const struct gen_rules *b)
{
	uint64_t pa[TOPO_F_COUNT], pb[TOPO_F_COUNT];

	assert_int_equal(a->flows, b->flows);
	assert_int_equal(a->subnets, b->subnets);
	assert_int_equal(a->encap_contexts, b->encap_contexts);
	for (int h = 0; h < GEN_HOSTS; h++)
		same_ruleset(a->host[h], b->host[h]);
	for (uint32_t f = 0; f < a->flows; f++)
		for (int h = 0; h < GEN_HOSTS; h++)
			for (int d = 0; d < GEN_DIRS; d++) {
				assert_int_equal(gen_flow_packet(a, h, d, f, pa), 0);
				assert_int_equal(gen_flow_packet(b, h, d, f, pb), 0);
				assert_memory_equal(pa, pb, sizeof(pa));
			}
}

/* ---- a campaign-like sequence of points ------------------------------------------------ */

#define N_POINTS 40

/* Point I of the sequence: sweeps of each side's masks at a few flow counts, changes of
 * subnets and contexts, and every point met again later (I and I + 20 agree), except that
 * point 33 has point 13's levels with another seed. */
static void point(unsigned i, struct gen_levels *l, uint64_t *seed)
{
	unsigned j = i % 20;

	gen_levels_neutral(l);
	l->flows = j < 10 ? 300 : 700 + 37 * (j % 3);
	for (int h = 0; h < GEN_HOSTS; h++)
		for (int d = 0; d < GEN_DIRS; d++)
			l->masks[h][d] = 1 + (uint32_t)((j * (2 * h + d + 1)) % 9) * (j % 4 == 3);
	l->masks[j % 2][(j / 2) % 2] = (uint32_t)(j % 5) * 7; /* one side swept, 0 = none */
	l->subnets = 1 + (j % 7 == 6) * 3;
	l->encap_contexts = j % 6 == 5 ? 16 : 0;
	*seed = 1 + (i == 33);
}

static void check_sequence(struct gen_rules_cache *c, unsigned from, unsigned n)
{
	struct scn_error err;

	for (unsigned i = from; i < from + n; i++) {
		struct gen_rules *plain = NULL, *cached = NULL;
		struct gen_levels l;
		uint64_t seed;

		point(i, &l, &seed);
		assert_int_equal(gen_rules_build(NULL, NULL, &l, seed, &plain, &err), 0);
		assert_int_equal(gen_rules_cache_get(c, NULL, NULL, &l, seed, &cached, &err), 0);
		same_rules(plain, cached);
		for (int h = 0; h < GEN_HOSTS; h++) {
			assert_int_equal(gen_rules_host_id(plain, h), 0);
			assert_true(gen_rules_host_id(cached, h) != 0);
		}
		gen_rules_free(plain);
		gen_rules_free(cached);
	}
}

static void test_rules_cache_equals_full_build(void **state)
{
	struct gen_rules_cache *c = gen_rules_cache_new(0);
	struct gen_rules_cache_stats st;

	(void)state;
	assert_non_null(c);
	check_sequence(c, 0, N_POINTS);
	gen_rules_cache_stats(c, &st);
	assert_int_equal(st.gets, N_POINTS);
	assert_int_equal(st.evictions, 0);
	/* the second half of the sequence repeats the first (but point 33's seed) */
	assert_int_equal(st.part_builds + st.part_hits, 3 * N_POINTS);
	assert_true(st.part_hits >= 3 * (N_POINTS / 2 - 1));
	assert_true(st.bytes > 0 && st.bytes <= st.max_bytes);
	gen_rules_cache_free(c);
}

/* Changing one host's masks rebuilds that host only; the same point again builds nothing. */
static void test_rules_cache_rebuilds_only_what_changed(void **state)
{
	struct gen_rules_cache *c = gen_rules_cache_new(0);
	struct gen_rules *a = NULL, *b = NULL, *again = NULL;
	struct gen_rules_cache_stats st;
	struct gen_levels l;
	struct scn_error err;

	(void)state;
	gen_levels_neutral(&l);
	l.flows = 512;
	l.masks[GEN_CLIENT][GEN_ENCAP] = l.masks[GEN_SERVER][GEN_DECAP] = 8;
	assert_int_equal(gen_rules_cache_get(c, NULL, NULL, &l, 7, &a, &err), 0);
	gen_rules_cache_stats(c, &st);
	assert_int_equal(st.part_builds, 3); /* flow table, client, server */
	l.masks[GEN_SERVER][GEN_DECAP] = 9;
	assert_int_equal(gen_rules_cache_get(c, NULL, NULL, &l, 7, &b, &err), 0);
	gen_rules_cache_stats(c, &st);
	assert_int_equal(st.part_builds, 4);
	assert_ptr_equal(a->host[GEN_CLIENT], b->host[GEN_CLIENT]);
	assert_true(a->host[GEN_SERVER] != b->host[GEN_SERVER]);
	assert_int_equal(gen_rules_host_id(a, GEN_CLIENT), gen_rules_host_id(b, GEN_CLIENT));
	assert_true(gen_rules_host_id(a, GEN_SERVER) != gen_rules_host_id(b, GEN_SERVER));
	assert_int_equal(gen_rules_cache_get(c, NULL, NULL, &l, 7, &again, &err), 0);
	gen_rules_cache_stats(c, &st);
	assert_int_equal(st.part_builds, 4);
	assert_ptr_equal(again->host[GEN_SERVER], b->host[GEN_SERVER]);
	gen_rules_free(a);
	gen_rules_free(b);
	gen_rules_free(again);
	gen_rules_cache_free(c);
}

/* A cache of one byte keeps one part at a time and is still right; what a caller holds
 * outlives eviction and the cache itself. */
static void test_rules_cache_evicts_and_outlives(void **state)
{
	struct gen_rules_cache *c = gen_rules_cache_new(1);
	struct gen_rules *held = NULL, *plain = NULL;
	struct gen_rules_cache_stats st;
	struct gen_levels l;
	struct scn_error err;
	uint64_t seed;

	(void)state;
	point(3, &l, &seed);
	assert_int_equal(gen_rules_cache_get(c, NULL, NULL, &l, seed, &held, &err), 0);
	check_sequence(c, 0, N_POINTS);
	gen_rules_cache_stats(c, &st);
	assert_true(st.evictions >= 2 * N_POINTS);
	assert_int_equal(st.part_hits, 0);
	gen_rules_cache_free(c);
	assert_int_equal(gen_rules_build(NULL, NULL, &l, seed, &plain, &err), 0);
	same_rules(plain, held);
	gen_rules_free(plain);
	gen_rules_free(held);
}

static void *thread_main(void *arg)
{
	check_sequence(arg, 0, N_POINTS);
	return NULL;
}

static void test_rules_cache_threads(void **state)
{
	struct gen_rules_cache *c = gen_rules_cache_new(8u << 20);
	pthread_t t[4];

	(void)state;
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, thread_main, c), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	gen_rules_cache_free(c);
}

/* Refused levels give the plain build's error; models and NULL caches are plain builds. */
static void test_rules_cache_errors_and_fallbacks(void **state)
{
	struct gen_rules_cache *c = gen_rules_cache_new(0);
	struct scn_error e1, e2;
	struct gen_rules *r = (struct gen_rules *)&e1;
	struct gen_levels l;

	(void)state;
	gen_levels_neutral(&l);
	l.flows = 4;
	l.masks[GEN_SERVER][GEN_DECAP] = 5;
	assert_int_equal(gen_rules_build(NULL, NULL, &l, 1, &r, &e1), -EINVAL);
	assert_int_equal(gen_rules_cache_get(c, NULL, NULL, &l, 1, &r, &e2), -EINVAL);
	assert_null(r);
	assert_string_equal(e1.message, e2.message);
	l.masks[GEN_SERVER][GEN_DECAP] = 2;
	assert_int_equal(gen_rules_cache_get(NULL, NULL, NULL, &l, 1, &r, &e2), 0);
	assert_int_equal(gen_rules_host_id(r, GEN_SERVER), 0);
	gen_rules_free(r);
	gen_rules_cache_free(c);
}

/* ---- the simulated testbed ------------------------------------------------------------- */

static struct tb *open_sim(const char *name)
{
	const char *root = getenv("SCALACN_SOURCE_ROOT");
	struct scn_error err;
	struct tb *tb = NULL;
	char path[1024];

	snprintf(path, sizeof(path), "%s/examples/testbeds/%s", root ? root : ".", name);
	assert_int_equal(tb_open(path, &tb, &err), 0);
	return tb;
}

static void same_sample(const struct tb_sample *a, const struct tb_sample *b)
{
	const double va[] = { a->bw_gbps, a->msg_rate_mpps, a->lat_median_us, a->lat_p99_us,
			      a->cost_s };
	const double vb[] = { b->bw_gbps, b->msg_rate_mpps, b->lat_median_us, b->lat_p99_us,
			      b->cost_s };

	assert_int_equal(a->status, b->status);
	assert_memory_equal(va, vb, sizeof(va)); /* bit for bit (NANs included) */
	assert_int_equal(a->n_counters, b->n_counters);
	for (unsigned i = 0; i < a->n_counters; i++) {
		assert_string_equal(a->counters[i].name, b->counters[i].name);
		assert_memory_equal(&a->counters[i].value, &b->counters[i].value, sizeof(double));
	}
}

/* Trials of each point of the sequence on two fresh sims: one applied from plain builds, one
 * from the cache (each point applied twice in a row, as a runner that resets would). */
static void test_rules_cache_sim_measures_the_same(void **state)
{
	struct tb *plain_tb = open_sim("sim-cx6.yaml"), *cached_tb = open_sim("sim-cx6.yaml");
	struct gen_rules_cache *c = gen_rules_cache_new(0);
	struct scn_error err;

	(void)state;
	for (unsigned i = 0; i < N_POINTS; i++) {
		struct gen_rules *plain = NULL, *cached = NULL;
		struct tb_sample sp, sc;
		struct gen_traffic t;
		struct gen_levels l;
		uint64_t seed;

		point(i, &l, &seed);
		gen_traffic_from_levels(&l, &t);
		assert_int_equal(gen_rules_build(NULL, NULL, &l, seed, &plain, &err), 0);
		assert_int_equal(gen_rules_cache_get(c, NULL, NULL, &l, seed, &cached, &err), 0);
		for (int k = 0; k < 2; k++) {
			assert_int_equal(tb_apply(plain_tb, plain, &err), 0);
			assert_int_equal(tb_apply(cached_tb, cached, &err), 0);
			assert_int_equal(tb_measure(plain_tb, &t, 100 + i, &sp, &err), 0);
			assert_int_equal(tb_measure(cached_tb, &t, 100 + i, &sc, &err), 0);
			same_sample(&sp, &sc);
		}
		gen_rules_free(plain);
		gen_rules_free(cached);
	}
	gen_rules_cache_free(c);
	tb_close(plain_tb);
	tb_close(cached_tb);
}

/* ---- rule storage ------------------------------------------------------------------- */

/* Rule I of the storage test: one of three masks in turn (so the normalisation of the last
 * mask is redone every rule), with values beyond the masks' bits (so normalising cuts). */
static void storage_rule(uint32_t i, struct topo_match *m)
{
	static const char *const masks[3] = { "ip_dst/24,l4_src", "ip_dst/32,l4_src,tun_id",
					      "ip_dst/32,l4_src,ip_proto" };
	struct scn_error err;

	memset(m, 0, sizeof(*m));
	assert_int_equal(topo_mask_parse(masks[i % 3], &m->mask, &err), 0);
	for (int f = 0; f < TOPO_F_COUNT; f++)
		m->value[f] = 0xfedcba9876543210ull ^ ((uint64_t)i * 0x9e3779b9u + (uint64_t)f);
	m->value[TOPO_F_IP_DST] = 0x0a000000u + i * 256u + 0xffu; /* /24 cuts the low byte */
	m->value[TOPO_F_L4_SRC] = i;
}

static void test_rules_storage_large_array(void **state)
{
	const uint32_t n = 40000; /* 8.6 MB of full rule records */
	struct topo_ruleset *rs = topo_ruleset_new(), *c;
	size_t bytes;
	struct topo_action_list a = { .n = 1, .a = { { TOPO_ACT_DROP, 0 } } };

	(void)state;
	assert_non_null(rs);
	for (uint32_t i = 0; i < n; i++) {
		struct topo_match m;

		storage_rule(i, &m);
		assert_int_equal(topo_ruleset_add_rule(rs, 0, &m, 10 + i % 3, &a, i + 1), (int)i);
	}
	/* rules are stored compactly (values of their mask's fields only, actions interned):
	 * under half a full record each, until the full records are asked for, which the
	 * bytes then count */
	bytes = topo_ruleset_bytes(rs);
	assert_true(bytes >= (size_t)n * 3 * sizeof(uint32_t));
	assert_true(bytes < (size_t)n * sizeof(struct topo_rule) / 2);
	assert_non_null(topo_ruleset_rule(rs, n - 1));
	assert_true(topo_ruleset_bytes(rs) >= bytes + (size_t)n * sizeof(struct topo_rule));
	c = topo_ruleset_clone(rs);
	assert_non_null(c);
	for (uint32_t i = 0; i < n; i += 97) {
		struct topo_match m;
		uint64_t pkt[TOPO_F_COUNT];
		int hit = -1;
		unsigned probes = 0;

		storage_rule(i, &m);
		memcpy(pkt, m.value, sizeof(pkt));
		topo_match_normalise(&m);
		assert_memory_equal(&topo_ruleset_rule(rs, i)->match, &m, sizeof(m));
		same_rule(topo_ruleset_rule(rs, i), topo_ruleset_rule(c, i));
		assert_int_equal(topo_ruleset_classify(rs, pkt, &hit, &probes), 0);
		assert_int_equal(hit, (int)i);
	}
	assert_int_equal(topo_ruleset_del_rule(rs, 0), 0);
	assert_int_equal(topo_ruleset_n_rules(rs), n - 1);
	same_rule(topo_ruleset_rule(rs, n - 2), topo_ruleset_rule(c, n - 1));
	topo_ruleset_free(c);
	topo_ruleset_free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_cache_equals_full_build),
		cmocka_unit_test(test_rules_cache_rebuilds_only_what_changed),
		cmocka_unit_test(test_rules_cache_evicts_and_outlives),
		cmocka_unit_test(test_rules_cache_threads),
		cmocka_unit_test(test_rules_cache_errors_and_fallbacks),
		cmocka_unit_test(test_rules_cache_sim_measures_the_same),
		cmocka_unit_test(test_rules_storage_large_array),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
