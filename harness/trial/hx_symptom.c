/* SPDX-License-Identifier: MIT */
/*
 * hx_symptom: symptom decision and S1..S8 classification (see hx_symptom.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/trial/hx_trial.h"
#include "harness/trial/hx_stats.h"

void hx_symptom_judge(const struct hx_plan_thresholds *t, enum gen_metric metric,
		      const struct hx_point_result *base, const struct hx_point_result *at,
		      struct hx_symptom *out)
{
	memset(out, 0, sizeof(*out));
	out->failed = at->failed;
	/* a larger share of the rules in software than at the baseline (a software-only
	 * eSwitch, e.g. tc flower on veth, has every rule not_in_hw from the start: share 1) */
	out->fallback = at->sw_share > base->sw_share;
	out->p_value = hx_welch_p(&base->s, &at->s);
	if (base->s.mean > 0 && isfinite(at->s.mean))
		out->effect = at->s.mean / base->s.mean - 1.0;
	else
		out->effect = metric == GEN_METRIC_BW ? -1.0 : NAN;
	if (at->failed && t->errors) {
		out->present = true;
		snprintf(out->kind, sizeof(out->kind), "%s",
			 !strcmp(at->status, "timeout") ? "timeout" : "errors");
		return;
	}
	if (metric == GEN_METRIC_BW && -out->effect >= t->bw_drop &&
	    out->p_value < t->significance)
		out->present = true;
	if (metric == GEN_METRIC_LAT && out->effect >= t->lat_rise &&
	    out->p_value < t->significance)
		out->present = true;
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
