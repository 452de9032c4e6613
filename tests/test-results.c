/* SPDX-License-Identifier: MIT */
/*
 * test-results: unit tests of results/ (res.h): schema creation and migration, refusal of
 * newer and non-database files, campaigns, points, trials (round trip, duplicate keys,
 * counts), symptoms and causes, the exact CSV export text, and a WAL reader working while a
 * writer holds its transaction. Every test works on files in its own temp directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "results/res.h"

struct fx {
	char dir[256];
	char path[320];
	struct res_db *db;
	struct scn_error err;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "%s/scn-res-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/results.db", f->dir);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	char p[600];
	struct dirent *e;
	DIR *d;

	res_close(f->db);
	d = opendir(f->dir);
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", f->dir, e->d_name);
			unlink(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f);
	return 0;
}

static struct fx *opened(void **state)
{
	struct fx *f = *state;

	assert_int_equal(res_open(f->path, true, &f->db, &f->err), 0);
	return f;
}

static void sql_text(sqlite3 *h, const char *sql, char *out, size_t cap)
{
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

static int64_t sql_int(sqlite3 *h, const char *sql)
{
	char buf[64];

	sql_text(h, sql, buf, sizeof(buf));
	return strtoll(buf, NULL, 10);
}

static int64_t add_campaign(struct res_db *db, const char *hash, const char *ident)
{
	struct res_campaign c = { .seed = 7, .status = RES_RUNNING, .started = 100.0 };
	struct scn_error err;

	snprintf(c.plan_hash, sizeof(c.plan_hash), "%s", hash);
	snprintf(c.testbed_identity, sizeof(c.testbed_identity), "%s", ident);
	assert_int_equal(res_campaign_insert(db, &c, &err), 0);
	assert_true(c.id > 0);
	return c.id;
}

static struct res_trial mk_trial(int64_t campaign, int64_t point, const char *key, double bw,
				 double cost)
{
	struct res_trial t = { .campaign = campaign, .point = point, .repeat = 0 };

	snprintf(t.key, sizeof(t.key), "%s", key);
	snprintf(t.verb, sizeof(t.verb), "write");
	snprintf(t.metric, sizeof(t.metric), "bw");
	snprintf(t.sample.status, sizeof(t.sample.status), "ok");
	t.sample.bw_gbps = bw;
	t.sample.cost_s = cost;
	return t;
}

/* ---- open, schema, migration ------------------------------------------------------------ */

static void test_results_open_creates_schema(void **state)
{
	struct fx *f = opened(state);
	sqlite3 *h = res_sqlite(f->db);
	char mode[16];

	assert_int_equal(res_schema_version(f->db), RES_SCHEMA_VERSION);
	assert_int_equal(RES_SCHEMA_VERSION, 6);
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
	assert_int_equal(sqlite3_exec(h, "CREATE TABLE future (x); PRAGMA user_version = 7", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(res_open(f->path, true, &f->db, &f->err), -ENOTSUP);
	assert_null(f->db);
	assert_non_null(strstr(f->err.message,
			       "database schema version 7 is newer than this scalacn (knows up to 6)"));
	assert_non_null(strstr(f->err.message, f->path));
	/* Untouched: still version 7, still in rollback-journal mode. */
	assert_int_equal(sqlite3_open(f->path, &h), SQLITE_OK);
	assert_int_equal(sql_int(h, "PRAGMA user_version"), 7);
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

/* ---- symptoms and causes ---------------------------------------------------------------- */

static int see_symptom(const struct res_symptom *s, void *ctx)
{
	struct res_symptom *out = ctx;

	out[out[0].id == 0 ? 0 : 1] = *s;
	return 0;
}

static int count_cause(const struct res_cause *c, void *ctx)
{
	struct res_cause *last = ctx;

	last->id++;
	last->wall_level = c->wall_level;
	snprintf(last->members, sizeof(last->members), "%s", c->members);
	last->confidence = c->confidence;
	last->symptom = c->symptom;
	return 0;
}

static void test_results_symptoms_causes_clear(void **state)
{
	struct fx *f = opened(state);
	int64_t a = add_campaign(f->db, "a", "t"), b = add_campaign(f->db, "b", "t"), p;
	struct res_symptom s = { .campaign = a, .level = 4096, .last_good = 2048,
				 .effect = -0.47, .p_value = 0.001 }, got[2] = { 0 };
	struct res_cause c = { .campaign = a, .wall_level = 4096, .effect = -0.47,
			       .effect_lo = -0.5, .effect_hi = -0.44, .confidence = 0.8 };
	struct res_cause seen = { 0 };

	assert_int_equal(res_point_upsert(f->db, a, "p", "{}", "", "", &p, &f->err), 0);
	s.point = p;
	snprintf(s.kind, sizeof(s.kind), "bw_drop");
	snprintf(s.class_, sizeof(s.class_), "S6");
	snprintf(s.verb, sizeof(s.verb), "write");
	snprintf(s.dimension, sizeof(s.dimension), "server.decap_masks");
	snprintf(s.detail, sizeof(s.detail), "wall at 4096 masks");
	assert_int_equal(res_symptom_put(f->db, &s, &f->err), 0);
	assert_int_equal(s.id, 1);
	c.symptom = s.id;
	snprintf(c.members, sizeof(c.members), "server.decap_masks,flows");
	snprintf(c.trial_ids, sizeof(c.trial_ids), "3,4,9");
	assert_int_equal(res_cause_put(f->db, &c, &f->err), 0);
	struct res_symptom sb = { .campaign = b };
	snprintf(sb.kind, sizeof(sb.kind), "timeout");
	assert_int_equal(res_symptom_put(f->db, &sb, &f->err), 0);
	struct res_cause cb = { .campaign = b, .symptom = sb.id, .confidence = 1.0 };
	assert_int_equal(res_cause_put(f->db, &cb, &f->err), 0);

	assert_int_equal(res_symptom_each(f->db, a, see_symptom, got, &f->err), 0);
	assert_int_equal(got[0].id, s.id);
	assert_int_equal(got[1].id, 0); /* only one in campaign a */
	assert_int_equal(got[0].campaign, a);
	assert_int_equal(got[0].point, p);
	assert_string_equal(got[0].kind, "bw_drop");
	assert_string_equal(got[0].class_, "S6");
	assert_string_equal(got[0].verb, "write");
	assert_string_equal(got[0].dimension, "server.decap_masks");
	assert_true(got[0].level == 4096 && got[0].last_good == 2048);
	assert_true(got[0].effect == -0.47 && got[0].p_value == 0.001);
	assert_string_equal(got[0].detail, "wall at 4096 masks");

	assert_int_equal(res_cause_each(f->db, a, count_cause, &seen, &f->err), 0);
	assert_int_equal(seen.id, 1);
	assert_int_equal(seen.symptom, s.id);
	assert_string_equal(seen.members, "server.decap_masks,flows");
	assert_true(seen.wall_level == 4096 && seen.confidence == 0.8);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(res_cause_each(f->db, 0, count_cause, &seen, &f->err), 0);
	assert_int_equal(seen.id, 2);

	assert_int_equal(res_analysis_clear(f->db, a, &f->err), 0);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(res_cause_each(f->db, 0, count_cause, &seen, &f->err), 0);
	assert_int_equal(seen.id, 1); /* campaign b's cause stays */
	assert_int_equal(seen.symptom, sb.id);
	memset(got, 0, sizeof(got));
	assert_int_equal(res_symptom_each(f->db, a, see_symptom, got, &f->err), 0);
	assert_int_equal(got[0].id, 0);
	assert_int_equal(res_symptom_each(f->db, b, see_symptom, got, &f->err), 0);
	assert_int_equal(got[0].id, sb.id);
}

/* ---- CSV -------------------------------------------------------------------------------- */

static void test_results_csv_export_exact(void **state)
{
	struct fx *f = opened(state);
	int64_t c = add_campaign(f->db, "a", "t"), other = add_campaign(f->db, "b", "t");
	int64_t p1, p2, p3;
	struct res_trial t;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	assert_int_equal(res_point_upsert(f->db, c, "p1", "{\"flows\": 1024, \"verb\": \"write\"}",
					  "", "", &p1, &f->err), 0);
	assert_int_equal(res_point_upsert(f->db, c, "p2",
					  "{\"flows\": 2048, \"mtu\": 4096, \"note\": \"a,b\"}", "",
					  "", &p2, &f->err), 0);
	assert_int_equal(res_point_upsert(f->db, other, "p3", "{\"qps\": 8}", "", "", &p3,
					  &f->err), 0);
	t = mk_trial(c, p1, "k1", 92.5, 0.5);
	t.sample.msg_rate_mpps = 2.75;
	t.sample.lat_median_us = 1.5;
	t.sample.lat_p99_us = 2.25;
	snprintf(t.sample.counters_json, sizeof(t.sample.counters_json),
		 "{\"rx_steer_missed_packets\":12,\"tx\":\"x\"}");
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	t = mk_trial(other, p3, "z9", 1, 1); /* another campaign: no row, no qps column */
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	t = mk_trial(c, p2, "k2", 0.1, 1.25);
	snprintf(t.metric, sizeof(t.metric), "lat");
	snprintf(t.sample.status, sizeof(t.sample.status), "timeout");
	t.repeat = 1;
	t.sample.lat_median_us = 3.125;
	t.sample.lat_p99_us = 10;
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);

	mem = open_memstream(&text, &len);
	assert_non_null(mem);
	assert_int_equal(res_export_csv(f->db, c, mem, &f->err), 0);
	fclose(mem);
	assert_string_equal(text,
		"trial_id,campaign,key,verb,metric,repeat,status,bw_gbps,msg_rate_mpps,"
		"lat_median_us,lat_p99_us,cost_s,flows,mtu,note,level.verb,counters\n"
		"1,1,k1,write,bw,0,ok,92.5,2.75,1.5,2.25,0.5,1024,,,write,"
		"\"{\"\"rx_steer_missed_packets\"\":12,\"\"tx\"\":\"\"x\"\"}\"\n"
		"3,1,k2,write,lat,1,timeout,0.1,0,3.125,10,1.25,2048,4096,\"a,b\",,{}\n");
	free(text);

	/* All campaigns: the qps column appears and the other campaign's row is there. */
	mem = open_memstream(&text, &len);
	assert_non_null(mem);
	assert_int_equal(res_export_csv(f->db, 0, mem, &f->err), 0);
	fclose(mem);
	assert_non_null(strstr(text, ",note,qps,level.verb,counters\n"));
	assert_non_null(strstr(text, "\n2,2,z9,write,bw,0,ok,1,0,0,0,1,,,,8,,{}\n"));
	free(text);
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

/* The model inputs a campaign's causes name: strongest first (|effect| x confidence summed
 * over the causes), other verbs and metrics ignored, causes with context members (listed in
 * the detail's "contexts=": they act at another message size than the model's) and causes
 * acting through the flows ("through=flows") left out. */
static void put_cause(struct fx *f, int64_t campaign, const char *members, double effect,
		      const char *detail)
{
	struct res_symptom s = { .campaign = campaign };
	struct res_cause c = { .campaign = campaign, .effect = effect, .confidence = 1.0 };

	snprintf(s.kind, sizeof(s.kind), "bw_drop");
	assert_int_equal(res_symptom_put(f->db, &s, &f->err), 0);
	c.symptom = s.id;
	snprintf(c.members, sizeof(c.members), "%s", members);
	snprintf(c.detail, sizeof(c.detail), "%s", detail);
	assert_int_equal(res_cause_put(f->db, &c, &f->err), 0);
}

static void test_results_cause_dimensions_leave_contexts_out(void **state)
{
	struct fx *f = opened(state);
	int64_t a = add_campaign(f->db, "a", "t");
	char names[4][64];
	unsigned n = 0;

	put_cause(f, a, "qps,cores,msg_size", -0.41,
		  "verb=write; metric=bw; strategy=cct; kind=bw_drop; class=S6; walls=x; "
		  "contexts=msg_size");
	put_cause(f, a, "server.decap_masks", -0.30, "verb=write; metric=bw; strategy=cct");
	put_cause(f, a, "flows", -0.90, "verb=read; metric=bw; strategy=cct");
	put_cause(f, a, "flows,server.decap_masks", -0.20, "verb=write; metric=bw; strategy=cct");
	put_cause(f, a, "encap_contexts", -0.95,
		  "verb=write; metric=bw; strategy=cct; kind=sw_fallback; class=S1; "
		  "walls=encap_contexts@3024(ok 2896); through=flows");
	assert_int_equal(res_cause_dimensions(f->db, a, "write", "bw", 4, names, &n, &f->err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "server.decap_masks"); /* 0.30 + 0.20 */
	assert_string_equal(names[1], "flows");
}

/* The dimensions a model phase's points of one (verb, metric) moved besides the designed
 * one: the flows a repaired point needed for its encap contexts; not the rule layout, not
 * another (verb, metric)'s points, not another phase's. */
static void test_results_model_varied_names_repaired_dimension(void **state)
{
#define PT(key, rest, phase) { key, "{\"verb\":\"send\"," rest "}", phase }
	static const char *const pts[][3] = {
		PT("m1", "\"metric\":\"bw\",\"encap_contexts\":1,\"flows\":256,\"layout\":1", "model"),
		PT("m2", "\"metric\":\"bw\",\"encap_contexts\":147,\"flows\":256,\"layout\":2",
		   "model"),
		PT("m3", "\"metric\":\"bw\",\"encap_contexts\":1024,\"flows\":1024", "model"),
		PT("m4", "\"metric\":\"lat\",\"encap_contexts\":1,\"qps\":4", "model"),
		PT("m5", "\"metric\":\"lat\",\"encap_contexts\":1,\"qps\":8", "model"),
		PT("s1", "\"metric\":\"bw\",\"encap_contexts\":1,\"cores\":8", "sweep"),
	};
#undef PT
	struct fx *f = opened(state);
	int64_t a = add_campaign(f->db, "a", "t"), id;
	char names[4][64];
	unsigned n = 9;

	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++)
		assert_int_equal(res_point_upsert(f->db, a, pts[i][0], pts[i][1], "", pts[i][2], &id,
						  &f->err), 0);
	assert_int_equal(res_model_varied(f->db, a, "send", "bw", "encap_contexts", 4, names, &n,
					  &f->err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "flows");
	assert_int_equal(res_model_varied(f->db, a, "send", "lat", "encap_contexts", 4, names, &n,
					  &f->err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "qps");
	assert_int_equal(res_model_varied(f->db, a, "read", "bw", "encap_contexts", 4, names, &n,
					  &f->err), 0);
	assert_int_equal(n, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

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
		T(test_results_symptoms_causes_clear),
		T(test_results_cause_dimensions_leave_contexts_out),
		T(test_results_model_varied_names_repaired_dimension),
		T(test_results_csv_export_exact),
		T(test_results_wal_reader_during_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
