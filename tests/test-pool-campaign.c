/* SPDX-License-Identifier: MIT */
/*
 * test-pool-campaign: pooled campaigns end to end through the real binary, on a simulated
 * testbed of 4 slots (`slots: 4`): `run --jobs 4` decides exactly what a serial run of the
 * same seed does (walls, causes, suspects, criteria: the JSON outcome without trial ids and
 * accounting), spreads its trials over the slots and records each one's slot; a pooled run
 * killed with SIGKILL and resumed keeps every trial committed before the kill and ends with
 * the uninterrupted result; --jobs beyond the slots runs as many as there are; on a perftest
 * pool (fake tools and kubectl, tests/ptfake.h) whose second pair's pod has lost perftest,
 * that slot is taken out with a message and its trials run on the first.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "e2e_util.h"
#include "ptfake.h"

struct ctx {
	const char *dir;
	char plan[256], serial_tb[256], pool_tb[256];
};

/* The e2e plan; TB.yaml one pair, pool.yaml four slots, both paced by PACE. */
static void write_inputs(struct ctx *c, double pace)
{
	char text[512];

	e2e_write_paced_inputs(c->dir, "pool", pace, c->plan, sizeof(c->plan), c->serial_tb,
			       sizeof(c->serial_tb));
	snprintf(c->pool_tb, sizeof(c->pool_tb), "%s/pool.yaml", c->dir);
	snprintf(text, sizeof(text), "kind: sim\nprofile: %s\npace: %g\nslots: 4\n",
		 e2e_src("testbeds/sim/profiles/cx6.yaml"), pace);
	assert_int_equal(e2e_write_file(c->pool_tb, text), 0);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	c->dir = strdup(e2e_tmpdir());
	write_inputs(c, 0);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	e2e_rmdir(c->dir);
	free((void *)c->dir);
	free(c);
	return 0;
}

/* Drop KEY from every object under O. */
static void drop_key(struct json_object *o, const char *key)
{
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			drop_key(json_object_array_get_idx(o, i), key);
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_del(o, key);
		json_object_object_foreach(o, k, v) {
			(void)k;
			drop_key(v, key);
		}
	}
}

/* The decisions of an outcome: without accounting (cost, counts), the testbed's path and
 * trial ids (ids follow the order trials were committed in, which slots change). Owned
 * text. */
static char *decisions_of(const char *json)
{
	struct json_object *root = json_tokener_parse(json);
	char *text;

	assert_non_null(root);
	json_object_object_del(root, "accounting");
	json_object_object_del(root, "testbed"); /* the serial and the pooled file differ */
	drop_key(root, "trial_ids");
	text = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
	json_object_put(root);
	return text;
}

static char *run_json(const char *plan, const char *tb, const char *db, const char *jobs,
		      bool resume)
{
	struct e2e_run r;
	const char *args[] = { "run", plan, "--testbed", tb, "--db", db, "--jobs", jobs,
			       "--json", "--quiet", resume ? "--resume" : NULL, NULL };
	char *out;

	assert_int_equal(e2e_scalacn_run(&r, args), 1); /* the e2e plan's criterion fails */
	out = decisions_of(r.out);
	e2e_run_free(&r);
	return out;
}

static void test_pool_campaign_decides_as_serial(void **state)
{
	struct ctx *c = *state;
	char db1[300], db4[300], *serial, *pooled;

	snprintf(db1, sizeof(db1), "%s/serial.db", c->dir);
	snprintf(db4, sizeof(db4), "%s/pooled.db", c->dir);
	serial = run_json(c->plan, c->serial_tb, db1, "1", false);
	pooled = run_json(c->plan, c->pool_tb, db4, "4", false);
	assert_string_equal(serial, pooled);
	assert_non_null(strstr(serial, "\"causes\":[{"));
	assert_int_equal(e2e_trial_count(db1), e2e_trial_count(db4));
	assert_int_equal(e2e_sql_long(db1, "SELECT count(DISTINCT slot) FROM trials"), 1);
	/* which slots got work is the threads' timing (a slot whose rules a trial needs is
	 * preferred when free): the pool was used, within its 4 slots */
	assert_true(e2e_sql_long(db4, "SELECT count(DISTINCT slot) FROM trials") >= 2);
	assert_true(e2e_sql_long(db4, "SELECT max(slot) FROM trials") <= 3);
	free(serial);
	free(pooled);
}

static void test_pool_campaign_jobs_capped_by_slots(void **state)
{
	struct ctx *c = *state;
	char db[300];
	struct e2e_run r;
	const char *args[] = { "run", c->plan, "--testbed", c->pool_tb, "--db", db, "--jobs", "16",
			       NULL };

	snprintf(db, sizeof(db), "%s/capped.db", c->dir);
	assert_int_equal(e2e_scalacn_run(&r, args), 1);
	assert_non_null(strstr(r.err, "--jobs 16: 4 trials at once (the testbed has 4 slots)"));
	e2e_run_free(&r);
	/* the cap, not the threads' timing: no slot past the testbed's 4 (CI once saw slot 3
	 * idle for a whole campaign on a loaded machine) */
	assert_true(e2e_sql_long(db, "SELECT max(slot) FROM trials") <= 3);
}

/* Wait until DB holds N trials while PID runs; false when it ended first or after 60 s. */
static bool wait_for_trials(pid_t pid, const char *db, long n)
{
	for (int i = 0; i < 30000; i++) {
		if (e2e_trial_count(db) >= n)
			return true;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		usleep(2000);
	}
	return false;
}

static void test_pool_campaign_kill9_then_resume_equals_uninterrupted(void **state)
{
	struct ctx *c = *state;
	char db[300], killed[300], out[300], err[300], *whole, *resumed;
	const char *args[] = { "run", c->plan, "--testbed", c->pool_tb, "--db", killed, "--jobs",
			       "4", "--quiet", NULL };
	long total, seen, after;
	pid_t pid;

	snprintf(db, sizeof(db), "%s/whole.db", c->dir);
	snprintf(killed, sizeof(killed), "%s/killed.db", c->dir);
	snprintf(out, sizeof(out), "%s/k.out", c->dir);
	snprintf(err, sizeof(err), "%s/k.err", c->dir);
	whole = run_json(c->plan, c->pool_tb, db, "4", false);
	total = e2e_trial_count(db);
	write_inputs(c, 0.02); /* the same testbed, now taking real time per trial */
	pid = e2e_scalacn_spawn(args, out, err);
	assert_true(wait_for_trials(pid, killed, total / 2));
	seen = e2e_trial_count(killed); /* committed before the kill */
	kill(pid, SIGKILL);
	assert_int_equal(e2e_wait(pid), 128 + SIGKILL);
	after = e2e_trial_count(killed);
	print_message("killed with %ld of %ld trials stored (%ld seen before the kill)\n", after,
		      total, seen);
	assert_true(after >= seen && after < total);
	resumed = run_json(c->plan, c->pool_tb, killed, "4", true);
	assert_string_equal(whole, resumed);
	assert_int_equal(e2e_trial_count(killed), total); /* none measured twice, none lost */
	free(whole);
	free(resumed);
}

/* A kubectl that runs the command here, except perftest in pod "bad": gone, every time. */
static const char bad_pod_kubectl[] =
	"#!/bin/bash\n"
	"bad=0; while [ $# -gt 0 ] && [ \"$1\" != -- ]; do [ \"$1\" = bad ] && bad=1; shift; done\n"
	"shift; for a in \"$@\"; do case \"$a\" in *ib_write_lat) [ $bad = 1 ] && {\n"
	"  echo 'error: unable to upgrade connection: pod bad not found' >&2; exit 1; };; esac\n"
	"done; exec \"$@\"\n";

/* A perftest pool (pool: true) of two pairs in DIR: pods good and bad. Returns its path. */
static char *two_pair_pool(const char *dir, const char *fake)
{
	char text[1400], path[300];

	snprintf(text, sizeof(text),
		 "kind: perftest\nname: fake-pool\neswitch: none\npool: true\n"
		 "perftest: {bin_dir: %s, run_s: 0.1}\n"
		 "timeouts: {setup_s: 1, slack_s: 0.5, listen_s: 2}\nretries: 1\n"
		 "ports: {base: %u, count: 32}\nhosts:\n"
		 "  - {name: gs, transport: kubectl, kubectl: {pod: good}, data_ip: 127.0.0.1, "
		 "rnic: {device: rxe0}}\n"
		 "  - {name: gc, transport: kubectl, kubectl: {pod: good}, data_ip: 127.0.0.1, "
		 "rnic: {device: rxe0}}\n"
		 "  - {name: bs, transport: kubectl, kubectl: {pod: bad}, data_ip: 127.0.0.1, "
		 "rnic: {device: rxe0}}\n"
		 "  - {name: bc, transport: kubectl, kubectl: {pod: bad}, data_ip: 127.0.0.1, "
		 "rnic: {device: rxe0}}\n"
		 "pairs: [{client: gc, server: gs}, {client: bc, server: bs}]\n",
		 fake, ptf_port_base(200));
	snprintf(path, sizeof(path), "%s/two-pairs.yaml", dir);
	assert_int_equal(e2e_write_file(path, text), 0);
	return strdup(path);
}

/* Slot 1's pod loses perftest: the slot is taken out with a message, its trials run on
 * slot 0, and the campaign ends as it would on one pair. */
static void test_pool_campaign_failed_slot_taken_out(void **state)
{
	struct ctx *c = *state;
	char plan[300], db[300], *fake, *tb, *table = ptf_lat_table("44.27"), *client = NULL;
	char *path = NULL;
	const char *args[] = { "run", plan, "--testbed", NULL, "--db", db, "--jobs", "2", NULL };
	char *old = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	struct e2e_run r;

	if (!ptf_usable())
		skip();
	fake = ptf_dir();
	ptf_kubectl(fake); /* its ibv_devinfo */
	free(ptf_write(fake, "kubectl", bad_pod_kubectl, true));
	assert_true(asprintf(&client, "cat <<'END'\n%sEND\n", table) > 0);
	ptf_tool(fake, "ib_write_lat", client);
	tb = two_pair_pool(c->dir, fake);
	args[3] = tb;
	snprintf(plan, sizeof(plan), "%s/lat.yaml", c->dir);
	snprintf(db, sizeof(db), "%s/lost.db", c->dir);
	assert_int_equal(e2e_write_file(plan, "name: lat\nseed: 3\nrepeats: 2\nverbs: [write]\n"
					"metrics: [lat]\ndimensions:\n  - name: server.decap_masks\n"
					"    levels: [2]\n    neutral: 0\n"), 0);
	assert_true(asprintf(&path, "%s:%s", fake, old) > 0);
	setenv("PATH", path, 1);
	assert_in_range(e2e_scalacn_run(&r, args), 0, 1);
	setenv("PATH", old, 1);
	assert_non_null(strstr(r.err, "scalacn: testbed slot 1 taken out of the pool (1 left): "));
	assert_non_null(strstr(r.err, "its trial runs again on another slot"));
	e2e_run_free(&r);
	assert_true(e2e_trial_count(db) > 4);
	assert_int_equal(e2e_sql_long(db, "SELECT count(*) FROM trials WHERE slot != 0"), 0);
	assert_int_equal(e2e_sql_long(db, "SELECT count(*) FROM trials WHERE status != 'ok'"), 0);
	free(path);
	free(old);
	free(client);
	free(table);
	free(tb);
	ptf_rmdir(fake);
}

#define T(fn) cmocka_unit_test(fn)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_pool_campaign_decides_as_serial),
		T(test_pool_campaign_jobs_capped_by_slots),
		T(test_pool_campaign_failed_slot_taken_out),
		T(test_pool_campaign_kill9_then_resume_equals_uninterrupted),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
