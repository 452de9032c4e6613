/* SPDX-License-Identifier: MIT */
/*
 * hx_junit: JUnit XML for CI servers: one testsuite per campaign, one testcase per
 * qualification criterion (with the measured numbers in the message) and one per wall found
 * inside the qualified range. Elements and attributes follow the common JUnit schema
 * (testsuites > testsuite[name,tests,failures,errors,time] > testcase[name,classname,time]
 * > failure[message,type]).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/cli/hx_report.h"
#include "harness/plan/hx_plan.h"

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
	}
}

static void testcase(FILE *f, const char *suite, const char *name, const char *failure)
{
	fputs("    <testcase classname=\"", f);
	xml_text(f, suite);
	fputs("\" name=\"", f);
	xml_text(f, name);
	fputs("\" time=\"0\">", f);
	if (failure) {
		fputs("\n      <failure type=\"scalacn\" message=\"", f);
		xml_text(f, failure);
		fputs("\">", f);
		xml_text(f, failure);
		fputs("</failure>\n    ", f);
	}
	fputs("</testcase>\n", f);
}

static unsigned count_failures(const struct hx_plan *p, const struct hx_outcome *o,
			       unsigned *walls_in_range)
{
	unsigned failures = 0;

	*walls_in_range = 0;
	for (unsigned i = 0; i < p->n_criteria; i++)
		failures += !o->criteria[i].pass;
	for (unsigned i = 0; i < o->n_walls; i++)
		*walls_in_range += o->walls[i].in_range;
	return failures + *walls_in_range;
}

static void criteria_cases(FILE *f, const struct hx_plan *p, const struct hx_outcome *o)
{
	char msg[512];

	for (unsigned i = 0; i < p->n_criteria; i++) {
		const struct hx_criterion_result *c = &o->criteria[i];

		double need = p->criteria[i].metric == GEN_METRIC_BW ? p->criteria[i].min_ratio
								     : p->criteria[i].max_ratio;
		const char *op = p->criteria[i].metric == GEN_METRIC_BW ? ">=" : "<=";

		if (isfinite(c->ratio))
			snprintf(msg, sizeof(msg),
				 "measured %.4g vs baseline %.4g: ratio %.3f (required %s %.3f), status %s",
				 c->value, c->baseline, c->ratio, op, need,
				 c->measured ? c->status : "not measured");
		else
			snprintf(msg, sizeof(msg), "no value: every trial failed (required %s %.3f), status %s",
				 op, need, c->measured ? c->status : "not measured");
		testcase(f, p->name, p->criteria[i].name, c->pass ? NULL : msg);
	}
}

static void wall_cases(FILE *f, const struct hx_plan *p, const struct hx_outcome *o)
{
	char name[256], msg[512], lv[32];

	for (unsigned i = 0; i < o->n_walls; i++) {
		const struct hx_wall *w = &o->walls[i];

		if (!w->in_range)
			continue;
		snprintf(name, sizeof(name), "no wall in range: %s (%s %s)", w->dim->name,
			 topo_verb_name(w->verb), w->metric == GEN_METRIC_LAT ? "lat" : "bw");
		if (w->slope)
			snprintf(msg, sizeof(msg), "slope along %s: %+.1f%% per %s, reaches the "
				 "threshold near %s, %s %s", w->dim->name, 100.0 * w->slope_per_doubling,
				 w->descending ? "halving" : "doubling",
				 hx_level_text(w->dim, w->crossing, lv, sizeof(lv)), w->class_, w->kind);
		else if (isfinite(w->effect))
			snprintf(msg, sizeof(msg), "wall at %s = %s: %+.1f%% (p = %.2g), %s %s",
				 w->dim->name, hx_level_text(w->dim, w->level, lv, sizeof(lv)),
				 100.0 * w->effect, w->p_value, w->class_, w->kind);
		else
			snprintf(msg, sizeof(msg), "wall at %s = %s: every trial failed, %s %s",
				 w->dim->name, hx_level_text(w->dim, w->level, lv, sizeof(lv)),
				 w->class_, w->kind);
		testcase(f, p->name, name, msg);
	}
}

int hx_outcome_junit(const struct hx_plan *p, const struct hx_outcome *o, const char *path,
		     struct scn_error *err)
{
	unsigned in_range, failures = count_failures(p, o, &in_range);
	FILE *f = fopen(path, "w");

	if (!f)
		return scn_error_set(err, SCN_ERR_USAGE, -errno, "cannot write JUnit file %s: %s",
				     path, strerror(errno));
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"", f);
	xml_text(f, p->name);
	fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"0\" time=\"%.3f\">\n",
		p->n_criteria + in_range, failures, o->cost_s);
	criteria_cases(f, p, o);
	wall_cases(f, p, o);
	fputs("  </testsuite>\n</testsuites>\n", f);
	if (fclose(f) != 0)
		return scn_error_set(err, SCN_ERR_USAGE, -EIO, "cannot write JUnit file %s", path);
	return 0;
}
