/* SPDX-License-Identifier: MIT */
/*
 * fuzz-config: libFuzzer entry for the configuration loaders: plans (hx_plan_load), testbed
 * files (tb_open: kind sim with its profile, kind perftest with its inventory), simulator
 * profiles (sim_profile_load) and perftest inventories (pt_inventory_load). One input is
 * written to a file of a private temporary directory (the loaders read files; includes
 * resolve next to it, where inc.yaml holds a small mapping) and fed to every loader; each
 * result is checked for what the loaders promise: 0 with a sane value, or a negative errno
 * with a message, a file and a position that is not negative. A violation abort()s so the
 * fuzzer (or the gcc smoke driver, fuzz-config-main.c) reports it. Bounded by construction
 * (yamlcfg's caps): an input that hangs is a finding too (libFuzzer -timeout, meson's timeout).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/plan/hx_plan.h"
#include "testbeds/perftest/pt_inventory.h"
#include "testbeds/sim/sim_internal.h"
#include "testbeds/tb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], input[128], include[128];

static void check(bool ok)
{
	if (!ok)
		abort();
}

static void cleanup(void)
{
	unlink(input);
	unlink(include);
	rmdir(dir);
}

static void write_file(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	check(fd >= 0);
	check(size == 0 || write(fd, data, size) == (ssize_t)size);
	check(close(fd) == 0);
}

static void prepare(void)
{
	static const char inc[] = "description: included\n";
	const char *tmp = getenv("TMPDIR");

	if (dir[0])
		return;
	snprintf(dir, sizeof(dir), "%s/scalacn-fuzzcfg-XXXXXX", tmp && strlen(tmp) < 30 ? tmp
										: "/tmp");
	check(mkdtemp(dir) != NULL);
	snprintf(input, sizeof(input), "%s/in.yaml", dir);
	snprintf(include, sizeof(include), "%s/inc.yaml", dir);
	write_file(include, inc, sizeof(inc) - 1);
	atexit(cleanup);
}

static void check_error(int rc, const struct scn_error *err)
{
	check(rc < 0 && err->code == rc && err->message[0] && err->file[0]);
	check(err->line >= 0 && err->column >= 0);
	check(err->cls == SCN_ERR_CONFIG || err->cls == SCN_ERR_INTERNAL ||
	      err->cls == SCN_ERR_USAGE);
	check(strlen(err->message) < sizeof(err->message));
}

static void plan(void)
{
	struct hx_plan *p = NULL;
	struct scn_error err;
	int rc = hx_plan_load(input, &p, &err);

	if (rc < 0) {
		check(p == NULL);
		check_error(rc, &err);
		return;
	}
	check(p && p->name[0] && p->repeats >= 1 && p->repeats <= 100);
	check(p->n_verbs >= 1 && p->n_metrics >= 1 && strlen(p->hash) == 16);
	check(p->n_dims <= HX_PLAN_MAX_DIMS && p->n_criteria <= HX_PLAN_MAX_CRITERIA);
	for (unsigned i = 0; i < p->n_dims; i++)
		check(p->dims[i].n_levels >= 1 && p->dims[i].n_levels <= HX_PLAN_MAX_LEVELS);
	hx_plan_free(p);
}

static void testbed(void)
{
	struct tb *tb = NULL;
	struct scn_error err;
	int rc = tb_open(input, &tb, &err);

	if (rc < 0) {
		check(tb == NULL);
		check_error(rc, &err);
		return;
	}
	check(tb != NULL);
	tb_close(tb);
}

static void profile(void)
{
	struct sim_profile *p = malloc(sizeof(*p));
	struct scn_error err;
	uint64_t hash = 0;
	int rc;

	check(p != NULL);
	rc = sim_profile_load(input, p, &hash, &err);
	if (rc < 0)
		check_error(rc, &err);
	else
		check(p->model[0] && p->line_rate_gbps > 0 && p->link.mtu <= p->link.max_mtu);
	free(p);
}

static void inventory(void)
{
	struct pt_inventory *inv = NULL;
	struct scn_error err;
	int rc = pt_inventory_load(input, &inv, &err);

	if (rc < 0) {
		check(inv == NULL);
		check_error(rc, &err);
		return;
	}
	if (inv && (inv->slurm || inv->kube)) { /* hosts come from the allocation or the pods */
		check(inv->n_hosts == 0 && inv->pool && (!inv->kube || inv->kube_selector[0]));
		pt_inventory_free(inv);
		return;
	}
	check(inv && inv->n_hosts >= 1 && inv->n_hosts <= PT_MAX_HOSTS);
	check(inv->n_pairs >= 1 && inv->n_pairs <= PT_MAX_PAIRS);
	for (unsigned i = 0; i < inv->n_pairs; i++)
		check(inv->pairs[i].client < inv->n_hosts && inv->pairs[i].server < inv->n_hosts);
	pt_inventory_free(inv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	prepare();
	write_file(input, data, size);
	plan();
	testbed();
	profile();
	inventory();
	return 0;
}
