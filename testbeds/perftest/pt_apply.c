/* SPDX-License-Identifier: MIT */
/*
 * pt_apply: programming the hosts' eSwitches with tc (pt_tb.h, pt_tc.h). Assumes the hosts'
 * representors, uplink and VXLAN device are ours: cleanup deletes every filter of every chain
 * it used on them. tc runs with -force so one refused rule does not stop the batch; what the
 * NIC took is read back from `tc -s -j filter show` (fewer filters than rendered: the next
 * measure reports apply_failed; not_in_hw filters are the software fallback finding).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_tb.h"

static char *const tc_batch[] = { "tc", "-force", "-batch", "-", NULL };

static const struct pt_wrap tc_wrap = { .sudo = true, .stdin = true };

static int run_batch(struct tb_perftest *t, unsigned h, const char *batch, struct scn_error *err)
{
	struct pt_proc *p = NULL;
	/* exit status is no verdict (-force, existing qdiscs): the read-back is */
	int rc = pt_tb_exec(t, h, tc_batch, &tc_wrap, batch, t->inv->tc_s, &p, err);

	pt_proc_free(p);
	return rc;
}

int pt_tb_cleanup(struct tb_perftest *t, struct scn_error *err)
{
	int first = 0;

	for (unsigned h = 0; h < t->inv->n_hosts; h++) {
		char *batch = NULL;
		int rc;

		if (!t->installed[h])
			continue;
		if (pt_tc_render_cleanup(&t->scope[h], &batch) < 0)
			return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
		if (t->dry_run)
			fprintf(t->dry, "  # remove the filters installed on %s (%u devices, chains "
				"0..%u)\n", t->inv->hosts[h].name, t->scope[h].n_devs,
				t->scope[h].max_chain);
		rc = run_batch(t, h, batch, err);
		free(batch);
		if (rc == 0)
			t->installed[h] = false;
		else if (!first)
			first = rc;
	}
	return first;
}

/* The first host of the other role in a pair with H. */
static unsigned peer_of(const struct pt_inventory *inv, unsigned h)
{
	for (unsigned i = 0; i < inv->n_pairs; i++) {
		if (inv->pairs[i].client == h)
			return inv->pairs[i].server;
		if (inv->pairs[i].server == h)
			return inv->pairs[i].client;
	}
	return h;
}

static int install(struct tb_perftest *t, unsigned h, const struct topo_ruleset *rs,
		   struct scn_error *err)
{
	const struct pt_host *host = &t->inv->hosts[h];
	struct pt_tc_devs d = {
		.uplink = host->uplink, .vxlan = host->vxlan, .reps = (const char (*)[64])host->reps,
		.n_reps = host->n_reps, .vtep_ip = host->vtep_ip,
		.peer_vtep_ip = t->inv->hosts[peer_of(t->inv, h)].vtep_ip,
		.skip_sw = t->inv->tc_skip_sw, .tail_counter = t->inv->tc_tail_counter,
	};
	char *batch = NULL;
	int rc;

	if ((rc = pt_tc_render(rs, &d, &batch, &t->scope[h], err)) < 0)
		return rc;
	if (t->scope[h].n_rules == 0) {
		free(batch);
		return 0;
	}
	t->installed[h] = true; /* even a failed batch may have left filters */
	if (t->dry_run) {
		size_t lines = 0;

		for (const char *p = batch; *p; p++)
			lines += *p == '\n';
		fprintf(t->dry, "  # tc batch for %s: %zu lines (%zu filters on %u devices); "
			"first line: %.*s\n", host->name, lines, t->scope[h].n_rules,
			t->scope[h].n_devs, (int)strcspn(batch, "\n"), batch);
	}
	rc = run_batch(t, h, batch, err);
	free(batch);
	return rc;
}

static int read_back(struct tb_perftest *t, unsigned h, struct scn_error *err)
{
	for (unsigned i = 0; i < t->scope[h].n_devs; i++) {
		char *const show[] = { "tc", "-s", "-j", "filter", "show", "dev",
				       t->scope[h].devs[i], "ingress", NULL };
		struct pt_proc *p = NULL;
		size_t len;
		int rc = pt_tb_exec(t, h, show, &tc_wrap, NULL, t->inv->tc_s, &p, err);

		if (rc == 0 && p) {
			const char *out = pt_proc_out(p, &len);

			rc = pt_tc_count_json(out, len, &t->tc, err);
		}
		pt_proc_free(p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int pt_tb_apply(struct tb *tb, const struct gen_rules *rules, struct scn_error *err)
{
	struct tb_perftest *t = pt_tb_of(tb);
	double t0 = pt_now();
	size_t rendered = 0;
	int rc;

	t->refused = false;
	t->have_tc = false;
	memset(&t->tc, 0, sizeof(t->tc));
	if (t->dry_run)
		fprintf(t->dry, "apply: %s\n", t->inv->eswitch == PT_ESW_TC ?
			"program the eSwitch rule sets with tc" : "eswitch: none (rules not "
			"programmed)");
	if (t->inv->eswitch != PT_ESW_TC || !rules)
		return 0;
	if ((rc = pt_tb_cleanup(t, err)) < 0)
		return rc;
	for (unsigned h = 0; h < t->inv->n_hosts; h++) {
		enum gen_host gh = t->inv->role[h] == PT_ROLE_CLIENT ? GEN_CLIENT : GEN_SERVER;

		if (!pt_tb_host_used(t, h) || !rules->host[gh])
			continue;
		if ((rc = install(t, h, rules->host[gh], err)) < 0 ||
		    (rc = read_back(t, h, err)) < 0) {
			struct scn_error e2;

			pt_tb_cleanup(t, &e2);
			return rc;
		}
		rendered += t->scope[h].n_rules;
	}
	t->have_tc = !t->dry_run;
	t->refused = !t->dry_run && t->tc.filters < rendered;
	t->pending_cost_s += pt_now() - t0;
	return 0;
}
