/* SPDX-License-Identifier: MIT */
/*
 * sim_memo: analyses of host rule sets kept by content id (sim_rules.c's install).
 *
 * sim_scan_host is a function of the rule set's content, the flow count and how many of its
 * rules are in hardware (in_hw: the software-fallback state): the memo keeps its results
 * (per-flow probes and flags, rule hashes, walk lengths) under (content id, flows, in_hw),
 * and a rule set that comes back (a point measured again, a layout of a point seen before,
 * the baseline between two sweeps) is installed from it instead of scanned again, by
 * reference (the arrays are one block shared by the entry and the installed host, never
 * written after the scan: sim_host_arrays_share). A content id is gen_rules_host_id
 * (nonzero for rule sets built through the rule-set cache only: plain builds are always
 * scanned). The memo is the simulator's own bookkeeping, never
 * visible in a sample: what apply reports (the rule diff, its cost, the fallback state) is
 * computed as without it. Least recently used entries go first once MAX_BYTES is passed.
 * The memo also keeps the size of the rule diff between two content ids: going back and
 * forth between two rule sets (a sweep point and the baseline) is diffed once; and the
 * per-traffic aggregates of a pair of analysed hosts (sim_rules_aggregate).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/sim/sim_internal.h"

static size_t entry_bytes(uint32_t n, uint32_t n_rules)
{
	return sizeof(struct sim_memo_entry) + (size_t)GEN_DIRS * n * (sizeof(uint32_t) + 1) +
	       (size_t)n_rules * sizeof(uint64_t);
}

struct sim_arrays {
	unsigned refs;
	uint64_t data[]; /* hashes, probes[0], probes[1], flags[0], flags[1] */
};

int sim_host_arrays_new(struct sim_host *h, uint32_t n, size_t n_rules)
{
	size_t nn = n ? n : 1, nr = n_rules ? n_rules : 1;
	size_t words = nr + (GEN_DIRS * nn * sizeof(uint32_t) + GEN_DIRS * nn + 7) / 8;
	struct sim_arrays *a = calloc(1, sizeof(*a) + words * sizeof(uint64_t));
	uint32_t *probes;

	if (!a)
		return -ENOMEM;
	a->refs = 1;
	h->arr = a;
	h->hashes = a->data;
	probes = (uint32_t *)(a->data + nr);
	for (int d = 0; d < GEN_DIRS; d++) {
		h->probes[d] = probes + (size_t)d * nn;
		h->flags[d] = (uint8_t *)(probes + GEN_DIRS * nn) + (size_t)d * nn;
	}
	return 0;
}

void sim_host_arrays_share(struct sim_host *to, const struct sim_host *from)
{
	sim_host_arrays_drop(to);
	if (!from->arr)
		return;
	from->arr->refs++;
	to->arr = from->arr;
	to->hashes = from->hashes;
	for (int d = 0; d < GEN_DIRS; d++) {
		to->probes[d] = from->probes[d];
		to->flags[d] = from->flags[d];
		to->has_dir[d] = from->has_dir[d];
		to->walk0[d] = from->walk0[d];
	}
}

void sim_host_arrays_drop(struct sim_host *h)
{
	if (h->arr && --h->arr->refs == 0)
		free(h->arr);
	h->arr = NULL;
	h->hashes = NULL;
	for (int d = 0; d < GEN_DIRS; d++) {
		h->probes[d] = NULL;
		h->flags[d] = NULL;
	}
}

static void entry_free(struct sim_memo_entry *e)
{
	sim_host_arrays_drop(&e->h);
	memset(e, 0, sizeof(*e));
}

void sim_memo_init(struct sim_memo *m, size_t max_bytes)
{
	memset(m, 0, sizeof(*m));
	m->max_bytes = max_bytes;
}

void sim_memo_free(struct sim_memo *m)
{
	for (size_t i = 0; i < m->n; i++)
		entry_free(&m->e[i]);
	free(m->e);
	free(m->diff);
	free(m->agg);
	memset(m, 0, sizeof(*m));
}

static struct sim_memo_entry *find(struct sim_memo *m, uint64_t id, uint32_t n, uint32_t in_hw)
{
	for (size_t i = 0; id && i < m->n; i++)
		if (m->e[i].id == id && m->e[i].n_flows == n && m->e[i].h.in_hw == in_hw)
			return &m->e[i];
	return NULL;
}

bool sim_memo_get(struct sim_memo *m, uint64_t id, uint32_t n, struct sim_host *h)
{
	struct sim_memo_entry *e = find(m, id, n, h->in_hw);

	if (!e || e->h.n_rules != h->n_rules)
		return false;
	sim_host_arrays_share(h, &e->h);
	e->used = ++m->clock;
	m->hits++;
	return true;
}

static void evict(struct sim_memo *m)
{
	while (m->bytes > m->max_bytes && m->n > 0) {
		size_t old = 0;

		for (size_t i = 1; i < m->n; i++)
			if (m->e[i].used < m->e[old].used)
				old = i;
		m->bytes -= m->e[old].bytes;
		entry_free(&m->e[old]);
		m->e[old] = m->e[--m->n];
	}
}

/* A fresh empty entry, or NULL (no memory: not kept). */
static struct sim_memo_entry *new_entry(struct sim_memo *m)
{
	struct sim_memo_entry *e;

	if (m->n == m->cap) {
		size_t ncap = m->cap ? 2 * m->cap : 16;
		struct sim_memo_entry *ne = realloc(m->e, ncap * sizeof(*ne));

		if (!ne)
			return NULL;
		m->e = ne;
		m->cap = ncap;
	}
	e = &m->e[m->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

void sim_memo_put(struct sim_memo *m, uint64_t id, uint32_t n, const struct sim_host *h)
{
	size_t bytes = entry_bytes(n, h->n_rules);
	struct sim_memo_entry *e;

	if (!id || bytes > m->max_bytes || find(m, id, n, h->in_hw))
		return;
	e = new_entry(m);
	if (!e)
		return;
	e->id = id;
	e->n_flows = n;
	e->h.n_rules = h->n_rules;
	e->h.in_hw = h->in_hw;
	sim_host_arrays_share(&e->h, h);
	e->bytes = bytes;
	e->used = ++m->clock;
	m->bytes += bytes;
	evict(m);
}

/* ---- Rule diffs between two content ids ------------------------------------------------ */

#define DIFF_MAX_SLOTS ((size_t)1 << 16) /* full past 3/4: emptied and started again */

static size_t diff_slot(const struct sim_memo *m, uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	size_t k = (size_t)(h >> 32) & (m->diff_cap - 1);

	while (m->diff[k].a && (m->diff[k].a != a || m->diff[k].b != b))
		k = (k + 1) & (m->diff_cap - 1);
	return k;
}

/* Move the diffs into a table of CAP slots; at the largest size, a full table is emptied
 * instead (the oldest pairs are the least likely to come back). false on no memory. */
static bool diff_rehash(struct sim_memo *m, size_t cap)
{
	struct sim_memo_diff *old = m->diff;
	size_t old_cap = m->diff_cap;

	m->diff = calloc(cap, sizeof(*m->diff));
	if (!m->diff) {
		m->diff = old;
		return false;
	}
	m->diff_cap = cap;
	m->diff_n = 0;
	for (size_t i = 0; cap > old_cap && i < old_cap; i++)
		if (old[i].a) {
			m->diff[diff_slot(m, old[i].a, old[i].b)] = old[i];
			m->diff_n++;
		}
	free(old);
	return true;
}

bool sim_memo_diff_get(const struct sim_memo *m, uint64_t a, uint64_t b, uint64_t *changes)
{
	size_t k;

	if (!a || !b || !m->diff_cap)
		return false;
	if (a > b) {
		uint64_t t = a;

		a = b;
		b = t;
	}
	k = diff_slot(m, a, b);
	if (!m->diff[k].a)
		return false;
	*changes = m->diff[k].changes;
	return true;
}

void sim_memo_diff_put(struct sim_memo *m, uint64_t a, uint64_t b, uint64_t changes)
{
	size_t k;

	if (!a || !b)
		return;
	if (a > b) {
		uint64_t t = a;

		a = b;
		b = t;
	}
	if (!m->diff_cap || 4 * (m->diff_n + 1) > 3 * m->diff_cap) {
		size_t cap = m->diff_cap ? 2 * m->diff_cap : 256;

		if (cap > DIFF_MAX_SLOTS)
			cap = DIFF_MAX_SLOTS;
		if (!diff_rehash(m, cap))
			return;
	}
	k = diff_slot(m, a, b);
	if (!m->diff[k].a)
		m->diff_n++;
	m->diff[k] = (struct sim_memo_diff){ a, b, changes };
}

/* ---- Per-traffic aggregates of two installed hosts -------------------------------------- */

static bool agg_key_is(const struct sim_memo_agg *e, const struct tb_sim *s)
{
	for (int h = 0; h < GEN_HOSTS; h++)
		if (e->id[h] != s->host_id[h] || e->in_hw[h] != s->host[h].in_hw)
			return false;
	return true;
}

static struct sim_memo_agg *agg_slot(const struct sim_memo *m, const struct tb_sim *s,
				     uint32_t n, enum gen_popularity pop)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ull ^ (uint64_t)pop;

	for (int k = 0; k < GEN_HOSTS; k++)
		h = (h ^ s->host_id[k] ^ ((uint64_t)s->host[k].in_hw << 17)) * 0xff51afd7ed558ccdull;
	return &m->agg[(h >> 40) % SIM_MEMO_AGG_SLOTS];
}

bool sim_memo_agg_get(struct sim_memo *m, const struct tb_sim *s, const struct gen_traffic *t,
		      uint32_t n, struct sim_agg *out)
{
	const struct sim_memo_agg *e;

	if (!m->agg || !s->host_id[GEN_CLIENT] || !s->host_id[GEN_SERVER])
		return false;
	e = agg_slot(m, s, n, t->popularity);
	if (!e->agg.valid || !agg_key_is(e, s) || e->agg.n_flows != n ||
	    e->agg.pop != t->popularity || e->agg.zipf_s != t->zipf_s)
		return false;
	*out = e->agg;
	return true;
}

void sim_memo_agg_put(struct sim_memo *m, const struct tb_sim *s, const struct sim_agg *a)
{
	struct sim_memo_agg *e;

	if (!s->host_id[GEN_CLIENT] || !s->host_id[GEN_SERVER])
		return;
	if (!m->agg && !(m->agg = calloc(SIM_MEMO_AGG_SLOTS, sizeof(*m->agg))))
		return;
	e = agg_slot(m, s, a->n_flows, a->pop);
	for (int h = 0; h < GEN_HOSTS; h++) {
		e->id[h] = s->host_id[h];
		e->in_hw[h] = s->host[h].in_hw;
	}
	e->agg = *a;
}
