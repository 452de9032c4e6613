/* SPDX-License-Identifier: MIT */
/*
 * pt_cmd: perftest argv from a traffic spec (pt_cmd.h). Assumes perftest 6.06 options
 * (docs/background.md): -s up to 8388608, MTU 256..4096, UD only with send.
 */
#include <errno.h>
#include <stdio.h>

#include "testbeds/perftest/pt_cmd.h"

double pt_cmd_run_seconds(const struct pt_inventory *inv, const struct gen_traffic *t)
{
	return t->iterations == 0 && t->duration_s > 0 ? t->duration_s : inv->run_s;
}

static int check(const struct pt_inventory *inv, const struct gen_traffic *t,
		 struct scn_error *err)
{
	if (t->verb >= TOPO_VERB_COUNT)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "perftest: unknown verb %d",
				     (int)t->verb);
	if (t->msg_size < 1 || t->msg_size > 8388608)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "perftest: message size %u is "
				     "outside 1..8388608", t->msg_size);
	if (t->mtu && (t->mtu < 256 || t->mtu > 4096 || (t->mtu & (t->mtu - 1))))
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "perftest: MTU %u is not one of "
				     "256, 512, 1024, 2048, 4096", t->mtu);
	if (t->verb != TOPO_VERB_SEND && inv->connection[0] == 'U' && inv->connection[1] == 'D')
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "perftest: UD connections only "
				     "carry send, not %s", topo_verb_name(t->verb));
	return 0;
}

int pt_cmd_argv(const struct pt_inventory *inv, const struct pt_host *h,
		const struct gen_traffic *t, unsigned tcp_port, const char *server_ip,
		struct pt_argv *out, struct scn_error *err)
{
	bool bw = t->metric == GEN_METRIC_BW;
	int rc;

	if ((rc = check(inv, t, err)) < 0)
		return rc;
	rc = pt_argv_addf(out, "%s/ib_%s_%s", inv->bin_dir, topo_verb_name(t->verb),
			  bw ? "bw" : "lat");
	if (!rc)
		rc = pt_argv_addl(out, "-d", h->device, NULL);
	if (!rc)
		rc = pt_argv_add(out, "-i") || pt_argv_addf(out, "%u", h->ib_port);
	if (!rc && h->gid_index >= 0)
		rc = pt_argv_add(out, "-x") || pt_argv_addf(out, "%d", h->gid_index);
	if (!rc)
		rc = pt_argv_addl(out, "-c", inv->connection, NULL) || pt_argv_add(out, "-p") ||
		     pt_argv_addf(out, "%u", tcp_port) || pt_argv_add(out, "-s") ||
		     pt_argv_addf(out, "%u", t->msg_size);
	if (!rc && t->mtu)
		rc = pt_argv_add(out, "-m") || pt_argv_addf(out, "%u", t->mtu);
	if (!rc && t->iterations)
		rc = pt_argv_add(out, "-n") || pt_argv_addf(out, "%u", t->iterations);
	else if (!rc && t->duration_s > 0)
		rc = pt_argv_add(out, "-D") || pt_argv_addf(out, "%.0f", t->duration_s < 1 ? 1 :
							    t->duration_s);
	if (!rc)
		rc = pt_argv_add(out, "-F");
	if (!rc && bw)
		rc = pt_argv_add(out, "--report_gbits") || pt_argv_add(out, "-q") ||
		     pt_argv_addf(out, "%u", t->qps ? t->qps : 1);
	if (!rc && bw && t->tx_depth)
		rc = pt_argv_add(out, "-t") || pt_argv_addf(out, "%u", t->tx_depth);
	if (!rc && t->traffic_class)
		rc = pt_argv_add(out, "-S") || pt_argv_addf(out, "%u", t->traffic_class);
	if (!rc && t->page_size >= (2u << 20))
		rc = pt_argv_add(out, "--use_hugepages");
	if (!rc && inv->rdma_cm)
		rc = pt_argv_add(out, "-R");
	if (!rc && server_ip)
		rc = pt_argv_add(out, server_ip);
	if (rc)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "perftest: out of memory");
	return 0;
}
