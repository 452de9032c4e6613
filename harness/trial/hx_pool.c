/* SPDX-License-Identifier: MIT */
/*
 * hx_pool: slots of a testbed pool and their applied rule sets (hx_pool.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/trial/hx_pool.h"

struct hx_pool *hx_pool_new(struct tb *const *tb, unsigned n)
{
	struct hx_pool *p;

	if (n == 0 || n > HX_POOL_MAX || !(p = calloc(1, sizeof(*p))))
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->build_mu, NULL);
	pthread_cond_init(&p->freed, NULL);
	for (unsigned i = 0; i < n; i++)
		p->slot[i].tb = tb[i];
	p->n = p->alive = n;
	return p;
}

void hx_pool_free(struct hx_pool *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->n; i++)
		hx_pool_rules_put(p, p->slot[i].rules);
	pthread_cond_destroy(&p->freed);
	pthread_mutex_destroy(&p->build_mu);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

/* A free slot, preferring one whose applied rules are RULES_KEY's; -1 when none is free. */
static int free_slot(const struct hx_pool *p, const char *rules_key)
{
	int any = -1;

	for (unsigned i = 0; i < p->n; i++) {
		const struct hx_slot *s = &p->slot[i];

		if (s->busy || s->lost)
			continue;
		if (rules_key && !strcmp(s->rules_key, rules_key))
			return (int)i;
		if (any < 0)
			any = (int)i;
	}
	return any;
}

int hx_pool_take(struct hx_pool *p, const char *rules_key)
{
	for (;;) {
		int i;

		if (p->alive == 0)
			return -ENODEV;
		if ((i = free_slot(p, rules_key)) >= 0) {
			p->slot[i].busy = true;
			return i;
		}
		pthread_cond_wait(&p->freed, &p->mu);
	}
}

void hx_pool_give(struct hx_pool *p, unsigned i)
{
	p->slot[i].busy = false;
	pthread_cond_broadcast(&p->freed);
}

unsigned hx_pool_lose(struct hx_pool *p, unsigned i, const char *why)
{
	snprintf(p->last_lost, sizeof(p->last_lost), "slot %u: %s", i, why);
	if (!p->slot[i].lost) {
		p->slot[i].lost = true;
		p->alive--;
	}
	pthread_cond_broadcast(&p->freed); /* waiters see when none is left */
	return p->alive;
}

/* The entry of KEY, or else a free one (rules NULL); NULL when the table is full. */
static struct hx_rules *rules_entry(struct hx_pool *p, const char *key)
{
	struct hx_rules *free_one = NULL;

	for (size_t i = 0; i < sizeof(p->built) / sizeof(p->built[0]); i++) {
		struct hx_rules *r = &p->built[i];

		if (r->rules && !strcmp(r->key, key))
			return r;
		if (!r->rules && !free_one)
			free_one = r;
	}
	return free_one;
}

int hx_pool_rules(struct hx_pool *p, struct gen_rules_cache **cache, bool plain,
		  const struct gen_levels *l, const char *key, uint64_t seed, struct hx_rules **out,
		  struct scn_error *err)
{
	struct hx_rules *r;
	int rc = 0;

	pthread_mutex_lock(&p->build_mu);
	if (!*cache && !plain) /* made once, by whichever slot's thread builds first */
		*cache = gen_rules_cache_new(0); /* NULL (no memory): plain builds */
	r = rules_entry(p, key);
	if (!r)
		rc = scn_error_set(err, SCN_ERR_INTERNAL, -ENOSPC, "trial: too many rule sets in use");
	else if (!r->rules &&
		 (rc = gen_rules_cache_get(*cache, NULL, NULL, l, seed, &r->rules, err)) == 0)
		snprintf(r->key, sizeof(r->key), "%s", key);
	if (rc == 0)
		r->refs++;
	pthread_mutex_unlock(&p->build_mu);
	*out = rc == 0 ? r : NULL;
	return rc;
}

void hx_pool_rules_put(struct hx_pool *p, struct hx_rules *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&p->build_mu);
	if (--r->refs == 0) {
		gen_rules_free(r->rules);
		r->rules = NULL;
		r->key[0] = '\0';
	}
	pthread_mutex_unlock(&p->build_mu);
}
