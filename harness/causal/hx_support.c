/* SPDX-License-Identifier: MIT */
/*
 * hx_support: which causes the evidence supports (see hx_causal.h, "Support"). Every
 * strategy's causes pass through here: each is replicated (the point where it was shown and
 * the same point without its members, measured again with fresh trials), then judged by four
 * rules (interval, threshold, confidence, replication); the unsupported ones become suspects
 * with their reasons. A vendor gets only what another run of the same trials would confirm.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"

static struct json_object *num(double x)
{
	return isfinite(x) ? json_object_new_double(x) : NULL;
}

static void add_reason(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_reason(char *why, size_t len, const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	if (n + 2 >= len)
		return;
	if (n)
		n += (size_t)snprintf(why + n, len - n, "; ");
	va_start(ap, fmt);
	vsnprintf(why + n, len - n, fmt, ap);
	va_end(ap);
}

/* Direction of the effect: its interval must exclude zero on the symptom's side; failed
 * trials speak for themselves (significantly more failures with the cause than without).
 * The estimate must also reach SHARE of the plan's threshold (1 for a cause). */
static void effect_reasons(const struct hx_plan *p, const struct hx_cause *c, double share,
			   char *why, size_t len)
{
	bool bw = c->metric == GEN_METRIC_BW;
	double thr = share * (bw ? p->thresholds.bw_drop : p->thresholds.lat_rise);
	double sign = bw ? -1.0 : 1.0;

	if (!isfinite(c->effect)) {
		double fp = hx_failure_p(c->failed_with, c->n_with, c->failed_without,
					 c->n_without);

		if (!(fp < p->thresholds.significance))
			add_reason(why, len, "failures not significant (%u of %u failed, p %.2g)",
				   c->failed_with, c->n_with, fp);
		return;
	}
	if (sign * c->effect <= 0)
		add_reason(why, len, "effect opposite to the symptom (%+.1f%%)", 100 * c->effect);
	else if (!(sign * c->effect_lo > 0 && sign * c->effect_hi > 0))
		add_reason(why, len, "interval spans zero [%+.1f%%, %+.1f%%]", 100 * c->effect_lo,
			   100 * c->effect_hi);
	if (sign * c->effect > 0 && sign * c->effect < thr)
		add_reason(why, len, "effect below threshold (%+.1f%%, threshold %.0f%%)",
			   100 * c->effect, 100 * thr);
}

bool hx_cause_supported(const struct hx_plan *p, const struct hx_cause *c, char *why,
			size_t len)
{
	why[0] = '\0';
	effect_reasons(p, c, 1.0, why, len);
	if (c->confidence < p->min_confidence)
		add_reason(why, len, "survives few orders (conf %.2f < %.2f)", c->confidence,
			   p->min_confidence);
	if (!c->replicated)
		add_reason(why, len, "cure not replicated");
	return why[0] == '\0';
}

/* C's "replicate" evidence: both replicates, the effect again and why it does not count. */
static void replicate_evidence(struct hx_cause *c, const struct hx_baseline *b,
			       const struct hx_point_result *with,
			       const struct hx_point_result *without, const struct hx_cause *again,
			       const char *why)
{
	struct json_object *rep = json_object_new_object();

	json_object_object_add(rep, "with", hx_ev_result(with, &b->r));
	json_object_object_add(rep, "without", hx_ev_result(without, &b->r));
	json_object_object_add(rep, "effect", num(again->effect));
	json_object_object_add(rep, "lo", num(again->effect_lo));
	json_object_object_add(rep, "hi", num(again->effect_hi));
	json_object_object_add(rep, "replicated", json_object_new_boolean(c->replicated));
	if (why[0])
		json_object_object_add(rep, "why", json_object_new_string(why));
	hx_ev_set(c, "replicate", rep);
}

/* Repeats a replicate that did not show the change again grows to: twice the plan's, at
 * least 4 (where a summary leaves a gross outlier out, hx_summarise_robust), at most the
 * plan's max_repeats; 0 when the plan allows no more. */
static unsigned replicate_more(const struct hx_plan *p)
{
	unsigned want = 2 * p->repeats < 4 ? 4 : 2 * p->repeats;

	if (want > p->max_repeats)
		want = p->max_repeats;
	return want > p->repeats ? want : 0;
}

/* Fresh trials at C's point with and without its members: the change the cause makes must
 * show again, its interval excluding zero on the symptom's side and its estimate at least
 * half the plan's threshold (or failures significantly more frequent with it). Half: the
 * size was judged on the first trials, and a replicate of a real cause near the threshold
 * falls below it half of the time, below half of it rarely; a chance difference of a few
 * percent that happens to be significant is not the same effect again. The point without
 * may keep other symptoms: a cure is the change the cause makes, as in the removal walk.
 * A replicate that does not show it gets one second look with more fresh trials
 * (replicate_more): with the plan's 3 repeats one trial that ran 1.5x slow (a gross
 * outlier, 1 in 100 on a real testbed) spreads the interval over zero, and with 6 the
 * robust summary leaves it out. */
static int replicate(struct hx_eval *e, const struct hx_plan *p, const struct hx_baseline *b,
		     struct hx_cause *c, struct scn_error *err)
{
	const struct hx_point_result *with, *without;
	struct gen_levels l = c->shown;
	struct hx_cause again = *c;
	char why[192] = "";
	unsigned more = replicate_more(p);
	int rc;

	for (unsigned k = 0; k < c->n_members; k++)
		gen_levels_set(&l, c->members[k], hx_plan_find_dim(p, c->members[k]->name)->neutral,
			       NULL);
	if ((rc = hx_eval_replicate(e, &c->shown, "replicate", &with, err)) < 0 ||
	    (rc = hx_eval_replicate(e, &l, "replicate", &without, err)) < 0)
		return rc;
	hx_cause_effect(b->metric, with, without, &again);
	effect_reasons(p, &again, 0.5, why, sizeof(why));
	if (why[0] && more) {
		if ((rc = hx_eval_replicate_extend(e, &c->shown, "replicate", more, &with,
						   err)) < 0 ||
		    (rc = hx_eval_replicate_extend(e, &l, "replicate", more, &without, err)) < 0)
			return rc;
		why[0] = '\0';
		hx_cause_effect(b->metric, with, without, &again);
		effect_reasons(p, &again, 0.5, why, sizeof(why));
	}
	c->replicated = !why[0];
	hx_cause_add_ids(c, with);
	hx_cause_add_ids(c, without);
	replicate_evidence(c, b, with, without, &again, why);
	return 0;
}

int hx_analysis_support(struct hx_eval *e, const struct hx_plan *p, const struct hx_outcome *o,
			struct hx_analysis *a, struct scn_error *err)
{
	unsigned kept = 0;
	bool spent = false; /* the budget ran out: what is not replicated yet stays a suspect */

	for (unsigned i = 0; i < a->n_causes; i++) {
		struct hx_cause *c = &a->causes[i];
		const struct hx_baseline *b = hx_outcome_baseline(o, c->verb, c->metric);
		int rc = b && !spent ? replicate(e, p, b, c, err) : 0;

		if (rc == -EDQUOT)
			spent = true;
		else if (rc < 0)
			return rc;
		if (hx_cause_supported(p, c, c->why, sizeof(c->why))) {
			if (kept != i)
				a->causes[kept] = *c;
			kept++;
		} else if (a->n_suspects < HX_MAX_CAUSES) {
			a->suspects[a->n_suspects++] = *c;
		}
	}
	a->n_causes = kept;
	return spent ? -EDQUOT : 0;
}

void hx_analysis_mark_drift(struct hx_analysis *a, const struct hx_plan *p,
			    const struct hx_outcome *o)
{
	unsigned kept = 0;

	(void)p;
	for (unsigned i = 0; i < a->n_causes; i++) {
		struct hx_cause *c = &a->causes[i];
		const struct hx_drift *d = NULL;

		for (unsigned b = 0; b < o->n_baselines && !d; b++)
			if (o->baselines[b].verb == c->verb && o->baselines[b].metric == c->metric)
				d = hx_outcome_drift(o, b, "analysis");
		if (d && d->drifted && a->n_suspects < HX_MAX_CAUSES) {
			add_reason(c->why, sizeof(c->why),
				   "baseline drifted during the analysis (%+.1f%%, p %.2g)",
				   100 * d->change, d->p_value);
			a->suspects[a->n_suspects++] = *c;
			continue;
		}
		if (kept != i)
			a->causes[kept] = *c;
		kept++;
	}
	a->n_causes = kept;
}
