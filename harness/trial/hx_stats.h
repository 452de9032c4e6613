/* SPDX-License-Identifier: MIT */
/*
 * hx_stats: summary statistics of repeated trials and the significance test used to call a
 * symptom (Welch's unequal-variance t-test, p-values from GSL's t distribution).
 */
#ifndef HX_STATS_H
#define HX_STATS_H

#include <stddef.h>

#define HX_MAX_REPEATS 100

struct hx_summary {
	size_t n;
	double mean, sd;   /* sd: sample standard deviation (0 when n < 2) */
	double ci95;       /* half-width of the 95% confidence interval of the mean */
};

void hx_summarise(const double *x, size_t n, struct hx_summary *out);

/* Welch's t-test of mean(a) != mean(b). Returns the two-sided p-value (1 when either side
 * has fewer than 2 values and the means are equal; 0 when both variances are zero and the
 * means differ). */
double hx_welch_p(const struct hx_summary *a, const struct hx_summary *b);

#endif
