/* SPDX-License-Identifier: MIT */
/*
 * test-results-migrate: the store's schema migrations on a database written by an earlier
 * scalacn (tests/fixtures/store-v1/v1.db, schema version 1: unmeasured values stored as 0),
 * the NULL convention of schema 2 (a number a trial did not measure is NULL in SQLite,
 * NAN in struct res_sample, an empty CSV field), and schema 3's causes and suspects with
 * their evidence, schema 5's trial slot (the host pair of a pooled run), schema 6's trial
 * evidence and schema 7's stale cache-form models, migrated from a version 5 store
 * (tests/fixtures/store-v5/v5.db). Assumes
 * SCALACN_FIXTURES (tests/meson.build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "results/res.h"

struct fx {
	char dir[256], path[320];
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/scn-migrate-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/v1.db", f->dir);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	char p[400];

	for (const char *const *s = (const char *const[]){ "", "-wal", "-shm", "-journal", NULL };
	     *s; s++) {
		snprintf(p, sizeof(p), "%s%s", f->path, *s);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/t.csv", f->dir);
	unlink(p);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void copy_fixture(const char *rel, const char *to)
{
	const char *root = getenv("SCALACN_FIXTURES");
	char from[512], buf[8192];
	FILE *in, *out;
	size_t n;

	if (!root || !*root)
		fail_msg("SCALACN_FIXTURES is not set (run the tests with `meson test`)");
	snprintf(from, sizeof(from), "%s/%s", root, rel);
	in = fopen(from, "rb");
	if (!in)
		fail_msg("missing fixture %s: %s (see tests/fixtures/README.md)", from, strerror(errno));
	out = fopen(to, "wb");
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static int64_t sql_int(const char *path, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int64_t v = -1;

	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

/* A version 1 database keeps every trial (ids, keys, costs) and loses its fake zeros. */
static void test_results_migrate_v1_keeps_trials_and_nulls_unmeasured(void **state)
{
	struct fx *f = *state;
	struct res_db *db = NULL;
	struct scn_error err;
	int64_t n, ids, cost, keys, failed_zero;

	copy_fixture("store-v1/v1.db", f->path);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), 1);
	n = sql_int(f->path, "SELECT count(*) FROM trials");
	ids = sql_int(f->path, "SELECT sum(id) FROM trials");
	cost = sql_int(f->path, "SELECT CAST(sum(cost_s) * 1000 AS INTEGER) FROM trials");
	keys = sql_int(f->path, "SELECT count(DISTINCT key) FROM trials");
	failed_zero = sql_int(f->path, "SELECT count(*) FROM trials WHERE status != 'ok' AND "
				       "bw_gbps = 0 AND lat_median_us = 0");
	assert_int_equal(n, 36);
	assert_int_equal(failed_zero, 20); /* what version 1 wrote for timeouts */

	assert_int_equal(res_open(f->path, false, &db, &err), 0);
	assert_int_equal(res_schema_version(db), RES_SCHEMA_VERSION);
	res_close(db);

	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM trials"), n);
	assert_int_equal(sql_int(f->path, "SELECT sum(id) FROM trials"), ids);
	assert_int_equal(sql_int(f->path, "SELECT count(DISTINCT key) FROM trials"), keys);
	assert_int_equal(sql_int(f->path, "SELECT CAST(sum(cost_s) * 1000 AS INTEGER) FROM trials"),
			 cost);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM trials WHERE status != 'ok' AND "
					  "(bw_gbps IS NOT NULL OR lat_median_us IS NOT NULL OR "
					  "lat_p99_us IS NOT NULL OR msg_rate_mpps IS NOT NULL)"), 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM trials WHERE metric = 'lat' AND "
					  "bw_gbps IS NOT NULL"), 0);
	/* measured numbers are untouched */
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM trials WHERE status = 'ok' AND "
					  "metric = 'bw' AND bw_gbps > 80"), 8);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM trials WHERE status = 'ok' AND "
					  "metric = 'lat' AND lat_median_us > 1"), 8);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM campaigns WHERE plan_file_hash = ''"),
			 1);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), RES_SCHEMA_VERSION);
}

/* NAN goes in as NULL, comes back as NAN, and is an empty CSV field. */
static void test_results_unmeasured_roundtrip_null(void **state)
{
	struct fx *f = *state;
	struct res_trial t = { .repeat = 0 }, got;
	struct res_db *db = NULL;
	struct scn_error err;
	char csv[400], line[512] = "";
	FILE *out;

	assert_int_equal(res_open(f->path, true, &db, &err), 0);
	snprintf(t.key, sizeof(t.key), "k1");
	snprintf(t.verb, sizeof(t.verb), "send");
	snprintf(t.metric, sizeof(t.metric), "lat");
	snprintf(t.sample.status, sizeof(t.sample.status), "timeout");
	t.sample.bw_gbps = t.sample.msg_rate_mpps = t.sample.lat_median_us = NAN;
	t.sample.lat_p99_us = INFINITY;
	t.sample.cost_s = 30;
	assert_int_equal(res_trial_put(db, &t, &err), 0);
	assert_int_equal(res_trial_get(db, "k1", &got, &err), 0);
	assert_true(isnan(got.sample.bw_gbps) && isnan(got.sample.msg_rate_mpps));
	assert_true(isnan(got.sample.lat_median_us) && isnan(got.sample.lat_p99_us));
	assert_true(got.sample.cost_s == 30);
	snprintf(csv, sizeof(csv), "%s/t.csv", f->dir);
	out = fopen(csv, "w");
	assert_non_null(out);
	assert_int_equal(res_export_csv(db, 0, out, &err), 0);
	fclose(out);
	res_close(db);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM trials WHERE bw_gbps IS NULL AND "
					  "lat_median_us IS NULL AND lat_p99_us IS NULL"), 1);
	out = fopen(csv, "r");
	assert_non_null(out);
	assert_non_null(fgets(line, sizeof(line), out)); /* header */
	assert_non_null(fgets(line, sizeof(line), out));
	fclose(out);
	assert_non_null(strstr(line, ",timeout,,,,,30,"));
}

static void sql_exec(const char *path, const char *sql)
{
	sqlite3 *h;

	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

static int see_cause(const struct res_cause *c, void *ctx)
{
	struct res_cause *out = ctx;

	out[c->supported ? 0 : 1] = *c;
	return 0;
}

/* Schema 3: a cause row stored before it reads back as a cause (supported, no reason, no
 * evidence); new rows keep causes and suspects apart, with a suspect's reasons and the
 * evidence JSON that `scalacn explain` reads. */
static void test_results_migrate_causes_supported_and_evidence(void **state)
{
	struct fx *f = *state;
	struct res_db *db = NULL;
	struct scn_error err;
	struct res_cause got[2], sus = { .confidence = 0.5, .supported = false,
					 .evidence_json = "{\"orders\":[]}" };
	char *ev = NULL;
	int64_t old_id;

	copy_fixture("store-v1/v1.db", f->path);
	sql_exec(f->path, "INSERT INTO causes (campaign, members, effect, confidence) "
			  "VALUES (1, 'flows', -0.5, 1.0)");
	old_id = sql_int(f->path, "SELECT max(id) FROM causes");
	assert_int_equal(res_open(f->path, false, &db, &err), 0);
	assert_int_equal(res_schema_version(db), RES_SCHEMA_VERSION);
	memset(got, 0, sizeof(got));
	assert_int_equal(res_cause_each(db, 1, see_cause, got, &err), 0);
	assert_string_equal(got[0].members, "flows");
	assert_true(got[0].supported);
	assert_string_equal(got[0].reason, "");
	assert_int_equal(res_cause_evidence(db, old_id, &ev, &err), 0);
	assert_string_equal(ev, "{}");
	free(ev);
	sus.campaign = 1;
	snprintf(sus.members, sizeof(sus.members), "client.encap_masks");
	snprintf(sus.reason, sizeof(sus.reason), "interval spans zero");
	assert_int_equal(res_cause_put(db, &sus, &err), 0);
	assert_int_equal(res_cause_each(db, 1, see_cause, got, &err), 0);
	assert_false(got[1].supported);
	assert_string_equal(got[1].reason, "interval spans zero");
	assert_null(got[1].evidence_json);
	assert_int_equal(res_cause_evidence(db, sus.id, &ev, &err), 0);
	assert_string_equal(ev, "{\"orders\":[]}");
	free(ev);
	assert_int_equal(res_cause_evidence(db, 9999, &ev, &err), -ENOENT);
	res_close(db);
}

static int see_criterion(const struct res_criterion *c, void *ctx)
{
	struct res_criterion *out = ctx;

	out[out[0].id ? 1 : 0] = *c;
	return 0;
}

static int see_phase(const char *phase, int64_t trials, double cost_s, void *ctx)
{
	char *out = ctx;
	size_t n = strlen(out);

	snprintf(out + n, 256 - n, "%s=%lld/%.0f;", phase, (long long)trials, cost_s);
	return 0;
}

/* Schema 4: a campaign of an older store has no criteria; verdicts round-trip with NULL for
 * what was not measured, a verdict stored again replaces the campaign's row of that name;
 * trials and cost per phase come from their points. */
static void test_results_migrate_criteria_and_phases(void **state)
{
	struct fx *f = *state;
	struct res_db *db = NULL;
	struct scn_error err;
	struct res_criterion got[2], c = { .campaign = 1, .name = "bw at 8K", .verb = "write",
					   .metric = "bw", .op = ">=", .required = 0.9,
					   .value = 32.5, .baseline = 89.0, .ratio = 32.5 / 89.0,
					   .status = "ok" };
	char phases[256] = "";

	copy_fixture("store-v1/v1.db", f->path);
	assert_int_equal(res_open(f->path, false, &db, &err), 0);
	assert_int_equal(res_schema_version(db), RES_SCHEMA_VERSION);
	memset(got, 0, sizeof(got));
	assert_int_equal(res_criterion_each(db, 1, see_criterion, got, &err), 0);
	assert_int_equal(got[0].id, 0);
	assert_int_equal(res_criterion_put(db, &c, &err), 0);
	c.value = c.ratio = NAN;
	c.pass = true;
	assert_int_equal(res_criterion_put(db, &c, &err), 0); /* replaces */
	assert_int_equal(res_criterion_each(db, 1, see_criterion, got, &err), 0);
	assert_int_equal(got[1].id, 0);
	assert_string_equal(got[0].name, "bw at 8K");
	assert_true(got[0].pass);
	assert_true(isnan(got[0].value) && isnan(got[0].ratio));
	assert_float_equal(got[0].baseline, 89.0, 0);
	assert_float_equal(got[0].required, 0.9, 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM criteria WHERE value IS NULL"), 1);
	assert_int_equal(res_phase_each(db, 1, see_phase, phases, &err), 0);
	/* the fixture's campaign: 4 baseline, 12 sweep, 20 bisect trials (testbed-seconds) */
	assert_string_equal(phases, "baseline=4/9;sweep=12/145;bisect=20/520;");
	res_close(db);
}

/* Schema 5: trials stored before it ran on the only host pair and read back as slot 0; a
 * pooled trial keeps the slot that measured it. */
static void test_results_migrate_slot_column(void **state)
{
	struct fx *f = *state;
	struct res_db *db = NULL;
	struct scn_error err;
	struct res_trial t = { .repeat = 0, .slot = 3 }, got;
	char key[33];

	copy_fixture("store-v1/v1.db", f->path);
	assert_int_equal(res_open(f->path, false, &db, &err), 0);
	res_close(db);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM trials WHERE slot = 0"), 36);
	assert_int_equal(res_open(f->path, false, &db, &err), 0);
	snprintf(key, sizeof(key), "%s", "slot-three");
	snprintf(t.key, sizeof(t.key), "%s", key);
	snprintf(t.verb, sizeof(t.verb), "write");
	snprintf(t.metric, sizeof(t.metric), "bw");
	snprintf(t.sample.status, sizeof(t.sample.status), "ok");
	t.sample.bw_gbps = 90;
	t.sample.msg_rate_mpps = t.sample.lat_median_us = t.sample.lat_p99_us = NAN;
	assert_int_equal(res_trial_put(db, &t, &err), 0);
	assert_int_equal(res_trial_get(db, key, &got, &err), 0);
	assert_int_equal(got.slot, 3);
	res_close(db);
	assert_int_equal(sql_int(f->path, "SELECT slot FROM trials WHERE key = 'slot-three'"), 3);
}

static int64_t count_evidence(const char *path)
{
	return sql_int(path, "SELECT count(*) FROM trials WHERE evidence_json IS NOT NULL");
}

static void put_trial(struct res_db *db, const char *key, const char *evidence, int want)
{
	struct res_trial t = { .evidence_json = evidence };
	struct scn_error err;

	snprintf(t.key, sizeof(t.key), "%s", key);
	snprintf(t.verb, sizeof(t.verb), "write");
	snprintf(t.metric, sizeof(t.metric), "bw");
	snprintf(t.sample.status, sizeof(t.sample.status), "unusable");
	t.sample.bw_gbps = t.sample.msg_rate_mpps = NAN;
	t.sample.lat_median_us = t.sample.lat_p99_us = NAN;
	assert_int_equal(res_trial_put(db, &t, &err), want);
}

/* Schema 6: a version 5 store keeps all its trials, with no evidence (NULL, not '{}': the
 * testbed showed none); a trial stored after it keeps its evidence, failed or not, and text
 * that is not a JSON object is refused. */
static void test_results_migrate_v5_trial_evidence(void **state)
{
	static const char ev[] = "{\"lines\":[\"client: line 23: 65536 100 inf inf\"],"
				 "\"devices\":{\"server/rxe1\":{\"rcvd_seq_err\":3}}}";
	struct fx *f = *state;
	struct res_db *db = NULL;
	struct scn_error err;
	char *got = (char *)"unset";

	copy_fixture("store-v5/v5.db", f->path);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), 5);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM trials"), 64);
	assert_int_equal(res_open(f->path, false, &db, &err), 0);
	assert_int_equal(res_schema_version(db), RES_SCHEMA_VERSION);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM trials"), 64);
	assert_int_equal(count_evidence(f->path), 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM campaigns WHERE rng = "
				 "'xoshiro256**'"), sql_int(f->path, "SELECT count(*) FROM campaigns"));
	assert_int_equal(res_trial_evidence(db, 1, &got, &err), 0);
	assert_null(got);
	assert_int_equal(res_trial_evidence(db, 999, &got, &err), -ENOENT);
	assert_int_equal(err.cls, SCN_ERR_USAGE);
	put_trial(db, "with-evidence", ev, 0);
	put_trial(db, "no-evidence", "", 0);
	put_trial(db, "bad-evidence", "[1, 2]", -EINVAL);
	assert_int_equal(res_trial_evidence(db, 65, &got, &err), 0);
	assert_non_null(got);
	assert_string_equal(got, ev);
	free(got);
	assert_int_equal(res_trial_evidence(db, 66, &got, &err), 0);
	assert_null(got);
	res_close(db);
	assert_int_equal(count_evidence(f->path), 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM trials"), 66);
}

/* Schema 7: a cache-form model stored before (its parameters walk the mean deal) is marked
 * degenerate with the reason, its other quality kept; a model of another form is left as
 * it was. Two models written into the version 5 fixture, then migrated. */
static void test_results_migrate_v7_cache_models_degenerate(void **state)
{
	struct fx *f = *state;
	struct res_db *db = NULL;
	struct scn_error err;
	sqlite3 *h;

	copy_fixture("store-v5/v5.db", f->path);
	assert_int_equal(sqlite3_open(f->path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "INSERT INTO models (verb, metric, form, quality_json,"
				      " valid) VALUES ('send', 'bw', 'spillct2', '{\"r2\":0.99}', 1),"
				      " ('send', 'lat', 'cap2', '{\"r2\":0.98}', 1)", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(res_open(f->path, false, &db, &err), 0);
	res_close(db);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM models WHERE form = 'spillct2'"
				 " AND json_extract(quality_json, '$.r2') = 0.99 AND valid = 1 AND"
				 " json_extract(quality_json, '$.degenerate') LIKE '%run scalacn fit%'"),
			 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM models WHERE form = 'cap2'"
				 " AND quality_json = '{\"r2\":0.98}'"), 1);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_results_migrate_v1_keeps_trials_and_nulls_unmeasured),
		T(test_results_unmeasured_roundtrip_null),
		T(test_results_migrate_causes_supported_and_evidence),
		T(test_results_migrate_criteria_and_phases),
		T(test_results_migrate_slot_column),
		T(test_results_migrate_v5_trial_evidence),
		T(test_results_migrate_v7_cache_models_degenerate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
