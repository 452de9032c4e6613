/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of libscalacn-opt's table: against a linear-scan reference classifier (random
 * seeded rule sets with overlapping rules of different masks and priorities, before and
 * after plans), hyper admission and LRU, idle mask removal, the update budget, priorities,
 * rendering; white box, the incremental precedence pair counts against an all-pairs
 * recomputation. Model files and the number-array parser are in test-opt-model.c.
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

static struct opt_table *new_table(uint32_t cap, uint64_t admit, uint32_t budget)
{
	struct opt_config c;
	struct opt_table *t = NULL;

	opt_config_default(&c);
	c.hyper_capacity = cap;
	c.admission_hits = admit;
	c.update_budget = budget;
	c.always_optimise = true;
	assert_int_equal(opt_table_new(&c, &t), 0);
	return t;
}

static struct opt_plan *tick_apply(struct opt_table *t, uint64_t now)
{
	struct opt_plan *p = NULL;

	assert_int_equal(opt_table_tick(t, now, NULL, &p), 0);
	assert_non_null(p);
	assert_int_equal(opt_plan_apply(t, p), 0);
	return p;
}

static struct opt_rule exact_rule(uint32_t id, uint32_t prio, uint64_t key)
{
	struct opt_rule r = { .id = id, .priority = prio, .action = id };

	opt_mask_full(&r.mask);
	for (int f = 0; f < OPT_F_COUNT; f++)
		r.v[f] = key + (uint64_t)f;
	return r;
}

static struct opt_pkt pkt_of(const struct opt_rule *r)
{
	struct opt_pkt p;

	memcpy(p.v, r->v, sizeof(p.v));
	return p;
}

static size_t count_ops(const struct opt_plan *p, enum opt_op_kind k)
{
	struct opt_op op;
	size_t n = 0;

	for (size_t i = 0; i < opt_plan_count(p); i++) {
		assert_int_equal(opt_plan_op(p, i, &op), 0);
		n += op.kind == k;
	}
	return n;
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

/* Small value domains so that rules of different masks overlap often. */
static uint64_t field_value(uint64_t *s, int f)
{
	if (opt_field_is_ip((enum opt_field)f))
		return 0x0a000000ULL | (rng_below(s, 3) << 8) | rng_below(s, 3);
	return rng_below(s, 3);
}

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

static void random_pkt(uint64_t *s, struct opt_pkt *p)
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		p->v[f] = field_value(s, f);
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

/* A microflow of rule R: its values where it matches, seeded values elsewhere. */
static struct opt_pkt flow_of(const struct opt_rule *r, uint64_t salt)
{
	struct opt_pkt p;
	uint64_t s = r->id * 7919u + salt;

	random_pkt(&s, &p);
	for (int f = 0; f < OPT_F_COUNT; f++)
		if (r->mask.fields & (1u << f))
			p.v[f] = r->v[f];
	return p;
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
		if ((a->flow[f] & a->mask->w[f] & b->mask->w[f]) !=
		    (b->flow[f] & b->mask->w[f] & a->mask->w[f]))
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

static void test_optimiser_priority_across_masks(void **state)
{
	struct opt_table *t = new_table(0, 1, 1000);
	struct opt_rule wide = { .id = 1, .priority = 10 }, exact = exact_rule(2, 5, 100);
	struct opt_table_stats st;
	struct opt_pkt p = pkt_of(&exact);
	uint32_t id, probes, order[2];

	(void)state;
	wide.mask.fields = 1u << OPT_F_IP_DST;
	wide.mask.plen[OPT_F_IP_DST] = 24;
	wide.v[OPT_F_IP_DST] = exact.v[OPT_F_IP_DST] & 0xffffff00u;
	assert_int_equal(opt_table_add_rule(t, &wide, 0), 0);
	assert_int_equal(opt_table_add_rule(t, &exact, 0), 0);
	/* static order puts the wide mask first: verification keeps the preferred rule */
	assert_int_equal(opt_table_classify(t, &p, &id, &probes), 0);
	assert_int_equal(id, 2);
	assert_int_equal(probes, 2);
	opt_table_stats(t, &st);
	assert_int_equal(st.flagged_masks, 1);
	/* the wide mask is far hotter, yet the plan must keep the exact mask in front */
	opt_table_record_hits(t, 1, 100000, 1);
	opt_plan_free(tick_apply(t, 1));
	assert_int_equal(opt_table_mask_order(t, order, 2), 2);
	assert_int_equal(order[0], 2);
	opt_table_stats(t, &st);
	assert_int_equal(st.flagged_masks, 0);
	assert_int_equal(opt_table_classify(t, &p, &id, &probes), 0);
	assert_int_equal(id, 2);
	assert_int_equal(probes, 1);
	opt_table_free(t);
}

static void test_optimiser_reorders_by_locality(void **state)
{
	struct opt_table *t = new_table(0, 1, 100000);
	uint32_t order[4], probes, id;
	struct opt_pkt p = { { 0 } };

	(void)state;
	for (uint32_t i = 0; i < 4; i++) { /* four disjoint masks: in_port i + field i */
		struct opt_rule r = { .id = i + 1, .priority = 1 };

		r.mask.fields = 1u << OPT_F_IN_PORT | 1u << (OPT_F_IP_PROTO + i);
		r.v[OPT_F_IN_PORT] = i;
		r.v[OPT_F_IP_PROTO + i] = 7;
		assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	}
	opt_table_record_hits(t, 4, 1000, 1);
	opt_table_record_hits(t, 3, 100, 1);
	opt_plan_free(tick_apply(t, 1));
	assert_int_equal(opt_table_mask_order(t, order, 4), 4);
	assert_int_equal(order[0], 4);
	assert_int_equal(order[1], 3);
	p.v[OPT_F_IN_PORT] = 3;
	p.v[OPT_F_TUN_ID] = 7; /* field IP_PROTO + 3 */
	assert_int_equal(opt_table_classify(t, &p, &id, &probes), 0);
	assert_int_equal(id, 4);
	assert_int_equal(probes, 1);
	opt_table_free(t);
}

/* ---- Hyper mask ------------------------------------------------------------------------ */

static void test_optimiser_hyper_admission_blocks_one_hit_flows(void **state)
{
	struct opt_table *t = new_table(8, 10, 100000);
	struct opt_table_stats st;
	struct opt_plan *p;

	(void)state;
	for (uint32_t i = 1; i <= 200; i++) {
		struct opt_rule r = exact_rule(i, 1, i * 100);

		assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	}
	for (uint64_t now = 1; now <= 30; now++) { /* churn: each flow is seen once */
		for (uint32_t i = 1; i <= 200; i++)
			if (i % 30 == now % 30)
				opt_table_record_hits(t, i, 1, now);
		p = tick_apply(t, now);
		assert_int_equal(count_ops(p, OPT_OP_HYPER_ADD), 0);
		opt_plan_free(p);
	}
	opt_table_stats(t, &st);
	assert_int_equal(st.hyper_entries, 0);
	opt_table_record_hits(t, 77, 10, 31);
	p = tick_apply(t, 31);
	assert_int_equal(count_ops(p, OPT_OP_HYPER_ADD), 1);
	assert_true(opt_table_in_hyper(t, 77));
	opt_plan_free(p);
	opt_table_free(t);
}

static void test_optimiser_hyper_lru_eviction_order(void **state)
{
	struct opt_table *t = new_table(3, 5, 100000);
	struct opt_plan *p;
	struct opt_op op;
	uint32_t want[][2] = { { OPT_OP_HYPER_EVICT, 2 }, { OPT_OP_HYPER_ADD, 4 },
			       { OPT_OP_HYPER_EVICT, 3 }, { OPT_OP_HYPER_ADD, 5 } };
	uint32_t id, probes;
	struct opt_rule r5 = exact_rule(5, 1, 500);
	struct opt_pkt pk = pkt_of(&r5);

	(void)state;
	for (uint32_t i = 1; i <= 5; i++) {
		struct opt_rule r = exact_rule(i, 1, i * 100);

		assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	}
	for (uint32_t i = 1; i <= 3; i++)
		opt_table_record_hits(t, i, 10, i);
	p = tick_apply(t, 4);
	assert_int_equal(count_ops(p, OPT_OP_HYPER_ADD), 3);
	opt_plan_free(p);
	opt_table_record_hits(t, 1, 1, 9); /* rule 1 becomes the most recently used */
	opt_table_record_hits(t, 4, 50, 10);
	opt_table_record_hits(t, 5, 40, 10);
	p = tick_apply(t, 10);
	assert_int_equal(opt_plan_count(p), 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(opt_plan_op(p, i, &op), 0);
		assert_int_equal(op.kind, want[i][0]);
		assert_int_equal(op.rules[0], want[i][1]);
	}
	opt_plan_free(p);
	assert_true(opt_table_in_hyper(t, 1));
	assert_false(opt_table_in_hyper(t, 2));
	assert_int_equal(opt_table_classify(t, &pk, &id, &probes), 0);
	assert_int_equal(id, 5);
	assert_int_equal(probes, 1);
	/* rule 6 (11 hits) is colder than every resident: no thrash */
	{
		struct opt_rule r6 = exact_rule(6, 1, 600);

		assert_int_equal(opt_table_add_rule(t, &r6, 10), 0);
		opt_table_record_hits(t, 6, 11, 11);
		p = tick_apply(t, 11);
		assert_int_equal(count_ops(p, OPT_OP_HYPER_ADD), 0);
		assert_int_equal(count_ops(p, OPT_OP_HYPER_EVICT), 0);
		opt_plan_free(p);
	}
	opt_table_free(t);
}

static void test_optimiser_hyper_copy_dies_when_preferred_rule_added(void **state)
{
	struct opt_table *t = new_table(4, 1, 100000);
	struct opt_rule r = exact_rule(1, 50, 100), w = { .id = 2, .priority = 1 };
	struct opt_pkt p = pkt_of(&r);
	struct opt_plan *pl;
	uint32_t id;

	(void)state;
	assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	opt_table_record_hits(t, 1, 5, 1);
	opt_plan_free(tick_apply(t, 1));
	assert_true(opt_table_in_hyper(t, 1));
	w.mask.fields = 1u << OPT_F_IN_PORT;
	w.v[OPT_F_IN_PORT] = r.v[OPT_F_IN_PORT];
	assert_int_equal(opt_table_add_rule(t, &w, 2), 0);
	assert_int_equal(opt_table_classify(t, &p, &id, NULL), 0);
	assert_int_equal(id, 2);
	pl = tick_apply(t, 2);
	assert_int_equal(count_ops(pl, OPT_OP_HYPER_EVICT), 1);
	assert_false(opt_table_in_hyper(t, 1));
	opt_plan_free(pl);
	opt_table_free(t);
}

/* ---- Idle masks and the budget --------------------------------------------------------- */

static void test_optimiser_idle_mask_deleted_after_600s(void **state)
{
	struct opt_table *t = new_table(0, 1, 100000);
	struct opt_rule a = { .id = 1, .priority = 5 }, b = { .id = 2, .priority = 5 };
	struct opt_rule guard = { .id = 3, .priority = 1 };
	struct opt_table_stats st;
	struct opt_pkt pk = { { 0 } };
	struct opt_plan *p;
	struct opt_op op;
	uint32_t id;

	(void)state;
	a.mask.fields = 1u << OPT_F_L4_DST;
	a.v[OPT_F_L4_DST] = 80;
	b.mask.fields = 1u << OPT_F_L4_SRC;
	b.v[OPT_F_L4_SRC] = 99;
	guard.mask.fields = (1u << OPT_F_L4_SRC) | (1u << OPT_F_IP_PROTO); /* preferred over a */
	guard.v[OPT_F_IP_PROTO] = 6;
	assert_int_equal(opt_table_add_rule(t, &a, 0), 0);
	assert_int_equal(opt_table_add_rule(t, &b, 0), 0);
	assert_int_equal(opt_table_add_rule(t, &guard, 0), 0);
	for (uint64_t now = 1; now < 600; now += 37) {
		opt_table_record_hits(t, 1, 5, now);
		p = tick_apply(t, now);
		assert_int_equal(count_ops(p, OPT_OP_MASK_DELETE), 0);
		opt_plan_free(p);
	}
	opt_table_record_hits(t, 1, 5, 600);
	p = tick_apply(t, 600);
	assert_int_equal(count_ops(p, OPT_OP_MASK_DELETE), 1);
	for (size_t i = 0; i < opt_plan_count(p); i++) {
		opt_plan_op(p, i, &op);
		if (op.kind == OPT_OP_MASK_DELETE) {
			assert_int_equal(op.n_rules, 1);
			assert_int_equal(op.rules[0], 2);
		}
	}
	opt_plan_free(p);
	opt_table_stats(t, &st);
	assert_int_equal(st.masks, 2); /* the guard's mask stays: it is preferred over a */
	assert_int_equal(st.rules, 2);
	pk.v[OPT_F_L4_SRC] = 99;
	assert_int_equal(opt_table_classify(t, &pk, &id, NULL), -ENOENT);
	opt_table_free(t);
}

static void test_optimiser_update_budget_respected(void **state)
{
	enum { MASKS = 12, PER = 30, BUDGET = 100 };
	struct opt_table *t = new_table(0, 1, BUDGET);
	struct opt_plan_info info;
	uint32_t order[MASKS];
	uint64_t now = 1;
	bool done = false;

	(void)state;
	for (uint32_t m = 0; m < MASKS; m++)
		for (uint32_t k = 0; k < PER; k++) {
			struct opt_rule r = { .id = m * PER + k + 1, .priority = 1 };

			r.mask.fields = 1u << OPT_F_IN_PORT | 1u << OPT_F_L4_DST;
			r.mask.fields |= (m & 1 ? 1u << OPT_F_L4_SRC : 0) |
					 (m & 2 ? 1u << OPT_F_IP_PROTO : 0) |
					 (m & 4 ? 1u << OPT_F_TUN_ID : 0) |
					 (m & 8 ? 1u << OPT_F_ETH_TYPE : 0);
			r.v[OPT_F_IN_PORT] = m;        /* masks never overlap */
			r.v[OPT_F_L4_DST] = k;
			assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
		}
	for (; now < 40 && !done; now++) {
		struct opt_plan *p = NULL;

		for (uint32_t m = 0; m < MASKS; m++) /* the last added mask is the hottest */
			opt_table_record_hits(t, m * PER + 1, (m + 1) * 1000, now);
		uint32_t spent;

		p = tick_apply(t, now);
		opt_plan_info(p, &info);
		spent = info.cost;
		done = opt_plan_count(p) == 0;
		if (now == 1)
			assert_true(info.deferred > 0);
		opt_plan_free(p);
		/* a second tick in the same second shares the same second's budget */
		assert_int_equal(opt_table_tick(t, now, NULL, &p), 0);
		opt_plan_info(p, &info);
		spent += info.cost;
		assert_true(spent <= BUDGET);
		opt_plan_free(p);
	}
	assert_true(done);
	assert_true(now > 4); /* 11 moves of 30 updates at 100/s take several seconds */
	assert_int_equal(opt_table_mask_order(t, order, MASKS), MASKS);
	for (uint32_t i = 0; i < MASKS; i++) /* mask ids follow creation: hottest last */
		assert_int_equal(order[i], MASKS - i);
	{
		struct opt_pkt pk = { { 0 } };
		struct opt_rule r;
		uint32_t id, probes;

		assert_int_equal(opt_table_get_rule(t, (MASKS - 1) * PER + 1, &r, NULL), 0);
		memcpy(pk.v, r.v, sizeof(pk.v));
		assert_int_equal(opt_table_classify(t, &pk, &id, &probes), 0);
		assert_int_equal(probes, 1);
	}
	opt_table_free(t);
}

static void test_optimiser_record_flow_wildcard_rule(void **state)
{
	struct opt_table *t = new_table(4, 5, 100000);
	struct opt_rule r = { .id = 1, .priority = 1 };
	struct opt_pkt f, g, got;
	struct opt_plan *p;
	uint32_t id, probes;

	(void)state;
	r.mask.fields = 1u << OPT_F_IP_DST;
	r.mask.plen[OPT_F_IP_DST] = 16;
	r.v[OPT_F_IP_DST] = 0x0a0b0000;
	assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	f = flow_of(&r, 1);
	f.v[OPT_F_IP_DST] = 0x0a0b0c0d;
	g = f;
	g.v[OPT_F_IP_DST] = 0x0b000000;
	assert_int_equal(opt_table_record_flow(t, 1, &g, 10, 1), -EINVAL); /* not its packet */
	assert_int_equal(opt_table_get_flow(t, 1, &got), -ENODATA);
	assert_int_equal(opt_table_record_flow(t, 1, &f, 10, 1), 0);
	assert_int_equal(opt_table_get_flow(t, 1, &got), 0);
	assert_memory_equal(got.v, f.v, sizeof(f.v));
	opt_plan_free(tick_apply(t, 1));
	assert_true(opt_table_in_hyper(t, 1));
	assert_int_equal(opt_table_classify(t, &f, &id, &probes), 0);
	assert_int_equal(probes, 1);
	g = f;
	g.v[OPT_F_L4_SRC] ^= 1; /* same rule, another microflow: the copy would miss it */
	assert_int_equal(opt_table_record_flow(t, 1, &g, 10, 2), 0);
	assert_int_equal(opt_table_classify(t, &f, &id, &probes), 0);
	assert_int_equal(id, 1);
	assert_int_equal(probes, 2); /* the dead copy is skipped */
	p = tick_apply(t, 2);
	assert_int_equal(count_ops(p, OPT_OP_HYPER_EVICT), 1);
	assert_int_equal(count_ops(p, OPT_OP_HYPER_ADD), 0);
	opt_plan_free(p);
	assert_false(opt_table_in_hyper(t, 1));
	opt_table_free(t);
}

/* Thousands of reorders must keep prios unique and increasing (asserted in apply), never
 * run out of prio space, and always end with the hottest mask first. */
static void test_optimiser_prio_space_survives_churn(void **state)
{
	enum { MASKS = 16 };
	struct opt_config c;
	struct opt_table *t = NULL;
	uint64_t s = 99;
	uint16_t prio, max_prio = 0;
	uint32_t order[MASKS];

	(void)state;
	opt_config_default(&c);
	c.always_optimise = true;
	c.window_s = 1;
	c.update_budget = 1000000;
	assert_int_equal(opt_table_new(&c, &t), 0);
	for (uint32_t m = 0; m < MASKS; m++) {
		struct opt_rule r = { .id = m + 1, .priority = 1 };

		r.mask.fields = 1u << OPT_F_IN_PORT | 1u << (OPT_F_ETH_SRC + m % 12) |
				(m >= 12 ? 1u << OPT_F_TUN_DPORT : 0);
		r.mask.plen[OPT_F_ETH_SRC + m % 12] = 32;
		r.v[OPT_F_IN_PORT] = m;
		assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	}
	for (uint64_t now = 1; now <= 3000; now++) {
		uint32_t hot = rng_below(&s, MASKS);

		for (uint32_t m = 0; m < MASKS; m++)
			opt_table_record_hits(t, m + 1, m == hot ? 1000000 : rng_below(&s, 1000), now);
		opt_plan_free(tick_apply(t, now));
		assert_int_equal(opt_table_mask_order(t, order, MASKS), MASKS);
		assert_int_equal(order[0], hot + 1);
		for (uint32_t m = 0; m < MASKS; m++) {
			assert_int_equal(opt_table_mask_info(t, order[m], NULL, &prio, NULL), 0);
			if (prio > max_prio)
				max_prio = prio;
		}
	}
	assert_true(max_prio > 1);
	opt_table_free(t);
}

/* Appending ~1000 masks walks to the end of the 16-bit prio space: the next tick re-spreads
 * every prio (in one go, order unchanged) even when no optimisation is wanted. */
static void test_optimiser_prio_compaction(void **state)
{
	static const enum opt_field nonip[9] = { OPT_F_IN_PORT, OPT_F_ETH_SRC, OPT_F_ETH_DST,
		OPT_F_ETH_TYPE, OPT_F_IP_PROTO, OPT_F_L4_SRC, OPT_F_L4_DST, OPT_F_TUN_ID,
		OPT_F_TUN_DPORT };
	enum { N = 1010 };
	struct opt_table *t = NULL;
	struct opt_plan *p = NULL;
	uint32_t *before = calloc(N, sizeof(*before)), *after = calloc(N + 1, sizeof(*after));
	uint16_t prio;
	uint32_t id;

	(void)state;
	assert_int_equal(opt_table_new(NULL, &t), 0);
	for (uint32_t k = 0; k <= N; k++) {
		struct opt_rule r = { .id = k + 1, .priority = 1 };
		uint32_t pat = k % 511 + 1;
		int rc;

		r.mask.fields = 1u << OPT_F_IP_DST | 1u << OPT_F_IP_SRC;
		for (int b = 0; b < 9; b++)
			if (pat & (1u << b))
				r.mask.fields |= 1u << nonip[b];
		r.mask.plen[OPT_F_IP_DST] = (uint8_t)(k / 511 + 1);
		r.mask.plen[OPT_F_IP_SRC] = 32;
		r.v[OPT_F_IP_SRC] = k; /* rules never overlap */
		rc = opt_table_add_rule(t, &r, 0);
		if (k < N) {
			assert_int_equal(rc, 0);
			continue;
		}
		assert_int_equal(rc, 0); /* still room: appends halve the last gap */
		assert_int_equal(opt_table_mask_info(t, k + 1, NULL, &prio, NULL), 0);
		assert_true(prio > 65535 - 1024);
	}
	assert_int_equal(opt_table_mask_order(t, before, N), N);
	assert_int_equal(opt_table_tick(t, 1, NULL, &p), 0);
	assert_int_equal(count_ops(p, OPT_OP_REPRIORITISE), N + 1);
	assert_int_equal(opt_plan_apply(t, p), 0);
	opt_plan_free(p);
	assert_int_equal(opt_table_mask_order(t, after, N + 1), N + 1);
	assert_memory_equal(before, after, N * sizeof(*before));
	assert_int_equal(opt_table_mask_info(t, after[N], NULL, &prio, NULL), 0);
	assert_true(prio < 65535 - 16 * 64);
	{
		struct opt_pkt pk = { { 0 } };
		struct opt_rule r;

		assert_int_equal(opt_table_get_rule(t, 777, &r, NULL), 0);
		memcpy(pk.v, r.v, sizeof(pk.v));
		assert_int_equal(opt_table_classify(t, &pk, &id, NULL), 0);
		assert_int_equal(id, 777);
	}
	assert_int_equal(opt_table_tick(t, 2, NULL, &p), 0); /* nothing left to do */
	assert_int_equal(opt_plan_count(p), 0);
	opt_plan_free(p);
	free(before);
	free(after);
	opt_table_free(t);
}

static void test_optimiser_stale_plan_refused(void **state)
{
	struct opt_table *t = new_table(4, 1, 1000);
	struct opt_rule r1 = exact_rule(1, 1, 100), r2 = exact_rule(2, 1, 200);
	struct opt_plan *p = NULL;

	(void)state;
	assert_int_equal(opt_table_add_rule(t, &r1, 0), 0);
	opt_table_record_hits(t, 1, 5, 1);
	assert_int_equal(opt_table_tick(t, 1, NULL, &p), 0);
	assert_int_equal(opt_plan_count(p), 1);
	assert_int_equal(opt_table_add_rule(t, &r2, 1), 0);
	assert_int_equal(opt_plan_apply(t, p), -ESTALE);
	assert_int_equal(opt_plan_render_tc(p, t, "rep0", stdout), -ESTALE);
	opt_plan_free(p);
	assert_int_equal(opt_table_add_rule(t, &r2, 1), -EEXIST);
	r2.id = 0;
	assert_int_equal(opt_table_add_rule(t, &r2, 1), -EINVAL);
	opt_table_free(t);
}

static void test_optimiser_render_tc_and_json(void **state)
{
	struct opt_table *t = new_table(4, 1, 1000);
	struct opt_rule r = { .id = 7, .priority = 1, .action = 0xabc };
	struct opt_rule e = exact_rule(9, 1, 0), r2;
	struct opt_plan *p = NULL;
	char buf[8192] = "";
	FILE *f;

	(void)state;
	r.mask.fields = 1u << OPT_F_IP_DST | 1u << OPT_F_TUN_ID;
	r.mask.plen[OPT_F_IP_DST] = 24;
	r.v[OPT_F_IP_DST] = 0x0a010203;
	r.v[OPT_F_TUN_ID] = 42;
	e.v[OPT_F_ETH_TYPE] = 0x0800;
	e.v[OPT_F_ETH_DST] = 0x0203040506a0ULL;
	assert_int_equal(opt_table_add_rule(t, &e, 0), 0);
	assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	opt_table_record_hits(t, 7, 500, 1);
	opt_table_record_hits(t, 9, 5, 1);
	assert_int_equal(opt_table_tick(t, 1, NULL, &p), 0);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(opt_plan_render_tc(p, t, "rep0", f), 0);
	fclose(f);
	/* the hyper copy of 9 (prio 1); the cold exact mask moves behind the hot one */
	assert_non_null(strstr(buf, "filter add dev rep0 ingress protocol 0x0800 prio 1 chain 0 "
				    "handle 9 flower src_mac 00:00:00:00:00:01 dst_mac "
				    "02:03:04:05:06:a0 src_ip 0.0.0.4/32 dst_ip 0.0.0.5/32 ip_proto 6 "
				    "src_port 7 dst_port 8 enc_key_id 9 enc_src_ip 0.0.0.10/32 "
				    "enc_dst_ip 0.0.0.11/32 enc_dst_port 12 action gact pass cookie "
				    "00000009\n"));
	assert_non_null(strstr(buf, "filter add dev rep0 ingress protocol 0x0800 prio 192 chain 0 "
				    "handle 9 flower src_mac"));
	assert_non_null(strstr(buf, "filter del dev rep0 ingress protocol 0x0800 prio 64 chain 0 "
				    "handle 9 flower\n"));
	assert_int_equal(opt_plan_render_tc(p, t, "bad dev", stdout), -EINVAL);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(opt_plan_render_json(p, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"triggered\":true"));
	assert_non_null(strstr(buf, "{\"op\":\"hyper_add\",\"mask\":0,\"position\":0,\"prio\":1,"
				    "\"old_prio\":1,\"rules\":[9]}"));
	assert_non_null(strstr(buf, "{\"op\":\"mask_move\",\"mask\":1,\"position\":1,"
				    "\"prio\":192,\"old_prio\":64,\"rules\":[9]}"));
	assert_int_equal(opt_plan_apply(t, p), 0);
	opt_plan_free(p);
	/* a wildcarded rule renders with protocol ip, its prefix and the action cookie */
	r2 = r;
	r2.id = 8;
	r2.v[OPT_F_TUN_ID] = 43;
	assert_int_equal(opt_table_add_rule(t, &r2, 2), 0);
	e = exact_rule(10, 1, 1000);
	assert_int_equal(opt_table_add_rule(t, &e, 2), 0);
	opt_table_record_hits(t, 10, 5000, 2); /* the exact mask is hot now: wide moves back */
	assert_int_equal(opt_table_tick(t, 2, NULL, &p), 0);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(opt_plan_render_tc(p, t, "rep0", f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "filter add dev rep0 ingress protocol ip prio 256 chain 0 "
				    "handle 8 flower dst_ip 10.1.2.0/24 enc_key_id 43 action gact "
				    "pass cookie 00000abc\n"));
	assert_non_null(strstr(buf, "filter del dev rep0 ingress protocol ip prio 128 chain 0 "
				    "handle 7 flower\n"));
	assert_int_equal(opt_plan_apply(t, p), 0);
	opt_plan_free(p);
	opt_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_optimiser_classify_matches_reference),
		cmocka_unit_test(test_optimiser_pair_counts_match_recomputation),
		cmocka_unit_test(test_optimiser_priority_across_masks),
		cmocka_unit_test(test_optimiser_reorders_by_locality),
		cmocka_unit_test(test_optimiser_hyper_admission_blocks_one_hit_flows),
		cmocka_unit_test(test_optimiser_hyper_lru_eviction_order),
		cmocka_unit_test(test_optimiser_hyper_copy_dies_when_preferred_rule_added),
		cmocka_unit_test(test_optimiser_idle_mask_deleted_after_600s),
		cmocka_unit_test(test_optimiser_update_budget_respected),
		cmocka_unit_test(test_optimiser_record_flow_wildcard_rule),
		cmocka_unit_test(test_optimiser_prio_space_survives_churn),
		cmocka_unit_test(test_optimiser_prio_compaction),
		cmocka_unit_test(test_optimiser_stale_plan_refused),
		cmocka_unit_test(test_optimiser_render_tc_and_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
