/* SPDX-License-Identifier: MIT */
/*
 * tb_pool: a testbed of K independent slots. A slot is one client/server pair that runs one
 * trial at a time; K slots run K trials at once (`scalacn run --jobs K`). A backend declares
 * its slots in the testbed file (sim: `slots: K`; perftest: `pool: true`, one slot per
 * entry of `pairs`; slurm: one per pair of allocated nodes); a file without them is one slot.
 *
 * Every slot must show the same RNIC model and firmware (checked at open, a config error
 * naming the slot otherwise) and the same identity: trials are keyed by the testbed, not by
 * the slot, so a trial measured on any slot is the same trial (and --resume finds it).
 *
 * Ownership: tb_pool_open returns a pool freed by tb_pool_close (NULL ok), which closes the
 * slots. Slots are borrowed by callers; each may be used by one thread at a time.
 */
#ifndef TB_POOL_H
#define TB_POOL_H

#include "testbeds/tb.h"

#define TB_POOL_MAX 64

struct tb_pool;

/* Open the testbed file PATH as a pool (O as for tb_open_opts; a dry run is one slot). */
int tb_pool_open(const char *path, const struct tb_open_opts *o, struct tb_pool **out,
		 struct scn_error *err);
unsigned tb_pool_size(const struct tb_pool *p);
/* Slot I (0-based), or NULL when out of range. */
struct tb *tb_pool_slot(struct tb_pool *p, unsigned i);
/* The description every slot shares (slot 0's). */
const struct tb_description *tb_pool_description(const struct tb_pool *p);
void tb_pool_close(struct tb_pool *p);

/* Check that every one of N descriptions D[] shows D[0]'s RNIC model, firmware and
 * identity; a config error naming PATH and the first slot that differs otherwise. */
int tb_pool_check_alike(const char *path, const struct tb_description *d, unsigned n,
			struct scn_error *err);

#endif
