/* SPDX-License-Identifier: MIT */
/*
 * hx_rep_series: the walls' data: per verb, metric and scale dimension, the trials whose
 * point differs from that baseline's in that dimension alone (flows may also differ: the
 * generators raise flows to fit masks) grouped by level, with mean and sd over the repeats,
 * the baseline's own values (the band), and the wall found along it. Replicates and drift
 * checks (repeat indices from HX_REPLICATE_REPEAT) answer other questions and are left out.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/report/hx_rep_priv.h"
#include "harness/trial/hx_trial.h"

void hx_rep_stat_add(struct hx_rep_stat *s, double v)
{
	if (!isfinite(v)) {
		s->failed++;
		return;
	}
	s->n++;
	s->sum += v;
	s->sum2 += v * v;
}

void hx_rep_stat_end(struct hx_rep_stat *s)
{
	s->mean = s->n ? s->sum / s->n : NAN;
	s->sd = s->n > 1 ? sqrt(fmax(0, (s->sum2 - s->sum * s->mean) / (s->n - 1))) : NAN;
}

double hx_rep_trial_value(const struct res_trial *t)
{
	if (strcmp(t->sample.status, "ok"))
		return NAN;
	return strcmp(t->metric, "lat") ? t->sample.bw_gbps : t->sample.lat_median_us;
}

const char *hx_rep_unit(const char *metric)
{
	return strcmp(metric, "lat") ? "Gb/s" : "us";
}

const struct hx_rep_base *hx_rep_base_of(const struct hx_rep *r, const char *verb,
					 const char *metric)
{
	for (unsigned i = 0; i < r->n_base; i++)
		if (!strcmp(r->base[i].verb, verb) && !strcmp(r->base[i].metric, metric))
			return &r->base[i];
	return NULL;
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

struct series_ctx {
	struct hx_rep *r;
	struct json_object *base[8];
};

static int on_base(int64_t point, const char *levels, void *ctx)
{
	struct series_ctx *c = ctx;
	struct hx_rep *r = c->r;
	struct json_object *o = json_tokener_parse(levels);
	struct hx_rep_base *b;

	(void)point;
	if (!o || r->n_base >= 8) {
		json_object_put(o);
		return 0;
	}
	b = &r->base[r->n_base];
	memset(b, 0, sizeof(*b));
	snprintf(b->verb, sizeof(b->verb), "%s", jstr(o, "verb"));
	snprintf(b->metric, sizeof(b->metric), "%s", jstr(o, "metric"));
	snprintf(b->levels, sizeof(b->levels), "%s", levels);
	c->base[r->n_base++] = o;
	return 0;
}

/* The one dimension L differs from BASE in (flows aside when another differs), or NULL;
 * *SAME when none differs. */
static const char *swept_dim(struct json_object *l, struct json_object *base, bool *same)
{
	const char *dim = NULL;
	bool flows = false;
	unsigned n = 0;

	json_object_object_foreach(l, k, v) {
		struct json_object *b = NULL;

		if (json_object_object_get_ex(base, k, &b) &&
		    !strcmp(json_object_get_string(b), json_object_get_string(v)))
			continue;
		if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
			return *same = false, NULL;
		if (!strcmp(k, "flows"))
			flows = true;
		else
			dim = k, n++;
	}
	*same = !n && !flows;
	if (n > 1)
		return NULL;
	return n == 1 ? dim : flows ? "flows" : NULL;
}

static struct hx_rep_series *series_for(struct hx_rep *r, const char *verb, const char *metric,
					const char *dim)
{
	struct hx_rep_series *s;

	for (unsigned i = 0; i < r->n_series; i++) {
		s = &r->series[i];
		if (!strcmp(s->verb, verb) && !strcmp(s->metric, metric) && !strcmp(s->dim, dim))
			return s;
	}
	if (r->n_series >= HX_REP_MAX_SERIES)
		return NULL;
	s = &r->series[r->n_series++];
	memset(s, 0, sizeof(*s));
	snprintf(s->verb, sizeof(s->verb), "%s", verb);
	snprintf(s->metric, sizeof(s->metric), "%s", metric);
	snprintf(s->dim, sizeof(s->dim), "%s", dim);
	return s;
}

static void series_add(struct hx_rep_series *s, double level, double v)
{
	unsigned i;

	for (i = 0; i < s->n && s->lv[i].level != level; i++)
		;
	if (i == s->n) {
		if (s->n >= HX_REP_MAX_LEVELS)
			return;
		memset(&s->lv[s->n], 0, sizeof(s->lv[0]));
		s->lv[s->n++].level = level;
	}
	hx_rep_stat_add(&s->lv[i], v);
}

static int on_trial(const struct res_trial *t, const char *levels, void *ctx)
{
	struct series_ctx *c = ctx;
	struct json_object *l, *lv = NULL;

	if (t->repeat >= HX_REPLICATE_REPEAT) /* replicates and drift checks: other questions */
		return 0;
	l = json_tokener_parse(levels);
	for (unsigned i = 0; l && i < c->r->n_base; i++) {
		struct hx_rep_base *b = &c->r->base[i];
		const char *dim;
		bool same;

		if (strcmp(b->verb, t->verb) || strcmp(b->metric, t->metric))
			continue;
		dim = swept_dim(l, c->base[i], &same);
		if (same)
			hx_rep_stat_add(&b->st, hx_rep_trial_value(t));
		else if (dim && json_object_object_get_ex(l, dim, &lv)) {
			struct hx_rep_series *s = series_for(c->r, t->verb, t->metric, dim);

			if (s)
				series_add(s, json_object_get_double(lv), hx_rep_trial_value(t));
		}
		break;
	}
	json_object_put(l);
	return 0;
}

static int by_level(const void *a, const void *b)
{
	double x = ((const struct hx_rep_stat *)a)->level, y = ((const struct hx_rep_stat *)b)->level;

	return (x > y) - (x < y);
}

/* "metric bw, ..." (a wall's detail) or "metric=bw; ..." (a cause's symptom row). */
void hx_rep_symptom_metric(const struct res_symptom *s, char *out, size_t len)
{
	const char *m = strstr(s->detail, "metric");
	bool sep = m && (m[6] == ' ' || m[6] == '=');

	if (sep)
		snprintf(out, len, "%s", strncmp(m + 7, "lat", 3) ? "bw" : "lat");
	else
		snprintf(out, len, "%s", strcmp(s->kind, "lat_rise") ? "bw" : "lat");
}

static void attach_wall(struct hx_rep *r, struct hx_rep_series *s)
{
	for (unsigned i = 0; i < r->n_walls; i++) {
		const struct res_symptom *w = &r->walls[i];
		char metric[8];

		hx_rep_symptom_metric(w, metric, sizeof(metric));
		if (!strcmp(w->verb, s->verb) && !strcmp(w->dimension, s->dim) &&
		    !strcmp(metric, s->metric))
			s->wall = w;
	}
}

int hx_rep_series_load(struct res_db *db, struct hx_rep *r, struct scn_error *err)
{
	struct series_ctx c = { .r = r };
	int rc = res_phase_points(db, r->c.id, "baseline", on_base, &c, err);

	if (rc == 0)
		rc = res_trial_each(db, r->c.id, on_trial, &c, err);
	for (unsigned i = 0; i < r->n_base; i++) {
		json_object_put(c.base[i]);
		hx_rep_stat_end(&r->base[i].st);
	}
	for (unsigned i = 0; i < r->n_series; i++) {
		struct hx_rep_series *s = &r->series[i];

		qsort(s->lv, s->n, sizeof(s->lv[0]), by_level);
		for (unsigned k = 0; k < s->n; k++)
			hx_rep_stat_end(&s->lv[k]);
		const struct hx_rep_base *b = hx_rep_base_of(r, s->verb, s->metric);

		s->base = b ? &b->st : NULL;
		attach_wall(r, s);
	}
	return rc;
}
