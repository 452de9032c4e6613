/* SPDX-License-Identifier: MIT */
/*
 * hx_outcome_print: the campaign outcome for people (text) and for programs (JSON).
 * The JSON's result part holds only what the store can reproduce, so an interrupted-and-
 * resumed campaign prints exactly the same result as an uninterrupted one; what the run
 * spent goes under "accounting".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/cli/hx_cli.h"
#include "harness/cli/hx_report.h"
#include "harness/plan/hx_plan.h"
#include "testbeds/tb.h"

static const char *metric_name(enum gen_metric m)
{
	return m == GEN_METRIC_LAT ? "lat" : "bw";
}

static const char *metric_unit(enum gen_metric m)
{
	return m == GEN_METRIC_LAT ? "us" : "Gb/s";
}

static void print_baselines(const struct hx_outcome *o, FILE *out)
{
	fprintf(out, "Baseline (neutral point):\n");
	for (unsigned i = 0; i < o->n_baselines; i++) {
		const struct hx_baseline *b = &o->baselines[i];

		unsigned usable = b->r.n - b->r.failed - b->r.unusable;
		char left_out[48] = "";

		if (usable > b->r.s.n) /* hx_summarise_robust left gross outliers out */
			snprintf(left_out, sizeof(left_out), ", %zu outlier%s left out",
				 usable - b->r.s.n, usable - b->r.s.n > 1 ? "s" : "");
		fprintf(out, "  %-5s %-3s %10.3f %s +- %.3f (%u repeats%s, cv %.1f%%)\n",
			topo_verb_name(b->verb), metric_name(b->metric), b->r.s.mean,
			metric_unit(b->metric), b->r.s.ci95, b->r.n, left_out,
			100 * o->noise[i].cv);
	}
}

/* A baseline too noisy for the plan's thresholds: said before any wall or cause. */
static void print_noise(const struct hx_plan *p, const struct hx_outcome *o, FILE *out)
{
	for (unsigned i = 0; i < o->n_baselines; i++) {
		const struct hx_noise *n = &o->noise[i];
		char need[64];

		if (!n->too_noisy)
			continue;
		if (n->repeats_needed)
			snprintf(need, sizeof(need), "about %u repeats per point", n->repeats_needed);
		else
			snprintf(need, sizeof(need), "more repeats than any campaign can run");
		fprintf(out, "Warning: the testbed is too noisy for this plan: %s %s varies by cv "
			"%.1f%% between repeats; with %u repeats the smallest change it can show is "
			"%.0f%% (threshold %.0f%%): %s would be needed (repeats or max_repeats)\n",
			topo_verb_name(o->baselines[i].verb), metric_name(o->baselines[i].metric),
			100 * n->cv, p->max_repeats, 100 * n->mde, 100 * n->threshold, need);
	}
}

static void print_seq(const char *what, const struct hx_plan *p, const struct hx_seq *q,
		      FILE *out)
{
	if (p->max_repeats <= p->repeats)
		return;
	fprintf(out, "%s%lu points needed more repeats than %u (up to %u of max_repeats %u), "
		"%lu extra trials; %lu still undecided at max_repeats\n", what, q->points,
		p->repeats, q->max_n, p->max_repeats, q->trials, q->undecided);
}

static void print_enum(const struct hx_outcome *o, FILE *out)
{
	const struct topo_enum_stats *e = &o->enum_stats;

	char n[40];

	fprintf(out, "Architecture models: brute force 10^%.2f, valid %s; models pruned, by reason:",
		e->log10_bruteforce, hx_thousands((double)e->valid, n, sizeof(n)));
	for (int r = 1; r < TOPO_R_COUNT; r++)
		if (e->pruned[r] > 0)
			fprintf(out, " %s %s", topo_reason_name((enum topo_reason)r),
				hx_thousands(e->pruned[r], n, sizeof(n)));
	fprintf(out, "\n");
}

/* The change at a wall: the effect of the usable values, the failure rate when trials
 * failed ("failed 3/3" when none measured anything). */
static const char *change_text(const struct hx_wall *w, char *buf, size_t len)
{
	if (!isfinite(w->effect))
		snprintf(buf, len, "failed %u/%u", w->failed, w->n);
	else
		snprintf(buf, len, "%+.1f%%", 100.0 * w->effect);
	return buf;
}

static void print_slope(const struct hx_wall *w, FILE *out)
{
	char lv[32], max[32];

	fprintf(out, "slope %+.1f%%/%s [%+.1f%%, %+.1f%%], reaches the threshold near %s "
		"(fit over %u trials %s %s)%s\n",
		100 * w->slope_per_doubling, w->descending ? "halving" : "doubling",
		100 * w->slope_lo, 100 * w->slope_hi,
		hx_level_text(w->dim, w->crossing, lv, sizeof(lv)), w->slope_points,
		w->descending ? "down to" : "up to", hx_level_text(w->dim, w->max_tried, max, sizeof(max)),
		w->in_range ? "  << inside qualified range" : "");
}

static void print_wall(const struct hx_wall *w, FILE *out)
{
	char lv[32], good[32], max[32], change[24];

	fprintf(out, "  %-20s %-5s %-6s ", w->dim->name, topo_verb_name(w->verb),
		metric_name(w->metric));
	if (w->slope) {
		print_slope(w, out);
	} else if (!w->found) {
		fprintf(out, "no wall %s %s\n", w->descending ? "down to" : "up to",
			hx_level_text(w->dim, w->max_tried, max, sizeof(max)));
	} else {
		fprintf(out, "%9s %9s %10s %8.2g  %-5s %-11s%s\n",
			hx_level_text(w->dim, w->level, lv, sizeof(lv)),
			hx_level_text(w->dim, w->last_good, good, sizeof(good)),
			change_text(w, change, sizeof(change)), w->p_value, w->class_, w->kind,
			w->in_range ? "  << inside qualified range" : "");
	}
	if (w->drifted)
		fprintf(out, "  %-20s %-5s %-6s   judged against a baseline that drifted (see Drift)\n",
			"", "", "");
	if (w->note[0])
		fprintf(out, "  %-20s %-5s %-6s   note: %s\n", "", "", "", w->note);
}

/* Each baseline's checks on one line: the change after each phase, DRIFTED where it moved
 * beyond the noise by half the threshold or more. */
static void print_drift(const struct hx_outcome *o, FILE *out)
{
	if (!o->n_drift)
		return;
	fprintf(out, "Drift (the baseline measured again after each phase):\n");
	for (unsigned b = 0; b < o->n_baselines; b++) {
		bool any = false;

		fprintf(out, "  %-5s %-3s", topo_verb_name(o->baselines[b].verb),
			metric_name(o->baselines[b].metric));
		for (unsigned i = 0; i < o->n_drift; i++) {
			const struct hx_drift *d = &o->drift[i];

			if (d->baseline != b)
				continue;
			if (isfinite(d->change))
				fprintf(out, "  after %s %+.1f%%", d->after, 100 * d->change);
			else
				fprintf(out, "  after %s failed %u/%u", d->after, d->failed, d->n);
			if (d->drifted)
				fprintf(out, " (p %.2g) DRIFTED", d->p_value);
			any |= d->drifted;
		}
		fprintf(out, "%s\n", any ? ": decisions of those phases are marked"
				       : ": no drift beyond the noise");
	}
}

static void print_walls(const struct hx_outcome *o, FILE *out)
{
	fprintf(out, "Walls (first symptomatic level after bisection):\n");
	fprintf(out, "  %-20s %-5s %-6s %9s %9s %10s %8s  %-5s %s\n", "dimension", "verb",
		"metric", "wall at", "last good", "change", "p-value", "class", "symptom");
	for (unsigned i = 0; i < o->n_walls; i++)
		print_wall(&o->walls[i], out);
}

static void print_criteria(const struct hx_plan *p, const struct hx_outcome *o, FILE *out)
{
	if (!p->n_criteria)
		return;
	fprintf(out, "Criteria:\n");
	for (unsigned i = 0; i < p->n_criteria; i++) {
		const struct hx_criterion_result *c = &o->criteria[i];

		if (!c->measured) {
			fprintf(out, "  FAIL  %s: not measured (%s)\n", p->criteria[i].name,
				c->status[0] ? c->status : "campaign stopped before");
			continue;
		}
		if (!isfinite(c->ratio)) {
			fprintf(out, "  FAIL  %s: no value, every trial failed (trials %s)\n",
				p->criteria[i].name, c->status);
			continue;
		}
		fprintf(out, "  %s  %s: %.3f of baseline (%.3f / %.3f %s; trials %s)%s\n",
			c->pass ? "PASS" : "FAIL", p->criteria[i].name, c->ratio, c->value,
			c->baseline, metric_unit(p->criteria[i].metric), c->status,
			c->drifted ? " (baseline drifted)" : "");
	}
}

void hx_outcome_print(const struct hx_plan *p, const struct hx_outcome *o, FILE *out)
{
	unsigned failed = 0, in_range = 0, found = 0, causes_in;

	print_baselines(o, out);
	print_noise(p, o, out);
	print_enum(o, out);
	print_walls(o, out);
	print_seq("Sequential testing in the wall search: ", p, &o->seq, out);
	print_criteria(p, o, out);
	print_drift(o, out);
	hx_analysis_print(o->analysis, out);
	hx_model_summary_print(p, o, out);
	for (unsigned i = 0; i < p->n_criteria; i++)
		failed += !o->criteria[i].pass;
	for (unsigned i = 0; i < o->n_walls; i++) {
		found += o->walls[i].found || o->walls[i].slope;
		in_range += o->walls[i].in_range;
	}
	fprintf(out, "Trials: %lu (%lu measured now, %lu from the store), %.3f testbed-hours\n",
		o->trials, o->measured, o->cached, o->cost_s / 3600.0);
	if (o->budget_exhausted)
		fprintf(out, "Budget of %.2f testbed-hours exhausted: the campaign is incomplete.\n",
			p->budget_hours);
	causes_in = hx_analysis_in_range(o->analysis);
	fprintf(out, "Result: %s (%u walls found, %u inside the qualified range, %u causes, "
		"%u of them inside it, %u suspects, %u of %u criteria failed)\n",
		failed || in_range || causes_in || o->budget_exhausted ? "NOT QUALIFIED"
								       : "QUALIFIED",
		found, in_range, o->analysis->n_causes, causes_in, o->analysis->n_suspects, failed,
		p->n_criteria);
	if (!failed && !in_range && !causes_in && !o->budget_exhausted && o->analysis->n_causes)
		fprintf(out, "Note: qualification follows the plan's criteria and their ranges; the "
			"causes above lie outside them (add criteria on their dimensions to qualify "
			"against them).\n");
}

/* JSON has no NaN: a number that could not be measured is null. */
static struct json_object *num_or_null(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *wall_json(const struct hx_wall *w)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "dimension", json_object_new_string(w->dim->name));
	json_object_object_add(j, "verb", json_object_new_string(topo_verb_name(w->verb)));
	json_object_object_add(j, "metric", json_object_new_string(metric_name(w->metric)));
	json_object_object_add(j, "found", json_object_new_boolean(w->found));
	json_object_object_add(j, "slope", json_object_new_boolean(w->slope));
	json_object_object_add(j, "level", num_or_null(w->level));
	json_object_object_add(j, "last_good", json_object_new_double(w->last_good));
	json_object_object_add(j, "max_tried", json_object_new_double(w->max_tried));
	json_object_object_add(j, "descending", json_object_new_boolean(w->descending));
	/* null: every trial at the wall failed, so there is no effect size */
	json_object_object_add(j, "effect", num_or_null(w->effect));
	json_object_object_add(j, "p_value", num_or_null(w->p_value));
	json_object_object_add(j, "failed", json_object_new_int((int)w->failed));
	json_object_object_add(j, "trials_at_level", json_object_new_int((int)w->n));
	if (w->failed) {
		json_object_object_add(j, "failure_rate_lo", json_object_new_double(w->fail_lo));
		json_object_object_add(j, "failure_rate_hi", json_object_new_double(w->fail_hi));
	}
	if (w->slope) {
		json_object_object_add(j, "slope_per_doubling",
				       json_object_new_double(w->slope_per_doubling));
		json_object_object_add(j, "slope_lo", json_object_new_double(w->slope_lo));
		json_object_object_add(j, "slope_hi", json_object_new_double(w->slope_hi));
		json_object_object_add(j, "crossing", num_or_null(w->crossing));
	}
	json_object_object_add(j, "symptom", json_object_new_string(w->kind));
	json_object_object_add(j, "class", json_object_new_string(w->class_));
	json_object_object_add(j, "in_qualified_range", json_object_new_boolean(w->in_range));
	json_object_object_add(j, "drifted_baseline", json_object_new_boolean(w->drifted));
	json_object_object_add(j, "repeats", json_object_new_int((int)w->repeats));
	if (w->note[0])
		json_object_object_add(j, "note", json_object_new_string(w->note));
	return j;
}

static struct json_object *baselines_json(const struct hx_outcome *o)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < o->n_baselines; i++) {
		const struct hx_baseline *b = &o->baselines[i];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "verb", json_object_new_string(topo_verb_name(b->verb)));
		json_object_object_add(j, "metric", json_object_new_string(metric_name(b->metric)));
		json_object_object_add(j, "mean", num_or_null(b->r.s.mean));
		json_object_object_add(j, "ci95", num_or_null(b->r.s.ci95));
		json_object_object_add(j, "repeats", json_object_new_int((int)b->r.s.n));
		json_object_object_add(j, "cv", num_or_null(o->noise[i].cv));
		json_object_object_add(j, "mde", num_or_null(o->noise[i].mde));
		json_object_object_add(j, "too_noisy", json_object_new_boolean(o->noise[i].too_noisy));
		json_object_object_add(j, "repeats_needed",
				       json_object_new_int((int)o->noise[i].repeats_needed));
		json_object_array_add(a, j);
	}
	return a;
}

static struct json_object *criteria_json(const struct hx_plan *p, const struct hx_outcome *o)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < p->n_criteria; i++) {
		const struct hx_criterion_result *c = &o->criteria[i];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "name", json_object_new_string(p->criteria[i].name));
		json_object_object_add(j, "measured", json_object_new_boolean(c->measured));
		json_object_object_add(j, "pass", json_object_new_boolean(c->pass));
		json_object_object_add(j, "value", num_or_null(c->value));
		json_object_object_add(j, "baseline", num_or_null(c->baseline));
		json_object_object_add(j, "ratio", num_or_null(c->ratio));
		json_object_object_add(j, "drifted_baseline", json_object_new_boolean(c->drifted));
		json_object_array_add(a, j);
	}
	return a;
}

static struct json_object *drift_json(const struct hx_outcome *o)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < o->n_drift; i++) {
		const struct hx_drift *d = &o->drift[i];
		const struct hx_baseline *b = &o->baselines[d->baseline];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "verb", json_object_new_string(topo_verb_name(b->verb)));
		json_object_object_add(j, "metric", json_object_new_string(metric_name(b->metric)));
		json_object_object_add(j, "after", json_object_new_string(d->after));
		json_object_object_add(j, "mean", num_or_null(d->s.mean));
		json_object_object_add(j, "baseline_mean", num_or_null(b->r.s.mean));
		json_object_object_add(j, "change", num_or_null(d->change));
		json_object_object_add(j, "p_value", num_or_null(d->p_value));
		json_object_object_add(j, "failed", json_object_new_int((int)d->failed));
		json_object_object_add(j, "drifted", json_object_new_boolean(d->drifted));
		json_object_array_add(a, j);
	}
	return a;
}

/* What the campaign spent. Not part of the result: a resumed campaign may have spent a little
 * more (the killed trial, rules programmed again after the restart). */
static struct json_object *accounting_json(const struct hx_outcome *o)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "campaign", json_object_new_int64(o->campaign));
	json_object_object_add(j, "trials", json_object_new_int64((int64_t)o->trials));
	json_object_object_add(j, "measured", json_object_new_int64((int64_t)o->measured));
	json_object_object_add(j, "from_store", json_object_new_int64((int64_t)o->cached));
	json_object_object_add(j, "testbed_hours", json_object_new_double(o->cost_s / 3600.0));
	return j;
}

/* The run's verdict, as the text's Result line says it. */
static bool outcome_qualified(const struct hx_plan *p, const struct hx_outcome *o)
{
	for (unsigned i = 0; i < p->n_criteria; i++)
		if (!o->criteria[i].pass)
			return false;
	for (unsigned i = 0; i < o->n_walls; i++)
		if (o->walls[i].in_range)
			return false;
	return !o->budget_exhausted;
}

/* What was qualified where: the verdict, RNIC model, firmware, testbed and plan. */
static void add_identity(struct json_object *root, const struct hx_plan *p,
			 const struct hx_outcome *o, const struct tb_description *d,
			 const char *testbed)
{
	json_object_object_add(root, "verdict", json_object_new_string(
		outcome_qualified(p, o) ? "qualified" : "not qualified"));
	json_object_object_add(root, "rnic_model", json_object_new_string(d->rnic_model));
	json_object_object_add(root, "firmware", json_object_new_string(d->firmware));
	json_object_object_add(root, "testbed", testbed ? json_object_new_string(testbed) : NULL);
	json_object_object_add(root, "testbed_kind", json_object_new_string(d->kind));
	json_object_object_add(root, "plan", json_object_new_string(p->name));
}

int hx_outcome_json(const struct hx_plan *p, const struct hx_outcome *o,
		    const struct tb_description *d, const char *testbed, FILE *out)
{
	struct json_object *root = hx_json_doc("run"), *walls = json_object_new_array(), *seq;

	add_identity(root, p, o, d, testbed);
	json_object_object_add(root, "baselines", baselines_json(o));
	json_object_object_add(root, "models_valid",
			       json_object_new_int64((int64_t)o->enum_stats.valid));
	json_object_object_add(root, "models_log10_bruteforce",
			       json_object_new_double(o->enum_stats.log10_bruteforce));
	for (unsigned i = 0; i < o->n_walls; i++)
		json_object_array_add(walls, wall_json(&o->walls[i]));
	json_object_object_add(root, "walls", walls);
	json_object_object_add(root, "criteria", criteria_json(p, o));
	json_object_object_add(root, "drift", drift_json(o));
	seq = json_object_new_object();
	json_object_object_add(seq, "walls", hx_seq_json(&o->seq));
	json_object_object_add(seq, "analysis", hx_seq_json(&o->analysis->seq));
	json_object_object_add(root, "sequential", seq);
	json_object_object_add(root, "causes", hx_analysis_json(o->analysis));
	json_object_object_add(root, "suspects", hx_analysis_suspects_json(o->analysis));
	if (p->model_levels)
		json_object_object_add(root, "model_phase", hx_model_summary_json(p, o));
	json_object_object_add(root, "budget_exhausted", json_object_new_boolean(o->budget_exhausted));
	json_object_object_add(root, "accounting", accounting_json(o));
	hx_json_emit(root, out);
	return 0;
}
