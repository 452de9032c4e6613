/* SPDX-License-Identifier: MIT */
/*
 * test-topology: unit tests of topology/ (topo.h): names, masks and matches, rule sets
 * (groups, the generator's fast path and batches, kept storage). Classification and the
 * validity reasons of rule sets are in test-topology-check.c; models, spaces and the
 * enumerator in test-topology-space.c.
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

#include "topology/topo.h"
#include "topology/topo_enum.h"
#include "tests/topo-test-util.h"

/* ---- names ----------------------------------------------------------------------------- */

static void test_topology_names_roundtrip(void **state)
{
	(void)state;
	for (int v = 0; v < TOPO_VERB_COUNT; v++) {
		enum topo_verb out;

		assert_int_equal(topo_verb_parse(topo_verb_name((enum topo_verb)v), &out), 0);
		assert_int_equal(out, v);
	}
	for (int f = 0; f < TOPO_F_COUNT; f++) {
		enum topo_field out;

		assert_int_equal(topo_field_parse(topo_field_name((enum topo_field)f), &out), 0);
		assert_int_equal(out, f);
	}
	for (int a = 0; a < TOPO_ACT_KIND_COUNT; a++) {
		enum topo_action_kind out;

		assert_int_equal(topo_action_parse(topo_action_name((enum topo_action_kind)a), &out),
				 0);
		assert_int_equal(out, a);
	}
	for (int r = 0; r < TOPO_R_COUNT; r++)
		assert_true(strlen(topo_reason_explain((enum topo_reason)r)) > 10);
	assert_string_equal(topo_reason_name(TOPO_R_LOOP), "loop");
	assert_string_equal(topo_reason_name(TOPO_R_UNREACHABLE_TABLE), "unreachable_table");
	assert_string_equal(topo_field_name(TOPO_F_TUN_ID), "tun_id");
	assert_int_equal(topo_field_width(TOPO_F_ETH_SRC), 48);
	assert_int_equal(topo_field_width(TOPO_F_TUN_ID), 24);
	assert_true(topo_field_has_prefix(TOPO_F_TUN_DST));
	assert_false(topo_field_has_prefix(TOPO_F_L4_DST));
	assert_true(topo_action_is_terminal(TOPO_ACT_GOTO));
	assert_false(topo_action_is_terminal(TOPO_ACT_ENCAP));

	enum topo_verb v;
	enum topo_field f;
	enum topo_action_kind k;

	assert_int_equal(topo_verb_parse("sned", &v), -EINVAL);
	assert_int_equal(topo_field_parse("ip_dest", &f), -EINVAL);
	assert_int_equal(topo_action_parse("", &k), -EINVAL);
}

/* ---- masks ----------------------------------------------------------------------------- */

static void test_topology_mask_parse_format(void **state)
{
	struct topo_mask m, again;
	struct scn_error err;
	char buf[128];

	(void)state;
	assert_int_equal(topo_mask_parse("ip_dst/24, tun_id,l4_dst", &m, &err), 0);
	assert_int_equal(m.fields, (1u << TOPO_F_IP_DST) | (1u << TOPO_F_TUN_ID) |
					   (1u << TOPO_F_L4_DST));
	assert_int_equal(m.plen[TOPO_F_IP_DST], 24);
	assert_int_equal(m.plen[TOPO_F_L4_DST], 0);
	assert_int_equal(topo_mask_bits(&m), 24 + 24 + 16);
	assert_string_equal(topo_mask_format(&m, buf, sizeof(buf)), "ip_dst/24,l4_dst,tun_id");
	assert_int_equal(topo_mask_parse(buf, &again, &err), 0);
	assert_true(topo_mask_equal(&m, &again));

	/* a prefix field without /N is matched whole and prints without /32 */
	assert_int_equal(topo_mask_parse("tun_src/32,tun_dst,tun_dport", &m, &err), 0);
	assert_int_equal(m.plen[TOPO_F_TUN_SRC], 32);
	assert_int_equal(m.plen[TOPO_F_TUN_DST], 32);
	assert_string_equal(topo_mask_format(&m, buf, sizeof(buf)), "tun_src,tun_dst,tun_dport");
	assert_int_equal(topo_mask_bits(&m), 32 + 32 + 16);

	/* equal fields, different prefix: different matcher shapes */
	assert_int_equal(topo_mask_parse("ip_dst/16", &again, &err), 0);
	assert_int_equal(topo_mask_parse("ip_dst/24", &m, &err), 0);
	assert_false(topo_mask_equal(&m, &again));
	assert_true(topo_mask_has(&m, TOPO_F_IP_DST));
	assert_false(topo_mask_has(&m, TOPO_F_IP_SRC));
}

static void test_topology_mask_parse_errors(void **state)
{
	static const char *const bad[] = {
		"ip_dst/33", "ip_dst/0", "l4_dst/8", "foo", "ip_dst,,tun_id", "ip_dst,ip_dst",
		"ip_dst/x", "ip_dst/", "ip_dst,", "ip_dst/24/8",
	};
	struct topo_mask m;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct scn_error err;

		memset(&err, 0, sizeof(err));
		assert_int_equal(topo_mask_parse(bad[i], &m, &err), -EINVAL);
		assert_int_equal(err.code, -EINVAL);
		assert_true(strlen(err.message) > 0);
	}
}

static void set_match(struct topo_match *m, const char *mask, const uint64_t *vals)
{
	memset(m, 0, sizeof(*m));
	assert_int_equal(topo_mask_parse(mask, &m->mask, NULL), 0);
	for (int f = 0; f < TOPO_F_COUNT; f++)
		m->value[f] = vals[f];
	topo_match_normalise(m);
}

static void test_topology_match_covers_hits(void **state)
{
	uint64_t pkt[TOPO_F_COUNT] = { 0 };
	struct topo_match wide, narrow, other;

	(void)state;
	pkt[TOPO_F_IP_DST] = IP(10, 0, 1, 5);
	pkt[TOPO_F_L4_DST] = 80;
	set_match(&wide, "ip_dst/24", pkt);
	set_match(&narrow, "ip_dst,l4_dst", pkt);
	assert_int_equal(wide.value[TOPO_F_IP_DST], IP(10, 0, 1, 0)); /* normalised */
	assert_int_equal(wide.value[TOPO_F_L4_DST], 0);

	assert_true(topo_match_covers(&wide, &narrow));
	assert_false(topo_match_covers(&narrow, &wide));
	assert_true(topo_match_covers(&wide, &wide));
	assert_true(topo_match_hits(&wide, pkt));
	assert_true(topo_match_hits(&narrow, pkt));

	pkt[TOPO_F_L4_DST] = 81;
	assert_true(topo_match_hits(&wide, pkt));
	assert_false(topo_match_hits(&narrow, pkt));
	pkt[TOPO_F_IP_DST] = IP(10, 0, 2, 5);
	assert_false(topo_match_hits(&wide, pkt));

	/* same shape, other subnet: no cover either way */
	set_match(&other, "ip_dst/24", pkt);
	assert_false(topo_match_covers(&wide, &other));
	assert_false(topo_match_covers(&other, &narrow));
}

/* ---- rule sets and classification ------------------------------------------------------- */

static void test_topology_ruleset_groups(void **state)
{
	struct topo_ruleset *rs = host(), *c;
	struct topo_action_list up = acts(1, TOPO_ACT_FWD_UPLINK, 0);

	(void)state;
	assert_int_equal(topo_ruleset_add_port(rs, &(struct topo_port){ .id = VF_A }), -EEXIST);
	assert_int_equal(topo_ruleset_n_ports(rs), 4);
	assert_int_equal(topo_ruleset_port_by_id(rs, VF_C)->subnet, VNI_C);
	assert_null(topo_ruleset_port_by_id(rs, 99));
	assert_int_equal(topo_ruleset_add_table(rs), 1);
	/* created out of priority order; groups come back sorted by (table, priority) */
	assert_int_equal(add(rs, 0, "ip_dst", 5, up, V(TOPO_F_IP_DST, 1), -1), 0);
	assert_int_equal(add(rs, 1, "ip_dst", 0, up, V(TOPO_F_IP_DST, 2), -1), 1);
	assert_int_equal(add(rs, 0, "ip_dst/24", 1, up, V(TOPO_F_IP_DST, 0x300), -1), 2);
	assert_int_equal(add(rs, 0, "ip_dst", 5, up, V(TOPO_F_IP_DST, 3), -1), 3);
	assert_int_equal(add(rs, 0, "l4_dst", 1, up, V(TOPO_F_L4_DST, 80), -1), 4);
	assert_int_equal(add(rs, 7, "ip_dst", 0, up, V(TOPO_F_IP_DST, 2), -1), -EINVAL);
	assert_int_equal(add(rs, 0, "ip_dst", 0, acts(1, TOPO_ACT_GOTO, 9), -1), -EINVAL);
	assert_int_equal(topo_ruleset_n_groups(rs), 4);
	assert_int_equal(topo_ruleset_group(rs, 0)->priority, 1); /* ip_dst/24, created first */
	assert_int_equal(topo_ruleset_group(rs, 0)->mask.plen[TOPO_F_IP_DST], 24);
	assert_true(topo_mask_has(&topo_ruleset_group(rs, 1)->mask, TOPO_F_L4_DST));
	assert_int_equal(topo_ruleset_group(rs, 2)->priority, 5);
	assert_int_equal(topo_ruleset_group(rs, 2)->n_rules, 2);
	assert_int_equal(topo_ruleset_group(rs, 3)->table, 1);
	assert_int_equal(topo_ruleset_rule(rs, 0)->group, 2);
	assert_int_equal(topo_ruleset_rule(rs, 1)->group, 3);
	assert_int_equal(topo_ruleset_rule(rs, 2)->group, 0);
	assert_int_equal(topo_ruleset_rule(rs, 4)->group, 1);
	assert_int_equal(topo_ruleset_n_distinct_masks(rs), 3); /* ip_dst twice */

	c = topo_ruleset_clone(rs);
	assert_non_null(c);
	assert_int_equal(topo_ruleset_del_rule(rs, 0), 0);
	assert_int_equal(topo_ruleset_del_rule(rs, 9), -EINVAL);
	assert_int_equal(topo_ruleset_n_rules(rs), 4);
	assert_int_equal(topo_ruleset_group(rs, 2)->n_rules, 1);
	assert_int_equal(topo_ruleset_rule(rs, 0)->group, 3); /* indices shifted down */
	assert_int_equal(topo_ruleset_n_rules(c), 5);         /* the clone is independent */
	assert_int_equal(topo_ruleset_group(c, 2)->n_rules, 2);
	assert_int_equal(topo_ruleset_n_ports(c), 4);
	assert_int_equal(topo_ruleset_port_by_id(c, VF_B)->container, 1);
	topo_ruleset_free(c);
	topo_ruleset_free(rs);
	topo_ruleset_free(NULL);
}

/* The builders' fast path stores the rule topo_ruleset_add_rule stores (values cut to the
 * mask, actions interned), refuses what it would refuse, and says when a reference went
 * stale; rule_copy gives the record topo_ruleset_rule points to, which a change remakes. */
static void test_topology_ruleset_fast_path(void **state)
{
	struct topo_ruleset *a = host(), *b = host();
	struct topo_action_list up = acts(2, TOPO_ACT_ENCAP, VNI_A, TOPO_ACT_FWD_UPLINK, 0);
	struct topo_action_list vf = acts(2, TOPO_ACT_DECAP, 0, TOPO_ACT_FWD_VF, VF_A);
	struct topo_action_list bad = acts(1, TOPO_ACT_GOTO, 5); /* no table 5 */
	struct topo_group_ref ref, other;
	struct topo_match m;
	struct topo_rule copy;
	long id_up, id_vf;

	(void)state;
	memset(&m, 0, sizeof(m));
	assert_int_equal(topo_mask_parse("in_port,ip_dst/24,eth_src", &m.mask, NULL), 0);
	assert_int_equal(topo_ruleset_group_ref(b, 0, &m.mask, 7, &ref), 0);
	id_up = topo_ruleset_actions_id(b, &up);
	id_vf = topo_ruleset_actions_id(b, &vf);
	assert_true(id_up >= 0 && id_vf >= 0 && id_up != id_vf);
	assert_int_equal(topo_ruleset_actions_id(b, &up), id_up); /* interned */
	assert_int_equal(topo_ruleset_actions_id(b, &(struct topo_action_list){ 0 }), id_vf + 1);
	assert_int_equal(topo_ruleset_actions_id(b, &bad), -EINVAL);
	for (uint32_t i = 0; i < 4; i++) {
		m.value[TOPO_F_IN_PORT] = VF_A + i;
		m.value[TOPO_F_IP_DST] = 0x0a0000ffu + (i << 8); /* /24 cuts the low byte */
		m.value[TOPO_F_ETH_SRC] = 0x020000000001ull + ((uint64_t)i << 40);
		m.value[TOPO_F_L4_DST] = 99; /* not in the mask */
		assert_int_equal(topo_ruleset_add_rule(a, 0, &m, 7, i % 2 ? &vf : &up, i + 1),
				 (int)i);
		assert_int_equal(topo_ruleset_add_rule_ref(b, &ref, m.value,
							   (uint32_t)(i % 2 ? id_vf : id_up), i + 1),
				 (int)i);
	}
	assert_int_equal(topo_ruleset_add_rule_ref(b, &ref, m.value, 99, 0), -EINVAL);
	for (size_t i = 0; i < 4; i++) {
		const struct topo_rule *x = topo_ruleset_rule(a, i), *y = topo_ruleset_rule(b, i);

		assert_memory_equal(x, y, sizeof(*x));
		assert_int_equal(x->match.value[TOPO_F_IP_DST] & 0xff, 0);
		assert_int_equal(x->match.value[TOPO_F_L4_DST], 0);
		assert_int_equal(x->match.value[TOPO_F_ETH_SRC], 0x020000000001ull + (i << 40));
		assert_int_equal(topo_ruleset_rule_copy(b, i, &copy), 0);
		assert_memory_equal(&copy, y, sizeof(copy));
	}
	assert_int_equal(topo_ruleset_rule_copy(b, 4, &copy), -EINVAL);
	/* a group made before the referenced one moves it: the reference is stale */
	assert_int_equal(topo_ruleset_group_ref(b, 0, &m.mask, 1, &other), 0);
	assert_int_equal(topo_ruleset_add_rule_ref(b, &ref, m.value, (uint32_t)id_up, 0),
			 -ESTALE);
	assert_int_equal(topo_ruleset_group_ref(b, 0, &m.mask, 7, &ref), 0);
	assert_int_equal(ref.index, 1);
	assert_int_equal(topo_ruleset_add_rule_ref(b, &ref, m.value, (uint32_t)id_up, 9), 4);
	assert_int_equal(topo_ruleset_rule(b, 4)->flow, 9); /* the records were remade */
	assert_int_equal(topo_ruleset_rule(b, 0)->group, 1);
	assert_int_equal(topo_ruleset_group_ref(b, 3, &m.mask, 7, &ref), -EINVAL);
	topo_ruleset_free(a);
	topo_ruleset_free(b);
}

/* Rules added N at a time (topo_ruleset_add_rules_ref) are those of N single adds, across
 * room that grows (no reservation) and two masks; an unknown action-list id adds nothing;
 * a stale reference is refused. */
static void test_topology_ruleset_batch(void **state)
{
	static const char *const masks[2] = { "in_port,ip_dst/24,eth_src,tun_dst/16", "l4_src" };
	struct topo_ruleset *a = host(), *b = host();
	struct topo_action_list up = acts(2, TOPO_ACT_ENCAP, VNI_A, TOPO_ACT_FWD_UPLINK, 0);
	struct topo_action_list vf = acts(2, TOPO_ACT_DECAP, 0, TOPO_ACT_FWD_VF, VF_A);
	static uint64_t v[300][TOPO_F_COUNT];
	uint32_t act[300], flow[300];
	struct topo_group_ref ra[2], rb[2], other;
	long id[2];

	(void)state;
	id[0] = topo_ruleset_actions_id(b, &up);
	id[1] = topo_ruleset_actions_id(b, &vf);
	assert_int_equal(topo_ruleset_actions_id(a, &up), id[0]);
	assert_int_equal(topo_ruleset_actions_id(a, &vf), id[1]);
	for (int g = 0; g < 2; g++) {
		struct topo_mask m;

		assert_int_equal(topo_mask_parse(masks[g], &m, NULL), 0);
		assert_int_equal(topo_ruleset_group_ref(a, 0, &m, 3 + (uint32_t)g, &ra[g]), 0);
		assert_int_equal(topo_ruleset_group_ref(b, 0, &m, 3 + (uint32_t)g, &rb[g]), 0);
	}
	for (uint32_t i = 0; i < 300; i++) {
		for (unsigned f = 0; f < TOPO_F_COUNT; f++)
			v[i][f] = 0x0123456789abcdefull * (i + 1) + f * 0x9e3779b9u;
		act[i] = (uint32_t)id[i % 3 == 0];
		flow[i] = i + 1;
	}
	for (uint32_t i = 0; i < 300; i++)
		assert_int_equal(topo_ruleset_add_rule_ref(a, &ra[i >= 200], v[i], act[i], flow[i]),
				 (int)i);
	assert_int_equal(topo_ruleset_add_rules_ref(b, &rb[0], 1, v, act, flow), 0);
	assert_int_equal(topo_ruleset_add_rules_ref(b, &rb[0], 0, NULL, NULL, NULL), 0);
	assert_int_equal(topo_ruleset_add_rules_ref(b, &rb[0], 199, v + 1, act + 1, flow + 1), 0);
	act[250] = 7; /* no such list */
	assert_int_equal(topo_ruleset_add_rules_ref(b, &rb[1], 100, v + 200, act + 200,
						    flow + 200), -EINVAL);
	assert_int_equal(topo_ruleset_n_rules(b), 200);
	act[250] = (uint32_t)id[0];
	assert_int_equal(topo_ruleset_add_rules_ref(b, &rb[1], 100, v + 200, act + 200,
						    flow + 200), 0);
	assert_int_equal(topo_ruleset_n_rules(b), 300);
	assert_int_equal(topo_ruleset_group(b, 1)->n_rules, 100);
	for (size_t i = 0; i < 300; i++)
		assert_memory_equal(topo_ruleset_rule(a, i), topo_ruleset_rule(b, i),
				    sizeof(struct topo_rule));
	assert_int_equal(topo_ruleset_check(b, NULL, 0), topo_ruleset_check(a, NULL, 0));
	/* a group made before both moves them: the references are stale */
	assert_int_equal(topo_ruleset_group_ref(b, 0, &topo_ruleset_group(b, 0)->mask, 1, &other),
			 0);
	assert_int_equal(topo_ruleset_add_rules_ref(b, &rb[1], 1, v, act, flow), -ESTALE);
	assert_int_equal(topo_ruleset_add_rules_ref(NULL, &rb[1], 1, v, act, flow), -EINVAL);
	assert_int_equal(topo_ruleset_n_rules(b), 300);
	topo_ruleset_free(a);
	topo_ruleset_free(b);
}

/* A freed rule set's large storage is kept for the next rule set (which takes it: the
 * bytes held go down again), within the bound of 48 MiB; a block over the bound, and small
 * arrays, are not kept; topo_storage_release gives everything back. */
static void test_topology_storage_kept(void **state)
{
	struct topo_ruleset *rs[10];
	size_t held;

	(void)state;
	topo_storage_release();
	assert_int_equal(topo_storage_held(), 0);
	rs[0] = topo_ruleset_new();
	assert_int_equal(topo_ruleset_reserve(rs[0], 100000), 0);
	topo_ruleset_free(rs[0]);
	held = topo_storage_held();
	assert_true(held >= 100000 * 16); /* 16-byte records */
	rs[0] = topo_ruleset_new();
	assert_int_equal(topo_ruleset_reserve(rs[0], 100000), 0); /* takes the block */
	assert_int_equal(topo_storage_held(), 0);
	assert_int_equal(topo_ruleset_bytes(rs[0]) >= 100000 * 16, 1);
	topo_ruleset_free(rs[0]);
	assert_int_equal(topo_storage_held(), held);
	rs[0] = topo_ruleset_new();
	assert_int_equal(topo_ruleset_reserve(rs[0], 1000), 0); /* small: malloc's */
	topo_ruleset_free(rs[0]);
	assert_int_equal(topo_storage_held(), held);
	for (int i = 0; i < 10; i++) {
		rs[i] = topo_ruleset_new();
		assert_int_equal(topo_ruleset_reserve(rs[i], 500000 + (size_t)i), 0);
	}
	for (int i = 0; i < 10; i++)
		topo_ruleset_free(rs[i]);
	assert_true(topo_storage_held() <= (size_t)48 << 20);
	assert_true(topo_storage_held() >= (size_t)5 * 500000 * 16);
	topo_storage_release();
	rs[0] = topo_ruleset_new();
	assert_int_equal(topo_ruleset_reserve(rs[0], (size_t)4 << 20), 0); /* 64 MiB */
	topo_ruleset_free(rs[0]);
	assert_int_equal(topo_storage_held(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topology_names_roundtrip),
		cmocka_unit_test(test_topology_mask_parse_format),
		cmocka_unit_test(test_topology_mask_parse_errors),
		cmocka_unit_test(test_topology_match_covers_hits),
		cmocka_unit_test(test_topology_ruleset_groups),
		cmocka_unit_test(test_topology_ruleset_fast_path),
		cmocka_unit_test(test_topology_ruleset_batch),
		cmocka_unit_test(test_topology_storage_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
