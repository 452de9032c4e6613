/* SPDX-License-Identifier: MIT */
/*
 * test-topology-check: unit tests of topology/'s classification (probe counts, gotos, loops;
 * the hash classifier against a linear-scan reference) and of every validity reason of rule
 * sets (one breaking case and a close valid one each).
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
#include "tests/topo-test-util.h"

/* ---- classification ----------------------------------------------------------------------- */

static void test_topology_classify_probes(void **state)
{
	struct topo_ruleset *rs = host();
	struct topo_action_list up = acts(1, TOPO_ACT_FWD_UPLINK, 0);
	uint64_t pkt[TOPO_F_COUNT] = { 0 };
	unsigned probes;
	int rule;

	(void)state;
	assert_int_equal(add(rs, 0, "ip_dst", 0, up, V(TOPO_F_IP_DST, IP(10, 0, 0, 1)), -1), 0);
	assert_int_equal(add(rs, 0, "ip_dst/24", 1, up, V(TOPO_F_IP_DST, IP(10, 0, 1, 0)), -1), 1);
	assert_int_equal(add(rs, 0, "l4_dst", 2, up, V(TOPO_F_L4_DST, 4791), -1), 2);

	pkt[TOPO_F_IP_DST] = IP(10, 9, 9, 9);
	pkt[TOPO_F_L4_DST] = 4791; /* only the third group hits */
	assert_int_equal(topo_ruleset_classify(rs, pkt, &rule, &probes), 0);
	assert_int_equal(rule, 2);
	assert_int_equal(probes, 3);

	pkt[TOPO_F_IP_DST] = IP(10, 0, 1, 7); /* second group hits first */
	assert_int_equal(topo_ruleset_classify(rs, pkt, &rule, &probes), 0);
	assert_int_equal(rule, 1);
	assert_int_equal(probes, 2);

	pkt[TOPO_F_IP_DST] = IP(10, 9, 9, 9);
	pkt[TOPO_F_L4_DST] = 80; /* a miss probes every group */
	assert_int_equal(topo_ruleset_classify(rs, pkt, &rule, &probes), 0);
	assert_int_equal(rule, -1);
	assert_int_equal(probes, 3);

	/* goto: probes add up over tables */
	assert_int_equal(topo_ruleset_add_table(rs), 1);
	assert_int_equal(add(rs, 0, "l4_dst", 2, acts(1, TOPO_ACT_GOTO, 1), V(TOPO_F_L4_DST, 80),
			     -1), 3);
	assert_int_equal(add(rs, 1, "ip_src", 0, up, V(TOPO_F_IP_SRC, 1), -1), 4);
	assert_int_equal(add(rs, 1, "ip_proto", 1, up, V(TOPO_F_IP_PROTO, 17), -1), 5);
	pkt[TOPO_F_IP_PROTO] = 17;
	assert_int_equal(topo_ruleset_classify(rs, pkt, &rule, &probes), 0);
	assert_int_equal(rule, 5);
	assert_int_equal(probes, 3 + 2);

	/* goto back to the root: -ELOOP */
	assert_int_equal(add(rs, 1, "ip_proto", 1, acts(1, TOPO_ACT_GOTO, 0),
			     V(TOPO_F_IP_PROTO, 6), -1), 6);
	pkt[TOPO_F_IP_PROTO] = 6;
	assert_int_equal(topo_ruleset_classify(rs, pkt, &rule, &probes), -ELOOP);
	topo_ruleset_free(rs);
}

/* Plain reference: groups in order, rules in index order, first hit wins, gotos followed. */
static int reference_classify(const struct topo_ruleset *rs, const uint64_t *pkt,
			      unsigned *probes)
{
	uint32_t table = 0;

	*probes = 0;
	for (int hops = 0; hops < 16; hops++) {
		int hit = -1;

		for (size_t g = 0; g < topo_ruleset_n_groups(rs) && hit < 0; g++) {
			if (topo_ruleset_group(rs, g)->table != table)
				continue;
			++*probes;
			for (size_t i = 0; i < topo_ruleset_n_rules(rs) && hit < 0; i++) {
				const struct topo_rule *r = topo_ruleset_rule(rs, i);

				if (r->group == g && topo_match_hits(&r->match, pkt))
					hit = (int)i;
			}
		}
		if (hit < 0)
			return -1;
		const struct topo_rule *r = topo_ruleset_rule(rs, (size_t)hit);

		if (r->actions.a[0].kind != TOPO_ACT_GOTO)
			return hit;
		table = r->actions.a[0].arg;
	}
	return -2;
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static void test_topology_classify_matches_reference(void **state)
{
	static const char *const masks[] = { "ip_dst", "ip_dst/28", "ip_dst/30,l4_dst", "l4_dst",
					     "ip_src/31,ip_dst/29" };
	struct topo_ruleset *rs = host();
	uint64_t seed = 7;
	unsigned hits = 0;

	(void)state;
	assert_int_equal(topo_ruleset_add_table(rs), 1);
	for (int i = 0; i < 400; i++) {
		unsigned mi = (unsigned)(lcg(&seed) % 5), table = (unsigned)(lcg(&seed) % 2);
		struct topo_action_list a = table == 0 && lcg(&seed) % 4 == 0
						    ? acts(1, TOPO_ACT_GOTO, 1)
						    : acts(1, TOPO_ACT_FWD_UPLINK, 0);

		assert_true(add(rs, table, masks[mi], (uint32_t)(lcg(&seed) % 4), a,
				V(TOPO_F_IP_DST, IP(10, 0, 0, lcg(&seed) % 64)),
				V(TOPO_F_IP_SRC, IP(10, 1, 0, lcg(&seed) % 8)),
				V(TOPO_F_L4_DST, 80 + lcg(&seed) % 4), -1) >= 0);
		if (i % 97 == 3)
			assert_int_equal(topo_ruleset_del_rule(rs, (size_t)(lcg(&seed) % (unsigned)(i + 1))), 0);
	}
	for (int p = 0; p < 2000; p++) {
		uint64_t pkt[TOPO_F_COUNT] = { 0 };
		unsigned probes, ref_probes;
		int rule, ref;

		pkt[TOPO_F_IP_DST] = IP(10, 0, 0, lcg(&seed) % 80);
		pkt[TOPO_F_IP_SRC] = IP(10, 1, 0, lcg(&seed) % 10);
		pkt[TOPO_F_L4_DST] = 80 + lcg(&seed) % 5;
		assert_int_equal(topo_ruleset_classify(rs, pkt, &rule, &probes), 0);
		ref = reference_classify(rs, pkt, &ref_probes);
		assert_int_equal(rule, ref);
		assert_int_equal(probes, ref_probes);
		hits += rule >= 0;
	}
	assert_true(hits > 500 && hits < 2000); /* both hits and misses exercised */
	topo_ruleset_free(rs);
}

/* ---- rule-set validity -------------------------------------------------------------------- */

/* The base host: one encap rule for VF_A and one decap rule for VF_B; valid. */
static struct topo_ruleset *valid_host(void)
{
	struct topo_ruleset *rs = host();

	assert_int_equal(add(rs, 0, "in_port,ip_dst", 10,
			     acts(2, TOPO_ACT_ENCAP, VNI_A, TOPO_ACT_FWD_UPLINK, 0),
			     V(TOPO_F_IN_PORT, VF_A), V(TOPO_F_IP_DST, IP(192, 168, 0, 9)), -1), 0);
	assert_int_equal(add(rs, 0, "in_port,tun_id,ip_dst", 20,
			     acts(2, TOPO_ACT_DECAP, 0, TOPO_ACT_FWD_VF, VF_B),
			     V(TOPO_F_IN_PORT, UPLINK), V(TOPO_F_TUN_ID, VNI_A),
			     V(TOPO_F_IP_DST, IP(192, 168, 0, 3)), -1), 1);
	assert_int_equal(topo_ruleset_check(rs, NULL, 0), 0);
	return rs;
}

/* Exactly one violation, of reason R, with a message. */
static void expect_one(const struct topo_ruleset *rs, enum topo_reason r)
{
	struct topo_violation v[4];

	memset(v, 0, sizeof(v));
	assert_int_equal(topo_ruleset_check(rs, v, 4), 1);
	assert_int_equal(v[0].reason, r);
	assert_true(strlen(v[0].message) > 20);
}

static void check_rule_case(enum topo_reason r, struct topo_action_list bad,
			    struct topo_action_list good, uint32_t in_port, uint64_t tun_id)
{
	struct topo_ruleset *rs = valid_host();
	const char *mask = tun_id ? "in_port,tun_id,ip_dst" : "in_port,ip_dst";

	assert_int_equal(add(rs, 0, mask, 30, bad, V(TOPO_F_IN_PORT, in_port),
			     V(TOPO_F_TUN_ID, tun_id), V(TOPO_F_IP_DST, 77), -1), 2);
	expect_one(rs, r);
	assert_int_equal(topo_ruleset_del_rule(rs, 2), 0);
	assert_int_equal(add(rs, 0, mask, 30, good, V(TOPO_F_IN_PORT, in_port),
			     V(TOPO_F_TUN_ID, tun_id), V(TOPO_F_IP_DST, 77), -1), 2);
	assert_int_equal(topo_ruleset_check(rs, NULL, 0), 0);
	topo_ruleset_free(rs);
}

static void test_topology_ruleset_check_rule_reasons(void **state)
{
	(void)state;
	check_rule_case(TOPO_R_AFTER_TERMINAL, acts(2, TOPO_ACT_FWD_UPLINK, 0, TOPO_ACT_COUNT, 0),
			acts(2, TOPO_ACT_COUNT, 0, TOPO_ACT_FWD_UPLINK, 0), VF_A, 0);
	/* decap on a VF's (plain) traffic vs decap on VXLAN from the uplink */
	check_rule_case(TOPO_R_DECAP_NON_TUNNEL, acts(2, TOPO_ACT_DECAP, 0, TOPO_ACT_FWD_VF, VF_B),
			acts(1, TOPO_ACT_FWD_VF, VF_B), VF_A, 0);
	check_rule_case(TOPO_R_ENCAP_NOT_UPLINK,
			acts(2, TOPO_ACT_ENCAP, VNI_A, TOPO_ACT_FWD_VF, VF_B),
			acts(2, TOPO_ACT_ENCAP, VNI_A, TOPO_ACT_FWD_UPLINK, 0), VF_A, 0);
	/* a VF forwarded into another subnet, and a decap of VNI_A delivered into VNI_C */
	check_rule_case(TOPO_R_CROSS_SUBNET, acts(1, TOPO_ACT_FWD_VF, VF_C),
			acts(1, TOPO_ACT_FWD_VF, VF_B), VF_A, 0);
	check_rule_case(TOPO_R_CROSS_SUBNET, acts(2, TOPO_ACT_DECAP, 0, TOPO_ACT_FWD_VF, VF_C),
			acts(2, TOPO_ACT_DECAP, 0, TOPO_ACT_FWD_VF, VF_B), UPLINK, VNI_A);
	check_rule_case(TOPO_R_CROSS_SUBNET, acts(1, TOPO_ACT_FWD_VF_OTHER, VF_B),
			acts(1, TOPO_ACT_FWD_VF, VF_B), VF_A, 0);
}

static void test_topology_ruleset_check_decap_after_goto(void **state)
{
	struct topo_ruleset *rs = valid_host();
	struct topo_violation v[4];

	(void)state;
	/* a root rule sends uplink VXLAN to table 1, where decap is fine without tunnel fields */
	assert_int_equal(topo_ruleset_add_table(rs), 1);
	assert_int_equal(add(rs, 1, "ip_dst", 0, acts(2, TOPO_ACT_DECAP, 0, TOPO_ACT_FWD_VF, VF_B),
			     V(TOPO_F_IP_DST, IP(192, 168, 0, 3)), -1), 2);
	/* no way in yet: unreachable, and nothing says its traffic is VXLAN */
	memset(v, 0, sizeof(v));
	assert_int_equal(topo_ruleset_check(rs, v, 4), 2);
	assert_int_equal(v[0].reason, TOPO_R_DECAP_NON_TUNNEL);
	assert_int_equal(v[1].reason, TOPO_R_UNREACHABLE_TABLE);
	assert_int_equal(add(rs, 0, "in_port,tun_dport", 0, acts(1, TOPO_ACT_GOTO, 1),
			     V(TOPO_F_IN_PORT, UPLINK), V(TOPO_F_TUN_DPORT, 4789), -1), 3);
	assert_int_equal(topo_ruleset_check(rs, NULL, 0), 0);
	/* if table 1 is entered from a VF rule instead, the decap is on plain traffic */
	assert_int_equal(topo_ruleset_del_rule(rs, 3), 0);
	assert_int_equal(add(rs, 0, "in_port", 0, acts(1, TOPO_ACT_GOTO, 1), V(TOPO_F_IN_PORT, VF_B),
			     -1), 3);
	expect_one(rs, TOPO_R_DECAP_NON_TUNNEL);
	topo_ruleset_free(rs);
}

static void test_topology_ruleset_check_graph(void **state)
{
	struct topo_ruleset *rs = valid_host();
	struct topo_action_list up = acts(1, TOPO_ACT_FWD_UPLINK, 0);
	struct topo_violation v[4];

	(void)state;
	assert_int_equal(topo_ruleset_add_table(rs), 1);
	assert_int_equal(topo_ruleset_add_table(rs), 2);
	assert_int_equal(add(rs, 0, "l4_dst", 0, acts(1, TOPO_ACT_GOTO, 1), V(TOPO_F_L4_DST, 1), -1),
			 2);
	assert_int_equal(add(rs, 1, "l4_dst", 0, acts(1, TOPO_ACT_GOTO, 2), V(TOPO_F_L4_DST, 1), -1),
			 3);
	/* close the cycle 1 -> 2 -> 1 */
	assert_int_equal(add(rs, 2, "l4_dst", 0, acts(1, TOPO_ACT_GOTO, 1), V(TOPO_F_L4_DST, 1), -1),
			 4);
	memset(v, 0, sizeof(v));
	assert_int_equal(topo_ruleset_check(rs, v, 4), 1);
	assert_int_equal(v[0].reason, TOPO_R_LOOP);
	assert_int_equal(v[0].table, 2);
	assert_int_equal(v[0].rule, 4);
	assert_non_null(strstr(v[0].message, "1 -> 2 -> 1"));
	/* close: table 2 forwards instead */
	assert_int_equal(topo_ruleset_del_rule(rs, 4), 0);
	assert_int_equal(add(rs, 2, "l4_dst", 0, up, V(TOPO_F_L4_DST, 1), -1), 4);
	assert_int_equal(topo_ruleset_check(rs, NULL, 0), 0);
	/* unreachable: a table nobody jumps to */
	assert_int_equal(topo_ruleset_add_table(rs), 3);
	assert_int_equal(add(rs, 3, "l4_dst", 0, up, V(TOPO_F_L4_DST, 1), -1), 5);
	memset(v, 0, sizeof(v));
	assert_int_equal(topo_ruleset_check(rs, v, 4), 1);
	assert_int_equal(v[0].reason, TOPO_R_UNREACHABLE_TABLE);
	assert_int_equal(v[0].table, 3);
	assert_true(strlen(v[0].message) > 20);
	assert_int_equal(add(rs, 2, "l4_dst", 1, acts(1, TOPO_ACT_GOTO, 3), V(TOPO_F_L4_DST, 2), -1),
			 6);
	assert_int_equal(topo_ruleset_check(rs, NULL, 0), 0);
	topo_ruleset_free(rs);
}

static void test_topology_ruleset_check_dead_rule(void **state)
{
	struct topo_ruleset *rs = valid_host();
	struct topo_action_list up = acts(1, TOPO_ACT_FWD_UPLINK, 0);
	struct topo_violation v[4];

	(void)state;
	assert_int_equal(add(rs, 0, "ip_dst/24", 0, up, V(TOPO_F_IP_DST, IP(10, 0, 1, 0)), -1), 2);
	/* probed later, and every packet it matches is in 10.0.1.0/24: dead */
	assert_int_equal(add(rs, 0, "ip_dst,l4_dst", 1, up, V(TOPO_F_IP_DST, IP(10, 0, 1, 5)),
			     V(TOPO_F_L4_DST, 80), -1), 3);
	memset(v, 0, sizeof(v));
	assert_int_equal(topo_ruleset_check(rs, v, 4), 1);
	assert_int_equal(v[0].reason, TOPO_R_DEAD_RULE);
	assert_int_equal(v[0].rule, 3);
	assert_true(strlen(v[0].message) > 20);
	/* close: another /24 is not covered */
	assert_int_equal(topo_ruleset_del_rule(rs, 3), 0);
	assert_int_equal(add(rs, 0, "ip_dst,l4_dst", 1, up, V(TOPO_F_IP_DST, IP(10, 0, 2, 5)),
			     V(TOPO_F_L4_DST, 80), -1), 3);
	assert_int_equal(topo_ruleset_check(rs, NULL, 0), 0);
	/* a wider rule probed later does not shadow the narrower earlier one */
	assert_int_equal(add(rs, 0, "ip_dst/16", 2, up, V(TOPO_F_IP_DST, IP(10, 0, 0, 0)), -1), 4);
	assert_int_equal(topo_ruleset_check(rs, NULL, 0), 0);
	/* a rule with the same mask, priority and value (a duplicate) is dead */
	assert_int_equal(add(rs, 0, "ip_dst/24", 0, up, V(TOPO_F_IP_DST, IP(10, 0, 1, 9)), -1), 5);
	expect_one(rs, TOPO_R_DEAD_RULE);
	topo_ruleset_free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topology_classify_probes),
		cmocka_unit_test(test_topology_classify_matches_reference),
		cmocka_unit_test(test_topology_ruleset_check_rule_reasons),
		cmocka_unit_test(test_topology_ruleset_check_decap_after_goto),
		cmocka_unit_test(test_topology_ruleset_check_graph),
		cmocka_unit_test(test_topology_ruleset_check_dead_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
