/* SPDX-License-Identifier: MIT */
/*
 * pt_slots: the slots of a perftest, slurm or kubernetes testbed file, each an inventory of
 * one client/server pair (tb_pool.h). `pool: true`: one slot per entry of `pairs`. kind
 * slurm: the allocation's nodes (pt_slurm.c); kind kubernetes: pods by label (pt_kube.c). Every slot gets its share of the file's port range,
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

/* kind kubernetes (pt_kube.c): a usable pod of `kubectl get pods -o json`. */
#define PT_KUBE_MAX_PODS 128
struct pt_kube_pod {
	char name[128], ns[64], node[256], ip[64], container[64];
};
/* The Running pods with a node and an IPv4 pod IP of the PodList JSON, sorted by name; the
 * container is CONTAINER, or else the pod's first. */
int pt_kube_parse_pods(const char *json, const char *container, struct pt_kube_pod *pods,
		       unsigned max, unsigned *n, struct scn_error *err);
/* Pairs (client, server) of PODS[0..N-1] on different nodes, in order; how many (<= MAX). */
unsigned pt_kube_pair(const struct pt_kube_pod *pods, unsigned n, unsigned (*pairs)[2],
		      unsigned max);
/* The slots of INV from the PodList JSON (what kubectl printed). */
int pt_kube_slots_from(const struct pt_inventory *inv, const char *json,
		       struct pt_inventory **out, unsigned max, unsigned *n, struct scn_error *err);
/* kind kubernetes: run kubectl get pods and make the slots. */
int pt_kube_slots(const struct pt_inventory *inv, struct pt_inventory **out, unsigned max,
		  unsigned *n, struct scn_error *err);

#endif
