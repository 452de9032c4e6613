/* SPDX-License-Identifier: MIT */
/*
 * hx_noise: is the testbed quiet enough for the plan? From each baseline's repeats: the
 * coefficient of variation (sd / mean of the usable values) and the minimum detectable
 * effect of the plan's design, the smallest relative change that R repeats per point can
 * show against R baseline repeats with 80% power at the per-look significance (R: the most
 * a point may get, max_repeats):
 *     MDE = (t(1 - alpha/2, 2R - 2) + t(0.8, 2R - 2)) * cv * sqrt(2 / R)   on ln(y / y0)
 * (the normal-approximation power formula of a two-sample t-test, with Student's t; GSL).
 * When the MDE exceeds the plan's threshold the plan cannot decide its own threshold on this
 * testbed: the campaign says so, with the repeats it would need.
 */
#include <math.h>

#include <gsl/gsl_cdf.h>

#include "harness/campaign/hx_campaign.h"

static double mde_of(double cv, unsigned n, double alpha, enum gen_metric m)
{
	double df = 2.0 * n - 2.0, z;

	if (n < 2 || !isfinite(cv))
		return INFINITY;
	z = (gsl_cdf_tdist_Qinv(alpha / 2, df) + gsl_cdf_tdist_Qinv(0.2, df)) * cv *
	    sqrt(2.0 / n);
	return m == GEN_METRIC_BW ? 1.0 - exp(-z) : exp(z) - 1.0;
}

void hx_noise_of(const struct hx_plan *p, const struct hx_baseline *b, struct hx_noise *out)
{
	const struct hx_summary *s = &b->r.s;
	double alpha = p->thresholds.alpha > 0 ? p->thresholds.alpha : p->thresholds.significance;

	out->threshold = b->metric == GEN_METRIC_BW ? p->thresholds.bw_drop
						    : p->thresholds.lat_rise;
	out->cv = s->n > 1 && s->mean > 0 ? s->sd / s->mean : NAN;
	out->mde = mde_of(out->cv, p->max_repeats, alpha, b->metric); /* the most it may run */
	out->repeats_needed = 0;
	for (unsigned n = 2; n <= 10000 && isfinite(out->cv); n += n < 100 ? 1 : 10)
		if (mde_of(out->cv, n, alpha, b->metric) <= out->threshold) {
			out->repeats_needed = n;
			break;
		}
	out->too_noisy = !(out->mde <= out->threshold);
}
