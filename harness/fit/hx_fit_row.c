/* SPDX-License-Identifier: MIT */
/*
 * hx_fit_row: a fitted model as a store row and back (JSON texts documented in hx_fit.h),
 * prediction from a stored row, and the bounded text builder the hx_fit files share.
 *
 * Numbers are written with "%.17g" so a stored model predicts exactly what the fitted one
 * did; non-finite numbers are written as null and read back as NaN.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/fit/hx_fit.h"

/* ---- A bounded text builder ------------------------------------------------------------- */

void hx_sb_printf(struct hx_sb *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->len >= s->cap) {
		s->overflow = true;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= s->cap - s->len) {
		s->overflow = true;
		s->len = s->cap;
		return;
	}
	s->len += (size_t)n;
}

void hx_sb_num(struct hx_sb *s, double v)
{
	if (isfinite(v))
		hx_sb_printf(s, "%.17g", v);
	else
		hx_sb_printf(s, "null");
}

void hx_sb_nums(struct hx_sb *s, const double *v, size_t n)
{
	hx_sb_printf(s, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			hx_sb_printf(s, ",");
		hx_sb_num(s, v[i]);
	}
	hx_sb_printf(s, "]");
}

void hx_sb_str(struct hx_sb *s, const char *str)
{
	hx_sb_printf(s, "\"");
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			hx_sb_printf(s, "\\%c", *p);
		else if (*p < 0x20)
			hx_sb_printf(s, "\\u%04x", *p);
		else
			hx_sb_printf(s, "%c", *p);
	}
	hx_sb_printf(s, "\"");
}

/* ---- Row rendering ----------------------------------------------------------------------- */

static void render_se(struct hx_sb *s, const struct fit_model *m)
{
	hx_sb_printf(s, "{\"se\":");
	hx_sb_nums(s, m->se, m->n_params);
	hx_sb_printf(s, ",\"cov\":[");
	for (size_t i = 0; i < m->n_params; i++) {
		if (i)
			hx_sb_printf(s, ",");
		hx_sb_nums(s, m->cov[i], m->n_params);
	}
	hx_sb_printf(s, "],\"s2\":");
	hx_sb_num(s, m->s2);
	hx_sb_printf(s, ",\"n_points\":%zu}", m->n_points);
}

/* SEP"KEY":V, V as hx_sb_num writes it. */
static void field(struct hx_sb *s, const char *sep, const char *key, double v)
{
	hx_sb_printf(s, "%s\"%s\":", sep, key);
	hx_sb_num(s, v);
}

static void render_quality_of(struct hx_sb *s, const struct fit_model *m)
{
	field(s, "", "r2", m->q.r2);
	field(s, ",", "rmse", m->q.rmse);
	field(s, ",", "aicc", m->q.aicc);
	field(s, ",", "cv_mean_bias", m->q.cv_mean_bias);
	field(s, ",", "cv_max_bias", m->q.cv_max_bias);
}

/* Why the model is degenerate for an agent (export refuses it), or NULL: the fit did not
 * converge, an
 * input did not vary (the model cannot tell what that input does), the covariance is
 * singular (a standard error is not finite), or its held-out bias is above the export
 * limit. Written into WHY (or a constant). Such a model still predicts within its domain. */
static const char *degenerate(const struct hx_fit_data *d, const struct fit_model *m,
			      char *why, size_t len)
{
	bool vary[2] = { false, false };

	if (!m->valid)
		return "the fit did not converge";
	for (size_t i = 1; i < d->n; i++)
		for (int j = 0; j < 2; j++)
			vary[j] = vary[j] || d->x[i][j] != d->x[0][j];
	for (int j = 0; j < 2; j++)
		if (!vary[j] && (j == 0 || strchr(d->inputs, ','))) {
			const char *comma = strchr(d->inputs, ',');

			snprintf(why, len, "input %.*s did not vary (every point at %g)",
				 j == 0 ? (int)(comma ? comma - d->inputs : 64) : 64,
				 j == 0 ? d->inputs : comma + 1, d->x[0][j]);
			return why;
		}
	for (size_t i = 0; i < m->n_params; i++)
		if (!isfinite(m->se[i]))
			return "singular covariance: a standard error is not finite";
	if (isnan(m->q.cv_max_bias))
		return "no held-out bias: cross-validation was not possible (a fold did not "
		       "converge or had too few points)";
	if (!(m->q.cv_max_bias <= HX_FIT_MAX_BIAS)) {
		snprintf(why, len, "held-out bias %.1f%% is above the export limit %.0f%%",
			 100 * m->q.cv_max_bias, 100 * HX_FIT_MAX_BIAS);
		return why;
	}
	return NULL;
}

/* ,"baseline":{...}: the generic regression fitted beside the forms (fitting/fit.h). */
static void render_baseline(struct hx_sb *s, const struct fit_baseline *b)
{
	if (!b->valid) {
		hx_sb_printf(s, ",\"baseline\":null");
		return;
	}
	hx_sb_printf(s, ",\"baseline\":{\"form\":\"poly%u-log\",\"terms\":%u", b->degree,
		     b->n_terms);
	field(s, ",", "r2", b->r2);
	field(s, ",", "rmse", b->rmse);
	field(s, ",", "cv_mean_bias", b->cv_mean_bias);
	field(s, ",", "cv_max_bias", b->cv_max_bias);
	hx_sb_printf(s, "}");
}

/* The chosen model's largest held-out misses (fit.h, cv_worst). */
static void render_worst(struct hx_sb *s, const struct fit_model *m)
{
	hx_sb_printf(s, ",\"cv_worst\":[");
	for (unsigned i = 0; i < m->q.cv_n_worst; i++) {
		const struct fit_cv_point *w = &m->q.cv_worst[i];

		hx_sb_printf(s, "%s{", i ? "," : "");
		field(s, "", "x", w->x[0]);
		field(s, ",", "y", w->x[1]);
		field(s, ",", "measured", w->y);
		field(s, ",", "held_out", w->pred);
		field(s, ",", "bias", w->bias);
		hx_sb_printf(s, "}");
	}
	hx_sb_printf(s, "]");
}

static void render_quality(struct hx_sb *s, const struct hx_fit_data *d,
			   const struct fit_selection *sel)
{
	const struct fit_model *m = &sel->models[sel->best];
	char buf[160];
	const char *why = degenerate(d, m, buf, sizeof(buf));

	hx_sb_printf(s, "{\"n_points\":%zu,\"n_trials\":%zu,", m->n_points, d->n_trials);
	render_quality_of(s, m);
	render_worst(s, m);
	hx_sb_printf(s, ",\"sse\":");
	hx_sb_num(s, m->q.sse);
	hx_sb_printf(s, ",\"cv_folds\":%u,\"cv_rmse\":", m->q.cv_folds);
	hx_sb_num(s, m->q.cv_rmse);
	hx_sb_printf(s, ",\"reason\":");
	hx_sb_str(s, sel->reason);
	hx_sb_printf(s, ",\"degenerate\":");
	if (why)
		hx_sb_str(s, why);
	else
		hx_sb_printf(s, "null");
	render_baseline(s, &sel->baseline);
	field(s, ",", "point_se_max", d->point_se_max);
	field(s, ",", "point_se_median", d->point_se_median);
	hx_sb_printf(s, ",\"tie_break\":%s,\"candidates\":[", sel->tie_break ? "true" : "false");
	for (size_t i = 0; i < sel->n_models; i++) {
		const struct fit_model *c = &sel->models[i];

		hx_sb_printf(s, "%s{\"form\":\"%s\",\"valid\":%s,", i ? "," : "",
			     fit_form_name(c->form), c->valid ? "true" : "false");
		render_quality_of(s, c);
		hx_sb_printf(s, "}");
	}
	hx_sb_printf(s, "]}");
}

int hx_fit_row(const struct hx_fit_data *d, const struct fit_selection *sel,
	       struct res_model *row, struct scn_error *err)
{
	const struct fit_model *m;
	struct hx_sb s;

	if (!d || !sel || !row || sel->best >= sel->n_models)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "hx_fit_row: bad arguments");
	m = &sel->models[sel->best];
	memset(row, 0, sizeof(*row));
	row->campaign = d->campaign;
	snprintf(row->rnic_model, sizeof(row->rnic_model), "%s", d->rnic_model);
	snprintf(row->firmware, sizeof(row->firmware), "%s", d->firmware);
	snprintf(row->verb, sizeof(row->verb), "%s", d->verb);
	snprintf(row->metric, sizeof(row->metric), "%s", d->metric);
	snprintf(row->form, sizeof(row->form), "%s", fit_form_name(m->form));
	snprintf(row->inputs, sizeof(row->inputs), "%s", d->inputs[0] ? d->inputs : HX_FIT_INPUTS);
	row->valid = m->valid;

	hx_sb_init(&s, row->params_json, sizeof(row->params_json));
	hx_sb_nums(&s, m->params, m->n_params);
	bool over = s.overflow;
	hx_sb_init(&s, row->se_json, sizeof(row->se_json));
	render_se(&s, m);
	over = over || s.overflow;
	hx_sb_init(&s, row->domain_json, sizeof(row->domain_json));
	hx_sb_printf(&s, "{\"x\":[");
	hx_sb_num(&s, m->dom_min[0]);
	hx_sb_printf(&s, ",");
	hx_sb_num(&s, m->dom_max[0]);
	hx_sb_printf(&s, "],\"y\":[");
	hx_sb_num(&s, m->dom_min[1]);
	hx_sb_printf(&s, ",");
	hx_sb_num(&s, m->dom_max[1]);
	hx_sb_printf(&s, "],\"fixed\":%s,\"n_other\":%zu}", d->fixed_json[0] ? d->fixed_json : "{}",
		     d->n_other);
	over = over || s.overflow;
	hx_sb_init(&s, row->quality_json, sizeof(row->quality_json));
	render_quality(&s, d, sel);
	over = over || s.overflow;
	if (over)
		return scn_error_set(err, SCN_ERR_INTERNAL, -E2BIG,
				     "%s %s %s: model text too long for the store",
				     d->rnic_model, d->verb, d->metric);
	return 0;
}

/* ---- Reading a row back ----------------------------------------------------------------- */

/* JSON array of numbers (null -> NaN) into OUT; exactly N entries. */
int hx_json_nums(struct json_object *a, double *out, size_t n)
{
	if (!a || !json_object_is_type(a, json_type_array) || json_object_array_length(a) != n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(a, i);

		if (!v)
			out[i] = NAN;
		else if (json_object_is_type(v, json_type_double) ||
			 json_object_is_type(v, json_type_int))
			out[i] = json_object_get_double(v);
		else
			return -EINVAL;
	}
	return 0;
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static int read_se(struct json_object *se, struct fit_model *m)
{
	struct json_object *cov = member(se, "cov"), *s2 = member(se, "s2");
	struct json_object *np = member(se, "n_points");

	for (size_t i = 0; i < m->n_params; i++) {
		m->se[i] = NAN;
		for (size_t j = 0; j < m->n_params; j++)
			m->cov[i][j] = NAN;
	}
	m->s2 = NAN;
	if (member(se, "se") && hx_json_nums(member(se, "se"), m->se, m->n_params))
		return -EINVAL;
	if (cov) {
		if (!json_object_is_type(cov, json_type_array) ||
		    json_object_array_length(cov) != m->n_params)
			return -EINVAL;
		for (size_t i = 0; i < m->n_params; i++)
			if (hx_json_nums(json_object_array_get_idx(cov, i), m->cov[i], m->n_params))
				return -EINVAL;
	}
	if (s2 && (json_object_is_type(s2, json_type_double) ||
		   json_object_is_type(s2, json_type_int)))
		m->s2 = json_object_get_double(s2);
	if (np && json_object_is_type(np, json_type_int) && json_object_get_int64(np) > 0)
		m->n_points = (size_t)json_object_get_int64(np);
	return 0;
}

static int read_domain(struct json_object *dom, struct fit_model *m)
{
	static const char *const axis[2] = { "x", "y" };

	for (size_t i = 0; i < m->n_inputs; i++) {
		double r[2];

		if (hx_json_nums(member(dom, axis[i]), r, 2) || !(r[0] <= r[1]))
			return -EINVAL;
		m->dom_min[i] = r[0];
		m->dom_max[i] = r[1];
	}
	return 0;
}

int hx_fit_model_from_row(const struct res_model *row, struct fit_model *m,
			  struct scn_error *err)
{
	const struct fit_form_info *fi;
	struct json_object *p = NULL, *se = NULL, *dom = NULL;
	enum fit_form form;
	int rc = -EINVAL;

	if (!row || !m)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "hx_fit_model_from_row: NULL");
	memset(m, 0, sizeof(*m));
	if (fit_form_parse(row->form, &form) < 0)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "model %lld: unknown form '%s'",
				     (long long)row->id, row->form);
	fi = fit_form_get(form);
	m->form = form;
	m->n_params = fi->n_params;
	m->n_inputs = fi->n_inputs;
	p = json_tokener_parse(row->params_json);
	se = json_tokener_parse(row->se_json);
	dom = json_tokener_parse(row->domain_json);
	if (!hx_json_nums(p, m->params, m->n_params) && !read_se(se, m) && !read_domain(dom, m))
		rc = 0;
	json_object_put(p);
	json_object_put(se);
	json_object_put(dom);
	if (rc)
		return scn_error_set(err, SCN_ERR_CONFIG, rc,
				     "model %lld: malformed params, standard errors or domain",
				     (long long)row->id);
	for (size_t i = 0; i < m->n_params; i++)
		if (!isfinite(m->params[i]))
			return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
					     "model %lld: parameter %s is not finite",
					     (long long)row->id, fi->param_names[i]);
	m->valid = row->valid;
	if (m->n_points < m->n_params)
		m->n_points = m->n_params;
	return 0;
}

int hx_fit_predict(const struct res_model *row, double x, double y, struct hx_prediction *p,
		   struct scn_error *err)
{
	struct fit_model m;
	int rc;

	if (!p)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "hx_fit_predict: NULL");
	rc = hx_fit_model_from_row(row, &m, err);
	if (rc)
		return rc;
	if (!m.valid)
		return scn_error_set(err, SCN_ERR_USAGE, -EINVAL,
				     "model %lld is not valid (its fit did not converge)",
				     (long long)row->id);
	rc = fit_predict(&m, x, y, &p->value, &p->in_domain);
	if (rc)
		return scn_error_set(err, SCN_ERR_INTERNAL, rc, "model %lld: cannot predict",
				     (long long)row->id);
	if (fit_predict_interval(&m, x, y, 0.95, &p->lo, &p->hi) < 0) {
		p->lo = NAN;
		p->hi = NAN;
	}
	return 0;
}
