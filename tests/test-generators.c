/* SPDX-License-Identifier: MIT */
/*
 * test-generators: unit tests of generators/' rule sets (gen.h, gen_packet.h): validity via
 * topo_ruleset_check, exact mask and flow counts, per-flow classification, every rule's
 * values against its flow's packet (gen_flow_packet, the reference), large sets, ports,
 * determinism, layouts, errors. Encap contexts and architecture models are in
 * test-gen-models.c; PRNG, dimensions, traffic and shapes in test-gen-dims.c.
 */
#include <errno.h>
#include <math.h>
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
#include "tests/gen-test-util.h"

/* ---- rule sets ------------------------------------------------------------------------- */


static void test_generators_rules_valid(void **state)
{
	static const uint32_t cfg[][6] = {
		/* flows subnets ce cd se sd */
		{ 16, 1, 0, 0, 0, 0 },	   { 16, 1, 1, 1, 1, 1 },	{ 16, 1, 16, 0, 0, 16 },
		{ 20, 1, 20, 0, 0, 20 },   { 100, 3, 7, 2, 5, 64 },	{ 100, 8, 1, 100, 3, 2 },
		{ 1024, 4, 128, 128, 128, 128 }, { 257, 64, 2, 4, 8, 16 }, { 5, 8, 5, 5, 5, 5 },
		{ 3000, 1, 768, 640, 1, 640 },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		struct gen_levels l = levels(cfg[i][0], cfg[i][1], cfg[i][2], cfg[i][3], cfg[i][4],
					     cfg[i][5]);
		struct gen_rules *r = build(&l, 1000 + i);

		check_rules(&l, r);
		check_classify(&l, r);
		gen_rules_free(r);
	}
	gen_rules_free(NULL);
}

/* Every rule's values are its flow's packet (gen_flow_packet, the reference) cut to the
 * rule's mask: over shapes of both families, several flow counts, subnets, encap contexts
 * and layouts (the builder writes packets its own way, batch by batch). */
static void test_generators_rules_values_are_packets(void **state)
{
	static const uint32_t cfg[][8] = {
		/* flows subnets ce cd se sd contexts layout */
		{ 16, 1, 1, 1, 1, 1, 0, 0 },	  { 100, 3, 7, 2, 5, 64, 5, 1 },
		{ 1024, 4, 128, 128, 128, 128, 0, 3 }, { 257, 64, 2, 4, 8, 16, 64, 0 },
		{ 3000, 1, 768, 640, 1, 640, 7, 2 },   { 5000, 9, 33, 0, 200, 77, 0, 5 },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		struct gen_levels l = levels(cfg[i][0], cfg[i][1], cfg[i][2], cfg[i][3], cfg[i][4],
					     cfg[i][5]);
		struct gen_rules *r;
		size_t checked = 0;

		l.encap_contexts = cfg[i][6];
		l.layout = cfg[i][7];
		r = build(&l, 2000 + i);
		for (int h = 0; h < GEN_HOSTS; h++)
			for (size_t k = 0; k < topo_ruleset_n_rules(r->host[h]); k++) {
				const struct topo_rule *rule = topo_ruleset_rule(r->host[h], k);
				enum gen_dir d = rule_is(rule, GEN_ENCAP) ? GEN_ENCAP : GEN_DECAP;
				struct topo_match want = { .mask = rule->match.mask };

				if (!rule_is(rule, d))
					continue; /* not a side rule (models' goto rules) */
				assert_true(rule->flow >= 1 && rule->flow <= l.flows);
				assert_int_equal(gen_flow_packet(r, (enum gen_host)h, d,
								 rule->flow - 1, want.value), 0);
				topo_match_normalise(&want);
				for (unsigned f = 0; f < TOPO_F_COUNT; f++)
					if (!topo_mask_has(&want.mask, (enum topo_field)f))
						want.value[f] = 0;
				if (memcmp(want.value, rule->match.value, sizeof(want.value)) != 0)
					fail_msg("config %u host %d rule %zu (flow %u): values differ "
						 "from the flow's packet", i, h, k, rule->flow - 1);
				checked++;
			}
		assert_int_equal(checked, (size_t)l.flows * ((cfg[i][2] > 0) + (cfg[i][3] > 0) +
							     (cfg[i][4] > 0) + (cfg[i][5] > 0)));
		gen_rules_free(r);
	}
}

static void test_generators_rules_large(void **state)
{
	struct gen_levels l = levels(16384, 1, 128, 128, 128, 128);
	struct gen_rules *r = build(&l, 99);

	(void)state;
	for (int h = 0; h < GEN_HOSTS; h++) {
		assert_int_equal(topo_ruleset_n_rules(r->host[h]), 2 * 16384);
		assert_int_equal(topo_ruleset_n_distinct_masks(r->host[h]), 256);
		assert_int_equal(topo_ruleset_check(r->host[h], NULL, 0), 0);
		/* 128 containers per subnet per host: 128^2 = 16384 pairs */
		assert_int_equal(topo_ruleset_n_ports(r->host[h]), 1 + 2 * 128);
	}
	check_classify(&l, r);
	gen_rules_free(r);
}

static void test_generators_rules_ports(void **state)
{
	struct gen_levels l = levels(100, 3, 1, 1, 1, 1);
	struct gen_rules *r = build(&l, 5);

	(void)state;
	/* ceil(100/3) = 34 pairs per subnet -> 6 containers per subnet per host */
	for (int h = 0; h < GEN_HOSTS; h++) {
		const struct topo_ruleset *rs = r->host[h];
		unsigned vfs = 0, reps = 0, up = 0;

		assert_int_equal(topo_ruleset_n_ports(rs), 1 + 2 * 3 * 6);
		for (size_t i = 0; i < topo_ruleset_n_ports(rs); i++) {
			const struct topo_port *p = topo_ruleset_port(rs, i);

			if (p->kind == TOPO_PORT_UPLINK) {
				up++;
				assert_int_equal(p->id, GEN_PORT_UPLINK);
				continue;
			}
			vfs += p->kind == TOPO_PORT_VF;
			reps += p->kind == TOPO_PORT_REPRESENTOR;
			assert_true(p->subnet >= GEN_VNI_BASE && p->subnet < GEN_VNI_BASE + 3);
			assert_int_equal(topo_ruleset_port_by_id(rs, p->peer)->peer, p->id);
		}
		assert_int_equal(up, 1);
		assert_int_equal(vfs, 18);
		assert_int_equal(reps, 18);
	}
	/* flows are distinct container pairs inside one subnet */
	for (uint32_t f = 0; f < r->flows; f++) {
		uint64_t a[TOPO_F_COUNT], b[TOPO_F_COUNT];

		gen_flow_packet(r, GEN_SERVER, GEN_DECAP, f, a);
		assert_int_equal(a[TOPO_F_TUN_ID], GEN_VNI_BASE + f % 3);
		assert_int_equal((a[TOPO_F_IP_SRC] >> 16) & 0xff, (a[TOPO_F_IP_DST] >> 16) & 0xff);
		for (uint32_t g = 0; g < f; g++) {
			gen_flow_packet(r, GEN_SERVER, GEN_DECAP, g, b);
			assert_false(a[TOPO_F_IP_SRC] == b[TOPO_F_IP_SRC] &&
				     a[TOPO_F_IP_DST] == b[TOPO_F_IP_DST]);
		}
	}
	{
		uint64_t pkt[TOPO_F_COUNT];

		assert_int_equal(gen_flow_packet(r, GEN_CLIENT, GEN_ENCAP, r->flows, pkt), -EINVAL);
		assert_int_equal(gen_flow_packet(r, GEN_HOSTS, GEN_ENCAP, 0, pkt), -EINVAL);
		assert_int_equal(gen_flow_packet(NULL, GEN_CLIENT, GEN_ENCAP, 0, pkt), -EINVAL);
	}
	gen_rules_free(r);
}

static bool same_rules(const struct topo_ruleset *a, const struct topo_ruleset *b)
{
	if (topo_ruleset_n_rules(a) != topo_ruleset_n_rules(b) ||
	    topo_ruleset_n_groups(a) != topo_ruleset_n_groups(b))
		return false;
	for (size_t i = 0; i < topo_ruleset_n_rules(a); i++) {
		const struct topo_rule *x = topo_ruleset_rule(a, i), *y = topo_ruleset_rule(b, i);

		if (x->table != y->table || x->priority != y->priority || x->flow != y->flow ||
		    !topo_mask_equal(&x->match.mask, &y->match.mask) ||
		    memcmp(x->match.value, y->match.value, sizeof(x->match.value)) != 0 ||
		    memcmp(&x->actions, &y->actions, sizeof(x->actions)) != 0)
			return false;
	}
	return true;
}

/* Decap shape of each flow on the server of R (F flows), into SHAPE[]. */
static void decap_shapes(const struct gen_rules *r, uint32_t F, uint32_t *shape)
{
	const struct topo_ruleset *rs = r->host[GEN_SERVER];

	for (uint32_t f = 0; f < F; f++)
		shape[f] = UINT32_MAX;
	for (size_t i = 0; i < topo_ruleset_n_rules(rs); i++) {
		const struct topo_rule *x = topo_ruleset_rule(rs, i);

		if (rule_is(x, GEN_DECAP) && x->flow >= 1 && x->flow <= F) {
			assert_int_equal(shape[x->flow - 1], UINT32_MAX); /* one decap rule a flow */
			shape[x->flow - 1] = x->priority - GEN_PRIO_DECAP;
		}
	}
}

/* Rule layouts (gen_layout.c): over layouts 0..7 of 64 flows in 8 masks, every flow is in
 * each of the 8 masks once (a systematic sample of where it lands); layout 0 is the seed's
 * own layout; the cache builds a layout as gen_rules_build does (its key holds the layout). */
static void test_generators_layouts(void **state)
{
	struct gen_levels l = levels(64, 1, 1, 1, 1, 8);
	struct gen_rules_cache *c = gen_rules_cache_new(0);
	uint32_t shapes[8][64], seen[64] = { 0 };
	struct gen_rules *a, *b, *z = build(&l, 5);
	struct scn_error err;

	(void)state;
	assert_true(gen_layout_point(0) == 0 && gen_layout_point(1) == 0.5 &&
		    gen_layout_point(2) == 0.25 && gen_layout_point(3) == 0.75 &&
		    gen_layout_point(4) == 0.125);
	assert_int_equal(gen_layout_shift(0, 64), 0);
	assert_int_equal(gen_layout_shift(3, 64), 48);
	for (uint32_t k = 0; k < 8; k++) {
		struct gen_rules *r;

		l.layout = k;
		r = build(&l, 5);
		decap_shapes(r, 64, shapes[k]);
		if (k == 0)
			assert_true(same_rules(r->host[GEN_SERVER], z->host[GEN_SERVER]));
		else
			assert_false(same_rules(r->host[GEN_SERVER], z->host[GEN_SERVER]));
		assert_true(same_rules(r->host[GEN_CLIENT], z->host[GEN_CLIENT]) == (k == 0));
		gen_rules_free(r);
	}
	for (uint32_t f = 0; f < 64; f++)
		for (uint32_t k = 0; k < 8; k++) {
			assert_true(shapes[k][f] < 8);
			assert_int_equal(seen[f] & (1u << shapes[k][f]), 0); /* a mask not visited */
			seen[f] |= 1u << shapes[k][f];
		}
	assert_non_null(c);
	l.layout = 0;
	assert_int_equal(gen_rules_cache_get(c, NULL, NULL, &l, 5, &a, &err), 0);
	l.layout = 3;
	assert_int_equal(gen_rules_cache_get(c, NULL, NULL, &l, 5, &b, &err), 0);
	assert_true(same_rules(a->host[GEN_SERVER], z->host[GEN_SERVER]));
	gen_rules_free(z);
	z = build(&l, 5);
	assert_true(same_rules(b->host[GEN_SERVER], z->host[GEN_SERVER]));
	assert_false(same_rules(a->host[GEN_SERVER], b->host[GEN_SERVER]));
	gen_rules_free(a);
	gen_rules_free(b);
	gen_rules_free(z);
	gen_rules_cache_free(c);
}

static void test_generators_rules_deterministic(void **state)
{
	struct gen_levels l = levels(500, 4, 8, 3, 5, 16);
	struct gen_rules *a = build(&l, 11), *b = build(&l, 11), *c = build(&l, 12), *d;

	(void)state;
	for (int h = 0; h < GEN_HOSTS; h++) {
		assert_true(same_rules(a->host[h], b->host[h]));
		assert_false(same_rules(a->host[h], c->host[h]));
	}
	/* changing one side's masks leaves the other sides' rules as they were */
	l.masks[GEN_SERVER][GEN_DECAP] = 32;
	d = build(&l, 11);
	assert_true(same_rules(a->host[GEN_CLIENT], d->host[GEN_CLIENT]));
	assert_false(same_rules(a->host[GEN_SERVER], d->host[GEN_SERVER]));
	gen_rules_free(a);
	gen_rules_free(b);
	gen_rules_free(c);
	gen_rules_free(d);
}

static void build_bad(struct gen_levels l, const char *want1, const char *want2)
{
	struct gen_rules *r = (struct gen_rules *)&l; /* must be reset to NULL */
	struct scn_error err;

	scn_error_clear(&err);
	assert_int_equal(gen_rules_build(NULL, NULL, &l, 1, &r, &err), -EINVAL);
	assert_null(r);
	assert_int_equal(err.cls, SCN_ERR_CONFIG);
	if (!strstr(err.message, want1) || !strstr(err.message, want2))
		fail_msg("message '%s' lacks '%s'/'%s'", err.message, want1, want2);
}

static void test_generators_rules_errors(void **state)
{
	struct gen_levels l;

	(void)state;
	build_bad(levels(16, 1, 17, 0, 0, 0), "client.encap_masks", "flows = 16");
	build_bad(levels(16, 1, 0, 0, 0, 32), "server.decap_masks", "32");
	build_bad(levels(5000, 1, 0, 641, 0, 0), "client.decap_masks", "640");
	build_bad(levels(5000, 1, 0, 0, 769, 0), "server.encap_masks", "768");
	build_bad(levels(16, 0, 1, 1, 1, 1), "subnets", "0");
	l = levels(16, 1, 1, 1, 1, 1);
	l.encap_contexts = 17;
	build_bad(l, "encap_contexts", "17");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generators_rules_valid),
		cmocka_unit_test(test_generators_rules_values_are_packets),
		cmocka_unit_test(test_generators_rules_large),
		cmocka_unit_test(test_generators_rules_ports),
		cmocka_unit_test(test_generators_rules_deterministic),
		cmocka_unit_test(test_generators_layouts),
		cmocka_unit_test(test_generators_rules_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
