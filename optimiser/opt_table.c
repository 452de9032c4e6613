/* SPDX-License-Identifier: MIT */
/*
 * The optimiser's table: rules grouped by mask, the cascade order, the hyper mask, the
 * hashes that find them, and the hit window of every rule. Layout changes come only from
 * opt_plan_apply (opt_plan.c); rule changes from the agent (add/del/record_hits).
 * Assumes ids and packets may be hostile: hashes are seeded, every size is bounded by cfg.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "optimiser/opt_priv.h"

static const char *const field_names[OPT_F_COUNT] = {
	"in_port", "eth_src", "eth_dst", "eth_type", "ip_src", "ip_dst", "ip_proto", "l4_src",
	"l4_dst", "tun_id", "tun_src", "tun_dst", "tun_dport" };

bool opt_field_is_ip(enum opt_field f)
{
	return f == OPT_F_IP_SRC || f == OPT_F_IP_DST || f == OPT_F_TUN_SRC ||
	       f == OPT_F_TUN_DST;
}

const char *opt_field_name(enum opt_field f)
{
	return (unsigned)f < OPT_F_COUNT ? field_names[f] : "?";
}

void opt_mask_full(struct opt_mask *m)
{
	memset(m, 0, sizeof(*m));
	m->fields = OPT_F_ALL;
	for (int f = 0; f < OPT_F_COUNT; f++)
		m->plen[f] = opt_field_is_ip((enum opt_field)f) ? 32 : 0;
}

void opt_mask_words(const struct opt_mask *m, uint64_t w[OPT_F_COUNT])
{
	for (int f = 0; f < OPT_F_COUNT; f++) {
		unsigned pl = m->plen[f] > 32 ? 32 : m->plen[f];

		w[f] = 0;
		if (!(m->fields & (1u << f)))
			continue;
		if (!opt_field_is_ip((enum opt_field)f))
			w[f] = ~0ULL;
		else if (pl > 0)
			w[f] = (0xffffffffULL << (32 - pl)) & 0xffffffffULL;
	}
}

/* ---- Hashing ------------------------------------------------------------------------- */

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static uint64_t hash_words(uint64_t seed, uint64_t tag, const uint64_t *v)
{
	uint64_t h = mix(seed ^ tag);

	for (int f = 0; f < OPT_F_COUNT; f++)
		h = mix(h ^ v[f]) + (uint64_t)f;
	return h;
}

static struct orule **next_of(struct orule *r, enum hkind k)
{
	switch (k) {
	case H_ID:
		return &r->id_next;
	case H_KEY:
		return &r->key_next;
	case H_HYPER:
		return &r->hy_next;
	default:
		return &r->an_next;
	}
}

static uint64_t anchor_hash(const struct opt_table *t, const uint64_t *v)
{
	uint64_t k[OPT_F_COUNT];

	for (int f = 0; f < OPT_F_COUNT; f++)
		k[f] = v[f] & t->anchor[f];
	return hash_words(t->cfg_seed, 0xfffffffeu, k);
}

static uint64_t rule_hash(const struct opt_table *t, const struct orule *r, enum hkind k)
{
	uint64_t v[OPT_F_COUNT];

	if (k == H_ID)
		return mix(t->cfg_seed ^ r->id);
	if (k == H_HYPER) {
		opt_hdr_load(&r->flow, v);
		return hash_words(t->cfg_seed, 0xffffffffu, v);
	}
	opt_rule_v(r, v);
	if (k == H_KEY)
		return hash_words(t->cfg_seed, r->mask->id, v);
	return anchor_hash(t, v);
}

static struct ohash *hash_of(struct opt_table *t, enum hkind k)
{
	switch (k) {
	case H_ID:
		return &t->by_id;
	case H_KEY:
		return &t->by_key;
	case H_HYPER:
		return &t->hyper;
	default:
		return &t->by_anchor;
	}
}

static int hash_grow(struct opt_table *t, enum hkind k)
{
	struct ohash *h = hash_of(t, k);
	size_t nb = h->n_buckets ? h->n_buckets * 2 : 64;
	struct orule **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_buckets; i++) {
		struct orule *r = h->b[i], *nx;

		for (; r; r = nx) {
			size_t j = rule_hash(t, r, k) & (nb - 1);

			nx = *next_of(r, k);
			*next_of(r, k) = b[j];
			b[j] = r;
		}
	}
	free(h->b);
	h->b = b;
	h->n_buckets = nb;
	return 0;
}

int opt_hash_insert(struct opt_table *t, struct orule *r, enum hkind k)
{
	struct ohash *h = hash_of(t, k);
	size_t j;

	if (h->n + 1 > h->n_buckets) {
		int rc = hash_grow(t, k);

		if (rc < 0)
			return rc;
	}
	j = rule_hash(t, r, k) & (h->n_buckets - 1);
	*next_of(r, k) = h->b[j];
	h->b[j] = r;
	h->n++;
	return 0;
}

void opt_hash_remove(struct opt_table *t, struct orule *r, enum hkind k)
{
	struct ohash *h = hash_of(t, k);
	struct orule **pp;

	if (!h->n_buckets)
		return;
	pp = &h->b[rule_hash(t, r, k) & (h->n_buckets - 1)];
	for (; *pp; pp = next_of(*pp, k))
		if (*pp == r) {
			*pp = *next_of(r, k);
			h->n--;
			return;
		}
}

/* Grow hash K until it has at least N buckets. */
int opt_hash_reserve(struct opt_table *t, enum hkind k, size_t n)
{
	while (hash_of(t, k)->n_buckets < n) {
		int rc = hash_grow(t, k);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Refill hash K (by_anchor) with the rules of the anchored masks after the anchor or the
 * anchored set changed. In place: the buckets already fit every rule, nothing allocates. */
void opt_hash_rebuild(struct opt_table *t, enum hkind k)
{
	struct ohash *h = hash_of(t, k);

	assert(k == H_ANCHOR);
	h->n = 0;
	if (!h->n_buckets)
		return;
	memset(h->b, 0, h->n_buckets * sizeof(*h->b));
	for (uint32_t i = 0; i < t->n_masks; i++) {
		struct omask *m = t->order[i];

		for (uint32_t j = 0; m->anchored && j < m->n_rules; j++) {
			struct orule *r = m->rules[j];
			size_t b = rule_hash(t, r, k) & (h->n_buckets - 1);

			*next_of(r, k) = h->b[b];
			h->b[b] = r;
			h->n++;
		}
	}
}

/* The by_anchor bucket of R (the table must have buckets). */
size_t opt_anchor_bucket(const struct opt_table *t, const struct orule *r)
{
	uint64_t v[OPT_F_COUNT];

	opt_rule_v(r, v);
	return anchor_hash(t, v) & (t->by_anchor.n_buckets - 1);
}

struct orule *const *opt_id_bucket(const struct opt_table *t, uint32_t id)
{
	return &t->by_id.b[mix(t->cfg_seed ^ id) & (t->by_id.n_buckets - 1)];
}

struct orule *opt_find_rule(const struct opt_table *t, uint32_t id)
{
	struct orule *r;

	if (!t->by_id.n_buckets)
		return NULL;
	r = *opt_id_bucket(t, id);
	for (; r; r = r->id_next)
		if (r->id == id)
			return r;
	return NULL;
}

struct omask *opt_find_mask(const struct opt_table *t, uint32_t id)
{
	for (uint32_t i = 0; i < t->n_masks; i++)
		if (t->order[i]->id == id)
			return t->order[i];
	return NULL;
}

bool opt_rule_less(const struct orule *a, const struct orule *b)
{
	return a->priority < b->priority || (a->priority == b->priority && a->id < b->id);
}

/* The preferred rule of mask M whose key equals K (already masked), or NULL. */
/* Are R's values K (K already cut to R's mask)? */
static bool same_values(const struct orule *r, const uint64_t *k)
{
	for (int f = 0; f < OPT_F_COUNT; f++)
		if ((opt_hdr_get(&r->flow, f) & r->mask->w[f]) != k[f])
			return false;
	return true;
}

struct orule *opt_key_lookup(const struct opt_table *t, const struct omask *m,
			     const uint64_t *k)
{
	struct orule *r, *best = NULL;

	if (!t->by_key.n_buckets)
		return NULL;
	r = t->by_key.b[hash_words(t->cfg_seed, m->id, k) & (t->by_key.n_buckets - 1)];
	for (; r; r = r->key_next)
		if (r->mask == m && same_values(r, k) &&
		    (!best || opt_rule_less(r, best)))
			best = r;
	return best;
}

struct orule *opt_hyper_lookup(const struct opt_table *t, const uint64_t *v)
{
	struct orule *r;

	if (!t->hyper.n_buckets)
		return NULL;
	r = t->hyper.b[hash_words(t->cfg_seed, 0xffffffffu, v) & (t->hyper.n_buckets - 1)];
	for (; r; r = r->hy_next)
		if (!r->hyper_dead && opt_hdr_equal(&r->flow, v))
			return r;
	return NULL;
}

/* ---- Table lifetime ------------------------------------------------------------------ */

void opt_config_default(struct opt_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->degradation_threshold = 0.05;
	cfg->hyper_capacity = 1024;
	cfg->admission_hits = 64;
	cfg->window_s = 60;
	cfg->idle_mask_s = 600;
	cfg->update_budget = 2000;
	cfg->max_masks = 1024;
	cfg->specificity_weight = 0.25;
	cfg->reorder_hysteresis = 0.25;
	cfg->always_optimise = false;
	snprintf(cfg->verb, sizeof(cfg->verb), "write");
	snprintf(cfg->metric, sizeof(cfg->metric), "bw");
	cfg->remote_masks = 0;
	cfg->hash_seed = 0x5ca1ab1e0ddba11ULL;
}

static bool config_ok(const struct opt_config *c)
{
	return c->window_s >= 1 && c->window_s <= 3600 && c->max_masks >= 1 &&
	       c->max_masks <= 4096 && c->hyper_capacity <= (1u << 20) &&
	       c->update_budget >= 1 && c->degradation_threshold >= 0.0 &&
	       c->degradation_threshold <= 1.0 && c->specificity_weight >= 0.0 &&
	       c->specificity_weight <= 1.0 && c->reorder_hysteresis >= 0.0 &&
	       c->reorder_hysteresis <= 100.0 && memchr(c->verb, '\0', sizeof(c->verb)) &&
	       memchr(c->metric, '\0', sizeof(c->metric)) &&
	       memchr(c->masks_input, '\0', sizeof(c->masks_input)) &&
	       memchr(c->flows_input, '\0', sizeof(c->flows_input)) &&
	       c->n_fixed <= sizeof(c->fixed) / sizeof(c->fixed[0]);
}

int opt_table_new(const struct opt_config *cfg, struct opt_table **out)
{
	struct opt_table *t;

	if (!out)
		return -EINVAL;
	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if (cfg)
		t->cfg = *cfg;
	else
		opt_config_default(&t->cfg);
	if (!config_ok(&t->cfg)) {
		free(t);
		return -EINVAL;
	}
	t->cfg_seed = t->cfg.hash_seed;
	t->bucket_s = (t->cfg.window_s + OPT_RING_MAX - 1) / OPT_RING_MAX;
	t->ring_len = (t->cfg.window_s + t->bucket_s - 1) / t->bucket_s;
	memset(t->anchor, 0xff, sizeof(t->anchor));
	*out = t;
	return 0;
}

void opt_table_free(struct opt_table *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->n_masks; i++) {
		struct omask *m = t->order[i];

		for (uint32_t j = 0; j < m->n_rules; j++)
			free(m->rules[j]);
		free(m->rules);
		free(m->hot);
		free(m);
	}
	free(t->order);
	free(t->by_slot);
	free(t->pairs);
	free(t->by_anchor.b);
	free(t->by_id.b);
	free(t->by_key.b);
	free(t->hyper.b);
	free(t);
}
