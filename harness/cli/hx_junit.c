/* SPDX-License-Identifier: MIT */
/*
 * hx_junit: JUnit XML for CI servers (Jenkins' junit step, GitLab's test reports): one
 * testsuite per campaign with timestamp, hostname, wall-clock time, properties (RNIC model,
 * firmware, testbed, plan, scalacn version) and the text report as system-out; one testcase
 * per qualification criterion, per wall inside the qualified range and per exhausted budget.
 * A plan without criteria gets one testcase per wall and per cause found (and one for the
 * campaign itself when it found neither), so a report never has zero tests. Suspects (rows
 * the evidence does not support) are skipped testcases with the reason: listed apart from
 * causes, failing nothing. A run that
 * stopped on a configuration or testbed error writes one testcase holding an <error>.
 * tests/schemas/junit-ci.xsd encodes what those readers use.
 *
 * Testcase times are wall-clock seconds: the phase that decided a testcase (walls, criteria,
 * analysis) shared equally among the testcases it decided.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/cli/hx_report.h"
#include "harness/plan/hx_plan.h"

enum ju_result { JU_PASS, JU_FAILURE, JU_ERROR, JU_SKIPPED };

struct ju_case {
	char name[256];
	char message[512];
	enum ju_result result;
	enum hx_junit_phase phase;
	double time_s;
};

#define JU_MAX_CASES (HX_PLAN_MAX_CRITERIA + HX_MAX_WALLS + HX_MAX_CAUSES + 2)

struct ju_cases {
	unsigned n;
	struct ju_case c[JU_MAX_CASES];
};

static struct ju_case *add_case(struct ju_cases *cs, enum hx_junit_phase phase,
				enum ju_result result)
{
	struct ju_case *c;

	if (cs->n >= JU_MAX_CASES)
		return NULL;
	c = &cs->c[cs->n++];
	memset(c, 0, sizeof(*c));
	c->phase = phase;
	c->result = result;
	return c;
}

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

static void criterion_case(struct ju_cases *cs, const struct hx_plan *p,
			   const struct hx_outcome *o, unsigned i)
{
	const struct hx_criterion_result *c = &o->criteria[i];
	bool bw = p->criteria[i].metric == GEN_METRIC_BW;
	double need = bw ? p->criteria[i].min_ratio : p->criteria[i].max_ratio;
	struct ju_case *k = add_case(cs, HX_JU_CRITERIA, c->pass ? JU_PASS : JU_FAILURE);

	if (!k)
		return;
	snprintf(k->name, sizeof(k->name), "%s", p->criteria[i].name);
	if (isfinite(c->ratio))
		snprintf(k->message, sizeof(k->message),
			 "measured %.4g vs baseline %.4g: ratio %.3f (required %s %.3f), trial status %s",
			 c->value, c->baseline, c->ratio, bw ? ">=" : "<=", need,
			 c->measured ? c->status : "not measured");
	else
		snprintf(k->message, sizeof(k->message),
			 "no value: every trial failed (required %s %.3f), trial status %s",
			 bw ? ">=" : "<=", need, c->measured ? c->status : "not measured");
}

static void wall_message(const struct hx_wall *w, char *msg, size_t len)
{
	char lv[32];

	if (w->slope)
		snprintf(msg, len, "slope along %s: %+.1f%% per %s, reaches the threshold "
			 "near %s, %s %s", w->dim->name, 100.0 * w->slope_per_doubling,
			 w->descending ? "halving" : "doubling",
			 hx_level_text(w->dim, w->crossing, lv, sizeof(lv)), w->class_, w->kind);
	else if (isfinite(w->effect))
		snprintf(msg, len, "wall at %s = %s: %+.1f%% (p = %.2g), %s %s", w->dim->name,
			 hx_level_text(w->dim, w->level, lv, sizeof(lv)), 100.0 * w->effect,
			 w->p_value, w->class_, w->kind);
	else
		snprintf(msg, len, "wall at %s = %s: every trial failed, %s %s", w->dim->name,
			 hx_level_text(w->dim, w->level, lv, sizeof(lv)), w->class_, w->kind);
}

/* Walls inside the qualified range fail; with ALL (no criteria) every wall found is a case. */
static void wall_cases(struct ju_cases *cs, const struct hx_outcome *o, bool all)
{
	for (unsigned i = 0; i < o->n_walls; i++) {
		const struct hx_wall *w = &o->walls[i];
		struct ju_case *k;

		if (!w->in_range && !(all && (w->found || w->slope)))
			continue;
		k = add_case(cs, HX_JU_WALLS, w->in_range ? JU_FAILURE : JU_PASS);
		if (!k)
			return;
		snprintf(k->name, sizeof(k->name), "%s %s (%s %s)",
			 w->in_range ? "no wall in range:" : "wall:",
			 w->dim->name, topo_verb_name(w->verb), hx_metric_name(w->metric));
		wall_message(w, k->message, sizeof(k->message));
	}
}

/* "effect -63.6%", or for a row whose trials all failed (no effect size) "5 of 5 trials
 * failed". */
static void effect_text(const struct hx_cause *c, char *buf, size_t len)
{
	if (isfinite(c->effect))
		snprintf(buf, len, "effect %+.1f%%", 100 * c->effect);
	else
		snprintf(buf, len, "%u of %u trials failed", c->failed_with, c->n_with);
}

/* A supported cause inside the qualified ranges fails (it fails the plan: hx_verdict_exit);
 * with ALL (no criteria) every cause is a case. */
static void cause_cases(struct ju_cases *cs, const struct hx_analysis *a, bool all)
{
	for (unsigned i = 0; a && i < a->n_causes; i++) {
		const struct hx_cause *c = &a->causes[i];
		struct ju_case *k;
		char members[128], walls[256], effect[48];

		if (!c->in_range && !all)
			continue;
		k = add_case(cs, HX_JU_ANALYSIS, c->in_range ? JU_FAILURE : JU_PASS);
		if (!k)
			return;
		hx_cause_members_text(c, members, sizeof(members));
		hx_cause_walls_text(c, walls, sizeof(walls));
		effect_text(c, effect, sizeof(effect));
		snprintf(k->name, sizeof(k->name), "%s %s (%s %s)",
			 c->in_range ? "no cause in range:" : "cause:", members,
			 topo_verb_name(c->verb), hx_metric_name(c->metric));
		snprintf(k->message, sizeof(k->message), "%s, confidence %.2f, class %s, "
			 "walls %s%s", effect, c->confidence,
			 c->class_[0] ? c->class_ : "unclassified", walls,
			 c->in_range ? ", inside the qualified range" : "");
	}
}

/* Every suspect: a skipped case that says why it is not a cause. */
static void suspect_cases(struct ju_cases *cs, const struct hx_analysis *a)
{
	for (unsigned i = 0; a && i < a->n_suspects; i++) {
		const struct hx_cause *c = &a->suspects[i];
		struct ju_case *k = add_case(cs, HX_JU_ANALYSIS, JU_SKIPPED);
		char members[128], effect[48];

		if (!k)
			return;
		hx_cause_members_text(c, members, sizeof(members));
		effect_text(c, effect, sizeof(effect));
		snprintf(k->name, sizeof(k->name), "suspect: %s (%s %s)", members,
			 topo_verb_name(c->verb), hx_metric_name(c->metric));
		snprintf(k->message, sizeof(k->message), "not a cause: %s (%s, confidence %.2f)",
			 c->why, effect, c->confidence);
	}
}

static void collect_cases(struct ju_cases *cs, const struct hx_plan *p, const struct hx_outcome *o)
{
	struct ju_case *k;

	for (unsigned i = 0; i < p->n_criteria; i++)
		criterion_case(cs, p, o, i);
	wall_cases(cs, o, p->n_criteria == 0);
	cause_cases(cs, o->analysis, p->n_criteria == 0);
	suspect_cases(cs, o->analysis);
	if (o->budget_exhausted && (k = add_case(cs, HX_JU_ANALYSIS, JU_FAILURE))) {
		snprintf(k->name, sizeof(k->name), "within the budget of %.2f testbed-hours",
			 p->budget_hours);
		snprintf(k->message, sizeof(k->message), "the budget ran out: the campaign is incomplete");
	}
	if (cs->n == 0 && (k = add_case(cs, HX_JU_ANALYSIS, JU_PASS)))
		snprintf(k->name, sizeof(k->name), "campaign: no wall and no cause found");
}

/* Each phase's wall-clock time shared equally among the testcases it decided. */
static void share_times(struct ju_cases *cs, const struct hx_junit_run *r)
{
	unsigned per[HX_JU_PHASES] = { 0 };

	for (unsigned i = 0; i < cs->n; i++)
		per[cs->c[i].phase]++;
	for (unsigned i = 0; i < cs->n; i++)
		cs->c[i].time_s = r->phase_s[cs->c[i].phase] / per[cs->c[i].phase];
}

/* A property; left out when VALUE is NULL or empty. PATH: VALUE is a file, written as its
 * absolute path without "." and ".." (as it was given when it cannot be resolved). */
static void property(FILE *f, const char *name, const char *value, bool path)
{
	char *abs = path && value ? realpath(value, NULL) : NULL;

	if (!value || !value[0])
		return;
	fprintf(f, "      <property name=\"%s\" value=\"", name);
	xml_text(f, abs ? abs : value);
	fputs("\"/>\n", f);
	free(abs);
}

static void suite_head(FILE *f, const struct hx_junit_run *r, const struct ju_cases *cs)
{
	unsigned failures = 0, errors = 0, skipped = 0;
	char stamp[32], host[256] = "localhost";
	time_t t = (time_t)r->started_unix;
	struct tm tm;

	for (unsigned i = 0; i < cs->n; i++) {
		failures += cs->c[i].result == JU_FAILURE;
		errors += cs->c[i].result == JU_ERROR;
		skipped += cs->c[i].result == JU_SKIPPED;
	}
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
		snprintf(host, sizeof(host), "localhost");
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"", f);
	xml_text(f, r->suite);
	fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\" "
		"timestamp=\"%s\" hostname=\"", cs->n, failures, errors, skipped, r->wall_s, stamp);
	xml_text(f, host);
	fputs("\">\n    <properties>\n", f);
	property(f, "scalacn_version", SCALACN_VERSION, false);
	property(f, "plan", r->plan_path, true);
	property(f, "testbed", r->testbed_path, true);
	property(f, "rnic_model", r->rnic_model, false);
	property(f, "firmware", r->firmware, false);
	fputs("    </properties>\n", f);
}

static void write_case(FILE *f, const char *suite, const struct ju_case *c)
{
	const char *tag = c->result == JU_ERROR	    ? "error"
			  : c->result == JU_SKIPPED ? "skipped"
						    : "failure";

	fputs("    <testcase classname=\"", f);
	xml_text(f, suite);
	fputs("\" name=\"", f);
	xml_text(f, c->name);
	fprintf(f, "\" time=\"%.3f\">\n", c->time_s);
	if (c->result != JU_PASS) {
		fprintf(f, "      <%s type=\"scalacn\" message=\"", tag);
		xml_text(f, c->message);
		fputs("\">", f);
		xml_text(f, c->message);
		fprintf(f, "</%s>\n", tag);
	} else if (c->message[0]) {
		fputs("      <system-out>", f);
		xml_text(f, c->message);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

static int write_file(const char *path, const struct hx_junit_run *r, const struct ju_cases *cs,
		      const char *out_text, struct scn_error *err)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return scn_error_set(err, SCN_ERR_USAGE, -errno, "cannot write JUnit file %s: %s",
				     path, strerror(errno));
	suite_head(f, r, cs);
	for (unsigned i = 0; i < cs->n; i++)
		write_case(f, r->suite, &cs->c[i]);
	fputs("    <system-out>", f);
	xml_text(f, out_text ? out_text : "");
	fputs("</system-out>\n  </testsuite>\n</testsuites>\n", f);
	if (fclose(f) != 0)
		return scn_error_set(err, SCN_ERR_USAGE, -EIO, "cannot write JUnit file %s", path);
	return 0;
}

int hx_outcome_junit(const struct hx_plan *p, const struct hx_outcome *o,
		     const struct hx_junit_run *r, const char *path, struct scn_error *err)
{
	struct ju_cases *cs = calloc(1, sizeof(*cs));
	int rc;

	if (!cs)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	collect_cases(cs, p, o);
	share_times(cs, r);
	rc = write_file(path, r, cs, r->summary, err);
	free(cs);
	return rc;
}

int hx_error_junit(const struct hx_junit_run *r, const struct scn_error *e, int code,
		   const char *path, struct scn_error *err)
{
	struct ju_cases *cs = calloc(1, sizeof(*cs));
	struct ju_case *k;
	char buf[1024];
	int rc;

	if (!cs)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	k = add_case(cs, HX_JU_ANALYSIS, JU_ERROR);
	snprintf(k->name, sizeof(k->name), "campaign (%s error)",
		 code == 3 ? "testbed" : "configuration");
	snprintf(k->message, sizeof(k->message), "exit %d: %s", code,
		 scn_error_format(e, buf, sizeof(buf)));
	k->time_s = r->wall_s;
	rc = write_file(path, r, cs, k->message, err);
	free(cs);
	return rc;
}
