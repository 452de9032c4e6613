/* SPDX-License-Identifier: MIT */
/*
 * hx_rep_doc: the report's summary, walls and search cost sections, written once for every
 * page format through an emitter (struct hx_emit). The causes, models and diff sections are
 * in hx_rep_doc_more.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "harness/plan/hx_plan.h"
#include "harness/report/hx_rep_priv.h"

void hx_rep_para(struct hx_emit *e, const char *cls, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	e->para(e, cls, text);
}

static void kv(struct hx_emit *e, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void kv(struct hx_emit *e, const char *key, const char *fmt, ...)
{
	char cells[2][192];
	va_list ap;

	snprintf(cells[0], sizeof(cells[0]), "%s", key);
	va_start(ap, fmt);
	vsnprintf(cells[1], sizeof(cells[1]), fmt, ap);
	va_end(ap);
	e->row(e, 2, cells);
}

static void budget(const struct hx_rep *r, struct hx_emit *e)
{
	double h = r->cost_s / 3600.0;

	if (r->plan)
		kv(e, "testbed-hours", "%.3f of a budget of %g (%.1f%%)", h, r->plan->budget_hours,
		   100.0 * h / r->plan->budget_hours);
	else
		kv(e, "testbed-hours", "%.3f (budget unknown: the plan cannot be read)", h);
}

static void summary_table(const struct hx_rep *r, struct hx_emit *e)
{
	static const char *const head[] = { "", "" };
	char t0[40], t1[40];
	const struct res_campaign *c = &r->c;

	e->table(e, 2, head);
	kv(e, "RNIC model", "%s", c->rnic_model);
	kv(e, "firmware", "%s", c->firmware[0] ? c->firmware : "unknown");
	kv(e, "testbed", "%s (%s)", c->testbed, c->testbed_identity);
	kv(e, "plan", "%s%s%s", r->plan ? r->plan->name : "", r->plan ? ": " : "", c->plan_path);
	kv(e, "campaign", "%lld, %s, seed %llu, scalacn %s", (long long)c->id,
	   res_campaign_status_name(c->status), (unsigned long long)c->seed, c->tool_version);
	kv(e, "dates", "started %s, finished %s", hx_rep_time(c->started, t0, sizeof(t0)),
	   hx_rep_time(c->finished, t1, sizeof(t1)));
	kv(e, "trials stored", "%lld (a trial another phase asked for again is stored once)",
	   (long long)r->trials);
	budget(r, e);
	kv(e, "result", "%s", c->summary[0] ? c->summary : "none yet");
	e->table_end(e);
}

static void criteria_table(const struct hx_rep *r, struct hx_emit *e)
{
	static const char *const head[] = { "criterion", "verb", "metric", "measured",
					    "baseline", "ratio", "required", "status", "verdict" };
	char cells[9][192];

	e->heading(e, "Criteria");
	if (!r->n_crit) {
		e->para(e, "missing", "No criterion verdict is stored for this campaign.");
		return;
	}
	e->table(e, 9, head);
	for (unsigned i = 0; i < r->n_crit; i++) {
		const struct res_criterion *c = &r->crit[i];

		snprintf(cells[0], 192, "%s", c->name);
		snprintf(cells[1], 192, "%s", c->verb);
		snprintf(cells[2], 192, "%s", c->metric);
		snprintf(cells[3], 192, "%.5g %s", c->value, hx_rep_unit(c->metric));
		snprintf(cells[4], 192, "%.5g %s", c->baseline, hx_rep_unit(c->metric));
		snprintf(cells[5], 192, "%.3f", c->ratio);
		snprintf(cells[6], 192, "%s %.3f", c->op, c->required);
		snprintf(cells[7], 192, "%s%s", c->status, c->drifted ? ", baseline drifted" : "");
		snprintf(cells[8], 192, "%s", c->pass ? "PASS" : "FAIL");
		e->row(e, 9, cells);
	}
	e->table_end(e);
}

void hx_rep_doc_summary(const struct hx_rep *r, struct hx_emit *e)
{
	e->section(e, "summary", "Summary");
	summary_table(r, e);
	for (unsigned i = 0; i < r->n_notes; i++)
		hx_rep_para(e, "missing", "Missing: %s.", r->notes[i]);
	if (r->plan_note[0] && r->plan)
		hx_rep_para(e, "note", "Note: %s.", r->plan_note);
	criteria_table(r, e);
	e->section_end(e);
}

static void wall_row(const struct res_symptom *w, struct hx_emit *e)
{
	char cells[8][192], metric[8];

	hx_rep_symptom_metric(w, metric, sizeof(metric));
	snprintf(cells[0], 192, "%s", w->dimension);
	snprintf(cells[1], 192, "%s %s", w->verb, metric);
	snprintf(cells[2], 192, "%g", w->level);
	snprintf(cells[3], 192, "%g", w->last_good);
	snprintf(cells[4], 192, "%+.1f%%", 100 * w->effect);
	snprintf(cells[5], 192, "%.2g", w->p_value);
	snprintf(cells[6], 192, "%s %s", w->class_, w->kind);
	snprintf(cells[7], 192, "%.180s", w->detail);
	e->row(e, 8, cells);
}

static void series_caption(const struct hx_rep_series *s, bool done, char *buf, size_t len)
{
	const struct hx_rep_stat *b = s->base;
	int n = snprintf(buf, len, "%s %s against %s: mean of the repeats with +-1 sd bars; grey "
			 "band: baseline %.4g %s +-2 sd", s->verb, s->metric, s->dim,
			 b ? b->mean : NAN, hx_rep_unit(s->metric));

	if (n > 0 && (size_t)n < len && s->wall)
		snprintf(buf + n, len - n, "; red: the wall at %g (last good %g, %+.1f%%, %s)",
			 s->wall->level, s->wall->last_good, 100 * s->wall->effect, s->wall->class_);
	else if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, done ? "; no wall along it"
						: "; no wall stored (the search did not finish)");
}

void hx_rep_doc_walls(const struct hx_rep *r, struct hx_emit *e)
{
	static const char *const head[] = { "dimension", "verb metric", "wall at", "last good",
					    "effect", "p", "class", "detail" };
	char caption[512];

	e->section(e, "walls", "Walls");
	if (r->n_walls) {
		e->table(e, 8, head);
		for (unsigned i = 0; i < r->n_walls; i++)
			wall_row(&r->walls[i], e);
		e->table_end(e);
	} else {
		e->para(e, "missing", r->c.status == RES_DONE ? "No wall was found."
				      : "No wall is stored: the wall search did not finish.");
	}
	for (unsigned i = 0; i < r->n_series; i++) {
		series_caption(&r->series[i], r->c.status == RES_DONE, caption, sizeof(caption));
		e->image(e, r->series[i].image, caption);
	}
	if (!r->n_series)
		e->para(e, "missing", "No sweep was measured: nothing to plot.");
	e->section_end(e);
}

static void brute_force(const struct hx_rep *r, struct hx_emit *e)
{
	double per_trial = r->trials ? r->cost_s / (double)r->trials : NAN;

	if (!r->plan) {
		e->para(e, "missing", "The size of the space is unknown: the plan cannot be read.");
		return;
	}
	hx_rep_para(e, "", "Brute force: %.4g points (the full factorial of the plan's %u "
		    "dimensions, neutral levels included, per verb and metric), %.4g trials at %u "
		    "repeats, about %.4g testbed-hours at this campaign's %.3g s per trial; "
		    "architecture models of the component space: 10^%.2f. This campaign: %lld "
		    "trials, %.3f testbed-hours (%.3g%% of the brute-force trials).",
		    r->factorial_points, r->plan->n_dims, r->factorial_points * r->plan->repeats,
		    r->plan->repeats, r->factorial_points * r->plan->repeats * per_trial / 3600.0,
		    per_trial, r->log10_models, (long long)r->trials, r->cost_s / 3600.0,
		    100.0 * (double)r->trials / (r->factorial_points * r->plan->repeats));
}

void hx_rep_doc_cost(const struct hx_rep *r, struct hx_emit *e)
{
	static const char *const head[] = { "phase", "trials", "testbed-hours", "share" };
	char cells[4][192];

	e->section(e, "cost", "Search cost");
	e->table(e, 4, head);
	for (unsigned i = 0; i < r->n_phases; i++) {
		const struct hx_rep_phase *p = &r->phases[i];

		snprintf(cells[0], 192, "%s", p->phase);
		snprintf(cells[1], 192, "%lld", (long long)p->trials);
		snprintf(cells[2], 192, "%.4f", p->cost_s / 3600.0);
		snprintf(cells[3], 192, "%.1f%%", r->cost_s > 0 ? 100 * p->cost_s / r->cost_s : 0);
		e->row(e, 4, cells);
	}
	snprintf(cells[0], 192, "total");
	snprintf(cells[1], 192, "%lld", (long long)r->trials);
	snprintf(cells[2], 192, "%.4f", r->cost_s / 3600.0);
	snprintf(cells[3], 192, "100%%");
	e->row(e, 4, cells);
	e->table_end(e);
	brute_force(r, e);
	e->section_end(e);
}

void hx_rep_doc(const struct hx_rep *r, struct hx_emit *e)
{
	hx_rep_doc_summary(r, e);
	hx_rep_doc_walls(r, e);
	hx_rep_doc_causes(r, e);
	hx_rep_doc_models(r, e);
	hx_rep_doc_cost(r, e);
	if (r->diff)
		hx_rep_doc_diff(r, e);
}
