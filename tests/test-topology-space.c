/* SPDX-License-Identifier: MIT */
/*
 * test-topology-space: unit tests of topology/'s architecture models and spaces (topo.h,
 * topo_enum.h): every validity reason of a model (one breaking case and a close valid one
 * each), the canonical reason order, model text, space validation, the pruning enumerator
 * against the naive reference on several small spaces, counts by hand, stopping, and flow
 * paths.
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
/* ---- models --------------------------------------------------------------------------------- */

enum { T_ENCAP_UP, T_DECAP_VF, T_GOTO, T_DROP, T_ENCAP_VF, T_FWD_OTHER, T_DROP_COUNT,
       T_DECAP_GOTO, T_FWD_VF, T_ENCAP_GOTO, T_COUNT_ONLY, T_FWD_UP, T_N };

static void add_tp(struct topo_space *s, const char *name, unsigned n, ...)
{
	struct topo_template *t = &s->templates[s->n_templates++];
	va_list ap;

	snprintf(t->name, sizeof(t->name), "%s", name);
	t->n = (uint8_t)n;
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		t->kinds[i] = (enum topo_action_kind)va_arg(ap, int);
	va_end(ap);
}

static void add_shape(struct topo_space *s, const char *name, const char *mask)
{
	snprintf(s->shapes[s->n_shapes].name, sizeof(s->shapes[0].name), "%s", name);
	assert_int_equal(topo_mask_parse(mask, &s->shapes[s->n_shapes].mask, NULL), 0);
	s->n_shapes++;
}

/* A space with every template the model tests name (indices = T_*). */
static void test_space(struct topo_space *s)
{
	memset(s, 0, sizeof(*s));
	s->max_tables = 3;
	s->max_masks_per_table = 1;
	s->subnets = 2;
	s->containers = 3;
	add_shape(s, "dst32", "ip_dst");
	add_shape(s, "vni_dst", "tun_id,ip_dst");
	add_tp(s, "encap_up", 2, TOPO_ACT_ENCAP, TOPO_ACT_FWD_UPLINK);
	add_tp(s, "decap_vf", 2, TOPO_ACT_DECAP, TOPO_ACT_FWD_VF);
	add_tp(s, "goto", 1, TOPO_ACT_GOTO);
	add_tp(s, "drop", 1, TOPO_ACT_DROP);
	add_tp(s, "encap_vf", 2, TOPO_ACT_ENCAP, TOPO_ACT_FWD_VF);
	add_tp(s, "fwd_vf_other", 1, TOPO_ACT_FWD_VF_OTHER);
	add_tp(s, "drop_count", 2, TOPO_ACT_DROP, TOPO_ACT_COUNT);
	add_tp(s, "decap_goto", 2, TOPO_ACT_DECAP, TOPO_ACT_GOTO);
	add_tp(s, "fwd_vf", 1, TOPO_ACT_FWD_VF);
	add_tp(s, "encap_goto", 2, TOPO_ACT_ENCAP, TOPO_ACT_GOTO);
	add_tp(s, "count", 1, TOPO_ACT_COUNT);
	add_tp(s, "fwd_up", 1, TOPO_ACT_FWD_UPLINK);
	assert_int_equal(s->n_templates, T_N);
}

#define NO TOPO_NONE

/* Model of N tables from (tx, tx_goto, rx, rx_goto) quadruples. */
static struct topo_model model(unsigned n, ...)
{
	struct topo_model m;
	va_list ap;

	memset(&m, 0, sizeof(m));
	m.n_tables = n;
	va_start(ap, n);
	for (unsigned t = 0; t < n; t++) {
		m.t[t].masks = 1;
		m.t[t].tx_template = (uint8_t)va_arg(ap, int);
		m.t[t].tx_goto = (uint8_t)va_arg(ap, int);
		m.t[t].rx_template = (uint8_t)va_arg(ap, int);
		m.t[t].rx_goto = (uint8_t)va_arg(ap, int);
	}
	va_end(ap);
	return m;
}

static void expect_model(const struct topo_space *s, struct topo_model m, enum topo_reason r,
			 int table)
{
	struct topo_violation v;
	char buf[512];

	memset(&v, 0, sizeof(v));
	if (topo_model_check(s, &m, &v) != r)
		fail_msg("%s: got %s (%s), want %s", topo_model_format(s, &m, buf, sizeof(buf)),
			 topo_reason_name(v.reason), v.message, topo_reason_name(r));
	if (r != TOPO_OK) {
		assert_int_equal(v.reason, r);
		assert_int_equal(v.table, table);
		assert_true(strlen(v.message) > 20);
	}
}

static void test_topology_model_reasons(void **state)
{
	struct topo_space s;

	(void)state;
	test_space(&s);
	assert_int_equal(topo_space_validate(&s, NULL), 0);
	/* valid base: encap to the uplink, decap to a VF */
	expect_model(&s, model(1, T_ENCAP_UP, NO, T_DECAP_VF, NO), TOPO_OK, -1);
	/* after_terminal */
	expect_model(&s, model(1, T_DROP_COUNT, NO, T_DECAP_VF, NO), TOPO_R_AFTER_TERMINAL, 0);
	expect_model(&s, model(1, T_DROP, NO, T_DECAP_VF, NO), TOPO_OK, -1);
	/* decap_non_tunnel: decap of send-path traffic; and a second decap along the path */
	expect_model(&s, model(1, T_DECAP_VF, NO, T_DECAP_VF, NO), TOPO_R_DECAP_NON_TUNNEL, 0);
	expect_model(&s, model(2, T_ENCAP_UP, NO, T_DECAP_GOTO, 1, NO, NO, T_DECAP_VF, NO),
		     TOPO_R_DECAP_NON_TUNNEL, 1);
	expect_model(&s, model(2, T_ENCAP_UP, NO, T_DECAP_GOTO, 1, NO, NO, T_FWD_VF, NO), TOPO_OK,
		     -1);
	/* encap_not_uplink: in one template, and across a goto */
	expect_model(&s, model(1, T_ENCAP_VF, NO, T_DECAP_VF, NO), TOPO_R_ENCAP_NOT_UPLINK, 0);
	expect_model(&s, model(2, T_ENCAP_GOTO, 1, T_DECAP_VF, NO, T_FWD_VF, NO, NO, NO),
		     TOPO_R_ENCAP_NOT_UPLINK, 1);
	expect_model(&s, model(2, T_ENCAP_GOTO, 1, T_DECAP_VF, NO, T_FWD_UP, NO, NO, NO), TOPO_OK,
		     -1);
	/* cross_subnet */
	expect_model(&s, model(1, T_FWD_OTHER, NO, T_DECAP_VF, NO), TOPO_R_CROSS_SUBNET, 0);
	expect_model(&s, model(1, T_FWD_VF, NO, T_DECAP_VF, NO), TOPO_OK, -1);
	/* loop: a self goto, and 0 -> 1 -> 0 (closes at table 1) */
	expect_model(&s, model(1, T_GOTO, 0, T_DECAP_VF, NO), TOPO_R_LOOP, 0);
	expect_model(&s, model(2, T_GOTO, 1, T_DECAP_VF, NO, T_GOTO, 0, NO, NO), TOPO_R_LOOP, 1);
	expect_model(&s, model(2, T_GOTO, 1, T_DECAP_VF, NO, T_ENCAP_UP, NO, NO, NO), TOPO_OK, -1);
	/* unreachable_table: table 1 has no way in */
	expect_model(&s, model(2, T_ENCAP_UP, NO, T_DECAP_VF, NO, T_ENCAP_UP, NO, T_DECAP_VF, NO),
		     TOPO_R_UNREACHABLE_TABLE, 1);
	expect_model(&s, model(2, T_ENCAP_UP, NO, T_GOTO, 1, T_ENCAP_UP, NO, T_DECAP_VF, NO),
		     TOPO_OK, -1);
	/* black_hole: no rx template, rx delivered still encapsulated, no terminal action,
	 * and a goto into a table without a template for that class */
	expect_model(&s, model(1, T_ENCAP_UP, NO, NO, NO), TOPO_R_BLACK_HOLE, 0);
	expect_model(&s, model(1, T_ENCAP_UP, NO, T_FWD_VF, NO), TOPO_R_BLACK_HOLE, 0);
	expect_model(&s, model(1, T_COUNT_ONLY, NO, T_DECAP_VF, NO), TOPO_R_BLACK_HOLE, 0);
	expect_model(&s, model(2, T_ENCAP_UP, NO, T_GOTO, 1, T_ENCAP_UP, NO, NO, NO),
		     TOPO_R_BLACK_HOLE, 1);
}

static void test_topology_model_canonical_order(void **state)
{
	struct topo_space s;

	(void)state;
	test_space(&s);
	/* table 0 breaks cross_subnet and table 1 after_terminal: table order wins */
	expect_model(&s, model(2, T_GOTO, 1, T_FWD_OTHER, NO, T_DROP_COUNT, NO, NO, NO),
		     TOPO_R_CROSS_SUBNET, 0);
	/* within a table: reason order wins (after_terminal before encap_not_uplink) */
	expect_model(&s, model(1, T_ENCAP_VF, NO, T_DROP_COUNT, NO), TOPO_R_AFTER_TERMINAL, 0);
	/* a table's own reason comes before the loop it closes */
	expect_model(&s, model(2, T_GOTO, 1, T_DECAP_VF, NO, T_GOTO, 0, T_ENCAP_VF, NO),
		     TOPO_R_ENCAP_NOT_UPLINK, 1);
	/* a loop at table 1 comes before a local reason of table 2 */
	expect_model(&s, model(3, T_GOTO, 1, T_DECAP_VF, NO, T_GOTO, 1, NO, NO, T_DROP_COUNT, NO,
			       NO, NO), TOPO_R_LOOP, 1);
	/* unreachable before black hole */
	expect_model(&s, model(2, T_ENCAP_UP, NO, NO, NO, T_ENCAP_UP, NO, T_DECAP_VF, NO),
		     TOPO_R_UNREACHABLE_TABLE, 1);
	/* a model that does not fit its space is refused */
	expect_model(&s, model(1, T_N, NO, T_DECAP_VF, NO), TOPO_R_BLACK_HOLE, 0);
	expect_model(&s, model(1, T_GOTO, 3, T_DECAP_VF, NO), TOPO_R_BLACK_HOLE, 0);
}

static void test_topology_model_format(void **state)
{
	struct topo_space s;
	struct topo_model m;
	char buf[256];

	(void)state;
	test_space(&s);
	m = model(2, T_ENCAP_UP, NO, T_GOTO, 1, NO, NO, T_DECAP_VF, NO);
	m.t[1].masks = 3;
	assert_string_equal(topo_model_format(&s, &m, buf, sizeof(buf)),
			    "t0{masks=dst32 tx=encap_up rx=goto->t1} "
			    "t1{masks=dst32+vni_dst tx=- rx=decap_vf}");
	topo_model_format(&s, &m, buf, 10); /* truncates, stays terminated */
	assert_int_equal(strlen(buf), 9);
}

/* ---- spaces and enumeration ----------------------------------------------------------------- */

static void test_topology_space_validate(void **state)
{
	struct topo_space s, bad;
	struct scn_error err;

	(void)state;
	topo_space_default(&s);
	assert_int_equal(topo_space_validate(&s, &err), 0);
	assert_true(s.max_tables >= 2 && s.n_templates >= 5 && s.n_shapes >= 2);

	bad = s;
	bad.max_tables = 0;
	assert_int_equal(topo_space_validate(&bad, &err), -EINVAL);
	assert_string_equal(err.key, "max_tables");
	bad = s;
	bad.max_masks_per_table = bad.n_shapes + 1;
	assert_int_equal(topo_space_validate(&bad, &err), -EINVAL);
	assert_string_equal(err.key, "max_masks_per_table");
	bad = s;
	snprintf(bad.templates[1].name, sizeof(bad.templates[1].name), "%s", bad.templates[0].name);
	assert_int_equal(topo_space_validate(&bad, &err), -EINVAL);
	assert_string_equal(err.key, "templates[1]");
	assert_non_null(strstr(err.message, "twice"));
	bad = s;
	bad.templates[0].n = 0;
	assert_int_equal(topo_space_validate(&bad, &err), -EINVAL);
	bad = s;
	bad.shapes[0].mask.plen[TOPO_F_L4_DST] = 8;
	assert_int_equal(topo_space_validate(&bad, &err), -EINVAL);
	assert_string_equal(err.key, "shapes[0]");
	bad = s;
	bad.shapes[1].mask = bad.shapes[0].mask;
	assert_int_equal(topo_space_validate(&bad, &err), -EINVAL);
	assert_non_null(strstr(err.message, "same mask"));
	bad = s;
	bad.subnets = 0;
	assert_int_equal(topo_space_validate(&bad, &err), -EINVAL);
	assert_int_equal(topo_enumerate(&bad, NULL, NULL, NULL, &err), -EINVAL);
	assert_int_equal(topo_enumerate_naive(&bad, NULL, NULL, NULL, &err), -EINVAL);
}

struct seq {
	uint64_t hash;
	uint64_t n;
	const struct topo_space *s;
	uint64_t stop_after;
};

static int collect(const struct topo_model *m, void *ctx)
{
	struct seq *q = ctx;
	uint64_t h = q->hash ^ (m->n_tables * 0x100000001b3ull);

	assert_int_equal(topo_model_check(q->s, m, NULL), TOPO_OK);
	for (unsigned t = 0; t < TOPO_MAX_TABLES; t++) {
		const struct topo_table_choice *c = &m->t[t];
		uint64_t v = (uint64_t)c->masks | (uint64_t)c->tx_template << 16 |
			     (uint64_t)c->tx_goto << 24 | (uint64_t)c->rx_template << 32 |
			     (uint64_t)c->rx_goto << 40;

		if (t >= m->n_tables)
			assert_true(v == 0);
		h = (h ^ v) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	q->hash = h;
	q->n++;
	return q->stop_after && q->n >= q->stop_after;
}

static void compare_enumerators(const struct topo_space *s)
{
	struct topo_enum_stats a, b;
	struct seq qa = { 0, 0, s, 0 }, qb = { 0, 0, s, 0 };
	double total = 0;

	assert_int_equal(topo_enumerate(s, collect, &qa, &a, NULL), 0);
	assert_int_equal(topo_enumerate_naive(s, collect, &qb, &b, NULL), 0);
	assert_true(qa.n == a.valid);
	assert_true(qa.n == qb.n);
	assert_true(qa.hash == qb.hash);
	assert_true(a.valid == b.valid);
	assert_true(a.valid > 0);
	assert_false(a.stopped);
	for (int r = 0; r < TOPO_R_COUNT; r++) {
		if (a.pruned[r] != b.pruned[r])
			fail_msg("pruned[%s]: %.0f vs naive %.0f", topo_reason_name(r), a.pruned[r],
				 b.pruned[r]);
		total += a.pruned[r];
	}
	assert_true(a.pruned[TOPO_OK] == 0 && a.pruned[TOPO_R_DEAD_RULE] == 0);
	total += (double)a.valid;
	assert_true(fabs(total - pow(10.0, a.log10_bruteforce)) <= 1e-9 * total);
	assert_true((double)b.visited == total); /* naive visits every complete model */
	assert_true(a.visited < b.visited || b.visited < 200);
	assert_true(a.log10_bruteforce == b.log10_bruteforce);
}

static void small_space(struct topo_space *s, unsigned tables, unsigned shapes, unsigned masks,
			const int *tps, unsigned n_tps)
{
	struct topo_space all;

	test_space(&all);
	memset(s, 0, sizeof(*s));
	s->max_tables = tables;
	s->max_masks_per_table = masks;
	s->subnets = 3;
	s->containers = 2;
	add_shape(s, "dst32", "ip_dst");
	if (shapes > 1)
		add_shape(s, "vni_dst", "tun_id,ip_dst");
	if (shapes > 2)
		add_shape(s, "outer", "tun_src,tun_dst,tun_dport");
	for (unsigned i = 0; i < n_tps; i++)
		s->templates[s->n_templates++] = all.templates[tps[i]];
}

static void test_topology_enumerate_matches_naive(void **state)
{
	static const int t1[] = { T_ENCAP_UP, T_DECAP_VF, T_DROP, T_FWD_OTHER };
	static const int t2[] = { T_ENCAP_UP, T_DECAP_VF, T_GOTO, T_DROP_COUNT, T_ENCAP_VF };
	static const int t3[] = { T_ENCAP_UP, T_DECAP_VF, T_DECAP_GOTO, T_FWD_VF, T_ENCAP_GOTO };
	static const int t4[] = { T_FWD_UP, T_DECAP_VF, T_GOTO, T_COUNT_ONLY, T_FWD_OTHER };
	static const int t5[] = { T_ENCAP_UP, T_GOTO, T_DECAP_GOTO, T_FWD_VF };
	struct topo_space s;

	(void)state;
	small_space(&s, 1, 1, 1, t1, 4);
	compare_enumerators(&s);
	small_space(&s, 2, 2, 2, t2, 5);
	compare_enumerators(&s);
	small_space(&s, 3, 1, 1, t3, 5);
	compare_enumerators(&s);
	small_space(&s, 3, 2, 1, t4, 5);
	compare_enumerators(&s);
	small_space(&s, 2, 3, 2, t5, 4);
	compare_enumerators(&s);
}

static void test_topology_enumerate_default_space(void **state)
{
	struct topo_space s;
	struct topo_enum_stats a;
	struct seq q = { 0, 0, &s, 0 };
	double total;

	(void)state;
	topo_space_default(&s);
	assert_int_equal(topo_enumerate(&s, collect, &q, &a, NULL), 0);
	assert_true(q.n == a.valid && a.valid > 100);
	total = (double)a.valid;
	for (int r = 0; r < TOPO_R_COUNT; r++)
		total += a.pruned[r];
	assert_true(fabs(total - pow(10.0, a.log10_bruteforce)) <= 1e-9 * total);
	/* the invalid templates of the default space give every local reason work */
	for (int r = TOPO_R_AFTER_TERMINAL; r <= TOPO_R_BLACK_HOLE; r++)
		assert_true(a.pruned[r] > 0);
	assert_true(a.prune_events[TOPO_R_LOOP] > 0);
	/* pruning builds far fewer (partial) models than the brute-force space */
	assert_true((double)a.visited * 10 < total);
}

/* Counts worked out by hand, so that the pruning counts are checked against arithmetic,
 * not only against the naive enumerator (which shares the validity code). One table, one
 * mask shape; per class the options are "no rules" or a template.
 *  - {encap_up, decap_vf}: valid (tx encap_up) x (rx encap_up | decap_vf) = 2; tx decap_vf
 *    is decap_non_tunnel whatever rx is (3); black holes are the other pairs with "no
 *    rules" on a side: (none, none), (none, encap_up), (none, decap_vf), (encap_up, none) = 4.
 *  - the default templates, one table: tx has a valid {encap_up, drop} (a = 2), rx
 *    {encap_up, decap_vf, drop} (b = 3); black holes are (1 + a)(1 + b) - ab = 1 + a + b = 6
 *    per mask shape, and valid ab = 6: equal because (a - 1)(b - 1) = 2. That identity of the
 *    default action lists is why `enumerate` prints as many black holes as valid models on
 *    the default space (9036/9036 at three tables): arithmetic, not a miscount. */
static void test_topology_enumerate_counts_by_hand(void **state)
{
	static const int two[] = { T_ENCAP_UP, T_DECAP_VF };
	struct topo_space s;
	struct topo_enum_stats a, b;

	(void)state;
	small_space(&s, 1, 1, 1, two, 2);
	assert_int_equal(topo_enumerate(&s, NULL, NULL, &a, NULL), 0);
	assert_int_equal(a.valid, 2);
	assert_true(a.pruned[TOPO_R_DECAP_NON_TUNNEL] == 3);
	assert_true(a.pruned[TOPO_R_BLACK_HOLE] == 4);
	assert_int_equal(topo_enumerate_naive(&s, NULL, NULL, &b, NULL), 0);
	assert_true(b.pruned[TOPO_R_BLACK_HOLE] == 4 && b.valid == 2);

	topo_space_default(&s);
	s.max_tables = 1;
	assert_int_equal(topo_enumerate(&s, NULL, NULL, &a, NULL), 0);
	assert_int_equal(a.valid, 2 * 2 * 3); /* mask shapes x a x b */
	assert_true(a.pruned[TOPO_R_BLACK_HOLE] == 2 * (3 * 4 - 2 * 3));
	/* one more valid rx template breaks the identity: b = 4 gives 8 valid, 7 black holes
	 * per shape */
	s.templates[s.n_templates] = s.templates[1]; /* decap_vf again, under a new name */
	snprintf(s.templates[s.n_templates].name, sizeof(s.templates[0].name), "decap_vf2");
	s.n_templates++;
	assert_int_equal(topo_enumerate(&s, NULL, NULL, &a, NULL), 0);
	assert_int_equal(a.valid, 2 * 2 * 4);
	assert_true(a.pruned[TOPO_R_BLACK_HOLE] == 2 * (3 * 5 - 2 * 4));
}

static void test_topology_enumerate_stop_and_size(void **state)
{
	static const int t3[] = { T_ENCAP_UP, T_DECAP_VF, T_DECAP_GOTO, T_FWD_VF, T_ENCAP_GOTO };
	struct topo_space s;
	struct topo_enum_stats a, b;
	struct seq q = { 0, 0, &s, 5 }, qn = { 0, 0, &s, 5 };

	(void)state;
	small_space(&s, 3, 1, 1, t3, 5);
	assert_int_equal(topo_enumerate(&s, collect, &q, &a, NULL), 0);
	assert_true(a.stopped);
	assert_true(q.n == 5 && a.valid == 5);
	assert_int_equal(topo_enumerate_naive(&s, collect, &qn, &b, NULL), 0);
	assert_true(b.stopped && qn.n == 5 && qn.hash == q.hash);
	/* count only, NULL stats */
	assert_int_equal(topo_enumerate(&s, NULL, NULL, NULL, NULL), 0);

	/* brute-force size by hand: per table choices = subsets * options^2, options = 1 +
	 * non-goto templates + t * goto templates (2 goto templates here) */
	double c1 = 1 * pow(1 + 3 + 1 * 2, 2), c2 = pow(1 + 3 + 2 * 2, 2),
	       c3 = pow(1 + 3 + 3 * 2, 2);
	assert_true(fabs(topo_space_log10_size(&s) - log10(c1 + c2 * c2 + c3 * c3 * c3)) < 1e-12);
	s.max_tables = 8;
	s.n_shapes = 1;
	assert_true(topo_space_log10_size(&s) > 8 * log10(pow(1 + 3 + 8 * 2, 2)) - 1e-9);
}

static void test_topology_flow_paths(void **state)
{
	struct topo_space s;
	struct topo_enum_stats a;

	(void)state;
	topo_space_default(&s);
	s.max_tables = 1;
	s.subnets = 4;
	s.containers = 8;
	assert_int_equal(topo_enumerate(&s, NULL, NULL, &a, NULL), 0);
	assert_true(a.flow_paths_valid == 4.0 * 8 * 8);
	assert_true(fabs(a.log10_flow_paths_unconstrained - 32 * log10(33.0)) < 1e-9);
	s.subnets = 100;
	s.containers = 100;
	assert_int_equal(topo_enumerate(&s, NULL, NULL, &a, NULL), 0);
	assert_true(a.flow_paths_valid == 1e6);
	assert_true(fabs(a.log10_flow_paths_unconstrained - 1e4 * log10(10001.0)) < 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topology_model_reasons),
		cmocka_unit_test(test_topology_model_canonical_order),
		cmocka_unit_test(test_topology_model_format),
		cmocka_unit_test(test_topology_space_validate),
		cmocka_unit_test(test_topology_enumerate_matches_naive),
		cmocka_unit_test(test_topology_enumerate_default_space),
		cmocka_unit_test(test_topology_enumerate_counts_by_hand),
		cmocka_unit_test(test_topology_enumerate_stop_and_size),
		cmocka_unit_test(test_topology_flow_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
