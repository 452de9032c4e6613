/* SPDX-License-Identifier: MIT */
/*
 * The per-rule hit window (a ring of buckets: per second up to 16 s windows, else 16 or
 * fewer buckets of several seconds, opt_priv.h) and the calls that feed it: counters
 * one at a time (opt_table_record_hits, opt_table_record_flow) or a whole poll at once
 * (opt_table_record_batch: the same effect, with the rules of later counters fetched into the
 * cache while earlier ones are counted, since a poll of 100K rules is bound by memory
 * latency, not by arithmetic). The windows themselves are opt_window.c's. Assumes the
 * caller's time is seconds on a monotonic clock.
 */
#include <errno.h>
#include <string.h>

#include "optimiser/opt_priv.h"

static void count_hits(struct opt_table *t, struct orule *r, uint64_t packets, uint64_t now)
{
	uint32_t *b;
	uint64_t add;

	if (now < t->now)
		now = t->now;
	t->now = now;
	opt_rule_advance(t, r, now);
	if (packets == 0)
		return;
	b = &r->ring[(r->last_sec / t->bucket_s) % t->ring_len];
	add = packets > (uint64_t)(UINT32_MAX - *b) ? UINT32_MAX - *b : packets;
	opt_window_add(t, r, (uint32_t)add);
	r->last_hit = now;
	r->mask->last_hit = now;
}

/* record_flow on a found rule: the microflow bookkeeping, then the hits. */
static int count_flow(struct opt_table *t, struct orule *r, const struct opt_pkt *pkt,
		      uint64_t packets, uint64_t now)
{
	bool fresh, same;

	if (!pkt)
		return -EINVAL;
	/* the flow seen before matched the rule, so the same header needs no check again */
	same = r->flow_seen && opt_hdr_equal(&r->flow, pkt->v);
	if (!same && (!opt_matches(r, pkt->v) || !opt_hdr_fits(pkt->v)))
		return -EINVAL;
	opt_rule_advance(t, r, now < t->now ? t->now : now);
	fresh = !r->flow_seen || (r->win_sum == 0 && !r->in_hyper);
	if (fresh) {
		opt_hdr_set(&r->flow, pkt->v);
		r->flow_seen = r->flow_single = true;
	} else if (packets && !same) {
		r->flow_single = false; /* several microflows: a copy would miss some */
		if (r->in_hyper)
			r->hyper_dead = true;
	}
	count_hits(t, r, packets, now);
	opt_hot_note(t, r); /* its candidacy may have changed even without hits */
	return 0;
}

int opt_table_record_hits(struct opt_table *t, uint32_t id, uint64_t packets, uint64_t now)
{
	struct orule *r = t ? opt_find_rule(t, id) : NULL;

	if (!r)
		return -ENOENT;
	count_hits(t, r, packets, now);
	return 0;
}

int opt_table_record_flow(struct opt_table *t, uint32_t id, const struct opt_pkt *pkt,
			  uint64_t packets, uint64_t now)
{
	struct orule *r = t ? opt_find_rule(t, id) : NULL;

	if (!r)
		return -ENOENT;
	return count_flow(t, r, pkt, packets, now);
}

#define AHEAD_BUCKET 16 /* counters ahead whose id-hash bucket is fetched */
#define AHEAD_RULE 8    /* counters ahead whose rule is fetched (its bucket came earlier) */

/* Fetch what counting C will read: its rule's header, flow and current ring bucket. */
static void fetch_rule(const struct opt_table *t, const struct opt_count *c, uint64_t now)
{
	const struct orule *r = *opt_id_bucket(t, c->id);

	if (!r)
		return;
	__builtin_prefetch(r, 1);
	__builtin_prefetch((const char *)r + 63, 1);
	__builtin_prefetch(&r->flow, 0); /* its values are read only when the header changed */
	__builtin_prefetch(&r->ring[(now / t->bucket_s) % t->ring_len], 1);
	if (c->pkt) {
		__builtin_prefetch(c->pkt, 0);
		__builtin_prefetch((const char *)c->pkt + 64, 0);
	}
}

long opt_table_record_batch(struct opt_table *t, const struct opt_count *c, size_t n,
			    uint64_t now)
{
	long refused = 0;

	if (!t || (!c && n))
		return -EINVAL;
	if (!t->by_id.n_buckets)
		return (long)n;
	for (size_t i = 0; i < n; i++) {
		struct orule *r;

		if (i + AHEAD_BUCKET < n)
			__builtin_prefetch(opt_id_bucket(t, c[i + AHEAD_BUCKET].id), 0);
		if (i + AHEAD_RULE < n)
			fetch_rule(t, &c[i + AHEAD_RULE], now);
		r = opt_find_rule(t, c[i].id);
		if (!r)
			refused++;
		else if (!c[i].pkt)
			count_hits(t, r, c[i].packets, now);
		else if (count_flow(t, r, c[i].pkt, c[i].packets, now) < 0)
			refused++;
	}
	return refused;
}

int opt_table_get_flow(const struct opt_table *t, uint32_t id, struct opt_pkt *out)
{
	const struct orule *r = t ? opt_find_rule(t, id) : NULL;

	if (!r)
		return -ENOENT;
	if (!r->flow_single)
		return -ENODATA;
	if (out)
		opt_hdr_load(&r->flow, out->v);
	return 0;
}
