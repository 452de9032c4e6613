/* SPDX-License-Identifier: MIT */
/*
 * hx_rep_doc_more: the report's causes (table, suspects apart, per cause its sensitivity
 * chart and the outcome of each removal order, from the evidence the analysis stored),
 * models (quality, the form chosen and why, the baseline regression, curve and residual
 * plots) and diff sections, through an emitter (struct hx_emit).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/report/hx_rep_priv.h"

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static void cause_row(const struct hx_rep_cause *c, unsigned idx, struct hx_emit *e)
{
	char cells[7][192];

	snprintf(cells[0], 192, "%u", idx);
	snprintf(cells[1], 192, "%.180s", c->c.members);
	snprintf(cells[2], 192, "%s %s", c->verb, c->metric);
	snprintf(cells[3], 192, "%g", c->c.wall_level);
	snprintf(cells[4], 192, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * c->c.effect,
		 100 * c->c.effect_lo, 100 * c->c.effect_hi);
	snprintf(cells[5], 192, "%.2f", c->c.confidence);
	snprintf(cells[6], 192, "%.180s", c->c.supported ? c->class_ : c->c.reason);
	e->row(e, 7, cells);
}

static void cause_tables(const struct hx_rep *r, struct hx_emit *e)
{
	static const char *const head[] = { "#", "members", "verb metric", "wall level",
					    "effect [95% interval]", "confidence", "class" };
	static const char *const shead[] = { "#", "members", "verb metric", "wall level",
					     "effect [95% interval]", "confidence", "why a suspect" };
	for (int supported = 1; supported >= 0; supported--) {
		unsigned n = 0;

		e->heading(e, supported ? "Causes" : "Suspects");
		for (unsigned i = 0; i < r->n_causes; i++) {
			if (r->causes[i].c.supported != (bool)supported)
				continue;
			if (!n++)
				e->table(e, 7, supported ? head : shead);
			cause_row(&r->causes[i], i + 1, e);
		}
		if (n)
			e->table_end(e);
		else
			e->para(e, "", supported ? "No cause is supported by the evidence."
						 : "No suspect.");
	}
}

static void names(struct json_object *a, char *buf, size_t len)
{
	size_t n = a ? json_object_array_length(a) : 0, k = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && k < len; i++)
		k += snprintf(buf + k, len - k, "%s%s", i ? ", " : "",
			      json_object_get_string(json_object_array_get_idx(a, i)));
	if (!n)
		snprintf(buf, len, "none");
}

static void step_text(struct json_object *st, const char *unit, char *buf, size_t len)
{
	double mean = json_object_get_double(get(st, "mean"));
	double vs = json_object_get_double(get(st, "vs_baseline"));

	snprintf(buf, len, "remove %s: %s (%.4g %s, %+.1f%% vs baseline, %d trials)",
		 json_object_get_string(get(st, "remove")), json_object_get_string(get(st, "result")),
		 mean, unit, 100 * vs, json_object_get_int(get(st, "n")));
}

static void removal_orders(const struct hx_rep_cause *c, struct hx_emit *e)
{
	static const char *const head[] = { "order", "removals", "outcome per removal", "kept" };
	struct json_object *orders = get(c->ev, "orders");
	size_t n = orders ? json_object_array_length(orders) : 0;
	char cells[4][192];

	if (!n) {
		e->para(e, "missing", "No removal order is stored for it.");
		return;
	}
	e->table(e, 4, head);
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(orders, i), *steps = get(o, "steps");
		size_t ns = steps ? json_object_array_length(steps) : 0, k = 0;

		snprintf(cells[0], 192, "%zu", i + 1);
		names(get(o, "order"), cells[1], 192);
		cells[2][0] = 0;
		for (size_t s = 0; s < ns && k < 192; s++) {
			char step[160];

			step_text(json_object_array_get_idx(steps, s), hx_rep_unit(c->metric), step,
				  sizeof(step));
			k += snprintf(cells[2] + k, 192 - k, "%s%s", s ? "; " : "", step);
		}
		names(get(o, "kept"), cells[3], 192);
		e->row(e, 4, cells);
	}
	e->table_end(e);
}

void hx_rep_doc_causes(const struct hx_rep *r, struct hx_emit *e)
{
	char text[256];

	e->section(e, "causes", "Causes");
	cause_tables(r, e);
	for (unsigned i = 0; i < r->n_causes; i++) {
		const struct hx_rep_cause *c = &r->causes[i];

		snprintf(text, sizeof(text), "%s %u: %.200s (%s %s)", c->c.supported ? "Cause" : "Suspect",
			 i + 1, c->c.members, c->verb, c->metric);
		e->heading(e, text);
		if (c->image[0])
			e->image(e, c->image, "normalised sensitivity per dimension at the stress "
				 "point, with its 95% interval (orange: a candidate)");
		else
			e->para(e, "missing", "No sensitivity is stored for it.");
		removal_orders(c, e);
	}
	e->section_end(e);
}

static void model_table(const struct hx_rep_model *m, struct hx_emit *e)
{
	static const char *const head[] = { "", "" };
	char cells[2][192];

	e->table(e, 2, head);
#define KV(k, ...) do { snprintf(cells[0], 192, "%s", k); snprintf(cells[1], 192, __VA_ARGS__); \
		e->row(e, 2, cells); } while (0)
	KV("model", "#%lld %s, inputs %s, %s", (long long)m->m.id, m->m.form, m->m.inputs,
	   m->m.valid ? "valid" : "not valid");
	KV("R^2", "%.4f (RMSE %.4g %s)", m->r2, m->rmse, hx_rep_unit(m->m.metric));
	KV("held-out bias", "max %.2f%%, mean %.2f%%", 100 * m->bias_max, 100 * m->bias_mean);
	KV("why this form", "%.180s", m->reason[0] ? m->reason : "not stored");
	KV("baseline regression", "%s: R^2 %.4f (RMSE %.4g)", m->base_form[0] ? m->base_form : "none",
	   m->base_r2, m->base_rmse);
	KV("measured points", "%u", m->n);
#undef KV
	e->table_end(e);
}

void hx_rep_doc_models(const struct hx_rep *r, struct hx_emit *e)
{
	char text[192];

	e->section(e, "models", "Models");
	if (!r->n_models)
		hx_rep_para(e, "missing", "No model was fitted on this campaign's trials: run "
			    "'scalacn fit --db DB' and make the report again.");
	for (unsigned i = 0; i < r->n_models; i++) {
		const struct hx_rep_model *m = &r->models[i];

		snprintf(text, sizeof(text), "%s %s on %s", m->m.verb, m->m.metric, m->m.rnic_model);
		e->heading(e, text);
		model_table(m, e);
		if (m->note[0])
			e->para(e, "missing", m->note);
		if (m->image[0])
			e->image(e, m->image, m->vary == 2 ? "predicted against measured (blue: the "
				 "model, green: the baseline regression; grey: equality)"
				 : "the fitted curve (blue) and the baseline regression (green, "
				 "dashed) against the measured points (black)");
		if (m->resid_image[0])
			e->image(e, m->resid_image, "residuals: measured minus predicted, per point");
	}
	e->section_end(e);
}

void hx_rep_doc_diff(const struct hx_rep *r, struct hx_emit *e)
{
	static const char *const head[] = { "change", "what", "baseline campaign", "this campaign" };
	char cells[4][192];
	const struct hx_diff *d = r->diff;

	e->section(e, "diff", "Against the baseline campaign");
	hx_rep_para(e, "", "%s against %s: %u walls, %u causes, %u criteria, %u models compared.",
		    d->b_name, d->a_name, d->walls, d->causes, d->criteria, d->models);
	if (!d->n)
		e->para(e, "", "Nothing changed.");
	else
		e->table(e, 4, head);
	for (unsigned i = 0; i < d->n; i++) {
		snprintf(cells[0], 192, "%s%s", hx_diff_kind_name(d->rows[i].kind),
			 d->rows[i].gate ? "" : " (within noise)");
		snprintf(cells[1], 192, "%s", d->rows[i].what);
		snprintf(cells[2], 192, "%s", d->rows[i].a[0] ? d->rows[i].a : "-");
		snprintf(cells[3], 192, "%s", d->rows[i].b[0] ? d->rows[i].b : "-");
		e->row(e, 4, cells);
	}
	if (d->n)
		e->table_end(e);
	e->section_end(e);
}
