/* SPDX-License-Identifier: MIT */
/*
 * test-results: unit tests of results/ (res.h) as a store: schema creation and migration,
 * refusal of newer and non-database files, campaigns, points, trials (round trip, duplicate
 * keys, counts), and a WAL reader working while a writer holds its transaction. Symptoms,
 * causes, the dimensions they name and the CSV export are in test-results-analysis.c; the
 * fixture (every test on files in its own temp directory) in res-test-util.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "results/res.h"
#include "tests/res-test-util.h"

/* ---- open, schema, migration ------------------------------------------------------------ */

static void test_results_open_creates_schema(void **state)
{
	struct fx *f = opened(state);
	sqlite3 *h = res_sqlite(f->db);
	char mode[16];

	assert_int_equal(res_schema_version(f->db), RES_SCHEMA_VERSION);
	assert_int_equal(RES_SCHEMA_VERSION, 8);
	sql_text(h, "PRAGMA journal_mode", mode, sizeof(mode));
	assert_string_equal(mode, "wal");
	assert_int_equal(sql_int(h, "PRAGMA synchronous"), 1); /* NORMAL */
	assert_int_equal(sql_int(h, "PRAGMA foreign_keys"), 1);
	assert_int_equal(sql_int(h, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND "
				    "name IN ('campaigns', 'points', 'trials', 'symptoms', "
				    "'causes', 'models')"), 6);
	assert_int_equal(sql_int(h, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND "
				    "name IN ('trials_campaign', 'points_campaign')"), 2);
}

static void test_results_open_missing_without_create(void **state)
{
	struct fx *f = *state;

	f->db = (struct res_db *)1; /* must be reset to NULL */
	assert_int_equal(res_open(f->path, false, &f->db, &f->err), -ENOENT);
	assert_null(f->db);
	assert_int_equal(access(f->path, F_OK), -1);
	assert_non_null(strstr(f->err.message, f->path));
}

static void test_results_migrates_empty_file(void **state)
{
	struct fx *f = *state;
	FILE *fp = fopen(f->path, "w");

	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(res_open(f->path, false, &f->db, &f->err), 0);
	assert_int_equal(res_schema_version(f->db), RES_SCHEMA_VERSION);
	assert_int_equal(sql_int(res_sqlite(f->db), "SELECT COUNT(*) FROM trials"), 0);
}

static void test_results_reopen_keeps_data(void **state)
{
	struct fx *f = opened(state);
	struct res_trial t, got;
	int64_t c = add_campaign(f->db, "h1", "tb1");

	t = mk_trial(c, 0, "aa", 91.5, 2.0);
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	res_close(f->db);
	f->db = NULL;
	assert_int_equal(res_open(f->path, false, &f->db, &f->err), 0);
	assert_int_equal(res_schema_version(f->db), RES_SCHEMA_VERSION);
	assert_int_equal(res_trial_get(f->db, "aa", &got, &f->err), 0);
	assert_int_equal(got.id, t.id);
	assert_int_equal(got.campaign, c);
	assert_true(got.sample.bw_gbps == 91.5);
}

static void test_results_newer_version_refused(void **state)
{
	struct fx *f = *state;
	sqlite3 *h;
	char mode[16];

	assert_int_equal(sqlite3_open(f->path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "CREATE TABLE future (x); PRAGMA user_version = 9", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(res_open(f->path, true, &f->db, &f->err), -ENOTSUP);
	assert_null(f->db);
	assert_non_null(strstr(f->err.message,
			       "database schema version 9 is newer than this scalacn (knows up to 8)"));
	assert_non_null(strstr(f->err.message, f->path));
	/* Untouched: still version 9, still in rollback-journal mode. */
	assert_int_equal(sqlite3_open(f->path, &h), SQLITE_OK);
	assert_int_equal(sql_int(h, "PRAGMA user_version"), 9);
	sql_text(h, "PRAGMA journal_mode", mode, sizeof(mode));
	assert_string_equal(mode, "delete");
	sqlite3_close(h);
}

static void test_results_not_a_database_refused(void **state)
{
	struct fx *f = *state;
	static const char text[] = "plan:\n  name: this is a YAML plan, not a results store\n";
	char back[sizeof(text)] = { 0 };
	FILE *fp = fopen(f->path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(res_open(f->path, true, &f->db, &f->err), -EINVAL);
	assert_null(f->db);
	assert_non_null(strstr(f->err.message, f->path));
	assert_non_null(strstr(f->err.message, "not an SQLite database"));
	fp = fopen(f->path, "r");
	assert_non_null(fp);
	assert_int_equal(fread(back, 1, sizeof(back), fp), sizeof(text) - 1);
	fclose(fp);
	assert_string_equal(back, text);
}

/* ---- campaigns and points ---------------------------------------------------------------- */

static int collect_ids(const struct res_campaign *c, void *ctx)
{
	int64_t *ids = ctx;

	ids[++ids[0]] = c->id;
	return c->id == ids[5] ? 42 : 0; /* ids[5]: stop marker */
}

static void test_results_campaign_roundtrip(void **state)
{
	struct fx *f = opened(state);
	struct res_campaign c = { .seed = UINT64_MAX - 5, .status = RES_RUNNING,
				  .started = 1700000000.25 }, got;
	int64_t c2, c3, ids[6] = { 0 };

	snprintf(c.plan_path, sizeof(c.plan_path), "plans/cx7.yaml");
	snprintf(c.plan_hash, sizeof(c.plan_hash), "abc123");
	snprintf(c.testbed, sizeof(c.testbed), "testbeds/sim.yaml");
	snprintf(c.testbed_identity, sizeof(c.testbed_identity), "sim:cx7:seed7");
	snprintf(c.rnic_model, sizeof(c.rnic_model), "ConnectX-7");
	snprintf(c.firmware, sizeof(c.firmware), "28.39.1002");
	snprintf(c.tool_version, sizeof(c.tool_version), "0.1.0");
	snprintf(c.summary, sizeof(c.summary), "{\"walls\": 0}");
	assert_int_equal(res_campaign_insert(f->db, &c, &f->err), 0);
	assert_int_equal(c.id, 1);
	assert_int_equal(res_campaign_get(f->db, c.id, &got, &f->err), 0);
	assert_int_equal(got.id, 1);
	assert_string_equal(got.plan_path, "plans/cx7.yaml");
	assert_string_equal(got.plan_hash, "abc123");
	assert_string_equal(got.testbed, "testbeds/sim.yaml");
	assert_string_equal(got.testbed_identity, "sim:cx7:seed7");
	assert_string_equal(got.rnic_model, "ConnectX-7");
	assert_string_equal(got.firmware, "28.39.1002");
	assert_string_equal(got.tool_version, "0.1.0");
	assert_true(got.seed == UINT64_MAX - 5);
	assert_int_equal(got.status, RES_RUNNING);
	assert_true(got.started == 1700000000.25 && got.finished == 0.0);
	assert_string_equal(got.summary, "{\"walls\": 0}");

	c2 = add_campaign(f->db, "abc123", "sim:cx7:seed7"); /* same plan + testbed, newer */
	c3 = add_campaign(f->db, "other", "sim:cx7:seed7");
	assert_int_equal(res_campaign_find(f->db, "abc123", "sim:cx7:seed7", &got, &f->err), 0);
	assert_int_equal(got.id, c2);
	assert_int_equal(res_campaign_find(f->db, "abc123", "sim:cx6", &got, &f->err), -ENOENT);
	assert_int_equal(res_campaign_get(f->db, 99, &got, &f->err), -ENOENT);

	assert_int_equal(res_campaign_set_status(f->db, c.id, RES_DONE, "2 walls", &f->err), 0);
	assert_int_equal(res_campaign_get(f->db, c.id, &got, &f->err), 0);
	assert_int_equal(got.status, RES_DONE);
	assert_string_equal(got.summary, "2 walls");
	assert_true(got.finished > 1.6e9);
	assert_int_equal(res_campaign_set_status(f->db, c.id, RES_INTERRUPTED, NULL, &f->err), 0);
	assert_int_equal(res_campaign_get(f->db, c.id, &got, &f->err), 0);
	assert_int_equal(got.status, RES_INTERRUPTED);
	assert_string_equal(got.summary, "2 walls"); /* NULL keeps it */
	assert_int_equal(res_campaign_set_status(f->db, 99, RES_DONE, NULL, &f->err), -ENOENT);
	assert_string_equal(res_campaign_status_name(RES_FAILED), "failed");

	ids[5] = -1; /* no stop */
	assert_int_equal(res_campaign_each(f->db, collect_ids, ids, &f->err), 0);
	assert_int_equal(ids[0], 3);
	assert_int_equal(ids[1], c3); /* newest first */
	assert_int_equal(ids[2], c2);
	assert_int_equal(ids[3], c.id);
	memset(ids, 0, sizeof(ids));
	ids[5] = c2; /* the callback stops at c2 and its value comes back */
	assert_int_equal(res_campaign_each(f->db, collect_ids, ids, &f->err), 42);
	assert_int_equal(ids[0], 2);
}

static void test_results_point_upsert_idempotent(void **state)
{
	struct fx *f = opened(state);
	int64_t c1 = add_campaign(f->db, "h", "t"), c2 = add_campaign(f->db, "h2", "t");
	int64_t a, a2, b, other;
	char phase[32];

	assert_int_equal(res_point_upsert(f->db, c1, "p1", "{\"flows\": 1024}", "m", "sweep", &a,
					  &f->err), 0);
	assert_int_equal(res_point_upsert(f->db, c1, "p1", "{\"flows\": 1024}", "m", "lsa", &a2,
					  &f->err), 0);
	assert_int_equal(a, a2);
	assert_int_equal(res_point_upsert(f->db, c1, "p2", "{}", NULL, NULL, &b, &f->err), 0);
	assert_int_not_equal(a, b);
	assert_int_equal(res_point_upsert(f->db, c2, "p1", "{}", "", "", &other, &f->err), 0);
	assert_true(other != a && other != b);
	assert_int_equal(sql_int(res_sqlite(f->db), "SELECT COUNT(*) FROM points"), 3);
	sql_text(res_sqlite(f->db), "SELECT phase FROM points WHERE point_key = 'p1' AND "
				    "campaign = 1", phase, sizeof(phase));
	assert_string_equal(phase, "sweep"); /* the first writer's phase stays */
	assert_int_equal(res_point_upsert(f->db, c1, "p3", "[1, 2]", "", "", &b, &f->err),
			 -EINVAL);
	assert_int_equal(res_point_upsert(f->db, c1, "p3", "{\"a\":", "", "", &b, &f->err),
			 -EINVAL);
	assert_int_equal(res_point_upsert(f->db, 77, "p1", "{}", "", "", &b, &f->err), -ENOENT);
}

/* ---- trials ----------------------------------------------------------------------------- */

static void test_results_trial_roundtrip(void **state)
{
	struct fx *f = opened(state);
	int64_t c = add_campaign(f->db, "h", "t"), p;
	struct res_trial t = { .campaign = c, .repeat = 3, .started = 1700000001.5,
			       .finished = 1700000003.75 }, got;

	assert_int_equal(res_point_upsert(f->db, c, "pk", "{\"qps\": 64}", "m", "sweep", &p,
					  &f->err), 0);
	t.point = p;
	snprintf(t.key, sizeof(t.key), "0123456789abcdef0123456789abcdef");
	snprintf(t.verb, sizeof(t.verb), "read");
	snprintf(t.metric, sizeof(t.metric), "lat");
	snprintf(t.sample.status, sizeof(t.sample.status), "completion_error");
	t.sample.bw_gbps = 0.1;
	t.sample.msg_rate_mpps = 12.345678901234567;
	t.sample.lat_median_us = 2.5;
	t.sample.lat_p99_us = 7.125;
	t.sample.cost_s = 3.3;
	snprintf(t.sample.counters_json, sizeof(t.sample.counters_json),
		 "{\"rx_steer_missed_packets\": 17, \"tc_not_in_hw\": 0}");
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	assert_int_equal(t.id, 1);
	memset(&got, 0x5a, sizeof(got));
	assert_int_equal(res_trial_get(f->db, t.key, &got, &f->err), 0);
	assert_int_equal(got.id, t.id);
	assert_int_equal(got.campaign, c);
	assert_int_equal(got.point, p);
	assert_string_equal(got.key, t.key);
	assert_string_equal(got.verb, "read");
	assert_string_equal(got.metric, "lat");
	assert_int_equal(got.repeat, 3);
	assert_string_equal(got.sample.status, "completion_error");
	assert_true(got.sample.bw_gbps == 0.1);
	assert_true(got.sample.msg_rate_mpps == 12.345678901234567);
	assert_true(got.sample.lat_median_us == 2.5);
	assert_true(got.sample.lat_p99_us == 7.125);
	assert_true(got.sample.cost_s == 3.3);
	assert_string_equal(got.sample.counters_json,
			    "{\"rx_steer_missed_packets\": 17, \"tc_not_in_hw\": 0}");
	assert_true(got.started == 1700000001.5 && got.finished == 1700000003.75);
	assert_int_equal(res_trial_get(f->db, "nope", &got, &f->err), -ENOENT);
}

static void test_results_trial_duplicate_key_kept(void **state)
{
	struct fx *f = opened(state);
	int64_t c = add_campaign(f->db, "h", "t"), n = 0;
	struct res_trial t = mk_trial(c, 0, "dup", 50.0, 1.0), again, got;

	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	again = mk_trial(c, 0, "dup", 10.0, 9.0);
	assert_int_equal(res_trial_put(f->db, &again, &f->err), -EEXIST);
	assert_non_null(strstr(f->err.message, "dup"));
	assert_int_equal(res_trial_get(f->db, "dup", &got, &f->err), 0);
	assert_int_equal(got.id, t.id);
	assert_true(got.sample.bw_gbps == 50.0 && got.sample.cost_s == 1.0);
	assert_int_equal(res_trial_count(f->db, c, &n, NULL, &f->err), 0);
	assert_int_equal(n, 1);
	/* The store is still writable: no transaction was left open. */
	again = mk_trial(c, 0, "next", 1.0, 1.0);
	assert_int_equal(res_trial_put(f->db, &again, &f->err), 0);
}

static void test_results_trial_rejects_bad_input(void **state)
{
	struct fx *f = opened(state);
	struct res_trial t = mk_trial(0, 0, "k", 1.0, 1.0);
	int64_t n = -1;

	snprintf(t.sample.counters_json, sizeof(t.sample.counters_json), "not json");
	assert_int_equal(res_trial_put(f->db, &t, &f->err), -EINVAL);
	t = mk_trial(0, 0, "", 1.0, 1.0);
	assert_int_equal(res_trial_put(f->db, &t, &f->err), -EINVAL);
	memset(t.key, 'a', sizeof(t.key)); /* not terminated */
	assert_int_equal(res_trial_put(f->db, &t, &f->err), -EINVAL);
	t = mk_trial(55, 0, "k", 1.0, 1.0); /* no campaign 55 */
	assert_int_equal(res_trial_put(f->db, &t, &f->err), -ENOENT);
	assert_int_equal(res_trial_count(f->db, 0, &n, NULL, &f->err), 0);
	assert_int_equal(n, 0);
}

static void test_results_trial_count_and_cost(void **state)
{
	struct fx *f = opened(state);
	int64_t a = add_campaign(f->db, "a", "t"), b = add_campaign(f->db, "b", "t"), n = 0;
	static const char *const keys[] = { "a1", "a2", "a3", "b1", "b2" };
	double cost = 0;

	for (int i = 0; i < 5; i++) {
		struct res_trial t = mk_trial(i < 3 ? a : b, 0, keys[i], 1.0, 0.5 * (i + 1));

		assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	}
	assert_int_equal(res_trial_count(f->db, a, &n, &cost, &f->err), 0);
	assert_int_equal(n, 3);
	assert_true(cost == 0.5 + 1.0 + 1.5);
	assert_int_equal(res_trial_count(f->db, b, &n, &cost, &f->err), 0);
	assert_int_equal(n, 2);
	assert_true(cost == 2.0 + 2.5);
	assert_int_equal(res_trial_count(f->db, 0, &n, &cost, &f->err), 0);
	assert_int_equal(n, 5);
	assert_true(cost == 7.5);
	assert_int_equal(res_trial_count(f->db, 99, &n, &cost, &f->err), 0);
	assert_int_equal(n, 0);
	assert_true(cost == 0.0);
}

struct seen {
	int n;
	char keys[8][40];
	char levels[8][64];
};

static int see_trial(const struct res_trial *t, const char *levels_json, void *ctx)
{
	struct seen *s = ctx;

	snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s", t->key);
	snprintf(s->levels[s->n], sizeof(s->levels[0]), "%s", levels_json);
	s->n++;
	return 0;
}

static void test_results_trial_each_joins_levels(void **state)
{
	struct fx *f = opened(state);
	int64_t a = add_campaign(f->db, "a", "t"), b = add_campaign(f->db, "b", "t"), p;
	struct seen s = { 0 };
	struct res_trial t;

	assert_int_equal(res_point_upsert(f->db, a, "p", "{\"flows\":8}", "", "", &p, &f->err), 0);
	t = mk_trial(a, p, "x1", 1, 1);
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	t = mk_trial(b, 0, "y1", 1, 1);
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	t = mk_trial(a, 0, "x2", 1, 1);
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	assert_int_equal(res_trial_each(f->db, a, see_trial, &s, &f->err), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.keys[0], "x1");
	assert_string_equal(s.levels[0], "{\"flows\":8}");
	assert_string_equal(s.keys[1], "x2");
	assert_string_equal(s.levels[1], "{}");
	memset(&s, 0, sizeof(s));
	assert_int_equal(res_trial_each(f->db, 0, see_trial, &s, &f->err), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.keys[1], "y1"); /* id order across campaigns */
}

/* ---- WAL: a reader is not blocked by an open write transaction --------------------------- */

static void test_results_wal_reader_during_write(void **state)
{
	struct fx *f = opened(state);
	struct res_db *reader = NULL;
	struct res_trial t = mk_trial(0, 0, "committed", 10, 1), got;
	int64_t n = 0;

	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	assert_int_equal(res_open(f->path, false, &reader, &f->err), 0);
	/* EXCLUSIVE: in rollback-journal mode this locks readers out; in WAL it does not. */
	assert_int_equal(sqlite3_exec(res_sqlite(f->db),
				      "BEGIN EXCLUSIVE; INSERT INTO trials (key, verb) "
				      "VALUES ('pending', 'send');", NULL, NULL, NULL), SQLITE_OK);
	/* Without WAL these would wait out the busy timeout and fail with -EBUSY. */
	assert_int_equal(res_trial_get(reader, "committed", &got, &f->err), 0);
	assert_true(got.sample.bw_gbps == 10);
	assert_int_equal(res_trial_get(reader, "pending", &got, &f->err), -ENOENT);
	assert_int_equal(res_trial_count(reader, 0, &n, NULL, &f->err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(sqlite3_exec(res_sqlite(f->db), "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(res_trial_get(reader, "pending", &got, &f->err), 0);
	assert_string_equal(got.verb, "send");

	/* The other way round: a reader's open snapshot does not block a trial commit. */
	assert_int_equal(sqlite3_exec(res_sqlite(reader), "BEGIN; SELECT COUNT(*) FROM trials;",
				      NULL, NULL, NULL), SQLITE_OK);
	t = mk_trial(0, 0, "later", 20, 1);
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	assert_int_equal(res_trial_get(reader, "later", &got, &f->err), -ENOENT); /* snapshot */
	assert_int_equal(sqlite3_exec(res_sqlite(reader), "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(res_trial_get(reader, "later", &got, &f->err), 0);
	res_close(reader);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_results_open_creates_schema),
		T(test_results_open_missing_without_create),
		T(test_results_migrates_empty_file),
		T(test_results_reopen_keeps_data),
		T(test_results_newer_version_refused),
		T(test_results_not_a_database_refused),
		T(test_results_campaign_roundtrip),
		T(test_results_point_upsert_idempotent),
		T(test_results_trial_roundtrip),
		T(test_results_trial_duplicate_key_kept),
		T(test_results_trial_rejects_bad_input),
		T(test_results_trial_count_and_cost),
		T(test_results_trial_each_joins_levels),
		T(test_results_wal_reader_during_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
