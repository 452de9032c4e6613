/* SPDX-License-Identifier: MIT */
/*
 * pt_slurm: the slots of a testbed file of kind slurm (pt_slots.h). The node list (the
 * file's slurm.nodes, else $SLURM_JOB_NODELIST: scalacn runs inside salloc or sbatch) is
 * expanded by `scontrol show hostnames`; nodes are paired in order (client, server) or, with
 * pairing loopback, each node runs both ends. Every host is reached by `srun --nodelist
 * NODE` (pt_host.h); the server's data address is the node name's IPv4 address as this host
 * resolves it (127.0.0.1 in loopback). The slots carry no node name in the identity, so a
 * campaign resumed in another allocation finds its trials.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_argv.h"
#include "testbeds/perftest/pt_proc.h"
#include "testbeds/perftest/pt_slots.h"

#define PT_SLURM_MAX_NODES 128

int pt_slurm_parse_hostnames(const char *text, char (*nodes)[256], unsigned max, unsigned *n,
			     struct scn_error *err)
{
	const char *p = text;

	*n = 0;
	while (p && *p) {
		size_t len = strcspn(p, "\n");
		char name[256];

		if (len >= sizeof(name))
			return scn_error_set(err, SCN_ERR_DEVICE, -EINVAL, "slurm: node name of "
					     "%zu characters", len);
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
		if (!name[0])
			continue;
		if (pt_valid_host("node", name, NULL) < 0)
			return scn_error_set(err, SCN_ERR_DEVICE, -EINVAL, "slurm: scontrol gave "
					     "'%.80s', not a node name", name);
		if (*n >= max)
			return scn_error_set(err, SCN_ERR_CONFIG, -E2BIG, "slurm: more than %u "
					     "nodes", max);
		snprintf(nodes[(*n)++], sizeof(nodes[0]), "%s", name);
	}
	return 0;
}

/* `scontrol show hostnames LIST` into NODES. */
static int expand(const struct pt_inventory *inv, const char *list, char (*nodes)[256],
		  unsigned *n, struct scn_error *err)
{
	char *argv[] = { "scontrol", "show", "hostnames", (char *)list, NULL };
	struct pt_spawn sp = { .argv = argv };
	struct pt_proc *p = NULL;
	int rc = pt_proc_run(&sp, inv->command_s, &p, err);

	if (rc == 0 && pt_proc_exit_code(p) != 0)
		rc = scn_error_set(err, SCN_ERR_DEVICE, -EIO, "slurm: scontrol show hostnames "
				   "'%.200s' failed: %.300s", list, pt_proc_err(p, NULL));
	if (rc == 0)
		rc = pt_slurm_parse_hostnames(pt_proc_out(p, NULL), nodes, PT_SLURM_MAX_NODES, n,
					      err);
	if (rc < 0 && err && err->cls == SCN_ERR_CONFIG && rc == -ENOENT)
		scn_error_set(err, SCN_ERR_CONFIG, rc, "slurm: scontrol not found: run where "
			      "Slurm's client commands are installed");
	pt_proc_free(p);
	return rc;
}

/* The host of NODE for ROLE (client or server) of a slot. */
static int node_host(const struct pt_inventory *inv, const char *node, const char *role,
		     bool loopback, struct pt_host *h, struct scn_error *err)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int gai;

	*h = inv->tmpl;
	snprintf(h->name, sizeof(h->name), "%.50s-%s", node, role);
	h->transport = PT_TR_SRUN;
	snprintf(h->node, sizeof(h->node), "%s", node);
	snprintf(h->data_ip, sizeof(h->data_ip), "127.0.0.1");
	if (!loopback) {
		if ((gai = getaddrinfo(node, NULL, &hints, &ai)) != 0)
			return scn_error_set(err, SCN_ERR_DEVICE, -EHOSTUNREACH, "slurm: node %s "
					     "has no IPv4 address here: %s", node, gai_strerror(gai));
		inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr,
			  h->data_ip, sizeof(h->data_ip));
		freeaddrinfo(ai);
	}
	if (!h->vtep_ip[0])
		memcpy(h->vtep_ip, h->data_ip, sizeof(h->vtep_ip));
	return 0;
}

int pt_slurm_slots(const struct pt_inventory *inv, struct pt_inventory **out, unsigned max,
		   unsigned *n, struct scn_error *err)
{
	const char *list = inv->slurm_nodes[0] ? inv->slurm_nodes : getenv("SLURM_JOB_NODELIST");
	char (*nodes)[256] = calloc(PT_SLURM_MAX_NODES, sizeof(*nodes));
	unsigned nn = 0, per = inv->slurm_loopback ? 1 : 2, k;
	int rc;

	*n = 0;
	if (!nodes)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "slurm: out of memory");
	if (!list || !list[0])
		rc = scn_error_set(err, SCN_ERR_CONFIG, -ENOENT, "%s: not inside a Slurm allocation "
				   "(no SLURM_JOB_NODELIST): run under salloc or sbatch, or give "
				   "slurm.nodes", inv->file);
	else
		rc = expand(inv, list, nodes, &nn, err);
	k = nn / per < max ? nn / per : max;
	if (rc == 0 && k == 0)
		rc = scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "%s: %u node%s cannot make a "
				   "client/server pair (pairing: loopback runs both on one node)",
				   inv->file, nn, nn == 1 ? "" : "s");
	for (unsigned i = 0; rc == 0 && i < k; i++) {
		struct pt_host c, s;
		const char *cn = nodes[i * per], *sn = nodes[i * per + per - 1];

		if ((rc = node_host(inv, cn, "client", per == 1, &c, err)) == 0 &&
		    (rc = node_host(inv, sn, "server", per == 1, &s, err)) == 0 &&
		    (rc = pt_slot_new(inv, &c, &s, i, k, &out[i], err)) == 0)
			(*n)++;
	}
	free(nodes);
	return rc;
}
