/* SPDX-License-Identifier: MIT */
/*
 * hx_rep_json: the report as one JSON document (report.json, json-c): the numbers behind
 * every section of the page, for scripts. A number not measured is null.
 */
#include <math.h>
#include <stdio.h>

#include <json-c/json.h>

#include "harness/plan/hx_plan.h"
#include "harness/report/hx_rep_priv.h"

static struct json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static void put(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static struct json_object *str(const char *s)
{
	return json_object_new_string(s);
}

static struct json_object *campaign_json(const struct hx_rep *r)
{
	struct json_object *o = json_object_new_object();

	put(o, "id", json_object_new_int64(r->c.id));
	put(o, "status", str(res_campaign_status_name(r->c.status)));
	put(o, "rnic_model", str(r->c.rnic_model));
	put(o, "firmware", str(r->c.firmware));
	put(o, "testbed", str(r->c.testbed));
	put(o, "plan", str(r->c.plan_path));
	put(o, "started", num(r->c.started));
	put(o, "finished", num(r->c.finished));
	put(o, "summary", str(r->c.summary));
	put(o, "trials", json_object_new_int64(r->trials));
	put(o, "testbed_hours", num(r->cost_s / 3600.0));
	put(o, "budget_hours", r->plan ? num(r->plan->budget_hours) : NULL);
	return o;
}

static struct json_object *criteria_json(const struct hx_rep *r)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < r->n_crit; i++) {
		const struct res_criterion *c = &r->crit[i];
		struct json_object *o = json_object_new_object();

		put(o, "name", str(c->name));
		put(o, "verb", str(c->verb));
		put(o, "metric", str(c->metric));
		put(o, "value", num(c->value));
		put(o, "baseline", num(c->baseline));
		put(o, "ratio", num(c->ratio));
		put(o, "op", str(c->op));
		put(o, "required", num(c->required));
		put(o, "pass", json_object_new_boolean(c->pass));
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *levels_json(const struct hx_rep_series *s)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < s->n; i++) {
		struct json_object *o = json_object_new_object();

		put(o, "level", num(s->lv[i].level));
		put(o, "mean", num(s->lv[i].mean));
		put(o, "sd", num(s->lv[i].sd));
		put(o, "n", json_object_new_int((int)s->lv[i].n));
		put(o, "failed", json_object_new_int((int)s->lv[i].failed));
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *walls_json(const struct hx_rep *r)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < r->n_series; i++) {
		const struct hx_rep_series *s = &r->series[i];
		struct json_object *o = json_object_new_object();

		put(o, "verb", str(s->verb));
		put(o, "metric", str(s->metric));
		put(o, "dimension", str(s->dim));
		put(o, "baseline_mean", s->base ? num(s->base->mean) : NULL);
		put(o, "baseline_sd", s->base ? num(s->base->sd) : NULL);
		put(o, "wall_level", s->wall ? num(s->wall->level) : NULL);
		put(o, "last_good", s->wall ? num(s->wall->last_good) : NULL);
		put(o, "effect", s->wall ? num(s->wall->effect) : NULL);
		put(o, "levels", levels_json(s));
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *causes_json(const struct hx_rep *r)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < r->n_causes; i++) {
		const struct hx_rep_cause *c = &r->causes[i];
		struct json_object *o = json_object_new_object();

		put(o, "members", str(c->c.members));
		put(o, "verb", str(c->verb));
		put(o, "metric", str(c->metric));
		put(o, "supported", json_object_new_boolean(c->c.supported));
		put(o, "wall_level", num(c->c.wall_level));
		put(o, "effect", num(c->c.effect));
		put(o, "effect_lo", num(c->c.effect_lo));
		put(o, "effect_hi", num(c->c.effect_hi));
		put(o, "confidence", num(c->c.confidence));
		put(o, "reason", str(c->c.reason));
		put(o, "evidence", c->ev ? json_object_get(c->ev) : NULL);
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *models_json(const struct hx_rep *r)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < r->n_models; i++) {
		const struct hx_rep_model *m = &r->models[i];
		struct json_object *o = json_object_new_object();

		put(o, "id", json_object_new_int64(m->m.id));
		put(o, "verb", str(m->m.verb));
		put(o, "metric", str(m->m.metric));
		put(o, "form", str(m->m.form));
		put(o, "r2", num(m->r2));
		put(o, "cv_max_bias", num(m->bias_max));
		put(o, "reason", str(m->reason));
		put(o, "baseline_form", str(m->base_form));
		put(o, "baseline_r2", num(m->base_r2));
		put(o, "points", json_object_new_int((int)m->n));
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *cost_json(const struct hx_rep *r)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	for (unsigned i = 0; i < r->n_phases; i++) {
		struct json_object *p = json_object_new_object();

		put(p, "phase", str(r->phases[i].phase));
		put(p, "trials", json_object_new_int64(r->phases[i].trials));
		put(p, "testbed_hours", num(r->phases[i].cost_s / 3600.0));
		json_object_array_add(a, p);
	}
	put(o, "phases", a);
	put(o, "bruteforce_points", num(r->factorial_points));
	put(o, "log10_architecture_models", num(r->log10_models));
	return o;
}

int hx_rep_json(const struct hx_rep *r, FILE *f)
{
	struct json_object *root = json_object_new_object(), *notes = json_object_new_array();

	for (unsigned i = 0; i < r->n_notes; i++)
		json_object_array_add(notes, str(r->notes[i]));
	put(root, "scalacn_version", str(SCALACN_VERSION)); /* docs/json.md: every document */
	put(root, "command", str("report"));
	put(root, "campaign", campaign_json(r));
	put(root, "missing", notes);
	put(root, "criteria", criteria_json(r));
	put(root, "walls", walls_json(r));
	put(root, "causes", causes_json(r));
	put(root, "models", models_json(r));
	put(root, "cost", cost_json(r));
	if (r->diff)
		put(root, "diff", hx_diff_json_object(r->diff));
	fprintf(f, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
	json_object_put(root);
	return ferror(f) ? -1 : 0;
}
