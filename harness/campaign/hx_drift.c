/* SPDX-License-Identifier: MIT */
/*
 * hx_drift: the baselines measured again during the campaign (after the wall search, after
 * the criteria, at the end), so that a testbed whose performance moves for reasons of its own
 * (a guest's timer tick, a neighbour's traffic, thermal throttling) cannot pass its drift off
 * as walls and causes. A check is fresh trials of the neutral point (repeat indices from
 * HX_DRIFT_REPEAT + k * HX_MAX_REPEATS, so a resumed campaign finds them in the store);
 * it drifted when it differs from the first measurement beyond the noise (Welch's p <
 * significance) by at least half the plan's threshold, or fails significantly more often
 * (the exact binomial test of hx_failure_p). What a phase decided against a baseline that
 * drifted by the check after it is marked.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/campaign/hx_campaign.h"

void hx_drift_judge(const struct hx_plan *p, const struct hx_baseline *b, struct hx_drift *d)
{
	double thr = b->metric == GEN_METRIC_BW ? p->thresholds.bw_drop : p->thresholds.lat_rise;
	double y0 = b->r.s.mean;

	d->change = d->s.n && y0 > 0 && isfinite(d->s.mean) ? d->s.mean / y0 - 1 : NAN;
	d->p_value = d->s.n ? hx_welch_p(&b->r.s, &d->s) : NAN;
	d->drifted = (isfinite(d->change) && fabs(d->change) >= thr / 2 &&
		      d->p_value < p->thresholds.significance) ||
		     hx_failure_p(d->failed, d->n, b->r.failed, b->r.n) <
			     p->thresholds.significance;
}

const struct hx_drift *hx_outcome_drift(const struct hx_outcome *o, unsigned b, const char *after)
{
	const struct hx_drift *found = NULL;

	for (unsigned i = 0; i < o->n_drift; i++)
		if (o->drift[i].baseline == b && !strcmp(o->drift[i].after, after))
			found = &o->drift[i];
	return found;
}

static void mark(const struct hx_plan *p, struct hx_outcome *o, unsigned b, const char *after)
{
	const struct hx_baseline *base = &o->baselines[b];

	if (!strcmp(after, "walls"))
		for (unsigned i = 0; i < o->n_walls; i++)
			if (o->walls[i].verb == base->verb && o->walls[i].metric == base->metric)
				o->walls[i].drifted = true;
	if (!strcmp(after, "criteria"))
		for (unsigned i = 0; i < p->n_criteria; i++)
			if (p->criteria[i].verb == base->verb && p->criteria[i].metric == base->metric)
				o->criteria[i].drifted = true;
}

int hx_phase_drift(struct hx_runner *r, const struct hx_plan *p, struct hx_outcome *o,
		   const char *after, struct scn_error *err)
{
	unsigned k = o->n_checks;

	if (k >= HX_DRIFT_CHECKS)
		return 0;
	hx_observe_phase(r->observer, "drift", (unsigned long)o->n_baselines * p->repeats);
	for (unsigned b = 0; b < o->n_baselines; b++) {
		struct hx_drift *d = &o->drift[o->n_drift];
		struct hx_point_result res;
		struct gen_levels l;
		int rc;

		hx_levels_base(p, o->baselines[b].verb, o->baselines[b].metric, &l);
		memset(&res, 0, sizeof(res));
		rc = hx_point_extend(r, &l, "drift", HX_DRIFT_REPEAT + (int)k * HX_MAX_REPEATS,
				     p->repeats, &res, err);
		if (rc < 0)
			return rc;
		memset(d, 0, sizeof(*d));
		d->baseline = b;
		d->check = k + 1;
		snprintf(d->after, sizeof(d->after), "%s", after);
		d->s = res.s;
		d->failed = res.failed;
		d->n = res.n;
		hx_drift_judge(p, &o->baselines[b], d);
		o->n_drift++;
		if (d->drifted)
			mark(p, o, b, after);
	}
	o->n_checks++;
	return 0;
}
