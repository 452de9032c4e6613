/* SPDX-License-Identifier: MIT */
/*
 * results campaigns and points: one row per campaign run (what was tested, where, with which
 * seed, how it ended) and one row per measured point of a campaign (its levels as JSON).
 *
 * Assumes campaign rows are never deleted while a campaign runs (trials reference them).
 * Status is stored by name so the sqlite3 shell shows "done", not 2.
 */
#include "results/res_int.h"

#include <errno.h>
#include <string.h>
#include <time.h>

static const char *const status_names[] = {
	[RES_RUNNING] = "running",
	[RES_INTERRUPTED] = "interrupted",
	[RES_DONE] = "done",
	[RES_FAILED] = "failed",
};
#define N_STATUS (sizeof(status_names) / sizeof(status_names[0]))

const char *res_campaign_status_name(enum res_campaign_status s)
{
	return (unsigned)s < N_STATUS ? status_names[s] : "unknown";
}

static enum res_campaign_status status_parse(const char *s)
{
	for (unsigned i = 0; i < N_STATUS; i++)
		if (strcmp(s, status_names[i]) == 0)
			return (enum res_campaign_status)i;
	return RES_FAILED; /* the CHECK constraint keeps other names out */
}

void res_campaign_row(sqlite3_stmt *st, struct res_campaign *c)
{
	char status[16];

	memset(c, 0, sizeof(*c));
	c->id = sqlite3_column_int64(st, 0);
	res_col_buf(st, 1, c->plan_path, sizeof(c->plan_path));
	res_col_buf(st, 2, c->plan_hash, sizeof(c->plan_hash));
	res_col_buf(st, 3, c->testbed, sizeof(c->testbed));
	res_col_buf(st, 4, c->testbed_identity, sizeof(c->testbed_identity));
	res_col_buf(st, 5, c->rnic_model, sizeof(c->rnic_model));
	res_col_buf(st, 6, c->firmware, sizeof(c->firmware));
	res_col_buf(st, 7, c->tool_version, sizeof(c->tool_version));
	c->seed = (uint64_t)sqlite3_column_int64(st, 8);
	res_col_buf(st, 9, status, sizeof(status));
	c->status = status_parse(status);
	c->started = sqlite3_column_double(st, 10);
	c->finished = sqlite3_column_double(st, 11);
	res_col_buf(st, 12, c->summary, sizeof(c->summary));
	res_col_buf(st, 13, c->plan_file_hash, sizeof(c->plan_file_hash));
	res_col_buf(st, 14, c->testbed_file_hash, sizeof(c->testbed_file_hash));
	res_col_buf(st, 15, c->rng, sizeof(c->rng));
}

static void bind_campaign(sqlite3_stmt *st, const struct res_campaign *c)
{
	res_bind_buf(st, 1, c->plan_path, sizeof(c->plan_path));
	res_bind_buf(st, 2, c->plan_hash, sizeof(c->plan_hash));
	res_bind_buf(st, 3, c->testbed, sizeof(c->testbed));
	res_bind_buf(st, 4, c->testbed_identity, sizeof(c->testbed_identity));
	res_bind_buf(st, 5, c->rnic_model, sizeof(c->rnic_model));
	res_bind_buf(st, 6, c->firmware, sizeof(c->firmware));
	res_bind_buf(st, 7, c->tool_version, sizeof(c->tool_version));
	sqlite3_bind_int64(st, 8, (sqlite3_int64)c->seed);
	sqlite3_bind_text(st, 9, res_campaign_status_name(c->status), -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 10, c->started);
	sqlite3_bind_double(st, 11, c->finished);
	res_bind_buf(st, 12, c->summary, sizeof(c->summary));
	res_bind_buf(st, 13, c->plan_file_hash, sizeof(c->plan_file_hash));
	res_bind_buf(st, 14, c->testbed_file_hash, sizeof(c->testbed_file_hash));
	res_bind_buf(st, 15, c->rng, sizeof(c->rng));
}

int res_campaign_insert(struct res_db *db, struct res_campaign *c, struct scn_error *err)
{
	sqlite3_stmt *st;
	int r, rc;

	if (!db || !c)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_campaign_insert: NULL");
	if ((unsigned)c->status >= N_STATUS)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "%s: bad campaign status %d",
				     db->path, (int)c->status);
	r = res_stmt(db, RES_ST_CAMPAIGN_INSERT, &st, err);
	if (r)
		return r;
	bind_campaign(st, c);
	rc = sqlite3_step(st);
	res_stmt_done(st);
	if (rc != SQLITE_DONE)
		return res_sqlerr(db, rc, err, "inserting campaign");
	c->id = sqlite3_last_insert_rowid(db->h);
	return 0;
}

/* Step ST once: one row -> *out and 0; none -> -ENOENT (message from WHAT). */
static int campaign_one(struct res_db *db, sqlite3_stmt *st, struct res_campaign *out,
			struct scn_error *err, const char *what)
{
	int rc = sqlite3_step(st), r = 0;

	if (rc == SQLITE_ROW)
		res_campaign_row(st, out);
	else if (rc == SQLITE_DONE)
		r = scn_error_set(err, SCN_ERR_STORE, -ENOENT, "%s: no %s", db->path, what);
	else
		r = res_sqlerr(db, rc, err, what);
	res_stmt_done(st);
	return r;
}

int res_campaign_find(struct res_db *db, const char *plan_hash, const char *testbed_identity,
		      struct res_campaign *out, struct scn_error *err)
{
	sqlite3_stmt *st;
	int r;

	if (!db || !plan_hash || !testbed_identity || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_campaign_find: NULL");
	r = res_stmt(db, RES_ST_CAMPAIGN_FIND, &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, plan_hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, testbed_identity, -1, SQLITE_STATIC);
	return campaign_one(db, st, out, err, "campaign for this plan and testbed");
}

int res_campaign_get(struct res_db *db, int64_t id, struct res_campaign *out,
		     struct scn_error *err)
{
	sqlite3_stmt *st;
	int r;

	if (!db || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_campaign_get: NULL");
	r = res_stmt(db, RES_ST_CAMPAIGN_GET, &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, id);
	return campaign_one(db, st, out, err, "such campaign");
}

static double now_unix(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sets status; SUMMARY NULL keeps the stored one. A status other than running also stamps
 * finished with the current time; running (a resume) clears it to 0. -ENOENT: no such id. */
int res_campaign_set_status(struct res_db *db, int64_t id, enum res_campaign_status status,
			    const char *summary, struct scn_error *err)
{
	sqlite3_stmt *st;
	int r, rc;

	if (!db)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_campaign_set_status: NULL");
	if ((unsigned)status >= N_STATUS)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "%s: bad campaign status %d",
				     db->path, (int)status);
	r = res_stmt(db, RES_ST_CAMPAIGN_STATUS, &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, status_names[status], -1, SQLITE_STATIC);
	if (summary)
		sqlite3_bind_text(st, 3, summary, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, status == RES_RUNNING ? 0.0 : now_unix());
	rc = sqlite3_step(st);
	res_stmt_done(st);
	if (rc != SQLITE_DONE)
		return res_sqlerr(db, rc, err, "updating campaign status");
	if (sqlite3_changes(db->h) == 0)
		return scn_error_set(err, SCN_ERR_STORE, -ENOENT, "%s: no campaign %lld", db->path,
				     (long long)id);
	return 0;
}

int res_campaign_default(struct res_db *db, struct res_campaign *out, struct scn_error *err)
{
	sqlite3_stmt *st;
	int r, rc;

	if (!db || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_campaign_default: NULL");
	r = res_prepare(db, "SELECT " RES_CAMPAIGN_COLS " FROM campaigns WHERE status IN "
			"('done', 'interrupted', 'running') ORDER BY id DESC LIMIT 1", &st, err);
	if (r)
		return r;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		res_campaign_row(st, out);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return res_sqlerr(db, rc, err, "finding the default campaign");
	r = res_prepare(db, "SELECT count(*) FROM campaigns", &st, err);
	if (r)
		return r;
	rc = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc == 0)
		return scn_error_set(err, SCN_ERR_USAGE, -ENOENT, "%s holds no campaign", db->path);
	return scn_error_set(err, SCN_ERR_USAGE, -ENOENT, "%s holds no campaign that ran to the "
			     "end or was interrupted (%d failed: name one with --campaign ID, see "
			     "'scalacn status')", db->path, rc);
}

/* A non-zero return of CB stops the walk and is returned. */
int res_campaign_each(struct res_db *db, res_campaign_cb cb, void *ctx, struct scn_error *err)
{
	struct res_campaign c;
	sqlite3_stmt *st;
	int r, rc;

	if (!db || !cb)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_campaign_each: NULL");
	r = res_prepare(db, "SELECT " RES_CAMPAIGN_COLS " FROM campaigns ORDER BY id DESC", &st,
			err);
	if (r)
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		res_campaign_row(st, &c);
		r = cb(&c, ctx);
		if (r)
			break;
	}
	if (!r && rc != SQLITE_DONE)
		r = res_sqlerr(db, rc, err, "listing campaigns");
	sqlite3_finalize(st);
	return r;
}

/* ---- points ----------------------------------------------------------------------------- */

static int point_id(struct res_db *db, int64_t campaign, const char *key, int64_t *id,
		    struct scn_error *err)
{
	sqlite3_stmt *st;
	int r = res_stmt(db, RES_ST_POINT_ID, &st, err), rc;

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, campaign);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else if (rc == SQLITE_DONE)
		r = scn_error_set(err, SCN_ERR_STORE, -ENOENT, "%s: point %s vanished", db->path,
				  key);
	else
		r = res_sqlerr(db, rc, err, "looking up point");
	res_stmt_done(st);
	return r;
}

/* The first writer's levels, model and phase are kept; later upserts only return the id.
 * -EINVAL when LEVELS_JSON is not a JSON object; -ENOENT when CAMPAIGN does not exist. */
int res_point_upsert(struct res_db *db, int64_t campaign, const char *point_key,
		     const char *levels_json, const char *model_text, const char *phase,
		     int64_t *id, struct scn_error *err)
{
	sqlite3_stmt *st;
	int r, rc;

	if (!db || !point_key || !point_key[0] || !id)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_point_upsert: no key");
	if (point_id(db, campaign, point_key, id, NULL) == 0)
		return 0; /* stored already: the first writer's levels are kept */
	if (!levels_json || !res_json_is_object(db, levels_json, strlen(levels_json)))
		return scn_error_set(err, SCN_ERR_STORE, -EINVAL,
				     "%s: point %s: levels are not a JSON object", db->path,
				     point_key);
	r = res_stmt(db, RES_ST_POINT_INSERT, &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, campaign);
	sqlite3_bind_text(st, 2, point_key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, levels_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, model_text ? model_text : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, phase ? phase : "", -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	res_stmt_done(st);
	if (rc != SQLITE_DONE)
		return res_sqlerr(db, rc, err, "inserting point");
	if (sqlite3_changes(db->h) == 1) {
		*id = sqlite3_last_insert_rowid(db->h);
		return 0;
	}
	return point_id(db, campaign, point_key, id, err); /* another writer's, just stored */
}
