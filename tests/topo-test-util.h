/* SPDX-License-Identifier: MIT */
/*
 * topo-test-util: what the rule-set tests of topology/ share (test-topology.c,
 * test-topology-check.c): IPv4 addresses, a host of an uplink and three VFs in two subnets,
 * action lists and rules written inline. Include after <cmocka.h> (helpers fail the
 * running test with cmocka asserts).
 */
#ifndef TOPO_TEST_UTIL_H
#define TOPO_TEST_UTIL_H

#include <stdint.h>

#include "topology/topo.h"

/* The IPv4 address a.b.c.d as a field value. */
#define IP(a, b, c, d) (((uint64_t)(a) << 24) | ((uint64_t)(b) << 16) | ((c) << 8) | (d))

/* The ports and subnets of host(). */
enum { UPLINK = 1, VF_A = 10, VF_B = 11, VF_C = 20, VNI_A = 1000, VNI_C = 1001 };

/* A rule set with the ports UPLINK, VF_A and VF_B (subnet VNI_A), VF_C (VNI_C). */
struct topo_ruleset *host(void);
/* An action list of N (kind, arg) pairs. */
struct topo_action_list acts(unsigned n, ...);
/* Add a rule on MASK with fields given as (field, value) pairs ending with -1. */
int add(struct topo_ruleset *rs, uint32_t table, const char *mask, uint32_t prio,
	struct topo_action_list a, ...);
/* A (field, value) pair of add's list. */
#define V(f, v) (int)(f), (uint64_t)(v)

#endif
