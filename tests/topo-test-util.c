/* SPDX-License-Identifier: MIT */
/*
 * topo-test-util: helpers of topology/'s rule-set tests (see topo-test-util.h).
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

struct topo_ruleset *host(void)
{
	static const struct topo_port ports[] = {
		{ .id = UPLINK, .kind = TOPO_PORT_UPLINK, .ip = IP(172, 16, 0, 1) },
		{ .id = VF_A, .kind = TOPO_PORT_VF, .subnet = VNI_A, .ip = IP(192, 168, 0, 2) },
		{ .id = VF_B, .kind = TOPO_PORT_VF, .subnet = VNI_A, .container = 1,
		  .ip = IP(192, 168, 0, 3) },
		{ .id = VF_C, .kind = TOPO_PORT_VF, .subnet = VNI_C, .container = 2,
		  .ip = IP(192, 168, 1, 2) },
	};
	struct topo_ruleset *rs = topo_ruleset_new();

	assert_non_null(rs);
	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++)
		assert_int_equal(topo_ruleset_add_port(rs, &ports[i]), 0);
	return rs;
}

struct topo_action_list acts(unsigned n, ...)
{
	struct topo_action_list l;
	va_list ap;

	memset(&l, 0, sizeof(l));
	l.n = (uint8_t)n;
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++) {
		l.a[i].kind = (enum topo_action_kind)va_arg(ap, int);
		l.a[i].arg = va_arg(ap, unsigned);
	}
	va_end(ap);
	return l;
}

/* Add a rule on MASK with fields given as (field, value) pairs ending with -1. */
int add(struct topo_ruleset *rs, uint32_t table, const char *mask, uint32_t prio,
	struct topo_action_list a, ...)
{
	struct topo_match m;
	va_list ap;
	int f;

	memset(&m, 0, sizeof(m));
	assert_int_equal(topo_mask_parse(mask, &m.mask, NULL), 0);
	va_start(ap, a);
	while ((f = va_arg(ap, int)) >= 0)
		m.value[f] = va_arg(ap, uint64_t);
	va_end(ap);
	return topo_ruleset_add_rule(rs, table, &m, prio, &a, 0);
}
