/* SPDX-License-Identifier: MIT */
/*
 * test-slurm: campaigns through a real Slurm. Starts a one-node cluster on this host
 * (slurm-local.h: munged, slurmctld, slurmd with proctrack/linuxproc and task/none), then
 * runs `salloc -N1 scalacn run PLAN --testbed slurm.yaml` with fake perftest tools
 * (tests/ptfake.h) reached only through `srun` job steps: once with the node list of the
 * allocation (SLURM_JOB_NODELIST, expanded by scontrol), and once as a pool of two slots on
 * the node (slurm.nodes: "NODE,NODE", pairing loopback) with --jobs 2, whose trials are
 * spread over both slots and decide what the single slot decided. The daemons are stopped by
 * pid and checked gone. Exits 77 (skipped) only when a Slurm or munge program is missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "e2e_util.h"
#include "ptfake.h"
#include "slurm-local.h"

static struct slurm_local cluster;
static char *fake;

/* The slurm testbed in DIR: fake tools from FAKE, ports from BASE, NODES ("" = the
 * allocation's). Returns its path (static buffer per call site). */
static void write_testbed(const char *path, const char *nodes, unsigned base)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "kind: slurm\nname: slurm-fake\neswitch: none\n"
		 "slurm: {%s%s%spairing: loopback}\n"
		 "perftest: {bin_dir: %s, run_s: 0.1}\n"
		 "timeouts: {setup_s: 5, slack_s: 2, listen_s: 10, command_s: 30}\n"
		 "retries: 1\nports: {base: %u, count: 32}\n"
		 "host: {rnic: {device: rxe0, ib_port: 1}}\n",
		 nodes[0] ? "nodes: \"" : "", nodes, nodes[0] ? "\", " : "", fake, base);
	assert_int_equal(e2e_write_file(path, text), 0);
}

static void write_plan(const char *path)
{
	assert_int_equal(e2e_write_file(path, "name: slurm\nseed: 3\nrepeats: 4\n"
					"verbs: [write]\nmetrics: [lat]\ndimensions:\n"
					"  - name: server.decap_masks\n    levels: [2]\n"
					"    neutral: 0\n"), 0);
}

/* salloc -N1 scalacn run PLAN --testbed TB --db DB --jobs JOBS; its exit status. */
static int salloc_run(const char *dir, const char *plan, const char *tb, const char *db,
		      const char *jobs)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd), "cd '%s' && SLURM_CONF='%s' PATH='%s':\"$PATH\" timeout 300 "
		 "salloc -N1 --quiet '%s' run '%s' --testbed '%s' --db '%s' --jobs %s --quiet "
		 "--json > '%s.json' 2> '%s.err'", dir, cluster.conf, fake, e2e_scalacn(), plan,
		 tb, db, jobs, db, db);
	st = system(cmd);
	if (!WIFEXITED(st) || (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 1)) {
		char path[600], *err;

		snprintf(path, sizeof(path), "%s.err", db);
		err = e2e_read_file(path);
		print_message("salloc run exited %d: %s\n", WEXITSTATUS(st), err ? err : "");
		free(err);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void test_slurm_campaign_through_srun(void **state)
{
	const char *dir = *state;
	char plan[300], tb1[300], tb2[300], db1[300], db2[300];
	char nodes[200];

	snprintf(plan, sizeof(plan), "%s/plan.yaml", dir);
	snprintf(tb1, sizeof(tb1), "%s/alloc.yaml", dir);
	snprintf(tb2, sizeof(tb2), "%s/pool.yaml", dir);
	snprintf(db1, sizeof(db1), "%s/alloc.db", dir);
	snprintf(db2, sizeof(db2), "%s/pool.db", dir);
	snprintf(nodes, sizeof(nodes), "%s,%s", cluster.node, cluster.node);
	write_plan(plan);
	write_testbed(tb1, "", ptf_port_base(0));
	write_testbed(tb2, nodes, ptf_port_base(64));
	assert_in_range(salloc_run(dir, plan, tb1, db1, "1"), 0, 1);
	assert_true(e2e_trial_count(db1) >= 8);
	assert_int_equal(e2e_sql_long(db1, "SELECT count(*) FROM trials WHERE status != 'ok'"), 0);
	assert_in_range(salloc_run(dir, plan, tb2, db2, "2"), 0, 1);
	assert_int_equal(e2e_trial_count(db2), e2e_trial_count(db1));
	assert_int_equal(e2e_sql_long(db2, "SELECT count(DISTINCT slot) FROM trials"), 2);
	assert_int_equal(e2e_sql_long(db2, "SELECT count(*) FROM trials WHERE status != 'ok'"), 0);
}

static void test_slurm_outside_allocation_is_config_error(void **state)
{
	const char *dir = *state;
	char tb[300], plan[300], db[300], *text;
	const char *args[] = { "run", plan, "--testbed", tb, "--db", db, NULL };
	struct e2e_run r;

	snprintf(tb, sizeof(tb), "%s/alloc.yaml", dir);
	snprintf(plan, sizeof(plan), "%s/plan.yaml", dir);
	snprintf(db, sizeof(db), "%s/none.db", dir);
	unsetenv("SLURM_JOB_NODELIST");
	assert_int_equal(e2e_scalacn_run(&r, args), 2);
	text = r.err;
	assert_non_null(strstr(text, "not inside a Slurm allocation"));
	e2e_run_free(&r);
}

/* Fake tools in a fresh FAKE: ibv_devinfo (a Soft-RoCE rxe0) and ib_write_lat whose client
 * prints a table of a 44.27 us median. */
static int write_fakes(void)
{
	char *table = ptf_lat_table("44.27"), *client = NULL;
	int rc;

	fake = ptf_dir();
	ptf_kubectl(fake); /* for its fake ibv_devinfo */
	rc = asprintf(&client, "cat <<'END'\n%sEND\n", table) < 0 ? -1 : 0;
	if (rc == 0)
		ptf_tool(fake, "ib_write_lat", client);
	free(client);
	free(table);
	return rc;
}

static int setup(void **state)
{
	const char *dir = e2e_tmpdir();

	if (!dir || slurm_local_start(&cluster) < 0 || write_fakes() < 0)
		return -1;
	*state = strdup(dir);
	return 0;
}

static int teardown(void **state)
{
	bool gone = slurm_local_stop(&cluster);

	ptf_rmdir(fake);
	e2e_rmdir(*state);
	free(*state);
	if (!gone)
		fprintf(stderr, "test-slurm: a Slurm or munge daemon is still running\n");
	return gone ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slurm_campaign_through_srun),
		cmocka_unit_test(test_slurm_outside_allocation_is_config_error),
	};
	char missing[32];

	if (!slurm_local_installed(missing, sizeof(missing))) {
		printf("test-slurm: skipped: %s is not installed (Debian: slurm-wlm, munge)\n",
		       missing);
		return 77;
	}
	if (!ptf_usable()) {
		printf("test-slurm: skipped: the fake perftest tools need bash and python3\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
