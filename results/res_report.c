/* SPDX-License-Identifier: MIT */
/*
 * results for reports: the verdict of each qualification criterion (table `criteria`,
 * schema 4), the trials and testbed-seconds a campaign spent per phase, and the points
 * of one phase (the baselines a report draws its bands from); read by harness/report/.
 */
#include "results/res_int.h"

#include <errno.h>
#include <string.h>

/* Step ST (prepared, bound) and call ROW for each row until it returns non-zero; finalises
 * ST. WHAT names the query in errors. */
static int each_row(struct res_db *db, sqlite3_stmt *st, const char *what,
		    int (*row)(sqlite3_stmt *st, void *ctx), void *ctx, struct scn_error *err)
{
	int r = 0, rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((r = row(st, ctx)))
			break;
	if (!r && rc != SQLITE_DONE)
		r = res_sqlerr(db, rc, err, what);
	sqlite3_finalize(st);
	return r;
}

/* A callback and its context, for the row functions below. */
struct each {
	res_criterion_cb crit;
	res_phase_cb phase;
	res_levels_cb levels;
	void *ctx;
};

#define CRITERION_COLS "id, campaign, name, verb, metric, op, required, value, baseline, ratio, " \
	"pass, status, drifted"

int res_criterion_put(struct res_db *db, struct res_criterion *c, struct scn_error *err)
{
	sqlite3_stmt *st;
	int r, rc;

	if (!db || !c)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_criterion_put: NULL");
	r = res_prepare(db, "INSERT OR REPLACE INTO criteria (campaign, name, verb, metric, op, "
			"required, value, baseline, ratio, pass, status, drifted) "
			"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, c->campaign);
	res_bind_buf(st, 2, c->name, sizeof(c->name));
	res_bind_buf(st, 3, c->verb, sizeof(c->verb));
	res_bind_buf(st, 4, c->metric, sizeof(c->metric));
	res_bind_buf(st, 5, c->op, sizeof(c->op));
	res_bind_measured(st, 6, c->required);
	res_bind_measured(st, 7, c->value);
	res_bind_measured(st, 8, c->baseline);
	res_bind_measured(st, 9, c->ratio);
	sqlite3_bind_int(st, 10, c->pass ? 1 : 0);
	res_bind_buf(st, 11, c->status, sizeof(c->status));
	sqlite3_bind_int(st, 12, c->drifted ? 1 : 0);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		r = res_sqlerr(db, rc, err, "storing a criterion");
	else
		c->id = sqlite3_last_insert_rowid(db->h);
	sqlite3_finalize(st);
	return r;
}

static void criterion_row(sqlite3_stmt *st, struct res_criterion *c)
{
	memset(c, 0, sizeof(*c));
	c->id = sqlite3_column_int64(st, 0);
	c->campaign = sqlite3_column_int64(st, 1);
	res_col_buf(st, 2, c->name, sizeof(c->name));
	res_col_buf(st, 3, c->verb, sizeof(c->verb));
	res_col_buf(st, 4, c->metric, sizeof(c->metric));
	res_col_buf(st, 5, c->op, sizeof(c->op));
	c->required = res_col_measured(st, 6);
	c->value = res_col_measured(st, 7);
	c->baseline = res_col_measured(st, 8);
	c->ratio = res_col_measured(st, 9);
	c->pass = sqlite3_column_int(st, 10) != 0;
	res_col_buf(st, 11, c->status, sizeof(c->status));
	c->drifted = sqlite3_column_int(st, 12) != 0;
}

static int criterion_cb(sqlite3_stmt *st, void *ctx)
{
	struct each *e = ctx;
	struct res_criterion c;

	criterion_row(st, &c);
	return e->crit(&c, e->ctx);
}

int res_criterion_each(struct res_db *db, int64_t campaign, res_criterion_cb cb, void *ctx,
		       struct scn_error *err)
{
	struct each e = { .crit = cb, .ctx = ctx };
	sqlite3_stmt *st;
	int r;

	if (!db || !cb)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_criterion_each: NULL");
	r = res_prepare(db, "SELECT " CRITERION_COLS " FROM criteria WHERE campaign = ?1 "
			"ORDER BY id", &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, campaign);
	return each_row(db, st, "listing criteria", criterion_cb, &e, err);
}

static int phase_cb(sqlite3_stmt *st, void *ctx)
{
	struct each *e = ctx;
	const char *phase = (const char *)sqlite3_column_text(st, 0);

	return e->phase(phase ? phase : "", sqlite3_column_int64(st, 1),
			sqlite3_column_double(st, 2), e->ctx);
}

int res_phase_each(struct res_db *db, int64_t campaign, res_phase_cb cb, void *ctx,
		   struct scn_error *err)
{
	struct each e = { .phase = cb, .ctx = ctx };
	sqlite3_stmt *st;
	int r;

	if (!db || !cb)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_phase_each: NULL");
	r = res_prepare(db, "SELECT p.phase, COUNT(t.id), TOTAL(t.cost_s), MIN(t.id) AS first "
			"FROM trials t JOIN points p ON p.id = t.point WHERE t.campaign = ?1 "
			"GROUP BY p.phase ORDER BY first", &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, campaign);
	return each_row(db, st, "counting trials per phase", phase_cb, &e, err);
}

static int points_cb(sqlite3_stmt *st, void *ctx)
{
	struct each *e = ctx;
	const char *levels = (const char *)sqlite3_column_text(st, 1);

	return e->levels(sqlite3_column_int64(st, 0), levels ? levels : "{}", e->ctx);
}

int res_phase_points(struct res_db *db, int64_t campaign, const char *phase,
		     res_levels_cb cb, void *ctx, struct scn_error *err)
{
	struct each e = { .levels = cb, .ctx = ctx };
	sqlite3_stmt *st;
	int r;

	if (!db || !cb || !phase)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_phase_points: NULL");
	r = res_prepare(db, "SELECT id, levels_json FROM points WHERE campaign = ?1 AND phase = ?2 "
			"ORDER BY id", &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, campaign);
	sqlite3_bind_text(st, 2, phase, -1, SQLITE_STATIC);
	return each_row(db, st, "listing points", points_cb, &e, err);
}
