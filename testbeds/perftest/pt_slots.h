/* SPDX-License-Identifier: MIT */
/*
 * pt_slots: the slots of a perftest or slurm testbed file, each an inventory of one
 * client/server pair (tb_pool.h). `pool: true`: one slot per entry of `pairs`. kind slurm:
 * the allocation's nodes (pt_slurm.c). Every slot gets its share of the file's port range,
 * so slots on one host never ask for the same port.
 *
 * Ownership: the slot inventories are malloc'd; the caller frees each with
 * pt_inventory_free.
 */
#ifndef PT_SLOTS_H
#define PT_SLOTS_H

#include "testbeds/perftest/pt_inventory.h"

/* The slots of INV into OUT[0..*N-1] (at most MAX): its pairs when INV->pool, else INV as
 * the one slot (a copy). */
int pt_slots_of(const struct pt_inventory *inv, struct pt_inventory **out, unsigned max,
		unsigned *n, struct scn_error *err);
/* An inventory of one pair (CLIENT, SERVER) with INV's settings, port share I of K. */
int pt_slot_new(const struct pt_inventory *inv, const struct pt_host *client,
		const struct pt_host *server, unsigned i, unsigned k, struct pt_inventory **out,
		struct scn_error *err);
/* kind slurm: the nodes of INV->slurm_nodes or $SLURM_JOB_NODELIST, expanded by
 * `scontrol show hostnames`, paired in order (or each node alone with pairing loopback),
 * each pair a slot reached by srun. */
int pt_slurm_slots(const struct pt_inventory *inv, struct pt_inventory **out, unsigned max,
		   unsigned *n, struct scn_error *err);
/* The nodes of the node list text OUT_TEXT of `scontrol show hostnames` (one a line), as
 * validated host names into NODES[0..*N-1] (at most MAX). -EINVAL naming a bad line. */
int pt_slurm_parse_hostnames(const char *text, char (*nodes)[256], unsigned max, unsigned *n,
			     struct scn_error *err);

#endif
