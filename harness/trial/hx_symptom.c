/* SPDX-License-Identifier: MIT */
/*
 * hx_symptom: symptom decision and S1..S8 classification (see hx_trial.h, "Symptoms").
 *
 * Two kinds of evidence, never mixed: the usable values (a relative change beyond the plan's
 * threshold and significant by Welch's t-test), and failed trials (a failure rate
 * significantly above the baseline's by an exact binomial test). A point whose trials all
 * failed has no effect size (NAN), never -100%.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "harness/trial/hx_trial.h"
#include "harness/trial/hx_stats.h"

/* 95% interval of the relative change AT / BASE: delta method on ln(y / y0), Student's t with
 * the smaller sample's degrees of freedom. */
static void effect_interval(const struct hx_point_result *base, const struct hx_point_result *at,
			    struct hx_symptom *out)
{
	double y = at->s.mean, y0 = base->s.mean, se, t;
	size_t n = at->s.n < base->s.n ? at->s.n : base->s.n;

	out->effect_lo = out->effect_hi = out->effect;
	if (!isfinite(out->effect) || !(y > 0) || !(y0 > 0))
		return;
	se = sqrt((at->s.n ? at->s.sd * at->s.sd / ((double)at->s.n * y * y) : 0) +
		  (base->s.n ? base->s.sd * base->s.sd / ((double)base->s.n * y0 * y0) : 0));
	t = n > 1 ? gsl_cdf_tdist_Qinv(0.025, (double)(n - 1)) : 12.7;
	out->effect_lo = exp(log(y / y0) - t * se) - 1;
	out->effect_hi = exp(log(y / y0) + t * se) - 1;
}

/* Failed trials: the failure rate, its interval and whether it is significantly above the
 * baseline's. Returns true when failures make the symptom. */
/* The bound one decision is taken at: the plan's significance split over the looks of
 * sequential testing (thresholds built by hand, as in tests, have no looks: significance). */
static double alpha_of(const struct hx_plan_thresholds *t)
{
	return t->alpha > 0 ? t->alpha : t->significance;
}

static bool judge_failures(const struct hx_plan_thresholds *t, const struct hx_point_result *base,
			   const struct hx_point_result *at, struct hx_symptom *out)
{
	double fp = hx_failure_p(at->failed, at->n, base->failed, base->n);

	hx_failure_interval(at->failed, at->n, &out->fail_lo, &out->fail_hi);
	if (!t->errors || !at->failed)
		return false;
	if (!(fp < alpha_of(t))) {
		out->undecided = true; /* failures, but not enough of them to tell */
		return false;
	}
	out->present = out->failures = true;
	out->p_value = fp;
	snprintf(out->kind, sizeof(out->kind), "%s",
		 !strcmp(at->status, "timeout")    ? "timeout"
		 : !strcmp(at->status, "unusable") ? "unusable"
						   : "errors");
	return true;
}

void hx_symptom_judge(const struct hx_plan_thresholds *t, enum gen_metric metric,
		      const struct hx_point_result *base, const struct hx_point_result *at,
		      struct hx_symptom *out)
{
	double thr = metric == GEN_METRIC_BW ? -t->bw_drop : t->lat_rise;
	bool beyond;

	memset(out, 0, sizeof(*out));
	out->failed = at->failed;
	out->n = at->n;
	/* a larger share of the rules in software than at the baseline (a software-only
	 * eSwitch, e.g. tc flower on veth, has every rule not_in_hw from the start: share 1) */
	out->fallback = at->sw_share > base->sw_share;
	out->p_value = at->s.n ? hx_welch_p(&base->s, &at->s) : NAN;
	out->effect = base->s.mean > 0 && at->s.n && isfinite(at->s.mean)
			      ? at->s.mean / base->s.mean - 1.0 : NAN;
	effect_interval(base, at, out);
	if (judge_failures(t, base, at, out))
		return;
	out->straddles = isfinite(out->effect) && out->effect_lo < thr && thr < out->effect_hi;
	beyond = isfinite(out->effect) &&
		 (metric == GEN_METRIC_BW ? out->effect <= thr : out->effect >= thr);
	if (beyond && out->p_value < alpha_of(t))
		out->present = true;
	if (beyond && (!out->present || (out->effect_lo < thr && thr < out->effect_hi)))
		out->undecided = true;
	if (out->present)
		snprintf(out->kind, sizeof(out->kind), "%s",
			 out->fallback ? "sw_fallback"
			 : metric == GEN_METRIC_BW ? "bw_drop" : "lat_rise");
}

const char *hx_symptom_class(const struct hx_symptom *s, const struct gen_dimension *dim)
{
	if (!s->present)
		return "";
	if (s->fallback)
		return "S1";
	if (!strcmp(s->kind, "timeout"))
		return "S8";
	if (dim && !strcmp(dim->name, "rule_churn"))
		return "S4";
	if (dim && (strstr(dim->name, "_masks") || !strcmp(dim->name, "flows")))
		return "S6";
	return "unclassified";
}
