/* SPDX-License-Identifier: MIT */
/*
 * Hit windows (rings of buckets, opt_priv.h): a rule's, and its mask's sum over the rules
 * outside the hyper mask, kept exact as counters are fed (opt_window_add) and rules enter or
 * leave the hyper mask or the table (opt_window_take), together with each rule's hot bound
 * (omask.hot): an upper bound on a hyper candidate's window hits, written whenever the hits
 * grow or the rule's candidacy changes. With both, a tick reads the masks' sums and the
 * bounds (a few bytes per rule, in order) and touches only the rules that can be admitted,
 * instead of advancing every rule's window. Windows only shrink as time passes, so a bound
 * written at the latest record stays a bound.
 */
#include <string.h>

#include "optimiser/opt_priv.h"

void opt_rule_advance(const struct opt_table *t, struct orule *r, uint64_t now)
{
	uint64_t nb = t->ring_len, from = r->last_sec / t->bucket_s, to = now / t->bucket_s;

	if (now <= r->last_sec)
		return;
	r->last_sec = now;
	if (to == from)
		return;
	if (to - from >= nb) {
		memset(r->ring, 0, nb * sizeof(r->ring[0]));
		r->win_sum = 0;
		return;
	}
	for (uint64_t b = from + 1; b <= to; b++) {
		r->win_sum -= r->ring[b % nb];
		r->ring[b % nb] = 0;
	}
}

/* The same slide as opt_rule_advance, on the mask's sum of rings. */
void opt_mask_advance(const struct opt_table *t, struct omask *m, uint64_t now)
{
	uint64_t nb = t->ring_len, from = m->win_last_sec / t->bucket_s, to = now / t->bucket_s;

	if (now <= m->win_last_sec)
		return;
	m->win_last_sec = now;
	if (to == from)
		return;
	if (to - from >= nb) {
		memset(m->win_ring, 0, sizeof(m->win_ring));
		m->win_sum = 0;
		return;
	}
	for (uint64_t b = from + 1; b <= to; b++) {
		m->win_sum -= m->win_ring[b % nb];
		m->win_ring[b % nb] = 0;
	}
}

/* R's window hits as opt_rule_advance(NOW) would leave them, without changing R. */
uint64_t opt_rule_hits_at(const struct opt_table *t, const struct orule *r, uint64_t now)
{
	uint64_t nb = t->ring_len, from = r->last_sec / t->bucket_s, to = now / t->bucket_s;
	uint64_t sum = r->win_sum;

	if (now <= r->last_sec || to == from)
		return sum;
	if (to - from >= nb)
		return 0;
	for (uint64_t b = from + 1; b <= to; b++)
		sum -= r->ring[b % nb];
	return sum;
}

/* Is R a hyper candidate on its current window (before any mask is planned for deletion)? */
bool opt_hyper_candidate(const struct opt_table *t, const struct orule *r)
{
	return !r->in_hyper && r->flow_single && r->win_sum > 0 &&
	       r->win_sum >= t->cfg.admission_hits;
}

void opt_hot_note(const struct opt_table *t, const struct orule *r)
{
	uint32_t *h = &r->mask->hot[r->vec_idx];

	if (!opt_hyper_candidate(t, r))
		*h = 0;
	else
		*h = r->win_sum >= OPT_HOT_SAT ? OPT_HOT_SAT : (uint32_t)r->win_sum;
}

/* PACKETS more hits of R in its current bucket (R advanced to t->now), into its mask's sum
 * unless R is in the hyper mask, and its hot bound. */
void opt_window_add(const struct opt_table *t, struct orule *r, uint32_t packets)
{
	uint64_t b = (r->last_sec / t->bucket_s) % t->ring_len;
	struct omask *m = r->mask;

	r->ring[b] += packets;
	r->win_sum += packets;
	if (!r->in_hyper) {
		opt_mask_advance(t, m, r->last_sec);
		m->win_ring[b] += packets;
		m->win_sum += packets;
	}
	opt_hot_note(t, r);
}

/* Add (SIGN +1) or remove (-1) R's window to or from its mask's sum, both advanced to
 * t->now first so that their buckets are the same seconds. */
void opt_window_take(const struct opt_table *t, struct orule *r, int sign)
{
	struct omask *m = r->mask;

	opt_rule_advance(t, r, t->now);
	opt_mask_advance(t, m, t->now);
	for (uint32_t b = 0; b < t->ring_len; b++)
		m->win_ring[b] = sign > 0 ? m->win_ring[b] + r->ring[b] : m->win_ring[b] - r->ring[b];
	m->win_sum = sign > 0 ? m->win_sum + r->win_sum : m->win_sum - r->win_sum;
}
