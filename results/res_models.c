/* SPDX-License-Identifier: MIT */
/*
 * res_models: store, list and fetch fitted models (see res_models.h for the row layout and
 * how standard errors share the params_json column).
 *
 * Assumes schema v1's `models` table and an SQLite with the JSON functions (built in since
 * 3.38; Debian 12 ships 3.40). Statements are prepared per call (models are few).
 */
#include "results/res_models.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "results/res_int.h"

#define MODEL_COLS                                                                          \
	"id, COALESCE(campaign, 0), rnic_model, firmware, verb, metric, form, inputs, "     \
	"CASE WHEN json_valid(params_json) THEN "                                           \
	"  CASE WHEN json_type(params_json, '$.params') IS NOT NULL "                        \
	"  THEN json_extract(params_json, '$.params') ELSE params_json END "                \
	"ELSE params_json END, "                                                            \
	"CASE WHEN json_valid(params_json) THEN "                                           \
	"  CASE WHEN json_type(params_json, '$.se') IS NOT NULL "                            \
	"  THEN json_extract(params_json, '$.se') ELSE '{}' END "                           \
	"ELSE '{}' END, "                                                                   \
	"domain_json, quality_json, valid, created"

static void model_row(sqlite3_stmt *st, struct res_model *m)
{
	memset(m, 0, sizeof(*m));
	m->id = sqlite3_column_int64(st, 0);
	m->campaign = sqlite3_column_int64(st, 1);
	res_col_buf(st, 2, m->rnic_model, sizeof(m->rnic_model));
	res_col_buf(st, 3, m->firmware, sizeof(m->firmware));
	res_col_buf(st, 4, m->verb, sizeof(m->verb));
	res_col_buf(st, 5, m->metric, sizeof(m->metric));
	res_col_buf(st, 6, m->form, sizeof(m->form));
	res_col_buf(st, 7, m->inputs, sizeof(m->inputs));
	res_col_buf(st, 8, m->params_json, sizeof(m->params_json));
	res_col_buf(st, 9, m->se_json, sizeof(m->se_json));
	res_col_buf(st, 10, m->domain_json, sizeof(m->domain_json));
	res_col_buf(st, 11, m->quality_json, sizeof(m->quality_json));
	m->valid = sqlite3_column_int(st, 12) != 0;
	m->created = sqlite3_column_double(st, 13);
}

/* A text member must be terminated inside its buffer (else it was cut by the writer). */
static bool terminated(const char *buf, size_t cap)
{
	return memchr(buf, '\0', cap) != NULL;
}

static int check_model(struct res_db *db, const struct res_model *m, struct scn_error *err)
{
	const struct { const char *buf; size_t cap; const char *name; } t[] = {
		{ m->rnic_model, sizeof(m->rnic_model), "rnic_model" },
		{ m->firmware, sizeof(m->firmware), "firmware" },
		{ m->verb, sizeof(m->verb), "verb" },
		{ m->metric, sizeof(m->metric), "metric" },
		{ m->form, sizeof(m->form), "form" },
		{ m->inputs, sizeof(m->inputs), "inputs" },
		{ m->params_json, sizeof(m->params_json), "params_json" },
		{ m->se_json, sizeof(m->se_json), "se_json" },
		{ m->domain_json, sizeof(m->domain_json), "domain_json" },
		{ m->quality_json, sizeof(m->quality_json), "quality_json" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!terminated(t[i].buf, t[i].cap))
			return scn_error_set(err, SCN_ERR_INTERNAL, -E2BIG,
					     "%s: model %s does not fit its buffer", db->path,
					     t[i].name);
	if (!m->rnic_model[0] || !m->verb[0] || !m->metric[0] || !m->form[0])
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL,
				     "%s: a model needs rnic_model, verb, metric and form",
				     db->path);
	return 0;
}

int res_model_put(struct res_db *db, struct res_model *m, struct scn_error *err)
{
	static const char sql[] =
		"INSERT INTO models (campaign, rnic_model, firmware, verb, metric, form, inputs,"
		" params_json, domain_json, quality_json, valid, created) VALUES (?1, ?2, ?3, ?4,"
		" ?5, ?6, ?7, json_object('params', json(?8), 'se', json(?9)), json(?10),"
		" json(?11), ?12, ?13)";
	sqlite3_stmt *st = NULL;
	int r, rc;

	if (!db || !m)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_model_put: NULL");
	r = check_model(db, m, err);
	if (r)
		return r;
	if (m->created == 0)
		m->created = (double)time(NULL);
	r = res_prepare(db, sql, &st, err);
	if (r)
		return r;
	res_bind_id(st, 1, m->campaign);
	res_bind_buf(st, 2, m->rnic_model, sizeof(m->rnic_model));
	res_bind_buf(st, 3, m->firmware, sizeof(m->firmware));
	res_bind_buf(st, 4, m->verb, sizeof(m->verb));
	res_bind_buf(st, 5, m->metric, sizeof(m->metric));
	res_bind_buf(st, 6, m->form, sizeof(m->form));
	res_bind_buf(st, 7, m->inputs, sizeof(m->inputs));
	res_bind_buf(st, 8, m->params_json[0] ? m->params_json : "[]", sizeof(m->params_json));
	res_bind_buf(st, 9, m->se_json[0] ? m->se_json : "{}", sizeof(m->se_json));
	res_bind_buf(st, 10, m->domain_json[0] ? m->domain_json : "{}", sizeof(m->domain_json));
	res_bind_buf(st, 11, m->quality_json[0] ? m->quality_json : "{}",
		     sizeof(m->quality_json));
	sqlite3_bind_int(st, 12, m->valid ? 1 : 0);
	sqlite3_bind_double(st, 13, m->created);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		m->id = sqlite3_last_insert_rowid(db->h);
	else
		r = res_sqlerr(db, rc, err, "storing model (are all JSON texts valid?)");
	sqlite3_finalize(st);
	return r;
}

int res_model_get(struct res_db *db, int64_t id, struct res_model *out, struct scn_error *err)
{
	sqlite3_stmt *st = NULL;
	int r, rc;

	if (!db || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_model_get: NULL");
	r = res_prepare(db, "SELECT " MODEL_COLS " FROM models WHERE id = ?1", &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		model_row(st, out);
	else if (rc == SQLITE_DONE)
		r = scn_error_set(err, SCN_ERR_USAGE, -ENOENT, "%s: no model with id %lld",
				  db->path, (long long)id);
	else
		r = res_sqlerr(db, rc, err, "reading model");
	sqlite3_finalize(st);
	return r;
}

int res_model_each(struct res_db *db, const char *rnic, res_model_cb cb, void *ctx,
		   struct scn_error *err)
{
	bool all = !rnic || !rnic[0];
	sqlite3_stmt *st = NULL;
	struct res_model m;
	int r, rc;

	if (!db || !cb)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_model_each: NULL");
	r = res_prepare(db, all ? "SELECT " MODEL_COLS " FROM models ORDER BY id"
				: "SELECT " MODEL_COLS " FROM models WHERE rnic_model = ?1"
				  " ORDER BY id", &st, err);
	if (r)
		return r;
	if (!all)
		sqlite3_bind_text(st, 1, rnic, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		model_row(st, &m);
		r = cb(&m, ctx);
		if (r)
			break;
	}
	if (!r && rc != SQLITE_DONE)
		r = res_sqlerr(db, rc, err, "listing models");
	sqlite3_finalize(st);
	return r;
}

int res_model_latest(struct res_db *db, const char *rnic, const char *firmware,
		     const char *verb, const char *metric, struct res_model *out,
		     struct scn_error *err)
{
	sqlite3_stmt *st = NULL;
	int r, rc;

	if (!db || !rnic || !verb || !metric || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_model_latest: NULL");
	r = res_prepare(db, "SELECT " MODEL_COLS " FROM models WHERE rnic_model = ?1 AND"
			" verb = ?2 AND metric = ?3 AND valid != 0 AND (?4 IS NULL OR"
			" firmware = ?4) ORDER BY id DESC LIMIT 1", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, rnic, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, verb, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, metric, -1, SQLITE_STATIC);
	if (firmware)
		sqlite3_bind_text(st, 4, firmware, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		model_row(st, out);
	else if (rc == SQLITE_DONE)
		r = scn_error_set(err, SCN_ERR_USAGE, -ENOENT, "%s: no valid %s %s model for %s",
				  db->path, verb, metric, rnic);
	else
		r = res_sqlerr(db, rc, err, "reading model");
	sqlite3_finalize(st);
	return r;
}
