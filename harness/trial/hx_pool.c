/* SPDX-License-Identifier: MIT */
/*
 * hx_pool: slots of a testbed pool and their applied rule sets (hx_pool.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "harness/trial/hx_pool.h"

struct hx_pool *hx_pool_new(struct tb *const *tb, unsigned n)
{
	struct hx_pool *p;

	if (n == 0 || n > HX_POOL_MAX || !(p = calloc(1, sizeof(*p))))
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
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
		gen_rules_free(p->slot[i].rules);
	pthread_cond_destroy(&p->freed);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

int hx_pool_take(struct hx_pool *p)
{
	for (;;) {
		if (p->alive == 0)
			return -ENODEV;
		for (unsigned i = 0; i < p->n; i++)
			if (!p->slot[i].busy && !p->slot[i].lost) {
				p->slot[i].busy = true;
				return (int)i;
			}
		pthread_cond_wait(&p->freed, &p->mu);
	}
}

void hx_pool_give(struct hx_pool *p, unsigned i)
{
	p->slot[i].busy = false;
	pthread_cond_broadcast(&p->freed);
}

unsigned hx_pool_lose(struct hx_pool *p, unsigned i)
{
	if (!p->slot[i].lost) {
		p->slot[i].lost = true;
		p->alive--;
	}
	pthread_cond_broadcast(&p->freed); /* waiters see when none is left */
	return p->alive;
}
