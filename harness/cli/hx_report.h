/* SPDX-License-Identifier: MIT */
/*
 * hx_report: the campaign as the CLI drives and shows it: running one (hx_run.c: phases,
 * causal analysis, store, progress, signals), and its outcome and causes as a table, JSON
 * and JUnit XML (hx_outcome_print.c, hx_causal_print.c, hx_junit.c). Only the CLI prints.
 */
#ifndef HX_REPORT_H
#define HX_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"

struct hx_run_opts {
	const char *plan_path;
	const char *testbed_path; /* NULL: the plan's testbed */
	const char *db_path;
	bool resume, json, quiet;
	bool dry_run;             /* print the testbed's commands per trial; store nothing */
	const char *junit_path;   /* NULL: none */
	unsigned jobs;
};

/* Run the campaign. Returns the CLI exit code (0, 1, 2, 3 or 130) and prints as the CLI
 * does (this is the one harness function that talks to the user: called only by cmd_run). */
int hx_campaign_run(const struct hx_run_opts *o);


/* Reports of an outcome. */
void hx_outcome_print(const struct hx_plan *p, const struct hx_outcome *o, FILE *out);
int hx_outcome_json(const struct hx_plan *p, const struct hx_outcome *o, FILE *out);
int hx_outcome_junit(const struct hx_plan *p, const struct hx_outcome *o, const char *path,
		     struct scn_error *err);

void hx_analysis_print(const struct hx_analysis *a, FILE *out);
/* JSON arrays of the supported causes and of the suspects (json-c objects, the caller puts
 * them). */
struct json_object *hx_analysis_json(const struct hx_analysis *a);
struct json_object *hx_analysis_suspects_json(const struct hx_analysis *a);
/* What sequential testing added (points, extra trials, most repeats, still undecided). */
struct json_object *hx_seq_json(const struct hx_seq *q);

#endif
