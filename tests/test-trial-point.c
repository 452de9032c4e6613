/* SPDX-License-Identifier: MIT */
/*
 * test-trial-point: res_trial_put_at (results/res_trial.c), a trial stored with its point in
 * one transaction: the point is made with its first trial and found again by later ones
 * (its first levels kept), and a trial that cannot be stored leaves no point behind; the
 * JSON checks (SQLite's parser) refuse what is not an object.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "results/res.h"

struct fx {
	char dir[256], path[320];
	struct res_db *db;
	int64_t campaign;
	struct scn_error err;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct res_campaign c = { .seed = 7, .status = RES_RUNNING, .started = 100.0 };
	const char *tmp = getenv("TMPDIR");

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "%s/scn-tp-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/r.db", f->dir);
	assert_int_equal(res_open(f->path, true, &f->db, &f->err), 0);
	snprintf(c.plan_hash, sizeof(c.plan_hash), "h");
	snprintf(c.testbed_identity, sizeof(c.testbed_identity), "sim");
	assert_int_equal(res_campaign_insert(f->db, &c, &f->err), 0);
	f->campaign = c.id;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	static const char *const tails[] = { "", "-wal", "-shm" };
	char p[400];

	res_close(f->db);
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", f->path, tails[i]);
		unlink(p);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

static int64_t count(struct fx *f, const char *sql)
{
	sqlite3_stmt *st;
	int64_t n;

	assert_int_equal(sqlite3_prepare_v2(res_sqlite(f->db), sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static struct res_trial trial(const struct fx *f, const char *key)
{
	struct res_trial t = { .campaign = f->campaign };

	snprintf(t.key, sizeof(t.key), "%s", key);
	snprintf(t.verb, sizeof(t.verb), "write");
	snprintf(t.metric, sizeof(t.metric), "bw");
	snprintf(t.sample.status, sizeof(t.sample.status), "ok");
	t.sample.bw_gbps = 90;
	t.sample.msg_rate_mpps = t.sample.lat_median_us = t.sample.lat_p99_us = 0;
	snprintf(t.sample.counters_json, sizeof(t.sample.counters_json), "{\"rx\":1}");
	return t;
}

static void test_point_made_with_first_trial(void **state)
{
	struct fx *f = *state;
	struct res_point_ref p = { "pk1", "{\"flows\":256}", "default", "sweep" };
	struct res_point_ref again = { "pk1", "{\"flows\":999}", "default", "lsa" };
	struct res_trial a = trial(f, "t1"), b = trial(f, "t2");

	assert_int_equal(res_trial_put_at(f->db, &a, &p, &f->err), 0);
	assert_true(a.id > 0 && a.point > 0);
	assert_int_equal(res_trial_put_at(f->db, &b, &again, &f->err), 0);
	assert_int_equal(b.point, a.point);
	assert_int_equal(count(f, "SELECT count(*) FROM points"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM trials"), 2);
	/* the first writer's levels and phase are kept */
	assert_int_equal(count(f, "SELECT count(*) FROM points WHERE levels_json = "
				  "'{\"flows\":256}' AND phase = 'sweep'"), 1);
}

static void test_failed_trial_leaves_no_point(void **state)
{
	struct fx *f = *state;
	struct res_point_ref p = { "pk1", "{\"flows\":1}", "", "sweep" };
	struct res_point_ref q = { "pk2", "{\"flows\":2}", "", "sweep" };
	struct res_point_ref bad = { "pk3", "[1, 2]", "", "sweep" };
	struct res_trial a = trial(f, "t1"), dup = trial(f, "t1"), c = trial(f, "t3");

	assert_int_equal(res_trial_put_at(f->db, &a, &p, &f->err), 0);
	/* the key is taken: its new point pk2 is rolled back with it */
	assert_int_equal(res_trial_put_at(f->db, &dup, &q, &f->err), -EEXIST);
	assert_int_equal(count(f, "SELECT count(*) FROM points WHERE point_key = 'pk2'"), 0);
	assert_int_equal(res_trial_put_at(f->db, &c, &bad, &f->err), -EINVAL);
	assert_non_null(strstr(f->err.message, "levels are not a JSON object"));
	assert_int_equal(count(f, "SELECT count(*) FROM points"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM trials"), 1);
	assert_int_equal(res_trial_put_at(f->db, &c, NULL, &f->err), -EINVAL);
}

static void test_json_checks(void **state)
{
	static const char *const bad[] = { "[1]", "{\"a\":", "{} x", "nan", "\"s\"" };
	struct fx *f = *state;
	struct res_point_ref p = { "pk1", "{}", "", "" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct res_trial t = trial(f, "tx");

		snprintf(t.sample.counters_json, sizeof(t.sample.counters_json), "%s", bad[i]);
		assert_int_equal(res_trial_put_at(f->db, &t, &p, &f->err), -EINVAL);
		assert_non_null(strstr(f->err.message, "counters are not a JSON object"));
		t = trial(f, "ty");
		t.evidence_json = bad[i];
		assert_int_equal(res_trial_put_at(f->db, &t, &p, &f->err), -EINVAL);
		assert_non_null(strstr(f->err.message, "evidence is not a JSON object"));
	}
	assert_int_equal(count(f, "SELECT count(*) FROM trials"), 0);
	{
		struct res_trial t = trial(f, "tz");

		t.evidence_json = " {\"perftest\": {\"argv\": [\"ib_write_bw\"]}} ";
		assert_int_equal(res_trial_put_at(f->db, &t, &p, &f->err), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_point_made_with_first_trial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_trial_leaves_no_point, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_checks, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
