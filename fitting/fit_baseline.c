/* SPDX-License-Identifier: MIT */
/*
 * fit_baseline: a generic regression fitted beside the model forms, as the ScalaCN paper
 * compares its forms against ML baselines: ordinary least squares (GSL) of a full
 * polynomial of degree <= 3 in the log-scaled inputs u_j = log(1 + x_j), each mapped to
 * [0, 1] over the data. It knows nothing of walls or walks; its held-out bias, with the
 * same seeded folds as the forms' cross-validation, is the figure a form must beat.
 * The degree is the largest of 3, 2, 1 whose terms number at most a third of the points;
 * a term of an input that never varies is left out.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "fitting/fit_internal.h"

#define BASE_MAX_TERMS 10

struct basis {
	double lo[2], span[2];   /* log1p range of each input; span 0: the input is constant */
	unsigned n_terms;
	unsigned pow[BASE_MAX_TERMS][2];
};

static double scaled(const struct basis *b, int j, double x)
{
	return b->span[j] > 0 ? (log1p(fmax(x, 0)) - b->lo[j]) / b->span[j] : 0;
}

/* The monomials u^a v^b, a + b <= DEG, of the inputs that vary. */
static void make_terms(struct basis *b, unsigned deg)
{
	b->n_terms = 0;
	for (unsigned a = 0; a <= deg; a++)
		for (unsigned c = 0; a + c <= deg; c++) {
			if ((a && !(b->span[0] > 0)) || (c && !(b->span[1] > 0)))
				continue;
			b->pow[b->n_terms][0] = a;
			b->pow[b->n_terms][1] = c;
			b->n_terms++;
		}
}

static void make_basis(const struct fit_data *d, size_t n_inputs, struct basis *b)
{
	for (int j = 0; j < 2; j++) {
		double lo = INFINITY, hi = -INFINITY;

		for (size_t i = 0; j < (int)n_inputs && i < d->n; i++) {
			lo = fmin(lo, log1p(fmax(d->x[i][j], 0)));
			hi = fmax(hi, log1p(fmax(d->x[i][j], 0)));
		}
		b->lo[j] = j < (int)n_inputs ? lo : 0;
		b->span[j] = j < (int)n_inputs && hi > lo ? hi - lo : 0;
	}
	for (unsigned deg = 3; deg >= 1; deg--) {
		make_terms(b, deg);
		if (3 * b->n_terms <= d->n || deg == 1)
			return;
	}
}

static void row_of(const struct basis *b, const double x[2], double *out)
{
	double u = scaled(b, 0, x[0]), v = scaled(b, 1, x[1]);

	for (unsigned t = 0; t < b->n_terms; t++)
		out[t] = pow(u, b->pow[t][0]) * pow(v, b->pow[t][1]);
}

/* Least squares over the points with USE[i] (NULL: all) into COEF. 0, -EDOM, -ENOMEM. */
static int solve(const struct basis *b, const struct fit_data *d, const unsigned *fold,
		 unsigned skip, double *coef)
{
	size_t n = 0, k = b->n_terms;
	gsl_matrix *X, *cov;
	gsl_vector *y, *c;
	gsl_multifit_linear_workspace *w;
	double chisq, r[BASE_MAX_TERMS];
	int rc = -ENOMEM;

	for (size_t i = 0; i < d->n; i++)
		n += !fold || fold[i] != skip;
	if (n <= k)
		return -EDOM;
	X = gsl_matrix_alloc(n, k);
	cov = gsl_matrix_alloc(k, k);
	y = gsl_vector_alloc(n);
	c = gsl_vector_alloc(k);
	w = gsl_multifit_linear_alloc(n, k);
	if (X && cov && y && c && w) {
		for (size_t i = 0, m = 0; i < d->n; i++) {
			if (fold && fold[i] == skip)
				continue;
			row_of(b, d->x[i], r);
			for (size_t t = 0; t < k; t++)
				gsl_matrix_set(X, m, t, r[t]);
			gsl_vector_set(y, m++, d->y[i]);
		}
		rc = gsl_multifit_linear(X, y, c, cov, &chisq, w) ? -EDOM : 0;
		for (size_t t = 0; rc == 0 && t < k; t++)
			coef[t] = gsl_vector_get(c, t);
	}
	gsl_multifit_linear_free(w);
	gsl_vector_free(c);
	gsl_vector_free(y);
	gsl_matrix_free(cov);
	gsl_matrix_free(X);
	return rc;
}

static double predict(const struct basis *b, const double *coef, const double x[2])
{
	double r[BASE_MAX_TERMS], v = 0;

	row_of(b, x, r);
	for (unsigned t = 0; t < b->n_terms; t++)
		v += coef[t] * r[t];
	return v;
}

/* In-sample R^2 and RMSE. */
static void in_sample(const struct basis *b, const struct fit_data *d, const double *coef,
		      struct fit_baseline *out)
{
	double mean = 0, sst = 0, sse = 0;

	for (size_t i = 0; i < d->n; i++)
		mean += d->y[i] / (double)d->n;
	for (size_t i = 0; i < d->n; i++) {
		double e = predict(b, coef, d->x[i]) - d->y[i];

		sse += e * e;
		sst += (d->y[i] - mean) * (d->y[i] - mean);
	}
	out->r2 = sst > 0 ? 1 - sse / sst : 1;
	out->rmse = sqrt(sse / (double)d->n);
}

static int cross_validate(const struct basis *b, const struct fit_data *d,
			  const struct fit_opts *o, struct fit_baseline *out)
{
	unsigned k = o->k_folds < d->n ? o->k_folds : (unsigned)d->n;
	unsigned *fold = calloc(d->n, sizeof(*fold));
	size_t *perm = calloc(d->n, sizeof(*perm));
	double coef[BASE_MAX_TERMS], sum = 0, mx = 0;
	int rc = fold && perm ? 0 : -ENOMEM;

	if (rc == 0)
		rc = fit_assign_folds(d->n, k, o->seed, fold, perm);
	for (unsigned f = 0; rc == 0 && f < k; f++) {
		rc = solve(b, d, fold, f, coef);
		for (size_t i = 0; rc == 0 && i < d->n; i++) {
			double e;

			if (fold[i] != f)
				continue;
			e = fabs(predict(b, coef, d->x[i]) - d->y[i]) / fmax(fabs(d->y[i]), 1e-300);
			sum += e;
			mx = fmax(mx, e);
		}
	}
	if (rc == 0) {
		out->cv_folds = k;
		out->cv_mean_bias = sum / (double)d->n;
		out->cv_max_bias = mx;
	}
	free(fold);
	free(perm);
	return rc;
}

int fit_baseline_poly(const struct fit_data *d, size_t n_inputs, const struct fit_opts *opts,
		      struct fit_baseline *out)
{
	struct fit_opts o;
	struct basis b;
	double coef[BASE_MAX_TERMS];
	gsl_error_handler_t *old;
	int rc;

	if (!out || !d || !d->x || !d->y || n_inputs < 1 || n_inputs > 2)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->r2 = out->rmse = out->cv_mean_bias = out->cv_max_bias = NAN;
	if (opts)
		o = *opts;
	else
		fit_opts_default(&o);
	make_basis(d, n_inputs, &b);
	out->n_terms = b.n_terms;
	for (unsigned t = 0; t < b.n_terms; t++)
		out->degree = b.pow[t][0] + b.pow[t][1] > out->degree ? b.pow[t][0] + b.pow[t][1]
								      : out->degree;
	old = gsl_set_error_handler_off();
	rc = solve(&b, d, NULL, 0, coef);
	if (rc == 0) {
		in_sample(&b, d, coef, out);
		out->valid = true;
		if (o.k_folds >= 2 && cross_validate(&b, d, &o, out) == -ENOMEM)
			rc = -ENOMEM;
	}
	gsl_set_error_handler(old);
	return rc == -EDOM ? 0 : rc;
}
