/* SPDX-License-Identifier: MIT */
/*
 * test-gen-models: unit tests of generators/' rule sets with encap contexts (requested vs
 * programmed, distinct tunnel headers) and on architecture models (every valid model of the
 * default space builds valid rule sets or is refused with a config error; rules placed in
 * the tables a model names).
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

/* ---- encap contexts and models ---------------------------------------------------------- */

/* Distinct (VNI, remote VTEP) pairs among the forward flows' tunnel headers. */
static uint32_t count_contexts(const struct gen_rules *r)
{
	uint64_t *keys = calloc(r->flows, sizeof(*keys));
	uint32_t n = 0;

	assert_non_null(keys);
	for (uint32_t f = 0; f < r->flows; f++) {
		uint64_t pkt[TOPO_F_COUNT], k;
		bool seen = false;

		gen_flow_packet(r, GEN_SERVER, GEN_DECAP, f, pkt);
		k = pkt[TOPO_F_TUN_ID] << 32 | pkt[TOPO_F_TUN_DST];
		for (uint32_t i = 0; i < n; i++)
			seen |= keys[i] == k;
		if (!seen)
			keys[n++] = k;
	}
	free(keys);
	return n;
}

static void test_generators_encap_contexts(void **state)
{
	static const uint32_t want[][3] = {
		/* requested, subnets, programmed */
		{ 0, 4, 64 }, { 1, 4, 4 }, { 10, 4, 10 }, { 64, 4, 64 }, { 1, 1, 1 }, { 7, 1, 7 },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct gen_levels l = levels(64, want[i][1], 4, 1, 1, 4);
		struct gen_rules *r;

		l.encap_contexts = want[i][0];
		r = build(&l, 3);
		assert_int_equal(r->encap_contexts, want[i][2]);
		assert_int_equal(count_contexts(r), want[i][2]);
		check_rules(&l, r);
		check_classify(&l, r);
		gen_rules_free(r);
	}
	{
		struct gen_levels l = levels(64, 2, 0, 1, 1, 4);
		struct gen_rules *r = build(&l, 3);

		assert_int_equal(r->encap_contexts, 0); /* client encap not offloaded */
		gen_rules_free(r);
	}
}

struct model_ctx {
	const struct topo_space *space;
	unsigned built, rejected;
};

static int model_cb(const struct topo_model *m, void *arg)
{
	struct model_ctx *c = arg;
	struct gen_levels l = levels(40, 2, 3, 2, 2, 3);
	struct gen_rules *r = NULL;
	struct scn_error err;

	scn_error_clear(&err);
	if (gen_rules_build(m, c->space, &l, 8, &r, &err) != 0) {
		assert_int_equal(err.cls, SCN_ERR_CONFIG);
		assert_null(r);
		c->rejected++;
		return 0;
	}
	c->built++;
	for (int h = 0; h < GEN_HOSTS; h++) {
		struct topo_violation v[2];
		size_t nv = topo_ruleset_check(r->host[h], v, 2);

		if (nv)
			fail_msg("model: %zu violations: %s", nv, v[0].message);
	}
	for (int h = 0; h < GEN_HOSTS; h++)
		for (int d = 0; d < GEN_DIRS; d++)
			for (uint32_t f = 0; f < r->flows; f++) {
				uint64_t pkt[TOPO_F_COUNT];
				const struct topo_rule *rule;
				int hit;

				gen_flow_packet(r, (enum gen_host)h, (enum gen_dir)d, f, pkt);
				assert_int_equal(topo_ruleset_classify(r->host[h], pkt, &hit, NULL), 0);
				assert_true(hit >= 0);
				rule = topo_ruleset_rule(r->host[h], (size_t)hit);
				assert_int_equal(rule->flow, f + 1);
				assert_true(rule_is(rule, (enum gen_dir)d));
			}
	gen_rules_free(r);
	return 0;
}

static void test_generators_rules_models(void **state)
{
	struct topo_space s;
	struct model_ctx c = { &s, 0, 0 };
	struct topo_enum_stats st;
	struct scn_error err;

	(void)state;
	topo_space_default(&s);
	assert_int_equal(topo_enumerate(&s, model_cb, &c, &st, &err), 0);
	assert_true(c.built > 0);
	assert_int_equal(c.built + c.rejected, st.valid);
}

static uint8_t template_named(const struct topo_space *s, const char *name)
{
	for (unsigned i = 0; i < s->n_templates; i++)
		if (strcmp(s->templates[i].name, name) == 0)
			return (uint8_t)i;
	fail_msg("no template %s", name);
	return TOPO_NONE;
}

static void test_generators_rules_model_placement(void **state)
{
	struct topo_space s;
	struct topo_model m;
	struct gen_levels l = levels(24, 2, 2, 1, 1, 3);
	struct gen_rules *r = NULL;
	struct scn_error err;

	(void)state;
	topo_space_default(&s);
	memset(&m, 0, sizeof(m));
	m.n_tables = 2;
	m.t[0] = (struct topo_table_choice){ 1, template_named(&s, "count_goto"),
					     template_named(&s, "decap_vf"), 1, TOPO_NONE };
	m.t[1] = (struct topo_table_choice){ 1, template_named(&s, "encap_up"), TOPO_NONE,
					     TOPO_NONE, TOPO_NONE };
	assert_int_equal(topo_model_check(&s, &m, NULL), TOPO_OK);
	assert_int_equal(gen_rules_build(&m, &s, &l, 4, &r, &err), 0);
	for (int h = 0; h < GEN_HOSTS; h++) {
		const struct topo_ruleset *rs = r->host[h];
		size_t gotos = 0, vfs = 0;

		assert_int_equal(topo_ruleset_n_tables(rs), 2);
		assert_int_equal(topo_ruleset_check(rs, NULL, 0), 0);
		for (size_t i = 0; i < topo_ruleset_n_rules(rs); i++) {
			const struct topo_rule *rule = topo_ruleset_rule(rs, i);

			if (rule_is(rule, GEN_ENCAP))
				assert_int_equal(rule->table, 1);
			else if (rule_is(rule, GEN_DECAP))
				assert_int_equal(rule->table, 0);
			else {
				assert_int_equal(rule->actions.a[0].kind, TOPO_ACT_GOTO);
				assert_int_equal(rule->actions.a[0].arg, 1);
				assert_int_equal(rule->table, 0);
				gotos++;
			}
		}
		for (size_t i = 0; i < topo_ruleset_n_ports(rs); i++)
			vfs += topo_ruleset_port(rs, i)->kind == TOPO_PORT_VF;
		assert_int_equal(gotos, vfs); /* one send-path goto per VF */
	}
	/* an encap packet probes the goto group of table 0, then its shape's group in table 1 */
	for (uint32_t f = 0; f < r->flows; f++) {
		uint64_t pkt[TOPO_F_COUNT];
		unsigned probes;
		int hit;

		gen_flow_packet(r, GEN_CLIENT, GEN_ENCAP, f, pkt);
		assert_int_equal(topo_ruleset_classify(r->host[GEN_CLIENT], pkt, &hit, &probes), 0);
		assert_int_equal(topo_ruleset_rule(r->host[GEN_CLIENT], (size_t)hit)->flow, f + 1);
		assert_true(probes >= 2 && probes <= 1 + 2);
	}
	gen_rules_free(r);
	/* a receive path that never decapsulates cannot hold decap rules */
	m.t[0].rx_template = template_named(&s, "encap_up");
	r = (struct gen_rules *)&l;
	assert_int_equal(gen_rules_build(&m, &s, &l, 4, &r, &err), -EINVAL);
	assert_null(r);
	assert_int_equal(err.cls, SCN_ERR_CONFIG);
	assert_non_null(strstr(err.message, "receive path"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generators_encap_contexts),
		cmocka_unit_test(test_generators_rules_models),
		cmocka_unit_test(test_generators_rules_model_placement),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
