/* SPDX-License-Identifier: MIT */
/*
 * fit_model: the public single-form entry points: input validation, the fit itself (via
 * fit_core), quality figures (R^2, RMSE, AICc), seeded k-fold cross-validation, prediction
 * with domain check, the delta-method prediction interval, and residuals.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

#include "fitting/fit_internal.h"

void fit_opts_default(struct fit_opts *o)
{
	*o = (struct fit_opts){ .seed = 1, .n_starts = 16, .max_iter = 200, .k_folds = 5,
				.xtol = 1e-10, .gtol = 1e-10, .ftol = 0.0 };
}

static int check_input(enum fit_form form, const struct fit_data *d, struct fit_model *out,
		       struct scn_error *err)
{
	const struct fit_form_info *fi = fit_form_get(form);
	const char *why = NULL;

	if (!fi)
		why = "unknown form";
	else if (!d || !d->x || !d->y)
		why = "no data";
	else if (d->n < fi->n_params)
		why = "too few points for the form";
	for (size_t i = 0; !why && i < d->n; i++) {
		if (!isfinite(d->y[i]) || !isfinite(d->x[i][0]) ||
		    (fi->n_inputs > 1 && !isfinite(d->x[i][1])))
			why = "non-finite value in the data";
	}
	if (!why)
		return 0;
	size_t n = d ? d->n : 0, p = fi ? fi->n_params : 0;
	if (out)
		snprintf(out->message, sizeof(out->message), "%s: %s (n = %zu, parameters = %zu)",
			 fit_form_name(form), why, n, p);
	return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "fit %s: %s (n = %zu, parameters = %zu)",
			     fit_form_name(form), why, n, p);
}

static void quality(const struct fit_data *d, struct fit_model *m)
{
	double mean = 0, sst = 0, ymax = 0, n = (double)d->n, k = (double)m->n_params + 1;

	for (size_t i = 0; i < d->n; i++) {
		mean += d->y[i] / n;
		ymax = fmax(ymax, fabs(d->y[i]));
	}
	for (size_t i = 0; i < d->n; i++)
		sst += (d->y[i] - mean) * (d->y[i] - mean);
	m->q.r2 = sst > 0 ? 1 - m->q.sse / sst : (m->q.sse == 0 ? 1 : 0);
	m->q.rmse = sqrt(m->q.sse / n);
	double floor = 1e-12 * (ymax > 0 ? ymax : 1);
	double msr = fmax(m->q.sse / n, floor * floor);
	m->q.aicc = n > k + 1 ? n * log(msr) + 2 * k + 2 * k * (k + 1) / (n - k - 1) : INFINITY;
}

static void domain(const struct fit_data *d, struct fit_model *m)
{
	for (size_t j = 0; j < FIT_MAX_INPUTS; j++) {
		m->dom_min[j] = j < m->n_inputs ? INFINITY : 0;
		m->dom_max[j] = j < m->n_inputs ? -INFINITY : 0;
	}
	for (size_t i = 0; i < d->n; i++)
		for (size_t j = 0; j < m->n_inputs; j++) {
			m->dom_min[j] = fmin(m->dom_min[j], d->x[i][j]);
			m->dom_max[j] = fmax(m->dom_max[j], d->x[i][j]);
		}
}

/* fold[i] in [0, k): a seeded shuffle dealt round-robin. */
int fit_assign_folds(size_t n, unsigned k, uint64_t seed, unsigned *fold, size_t *perm)
{
	gsl_rng *rng = fit_rng_alloc(seed, FIT_SALT_FOLDS);

	if (!rng)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	gsl_ran_shuffle(rng, perm, n, sizeof(*perm));
	gsl_rng_free(rng);
	for (size_t i = 0; i < n; i++)
		fold[perm[i]] = (unsigned)(i % k);
	return 0;
}

/* Keep held-out point P among Q's largest errors, largest first. */
static void keep_worst(struct fit_quality *q, const struct fit_cv_point *p)
{
	unsigned i = q->cv_n_worst;

	if (i == FIT_CV_WORST && !(p->bias > q->cv_worst[FIT_CV_WORST - 1].bias))
		return;
	if (i < FIT_CV_WORST)
		q->cv_n_worst++;
	else
		i = FIT_CV_WORST - 1;
	for (; i > 0 && p->bias > q->cv_worst[i - 1].bias; i--)
		q->cv_worst[i] = q->cv_worst[i - 1];
	q->cv_worst[i] = *p;
}

/* Held-out figures; returns 0, -ENOMEM, or 1 when CV was not possible (fields stay NaN). */
static int cross_validate(enum fit_form form, const struct fit_data *d,
			  const struct fit_opts *o, struct fit_model *m)
{
	unsigned k = o->k_folds < d->n ? o->k_folds : (unsigned)d->n;
	unsigned *fold = calloc(d->n, sizeof(*fold));
	size_t *perm = calloc(d->n, sizeof(*perm));
	double (*tx)[2] = calloc(d->n, sizeof(*tx)), *ty = calloc(d->n, sizeof(*ty));
	double ymax = 0, sq = 0, sum = 0, mx = 0;
	int rc = -ENOMEM;

	m->q.cv_n_worst = 0;
	if (!fold || !perm || !tx || !ty)
		goto out;
	for (size_t i = 0; i < d->n; i++)
		ymax = fmax(ymax, fabs(d->y[i]));
	rc = fit_assign_folds(d->n, k, o->seed, fold, perm);
	for (unsigned f = 0; f < k && rc == 0; f++) {
		struct fit_data tr = { .n = 0, .x = (const double (*)[2])tx, .y = ty };
		struct fit_model tm = { .form = form, .n_params = m->n_params };
		for (size_t i = 0; i < d->n; i++) {
			if (fold[i] == f)
				continue;
			tx[tr.n][0] = d->x[i][0];
			tx[tr.n][1] = d->x[i][1];
			ty[tr.n++] = d->y[i];
		}
		if (tr.n < m->n_params) {
			rc = 1;
			break;
		}
		rc = fit_core(form, &tr, o, &tm);
		if (rc == 0 && !tm.valid)
			rc = 1;
		for (size_t i = 0; rc == 0 && i < d->n; i++) {
			if (fold[i] != f)
				continue;
			double r = fit_form_eval(form, tm.params, d->x[i]) - d->y[i];
			double b = fabs(r) / fmax(fabs(d->y[i]), 1e-12 * (ymax > 0 ? ymax : 1));
			struct fit_cv_point pt = { { d->x[i][0], d->x[i][1] }, d->y[i], d->y[i] + r, b };

			sq += r * r;
			sum += b;
			mx = fmax(mx, b);
			keep_worst(&m->q, &pt);
		}
	}
	if (rc == 0) {
		m->q.cv_folds = k;
		m->q.cv_rmse = sqrt(sq / (double)d->n);
		m->q.cv_mean_bias = sum / (double)d->n;
		m->q.cv_max_bias = mx;
	} else {
		m->q.cv_n_worst = 0; /* a fold failed: no held-out figures */
	}
out:
	free(fold);
	free(perm);
	free(tx);
	free(ty);
	return rc;
}

static void append(struct fit_model *m, const char *s)
{
	size_t l = strlen(m->message);
	snprintf(m->message + l, sizeof(m->message) - l, "%s", s);
}

int fit_model_fit(enum fit_form form, const struct fit_data *d, const struct fit_opts *opts,
		  struct fit_model *out, struct scn_error *err)
{
	struct fit_opts o;
	int rc;

	if (!out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "fit: no output model");
	memset(out, 0, sizeof(*out));
	out->form = form;
	rc = check_input(form, d, out, err);
	if (rc)
		return rc;
	if (opts)
		o = *opts;
	else
		fit_opts_default(&o);
	if (o.n_starts == 0)
		o.n_starts = 1;
	const struct fit_form_info *fi = fit_form_get(form);
	out->n_params = fi->n_params;
	out->n_inputs = fi->n_inputs;
	out->n_points = d->n;
	out->q.cv_rmse = out->q.cv_mean_bias = out->q.cv_max_bias = NAN;
	domain(d, out);

	gsl_error_handler_t *old = gsl_set_error_handler_off();
	rc = fit_core(form, d, &o, out);
	if (rc == 0) {
		quality(d, out);
		if (out->valid && o.k_folds >= 2) {
			rc = cross_validate(form, d, &o, out);
			if (rc == 1) {
				append(out, "; cross-validation not possible (a fold has too few "
					    "points or did not converge)");
				rc = 0;
			}
		}
	}
	gsl_set_error_handler(old);
	if (rc < 0)
		return scn_error_set(err, SCN_ERR_INTERNAL, rc, "fit %s: out of memory",
				     fit_form_name(form));
	return 0;
}

static bool model_ok(const struct fit_model *m)
{
	const struct fit_form_info *fi = m ? fit_form_get(m->form) : NULL;
	if (!fi || !m->valid)
		return false;
	assert(m->n_params == fi->n_params && m->n_inputs == fi->n_inputs);
	return true;
}

int fit_predict(const struct fit_model *m, double x, double y, double *value, bool *in_domain)
{
	double in[2] = { x, y };

	if (!model_ok(m) || !value)
		return -EINVAL;
	*value = fit_form_eval(m->form, m->params, in);
	if (in_domain) {
		bool ok = true;
		for (size_t j = 0; j < m->n_inputs; j++) {
			double tol = 1e-9 * fmax(1.0, fabs(m->dom_max[j] - m->dom_min[j]));
			ok = ok && in[j] >= m->dom_min[j] - tol && in[j] <= m->dom_max[j] + tol;
		}
		*in_domain = ok;
	}
	return 0;
}

int fit_predict_interval(const struct fit_model *m, double x, double y, double level,
			 double *lo, double *hi)
{
	double in[2] = { x, y }, g[FIT_MAX_PARAMS], var, v;

	if (!model_ok(m) || !lo || !hi || !(level > 0 && level < 1))
		return -EINVAL;
	if (m->n_points <= m->n_params || !isfinite(m->s2) || !isfinite(m->cov[0][0]))
		return -EDOM;
	fit_form_grad(m->form, m->params, in, g);
	var = m->s2;
	for (size_t j = 0; j < m->n_params; j++)
		for (size_t k = 0; k < m->n_params; k++)
			var += g[j] * m->cov[j][k] * g[k];
	double t = gsl_cdf_tdist_Pinv(0.5 * (1 + level), (double)(m->n_points - m->n_params));
	v = fit_form_eval(m->form, m->params, in);
	*lo = v - t * sqrt(var);
	*hi = v + t * sqrt(var);
	return 0;
}

int fit_residuals(const struct fit_model *m, const struct fit_data *d, double *resid)
{
	if (!model_ok(m) || !d || !d->x || !d->y || !resid)
		return -EINVAL;
	for (size_t i = 0; i < d->n; i++)
		resid[i] = d->y[i] - fit_form_eval(m->form, m->params, d->x[i]);
	return 0;
}
