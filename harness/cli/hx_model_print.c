/* SPDX-License-Identifier: MIT */
/*
 * hx_model_print: what the model phase measured (plan section `model:`), for people and for
 * programs: per (verb, metric) the inputs its causes named, how many of its design's points
 * have a value, the layouts over them and the levels refinement added; and, when the budget
 * ran out before or inside the phase, which designs it left short. `scalacn fit --inputs
 * causes` models those points; a design with none is fitted from the other phases' points
 * alone, which this says before `fit` does.
 */
#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/cli/hx_report.h"

/* Designs of O with inputs, and how many of them have every planned point. */
static unsigned count_designs(const struct hx_outcome *o, unsigned *whole)
{
	unsigned n = 0;

	*whole = 0;
	for (unsigned b = 0; b < o->n_baselines; b++) {
		const struct hx_model_design *d = &o->model.design[b];

		n += d->n_in > 0;
		*whole += d->n_in > 0 && d->points == d->planned;
	}
	return n;
}

/* Why design D has fewer points with a value than planned: the budget (BUDGET_OUT), or
 * points that could not be built or whose every layout failed. */
static const char *why_short(const struct hx_model_design *d, bool budget_out)
{
	if (budget_out)
		return d->points ? "short: the budget ran out in it"
				 : "none: the budget ran out before it; fit models it from the "
				   "other phases' points";
	return "short: points that could not be built, or whose every layout failed";
}

static void print_design(const struct hx_baseline *bl, const struct hx_model_design *d,
			 bool budget_out, FILE *out)
{
	char inputs[160];

	snprintf(inputs, sizeof(inputs), "%s%s%s", d->inputs[0], d->n_in > 1 ? " x " : "",
		 d->n_in > 1 ? d->inputs[1] : "");
	fprintf(out, "  %-5s %-6s %-48s %4u/%-4u", topo_verb_name(bl->verb),
		hx_metric_name(bl->metric), inputs, d->points, d->planned);
	if (d->points)
		fprintf(out, " %7.1f %7u", (double)d->layouts / d->points, d->refined);
	else
		fprintf(out, " %7s %7s", "-", "-");
	if (d->points < d->planned)
		fprintf(out, "  %s", why_short(d, budget_out));
	fputc('\n', out);
}

void hx_model_summary_print(const struct hx_plan *p, const struct hx_outcome *o, FILE *out)
{
	unsigned whole, n;

	if (!p->model_levels)
		return;
	if (!o->model.ran) {
		fprintf(out, "Model phase: not reached (the budget ran out before it); "
			"`scalacn fit --inputs causes` has only the other phases' points.\n");
		return;
	}
	n = count_designs(o, &whole);
	fprintf(out, "Model phase (for `scalacn fit --inputs causes`): %u of %u designs whole%s\n",
		whole, n, o->model.budget_out ? "; the budget ran out in it" : "");
	if (!n)
		return;
	fprintf(out, "  %-5s %-6s %-48s %9s %7s %7s\n", "verb", "metric", "inputs", "points",
		"layouts", "refined");
	for (unsigned b = 0; b < o->n_baselines; b++)
		if (o->model.design[b].n_in)
			print_design(&o->baselines[b], &o->model.design[b], o->model.budget_out,
				     out);
}

struct json_object *hx_model_summary_json(const struct hx_plan *p, const struct hx_outcome *o)
{
	struct json_object *j, *designs;

	if (!p->model_levels)
		return NULL;
	j = json_object_new_object();
	designs = json_object_new_array();
	json_object_object_add(j, "ran", json_object_new_boolean(o->model.ran));
	json_object_object_add(j, "budget_out", json_object_new_boolean(o->model.budget_out));
	for (unsigned b = 0; o->model.ran && b < o->n_baselines; b++) {
		const struct hx_model_design *d = &o->model.design[b];
		const struct hx_baseline *bl = &o->baselines[b];
		struct json_object *e, *in;

		if (!d->n_in)
			continue;
		e = json_object_new_object();
		in = json_object_new_array();
		for (unsigned k = 0; k < d->n_in; k++)
			json_object_array_add(in, json_object_new_string(d->inputs[k]));
		json_object_object_add(e, "verb", json_object_new_string(topo_verb_name(bl->verb)));
		json_object_object_add(e, "metric",
				       json_object_new_string(hx_metric_name(bl->metric)));
		json_object_object_add(e, "inputs", in);
		json_object_object_add(e, "planned", json_object_new_int64(d->planned));
		json_object_object_add(e, "points", json_object_new_int64(d->points));
		json_object_object_add(e, "layouts", json_object_new_int64((int64_t)d->layouts));
		json_object_object_add(e, "refined", json_object_new_int64(d->refined));
		json_object_array_add(designs, e);
	}
	json_object_object_add(j, "designs", designs);
	return j;
}
