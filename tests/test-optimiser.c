/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of libscalacn-opt's table against references: classification against a
 * linear-scan reference classifier (random seeded rule sets with overlapping rules of
 * different masks and priorities, before and after plans, churn and idle mask removal);
 * white box, the incremental precedence pair counts, anchor and anchored masks against an
 * all-pairs recomputation. Hyper admission and LRU are in test-opt-hyper.c; mask order,
 * priorities, the update budget, idle masks and rendering in test-opt-plan.c; model files
 * and the number-array parser in test-opt-model.c.
 * SCN_OPT_SEEDS (a number) widens the seeded reference tests for local soak runs.
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
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "optimiser/opt_priv.h" /* white box: the incremental pair counts */
#include "optimiser/scalacn-opt.h"
#include "tests/opt-test-rng.h"
#include "tests/opt-test-util.h"

/* ---- Helpers --------------------------------------------------------------------------- */

static bool ref_match(const struct opt_rule *r, const struct opt_pkt *p)
{
	for (int f = 0; f < OPT_F_COUNT; f++) {
		uint64_t w = 0;

		if (!(r->mask.fields & (1u << f)))
			continue;
		if (!opt_field_is_ip((enum opt_field)f))
			w = ~0ULL;
		else
			w = (0xffffffffULL << (32 - r->mask.plen[f])) & 0xffffffffULL;
		if ((p->v[f] & w) != (r->v[f] & w))
			return false;
	}
	return true;
}

/* The reference: the preferred (lowest priority, then lowest id) matching rule, 0 = none. */
static uint32_t ref_classify(const struct opt_rule *rules, size_t n, const bool *live,
			     const struct opt_pkt *p)
{
	const struct opt_rule *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (live[i] && ref_match(&rules[i], p) &&
		    (!best || rules[i].priority < best->priority ||
		     (rules[i].priority == best->priority && rules[i].id < best->id)))
			best = &rules[i];
	return best ? best->id : 0;
}

/* Seeds for the randomised tests: DEFAULT, or SCN_OPT_SEEDS when set (local soak runs). */
static uint64_t n_seeds(uint64_t dflt)
{
	const char *e = getenv("SCN_OPT_SEEDS");
	unsigned long long n = e ? strtoull(e, NULL, 10) : 0;

	return n ? n : dflt;
}

/* ---- Classification against the reference ---------------------------------------------- */

#define NSHAPES 7
static const uint32_t shape_fields[NSHAPES] = {
	OPT_F_ALL,
	(1u << OPT_F_IP_DST),
	(1u << OPT_F_IP_DST) | (1u << OPT_F_IP_PROTO),
	(1u << OPT_F_IP_SRC) | (1u << OPT_F_L4_DST),
	(1u << OPT_F_TUN_ID) | (1u << OPT_F_IP_DST),
	(1u << OPT_F_IP_SRC) | (1u << OPT_F_IP_DST) | (1u << OPT_F_L4_SRC),
	(1u << OPT_F_IN_PORT),
};

static void random_rule(uint64_t *s, uint32_t id, struct opt_rule *r)
{
	int shape = (int)rng_below(s, NSHAPES);

	memset(r, 0, sizeof(*r));
	r->id = id;
	r->priority = shape == 0 ? rng_below(s, 8) : rng_below(s, 50);
	r->action = id * 7u;
	r->mask.fields = shape_fields[shape];
	for (int f = 0; f < OPT_F_COUNT; f++) {
		r->v[f] = field_value(s, f);
		if (opt_field_is_ip((enum opt_field)f))
			r->mask.plen[f] = shape == 0 ? 32 : (shape == 1 ? 24 : 32);
	}
}

static void check_against_reference(struct opt_table *t, uint64_t *s,
				    const struct opt_rule *rules, size_t n, const bool *live)
{
	for (int i = 0; i < 1500; i++) {
		struct opt_pkt p;
		uint32_t got = 0, probes = 0, want;
		int rc;

		if (i % 3 == 0) { /* packets equal to a rule's values hit it or a preferred one */
			size_t k = rng_below(s, (uint32_t)n);

			random_pkt(s, &p);
			for (int f = 0; f < OPT_F_COUNT; f++)
				if (rules[k].mask.fields & (1u << f))
					p.v[f] = rules[k].v[f];
		} else {
			random_pkt(s, &p);
		}
		want = ref_classify(rules, n, live, &p);
		rc = opt_table_classify(t, &p, &got, &probes);
		assert_int_equal(rc, want ? 0 : -ENOENT);
		assert_int_equal(got, want);
		assert_true(probes >= 1);
	}
}

/* Mark the rules of every MASK_DELETE op in P as gone from the reference. */
static size_t drop_deleted(const struct opt_plan *p, bool *live)
{
	struct opt_op op;
	size_t n = 0;

	for (size_t i = 0; i < opt_plan_count(p); i++) {
		opt_plan_op(p, i, &op);
		for (uint32_t j = 0; op.kind == OPT_OP_MASK_DELETE && j < op.n_rules; j++, n++)
			live[op.rules[j] - 1] = false;
	}
	return n;
}

static void test_optimiser_classify_matches_reference(void **state)
{
	enum { N = 500 };
	struct opt_rule *rules = calloc(N, sizeof(*rules));
	bool live[N];

	(void)state;
	for (uint64_t seed = 1; seed <= n_seeds(4); seed++) {
		uint64_t s = seed * 1000003u;
		struct opt_table *t = new_table(64, 3, 100000);
		struct opt_table_stats st;
		struct opt_plan *p;
		uint32_t wild_in_hyper = 0;

		for (uint32_t i = 0; i < N; i++) {
			random_rule(&s, i + 1, &rules[i]);
			live[i] = true;
			assert_int_equal(opt_table_add_rule(t, &rules[i], 0), 0);
		}
		check_against_reference(t, &s, rules, N, live);
		for (uint64_t now = 1; now <= 8; now++) {
			/* skewed hits: rule k gets ~ 400 / (rank + 1) packets; one microflow per
			 * rule, a second one for every 10th rule (its copy must die) */
			for (uint32_t k = 0; k < N; k++) {
				struct opt_pkt f = flow_of(&rules[k], now > 4 && k % 10 == 0 ? now : 0);

				if (live[k])
					assert_int_equal(opt_table_record_flow(t, rules[k].id, &f,
						400 / (1 + (k * 7919 + now) % N), now), 0);
			}
			opt_plan_free(tick_apply(t, now));
			check_against_reference(t, &s, rules, N, live);
			/* churn: delete a few, re-add them (new overlaps with hyper copies) */
			for (int c = 0; c < 10; c++) {
				uint32_t k = rng_below(&s, N);

				if (live[k]) {
					assert_int_equal(opt_table_del_rule(t, rules[k].id), 0);
					live[k] = false;
				} else {
					assert_int_equal(opt_table_add_rule(t, &rules[k], now), 0);
					live[k] = true;
				}
			}
			check_against_reference(t, &s, rules, N, live);
		}
		for (uint32_t k = 0; k < N; k++)
			wild_in_hyper += live[k] && opt_table_in_hyper(t, rules[k].id) &&
					 rules[k].mask.fields != OPT_F_ALL;
		assert_true(wild_in_hyper > 0);
		opt_table_stats(t, &st);
		assert_true(st.hyper_entries > 0);
		assert_int_equal(st.masks, NSHAPES);
		/* ten minutes later, only the in_port rules still see traffic */
		for (uint32_t k = 0; k < N; k++)
			if (live[k] && rules[k].mask.fields == 1u << OPT_F_IN_PORT)
				opt_table_record_hits(t, rules[k].id, 1, 700);
		p = tick_apply(t, 700);
		opt_table_stats(t, &st);
		assert_int_equal(drop_deleted(p, live) > 0, st.masks < NSHAPES);
		opt_plan_free(p);
		check_against_reference(t, &s, rules, N, live);
		opt_table_free(t);
	}
	free(rules);
}

/* ---- Incremental precedence against a recomputation --------------------------------- */

static bool rules_overlap(const struct orule *a, const struct orule *b)
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		if ((opt_hdr_get(&a->flow, f) & a->mask->w[f] & b->mask->w[f]) !=
		    (opt_hdr_get(&b->flow, f) & b->mask->w[f] & a->mask->w[f]))
			return false;
	return true;
}

/* Recompute every pair count from scratch (all pairs of rules, no index) and the flags,
 * the anchor (over the masks that ever held OPT_DENSE_RULES), the anchored masks and the
 * anchor hash's contents, and compare them with the table's state. */
static void check_pairs_from_scratch(struct opt_table *t)
{
	uint32_t sc = t->slot_cap;
	uint64_t *want = calloc((size_t)sc * sc + 1, sizeof(*want)), anchor[OPT_F_COUNT];
	size_t n_anchored = 0;

	assert_non_null(want);
	memset(anchor, 0xff, sizeof(anchor));
	for (uint32_t i = 0; i < t->n_masks; i++)
		for (int f = 0; t->order[i]->dense && f < OPT_F_COUNT; f++)
			anchor[f] &= t->order[i]->w[f];
	assert_memory_equal(anchor, t->anchor, sizeof(anchor));
	assert_true(t->by_anchor.n_buckets >= t->by_id.n);
	for (uint32_t i = 0; i < t->n_masks; i++) {
		const struct omask *x = t->order[i];
		bool anchored = true;

		for (int f = 0; f < OPT_F_COUNT; f++)
			anchored = anchored && (x->w[f] & anchor[f]) == anchor[f];
		assert_int_equal(x->anchored, anchored);
		assert_true(!x->dense || anchored);
		for (uint32_t k = 0; k < x->n_rules; k++) {
			const struct orule *a = x->rules[k], *c;
			bool in_chain = false;

			n_anchored += anchored;
			c = t->by_anchor.n_buckets ? t->by_anchor.b[opt_anchor_bucket(t, a)] : NULL;
			for (; c; c = c->an_next)
				in_chain = in_chain || c == a;
			assert_int_equal(in_chain, anchored);
			for (uint32_t j = 0; j < t->n_masks; j++) {
				const struct omask *y = t->order[j];

				for (uint32_t l = 0; x != y && l < y->n_rules; l++)
					if (rules_overlap(a, y->rules[l]) &&
					    opt_rule_less(a, y->rules[l]))
						want[(size_t)x->slot * sc + y->slot]++;
			}
		}
	}
	assert_int_equal(t->by_anchor.n, n_anchored);
	for (size_t i = 0; t->n_masks && i < (size_t)sc * sc; i++)
		assert_int_equal(t->pairs[i], want[i]);
	opt_refresh_precedence(t);
	for (uint32_t i = 0; i < t->n_masks; i++) {
		bool flag = false;

		for (uint32_t j = i + 1; j < t->n_masks; j++)
			flag = flag || want[(size_t)t->order[j]->slot * sc + t->order[i]->slot];
		assert_int_equal(t->order[i]->flagged, flag);
	}
	free(want);
}

/* Rule shapes: "anchored" ones all match in_port and a prefix of ip_dst (of varied lengths),
 * so they share a non-empty anchor; "wild" ones (ip_dst only, ip_src + ip_dst, tun_id only,
 * catch-all) shrink the anchor to nothing while their masks live. */
static const uint32_t anchored_shapes[3] = {
	OPT_F_ALL,
	1u << OPT_F_IP_DST | 1u << OPT_F_IN_PORT,
	1u << OPT_F_IP_DST | 1u << OPT_F_L4_DST | 1u << OPT_F_IN_PORT,
};
static const uint32_t wild_shapes[4] = {
	1u << OPT_F_IP_DST, 1u << OPT_F_IP_SRC | 1u << OPT_F_IP_DST, 1u << OPT_F_TUN_ID, 0,
};

static bool is_wild(const struct opt_rule *r)
{
	return !(r->mask.fields & (1u << OPT_F_IN_PORT));
}

static void shaped_rule(uint64_t *s, uint32_t id, struct opt_rule *r)
{
	static const uint8_t plens[] = { 8, 16, 24, 32 };
	uint32_t k = rng_below(s, 7);

	memset(r, 0, sizeof(*r));
	r->id = id;
	r->priority = rng_below(s, 6);
	r->action = id;
	r->mask.fields = k < 3 ? anchored_shapes[k] : wild_shapes[k - 3];
	for (int f = 0; f < OPT_F_COUNT; f++) {
		r->v[f] = field_value(s, f);
		if (opt_field_is_ip((enum opt_field)f))
			r->mask.plen[f] = r->mask.fields == OPT_F_ALL ? 32 : plens[rng_below(s, 4)];
	}
}

/* Toggle random rules (wild ones only when WILD); compare with a recomputation often. */
static size_t churn_and_check(struct opt_table *t, uint64_t *s, const struct opt_rule *rules,
			      bool *live, uint32_t n, bool wild, uint64_t now)
{
	size_t checks = 0;

	for (int op = 0; op < 400; op++) {
		uint32_t k = rng_below(s, n);

		if (is_wild(&rules[k]) && !wild)
			continue;
		if (live[k])
			assert_int_equal(opt_table_del_rule(t, rules[k].id), 0);
		else
			assert_int_equal(opt_table_add_rule(t, &rules[k], now), 0);
		live[k] = !live[k];
		if (op % 97 == 0) {
			check_pairs_from_scratch(t);
			checks++;
		}
	}
	check_pairs_from_scratch(t);
	return checks + 1;
}

/* Rounds 0-1 anchored rules and one catch-all default rule (a sparse unanchored mask), 2-3
 * every shape (coarse masks turn dense), 4-5 the wild rules deleted and their idle masks
 * removed by a plan: the anchor shrinks and grows back, masks are reordered. */
static void test_optimiser_pair_counts_match_recomputation(void **state)
{
	enum { N = 300 };
	struct opt_rule *rules = calloc(N, sizeof(*rules));
	bool live[N];
	size_t checks = 0, masks_removed = 0;

	(void)state;
	assert_non_null(rules);
	for (uint64_t seed = 1; seed <= n_seeds(3); seed++) {
		uint64_t s = seed * 7777777u, now = 0;
		struct opt_table *t = new_table(16, 2, 100000);

		for (uint32_t i = 0; i < N; i++) {
			shaped_rule(&s, i + 1, &rules[i]);
			live[i] = false;
		}
		memset(&rules[N - 1].mask, 0, sizeof(rules[N - 1].mask)); /* a default rule */
		assert_int_equal(opt_table_add_rule(t, &rules[N - 1], now), 0);
		live[N - 1] = true;
		for (int round = 0; round < 6; round++) {
			struct opt_table_stats before, after;
			struct opt_plan *p;

			for (uint32_t k = 0; round == 4 && k < N; k++)
				if (live[k] && is_wild(&rules[k])) {
					assert_int_equal(opt_table_del_rule(t, rules[k].id), 0);
					live[k] = false;
				}
			checks += churn_and_check(t, &s, rules, live, N, round == 2 || round == 3,
						  now);
			if (round < 2) /* dense masks share in_port and a prefix of ip_dst; the
					* sparse catch-all is scanned */
				assert_true(t->anchor[OPT_F_IN_PORT] == ~0ULL &&
					    t->anchor[OPT_F_IP_DST] >= 0xff000000u &&
					    opt_table_classify(t, &(struct opt_pkt){ { 0 } }, NULL,
							       NULL) == 0);
			if (round == 2 || round == 3)
				assert_true(t->anchor[OPT_F_IN_PORT] == 0 &&
					    t->anchor[OPT_F_IP_DST] == 0);
			now += 700; /* a third of the rules and the default stay busy, idle masks go */
			for (uint32_t k = 0; k < N; k++)
				if (live[k] && ((k + (uint32_t)round) % 3 == 0 || k == N - 1))
					opt_table_record_hits(t, rules[k].id, 5, now - 1);
			opt_table_stats(t, &before);
			p = tick_apply(t, now);
			drop_deleted(p, live); /* idle masks leave with their rules */
			opt_plan_free(p);
			opt_table_stats(t, &after);
			masks_removed += before.masks > after.masks;
			check_pairs_from_scratch(t);
			checks++;
			if (round >= 4) /* no wild mask left: the anchor grew back */
				assert_true(t->anchor[OPT_F_IN_PORT] == ~0ULL);
		}
		opt_table_free(t);
	}
	assert_true(checks >= 3 * 6 * 2);
	assert_true(masks_removed > 0);
	free(rules);
}

/* ---- Header values as stored (56 bytes a rule) ---------------------------------------- */

/* A MAC keeps all 48 bits; a value wider than its field is refused, by add_rule and by
 * record_flow, and a packet carrying one matches no rule that matches that field. */
static void test_optimiser_header_widths(void **state)
{
	struct opt_table *t = new_table(16, 2, 100000);
	struct opt_rule r = exact_rule(1, 0, 100), wide = exact_rule(2, 0, 200);
	struct opt_rule port = { .id = 3, .priority = 0, .action = 3 };
	struct opt_pkt p, got;
	uint32_t id = 0;

	(void)state;
	r.v[OPT_F_ETH_SRC] = 0xfedcba987654ULL;
	r.v[OPT_F_ETH_DST] = 0xffffffffffffULL;
	assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	p = pkt_of(&r);
	assert_int_equal(opt_table_classify(t, &p, &id, NULL), 0);
	assert_int_equal(id, 1);
	assert_int_equal(opt_table_get_flow(t, 1, &got), 0);
	assert_memory_equal(got.v, r.v, sizeof(got.v));
	wide.v[OPT_F_ETH_SRC] = 1ULL << 48;
	assert_int_equal(opt_table_add_rule(t, &wide, 0), -EINVAL);
	wide = exact_rule(2, 0, 200);
	wide.v[OPT_F_TUN_ID] = 1ULL << 32;
	assert_int_equal(opt_table_add_rule(t, &wide, 0), -EINVAL);
	/* in_port only: the other fields are not matched, so any value there is no error */
	port.mask.fields = 1u << OPT_F_IN_PORT;
	port.v[OPT_F_IN_PORT] = 7;
	port.v[OPT_F_L4_DST] = 1ULL << 40;
	assert_int_equal(opt_table_add_rule(t, &port, 0), 0);
	memset(&p, 0, sizeof(p));
	p.v[OPT_F_IN_PORT] = 7;
	assert_int_equal(opt_table_record_flow(t, 3, &p, 5, 1), 0);
	p.v[OPT_F_L4_DST] = 1ULL << 40; /* matches, but no rule can hold the header */
	assert_int_equal(opt_table_record_flow(t, 3, &p, 5, 1), -EINVAL);
	p.v[OPT_F_L4_DST] = 0;
	p.v[OPT_F_IN_PORT] = 7 | (1ULL << 32); /* the same low 32 bits: not port 7 */
	assert_int_equal(opt_table_classify(t, &p, &id, NULL), -ENOENT);
	opt_table_free(t);
}

/* A pair count that reaches its ceiling stays there (the precedence edge is kept) instead of
 * wrapping, and deleting rules never takes it below. */
static void test_optimiser_pair_count_saturates(void **state)
{
	struct opt_table *t = new_table(16, 2, 100000);
	struct opt_rule a = { .id = 1, .priority = 0, .action = 1 };
	struct opt_rule b = a, c = a;
	uint32_t *cnt;

	(void)state;
	a.mask.fields = 1u << OPT_F_IN_PORT;       /* in_port 1, preferred */
	a.v[OPT_F_IN_PORT] = 1;
	b.mask.fields = 1u << OPT_F_L4_DST;        /* overlaps a: in_port 1, l4_dst 80 */
	b.v[OPT_F_L4_DST] = 80;
	b.id = 2;
	b.priority = 1;
	c = b;
	c.id = 3;
	c.v[OPT_F_L4_DST] = 443;
	assert_int_equal(opt_table_add_rule(t, &a, 0), 0);
	assert_int_equal(opt_table_add_rule(t, &b, 0), 0);
	cnt = &t->pairs[(size_t)opt_find_rule(t, 1)->mask->slot * t->slot_cap +
			opt_find_rule(t, 2)->mask->slot];
	assert_int_equal(*cnt, 1);
	*cnt = OPT_PAIRS_SAT - 1; /* as if 4 billion overlapping pairs were counted */
	assert_int_equal(opt_table_add_rule(t, &c, 0), 0);
	assert_true(*cnt == OPT_PAIRS_SAT);
	assert_int_equal(opt_table_del_rule(t, 3), 0);
	assert_int_equal(opt_table_del_rule(t, 2), 0);
	assert_true(*cnt == OPT_PAIRS_SAT);
	opt_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_optimiser_classify_matches_reference),
		cmocka_unit_test(test_optimiser_pair_counts_match_recomputation),
		cmocka_unit_test(test_optimiser_header_widths),
		cmocka_unit_test(test_optimiser_pair_count_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
