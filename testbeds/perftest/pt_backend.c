/* SPDX-License-Identifier: MIT */
/*
 * pt_backend: the perftest and slurm testbeds' ops tables (tb_perftest.h): open the
 * inventory as one testbed or as the slots of a pool (pt_slots.h), describe
 * the RNICs, and close (removing the tc filters it installed). apply is pt_apply.c, measure
 * pt_measure.c. Assumes both ends of every pair carry the same RNIC model (the description
 * names the first client's; a mismatch is an error, since a trial key names one model).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_device.h"
#include "testbeds/perftest/pt_slots.h"
#include "testbeds/perftest/pt_tb.h"
#include "testbeds/tb_pool.h"

/* A testbed of the slot inventory INV (taken: freed on failure too). */
static int open_inventory(const char *path, struct pt_inventory *inv, const struct tb_ops *ops,
			  const struct tb_open_opts *o, struct tb **out, struct scn_error *err)
{
	struct tb_perftest *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t || pt_ports_new(inv->port_base, inv->port_count, &t->ports) < 0) {
		free(t);
		pt_inventory_free(inv);
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "perftest: out of memory");
	}
	t->base.ops = ops;
	t->inv = inv;
	t->dry_run = t->inv->dry_run || (o && o->dry_run);
	t->dry = o && o->dry_run_out ? o->dry_run_out : stdout;
	snprintf(t->identity, sizeof(t->identity), "perftest:%s", t->inv->name[0] ?
		 t->inv->name : path);
	*out = &t->base;
	return 0;
}

/* The ops of the file's kind: its struct tb says perftest, slurm or kubernetes. */
static const struct tb_ops *ops_of(const struct pt_inventory *inv)
{
	return inv->slurm ? &tb_slurm_ops : inv->kube ? &tb_kube_ops : &tb_perftest_ops;
}

/* Open the slots of the file (pt_slots.h), at most MAX. */
static int pt_open_slots(const char *path, const struct tb_open_opts *o, struct tb **out,
			 unsigned max, unsigned *n, struct scn_error *err)
{
	struct pt_inventory *inv = NULL, *slot[TB_POOL_MAX];
	const struct tb_ops *ops = &tb_perftest_ops;
	unsigned k = 0;
	int rc = pt_inventory_load(path, &inv, err);

	*n = 0;
	if (rc == 0) {
		ops = ops_of(inv);
		rc = pt_slots_of(inv, slot, max < TB_POOL_MAX ? max : TB_POOL_MAX, &k, err);
	}
	pt_inventory_free(inv);
	for (unsigned i = 0; i < k; i++) {
		if (rc < 0) { /* an earlier slot failed: the rest are not opened */
			pt_inventory_free(slot[i]);
			continue;
		}
		rc = open_inventory(path, slot[i], ops, o, &out[*n], err); /* takes slot[i] */
		*n += rc == 0;
	}
	for (unsigned i = 0; rc < 0 && i < *n; i++)
		tb_close(out[i]);
	if (rc < 0)
		*n = 0;
	return rc;
}

/* The file's first slot (the whole file unless it is a pool). A slurm or kubernetes file
 * is only read here: its first slot is found when the testbed is first described
 * (expand_first), so that opening a file runs no command. */
static int pt_open_opts(const char *path, const struct tb_open_opts *o, struct tb **out,
			struct scn_error *err)
{
	struct pt_inventory *inv = NULL;
	unsigned n = 0;
	int rc;

	*out = NULL;
	if ((rc = pt_inventory_load(path, &inv, err)) < 0)
		return rc;
	if (inv->slurm || inv->kube)
		return open_inventory(path, inv, ops_of(inv), o, out, err);
	pt_inventory_free(inv);
	return pt_open_slots(path, o, out, 1, &n, err);
}

/* A slurm or kubernetes testbed opened as one: its first slot, from the allocation or the
 * pods, replaces the file's inventory (the port range stays the file's). */
static int expand_first(struct tb_perftest *t, struct scn_error *err)
{
	struct pt_inventory *slot = NULL;
	unsigned n = 0;
	int rc;

	if (!(t->inv->slurm || t->inv->kube) || t->inv->n_hosts > 0)
		return 0;
	if ((rc = pt_slots_of(t->inv, &slot, 1, &n, err)) < 0)
		return rc;
	pt_inventory_free(t->inv);
	t->inv = slot;
	return 0;
}

static int pt_open(const char *path, struct tb **out, struct scn_error *err)
{
	return pt_open_opts(path, NULL, out, err);
}

static int discover(struct tb_perftest *t, unsigned h, struct pt_devinfo *d,
		    struct scn_error *err)
{
	const struct pt_host *host = &t->inv->hosts[h];
	char where[128];
	struct pt_argv a;
	struct pt_proc *p = NULL;
	int rc;

	snprintf(where, sizeof(where), "host %s (%s)", host->name,
		 pt_transport_name(host->transport));
	if (host->transport == PT_TR_LOCAL && !t->dry_run)
		return pt_device_query_local(host->device, host->ib_port, host->gid_index, where,
					     d, err);
	pt_argv_init(&a);
	rc = pt_device_argv(host->device, &a);
	if (rc == 0)
		rc = pt_tb_exec(t, h, a.v, NULL, NULL, t->inv->command_s, &p, err);
	if (rc == 0 && p) {
		size_t lo;
		const char *out = pt_proc_out(p, &lo);

		rc = pt_device_parse_devinfo(lo ? out : pt_proc_err(p, NULL), host->device,
					     host->ib_port, where, d, err);
	}
	pt_proc_free(p);
	pt_argv_free(&a);
	return rc;
}

static int pt_describe(struct tb *tb, struct tb_description *d, struct scn_error *err)
{
	static const char *const names[] = {
		"port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets",
		"out_of_buffer", "out_of_sequence", "packet_seq_err", "local_ack_timeout_err",
		"rnr_nak_retry_err", "np_cnp_sent", "rp_cnp_handled", "tc_in_hw", "tc_not_in_hw",
	};
	struct tb_perftest *t = pt_tb_of(tb);
	struct pt_devinfo info, first = { 0 };
	bool have = false;
	int rc;

	memset(d, 0, sizeof(*d));
	if ((rc = expand_first(t, err)) < 0)
		return rc;
	snprintf(d->kind, sizeof(d->kind), "perftest");
	if (t->dry_run)
		fprintf(t->dry, "describe: discover the RNICs\n");
	for (unsigned h = 0; h < t->inv->n_hosts; h++) {
		if (!pt_tb_host_used(t, h))
			continue;
		if ((rc = discover(t, h, &info, err)) < 0)
			return rc;
		if (t->dry_run)
			continue;
		if (have && strcmp(info.model, first.model) != 0)
			return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "perftest: hosts carry "
					     "different RNICs (%s, %s); test one model at a time",
					     first.model, info.model);
		if (!have)
			first = info;
		have = true;
	}
	snprintf(d->rnic_model, sizeof(d->rnic_model), "%s", have ? first.model : "dry run");
	snprintf(d->firmware, sizeof(d->firmware), "%s", have ? first.firmware : "dry run");
	snprintf(d->identity, sizeof(d->identity), "%.60s:%.48s:%.40s", t->identity, d->rnic_model,
		 d->firmware);
	d->line_rate_gbps = have ? first.line_rate_gbps : 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		snprintf(d->counter_names[d->n_counter_names++], sizeof(d->counter_names[0]),
			 "%s", names[i]);
	return 0;
}

static void pt_close(struct tb *tb)
{
	struct tb_perftest *t;
	struct scn_error e;

	if (!tb)
		return;
	t = pt_tb_of(tb);
	if (t->dry_run)
		fprintf(t->dry, "close:\n");
	pt_tb_cleanup(t, &e);
	pt_ports_free(t->ports);
	pt_inventory_free(t->inv);
	free(t);
}

/* One backend, three kinds of file: the kind decides how the slots are found. */
#define PT_OPS(KIND)                                                                          \
	{ .kind = KIND, .open = pt_open, .describe = pt_describe, .apply = pt_tb_apply,       \
	  .measure = pt_tb_measure, .close = pt_close, .open_opts = pt_open_opts,             \
	  .open_slots = pt_open_slots }

const struct tb_ops tb_perftest_ops = PT_OPS("perftest");
/* kind slurm: perftest on the nodes of the Slurm allocation (pt_slurm.c). */
const struct tb_ops tb_slurm_ops = PT_OPS("slurm");
/* kind kubernetes: perftest in pods selected by label, paired across nodes (pt_kube.c). */
const struct tb_ops tb_kube_ops = PT_OPS("kubernetes");
