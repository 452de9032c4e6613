/* SPDX-License-Identifier: MIT */
/*
 * hx_stats: summary statistics of repeated trials and the significance test used to call a
 * symptom (Welch's unequal-variance t-test, p-values from GSL's t distribution), and the
 * statistics of failed trials (an exact binomial test and the Clopper-Pearson interval), and
 * the log-log slope of a metric against a level.
 */
#ifndef HX_STATS_H
#define HX_STATS_H

#include <stdbool.h>
#include <stddef.h>

#define HX_MAX_REPEATS 100
#define HX_MAX_SLOPE_POINTS 4096

struct hx_summary {
	size_t n;
	double mean, sd;   /* sd: sample standard deviation (0 when n < 2) */
	double ci95;       /* half-width of the 95% confidence interval of the mean */
};

void hx_summarise(const double *x, size_t n, struct hx_summary *out);
/* hx_summarise without gross outliers: with 4 or more values, those farther than 4 MADs and
 * 10% from the median are left out (at least 3 values kept): one trial in a hundred that runs
 * 1.5x slow must not decide a symptom, nor make a baseline look noisy. X is not changed. */
void hx_summarise_robust(const double *x, size_t n, struct hx_summary *out);

/* Welch's t-test of mean(a) != mean(b). Returns the two-sided p-value (1 when either side
 * has fewer than 2 values and the means are equal; 0 when both variances are zero and the
 * means differ). */
double hx_welch_p(const struct hx_summary *a, const struct hx_summary *b);

/* Failed trials as evidence of their own kind: K of N trials failed at a point, K0 of N0 at
 * its reference (the baseline, or the point without a cause). One-sided exact binomial test
 * of "fails more often than the reference": P(X >= K) for X ~ Binomial(N, p0), where p0 is
 * the reference's failure rate by Laplace's rule of succession, (K0 + 1) / (N0 + 2), so that a
 * clean reference of a few trials is not taken as a failure rate of zero (one failure in
 * three against a clean baseline of three: p = 0.49). 1 when K is 0. */
double hx_failure_p(unsigned k, unsigned n, unsigned k0, unsigned n0);
/* Exact (Clopper-Pearson) 95% interval of the failure rate K / N (0, 1 when N is 0). */
void hx_failure_interval(unsigned k, unsigned n, double *lo, double *hi);

/* A slope: ordinary least squares of ln(y / y0) on ln(x) over N pairs (GSL gsl_fit_linear),
 * so b is an elasticity and 2^b - 1 the relative change per doubling of x. */
struct hx_slope {
	bool ok;            /* at least 3 pairs at 2 or more distinct x > 0 */
	double a, b;        /* ln(y / y0) = a + b ln x */
	double b_lo, b_hi;  /* 95% interval of b (Student's t, n - 2 degrees of freedom) */
	size_t n;
};
void hx_slope_fit(const double *x, const double *y, size_t n, double y0, struct hx_slope *out);
/* The x where the fitted line reaches the relative change REL (-0.1: 10% lower), NAN when
 * the slope is flat. */
double hx_slope_reach(const struct hx_slope *s, double rel);

#endif
