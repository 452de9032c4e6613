/* SPDX-License-Identifier: MIT */
/*
 * results trials: the per-measurement rows, committed one transaction each the moment a
 * trial finishes, so a killed campaign loses at most the trial that was running.
 *
 * Assumes the caller computed a unique key per (point, traffic, repeat, testbed identity);
 * the UNIQUE constraint on trials.key turns a re-measurement into -EEXIST, never a
 * duplicate. Counters are stored as the JSON object text the caller gives ("" -> "{}"), the
 * evidence (schema 6) as its JSON object text or NULL when there is none.
 */
#include "results/res_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A measured number: NULL (not measured) reads as NAN. */
double res_col_measured(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* NAN or an infinity (not measured, or nothing a store could hold) is bound as NULL. */
void res_bind_measured(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

void res_trial_row(sqlite3_stmt *st, struct res_trial *t)
{
	struct res_sample *s = &t->sample;

	memset(t, 0, sizeof(*t));
	t->id = sqlite3_column_int64(st, 0);
	t->campaign = sqlite3_column_int64(st, 1); /* NULL reads as 0 */
	t->point = sqlite3_column_int64(st, 2);
	res_col_buf(st, 3, t->key, sizeof(t->key));
	res_col_buf(st, 4, t->verb, sizeof(t->verb));
	res_col_buf(st, 5, t->metric, sizeof(t->metric));
	t->repeat = sqlite3_column_int(st, 6);
	res_col_buf(st, 7, s->status, sizeof(s->status));
	s->bw_gbps = res_col_measured(st, 8);
	s->msg_rate_mpps = res_col_measured(st, 9);
	s->lat_median_us = res_col_measured(st, 10);
	s->lat_p99_us = res_col_measured(st, 11);
	s->cost_s = sqlite3_column_double(st, 12);
	res_col_buf(st, 13, s->counters_json, sizeof(s->counters_json));
	t->started = sqlite3_column_double(st, 14);
	t->finished = sqlite3_column_double(st, 15);
	t->slot = (unsigned)sqlite3_column_int(st, 16);
}

static int check_trial(struct res_db *db, const struct res_trial *t, struct scn_error *err)
{
	const struct res_sample *s = &t->sample;
	size_t n = strnlen(s->counters_json, sizeof(s->counters_json));
	size_t klen = strnlen(t->key, sizeof(t->key));

	if (klen == 0 || klen == sizeof(t->key))
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL,
				     "%s: trial key is empty or not terminated", db->path);
	if (n == sizeof(s->counters_json))
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL,
				     "%s: trial %.*s: counters text is not terminated", db->path,
				     (int)sizeof(t->key), t->key);
	if (n > 0 && !res_json_is_object(db, s->counters_json, n))
		return scn_error_set(err, SCN_ERR_STORE, -EINVAL,
				     "%s: trial %.*s: counters are not a JSON object", db->path,
				     (int)sizeof(t->key), t->key);
	if (t->evidence_json && t->evidence_json[0] &&
	    !res_json_is_object(db, t->evidence_json, strlen(t->evidence_json)))
		return scn_error_set(err, SCN_ERR_STORE, -EINVAL,
				     "%s: trial %.*s: evidence is not a JSON object", db->path,
				     (int)sizeof(t->key), t->key);
	return 0;
}

static void bind_trial(sqlite3_stmt *st, const struct res_trial *t)
{
	const struct res_sample *s = &t->sample;

	res_bind_id(st, 1, t->campaign);
	res_bind_id(st, 2, t->point);
	res_bind_buf(st, 3, t->key, sizeof(t->key));
	res_bind_buf(st, 4, t->verb, sizeof(t->verb));
	res_bind_buf(st, 5, t->metric, sizeof(t->metric));
	sqlite3_bind_int(st, 6, t->repeat);
	res_bind_buf(st, 7, s->status, sizeof(s->status));
	res_bind_measured(st, 8, s->bw_gbps);
	res_bind_measured(st, 9, s->msg_rate_mpps);
	res_bind_measured(st, 10, s->lat_median_us);
	res_bind_measured(st, 11, s->lat_p99_us);
	sqlite3_bind_double(st, 12, s->cost_s);
	if (s->counters_json[0])
		res_bind_buf(st, 13, s->counters_json, sizeof(s->counters_json));
	else
		sqlite3_bind_text(st, 13, "{}", 2, SQLITE_STATIC);
	sqlite3_bind_double(st, 14, t->started);
	sqlite3_bind_double(st, 15, t->finished);
	sqlite3_bind_int(st, 16, (int)t->slot);
	if (t->evidence_json && t->evidence_json[0])
		sqlite3_bind_text(st, 17, t->evidence_json, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 17);
}

/* The INSERT of T (in the caller's transaction). On success *ID is the new row id. */
static int insert_trial(struct res_db *db, const struct res_trial *t, int64_t *id,
			struct scn_error *err)
{
	sqlite3_stmt *st;
	int r = res_stmt(db, RES_ST_TRIAL_INSERT, &st, err), rc;

	if (r)
		return r;
	bind_trial(st, t);
	rc = sqlite3_step(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		r = scn_error_set(err, SCN_ERR_STORE, -EEXIST, "%s: trial %.*s is already stored",
				  db->path, (int)sizeof(t->key), t->key);
	else if (rc != SQLITE_DONE)
		r = res_sqlerr(db, rc, err, "inserting trial");
	else
		*id = sqlite3_last_insert_rowid(db->h);
	res_stmt_done(st);
	return r;
}

/* BEGIN IMMEDIATE; the point's upsert when P is given (t->point set); INSERT; COMMIT.
 * On success t->id is the new row id. -ENOENT when the campaign or point does not exist
 * (foreign key). */
static int put(struct res_db *db, struct res_trial *t, const struct res_point_ref *p,
	       struct scn_error *err)
{
	int64_t id = 0;
	int r;

	if (!db || !t)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_trial_put: NULL");
	r = check_trial(db, t, err);
	if (!r)
		r = res_tx_begin(db, err);
	if (r)
		return r;
	if (p)
		r = res_point_upsert(db, t->campaign, p->key, p->levels_json, p->model_text,
				     p->phase, &t->point, err);
	if (!r)
		r = insert_trial(db, t, &id, err);
	if (!r)
		r = res_tx_commit(db, err);
	if (r) {
		res_tx_rollback(db);
		return r;
	}
	t->id = id;
	return 0;
}

int res_trial_put(struct res_db *db, struct res_trial *t, struct scn_error *err)
{
	return put(db, t, NULL, err);
}

int res_trial_put_at(struct res_db *db, struct res_trial *t, const struct res_point_ref *p,
		     struct scn_error *err)
{
	if (!p)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_trial_put_at: no point");
	return put(db, t, p, err);
}

int res_trial_get(struct res_db *db, const char *key, struct res_trial *out,
		  struct scn_error *err)
{
	sqlite3_stmt *st;
	int r, rc;

	if (!db || !key || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_trial_get: NULL");
	r = res_stmt(db, RES_ST_TRIAL_GET, &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		res_trial_row(st, out);
	else if (rc == SQLITE_DONE)
		r = scn_error_set(err, SCN_ERR_STORE, -ENOENT, "%s: no trial %s", db->path, key);
	else
		r = res_sqlerr(db, rc, err, "looking up trial");
	res_stmt_done(st);
	return r;
}

/* Levels of trials without a point are passed as "{}". A non-zero return of CB stops the
 * walk and is returned. CB may call other res_* functions on DB. */
int res_trial_each(struct res_db *db, int64_t campaign, res_trial_cb cb, void *ctx,
		   struct scn_error *err)
{
#define EACH_SQL                                                                            \
	"SELECT " RES_TRIAL_COLS ", COALESCE(p.levels_json, '{}'), COALESCE(p.phase, '') " \
	"FROM trials t LEFT JOIN points p ON p.id = t.point "
	struct res_trial t;
	sqlite3_stmt *st;
	int r, rc;

	if (!db || !cb)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_trial_each: NULL");
	r = res_prepare(db, campaign > 0 ? EACH_SQL "WHERE t.campaign = ?1 ORDER BY t.id"
					 : EACH_SQL "ORDER BY t.id", &st, err);
	if (r)
		return r;
	if (campaign > 0)
		sqlite3_bind_int64(st, 1, campaign);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		res_trial_row(st, &t);
		snprintf(t.phase, sizeof(t.phase), "%s",
			 (const char *)sqlite3_column_text(st, RES_TRIAL_NCOLS + 1));
		r = cb(&t, (const char *)sqlite3_column_text(st, RES_TRIAL_NCOLS), ctx);
		if (r)
			break;
	}
	if (!r && rc != SQLITE_DONE)
		r = res_sqlerr(db, rc, err, "listing trials");
	sqlite3_finalize(st);
	return r;
}

int res_trial_evidence(struct res_db *db, int64_t id, char **out, struct scn_error *err)
{
	return res_text_by_id(db, "SELECT evidence_json FROM trials WHERE id = ?1", id, "trial",
			      NULL, out, err);
}

/* N and COST_S may be NULL. */
int res_trial_count(struct res_db *db, int64_t campaign, int64_t *n, double *cost_s,
		    struct scn_error *err)
{
#define COUNT_SQL "SELECT COUNT(*), TOTAL(cost_s) FROM trials"
	sqlite3_stmt *st;
	int r, rc;

	if (!db)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_trial_count: NULL");
	r = res_prepare(db, campaign > 0 ? COUNT_SQL " WHERE campaign = ?1" : COUNT_SQL, &st, err);
	if (r)
		return r;
	if (campaign > 0)
		sqlite3_bind_int64(st, 1, campaign);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (n)
			*n = sqlite3_column_int64(st, 0);
		if (cost_s)
			*cost_s = sqlite3_column_double(st, 1);
	} else {
		r = res_sqlerr(db, rc, err, "counting trials");
	}
	sqlite3_finalize(st);
	return r;
}

int res_identity_cost(struct res_db *db, const char *identity, struct res_cost *out,
		      struct scn_error *err)
{
	static const char sql[] =
		"SELECT COUNT(*), TOTAL(t.cost_s),"
		" TOTAL(CASE WHEN t.status = 'timeout' THEN t.cost_s ELSE 0 END)"
		" FROM trials t JOIN campaigns c ON t.campaign = c.id"
		" WHERE c.testbed_identity = ?1";
	sqlite3_stmt *st;
	int r, rc;

	memset(out, 0, sizeof(*out));
	r = res_prepare(db, sql, &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, identity, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->trials = sqlite3_column_int64(st, 0);
		out->cost_s = sqlite3_column_double(st, 1);
		out->timeout_s = sqlite3_column_double(st, 2);
	} else {
		r = res_sqlerr(db, rc, err, "summing the cost of trials");
	}
	sqlite3_finalize(st);
	return r;
}
