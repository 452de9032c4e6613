/* SPDX-License-Identifier: MIT */
/*
 * Private structures of libscalacn-opt shared by its .c files (never installed).
 * Assumes the single-threaded use described in scalacn-opt.h.
 */
#ifndef OPT_PRIV_H
#define OPT_PRIV_H

#include "optimiser/scalacn-opt.h"

#define OPT_HIDDEN __attribute__((visibility("hidden")))
#define OPT_RING_MAX 16      /* most buckets in a rule's hit window */
#define OPT_HYPER_PRIO 1
#define OPT_PRIO_FIRST 64    /* first cascading prio on a fresh table */
#define OPT_PRIO_GAP 64      /* gap left between appended / renumbered masks */
#define OPT_PRIO_MAX 65535
#define OPT_PRIO_COMPACT_AT (OPT_PRIO_MAX - 16 * OPT_PRIO_GAP) /* re-spread beyond this */
#define OPT_PAIRS_SAT UINT32_MAX /* a pair count this high stays (opt_layout.c count_pair) */
#define OPT_DENSE_RULES 9    /* a mask that reaches this many rules shapes the anchor */

struct omask;

/* A header as a rule stores it (56 bytes instead of 104): each field's low 32 bits, and bits
 * 32..47 of the two MACs; every header stored fits (opt_hdr_fits: a MAC in 48 bits, any other
 * field in 32), so opt_hdr_get gives back the value exactly. */
struct ohdr {
	uint32_t lo[OPT_F_COUNT];
	uint16_t mac_hi[2];     /* OPT_F_ETH_SRC, OPT_F_ETH_DST */
};

/* The largest value field F can hold. */
static inline uint64_t opt_field_max(int f)
{
	return f == OPT_F_ETH_SRC || f == OPT_F_ETH_DST ? 0xffffffffffffULL : 0xffffffffULL;
}

/* Does every value of V fit its field (so a rule can store it)? */
static inline bool opt_hdr_fits(const uint64_t v[OPT_F_COUNT])
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		if (v[f] > opt_field_max(f))
			return false;
	return true;
}

/* Field F of H. */
static inline uint64_t opt_hdr_get(const struct ohdr *h, int f)
{
	uint64_t v = h->lo[f];

	if (f == OPT_F_ETH_SRC)
		v |= (uint64_t)h->mac_hi[0] << 32;
	else if (f == OPT_F_ETH_DST)
		v |= (uint64_t)h->mac_hi[1] << 32;
	return v;
}

/* H := V (V must fit: opt_hdr_fits). */
static inline void opt_hdr_set(struct ohdr *h, const uint64_t v[OPT_F_COUNT])
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		h->lo[f] = (uint32_t)v[f];
	h->mac_hi[0] = (uint16_t)(v[OPT_F_ETH_SRC] >> 32);
	h->mac_hi[1] = (uint16_t)(v[OPT_F_ETH_DST] >> 32);
}

/* V := H, every field. */
static inline void opt_hdr_load(const struct ohdr *h, uint64_t v[OPT_F_COUNT])
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		v[f] = opt_hdr_get(h, f);
}

/* Is H the header V (every field)? */
static inline bool opt_hdr_equal(const struct ohdr *h, const uint64_t v[OPT_F_COUNT])
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		if (opt_hdr_get(h, f) != v[f])
			return false;
	return true;
}

/*
 * A rule as stored. Invariants: win_sum == sum of ring[];
 * ring[b % ring_len] holds the hits of the seconds of bucket b (second s is in bucket
 * s / bucket_s) for the ring_len buckets up to last_sec's;
 * in_hyper implies flow_single and FLOW matches the rule; vec_idx indexes mask->rules;
 * every live rule is in by_id and by_key exactly once, and in by_anchor exactly once iff
 * its mask is anchored.
 */
struct orule {
	/* first 24 bytes: what the tick's pass over every rule reads (one line, mostly) */
	uint32_t id;
	bool in_hyper, flow_single; /* single: every packet recorded had header FLOW */
	bool flow_seen, hyper_dead;
	uint64_t last_sec;      /* second of the newest ring bucket */
	uint64_t win_sum;
	/* up to 64 bytes: what every record reads besides */
	struct orule *id_next;  /* chain in the id hash */
	struct omask *mask;
	uint64_t last_hit;      /* second of the latest non-zero hit (LRU, idle) */
	uint32_t priority, action;
	uint32_t vec_idx;       /* position in mask->rules */
	uint8_t plan_mark;      /* scratch for tick: PLAN_EVICT / PLAN_ADD; 0 between ticks */
	/* the rest */
	struct orule *key_next; /* chain in the (mask, key) hash */
	struct orule *hy_next;  /* chain in the hyper hash */
	struct orule *an_next;  /* chain in the anchor hash (overlap candidates) */
	/* The rule's header: its values on the mask's bits (v = flow & mask->w, opt_rule_v) and,
	 * once seen, the microflow's on the rest (the hyper key); one header for both, since
	 * every flow recorded matches the rule. Read it with opt_hdr_get / opt_hdr_load. */
	struct ohdr flow;
	uint32_t ring[];        /* t->ring_len buckets of t->bucket_s seconds */
};

/*
 * A cascading mask. Invariants: rules[i]->vec_idx == i and rules[i]->mask == this;
 * win_ring advanced to any second T equals the sum of the rings, advanced to T, of its rules
 * not in the hyper mask (win_sum: its sum); while rules[i] is a hyper candidate
 * (opt_hyper_candidate), hot[i] >= its window hits (OPT_HOT_SAT: too many to hold), and
 * hot[i] != 0 only if rules[i] has one microflow;
 * t->order[pos] == this; prios strictly increase along t->order; slot < max_masks indexes
 * the pair-count matrix. dense is sticky: set once n_rules reached OPT_DENSE_RULES;
 * anchored == ((w & t->anchor) == t->anchor), always true for dense masks.
 */
struct omask {
	uint32_t id, slot, pos;
	uint16_t prio;
	uint64_t w[OPT_F_COUNT];
	struct opt_mask shape;
	double specificity;     /* matched bits / all bits, in (0, 1] */
	bool full, flagged;
	bool dense, anchored;
	uint64_t last_hit;      /* latest hit of any rule, or creation time */
	struct orule **rules;
	uint32_t *hot;          /* hot[i]: bound on rules[i]'s window hits as a hyper candidate */
	uint32_t n_rules, cap_rules;
	/* The window hits of the rules outside the hyper mask, kept as counters are fed and rules
	 * change (opt_window.c), so the tick need not visit every rule */
	uint64_t win_last_sec, win_sum;
	uint64_t win_ring[OPT_RING_MAX];
	uint64_t hits;          /* scratch for tick: window hits outside the hyper */
	bool plan_del;          /* scratch for tick: planned for deletion */
};

/* Chained hash of rule pointers. n_buckets is a power of two. */
struct ohash {
	struct orule **b;
	size_t n_buckets, n;
};

/*
 * The table. Invariants: order[0..n_masks) are the live masks, order[i]->pos == i;
 * by_slot[s] is the mask in slot s or NULL; pairs[a*slot_cap + b] counts the overlapping
 * pairs (ra in mask slot a, rb in slot b, some packet matches both) with ra preferred over
 * rb, so a must precede b; it is kept exact on every rule add/delete (opt_layout.c), never
 * recomputed. anchor[f] == AND of w[f] over the dense masks (all ones when none): fields
 * every anchored mask matches, so overlapping rules of anchored masks share their anchor
 * key and by_anchor (hashed on v & anchor, holding exactly the anchored masks' rules) finds
 * them; rules of the few unanchored (sparse, coarse: a catch-all) masks are scanned.
 * by_anchor.n_buckets >= by_id.n (re-bucketing never allocates). flagged is valid unless
 * flags_stale; hyper_n == number of rules with in_hyper.
 */
struct opt_table {
	struct opt_config cfg;
	uint64_t cfg_seed;
	/* The hit window: ring_len buckets of bucket_s seconds (OPT_RING_MAX at most), covering
	 * window_s seconds: per second for windows up to 16 s, else coarser (60 s: 15 of 4 s),
	 * so a rule's window costs at most 64 bytes whatever window_s is. */
	uint32_t bucket_s, ring_len;
	uint32_t slot_cap;      /* by_slot entries; prec is slot_cap x slot_cap */
	struct ohash by_id, by_key, hyper, by_anchor;
	uint64_t anchor[OPT_F_COUNT];
	struct omask **order, **by_slot;
	uint32_t n_masks, next_mask_id;
	uint32_t *pairs;        /* slot_cap x slot_cap overlap counts (OPT_PAIRS_SAT: sticky) */
	uint32_t hyper_n;
	bool flags_stale;       /* a pairs[] entry crossed zero since opt_update_flags */
	uint64_t now;           /* latest time seen */
	uint64_t generation;    /* bumped by every change; plans carry it */
	double tokens;          /* update-budget token bucket */
	uint64_t tokens_sec;
	bool tokens_init;
};

#define PLAN_EVICT 1
#define PLAN_ADD 2

/* A plan: ops[i].rules is left NULL; the rules of op i are rules[rule_off[i] ..). */
struct opt_plan {
	uint64_t generation;
	struct opt_plan_info info;
	struct opt_op *ops;
	size_t *rule_off;
	size_t n_ops, cap_ops;
	uint32_t *rules;
	size_t n_rules, cap_rules;
};

enum hkind { H_ID, H_KEY, H_HYPER, H_ANCHOR };

/* Must mask slot A be probed before mask slot B? */
static inline bool opt_prec(const struct opt_table *t, uint32_t a, uint32_t b)
{
	return t->pairs[(size_t)a * t->slot_cap + b] != 0;
}

/* Rule R's values (its header on its mask's bits) into V. */
static inline void opt_rule_v(const struct orule *r, uint64_t v[OPT_F_COUNT])
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		v[f] = opt_hdr_get(&r->flow, f) & r->mask->w[f];
}

/* Does rule S match header H? */
static inline bool opt_matches(const struct orule *s, const uint64_t *h)
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		if (((h[f] ^ opt_hdr_get(&s->flow, f)) & s->mask->w[f]) != 0)
			return false;
	return true;
}

/* opt_table.c */
OPT_HIDDEN int opt_hash_insert(struct opt_table *t, struct orule *r, enum hkind k);
OPT_HIDDEN void opt_hash_remove(struct opt_table *t, struct orule *r, enum hkind k);
OPT_HIDDEN void opt_hash_rebuild(struct opt_table *t, enum hkind k);
OPT_HIDDEN int opt_hash_reserve(struct opt_table *t, enum hkind k, size_t n);
OPT_HIDDEN size_t opt_anchor_bucket(const struct opt_table *t, const struct orule *r);
OPT_HIDDEN struct orule *opt_key_lookup(const struct opt_table *t, const struct omask *m,
					const uint64_t *k);
OPT_HIDDEN struct orule *opt_hyper_lookup(const struct opt_table *t, const uint64_t *v);
OPT_HIDDEN void opt_mask_words(const struct opt_mask *m, uint64_t w[OPT_F_COUNT]);
OPT_HIDDEN struct orule *opt_find_rule(const struct opt_table *t, uint32_t id);
/* The by_id bucket of ID (by_id.n_buckets must be > 0). */
OPT_HIDDEN struct orule *const *opt_id_bucket(const struct opt_table *t, uint32_t id);
OPT_HIDDEN struct omask *opt_find_mask(const struct opt_table *t, uint32_t id);
OPT_HIDDEN bool opt_rule_less(const struct orule *a, const struct orule *b);
OPT_HIDDEN void opt_refresh_precedence(struct opt_table *t);
OPT_HIDDEN void opt_count_pairs(struct opt_table *t, const struct orule *r, int delta);
OPT_HIDDEN void opt_anchor_update(struct opt_table *t);
OPT_HIDDEN bool opt_covers_anchor(const struct opt_table *t, const uint64_t *w);
OPT_HIDDEN bool opt_hyper_shadowed(const struct opt_table *t, const struct orule *r);
/* Does a rule of mask M preferred over R match R's microflow? */
OPT_HIDDEN bool opt_hyper_shadowed_by(const struct opt_table *t, const struct orule *r,
				      const struct omask *m);
OPT_HIDDEN int opt_hyper_insert(struct opt_table *t, struct orule *r);
OPT_HIDDEN void opt_hyper_remove(struct opt_table *t, struct orule *r);
OPT_HIDDEN void opt_remove_rule(struct opt_table *t, struct orule *r);
OPT_HIDDEN void opt_remove_mask(struct opt_table *t, struct omask *m);
OPT_HIDDEN void opt_update_flags(struct opt_table *t);
/* opt_window.c */
#define OPT_HOT_SAT UINT32_MAX /* a hot bound too large to hold: the rule must be read */
OPT_HIDDEN void opt_rule_advance(const struct opt_table *t, struct orule *r, uint64_t now);
OPT_HIDDEN void opt_mask_advance(const struct opt_table *t, struct omask *m, uint64_t now);
OPT_HIDDEN uint64_t opt_rule_hits_at(const struct opt_table *t, const struct orule *r,
				     uint64_t now);
OPT_HIDDEN bool opt_hyper_candidate(const struct opt_table *t, const struct orule *r);
OPT_HIDDEN void opt_hot_note(const struct opt_table *t, const struct orule *r);
OPT_HIDDEN void opt_window_add(const struct opt_table *t, struct orule *r, uint32_t packets);
OPT_HIDDEN void opt_window_take(const struct opt_table *t, struct orule *r, int sign);

/* A hyper candidate as the tick's walk compares it (no pointer chasing while sifting). */
struct opt_cand {
	uint64_t hits;  /* the rule's window hits at the tick */
	uint32_t id;
	struct orule *r;
};

/* The tick's hottest-first walk over the hyper candidates (opt_cands.c): a heap of the
 * exact hits of the rules whose bounds were taken; the bounds not taken yet are all of them (fresh), none (done), or those
 * below edge (by bound, mask position, rule position); read[]: rules whose exact hits the
 * walk read, whose bounds are tightened when it ends. */
#define OPT_WALK_TIGHTEN 256
struct opt_slot {
	uint32_t h, i, j; /* a hot bound, its mask's position in order[], its rule's in rules[] */
};
struct opt_walk {
	struct opt_cand *h;
	size_t n, cap, want, n_read;
	struct orule *read[OPT_WALK_TIGHTEN];
	struct opt_slot edge;
	uint64_t coldest;
	bool fresh, done, room;
};

/* A tick in progress (opt_tick.c, opt_order.c; helpers in opt_planner.c). */
struct planner {
	struct opt_table *t;
	struct opt_plan *p;
	uint64_t now;
	uint32_t *ids;        /* scratch rule ids */
	bool compact;         /* re-spreading every prio: emitted whole, beyond the budget */
	size_t n_ids, cap_ids;
};

/* opt_planner.c */
OPT_HIDDEN bool opt_spend(struct planner *pl, uint32_t cost);
OPT_HIDDEN int opt_mask_ids(struct planner *pl, const struct omask *m);
OPT_HIDDEN uint32_t opt_group_cost(const struct omask *m);
/* opt_order.c */
OPT_HIDDEN int opt_plan_masks(struct planner *pl);
/* opt_cands.c: start the walk (ROOM: free hyper slots, FREE_SLOTS of them; else only rules
 * with more hits than COLDEST are walked), then the next candidate (NULL: none left, or an
 * error in *RC). */
OPT_HIDDEN void opt_walk_start(struct opt_walk *w, bool room, uint64_t free_slots,
			       uint64_t coldest);
OPT_HIDDEN struct orule *opt_walk_next(const struct planner *pl, struct opt_walk *w, int *rc);
OPT_HIDDEN void opt_walk_free(const struct opt_table *t, struct opt_walk *w);

/* opt_plan.c */
OPT_HIDDEN int opt_plan_push(struct opt_plan *p, enum opt_op_kind k, const struct omask *m,
			     uint32_t position, uint16_t prio, uint16_t old_prio,
			     const uint32_t *rules, uint32_t n_rules);

#endif
