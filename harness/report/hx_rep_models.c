/* SPDX-License-Identifier: MIT */
/*
 * hx_rep_models: the models fitted on a campaign's trials as its report shows them: the
 * newest model per (verb, metric) whose campaign is this one, the measured points it was
 * fitted on (the fit room's hx_fit_collect_inputs, the same data `scalacn fit` used), its
 * predictions there, its quality as stored (R^2, RMSE, held-out bias, why the form won),
 * and a plane (a line when one input varies) fitted beside it on the same points: the
 * baseline regression a model must beat.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fitting/fit.h"
#include "harness/fit/hx_fit.h"
#include "harness/report/hx_rep_priv.h"

struct models_ctx {
	struct hx_rep *r;
};

static int on_model(const struct res_model *m, void *ctx)
{
	struct hx_rep *r = ((struct models_ctx *)ctx)->r;

	if (m->campaign != r->c.id)
		return 0;
	for (unsigned i = 0; i < r->n_models; i++) {
		struct hx_rep_model *o = &r->models[i];

		if (!strcmp(o->m.verb, m->verb) && !strcmp(o->m.metric, m->metric)) {
			o->m = *m; /* in id order: the newest wins */
			return 0;
		}
	}
	if (r->n_models < HX_REP_MAX_MODELS)
		r->models[r->n_models++].m = *m;
	return 0;
}

static double qnum(struct json_object *q, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(q, key, &v) && !json_object_is_type(v, json_type_null)
		       ? json_object_get_double(v) : NAN;
}

static void quality(struct hx_rep_model *m)
{
	struct json_object *q = json_tokener_parse(m->m.quality_json), *v = NULL;

	m->r2 = qnum(q, "r2");
	m->rmse = qnum(q, "rmse");
	m->bias_max = qnum(q, "cv_max_bias");
	m->bias_mean = qnum(q, "cv_mean_bias");
	if (q && json_object_object_get_ex(q, "reason", &v))
		snprintf(m->reason, sizeof(m->reason), "%s", json_object_get_string(v));
	json_object_put(q);
}

static int vary_of(const struct hx_fit_data *d)
{
	bool v0 = false, v1 = false;

	for (size_t i = 1; i < d->n; i++) {
		v0 |= d->x[i][0] != d->x[0][0];
		v1 |= d->x[i][1] != d->x[0][1];
	}
	return v0 && v1 ? 2 : v0 ? 0 : v1 ? 1 : -1;
}

/* The plane (or line) on D's points, beside the chosen form. */
static void baseline_fit(struct hx_rep_model *m, const struct hx_fit_data *d)
{
	static const enum fit_form plane = FIT_PLANE;
	struct fit_selection *sel = calloc(1, sizeof(*sel));
	struct scn_error e = { 0 };
	bool in;

	m->base_r2 = m->base_rmse = NAN;
	for (unsigned i = 0; i < m->n; i++)
		m->base_pred[i] = NAN;
	if (!sel || hx_fit_group(d, &plane, 1, NULL, sel, &e) < 0) {
		snprintf(m->note, sizeof(m->note), "no baseline regression: %.200s",
			 sel ? e.message : "out of memory");
		free(sel);
		return;
	}
	const struct fit_model *b = &sel->models[sel->best];

	snprintf(m->base_form, sizeof(m->base_form), "%s", fit_form_name(b->form));
	m->base_r2 = b->q.r2;
	m->base_rmse = b->q.rmse;
	for (unsigned i = 0; i < m->n; i++)
		if (fit_predict(b, m->x[i][0], m->x[i][1], &m->base_pred[i], &in) < 0)
			m->base_pred[i] = NAN;
	free(sel);
}

static void predictions(struct hx_rep_model *m, const struct hx_fit_data *d)
{
	struct fit_model fm;
	struct scn_error e = { 0 };
	bool in;

	m->n = d->n < HX_REP_MAX_POINTS ? (unsigned)d->n : HX_REP_MAX_POINTS;
	m->vary = vary_of(d);
	for (unsigned i = 0; i < m->n; i++) {
		m->x[i][0] = d->x[i][0];
		m->x[i][1] = d->x[i][1];
		m->y[i] = d->y[i];
		m->pred[i] = NAN;
	}
	if (hx_fit_model_from_row(&m->m, &fm, &e) < 0) {
		snprintf(m->note, sizeof(m->note), "the stored model cannot be read: %.200s", e.message);
		return;
	}
	for (unsigned i = 0; i < m->n; i++)
		if (fit_predict(&fm, m->x[i][0], m->x[i][1], &m->pred[i], &in) < 0)
			m->pred[i] = NAN;
	baseline_fit(m, d);
}

static int model_data(struct res_db *db, struct hx_rep_model *m, struct scn_error *err)
{
	struct hx_fit_set *set = NULL;
	int rc = hx_fit_collect_inputs(db, m->m.rnic_model, m->m.verb, m->m.metric, NULL,
				       m->m.inputs, &set, err);

	if (rc < 0)
		return rc;
	quality(m);
	if (hx_fit_set_count(set) == 0)
		snprintf(m->note, sizeof(m->note), "its measured points are no longer in the store");
	else
		predictions(m, hx_fit_set_at(set, 0));
	hx_fit_set_free(set);
	return 0;
}

int hx_rep_models_load(struct res_db *db, struct hx_rep *r, struct scn_error *err)
{
	struct models_ctx c = { .r = r };
	int rc = res_model_each(db, r->c.rnic_model, on_model, &c, err);

	for (unsigned i = 0; rc == 0 && i < r->n_models; i++)
		rc = model_data(db, &r->models[i], err);
	return rc;
}
