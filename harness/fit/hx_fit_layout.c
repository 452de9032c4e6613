/* SPDX-License-Identifier: MIT */
/*
 * hx_fit_layout: a point's value over its rule layouts, with what each layout did to the
 * traffic (its walk covariate, generators/gen_layout_cov.h) as a control variate.
 *
 * Under skewed traffic a layout moves the response mostly through where the popular flows
 * land in the mask walk. The harness knows that for every layout it built, and its mean
 * over all layouts. So the layouts' values are regressed on the walk's deviation from that
 * mean (v = a + b * (walk - walk_mean)): the intercept a estimates the point's mean over all
 * layouts with the spread the walk explains taken out, and the fit's residuals show a trial
 * that went wrong (one trial per layout: a 1.5x slow trial is a whole layout's value) far
 * better than the spread of the raw values does, which the layout effect inflates.
 *
 *  1. Screen the raw values as the robust mean does (hx_layout_screen: beyond 4 MADs and
 *     10% of the median, at least 3 kept).
 *  2. Screen the residuals of a robust (bisquare) fit of v on the walk over the rest: beyond
 *     4 robust sigmas and 10% of the fitted value (at least 4 kept).
 *  3. Choose between the plain mean and the fit on the walk over what is kept by AICc (the
 *     walk must pay for its coefficient); the value is the chosen intercept, its standard
 *     error the intercept's.
 * When the walk does not vary (uniform traffic, one mask per side) or there are fewer than
 * 4 layouts, the caller keeps its robust mean.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "harness/fit/hx_fit_layout.h"

#define OUTLIER_SIGMAS 4.0
#define OUTLIER_SHARE 0.10
#define MIN_FIT 4 /* layouts the walk fit needs: two coefficients and two to spare */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double hx_layout_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void hx_layout_screen(const double *v, size_t n, bool *keep)
{
	double t[HX_LAYOUT_MAX], med, mad;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		keep[i] = true;
	if (n < 4)
		return;
	for (size_t i = 0; i < n; i++)
		t[i] = v[i];
	med = hx_layout_median(t, n);
	for (size_t i = 0; i < n; i++)
		t[i] = fabs(v[i] - med);
	mad = 1.4826 * hx_layout_median(t, n);
	for (size_t i = 0; i < n; i++) {
		double dev = fabs(v[i] - med);

		keep[i] = dev <= OUTLIER_SIGMAS * mad || dev <= OUTLIER_SHARE * fabs(med);
		k += keep[i];
	}
	if (k < 3)
		for (size_t i = 0; i < n; i++)
			keep[i] = true;
}

static size_t count(const bool *keep, size_t n)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		m += keep[i];
	return m;
}

/* Does the walk vary over the kept observations? */
static bool walk_varies(const struct hx_layout_obs *o, size_t n, const bool *keep)
{
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < n; i++)
		if (keep[i]) {
			lo = fmin(lo, o[i].walk);
			hi = fmax(hi, o[i].walk);
		}
	return hi - lo > 1e-9 * (1.0 + fabs(hi));
}

/* The kept observations as a design (an intercept, then the walk when WALK) and values. */
static void design(const struct hx_layout_obs *o, size_t n, const bool *keep, bool walk,
		   gsl_matrix *X, gsl_vector *y)
{
	for (size_t i = 0, r = 0; i < n; i++) {
		if (!keep[i])
			continue;
		gsl_matrix_set(X, r, 0, 1.0);
		if (walk)
			gsl_matrix_set(X, r, 1, o[i].walk);
		gsl_vector_set(y, r++, o[i].v);
	}
}

/* Step 2: clear KEEP[i] of the kept layouts the robust walk fit calls outliers. */
static void screen_fit(const struct hx_layout_obs *o, size_t n, bool *keep)
{
	size_t m = count(keep, n), out = 0;
	gsl_multifit_robust_workspace *w = gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare,
								     m, 2);
	gsl_matrix *X = gsl_matrix_alloc(m, 2), *cov = gsl_matrix_alloc(2, 2);
	gsl_vector *y = gsl_vector_alloc(m), *c = gsl_vector_alloc(2);

	if (w && X && cov && y && c) {
		design(o, n, keep, true, X, y);
		if (gsl_multifit_robust(X, y, c, cov, w) == GSL_SUCCESS) {
			gsl_multifit_robust_stats st = gsl_multifit_robust_statistics(w);

			for (size_t i = 0, r = 0; i < n; i++) {
				double res, fit;

				if (!keep[i])
					continue;
				res = gsl_vector_get(st.r, r++);
				fit = o[i].v - res;
				if (m - out > MIN_FIT && fabs(res) > OUTLIER_SIGMAS * st.sigma &&
				    fabs(res) > OUTLIER_SHARE * fabs(fit)) {
					keep[i] = false;
					out++;
				}
			}
		}
	}
	gsl_multifit_robust_free(w);
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(c);
}

/* Step 3 for one candidate (the mean, or the walk fit when WALK) over the M kept layouts:
 * its AICc, intercept and the intercept's standard error. false when it cannot be fitted. */
static bool ols(const struct hx_layout_obs *o, size_t n, const bool *keep, bool walk,
		double *aicc, double *a, double *se)
{
	size_t m = count(keep, n), p = walk ? 2 : 1;
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(m, p);
	gsl_matrix *X = gsl_matrix_alloc(m, p), *cov = gsl_matrix_alloc(p, p);
	gsl_vector *y = gsl_vector_alloc(m), *c = gsl_vector_alloc(p);
	double chisq, scale = 0;
	bool ok = false;

	if (w && X && cov && y && c) {
		design(o, n, keep, walk, X, y);
		for (size_t i = 0; i < m; i++)
			scale += gsl_vector_get(y, i) * gsl_vector_get(y, i);
		if (gsl_multifit_linear(X, y, c, cov, &chisq, w) == GSL_SUCCESS) {
			chisq = fmax(chisq, 1e-12 * scale);
			*aicc = (double)m * log(chisq / (double)m) + 2.0 * (double)p +
				2.0 * (double)(p * (p + 1)) / (double)(m - p - 1);
			*a = gsl_vector_get(c, 0);
			*se = sqrt(fmax(gsl_matrix_get(cov, 0, 0), 0.0));
			ok = isfinite(*aicc) && isfinite(*a);
		}
	}
	gsl_multifit_linear_free(w);
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(c);
	return ok;
}

double hx_layout_value(const struct hx_layout_obs *o, size_t n, double *se, bool *walked)
{
	bool keep[HX_LAYOUT_MAX];
	double raw[HX_LAYOUT_MAX], mean_aicc, mean_a, mean_se, walk_aicc, walk_a, walk_se;
	gsl_error_handler_t *old;
	bool use_walk;

	*se = NAN;
	if (walked)
		*walked = false;
	if (n < MIN_FIT || n > HX_LAYOUT_MAX)
		return NAN;
	for (size_t i = 0; i < n; i++)
		raw[i] = o[i].v;
	hx_layout_screen(raw, n, keep);
	if (count(keep, n) < MIN_FIT || !walk_varies(o, n, keep))
		return NAN;
	old = gsl_set_error_handler_off();
	screen_fit(o, n, keep);
	use_walk = ols(o, n, keep, true, &walk_aicc, &walk_a, &walk_se);
	if (!ols(o, n, keep, false, &mean_aicc, &mean_a, &mean_se))
		mean_a = NAN;
	gsl_set_error_handler(old);
	use_walk = use_walk && (isnan(mean_a) || walk_aicc < mean_aicc);
	if (walked)
		*walked = use_walk;
	*se = use_walk ? walk_se : mean_se;
	return use_walk ? walk_a : mean_a;
}
