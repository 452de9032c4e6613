/* SPDX-License-Identifier: MIT */
/*
 * test-db-lock: a running campaign holds its database, through the real binary. Two
 * concurrent `run`s on one database: the second (and an `analyze`) is refused at once with
 * exit 2 naming the holder's pid, leaves no campaign behind, and the first ends as it would
 * alone. Another process holding SQLite's write lock for seconds (longer than the old 5 s
 * busy timeout) costs the campaign no trial. A failed campaign never becomes the one
 * `causes` shows by default.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "e2e_util.h"

struct ctx {
	char dir[64], db[256], plan[256], testbed[256];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* test-campaign's plan (the quickstart's shape: walls, a failing criterion, exit 1) on a
 * CX-6 paced by PACE real seconds per testbed-second. */
static void write_inputs(struct ctx *c, double pace)
{
	e2e_write_paced_inputs(c->dir, "lock", pace, c->plan, sizeof(c->plan), c->testbed,
			       sizeof(c->testbed));
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	snprintf(c->dir, sizeof(c->dir), "%s", e2e_tmpdir());
	snprintf(c->db, sizeof(c->db), "%s/run.db", c->dir);
	*state = c;
	return 0;
}

/* Start `run` in the background and wait until it holds the lock (its pid in DB.lock). */
static pid_t start_run(struct ctx *c, const char *db)
{
	const char *args[] = { "run", c->plan, "--db", db, "--quiet", NULL };
	char lock[300], out[300], err[300], *text = NULL, want[64];
	pid_t pid;

	snprintf(lock, sizeof(lock), "%s.lock", db);
	snprintf(out, sizeof(out), "%s.out", db);
	snprintf(err, sizeof(err), "%s.err", db);
	pid = e2e_scalacn_spawn(args, out, err);
	snprintf(want, sizeof(want), "pid %ld on", (long)pid);
	for (int i = 0; i < 500 && !(text && strstr(text, want)); i++) {
		free(text);
		usleep(10000);
		text = e2e_read_file(lock);
	}
	assert_non_null(text);
	assert_non_null(strstr(text, want));
	free(text);
	return pid;
}

static long count_campaigns(const char *db)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	long n = -1;

	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(h, "SELECT count(*) FROM campaigns", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

static void test_dblock_second_writer_refused(void **state)
{
	struct ctx *c = *state;
	const char *again[] = { "run", c->plan, "--db", c->db, NULL };
	const char *analyze[] = { "analyze", "--db", c->db, NULL };
	char want[80];
	struct e2e_run r;
	pid_t first;
	double t0;

	write_inputs(c, 0.02);
	first = start_run(c, c->db);
	snprintf(want, sizeof(want), "in use by another writer (scalacn run, pid %ld on ",
		 (long)first);
	t0 = now_s();
	assert_int_equal(e2e_scalacn_run(&r, again), 2);
	assert_true(now_s() - t0 < 1.0);
	if (!strstr(r.err, want))
		fail_msg("stderr '%s' lacks '%s'", r.err, want);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, analyze), 2);
	assert_non_null(strstr(r.err, want));
	e2e_run_free(&r);
	assert_int_equal(e2e_wait(first), 1); /* its walls are findings: exit 1, as alone */
	assert_int_equal(count_campaigns(c->db), 1);
	assert_int_equal(e2e_scalacn_run(&r, again), 1); /* the lock went with the process */
	e2e_run_free(&r);
}

/* Hold SQLite's write lock on DB for HOLD_S seconds from a child process. */
static pid_t hold_write_lock(const char *db, double hold_s)
{
	pid_t pid = fork();

	if (pid == 0) {
		sqlite3 *h = NULL;

		if (sqlite3_open(db, &h) != SQLITE_OK)
			_exit(1);
		sqlite3_busy_timeout(h, 10000);
		if (sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
			_exit(2);
		usleep((useconds_t)(hold_s * 1e6));
		sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
		sqlite3_close(h);
		_exit(0);
	}
	return pid;
}

static void test_dblock_busy_database_loses_no_trial(void **state)
{
	struct ctx *c = *state;
	char ref[300];
	const char *alone[] = { "run", c->plan, "--db", ref, "--quiet", NULL };
	struct e2e_run r;
	pid_t run, holder;
	int st;

	write_inputs(c, 0);
	snprintf(ref, sizeof(ref), "%s/ref.db", c->dir);
	assert_int_equal(e2e_scalacn_run(&r, alone), 1);
	e2e_run_free(&r);
	write_inputs(c, 0.02);
	run = start_run(c, c->db);
	usleep(300000); /* the campaign is measuring and committing */
	holder = hold_write_lock(c->db, 7.0);
	assert_int_equal(e2e_wait(run), 1);
	assert_int_equal(waitpid(holder, &st, 0), holder);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_true(e2e_trial_count(c->db) > 0);
	assert_int_equal(e2e_trial_count(c->db), e2e_trial_count(ref));
}

static void test_dblock_failed_campaign_is_not_default(void **state)
{
	struct ctx *c = *state;
	char dead[300], text[1024];
	const char *good[] = { "run", c->plan, "--db", c->db, "--quiet", NULL };
	const char *bad[] = { "run", dead, "--db", c->db, "--quiet", NULL };
	const char *causes[] = { "causes", "--db", c->db, NULL };
	const char *status[] = { "status", "--db", c->db, NULL };
	struct e2e_run r;

	write_inputs(c, 0);
	snprintf(dead, sizeof(dead), "%s/dead.yaml", c->dir);
	snprintf(text, sizeof(text), "name: dead\ntestbed: tb.yaml\nrepeats: 2\n"
		 "fixed: {flows: 64K, encap_contexts: 64K, client.encap_masks: 1}\n");
	e2e_write_file(dead, text);
	assert_int_equal(e2e_scalacn_run(&r, good), 1);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, bad), 3);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, causes), 0);
	assert_non_null(strstr(r.out, "Causes of campaign 1 "));
	assert_null(strstr(r.out, "none stored"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, status), 0);
	assert_non_null(strstr(r.out, "  1*  done"));
	assert_non_null(strstr(r.out, "  2   failed"));
	e2e_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dblock_second_writer_refused, setup, e2e_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_dblock_busy_database_loses_no_trial, setup,
						e2e_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_dblock_failed_campaign_is_not_default, setup,
						e2e_ctx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
