/* SPDX-License-Identifier: MIT */
/*
 * pt_slots: a perftest testbed file's pairs as slots of a pool (pt_slots.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_slots.h"

int pt_slot_new(const struct pt_inventory *inv, const struct pt_host *client,
		const struct pt_host *server, unsigned i, unsigned k, struct pt_inventory **out,
		struct scn_error *err)
{
	struct pt_inventory *s = malloc(sizeof(*s));
	unsigned share = inv->port_count / k;

	*out = NULL;
	if (!s)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "perftest: out of memory");
	if (share == 0) {
		free(s);
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "%s: ports.count %u cannot give "
				     "%u slots a port each", inv->file, inv->port_count, k);
	}
	*s = *inv;
	memset(s->hosts, 0, sizeof(s->hosts));
	memset(s->role, 0, sizeof(s->role));
	s->hosts[0] = *client;
	s->hosts[1] = *server;
	s->role[0] = PT_ROLE_CLIENT;
	s->role[1] = PT_ROLE_SERVER;
	s->n_hosts = 2;
	s->pairs[0] = (struct pt_pair){ .client = 0, .server = 1 };
	s->n_pairs = 1;
	s->port_base = inv->port_base + i * share;
	s->port_count = share;
	*out = s;
	return 0;
}

int pt_slots_of(const struct pt_inventory *inv, struct pt_inventory **out, unsigned max,
		unsigned *n, struct scn_error *err)
{
	unsigned k = inv->n_pairs < max ? inv->n_pairs : max;
	int rc = 0;

	*n = 0;
	if (inv->slurm)
		return pt_slurm_slots(inv, out, max, n, err);
	if (inv->kube)
		return pt_kube_slots(inv, out, max, n, err);
	if (!inv->pool) {
		if (!(out[0] = malloc(sizeof(*out[0]))))
			return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "perftest: out of memory");
		*out[0] = *inv;
		*n = 1;
		return 0;
	}
	for (unsigned i = 0; i < k && rc == 0; i++) {
		const struct pt_pair *p = &inv->pairs[i];

		rc = pt_slot_new(inv, &inv->hosts[p->client], &inv->hosts[p->server], i, k, &out[i],
				 err);
		*n += rc == 0;
	}
	return rc;
}
