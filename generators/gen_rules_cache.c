/* SPDX-License-Identifier: MIT */
/*
 * gen_rules_cache: built rule-set parts reused by content (see gen.h, "Rule-set reuse").
 *
 * An entry is a key (what the part's content is a function of) and one reference to the part.
 * Lookups and inserts happen under the cache's mutex; parts are built outside it, so two
 * threads missing on the same key may both build it: the second insert keeps the entry
 * already there and drops its own copy (equal content, so either is right). Entries are found
 * by a linear scan: a campaign holds tens to a few hundred parts, each worth thousands of
 * rules. Eviction drops least recently used entries until the bytes fit again.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "generators/gen_flows.h"
#include "generators/gen_model.h"

enum part_kind { PART_FLOWS = 0, PART_HOST = 1 };

/* Everything a part's content depends on (zeroed where it does not apply). */
struct part_key {
	uint32_t kind, host;
	uint32_t flows, subnets, encap_contexts;
	uint32_t masks[GEN_DIRS];
	uint32_t layout;       /* hosts only; no padding: keys are compared as bytes */
	uint64_t seed;
};

struct entry {
	struct part_key key;
	struct gen_part *part; /* one reference */
	uint64_t used;         /* clock of the last get that used it */
};

/* Invariant: bytes is the sum of entries' part->bytes; no two entries share a key. */
struct gen_rules_cache {
	pthread_mutex_t mu;
	struct entry *e;
	size_t n, cap;
	size_t bytes, max_bytes;
	uint64_t clock;
	struct gen_rules_cache_stats st;
};

struct gen_rules_cache *gen_rules_cache_new(size_t max_bytes)
{
	struct gen_rules_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (pthread_mutex_init(&c->mu, NULL)) {
		free(c);
		return NULL;
	}
	c->max_bytes = max_bytes ? max_bytes : GEN_RULES_CACHE_DEFAULT_BYTES;
	return c;
}

void gen_rules_cache_free(struct gen_rules_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		gen_part_unref(c->e[i].part);
	free(c->e);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

static void key_of(struct part_key *k, const struct gen_levels *l, uint64_t seed,
		   enum part_kind kind, enum gen_host h)
{
	memset(k, 0, sizeof(*k));
	k->kind = kind;
	k->flows = l->flows;
	k->subnets = l->subnets;
	k->encap_contexts = l->encap_contexts;
	k->seed = seed;
	if (kind == PART_HOST) {
		k->host = h;
		k->layout = l->layout;
		memcpy(k->masks, l->masks[h], sizeof(k->masks));
	}
}

/* Under the lock: a new reference to the part of key K, or NULL. */
static struct gen_part *find_locked(struct gen_rules_cache *c, const struct part_key *k)
{
	for (size_t i = 0; i < c->n; i++)
		if (!memcmp(&c->e[i].key, k, sizeof(*k))) {
			c->e[i].used = ++c->clock;
			c->st.part_hits++;
			return gen_part_ref(c->e[i].part);
		}
	return NULL;
}

static void evict_locked(struct gen_rules_cache *c)
{
	while (c->bytes > c->max_bytes && c->n > 1) {
		size_t old = 0;

		for (size_t i = 1; i < c->n; i++)
			if (c->e[i].used < c->e[old].used)
				old = i;
		c->bytes -= c->e[old].part->bytes;
		gen_part_unref(c->e[old].part);
		c->e[old] = c->e[--c->n];
		c->st.evictions++;
	}
}

/* Keep P (a reference the caller hands over) under key K unless another thread put one there
 * first; returns the reference to use (P, or the one already there with P dropped). */
static struct gen_part *insert(struct gen_rules_cache *c, const struct part_key *k,
			       struct gen_part *p)
{
	struct gen_part *had;

	pthread_mutex_lock(&c->mu);
	had = find_locked(c, k);
	if (had) {
		pthread_mutex_unlock(&c->mu);
		gen_part_unref(p);
		return had;
	}
	if (c->n == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 16;
		struct entry *ne = realloc(c->e, ncap * sizeof(*ne));

		if (!ne) { /* not kept: the caller still has a good part */
			pthread_mutex_unlock(&c->mu);
			return p;
		}
		c->e = ne;
		c->cap = ncap;
	}
	memcpy(&c->e[c->n].key, k, sizeof(*k));
	c->e[c->n].part = gen_part_ref(p);
	c->e[c->n++].used = ++c->clock;
	c->bytes += p->bytes;
	c->st.part_builds++;
	evict_locked(c);
	pthread_mutex_unlock(&c->mu);
	return p;
}

static struct gen_part *lookup(struct gen_rules_cache *c, const struct part_key *k)
{
	struct gen_part *p;

	pthread_mutex_lock(&c->mu);
	p = find_locked(c, k);
	pthread_mutex_unlock(&c->mu);
	return p;
}

/* What building a part needs (FLOWS and PL: host parts only). */
struct build {
	const struct gen_levels *l;
	uint64_t seed;
	const struct gen_part *flows;
	const struct gen_placement *pl;
};

/* The part of key K: held, or built now (outside the lock) and kept. */
static int part_of(struct gen_rules_cache *c, const struct part_key *k, const struct build *b,
		   struct gen_part **out, struct scn_error *err)
{
	int rc;

	*out = lookup(c, k);
	if (*out)
		return 0;
	if (k->kind == PART_FLOWS)
		rc = gen_part_flows(b->l, b->seed, out, err);
	else
		rc = gen_part_host(b->flows, b->pl, b->l, (enum gen_host)k->host, b->seed, out,
				   err);
	if (rc)
		return rc;
	if (k->kind == PART_HOST)
		(*out)->id = gen_hash64(k, sizeof(*k), 0x686f7374u) | 1u; /* "host" */
	*out = insert(c, k, *out);
	return 0;
}

int gen_rules_cache_get(struct gen_rules_cache *c, const struct topo_model *model,
			const struct topo_space *space, const struct gen_levels *l,
			uint64_t seed, struct gen_rules **out, struct scn_error *err)
{
	struct gen_part *flows = NULL, *host[GEN_HOSTS] = { NULL, NULL };
	struct gen_placement pl;
	int rc;

	if (!c || model || space || !l || !out)
		return gen_rules_build(model, space, l, seed, out, err);
	*out = NULL;
	pthread_mutex_lock(&c->mu);
	c->st.gets++;
	pthread_mutex_unlock(&c->mu);
	rc = gen_levels_check(l, err);
	if (rc == 0)
		rc = gen_placement_plan(NULL, NULL, &pl, err);
	if (rc == 0) {
		struct build b = { l, seed, NULL, &pl };
		struct part_key k;

		key_of(&k, l, seed, PART_FLOWS, GEN_CLIENT);
		rc = part_of(c, &k, &b, &flows, err);
		b.flows = flows;
		for (int h = 0; rc == 0 && h < GEN_HOSTS; h++) {
			key_of(&k, l, seed, PART_HOST, (enum gen_host)h);
			rc = part_of(c, &k, &b, &host[h], err);
		}
	}
	if (rc == 0 && gen_rules_assemble(l, flows, host, out) < 0)
		rc = scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	gen_part_unref(flows);
	for (int h = 0; h < GEN_HOSTS; h++)
		gen_part_unref(host[h]);
	return rc;
}

void gen_rules_cache_stats(struct gen_rules_cache *c, struct gen_rules_cache_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	*out = c->st;
	out->bytes = c->bytes;
	out->max_bytes = c->max_bytes;
	pthread_mutex_unlock(&c->mu);
}
