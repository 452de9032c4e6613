/* SPDX-License-Identifier: MIT */
/*
 * pt_inventory: the testbed file of kind perftest: which hosts, how to reach them, which
 * RNIC each one has, which pairs run traffic, how the eSwitch is programmed, timeouts.
 *
 *   kind: perftest
 *   name: lab-a                          # part of the testbed identity
 *   eswitch: tc                          # tc | none
 *   tc: {skip_sw: false}                 # skip_sw: a rule the NIC refuses fails the add
 *   perftest: {bin_dir: /usr/bin, connection: RC, rdma_cm: false, run_s: 60}
 *   timeouts: {setup_s: 10, slack_s: 10, listen_s: 10, tc_s: 120, command_s: 30}
 *   retries: 2                           # for transient errors only
 *   ports: {base: 18515, count: 256}     # perftest out-of-band TCP ports
 *   dry_run: false
 *   hosts:
 *     - name: a
 *       transport: ssh                   # local | ssh | kubectl
 *       ssh: {host: lab-a, user: lab, port: 22, jump: bastion, identity: ~/.ssh/id_lab}
 *       kubectl: {pod: perftest-0, namespace: default, container: perftest, context: x}
 *       sudo: true                       # prefix tc with `sudo -n`
 *       data_ip: 192.168.10.1            # IPv4 the client dials (server side)
 *       rnic: {device: mlx5_0, ib_port: 1, gid_index: 3, netdev: enp1s0f0np0}
 *       eswitch: {uplink: enp1s0f0np0, vxlan: vxlan_sys_4789, vtep_ip: 192.168.10.1,
 *                 representors: [pf0vf0, pf0vf1]}
 *   pairs:
 *     - {client: a, server: b}
 *   pool: false                          # true: each pair is a slot of its own (one trial
 *                                        # per slot at a time, `run --jobs K`), not load
 *                                        # run together inside every trial
 *
 * A host may also be reached through Slurm: `transport: srun`, `srun: {node: NODE}` runs
 * each command as a job step on NODE inside the current allocation (pt_host.h).
 *
 * The testbed file of kind slurm (pt_slurm.c builds the slots from the allocation):
 *
 *   kind: slurm
 *   name: lab-slurm                      # part of the testbed identity (not the nodes)
 *   slurm: {nodes: "n[01-08]", pairing: nodes}  # nodes: default $SLURM_JOB_NODELIST;
 *                                        # pairing: nodes (client, server, client, ...)
 *                                        # or loopback (each node runs both ends)
 *   host: {sudo: true, rnic: {...}, eswitch: {...}}  # every node, as a host above
 *   eswitch, tc, perftest, timeouts, retries, ports: as for perftest
 *
 * The testbed file of kind kubernetes (pt_kube.c builds the slots from the pods):
 *
 *   kind: kubernetes
 *   name: lab-k8s
 *   kubernetes: {selector: app=scalacn-perftest, namespace: rdma, container: perftest,
 *                context: lab}            # `kubectl get pods -l SELECTOR -o json`
 *   host: {...}; eswitch, tc, perftest, timeouts, retries, ports: as for kind slurm
 *
 * Every name that reaches a command line is validated (pt_argv.h); a host may be the client
 * of some pairs or the server of others, not both (its rule set would be ambiguous).
 * Ownership: pt_inventory_load returns a struct freed by pt_inventory_free (NULL ok).
 */
#ifndef PT_INVENTORY_H
#define PT_INVENTORY_H

#include <stdbool.h>

#include "common/scn_error.h"

#define PT_MAX_HOSTS 16
#define PT_MAX_PAIRS 16
#define PT_MAX_REPS 64

enum pt_transport { PT_TR_LOCAL = 0, PT_TR_SSH, PT_TR_KUBECTL, PT_TR_SRUN };
enum pt_eswitch { PT_ESW_NONE = 0, PT_ESW_TC };

struct pt_host {
	char name[64];
	enum pt_transport transport;
	/* ssh */
	char ssh_host[256], ssh_user[64], ssh_jump[256], ssh_identity[512];
	unsigned ssh_port;  /* 0: ssh's default */
	/* kubectl */
	char pod[128], ns[64], container[64], kcontext[128];
	/* srun */
	char node[256];
	bool sudo;
	char data_ip[64];
	/* RNIC */
	char device[64];
	unsigned ib_port;
	int gid_index;      /* -1: perftest's default */
	char netdev[64];
	/* eSwitch (tc) */
	char uplink[64], vxlan[64], vtep_ip[64];
	char reps[PT_MAX_REPS][64];
	unsigned n_reps;
};

/* Host roles. Invariant: role[i] of a host in a pair is its role there; unused hosts NONE. */
enum pt_role { PT_ROLE_NONE = 0, PT_ROLE_CLIENT, PT_ROLE_SERVER };

struct pt_pair {
	unsigned client, server; /* indices into hosts */
};

struct pt_inventory {
	char name[64];
	char file[512];
	struct pt_host hosts[PT_MAX_HOSTS];
	enum pt_role role[PT_MAX_HOSTS];
	unsigned n_hosts;
	struct pt_pair pairs[PT_MAX_PAIRS];
	unsigned n_pairs;
	enum pt_eswitch eswitch;
	bool tc_skip_sw;
	bool tc_tail_counter;   /* tc: {tail_counter: true}: pt_tc_devs.tail_counter */
	char bin_dir[256];
	char connection[8];  /* RC, UC, UD, XRC, DC */
	bool rdma_cm;
	double run_s;        /* expected traffic time when the trial gives iterations */
	double setup_s, slack_s, listen_s, tc_s, command_s;
	unsigned retries;
	unsigned port_base, port_count;
	bool dry_run;
	bool pool;           /* each pair is a slot (tb_pool.h) */
	/* kind slurm: no hosts or pairs in the file; pt_slurm.c makes them from the nodes */
	bool slurm;
	char slurm_nodes[1024]; /* a Slurm node list ("" = $SLURM_JOB_NODELIST) */
	bool slurm_loopback;    /* each node runs both ends of its slot */
	struct pt_host tmpl;    /* every node's host settings (name, transport, data_ip unset) */
	/* kind kubernetes: pods selected by label, paired across nodes (pt_kube.c); the
	 * template's pod fields hold the namespace, container and context */
	bool kube;
	char kube_selector[256];
};

int pt_inventory_load(const char *path, struct pt_inventory **out, struct scn_error *err);
void pt_inventory_free(struct pt_inventory *inv);

const char *pt_transport_name(enum pt_transport t); /* "local", "ssh", "kubectl", "srun" */

#endif
