/* SPDX-License-Identifier: MIT */
/*
 * hx_fit_layout_cov: the walk and software covariates of a stored point's rule layout
 * (generators/gen_layout_cov.h), recomputed from its levels and its campaign's seed: the
 * rule sets a campaign built are a pure function of those (gen.h), and the traffic's flow
 * weights of its levels. Built through a rule-set cache of the fit's own (a point's layouts
 * share their flow table) and remembered by everything they depend on, since the (verb,
 * metric) models of one design share their points: one memo for the process
 * (hx_layout_memo_shared, under a lock; at most MEMO_MAX entries, then computed unkept).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness/fit/hx_fit_layout.h"

#define MEMO_CACHE_BYTES ((size_t)64 << 20)
#define MEMO_MAX 65536

/* What a point's covariates depend on (no padding: compared as bytes). */
struct cov_key {
	uint64_t seed;
	double zipf_s;
	uint32_t flows, subnets, encap_contexts, layout;
	uint32_t masks[GEN_HOSTS][GEN_DIRS];
	uint32_t popularity, pad;
	double in_hw; /* the trial's tc_in_hw gauge, -1 when not known */
};

struct memo_entry {
	struct cov_key key;
	struct gen_layout_cov cov;
	struct gen_layout_sw sw;
	int rc;
};

struct hx_layout_memo {
	pthread_mutex_t mu;
	struct gen_rules_cache *cache;
	struct memo_entry *e;
	size_t n, cap;
};

static struct hx_layout_memo *memo_new(void)
{
	struct hx_layout_memo *m = calloc(1, sizeof(*m));

	if (m && !(m->cache = gen_rules_cache_new(MEMO_CACHE_BYTES))) {
		free(m);
		m = NULL;
	}
	if (m && pthread_mutex_init(&m->mu, NULL)) {
		gen_rules_cache_free(m->cache);
		free(m);
		m = NULL;
	}
	return m;
}

static struct hx_layout_memo *shared;
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;

static void shared_init(void)
{
	shared = memo_new();
}

struct hx_layout_memo *hx_layout_memo_shared(void)
{
	pthread_once(&shared_once, shared_init);
	return shared;
}

static void key_of(const struct gen_levels *l, uint64_t seed, double in_hw, struct cov_key *k)
{
	memset(k, 0, sizeof(*k));
	k->seed = seed;
	k->zipf_s = l->popularity == GEN_POP_ZIPF ? l->zipf_s : 0;
	k->flows = l->flows;
	k->subnets = l->subnets;
	k->encap_contexts = l->encap_contexts;
	k->layout = l->layout;
	memcpy(k->masks, l->masks, sizeof(k->masks));
	k->popularity = (uint32_t)l->popularity;
	k->in_hw = isfinite(in_hw) ? in_hw : -1;
}

static int compute(struct hx_layout_memo *m, const struct gen_levels *l, uint64_t seed,
		   double in_hw, struct gen_layout_cov *out, struct gen_layout_sw *sw)
{
	struct gen_rules *r = NULL;
	struct gen_traffic t;
	struct scn_error err = { 0 };
	int rc;

	rc = gen_rules_cache_get(m->cache, NULL, NULL, l, seed, &r, &err);
	if (rc)
		return rc < 0 ? rc : -EINVAL;
	gen_traffic_from_levels(l, &t);
	rc = gen_layout_cov(r, &t, out);
	if (rc == 0)
		rc = gen_layout_sw(r, &t, in_hw, sw);
	gen_rules_free(r);
	return rc;
}

/* Under M's lock: the entry of K, NULL when not held. */
static const struct memo_entry *find(const struct hx_layout_memo *m, const struct cov_key *k)
{
	for (size_t i = 0; i < m->n; i++)
		if (!memcmp(&m->e[i].key, k, sizeof(*k)))
			return &m->e[i];
	return NULL;
}

/* Under M's lock: keep (K, C, RC) unless full or out of memory. */
static void keep(struct hx_layout_memo *m, const struct cov_key *k,
		 const struct gen_layout_cov *c, const struct gen_layout_sw *sw, int rc)
{
	if (m->n == m->cap) {
		size_t nc = m->cap ? 2 * m->cap : 64;
		struct memo_entry *ne = m->n < MEMO_MAX ? realloc(m->e, nc * sizeof(*ne)) : NULL;

		if (!ne)
			return;
		m->e = ne;
		m->cap = nc;
	}
	m->e[m->n++] = (struct memo_entry){ .key = *k, .cov = *c, .sw = *sw, .rc = rc };
}

int hx_layout_cov_of(struct hx_layout_memo *m, const struct gen_levels *l, uint64_t seed,
		     double in_hw, struct gen_layout_cov *out, struct gen_layout_sw *sw)
{
	const struct memo_entry *e;
	struct cov_key k;
	int rc;

	key_of(l, seed, in_hw, &k);
	pthread_mutex_lock(&m->mu);
	e = find(m, &k);
	if (e) {
		*out = e->cov;
		*sw = e->sw;
		rc = e->rc;
	} else {
		*out = (struct gen_layout_cov){ 0 };
		*sw = (struct gen_layout_sw){ 0 };
		rc = compute(m, l, seed, in_hw, out, sw);
		keep(m, &k, out, sw, rc);
	}
	pthread_mutex_unlock(&m->mu);
	return rc;
}
