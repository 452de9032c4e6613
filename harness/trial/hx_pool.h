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
#include <stdint.h>

#include "generators/gen.h"
#include "testbeds/tb.h"

#define HX_POOL_MAX 64

/* A built rule set, shared by the slots that apply it (built once, however many slots
 * program it). Invariant: refs counts the slots holding it and the trials about to apply
 * it; an entry whose refs drop to 0 is freed. */
struct hx_rules {
	struct gen_rules *rules;
	char key[33];
	unsigned refs;
};

/* Invariant: rules_key is "" or the key of the rules held (applied) in `rules`. */
struct hx_slot {
	struct tb *tb;            /* borrowed */
	struct hx_rules *rules;   /* currently applied (a reference), NULL: none */
	char rules_key[33];
	bool needs_reset;         /* rules fell back to software: clear before new rules */
	bool busy, lost;
};

struct hx_pool {
	pthread_mutex_t mu;
	pthread_cond_t freed;
	unsigned n, alive;
	struct hx_slot slot[HX_POOL_MAX];
	char last_lost[256];       /* why the last slot was taken out */
	pthread_mutex_t build_mu;  /* guards built[]: one rule set is built at a time */
	struct hx_rules built[2 * HX_POOL_MAX];
};

/* A pool of the N testbeds TB[] (1..HX_POOL_MAX). NULL when out of memory. */
struct hx_pool *hx_pool_new(struct tb *const *tb, unsigned n);
void hx_pool_free(struct hx_pool *p);
/* Wait (holding P->mu, as every call below) for a free slot: its index, or -ENODEV when
 * every slot was lost. A free slot that has RULES_KEY's rules applied (may be NULL) is
 * taken first: it need not be programmed again. */
int hx_pool_take(struct hx_pool *p, const char *rules_key);
void hx_pool_give(struct hx_pool *p, unsigned i);
/* Take slot I out of the pool for good (it stays busy) because of WHY. Returns the slots
 * still alive. */
unsigned hx_pool_lose(struct hx_pool *p, unsigned i, const char *why);

/* The rule sets of L (key KEY, seed SEED) with a reference taken: found built, or built now
 * (gen_rules_cache_get through *CACHE, made first unless PLAIN; NULL: a plain
 * gen_rules_build; its error as it returned it). Takes P->build_mu, not P->mu: *CACHE is
 * read and made only under it (slots' threads build their first rule sets at once). */
int hx_pool_rules(struct hx_pool *p, struct gen_rules_cache **cache, bool plain,
		  const struct gen_levels *l, const char *key, uint64_t seed, struct hx_rules **out,
		  struct scn_error *err);
/* Drop a reference (R may be NULL); the last one frees the rule sets. */
void hx_pool_rules_put(struct hx_pool *p, struct hx_rules *r);

#endif
