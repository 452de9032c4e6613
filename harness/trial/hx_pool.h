/* SPDX-License-Identifier: MIT */
/*
 * hx_pool: the runner's testbed slots (part of the trial room's door, included by
 * hx_trial.h). Each slot is one client/server pair with the rule sets it has applied; a
 * trial takes a free slot, applies and measures on it, and gives it back. A slot whose
 * testbed fails (device error, unreachable) is taken out of the pool and its trial runs on
 * another; when none is left the trial fails with the last slot's error.
 *
 * One mutex guards the slots, the store, the runner's counters and the observer, so trials
 * run by several threads at once commit one at a time; measuring happens outside it.
 * Ownership: the pool borrows the testbeds; hx_runner_release frees the pool.
 */
#ifndef HX_POOL_H
#define HX_POOL_H

#include <pthread.h>
#include <stdbool.h>

#include "generators/gen.h"
#include "testbeds/tb.h"

#define HX_POOL_MAX 64

/* Invariant: rules_key is "" or the key of the levels `rules` came from (applied). */
struct hx_slot {
	struct tb *tb;            /* borrowed */
	struct gen_rules *rules;  /* currently applied */
	char rules_key[33];
	bool needs_reset;         /* rules fell back to software: clear before new rules */
	bool busy, lost;
};

struct hx_pool {
	pthread_mutex_t mu;
	pthread_cond_t freed;
	unsigned n, alive;
	struct hx_slot slot[HX_POOL_MAX];
};

/* A pool of the N testbeds TB[] (1..HX_POOL_MAX). NULL when out of memory. */
struct hx_pool *hx_pool_new(struct tb *const *tb, unsigned n);
void hx_pool_free(struct hx_pool *p);
/* Wait (holding P->mu, as every call below) for a free slot: its index, or -ENODEV when
 * every slot was lost. */
int hx_pool_take(struct hx_pool *p);
void hx_pool_give(struct hx_pool *p, unsigned i);
/* Take slot I out of the pool for good (it stays busy). Returns the slots still alive. */
unsigned hx_pool_lose(struct hx_pool *p, unsigned i);

#endif
