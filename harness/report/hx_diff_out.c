/* SPDX-License-Identifier: MIT */
/*
 * hx_diff_out: a diff's gates (--fail-on words) and its renderings: text rows for the CLI to
 * print, JSON, and JUnit XML for CI servers (one testsuite "scalacn diff", one testcase per
 * gate asked for, failing with the changes of that kind, or one passing testcase when none
 * was asked for; the contract of hx_junit.c and tests/junit.xsd: timestamp, hostname,
 * properties, the diff's text as system-out).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "harness/report/hx_rep_priv.h"

struct gate {
	const char *word;
	unsigned bits;
	const char *test; /* the JUnit testcase */
};

static const struct gate gates[] = {
	{ "wall-moved", 1u << HX_DIFF_WALL_MOVED | 1u << HX_DIFF_WALL_GAINED | 1u << HX_DIFF_WALL_LOST,
	  "no wall moved, appeared or went" },
	{ "new-cause", 1u << HX_DIFF_CAUSE_GAINED, "no new cause" },
	{ "lost-cause", 1u << HX_DIFF_CAUSE_LOST, "no cause went" },
	{ "criterion", 1u << HX_DIFF_CRITERION, "no criterion changed its verdict" },
	{ "model", 1u << HX_DIFF_MODEL, "no model prediction left its interval" },
};
#define N_GATES (sizeof(gates) / sizeof(gates[0]))

int hx_diff_gates_parse(const char *text, unsigned *bits, struct scn_error *err)
{
	char buf[256], *save = NULL;

	*bits = 0;
	snprintf(buf, sizeof(buf), "%s", text);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < N_GATES && strcmp(gates[i].word, w); i++)
			;
		if (i == N_GATES) {
			scn_error_set(err, SCN_ERR_USAGE, -EINVAL, "--fail-on: unknown change '%s' "
				      "(wall-moved, new-cause, lost-cause, criterion, model)", w);
			return -1;
		}
		*bits |= gates[i].bits;
	}
	return 0;
}

bool hx_diff_fails(const struct hx_diff *d, unsigned bits)
{
	for (unsigned i = 0; i < d->n; i++)
		if (d->rows[i].gate && (bits & (1u << d->rows[i].kind)))
			return true;
	return false;
}

void hx_diff_text(const struct hx_diff *d, FILE *out)
{
	fprintf(out, "A: %s\nB: %s\n", d->a_name, d->b_name);
	fprintf(out, "Compared: %u walls, %u causes, %u criteria, %u models\n", d->walls, d->causes,
		d->criteria, d->models);
	for (unsigned i = 0; i < d->n; i++) {
		const struct hx_diff_row *r = &d->rows[i];

		fprintf(out, "%-13s %s%s\n", hx_diff_kind_name(r->kind), r->what,
			r->gate ? "" : " (within noise)");
		if (r->a[0])
			fprintf(out, "    A: %s\n", r->a);
		if (r->b[0])
			fprintf(out, "    B: %s\n", r->b);
	}
	if (!d->n)
		fprintf(out, "No change.\n");
}

struct json_object *hx_diff_json_object(const struct hx_diff *d)
{
	struct json_object *root = json_object_new_object(), *rows = json_object_new_array();

	json_object_object_add(root, "a", json_object_new_string(d->a_name));
	json_object_object_add(root, "b", json_object_new_string(d->b_name));
	for (unsigned i = 0; i < d->n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "kind", json_object_new_string(hx_diff_kind_name(d->rows[i].kind)));
		json_object_object_add(o, "what", json_object_new_string(d->rows[i].what));
		json_object_object_add(o, "a", json_object_new_string(d->rows[i].a));
		json_object_object_add(o, "b", json_object_new_string(d->rows[i].b));
		json_object_object_add(o, "gate", json_object_new_boolean(d->rows[i].gate));
		json_object_array_add(rows, o);
	}
	json_object_object_add(root, "changes", rows);
	return root;
}

/* The changes of gate G, "; "-separated, into BUF ("" none). */
static void gate_failures(const struct hx_diff *d, const struct gate *g, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < d->n && k < len; i++) {
		const struct hx_diff_row *r = &d->rows[i];

		if (r->gate && (g->bits & (1u << r->kind)))
			k += snprintf(buf + k, len - k, "%s%s: %s (A: %s; B: %s)", k ? "; " : "",
				      hx_diff_kind_name(r->kind), r->what, r->a[0] ? r->a : "-",
				      r->b[0] ? r->b : "-");
	}
}

/* One testcase NAME: passed when FAILURE is "", else failing with it as message and text. */
static void junit_case(FILE *f, const char *name, const char *failure)
{
	fputs("    <testcase classname=\"scalacn diff\" name=\"", f);
	hx_rep_xml(f, name);
	if (!failure[0]) {
		fputs("\" time=\"0.000\"/>\n", f);
		return;
	}
	fputs("\" time=\"0.000\">\n      <failure type=\"scalacn\" message=\"", f);
	hx_rep_xml(f, failure);
	fputs("\">", f);
	hx_rep_xml(f, failure);
	fputs("</failure>\n    </testcase>\n", f);
}

static void junit_property(FILE *f, const char *name, const char *value)
{
	fprintf(f, "      <property name=\"%s\" value=\"", name);
	hx_rep_xml(f, value);
	fputs("\"/>\n", f);
}

static void junit_head(FILE *f, const struct hx_diff *d, unsigned tests, unsigned failed)
{
	char stamp[32], host[256] = "localhost";
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
		snprintf(host, sizeof(host), "localhost");
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"", f);
	hx_rep_xml(f, "scalacn diff: ");
	hx_rep_xml(f, d->b_name);
	hx_rep_xml(f, " against ");
	hx_rep_xml(f, d->a_name);
	fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"0\" time=\"0.000\" "
		"timestamp=\"%s\" hostname=\"", tests, failed, stamp);
	hx_rep_xml(f, host);
	fputs("\">\n    <properties>\n", f);
	junit_property(f, "scalacn_version", SCALACN_VERSION);
	junit_property(f, "campaign_a", d->a_name);
	junit_property(f, "campaign_b", d->b_name);
	fputs("    </properties>\n", f);
}

int hx_diff_junit(const struct hx_diff *d, unsigned bits, const char *path,
		  struct scn_error *err)
{
	char failures[N_GATES][2048], *text = NULL;
	unsigned tests = 0, failed = 0;
	size_t len = 0;
	FILE *m, *f = fopen(path, "w");

	if (!f)
		return scn_error_set(err, SCN_ERR_USAGE, -errno, "cannot write JUnit file %s: %s",
				     path, strerror(errno));
	for (size_t i = 0; i < N_GATES; i++) {
		gate_failures(d, &gates[i], failures[i], sizeof(failures[i]));
		tests += (bits & gates[i].bits) != 0;
		failed += (bits & gates[i].bits) && failures[i][0];
	}
	junit_head(f, d, tests ? tests : 1, failed);
	for (size_t i = 0; i < N_GATES; i++)
		if (bits & gates[i].bits)
			junit_case(f, gates[i].test, failures[i]);
	if (!tests) /* nothing gated: the comparison itself, so that the report has a result */
		junit_case(f, "campaigns compared (no --fail-on)", "");
	if ((m = open_memstream(&text, &len))) {
		hx_diff_text(d, m);
		fclose(m);
	}
	fputs("    <system-out>", f);
	hx_rep_xml(f, text ? text : "");
	fputs("</system-out>\n  </testsuite>\n</testsuites>\n", f);
	free(text);
	if (fclose(f) != 0)
		return scn_error_set(err, SCN_ERR_USAGE, -EIO, "cannot write JUnit file %s", path);
	return 0;
}
