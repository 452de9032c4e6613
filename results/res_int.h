/* SPDX-License-Identifier: MIT */
/*
 * results internals: the members of struct res_db and the helpers the res_*.c files share
 * (statement cache, error mapping, bounded string copies). Not installed; only results/ sees
 * it.
 *
 * Assumes one res_db is used by one thread at a time (SQLite's default serialized mode would
 * allow more, but the statement cache is not locked).
 */
#ifndef RES_INT_H
#define RES_INT_H

#include <sqlite3.h>

#include "results/res.h"

/* Cached statements, prepared on first use, finalised by res_close. */
enum res_stmt_id {
	RES_ST_BEGIN = 0,
	RES_ST_COMMIT,
	RES_ST_ROLLBACK,
	RES_ST_CAMPAIGN_INSERT,
	RES_ST_CAMPAIGN_GET,
	RES_ST_CAMPAIGN_FIND,
	RES_ST_CAMPAIGN_STATUS,
	RES_ST_POINT_INSERT,
	RES_ST_POINT_ID,
	RES_ST_TRIAL_INSERT,
	RES_ST_TRIAL_GET,
	RES_ST_SYMPTOM_INSERT,
	RES_ST_CAUSE_INSERT,
	RES_ST_JSON_OBJECT,
	RES_ST_COUNT
};

/*
 * Invariants: h is an open connection on a database whose user_version is
 * RES_SCHEMA_VERSION; every non-NULL st[i] was prepared from res_stmt_sql(i) on h and is
 * reset (not holding a read snapshot) whenever no res_* call is running.
 */
struct res_db {
	sqlite3 *h;
	sqlite3_stmt *st[RES_ST_COUNT];
	char path[256];
	double busy_since; /* CLOCK_MONOTONIC seconds when the current lock wait began */
};

/* Column list shared by campaign queries; res_campaign_row reads it from column 0 on. */
#define RES_CAMPAIGN_COLS                                                                   \
	"id, plan_path, plan_hash, testbed, testbed_identity, rnic_model, firmware, "       \
	"tool_version, seed, status, started, finished, summary, plan_file_hash, "          \
	"testbed_file_hash, rng"

/* Column list of trial queries (table alias t); res_trial_row reads it from column 0 on. */
#define RES_TRIAL_COLS                                                                      \
	"t.id, t.campaign, t.point, t.key, t.verb, t.metric, t.repeat, t.status, t.bw_gbps, " \
	"t.msg_rate_mpps, t.lat_median_us, t.lat_p99_us, t.cost_s, t.counters_json, "       \
	"t.started, t.finished, t.slot"
#define RES_TRIAL_NCOLS 17

/* Migration FROM -> FROM + 1 as SQL text (res_schema.c); NULL when FROM is out of range. */
const char *res_migration_sql(int from);

/* A reset, unbound cached statement (prepared on first use). */
int res_stmt(struct res_db *db, enum res_stmt_id id, sqlite3_stmt **out, struct scn_error *err);
/* Reset and clear bindings so the statement holds no snapshot. Accepts NULL. */
void res_stmt_done(sqlite3_stmt *st);
/* Prepare an uncached statement (iterations, which may nest). */
int res_prepare(struct res_db *db, const char *sql, sqlite3_stmt **out, struct scn_error *err);

/* Map an SQLite result code to a negative errno and fill ERR ("WHAT: sqlite message"). */
int res_sqlerr(struct res_db *db, int rc, struct scn_error *err, const char *what);
/* The text column that SQL (one parameter, ?1 = ID) selects, into *OUT (malloc'd); EMPTY
 * (NULL: none) when the column is NULL or "". -ENOENT "PATH: no WHAT ID" without a row. */
int res_text_by_id(struct res_db *db, const char *sql, int64_t id, const char *what,
		   const char *empty, char **out, struct scn_error *err);
/* Run SQL text (may hold several statements) with no result rows. */
int res_exec(struct res_db *db, const char *sql, struct scn_error *err);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK through the cached statements. */
int res_tx_begin(struct res_db *db, struct scn_error *err);
int res_tx_commit(struct res_db *db, struct scn_error *err);
void res_tx_rollback(struct res_db *db);

/* Bind the text in a fixed buffer of CAP bytes (never reads past it). */
int res_bind_buf(sqlite3_stmt *st, int idx, const char *buf, size_t cap);
/* Bind an id, NULL when <= 0 (no campaign / no point). */
int res_bind_id(sqlite3_stmt *st, int idx, int64_t id);
/* Copy column COL into DST (CAP bytes, truncated, always terminated; NULL -> ""). */
void res_col_buf(sqlite3_stmt *st, int col, char *dst, size_t cap);

/* A measured number: NULL reads as NAN; NAN or an infinity is bound as NULL (res_trial.c). */
double res_col_measured(sqlite3_stmt *st, int i);
void res_bind_measured(sqlite3_stmt *st, int i, double v);

/* 1 when TEXT (LEN bytes) is a JSON object, else 0 (SQLite's own JSON parser, which builds
 * no tree of allocated objects: it is asked once or twice for every trial stored). */
int res_json_is_object(struct res_db *db, const char *text, size_t len);

/* Fill a campaign from a row of RES_CAMPAIGN_COLS. */
void res_campaign_row(sqlite3_stmt *st, struct res_campaign *c);
/* Fill a trial from a row of RES_TRIAL_COLS. */
void res_trial_row(sqlite3_stmt *st, struct res_trial *t);

#endif
