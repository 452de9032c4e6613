/* SPDX-License-Identifier: MIT */
/*
 * hx_symptom: is a point's result a symptom against its baseline? Needs both the plan's
 * threshold (relative bandwidth drop or latency rise) and significance (Welch's t-test), or
 * failed trials (timeouts, completion errors, rules refused) when the plan counts errors.
 * Software fallback (a larger share of rules not_in_hw than at the baseline) names it S1.
 * Classification into the paper's S1..S8 uses only what was measured: the counters, the
 * statuses and which dimension was being varied.
 */
#ifndef HX_SYMPTOM_H
#define HX_SYMPTOM_H

#include <stdbool.h>

#include "generators/gen.h"
#include "harness/hx_plan.h"
#include "harness/hx_trial.h"

struct hx_symptom {
	bool present;
	double effect;   /* relative change of the metric vs baseline (-0.4 = 40% lower) */
	double p_value;
	char kind[16];   /* bw_drop, lat_rise, timeout, errors, sw_fallback, "" */
	bool fallback;   /* larger share of rules in software than at the baseline */
	unsigned failed; /* failed trials */
};

void hx_symptom_judge(const struct hx_plan_thresholds *t, enum gen_metric metric,
		      const struct hx_point_result *base, const struct hx_point_result *at,
		      struct hx_symptom *out);
/* "S1" (software fallback), "S8" (timeouts: RNIC unresponsive), "S4" (rule churn),
 * "S6" (degradation growing with matching masks or flows), else "unclassified". */
const char *hx_symptom_class(const struct hx_symptom *s, const struct gen_dimension *dim);

#endif
