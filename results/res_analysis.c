/* SPDX-License-Identifier: MIT */
/*
 * results analysis rows: symptoms (walls found at a point) and causes (minimal component
 * sets needed for a symptom), written by the harness's causal analysis and read by reports.
 *
 * Assumes analysis is re-runnable: res_analysis_clear drops a campaign's symptoms and causes
 * in one transaction before a re-analysis writes new ones. campaign/point/symptom ids <= 0
 * are stored as NULL ("not linked") and read back as 0.
 */
#include "results/res_int.h"

#include <errno.h>
#include <string.h>

int res_symptom_put(struct res_db *db, struct res_symptom *s, struct scn_error *err)
{
	sqlite3_stmt *st;
	int r, rc;

	if (!db || !s)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_symptom_put: NULL");
	r = res_stmt(db, RES_ST_SYMPTOM_INSERT, &st, err);
	if (r)
		return r;
	res_bind_id(st, 1, s->campaign);
	res_bind_id(st, 2, s->point);
	res_bind_buf(st, 3, s->kind, sizeof(s->kind));
	res_bind_buf(st, 4, s->class_, sizeof(s->class_));
	res_bind_buf(st, 5, s->verb, sizeof(s->verb));
	res_bind_buf(st, 6, s->dimension, sizeof(s->dimension));
	sqlite3_bind_double(st, 7, s->level);
	sqlite3_bind_double(st, 8, s->last_good);
	sqlite3_bind_double(st, 9, s->effect);
	sqlite3_bind_double(st, 10, s->p_value);
	res_bind_buf(st, 11, s->detail, sizeof(s->detail));
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		r = res_sqlerr(db, rc, err, "inserting symptom");
	else
		s->id = sqlite3_last_insert_rowid(db->h);
	res_stmt_done(st);
	return r;
}

static void symptom_row(sqlite3_stmt *st, struct res_symptom *s)
{
	memset(s, 0, sizeof(*s));
	s->id = sqlite3_column_int64(st, 0);
	s->campaign = sqlite3_column_int64(st, 1);
	s->point = sqlite3_column_int64(st, 2);
	res_col_buf(st, 3, s->kind, sizeof(s->kind));
	res_col_buf(st, 4, s->class_, sizeof(s->class_));
	res_col_buf(st, 5, s->verb, sizeof(s->verb));
	res_col_buf(st, 6, s->dimension, sizeof(s->dimension));
	s->level = sqlite3_column_double(st, 7);
	s->last_good = sqlite3_column_double(st, 8);
	s->effect = sqlite3_column_double(st, 9);
	s->p_value = sqlite3_column_double(st, 10);
	res_col_buf(st, 11, s->detail, sizeof(s->detail));
}

/* Prepare SQL (with or without "WHERE campaign = ?1") for CAMPAIGN (<= 0: all). */
static int prepare_for(struct res_db *db, int64_t campaign, const char *all,
		       const char *one, sqlite3_stmt **st, struct scn_error *err)
{
	int r = res_prepare(db, campaign > 0 ? one : all, st, err);

	if (!r && campaign > 0)
		sqlite3_bind_int64(*st, 1, campaign);
	return r;
}

#define SYMPTOM_SQL                                                                         \
	"SELECT id, campaign, point, kind, class, verb, dimension, level, last_good, effect, " \
	"p_value, detail FROM symptoms "

/* Symptoms of CAMPAIGN (<= 0: all) in id order; a non-zero CB return stops and is returned. */
int res_symptom_each(struct res_db *db, int64_t campaign, res_symptom_cb cb, void *ctx,
		     struct scn_error *err)
{
	struct res_symptom s;
	sqlite3_stmt *st;
	int r, rc;

	if (!db || !cb)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_symptom_each: NULL");
	r = prepare_for(db, campaign, SYMPTOM_SQL "ORDER BY id",
			SYMPTOM_SQL "WHERE campaign = ?1 ORDER BY id", &st, err);
	if (r)
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		symptom_row(st, &s);
		r = cb(&s, ctx);
		if (r)
			break;
	}
	if (!r && rc != SQLITE_DONE)
		r = res_sqlerr(db, rc, err, "listing symptoms");
	sqlite3_finalize(st);
	return r;
}

int res_cause_put(struct res_db *db, struct res_cause *c, struct scn_error *err)
{
	sqlite3_stmt *st;
	int r, rc;

	if (!db || !c)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_cause_put: NULL");
	r = res_stmt(db, RES_ST_CAUSE_INSERT, &st, err);
	if (r)
		return r;
	res_bind_id(st, 1, c->campaign);
	res_bind_id(st, 2, c->symptom);
	res_bind_buf(st, 3, c->members, sizeof(c->members));
	sqlite3_bind_double(st, 4, c->wall_level);
	sqlite3_bind_double(st, 5, c->effect);
	sqlite3_bind_double(st, 6, c->effect_lo);
	sqlite3_bind_double(st, 7, c->effect_hi);
	sqlite3_bind_double(st, 8, c->confidence);
	res_bind_buf(st, 9, c->trial_ids, sizeof(c->trial_ids));
	res_bind_buf(st, 10, c->detail, sizeof(c->detail));
	sqlite3_bind_int(st, 11, c->supported ? 1 : 0);
	res_bind_buf(st, 12, c->reason, sizeof(c->reason));
	sqlite3_bind_text(st, 13, c->evidence_json ? c->evidence_json : "{}", -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		r = res_sqlerr(db, rc, err, "inserting cause");
	else
		c->id = sqlite3_last_insert_rowid(db->h);
	res_stmt_done(st);
	return r;
}

static void cause_row(sqlite3_stmt *st, struct res_cause *c)
{
	memset(c, 0, sizeof(*c));
	c->id = sqlite3_column_int64(st, 0);
	c->campaign = sqlite3_column_int64(st, 1);
	c->symptom = sqlite3_column_int64(st, 2);
	res_col_buf(st, 3, c->members, sizeof(c->members));
	c->wall_level = sqlite3_column_double(st, 4);
	c->effect = sqlite3_column_double(st, 5);
	c->effect_lo = sqlite3_column_double(st, 6);
	c->effect_hi = sqlite3_column_double(st, 7);
	c->confidence = sqlite3_column_double(st, 8);
	res_col_buf(st, 9, c->trial_ids, sizeof(c->trial_ids));
	res_col_buf(st, 10, c->detail, sizeof(c->detail));
	c->supported = sqlite3_column_int(st, 11) != 0;
	res_col_buf(st, 12, c->reason, sizeof(c->reason));
}

#define CAUSE_SQL                                                                           \
	"SELECT id, campaign, symptom, members, wall_level, effect, effect_lo, effect_hi, "  \
	"confidence, trial_ids, detail, supported, reason FROM causes "

/* Causes of CAMPAIGN (<= 0: all) in id order; a non-zero CB return stops and is returned. */
int res_cause_each(struct res_db *db, int64_t campaign, res_cause_cb cb, void *ctx,
		   struct scn_error *err)
{
	struct res_cause c;
	sqlite3_stmt *st;
	int r, rc;

	if (!db || !cb)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_cause_each: NULL");
	r = prepare_for(db, campaign, CAUSE_SQL "ORDER BY id",
			CAUSE_SQL "WHERE campaign = ?1 ORDER BY id", &st, err);
	if (r)
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		cause_row(st, &c);
		r = cb(&c, ctx);
		if (r)
			break;
	}
	if (!r && rc != SQLITE_DONE)
		r = res_sqlerr(db, rc, err, "listing causes");
	sqlite3_finalize(st);
	return r;
}

int res_cause_evidence(struct res_db *db, int64_t id, char **out, struct scn_error *err)
{
	return res_text_by_id(db, "SELECT evidence_json FROM causes WHERE id = ?1", id, "cause",
			      "{}", out, err);
}

/* One transaction; CAMPAIGN <= 0 clears every campaign's analysis. */
int res_analysis_clear(struct res_db *db, int64_t campaign, struct scn_error *err)
{
	static const char *const sql[2][2] = {
		{ "DELETE FROM causes", "DELETE FROM causes WHERE campaign = ?1" },
		{ "DELETE FROM symptoms", "DELETE FROM symptoms WHERE campaign = ?1" },
	};
	sqlite3_stmt *st;
	int r, rc = SQLITE_DONE;

	if (!db)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_analysis_clear: NULL");
	r = res_tx_begin(db, err);
	for (int i = 0; !r && i < 2; i++) {
		r = prepare_for(db, campaign, sql[i][0], sql[i][1], &st, err);
		if (r)
			break;
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE)
			r = res_sqlerr(db, rc, err, "clearing analysis");
		sqlite3_finalize(st);
	}
	if (!r)
		r = res_tx_commit(db, err);
	if (r)
		res_tx_rollback(db);
	return r;
}
