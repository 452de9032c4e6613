/* SPDX-License-Identifier: MIT */
/*
 * hx_causal_print: an analysis (harness/causal/hx_causal.h) as tables for people (causes, then
 * the suspects apart with why each is not a cause) and as JSON arrays for programs ("causes"
 * and "suspects"). Reads the analysis record, never changes it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/causal/hx_causal.h"
#include "harness/cli/hx_cli.h"
#include "harness/cli/hx_report.h"
#include "harness/plan/hx_plan.h"

static void cause_line(const struct hx_cause *c, bool suspect, FILE *out)
{
	char members[128], walls[256], ci[40];

	hx_cause_members_text(c, members, sizeof(members));
	hx_cause_walls_text(c, walls, sizeof(walls));
	if (isfinite(c->effect_lo))
		snprintf(ci, sizeof(ci), "[%+.1f%%, %+.1f%%]", 100 * c->effect_lo, 100 * c->effect_hi);
	else /* no effect size: the failures are the evidence */
		snprintf(ci, sizeof(ci), "%u/%u trials", c->failed_with, c->n_with);
	fprintf(out, "  %-5s %-6s %-34s ", topo_verb_name(c->verb), hx_metric_name(c->metric),
		members);
	if (isfinite(c->effect))
		fprintf(out, "%+7.1f%% ", 100 * c->effect);
	else
		fprintf(out, "%8s ", "failed");
	fprintf(out, "%-17s %10.2f ", ci, c->confidence);
	if (suspect)
		fprintf(out, "%s\n", c->why);
	else
		fprintf(out, "%-12s %s%s%s%s%s%s\n", c->class_[0] ? c->class_ : "unclassified", walls,
			c->through[0] ? " (through " : "", c->through[0] ? c->through : "",
			c->through[0] ? ": its points need them past their wall)" : "",
			c->undecided ? " (undecided: more repeats needed)" : "",
			c->in_range ? "  << inside qualified range" : "");
}

void hx_analysis_print(const struct hx_analysis *a, FILE *out)
{
	fprintf(out, "Causes (%s: %lu points, %lu trials, %.3f testbed-hours):\n",
		hx_strategy_name(a->strategy), a->points, a->trials, a->cost_s / 3600.0);
	if (!a->n_causes)
		fprintf(out, "  none\n");
	else
		fprintf(out, "  %-5s %-6s %-34s %8s %-17s %10s %-12s %s\n", "verb", "metric",
			"members", "effect", "95% interval", "confidence", "class",
			"walls (first bad level, last good)");
	for (unsigned i = 0; i < a->n_causes; i++)
		cause_line(&a->causes[i], false, out);
	if (a->n_suspects) {
		fprintf(out, "Suspects (not supported by the evidence; not causes):\n");
		fprintf(out, "  %-5s %-6s %-34s %8s %-17s %10s %s\n", "verb", "metric", "members",
			"effect", "95% interval", "confidence", "why not a cause");
	}
	for (unsigned i = 0; i < a->n_suspects; i++)
		cause_line(&a->suspects[i], true, out);
	if (a->seq.points)
		fprintf(out, "  sequential testing: %lu points needed more repeats (up to %u), %lu "
			"extra trials; %lu still undecided at max_repeats\n", a->seq.points,
			a->seq.max_n, a->seq.trials, a->seq.undecided);
	for (unsigned i = 0; i < a->n_notes; i++)
		fprintf(out, "  note: %s\n", a->notes[i]);
	if (a->budget_exhausted)
		fprintf(out, "  note: the budget ran out before the analysis finished\n");
	if (a->n_causes || a->n_suspects)
		fprintf(out, "%s\n", HX_CAUSE_LEGEND);
}

static struct json_object *num(double x)
{
	return isfinite(x) ? json_object_new_double(x) : NULL;
}

static struct json_object *cause_json(const struct hx_cause *c, bool suspect)
{
	struct json_object *o = json_object_new_object(), *m = json_object_new_array();
	struct json_object *w = json_object_new_array(), *g = json_object_new_array();
	struct json_object *ids = json_object_new_array();

	for (unsigned k = 0; k < c->n_members; k++) {
		json_object_array_add(m, json_object_new_string(c->members[k]->name));
		json_object_array_add(w, num(c->wall[k]));
		json_object_array_add(g, num(c->last_good[k]));
	}
	for (unsigned k = 0; k < c->n_ids; k++) {
		bool seen = false;

		for (unsigned j = 0; j < k && !seen; j++)
			seen = c->ids[j] == c->ids[k];
		if (!seen) /* distinct trials: one trial may back several statements */
			json_object_array_add(ids, json_object_new_int64(c->ids[k]));
	}
	json_object_object_add(o, "verb", json_object_new_string(topo_verb_name(c->verb)));
	json_object_object_add(o, "metric", json_object_new_string(hx_metric_name(c->metric)));
	json_object_object_add(o, "members", m);
	json_object_object_add(o, "walls", w);
	json_object_object_add(o, "last_good", g);
	json_object_object_add(o, "effect", num(c->effect));
	json_object_object_add(o, "effect_lo", num(c->effect_lo));
	json_object_object_add(o, "effect_hi", num(c->effect_hi));
	json_object_object_add(o, "failed", json_object_new_int((int)c->failed_with));
	json_object_object_add(o, "trials", json_object_new_int((int)c->n_with));
	json_object_object_add(o, "confidence", num(c->confidence));
	json_object_object_add(o, "kind", json_object_new_string(c->kind));
	json_object_object_add(o, "class", json_object_new_string(c->class_));
	json_object_object_add(o, "undecided", json_object_new_boolean(c->undecided));
	json_object_object_add(o, "replicated", json_object_new_boolean(c->replicated));
	if (!suspect)
		json_object_object_add(o, "in_range", json_object_new_boolean(c->in_range));
	if (!suspect && c->through[0])
		json_object_object_add(o, "through", json_object_new_string(c->through));
	if (suspect)
		json_object_object_add(o, "why", json_object_new_string(c->why));
	json_object_object_add(o, "trial_ids", ids);
	return o;
}

struct json_object *hx_analysis_json(const struct hx_analysis *a)
{
	struct json_object *arr = json_object_new_array();

	for (unsigned i = 0; i < a->n_causes; i++)
		json_object_array_add(arr, cause_json(&a->causes[i], false));
	return arr;
}

struct json_object *hx_analysis_suspects_json(const struct hx_analysis *a)
{
	struct json_object *arr = json_object_new_array();

	for (unsigned i = 0; i < a->n_suspects; i++)
		json_object_array_add(arr, cause_json(&a->suspects[i], true));
	return arr;
}

struct json_object *hx_seq_json(const struct hx_seq *q)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "points", json_object_new_int64((int64_t)q->points));
	json_object_object_add(o, "extra_trials", json_object_new_int64((int64_t)q->trials));
	json_object_object_add(o, "max_repeats_used", json_object_new_int((int)q->max_n));
	json_object_object_add(o, "undecided", json_object_new_int64((int64_t)q->undecided));
	return o;
}
