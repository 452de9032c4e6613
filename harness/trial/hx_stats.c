/* SPDX-License-Identifier: MIT */
/*
 * hx_stats: means, standard deviations and Welch's t-test on top of GSL.
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "harness/trial/hx_stats.h"

void hx_summarise(const double *x, size_t n, struct hx_summary *out)
{
	out->n = n;
	out->mean = n ? gsl_stats_mean(x, 1, n) : NAN;
	out->sd = n > 1 ? gsl_stats_sd_m(x, 1, n, out->mean) : 0.0;
	out->ci95 = n > 1 ? gsl_cdf_tdist_Qinv(0.025, (double)(n - 1)) * out->sd / sqrt((double)n)
			  : 0.0;
}

void hx_summarise_robust(const double *x, size_t n, struct hx_summary *out)
{
	double v[HX_MAX_SLOPE_POINTS], dev[HX_MAX_SLOPE_POINTS], keep[HX_MAX_SLOPE_POINTS];
	double med, mad;
	size_t k = 0;

	if (n < 4 || n > HX_MAX_SLOPE_POINTS) {
		hx_summarise(x, n, out);
		return;
	}
	memcpy(v, x, n * sizeof(*v));
	gsl_sort(v, 1, n);
	med = gsl_stats_median_from_sorted_data(v, 1, n);
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(x[i] - med);
	gsl_sort(dev, 1, n);
	mad = 1.4826 * gsl_stats_median_from_sorted_data(dev, 1, n);
	for (size_t i = 0; i < n; i++)
		if (fabs(x[i] - med) <= 4 * mad || fabs(x[i] - med) <= 0.1 * fabs(med))
			keep[k++] = x[i];
	hx_summarise(k >= 3 ? keep : x, k >= 3 ? k : n, out);
}

double hx_welch_p(const struct hx_summary *a, const struct hx_summary *b)
{
	double va, vb, se2, t, df;

	if (a->n == 0 || b->n == 0)
		return 1.0;
	va = a->n > 1 ? a->sd * a->sd / (double)a->n : 0.0;
	vb = b->n > 1 ? b->sd * b->sd / (double)b->n : 0.0;
	se2 = va + vb;
	if (se2 <= 0.0)
		return a->mean == b->mean ? 1.0 : 0.0;
	t = fabs(a->mean - b->mean) / sqrt(se2);
	df = se2 * se2;
	df /= (a->n > 1 ? va * va / (double)(a->n - 1) : 0.0) +
	      (b->n > 1 ? vb * vb / (double)(b->n - 1) : 0.0);
	if (!isfinite(df) || df < 1.0)
		df = 1.0;
	return 2.0 * gsl_cdf_tdist_Q(t, df);
}

double hx_failure_p(unsigned k, unsigned n, unsigned k0, unsigned n0)
{
	double p0 = ((double)k0 + 1.0) / ((double)n0 + 2.0);

	if (k == 0 || n == 0)
		return 1.0;
	return gsl_cdf_binomial_Q(k - 1, p0, n);
}

void hx_failure_interval(unsigned k, unsigned n, double *lo, double *hi)
{
	if (n == 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	*lo = k == 0 ? 0.0 : gsl_cdf_beta_Pinv(0.025, (double)k, (double)(n - k + 1));
	*hi = k == n ? 1.0 : gsl_cdf_beta_Pinv(0.975, (double)(k + 1), (double)(n - k));
}

void hx_slope_fit(const double *x, const double *y, size_t n, double y0, struct hx_slope *out)
{
	double lx[HX_MAX_SLOPE_POINTS], ly[HX_MAX_SLOPE_POINTS], cov00, cov01, cov11, ss, t;
	size_t m = 0, distinct = 0;

	out->ok = false;
	out->n = 0;
	for (size_t i = 0; i < n && m < HX_MAX_SLOPE_POINTS; i++) {
		if (!(x[i] > 0) || !(y[i] > 0) || !isfinite(y[i]) || !(y0 > 0))
			continue;
		lx[m] = log(x[i]);
		ly[m] = log(y[i] / y0);
		distinct += m == 0 || lx[m] != lx[0];
		m++;
	}
	if (m < 3 || distinct < 2)
		return;
	gsl_fit_linear(lx, 1, ly, 1, m, &out->a, &out->b, &cov00, &cov01, &cov11, &ss);
	t = gsl_cdf_tdist_Qinv(0.025, (double)(m - 2));
	out->b_lo = out->b - t * sqrt(cov11);
	out->b_hi = out->b + t * sqrt(cov11);
	out->n = m;
	out->ok = isfinite(out->b_lo) && isfinite(out->b_hi);
}

double hx_slope_reach(const struct hx_slope *s, double rel)
{
	if (!s->ok || s->b == 0 || !(rel > -1))
		return NAN;
	return exp((log1p(rel) - s->a) / s->b);
}
