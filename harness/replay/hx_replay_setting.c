/* SPDX-License-Identifier: MIT */
/*
 * hx_replay_setting: does the testbed measurement of a replay run the traffic the model
 * describes? A model is fitted at one setting of everything but its inputs (the campaign's
 * "fixed" levels, which `export` writes into the file's quality_json): qualify-full's models
 * are fitted at MTU 4096 and one QP, while the replay measures at MTU 1024 and 4 QPs by
 * default. At four times the packets per byte, a CX-6's steering walk binds at far fewer
 * masks: its model, flat to 71 masks at MTU 4096, predicts nothing to win at 64 masks, and
 * the optimiser rightly leaves a table alone that the replay then measures walk-bound. So
 * the replay reads the model's setting of the traffic dimensions it sets (MTU, QPs, the
 * bandwidth test's message size), measures at it unless told otherwise, and says where what
 * it was told differs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <sqlite3.h>

#include "harness/replay/hx_replay.h"

/* The quality_json of the file's (RNIC, VERB, METRIC) model (RNIC NULL: any) into a
 * malloc'd string; NULL when there is none or the file cannot be read. */
static char *quality_of(const char *path, const char *rnic, const char *verb,
			const char *metric)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT quality_json FROM models WHERE verb = ?1 AND "
			       "metric = ?2 AND (?3 IS NULL OR rnic_model = ?3) LIMIT 1", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, verb, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, metric, -1, SQLITE_STATIC);
		if (rnic)
			sqlite3_bind_text(st, 3, rnic, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			out = strdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

/* FIXED's number NAME, NAN when it has none. */
static double number(struct json_object *fixed, const char *name)
{
	struct json_object *v;

	if (!json_object_object_get_ex(fixed, name, &v) ||
	    (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double)))
		return NAN;
	return json_object_get_double(v);
}

void hx_replay_model_setting(const char *model_path, const char *rnic, const char *verb,
			     const char *metric, struct hx_model_setting *out)
{
	char *q = quality_of(model_path, rnic, verb, metric);
	struct json_object *root = q ? json_tokener_parse(q) : NULL, *fixed;

	*out = (struct hx_model_setting){ NAN, NAN, NAN };
	if (root && json_object_object_get_ex(root, "fixed", &fixed)) {
		out->mtu = number(fixed, "mtu");
		out->qps = number(fixed, "qps");
		out->msg_size = number(fixed, "msg_size");
	}
	json_object_put(root);
	free(q);
}
