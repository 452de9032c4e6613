/* SPDX-License-Identifier: MIT */
/*
 * hx_rep_data: one campaign as its report shows it, gathered from the store: the campaign
 * row, its plan (budget, brute-force size; the plan file is read again, and said when it is
 * gone or changed), criteria verdicts, walls, causes and suspects with their evidence, cost
 * per phase, and the notes that say what a half-finished campaign is missing. The walls'
 * series are in hx_rep_series.c, the models in hx_rep_models.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"
#include "harness/plan/hx_plan.h"
#include "harness/report/hx_rep_priv.h"
#include "topology/topo_enum.h"

void hx_rep_note(struct hx_rep *r, const char *fmt, ...)
{
	va_list ap;

	if (r->n_notes >= HX_REP_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->n_notes++], sizeof(r->notes[0]), fmt, ap);
	va_end(ap);
}

struct sym_ctx {
	struct hx_rep *r;
	struct res_symptom *all;
	unsigned n, cap;
};

static int on_symptom(const struct res_symptom *s, void *ctx)
{
	struct sym_ctx *c = ctx;

	if (c->n < c->cap)
		c->all[c->n++] = *s;
	if (s->point > 0 && c->r->n_walls < HX_REP_MAX_WALLS)
		c->r->walls[c->r->n_walls++] = *s;
	return 0;
}

static int on_cause(const struct res_cause *cs, void *ctx)
{
	struct sym_ctx *c = ctx;
	struct hx_rep_cause *rc;

	if (c->r->n_causes >= HX_REP_MAX_CAUSES)
		return 0;
	rc = &c->r->causes[c->r->n_causes++];
	memset(rc, 0, sizeof(*rc));
	rc->c = *cs;
	for (unsigned i = 0; i < c->n; i++) {
		if (c->all[i].id != cs->symptom)
			continue;
		snprintf(rc->verb, sizeof(rc->verb), "%s", c->all[i].verb);
		snprintf(rc->class_, sizeof(rc->class_), "%s", c->all[i].class_);
		hx_rep_symptom_metric(&c->all[i], rc->metric, sizeof(rc->metric));
	}
	return 0;
}

static int load_evidence(struct res_db *db, struct hx_rep *r, struct scn_error *err)
{
	for (unsigned i = 0; i < r->n_causes; i++) {
		char *text = NULL;
		int rc = res_cause_evidence(db, r->causes[i].c.id, &text, err);

		if (rc)
			return rc;
		r->causes[i].ev = json_tokener_parse(text);
		free(text);
	}
	return 0;
}

static int load_analysis(struct res_db *db, struct hx_rep *r, struct scn_error *err)
{
	struct sym_ctx c = { .r = r, .cap = 4 * HX_REP_MAX_WALLS };
	int rc;

	c.all = calloc(c.cap, sizeof(*c.all));
	if (!c.all)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "report: out of memory");
	rc = res_symptom_each(db, r->c.id, on_symptom, &c, err);
	if (rc == 0)
		rc = res_cause_each(db, r->c.id, on_cause, &c, err);
	free(c.all);
	return rc ? rc : load_evidence(db, r, err);
}

static int on_criterion(const struct res_criterion *c, void *ctx)
{
	struct hx_rep *r = ctx;

	if (r->n_crit < HX_REP_MAX_CRITERIA)
		r->crit[r->n_crit++] = *c;
	return 0;
}

static int on_phase(const char *phase, int64_t trials, double cost_s, void *ctx)
{
	struct hx_rep *r = ctx;
	struct hx_rep_phase *p;

	if (r->n_phases >= HX_REP_MAX_PHASES)
		return 0;
	p = &r->phases[r->n_phases++];
	snprintf(p->phase, sizeof(p->phase), "%s", phase);
	p->trials = trials;
	p->cost_s = cost_s;
	return 0;
}

/* The full factorial of the plan's dimensions (neutral included): what brute force asks. */
static double factorial_points(const struct hx_plan *p)
{
	double n = 1, axis[HX_PLAN_MAX_LEVELS + 1];

	for (unsigned i = 0; i < p->n_dims; i++)
		n *= hx_causal_axis(&p->dims[i], axis);
	return n * p->n_verbs * p->n_metrics;
}

static void load_plan(struct hx_rep *r)
{
	struct scn_error e = { 0 };
	char why[256];

	r->log10_models = r->factorial_points = NAN;
	if (hx_plan_load(r->c.plan_path, &r->plan, &e) < 0) {
		snprintf(r->plan_note, sizeof(r->plan_note), "the plan file cannot be read now "
			 "(%.200s): the budget and the size of the space are not shown", e.message);
		hx_rep_note(r, "%s", r->plan_note);
		return;
	}
	if (hx_provenance_changed(&r->c, false, why, sizeof(why)))
		snprintf(r->plan_note, sizeof(r->plan_note), "the plan file %s: its budget and "
			 "space are as the file says now", why);
	r->log10_models = topo_space_log10_size(&r->plan->space);
	r->factorial_points = factorial_points(r->plan);
}

static void missing_notes(struct hx_rep *r)
{
	if (r->c.status != RES_DONE)
		hx_rep_note(r, "the campaign is %s, not done: what it had not reached is missing "
			    "below", res_campaign_status_name(r->c.status));
	if (!r->n_crit)
		hx_rep_note(r, "no criterion verdict is stored (the campaign stopped before its "
			    "criteria, or ran before schema 4)");
	if (!r->n_walls && r->c.status != RES_DONE)
		hx_rep_note(r, "no wall is stored: the wall search did not finish");
	if (!r->n_causes && r->c.status != RES_DONE)
		hx_rep_note(r, "no cause is stored: the causal analysis did not run");
	if (!r->n_models)
		hx_rep_note(r, "no model was fitted on this campaign's trials ('scalacn fit')");
}

int hx_rep_load(struct res_db *db, int64_t id, struct hx_rep *r, struct scn_error *err)
{
	int rc;

	memset(r, 0, sizeof(*r));
	rc = res_campaign_get(db, id, &r->c, err);
	if (rc == 0)
		rc = res_criterion_each(db, id, on_criterion, r, err);
	if (rc == 0)
		rc = load_analysis(db, r, err);
	if (rc == 0)
		rc = res_phase_each(db, id, on_phase, r, err);
	if (rc == 0)
		rc = res_trial_count(db, id, &r->trials, &r->cost_s, err);
	if (rc == 0)
		rc = hx_rep_series_load(db, r, err);
	if (rc == 0)
		rc = hx_rep_models_load(db, r, err);
	if (rc)
		return rc;
	load_plan(r);
	missing_notes(r);
	return 0;
}

void hx_rep_free(struct hx_rep *r)
{
	for (unsigned i = 0; i < r->n_causes; i++)
		json_object_put(r->causes[i].ev);
	hx_plan_free(r->plan);
	r->plan = NULL;
	r->n_causes = 0;
}
