/* SPDX-License-Identifier: MIT */
/*
 * topo_blocks: large rule storage kept from a freed rule set for the next one. A rule set's
 * records and value words are its two large arrays (a generated host rule set of 32K flows x
 * 2 directions: about 5.5 MB); glibc gives blocks that large back to the kernel when they are
 * freed (mmap, or trimming the top of the heap), so every rule set built after another paid
 * a page fault and the zeroing of a fresh page for every 4 KiB it wrote. Here a freed array
 * of at least TOPO_BLOCK_MIN bytes is kept instead (at most TOPO_BLOCKS of them, at most
 * TOPO_BLOCKS_BYTES in all, the oldest given back first), and an array of that size about to
 * be allocated takes the best-fitting kept block (not more than twice its size). The blocks
 * are ordinary malloc blocks (realloc and free work on them); their contents are not cleared
 * (rule storage is written before it is read). topo_storage_release() gives them all back,
 * and so does the process's exit. Thread-safe (one mutex, taken once per large array).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "topology/topo.h"
#include "topology/topo_ruleset_priv.h"

#define TOPO_BLOCKS 8
#define TOPO_BLOCKS_BYTES ((size_t)48 << 20)

static struct held {
	void *p;
	size_t bytes;
	uint64_t seq; /* when it was kept: the oldest goes first */
} held[TOPO_BLOCKS];
static size_t held_bytes;
static uint64_t next_seq;
static bool exit_hooked;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *topo__block_take(size_t bytes)
{
	int best = -1;
	void *p = NULL;

	if (bytes < TOPO_BLOCK_MIN)
		return NULL;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < TOPO_BLOCKS; i++)
		if (held[i].p && held[i].bytes >= bytes && held[i].bytes / 2 <= bytes &&
		    (best < 0 || held[i].bytes < held[best].bytes))
			best = i;
	if (best >= 0) {
		p = held[best].p;
		held_bytes -= held[best].bytes;
		held[best].p = NULL;
	}
	pthread_mutex_unlock(&lock);
	return p;
}

static void release_at_exit(void)
{
	topo_storage_release();
}

/* The slot for a block of BYTES (a free one, or the oldest's, which is given back), or -1
 * when BYTES alone is over the bound. Called with the lock held; frees blocks pushed out. */
static int slot_for(size_t bytes)
{
	for (;;) {
		int free_slot = -1, oldest = -1;

		for (int i = 0; i < TOPO_BLOCKS; i++) {
			if (!held[i].p)
				free_slot = free_slot < 0 ? i : free_slot;
			else if (oldest < 0 || held[i].seq < held[oldest].seq)
				oldest = i;
		}
		if (free_slot >= 0 && held_bytes + bytes <= TOPO_BLOCKS_BYTES)
			return free_slot;
		if (oldest < 0)
			return -1;
		free(held[oldest].p);
		held_bytes -= held[oldest].bytes;
		held[oldest].p = NULL;
	}
}

void topo__block_put(void *p, size_t bytes)
{
	int i;

	if (!p)
		return;
	if (bytes < TOPO_BLOCK_MIN || bytes > TOPO_BLOCKS_BYTES) {
		free(p);
		return;
	}
	pthread_mutex_lock(&lock);
	if (!exit_hooked)
		exit_hooked = atexit(release_at_exit) == 0;
	i = slot_for(bytes);
	if (i >= 0) {
		held[i] = (struct held){ .p = p, .bytes = bytes, .seq = next_seq++ };
		held_bytes += bytes;
	}
	pthread_mutex_unlock(&lock);
	if (i < 0)
		free(p);
}

void topo_storage_release(void)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < TOPO_BLOCKS; i++) {
		free(held[i].p);
		held[i].p = NULL;
	}
	held_bytes = 0;
	pthread_mutex_unlock(&lock);
}

size_t topo_storage_held(void)
{
	size_t n;

	pthread_mutex_lock(&lock);
	n = held_bytes;
	pthread_mutex_unlock(&lock);
	return n;
}
