/* SPDX-License-Identifier: MIT */
/*
 * results store: opening, configuring and migrating the SQLite file; closing; the shared
 * helpers of res_int.h (statement cache, error mapping, bounded copies).
 *
 * Assumes SQLite >= 3.24 (upsert syntax) and a file system where WAL works (shared memory
 * beside the file, not a network share). Error messages start with the database path so a
 * caller printing only scn_error.message still names the file.
 */
#include "results/res_int.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#define RES_TRIAL_INSERT_SQL                                                                \
	"INSERT INTO trials (campaign, point, key, verb, metric, repeat, status, bw_gbps, "  \
	"msg_rate_mpps, lat_median_us, lat_p99_us, cost_s, counters_json, started, finished, slot, " \
	"evidence_json) " \
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"

static const char *const stmt_sql[RES_ST_COUNT] = {
	[RES_ST_BEGIN] = "BEGIN IMMEDIATE",
	[RES_ST_COMMIT] = "COMMIT",
	[RES_ST_ROLLBACK] = "ROLLBACK",
	[RES_ST_CAMPAIGN_INSERT] =
		"INSERT INTO campaigns (plan_path, plan_hash, testbed, testbed_identity, "
		"rnic_model, firmware, tool_version, seed, status, started, finished, summary, "
		"plan_file_hash, testbed_file_hash, rng) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
	[RES_ST_CAMPAIGN_GET] = "SELECT " RES_CAMPAIGN_COLS " FROM campaigns WHERE id = ?1",
	[RES_ST_CAMPAIGN_FIND] = "SELECT " RES_CAMPAIGN_COLS " FROM campaigns "
				 "WHERE plan_hash = ?1 AND testbed_identity = ?2 "
				 "ORDER BY id DESC LIMIT 1",
	[RES_ST_CAMPAIGN_STATUS] = "UPDATE campaigns SET status = ?2, "
				   "summary = COALESCE(?3, summary), finished = ?4 WHERE id = ?1",
	[RES_ST_POINT_INSERT] = "INSERT INTO points (campaign, point_key, levels_json, "
				"model_text, phase) VALUES (?1, ?2, ?3, ?4, ?5) "
				"ON CONFLICT (campaign, point_key) DO NOTHING",
	[RES_ST_POINT_ID] = "SELECT id FROM points WHERE campaign = ?1 AND point_key = ?2",
	[RES_ST_TRIAL_INSERT] = RES_TRIAL_INSERT_SQL,
	[RES_ST_TRIAL_GET] = "SELECT " RES_TRIAL_COLS " FROM trials t WHERE t.key = ?1",
	[RES_ST_SYMPTOM_INSERT] =
		"INSERT INTO symptoms (campaign, point, kind, class, verb, dimension, level, "
		"last_good, effect, p_value, detail) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[RES_ST_CAUSE_INSERT] =
		"INSERT INTO causes (campaign, symptom, members, wall_level, effect, effect_lo, "
		"effect_hi, confidence, trial_ids, detail, supported, reason, evidence_json) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	/* json_type raises "malformed JSON" on text that is not JSON: a step error */
	[RES_ST_JSON_OBJECT] = "SELECT json_type(?1) = 'object'",
};

/* ---- helpers ---------------------------------------------------------------------------- */

static int rc_to_errno(struct res_db *db, int rc)
{
	int sys;

	switch (rc) {
	case SQLITE_CONSTRAINT_UNIQUE:
	case SQLITE_CONSTRAINT_PRIMARYKEY:
		return -EEXIST;
	case SQLITE_CONSTRAINT_FOREIGNKEY:
		return -ENOENT;
	default:
		break;
	}
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_TOOBIG:
		return -E2BIG;
	case SQLITE_IOERR:
	case SQLITE_CORRUPT:
		return -EIO;
	case SQLITE_CANTOPEN:
		sys = db && db->h ? sqlite3_system_errno(db->h) : 0;
		return sys > 0 ? -sys : -EACCES;
	default:
		return -EINVAL; /* SQLITE_ERROR, MISUSE, RANGE, NOTADB, other constraints */
	}
}

int res_sqlerr(struct res_db *db, int rc, struct scn_error *err, const char *what)
{
	const char *msg = db && db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc);
	int code = rc_to_errno(db, rc);

	return scn_error_set(err, SCN_ERR_STORE, code, "%s: %s: %s", db ? db->path : "?", what,
			     msg);
}

int res_exec(struct res_db *db, const char *sql, struct scn_error *err)
{
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : res_sqlerr(db, rc, err, "executing SQL");
}

int res_stmt(struct res_db *db, enum res_stmt_id id, sqlite3_stmt **out, struct scn_error *err)
{
	int rc;

	assert(db && db->h && id < RES_ST_COUNT && stmt_sql[id]);
	if (!db->st[id]) {
		rc = sqlite3_prepare_v3(db->h, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
					&db->st[id], NULL);
		if (rc != SQLITE_OK)
			return res_sqlerr(db, rc, err, "preparing statement");
	}
	*out = db->st[id];
	return 0;
}

void res_stmt_done(sqlite3_stmt *st)
{
	if (!st)
		return;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

int res_prepare(struct res_db *db, const char *sql, sqlite3_stmt **out, struct scn_error *err)
{
	int rc = sqlite3_prepare_v2(db->h, sql, -1, out, NULL);

	return rc == SQLITE_OK ? 0 : res_sqlerr(db, rc, err, "preparing query");
}

static int run_cached(struct res_db *db, enum res_stmt_id id, struct scn_error *err,
		      const char *what)
{
	sqlite3_stmt *st;
	int r = res_stmt(db, id, &st, err), rc;

	if (r)
		return r;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : res_sqlerr(db, rc, err, what);
}

int res_tx_begin(struct res_db *db, struct scn_error *err)
{
	return run_cached(db, RES_ST_BEGIN, err, "starting transaction");
}

int res_tx_commit(struct res_db *db, struct scn_error *err)
{
	return run_cached(db, RES_ST_COMMIT, err, "committing");
}

void res_tx_rollback(struct res_db *db)
{
	if (!sqlite3_get_autocommit(db->h))
		run_cached(db, RES_ST_ROLLBACK, NULL, "rolling back");
}

int res_bind_buf(sqlite3_stmt *st, int idx, const char *buf, size_t cap)
{
	return sqlite3_bind_text(st, idx, buf, (int)strnlen(buf, cap), SQLITE_STATIC);
}

int res_bind_id(sqlite3_stmt *st, int idx, int64_t id)
{
	return id > 0 ? sqlite3_bind_int64(st, idx, id) : sqlite3_bind_null(st, idx);
}

void res_col_buf(sqlite3_stmt *st, int col, char *dst, size_t cap)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	size_t n = s ? (size_t)sqlite3_column_bytes(st, col) : 0;

	assert(cap > 0);
	if (n >= cap)
		n = cap - 1;
	if (n)
		memcpy(dst, s, n);
	dst[n] = '\0';
}

int res_json_is_object(struct res_db *db, const char *text, size_t len)
{
	sqlite3_stmt *st;
	int ok;

	if (len > (size_t)INT32_MAX || res_stmt(db, RES_ST_JSON_OBJECT, &st, NULL))
		return 0;
	sqlite3_bind_text(st, 1, text, (int)len, SQLITE_STATIC);
	ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
	res_stmt_done(st);
	return ok;
}

/* ---- open, configure, migrate ------------------------------------------------------------ */

static int pragma_int(struct res_db *db, const char *sql, int *val, struct scn_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*val = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_OK) {
		if ((rc & 0xff) == SQLITE_NOTADB)
			scn_error_set(err, SCN_ERR_STORE, -EINVAL,
				      "%s: not an SQLite database (refusing to use it as a "
				      "results store)", db->path);
		else
			res_sqlerr(db, rc, err, sql);
		sqlite3_finalize(st);
		return err ? err->code : rc_to_errno(db, rc);
	}
	sqlite3_finalize(st);
	return 0;
}

/*
 * WAL lets readers (sqlite3 shell, pandas, `scalacn report`) work while a campaign writes.
 * synchronous=NORMAL with WAL is durable against the process being killed (kill -9, crash):
 * a commit is in the WAL file in the OS page cache once COMMIT returns; only a power loss or
 * kernel crash may lose the last commits (the database never corrupts). That trade buys a
 * per-trial commit without an fsync, which campaigns of many short trials need.
 */
static int configure(struct res_db *db, struct scn_error *err)
{
	int r = res_exec(db, "PRAGMA journal_mode=WAL", err);

	if (!r)
		r = res_exec(db, "PRAGMA synchronous=NORMAL", err);
	if (!r)
		r = res_exec(db, "PRAGMA foreign_keys=ON", err);
	return r;
}

/* One step FROM -> FROM+1 in one transaction; re-checks the version under the write lock
 * so two processes opening a fresh file at once migrate it once. */
static int migrate_step(struct res_db *db, int from, struct scn_error *err)
{
	char sql[64];
	int cur = -1, r = res_tx_begin(db, err);

	if (r)
		return r;
	r = pragma_int(db, "PRAGMA user_version", &cur, err);
	if (!r && cur == from) {
		r = res_exec(db, res_migration_sql(from), err);
		snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", from + 1);
		if (!r)
			r = res_exec(db, sql, err);
	}
	if (!r)
		r = res_tx_commit(db, err);
	if (r) {
		res_tx_rollback(db);
		scn_error_prefix(err, "migrating schema %d -> %d: ", from, from + 1);
	}
	return r;
}

static int migrate(struct res_db *db, int version, struct scn_error *err)
{
	int r;

	while (version < RES_SCHEMA_VERSION) {
		r = migrate_step(db, version, err);
		if (r)
			return r;
		r = pragma_int(db, "PRAGMA user_version", &version, err);
		if (r)
			return r;
	}
	return 0;
}

static int refuse_newer(struct res_db *db, int version, struct scn_error *err)
{
	return scn_error_set(err, SCN_ERR_STORE, -ENOTSUP,
			     "%s: database schema version %d is newer than this scalacn "
			     "(knows up to %d)", db->path, version, RES_SCHEMA_VERSION);
}

/* SQLite's busy handler: wait for another connection's lock with a growing sleep (1 ms
 * doubling to 200 ms) for up to RES_BUSY_PATIENCE_S, then give up (SQLITE_BUSY). COUNT is 0
 * at the first call for one lock wait. */
static int busy_wait(void *ctx, int count)
{
	struct res_db *db = ctx;
	struct timespec now, nap;
	double t, ms = count < 8 ? (double)(1 << count) : 200.0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	t = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
	if (count == 0)
		db->busy_since = t;
	if (t - db->busy_since >= RES_BUSY_PATIENCE_S)
		return 0;
	nap.tv_sec = 0;
	nap.tv_nsec = (long)((ms > 200 ? 200 : ms) * 1e6);
	nanosleep(&nap, NULL);
	return 1;
}

static int open_handle(struct res_db *db, const char *path, bool create, struct scn_error *err)
{
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	int rc;

	if (!create && strcmp(path, ":memory:") != 0 && access(path, F_OK) != 0)
		return scn_error_set(err, SCN_ERR_STORE, -ENOENT, "%s: no such results database",
				     path);
	rc = sqlite3_open_v2(path, &db->h, flags, NULL);
	if (rc != SQLITE_OK)
		return res_sqlerr(db, rc, err, "opening");
	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_handler(db->h, busy_wait, db);
	return 0;
}

int res_open(const char *path, bool create, struct res_db **out, struct scn_error *err)
{
	struct res_db *db;
	int version = 0, r;

	if (!out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_open: no result pointer");
	*out = NULL;
	if (!path || !path[0])
		return scn_error_set(err, SCN_ERR_STORE, -EINVAL, "results database: empty path");
	db = calloc(1, sizeof(*db));
	if (!db)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "%s: out of memory", path);
	snprintf(db->path, sizeof(db->path), "%s", path);
	r = open_handle(db, path, create, err);
	if (!r)
		r = pragma_int(db, "PRAGMA user_version", &version, err);
	if (!r && version > RES_SCHEMA_VERSION)
		r = refuse_newer(db, version, err);
	if (!r)
		r = configure(db, err);
	if (!r)
		r = migrate(db, version, err);
	if (r) {
		res_close(db);
		return r;
	}
	*out = db;
	return 0;
}

/* "file:PATH?mode=ro[&immutable=1]" with PATH percent-encoded where a URI needs it. */
static void ro_uri(const char *path, bool immutable, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "file:");

	for (const char *p = path; *p && n + 4 < len; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			n += (size_t)snprintf(out + n, len - n, "%%%02X", (unsigned char)*p);
		else
			out[n++] = *p;
	}
	snprintf(out + n, len - n, "?mode=ro%s", immutable ? "&immutable=1" : "");
}

/* Open PATH read-only; IMMUTABLE for media where even the WAL index cannot be made. */
static int open_ro_handle(struct res_db *db, const char *path, bool immutable,
			  struct scn_error *err)
{
	char uri[1100];
	int rc;

	ro_uri(path, immutable, uri, sizeof(uri));
	rc = sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	if (rc != SQLITE_OK)
		return res_sqlerr(db, rc, err, "opening read-only");
	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_handler(db->h, busy_wait, db);
	return 0;
}

static int version_ro(struct res_db *db, const char *path, int *version, struct scn_error *err)
{
	int r = open_ro_handle(db, path, false, err);

	if (!r)
		r = pragma_int(db, "PRAGMA user_version", version, err);
	if (r < 0 && r != -EINVAL && r != -ENOMEM) {
		/* a WAL database on read-only media: no -shm can be made beside it (-EROFS,
		 * -EACCES, or -ENOENT for the -shm file): read it as immutable */
		sqlite3_close_v2(db->h);
		db->h = NULL;
		r = open_ro_handle(db, path, true, err);
		if (!r)
			r = pragma_int(db, "PRAGMA user_version", version, err);
	}
	return r;
}

int res_open_ro(const char *path, struct res_db **out, struct scn_error *err)
{
	struct res_db *db;
	int version = 0, r;

	*out = NULL;
	if (!path || !path[0] || !strcmp(path, ":memory:") || access(path, F_OK) != 0)
		return res_open(path, false, out, err); /* the same errors as a writer gets */
	if (!(db = calloc(1, sizeof(*db))))
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "%s: out of memory", path);
	snprintf(db->path, sizeof(db->path), "%s", path);
	r = version_ro(db, path, &version, err);
	if (!r && version > RES_SCHEMA_VERSION)
		r = refuse_newer(db, version, err);
	if (!r && version < RES_SCHEMA_VERSION) {
		/* an older schema: migrating needs write access, as res_open has */
		res_close(db);
		r = res_open(path, false, out, err);
		if (r)
			scn_error_prefix(err, "schema %d must be migrated to %d first, which needs "
					 "write access: ", version, RES_SCHEMA_VERSION);
		return r;
	}
	if (r) {
		res_close(db);
		return r;
	}
	*out = db;
	return 0;
}

void res_close(struct res_db *db)
{
	if (!db)
		return;
	for (int i = 0; i < RES_ST_COUNT; i++)
		sqlite3_finalize(db->st[i]);
	/* close_v2: statements a caller prepared through res_sqlite() do not keep it open. */
	sqlite3_close_v2(db->h);
	free(db);
}

int res_schema_version(struct res_db *db)
{
	int v = 0, r;

	if (!db)
		return -EINVAL;
	r = pragma_int(db, "PRAGMA user_version", &v, NULL);
	return r ? r : v;
}

struct sqlite3 *res_sqlite(struct res_db *db)
{
	return db ? db->h : NULL;
}

int res_text_by_id(struct res_db *db, const char *sql, int64_t id, const char *what,
		   const char *empty, char **out, struct scn_error *err)
{
	sqlite3_stmt *st;
	int r, rc;

	*out = NULL;
	if (!db)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_text_by_id: NULL");
	if ((r = res_prepare(db, sql, &st, err)))
		return r;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		t = t && *t ? t : empty;
		if (t && !(*out = strdup(t)))
			r = scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	} else if (rc == SQLITE_DONE) {
		r = scn_error_set(err, SCN_ERR_USAGE, -ENOENT, "%s: no %s %lld", db->path, what,
				  (long long)id);
	} else {
		r = res_sqlerr(db, rc, err, "reading by id");
	}
	sqlite3_finalize(st);
	return r;
}
