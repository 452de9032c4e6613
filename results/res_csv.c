/* SPDX-License-Identifier: MIT */
/*
 * results CSV export: one row per trial, for spreadsheets and pandas.
 *
 * Columns: trial_id, campaign, key, verb, metric, repeat, status, bw_gbps, msg_rate_mpps,
 * lat_median_us, lat_p99_us, cost_s, then one column per dimension name found in the levels
 * of the exported trials' points (sorted by strcmp; a name equal to a fixed column is written
 * "level.<name>"), then "counters" holding the counters JSON object. Fields are quoted per
 * RFC 4180 when they hold a comma, quote, CR or LF (quotes doubled); lines end with LF.
 * Numbers use the shortest %g form that reads back to the same double. A dimension a point
 * does not have, a JSON null, a number the trial did not measure (NULL in the store) and a
 * trial without campaign give an empty field.
 *
 * Assumes levels_json are JSON objects (res_point_upsert checks); a row that is not (edited
 * by hand) makes the export fail with -EINVAL naming the point.
 */
#include "results/res_int.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static const char *const fixed_cols[] = {
	"trial_id", "campaign",	 "key",		  "verb",	 "metric",     "repeat",
	"status",   "bw_gbps",	 "msg_rate_mpps", "lat_median_us", "lat_p99_us", "cost_s",
	"counters",
};
#define N_FIXED (sizeof(fixed_cols) / sizeof(fixed_cols[0]))

/* Invariant: names[0..n) are distinct, heap-owned; sorted once collection ends. */
struct dimset {
	char **names;
	size_t n, cap;
};

struct csv_ctx {
	struct res_db *db;
	FILE *out;
	const struct dimset *dims;
	struct scn_error *err;
};

static void dimset_free(struct dimset *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->names[i]);
	free(d->names);
}

static int dimset_add(struct dimset *d, const char *name)
{
	char **grown;

	assert(d->n <= d->cap);
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->names[i], name) == 0)
			return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;

		grown = realloc(d->names, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		d->names = grown;
		d->cap = cap;
	}
	d->names[d->n] = strdup(name);
	if (!d->names[d->n])
		return -ENOMEM;
	d->n++;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct json_object *parse_levels(struct res_db *db, const char *text, int64_t point,
					struct scn_error *err)
{
	struct json_object *o = json_tokener_parse(text ? text : "{}");

	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		scn_error_set(err, SCN_ERR_STORE, -EINVAL,
			      "%s: point %" PRId64 ": levels_json is not a JSON object", db->path,
			      point);
		return NULL;
	}
	return o;
}

/* Every dimension name in the levels of the selected trials' points, sorted. */
static int collect_dims(struct res_db *db, int64_t campaign, struct dimset *d,
			struct scn_error *err)
{
#define DIMS_SQL "SELECT DISTINCT p.id, p.levels_json FROM trials t JOIN points p ON p.id = t.point"
	sqlite3_stmt *st;
	int r, rc = SQLITE_DONE;

	r = res_prepare(db, campaign > 0 ? DIMS_SQL " WHERE t.campaign = ?1" : DIMS_SQL, &st,
			err);
	if (r)
		return r;
	if (campaign > 0)
		sqlite3_bind_int64(st, 1, campaign);
	while (!r && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct json_object *o = parse_levels(
			db, (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 0), err);

		if (!o) {
			r = -EINVAL;
			break;
		}
		json_object_object_foreach(o, k, v) {
			(void)v;
			if (!r && dimset_add(d, k))
				r = scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
		}
		json_object_put(o);
	}
	if (!r && rc != SQLITE_DONE)
		r = res_sqlerr(db, rc, err, "collecting dimensions");
	sqlite3_finalize(st);
	if (!r && d->n)
		qsort(d->names, d->n, sizeof(*d->names), cmp_name);
	return r;
#undef DIMS_SQL
}

static void put_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void put_num(FILE *out, double v)
{
	char buf[40];

	if (!isfinite(v))
		return; /* not measured: an empty field */
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, out);
}

static int is_fixed(const char *name)
{
	for (size_t i = 0; i < N_FIXED; i++)
		if (strcmp(fixed_cols[i], name) == 0)
			return 1;
	return 0;
}

static void put_header(FILE *out, const struct dimset *d)
{
	char name[300];

	for (size_t i = 0; i + 1 < N_FIXED; i++)
		fprintf(out, "%s,", fixed_cols[i]);
	for (size_t i = 0; i < d->n; i++) {
		snprintf(name, sizeof(name), "%s%s", is_fixed(d->names[i]) ? "level." : "",
			 d->names[i]);
		put_field(out, name);
		fputc(',', out);
	}
	fprintf(out, "%s\n", fixed_cols[N_FIXED - 1]);
}

/* The CSV text of one level value: strings raw, null empty, containers as plain JSON. */
static const char *level_text(struct json_object *v)
{
	if (!v)
		return "";
	if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
		return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
	return json_object_get_string(v);
}

static int put_row(const struct res_trial *t, const char *levels_json, void *vctx)
{
	struct csv_ctx *ctx = vctx;
	const struct res_sample *s = &t->sample;
	struct json_object *o = parse_levels(ctx->db, levels_json, t->point, ctx->err), *v;
	FILE *out = ctx->out;

	if (!o)
		return -EINVAL;
	fprintf(out, "%" PRId64 ",", t->id);
	if (t->campaign > 0)
		fprintf(out, "%" PRId64, t->campaign);
	fputc(',', out);
	put_field(out, t->key);
	fputc(',', out);
	put_field(out, t->verb);
	fputc(',', out);
	put_field(out, t->metric);
	fprintf(out, ",%d,", t->repeat);
	put_field(out, s->status);
	const double nums[] = { s->bw_gbps, s->msg_rate_mpps, s->lat_median_us, s->lat_p99_us,
				s->cost_s };
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		fputc(',', out);
		put_num(out, nums[i]);
	}
	for (size_t i = 0; i < ctx->dims->n; i++) {
		fputc(',', out);
		if (json_object_object_get_ex(o, ctx->dims->names[i], &v))
			put_field(out, level_text(v));
	}
	fputc(',', out);
	put_field(out, s->counters_json);
	fputc('\n', out);
	json_object_put(o);
	return 0;
}

int res_export_csv(struct res_db *db, int64_t campaign, FILE *out, struct scn_error *err)
{
	struct dimset dims = { 0 };
	struct csv_ctx ctx = { .db = db, .out = out, .dims = &dims, .err = err };
	int r;

	if (!db || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "res_export_csv: NULL");
	r = collect_dims(db, campaign, &dims, err);
	if (!r) {
		put_header(out, &dims);
		r = res_trial_each(db, campaign, put_row, &ctx, err);
	}
	dimset_free(&dims);
	if (!r && (fflush(out) != 0 || ferror(out)))
		r = scn_error_set(err, SCN_ERR_STORE, -EIO, "%s: writing CSV failed", db->path);
	return r;
}
