/* SPDX-License-Identifier: MIT */
/*
 * gen_perm_memo: the seeded flow permutations of the rule builder (gen_rules.c, side_perm)
 * kept for the next build. A side's permutation is a function of the flow count and its
 * random stream only (not of the masks, the layout or the other side), and the shuffle
 * that draws it is a random walk over F entries: at 64K flows x 4 sides about an eighth of
 * a rule set's build. A campaign rebuilds a host with the same flows and seed again and
 * again (every mask level, every layout), so the last GEN_PERM_MEMO_SLOTS permutations (at
 * most GEN_PERM_MEMO_BYTES in all, least recently used given back first) are kept and
 * copied out instead of drawn again. The copy is the permutation the shuffle draws, entry
 * for entry (test-generators compares builds with the memo and without).
 * SCALACN_RULES_CACHE=off in the environment (every rule set built from scratch, the
 * reference bench-campaign and test-same-results compare against) turns it off too.
 * Thread-safe (one mutex; a hit copies under it). gen_perm_memo_clear() empties it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "generators/gen_flows.h"

#define GEN_PERM_MEMO_SLOTS 8
#define GEN_PERM_MEMO_BYTES ((size_t)32 << 20)

static struct perm_slot {
	uint32_t *perm; /* NULL: empty */
	uint32_t flows;
	uint64_t stream;
	uint64_t used; /* when last taken or kept: the least recent goes first */
} slots[GEN_PERM_MEMO_SLOTS];
static size_t held_bytes;
static uint64_t clock_now;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int disabled = -1; /* SCALACN_RULES_CACHE=off: every permutation drawn */

static bool memo_off(void)
{
	if (disabled < 0) {
		const char *v = getenv("SCALACN_RULES_CACHE");

		disabled = v && strcmp(v, "off") == 0;
	}
	return disabled;
}

bool gen_perm_memo_get(uint32_t flows, uint64_t stream, uint32_t *perm)
{
	bool hit = false;

	if (memo_off() || flows == 0)
		return false;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < GEN_PERM_MEMO_SLOTS && !hit; i++)
		if (slots[i].perm && slots[i].flows == flows && slots[i].stream == stream) {
			memcpy(perm, slots[i].perm, sizeof(*perm) * flows);
			slots[i].used = ++clock_now;
			hit = true;
		}
	pthread_mutex_unlock(&lock);
	return hit;
}

/* The slot to keep BYTES in (a free one, or the least recently used, given back), or -1
 * when BYTES alone is over the bound. Lock held. */
static int slot_for(size_t bytes)
{
	if (bytes > GEN_PERM_MEMO_BYTES)
		return -1;
	for (;;) {
		int empty = -1, lru = -1;

		for (int i = 0; i < GEN_PERM_MEMO_SLOTS; i++)
			if (!slots[i].perm)
				empty = empty < 0 ? i : empty;
			else if (lru < 0 || slots[i].used < slots[lru].used)
				lru = i;
		if (empty >= 0 && held_bytes + bytes <= GEN_PERM_MEMO_BYTES)
			return empty;
		free(slots[lru].perm);
		held_bytes -= sizeof(uint32_t) * slots[lru].flows;
		slots[lru].perm = NULL;
	}
}

void gen_perm_memo_put(uint32_t flows, uint64_t stream, const uint32_t *perm)
{
	size_t bytes = sizeof(*perm) * flows;
	uint32_t *copy;
	int i;

	if (memo_off() || flows == 0 || !(copy = malloc(bytes)))
		return;
	memcpy(copy, perm, bytes);
	pthread_mutex_lock(&lock);
	i = slot_for(bytes);
	if (i >= 0) {
		slots[i] = (struct perm_slot){ copy, flows, stream, ++clock_now };
		held_bytes += bytes;
		copy = NULL;
	}
	pthread_mutex_unlock(&lock);
	free(copy);
}

void gen_perm_memo_clear(void)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < GEN_PERM_MEMO_SLOTS; i++) {
		free(slots[i].perm);
		slots[i].perm = NULL;
	}
	held_bytes = 0;
	pthread_mutex_unlock(&lock);
}
