/* SPDX-License-Identifier: MIT */
/*
 * hx_criteria: the plan's qualification criteria ("write bandwidth at 8K flows is at least
 * 90% of baseline"), and the exit status of a campaign: 0 when every criterion passed and no
 * wall lies inside the qualified range, 1 otherwise.
 *
 * The qualified range of a dimension spans its neutral level and every level a criterion
 * names for it (a dimension whose symptoms lie below neutral, such as page_size, has its
 * range below); a wall inside that span is inside the range. (Causes are judged against the same ranges
 * by harness/causal/hx_verdict.c, which owns the final exit status.)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/campaign/hx_campaign.h"

static void criterion_levels(const struct hx_plan *p, const struct hx_plan_criterion *c,
			     struct gen_levels *l)
{
	hx_levels_base(p, c->verb, c->metric, l);
	for (unsigned i = 0; i < c->n_at; i++)
		gen_levels_set(l, c->at_dims[i], c->at_levels[i], NULL);
	gen_levels_repair(l); /* as every phase does: flows raised to fit masks and contexts */
}

static void judge(const struct hx_plan_criterion *c, const struct hx_baseline *b,
		  const struct hx_point_result *res, struct hx_criterion_result *out)
{
	out->measured = true;
	out->baseline = b ? b->r.s.mean : NAN;
	out->value = res->s.mean;
	out->ratio = out->value / out->baseline;
	snprintf(out->status, sizeof(out->status), "%s", res->status);
	if (res->failed || !isfinite(out->ratio)) {
		out->pass = false;
		return;
	}
	out->pass = c->metric == GEN_METRIC_BW ? out->ratio >= c->min_ratio
					       : out->ratio <= c->max_ratio;
}

int hx_phase_criteria(struct hx_runner *r, const struct hx_plan *p, struct hx_outcome *o,
		      struct scn_error *err)
{
	if (p->n_criteria)
		hx_observe_phase(r->observer, "criteria", (unsigned long)p->n_criteria * p->repeats);
	for (unsigned i = 0; i < p->n_criteria; i++) {
		const struct hx_plan_criterion *c = &p->criteria[i];
		struct hx_point_result res;
		struct gen_levels l;
		int rc;

		criterion_levels(p, c, &l);
		rc = hx_point_run(r, &l, "criteria", &res, err);
		if (rc == -EDOM) {
			o->criteria[i].measured = false;
			snprintf(o->criteria[i].status, sizeof(o->criteria[i].status), "infeasible");
			scn_error_clear(err);
			continue;
		}
		if (rc < 0)
			return rc;
		judge(c, hx_outcome_baseline(o, c->verb, c->metric), &res, &o->criteria[i]);
	}
	return 0;
}

/* Neutral level of D in P's dimensions, else D's own. */
static double plan_neutral(const struct hx_plan *p, const struct gen_dimension *d)
{
	const struct hx_plan_dim *pd = hx_plan_find_dim(p, d->name);

	return pd ? pd->neutral : d->neutral;
}

bool hx_in_qualified_range(const struct hx_plan *p, const struct gen_dimension *d, double level)
{
	double n = plan_neutral(p, d), lo = n, hi = n;
	bool named = false;

	for (unsigned i = 0; i < p->n_criteria; i++)
		for (unsigned k = 0; k < p->criteria[i].n_at; k++)
			if (p->criteria[i].at_dims[k] == d) {
				named = true;
				lo = fmin(lo, p->criteria[i].at_levels[k]);
				hi = fmax(hi, p->criteria[i].at_levels[k]);
			}
	return named && level >= lo && level <= hi;
}

/* Mark walls (and slopes reaching the threshold) that lie inside a criterion's range. */
static void mark_in_range(const struct hx_plan *p, struct hx_outcome *o)
{
	for (unsigned w = 0; w < o->n_walls; w++) {
		struct hx_wall *wall = &o->walls[w];

		wall->in_range = (wall->found || wall->slope) &&
				 hx_in_qualified_range(p, wall->dim, wall->level);
	}
}

int hx_baselines_measured(const struct hx_outcome *o, struct scn_error *err)
{
	for (unsigned i = 0; i < o->n_baselines; i++) {
		const struct hx_baseline *b = &o->baselines[i];

		if (b->r.n == 0 || b->r.failed + b->r.unusable < b->r.n)
			continue;
		return scn_error_set(err, SCN_ERR_DEVICE, -ENODATA,
				     "the baseline (%s %s) could not be measured: all %u trials "
				     "failed (%s); nothing can be judged against it, so the plan is "
				     "not qualified: check the testbed",
				     topo_verb_name(b->verb), hx_metric_name(b->metric), b->r.n,
				     b->r.status);
	}
	return 0;
}

int hx_outcome_exit(const struct hx_plan *p, struct hx_outcome *o)
{
	int code = 0;

	mark_in_range(p, o);
	for (unsigned w = 0; w < o->n_walls; w++)
		if (o->walls[w].in_range)
			code = 1;
	for (unsigned i = 0; i < p->n_criteria; i++)
		if (!o->criteria[i].pass)
			code = 1;
	if (o->budget_exhausted)
		code = 1;
	return code;
}

void hx_criterion_row(const struct hx_plan *p, const struct hx_outcome *o, unsigned i,
		      struct res_criterion *row)
{
	const struct hx_plan_criterion *c = &p->criteria[i];
	const struct hx_criterion_result *r = &o->criteria[i];
	bool bw = c->metric == GEN_METRIC_BW;

	memset(row, 0, sizeof(*row));
	row->campaign = o->campaign;
	snprintf(row->name, sizeof(row->name), "%s", c->name);
	snprintf(row->verb, sizeof(row->verb), "%s", topo_verb_name(c->verb));
	snprintf(row->metric, sizeof(row->metric), "%s", hx_metric_name(c->metric));
	snprintf(row->op, sizeof(row->op), "%s", bw ? ">=" : "<=");
	row->required = bw ? c->min_ratio : c->max_ratio;
	row->value = r->value;
	row->baseline = r->baseline;
	row->ratio = r->ratio;
	row->pass = r->pass;
	row->drifted = r->drifted;
	snprintf(row->status, sizeof(row->status), "%s", r->measured ? r->status : "not measured");
}
