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


/* The trials phase PHASE of a run of P is expected to take (hx_forecast.c): from the plan,
 * and from the walls of O once the wall search is done (O NULL before). For the ETA. */
enum hx_forecast_phase { HX_FC_BASELINE, HX_FC_WALLS, HX_FC_DRIFT, HX_FC_CRITERIA,
			 HX_FC_ANALYSIS, HX_FC_MODEL };
unsigned long hx_forecast_trials(const struct hx_plan *p, const struct hx_outcome *o,
				 enum hx_forecast_phase phase);
/* The analysis by strategy S (compare runs all three). */
unsigned long hx_forecast_analysis(const struct hx_plan *p, const struct hx_outcome *o,
				   enum hx_strategy s);

/* Reports of an outcome. */
void hx_outcome_print(const struct hx_plan *p, const struct hx_outcome *o, FILE *out);
/* What the model phase measured, per (verb, metric) design (hx_model_print.c): nothing
 * without a `model:` section; a line when the budget ran out before it. */
void hx_model_summary_print(const struct hx_plan *p, const struct hx_outcome *o, FILE *out);
struct json_object;
/* The same as the `run` JSON document's "model_phase" (docs/json.md); NULL without a
 * `model:` section. */
struct json_object *hx_model_summary_json(const struct hx_plan *p, const struct hx_outcome *o);
struct tb_description;
/* The outcome as the `run` JSON document (docs/json.md): verdict, RNIC model and firmware
 * from D, the testbed file TESTBED, the plan, scalacn_version. */
int hx_outcome_json(const struct hx_plan *p, const struct hx_outcome *o,
		    const struct tb_description *d, const char *testbed, FILE *out);

/* What a JUnit file says about the run besides the outcome (hx_junit.c): its properties,
 * timestamp and wall-clock times. Strings may be NULL (left out). */
enum hx_junit_phase { HX_JU_WALLS, HX_JU_CRITERIA, HX_JU_ANALYSIS, HX_JU_PHASES };
struct hx_junit_run {
	const char *suite;        /* the plan's name (or its path when it did not load) */
	const char *plan_path, *testbed_path, *rnic_model, *firmware;
	double started_unix;      /* wall clock at the start (timestamp) */
	double wall_s;            /* wall-clock seconds of the whole run */
	double phase_s[HX_JU_PHASES]; /* wall-clock seconds of the phases that decide testcases */
	const char *summary;      /* the text report (system-out); NULL: none */
};
/* One testcase per criterion, per wall inside the qualified range and per exhausted budget;
 * a plan without criteria: one per wall and per cause found (at least one testcase). */
int hx_outcome_junit(const struct hx_plan *p, const struct hx_outcome *o,
		     const struct hx_junit_run *r, const char *path, struct scn_error *err);
/* A run that stopped on error E (exit code CODE: configuration 2, testbed 3): one testcase
 * with an <error>, so CI sees the failure and its reason. */
int hx_error_junit(const struct hx_junit_run *r, const struct scn_error *e, int code,
		   const char *path, struct scn_error *err);

void hx_analysis_print(const struct hx_analysis *a, FILE *out);
/* JSON arrays of the supported causes and of the suspects (json-c objects, the caller puts
 * them). */
struct json_object *hx_analysis_json(const struct hx_analysis *a);
struct json_object *hx_analysis_suspects_json(const struct hx_analysis *a);
/* What sequential testing added (points, extra trials, most repeats, still undecided). */
struct json_object *hx_seq_json(const struct hx_seq *q);

#endif
