/* SPDX-License-Identifier: MIT */
/*
 * hx_fit_layout: a point's value over its rule layouts, with what each layout did to the
 * traffic (its walk and software covariates, generators/gen_layout_cov.h) as control
 * variates.
 *
 * Under skewed traffic a layout moves the response mostly through where the popular flows
 * land in the mask walk. The harness knows that for every layout it built, and the walk
 * with every mask holding as many flows (walk_even). So the layouts' values are regressed
 * on the walk's deviation from the even walk (v = a + b * (walk - walk_even)): the
 * intercept a estimates the point's value with its flows spread evenly over its masks, with
 * the spread the walk explains taken out. (Its mean over all layouts, walk_mean, is not
 * that: dealing F flows over m masks gives the first F mod m masks a rule more, a saw-tooth
 * in m of up to m/(4F) of the walk (10% at 104 masks over 256 flows) that the layouts' shifts never average out, and that no
 * form in masks follows: ConnectX-7's send bandwidth at 104 masks read 8% above a line
 * through 85 and 128, and cap2 missed it by 5-7% along every other input's level.) The
 * fit's residuals show a trial
 * that went wrong (one trial per layout: a 1.5x slow trial is a whole layout's value) far
 * better than the spread of the raw values does, which the layout effect inflates.
 *
 * The walk is a sum over the sides (host, direction) with rules, and each side's term comes
 * with it: a latency adds the sides' walks up, but a bandwidth is set by its slowest side,
 * and there the other sides' walks only dilute the sum (CX-7 write bandwidth at 115 server
 * decap masks and client encap masks varying: the sum explained none of a 5.8% standard
 * error, the server's decap walk nearly all of it). So every covariate that varies, the
 * sum and each side's, is a candidate:
 *  1. Screen the raw values as the robust mean does (hx_layout_screen: beyond 4 MADs and
 *     10% of the median, at least 3 kept).
 *  2. Screen the residuals of a robust (bisquare) fit of v on a covariate over the rest:
 *     beyond 4 robust sigmas and 10% of the fitted value (at least 4 kept), on the
 *     covariate whose robust fit is tightest (smallest robust sigma).
 *  3. Choose by AICc between the fit on the sum and the fit on each side (one covariate
 *     each; a side must beat the sum by SIDE_MARGIN to replace it) over what is kept; the
 *     value is the chosen intercept, its standard error the intercept's. The plain mean
 *     is taken only when no walk can be fitted: it is the value at the layouts' own mean
 *     walk, which an uneven deal puts away from the even walk, and a slope that does not
 *     pay for itself in spread (AICc's choice before) still moves the value there
 *     (BlueField-3's send latency: AICc kept the mean at 22 of its 100 points).
 * Past a table's capacity the layouts move the response through a second thing: which
 * flows' rules were programmed late enough to stay in software (gen_layout_sw, from the
 * trial's tc_in_hw gauge). The traffic share in software less the share of flows in
 * software (their mean over layouts agree) is a covariate per path and summed, a candidate
 * beside the walks in steps 2 and 3, with two differences: its robust line in step 2 is
 * Theil and Sen's, since the share moves a point by far more than the noise and two slow
 * trials of eight on one side pulled the bisquare fit's least-squares start off (ConnectX-6
 * write latency at 7512 flows), and in step 3 it must narrow the value (its intercept's
 * standard error below the plain mean's): near all rules in software the share moves by
 * 1e-4 and a line through noise lands its intercept away from every value.
 * When no covariate varies (uniform traffic, one mask per side, no rule in software) or
 * there are fewer than 4 layouts, the caller keeps its robust mean, and hx_layout_pool
 * moves it by the slope the model's other points found.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_statistics_double.h>

#include "harness/fit/hx_fit_layout.h"

#define OUTLIER_SIGMAS 4.0
#define OUTLIER_SHARE 0.10
#define MIN_FIT 4 /* layouts the walk fit needs: two coefficients and two to spare */
#define SIDE_MARGIN 2.0 /* AICc by which one side's walk must beat the sum to replace it */

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

/* Covariate C of observation O: the walk (C = 0), side C - 1's walk, or software share
 * C - HX_LAYOUT_COV_SW's. */
static double cov_of(const struct hx_layout_obs *o, int c)
{
	if (c >= HX_LAYOUT_COV_SW)
		return o->sw[c - HX_LAYOUT_COV_SW];
	return c == 0 ? o->walk : o->side[c - 1];
}

/* Does covariate C vary over the kept observations? */
static bool varies(const struct hx_layout_obs *o, size_t n, const bool *keep, int c)
{
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < n; i++)
		if (keep[i]) {
			lo = fmin(lo, cov_of(&o[i], c));
			hi = fmax(hi, cov_of(&o[i], c));
		}
	return hi - lo > 1e-9 * (1.0 + fabs(hi));
}

static bool any_varies(const struct hx_layout_obs *o, size_t n, const bool *keep)
{
	for (int c = 0; c < HX_LAYOUT_COVS; c++)
		if (varies(o, n, keep, c))
			return true;
	return false;
}

/* The kept observations as a design (an intercept, then covariate C unless C < 0) and
 * values. */
static void design(const struct hx_layout_obs *o, size_t n, const bool *keep, int c,
		   gsl_matrix *X, gsl_vector *y)
{
	for (size_t i = 0, r = 0; i < n; i++) {
		if (!keep[i])
			continue;
		gsl_matrix_set(X, r, 0, 1.0);
		if (c >= 0)
			gsl_matrix_set(X, r, 1, cov_of(&o[i], c));
		gsl_vector_set(y, r++, o[i].v);
	}
}

/* Step 2 on covariate CV: clear KEEP[i] of the kept layouts its robust fit calls outliers;
 * the fit's robust sigma (INFINITY when it could not be fitted). */
static double screen_bisquare(const struct hx_layout_obs *o, size_t n, bool *keep, int cv)
{
	size_t m = count(keep, n), out = 0;
	gsl_multifit_robust_workspace *w = gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare,
								     m, 2);
	gsl_matrix *X = gsl_matrix_alloc(m, 2), *cov = gsl_matrix_alloc(2, 2);
	gsl_vector *y = gsl_vector_alloc(m), *c = gsl_vector_alloc(2);
	double sigma = INFINITY;

	if (w && X && cov && y && c) {
		design(o, n, keep, cv, X, y);
		if (gsl_multifit_robust(X, y, c, cov, w) == GSL_SUCCESS) {
			gsl_multifit_robust_stats st = gsl_multifit_robust_statistics(w);

			sigma = st.sigma;
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
	return sigma;
}

/* Step 2 on covariate CV: clear KEEP[i] of the kept layouts its robust line calls outliers;
 * the line's robust sigma (INFINITY when it could not be fitted). The line is Theil and
 * Sen's (the median of the pairwise slopes, the median intercept under it), which a
 * quarter of gross outliers does not move; an M-estimator started from least squares
 * (bisquare) can settle where two outliers on one side pulled its start (ConnectX-6 write
 * latency at 7512 flows: two 1.5x trials of eight kept a robust sigma of 8 us, the line
 * through the other six fits them within 0.3 us). The robust sigma is 1.4826 MADs of the
 * residuals. */
static double screen_theil_sen(const struct hx_layout_obs *o, size_t n, bool *keep, int cv)
{
	double slope[HX_LAYOUT_MAX * (HX_LAYOUT_MAX - 1) / 2], res[HX_LAYOUT_MAX];
	double b, a, sigma, c[HX_LAYOUT_MAX], v[HX_LAYOUT_MAX];
	size_t m = 0, np = 0, out = 0, idx[HX_LAYOUT_MAX];

	for (size_t i = 0; i < n; i++)
		if (keep[i]) {
			c[m] = cov_of(&o[i], cv);
			v[m] = o[i].v;
			idx[m++] = i;
		}
	for (size_t i = 0; i < m; i++)
		for (size_t j = i + 1; j < m; j++)
			if (c[j] != c[i])
				slope[np++] = (v[j] - v[i]) / (c[j] - c[i]);
	if (np == 0 || m <= MIN_FIT)
		return INFINITY;
	b = gsl_stats_median(slope, 1, np);
	for (size_t i = 0; i < m; i++)
		res[i] = v[i] - b * c[i];
	a = gsl_stats_median(res, 1, m);
	for (size_t i = 0; i < m; i++)
		res[i] = fabs(v[i] - a - b * c[i]);
	memcpy(slope, res, m * sizeof(*res));
	sigma = 1.4826 * gsl_stats_median(slope, 1, m);
	for (size_t i = 0; i < m; i++)
		if (m - out > MIN_FIT && res[i] > OUTLIER_SIGMAS * sigma &&
		    res[i] > OUTLIER_SHARE * fabs(a + b * c[i])) {
			keep[idx[i]] = false;
			out++;
		}
	return sigma;
}

/* Step 2 on covariate CV: a walk's robust line is the bisquare one, a software share's
 * Theil and Sen's (see both above). */
static double screen_fit(const struct hx_layout_obs *o, size_t n, bool *keep, int cv)
{
	return cv >= HX_LAYOUT_COV_SW ? screen_theil_sen(o, n, keep, cv)
				      : screen_bisquare(o, n, keep, cv);
}

/* Step 2: screen on the walk's sum and on each side's that varies, and keep what the
 * tightest of those robust fits (the smallest robust sigma) kept: a side that sets the
 * response shows a bad trial that the sum, diluted by the other sides, hides. */
static void screen(const struct hx_layout_obs *o, size_t n, bool *keep)
{
	bool best[HX_LAYOUT_MAX], trial[HX_LAYOUT_MAX];
	double sigma;

	memcpy(best, keep, n * sizeof(*keep));
	sigma = varies(o, n, keep, 0) ? screen_fit(o, n, best, 0) : INFINITY;
	for (int c = 1; c < HX_LAYOUT_COVS; c++) {
		double s;

		if (!varies(o, n, keep, c))
			continue;
		memcpy(trial, keep, n * sizeof(*keep));
		s = screen_fit(o, n, trial, c);
		if (s < sigma) {
			sigma = s;
			memcpy(best, trial, n * sizeof(*trial));
		}
	}
	memcpy(keep, best, n * sizeof(*keep));
}

/* A candidate of step 3: its AICc, value (the intercept), the value's standard error, the
 * slope and the covariate (-1: the plain mean). */
struct candidate {
	double aicc, a, se, b;
	int cv;
};

/* Step 3 for one candidate (the mean when CV < 0, else the fit on covariate CV) over the M
 * kept layouts into *T. false when it cannot be fitted. */
static bool ols(const struct hx_layout_obs *o, size_t n, const bool *keep, int cv,
		struct candidate *t)
{
	size_t m = count(keep, n), p = cv >= 0 ? 2 : 1;
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(m, p);
	gsl_matrix *X = gsl_matrix_alloc(m, p), *cov = gsl_matrix_alloc(p, p);
	gsl_vector *y = gsl_vector_alloc(m), *c = gsl_vector_alloc(p);
	double chisq, scale = 0;
	bool ok = false;

	if (w && X && cov && y && c) {
		design(o, n, keep, cv, X, y);
		for (size_t i = 0; i < m; i++)
			scale += gsl_vector_get(y, i) * gsl_vector_get(y, i);
		if (gsl_multifit_linear(X, y, c, cov, &chisq, w) == GSL_SUCCESS) {
			chisq = fmax(chisq, 1e-12 * scale);
			t->aicc = (double)m * log(chisq / (double)m) + 2.0 * (double)p +
				  2.0 * (double)(p * (p + 1)) / (double)(m - p - 1);
			t->a = gsl_vector_get(c, 0);
			t->b = cv >= 0 ? gsl_vector_get(c, 1) : 0;
			t->se = sqrt(fmax(gsl_matrix_get(cov, 0, 0), 0.0));
			t->cv = cv;
			ok = isfinite(t->aicc) && isfinite(t->a);
		}
	}
	gsl_multifit_linear_free(w);
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(c);
	return ok;
}

/* Of the walk's sum and each side's that varies, and each software share that varies and
 * narrows the value (its intercept's standard error below the plain mean's, MEAN: a share
 * that barely moves is extrapolated from, not averaged over): the fit with the lowest AICc
 * into *BEST (one other than the sum must beat it by SIDE_MARGIN); false when none could be
 * fitted. */
static bool best_walk(const struct hx_layout_obs *o, size_t n, const bool *keep,
		      const struct candidate *mean, struct candidate *best)
{
	bool any = varies(o, n, keep, 0) && ols(o, n, keep, 0, best);
	double margin = any ? SIDE_MARGIN : 0;

	for (int c = 1; c < HX_LAYOUT_COVS; c++) {
		struct candidate t;

		if (!varies(o, n, keep, c) || !ols(o, n, keep, c, &t))
			continue;
		if (c >= HX_LAYOUT_COV_SW && !(t.se < mean->se))
			continue;
		if (!any || t.aicc < best->aicc - margin) {
			*best = t;
			any = true;
			margin = 0;
		}
	}
	return any;
}

double hx_layout_value(const struct hx_layout_obs *o, size_t n, double *se,
		       struct hx_layout_fit *fit)
{
	bool keep[HX_LAYOUT_MAX], use_walk;
	double raw[HX_LAYOUT_MAX];
	struct candidate walk, mean;
	gsl_error_handler_t *old;

	*se = NAN;
	if (fit)
		*fit = (struct hx_layout_fit){ false, -1, 0 };
	if (n < MIN_FIT || n > HX_LAYOUT_MAX)
		return NAN;
	for (size_t i = 0; i < n; i++)
		raw[i] = o[i].v;
	hx_layout_screen(raw, n, keep);
	if (count(keep, n) < MIN_FIT || !any_varies(o, n, keep))
		return NAN;
	old = gsl_set_error_handler_off();
	screen(o, n, keep);
	if (!ols(o, n, keep, -1, &mean))
		mean.a = mean.se = NAN;
	use_walk = best_walk(o, n, keep, &mean, &walk);
	gsl_set_error_handler(old);
	if (fit && use_walk)
		*fit = (struct hx_layout_fit){ true, walk.cv, walk.b };
	*se = use_walk ? walk.se : mean.se;
	return use_walk ? walk.a : mean.a;
}

void hx_layout_pool(double *y, const struct hx_layout_point *pw, size_t n)
{
	unsigned count[HX_LAYOUT_COVS] = { 0 };
	double *b = malloc((n ? n : 1) * sizeof(*b)), slope;
	size_t nb = 0;
	int c = 0;

	for (size_t i = 0; i < n; i++)
		if (pw[i].fit.walked)
			count[pw[i].fit.cov]++;
	for (int j = 1; j < HX_LAYOUT_COVS; j++)
		c = count[j] > count[c] ? j : c;
	if (!b || count[c] < HX_LAYOUT_POOL_MIN) {
		free(b);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (pw[i].fit.walked && pw[i].fit.cov == c)
			b[nb++] = pw[i].fit.slope;
	slope = hx_layout_median(b, nb);
	for (size_t i = 0; i < n; i++)
		if (pw[i].known && !pw[i].fit.walked)
			y[i] -= slope * pw[i].dev[c];
	free(b);
}
