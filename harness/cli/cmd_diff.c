/* SPDX-License-Identifier: MIT */
/*
 * cmd_diff: `scalacn diff A B [--db FILE] [--fail-on LIST] [--junit FILE] [--json]`: two
 * campaigns compared (harness/report/hx_diff): walls that moved, causes gained or lost,
 * criteria whose verdict changed, model predictions at the same points. A and B are "ID"
 * (in --db), "DB:ID" or "DB" (its newest campaign). With --fail-on the diff is a CI gate:
 * exit 1 when a change of a kind listed is found.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/cli/hx_campaign_ref.h"
#include "harness/cli/hx_cli.h"
#include "harness/report/hx_rep.h"
#include "results/res.h"

struct diff_opts {
	const char *db, *junit, *a, *b;
	unsigned gates;
	bool json;
};

static int parse_opts(int argc, char **argv, struct diff_opts *o)
{
	struct hx_args a = HX_ARGS("diff", argc, argv);
	struct scn_error err = { 0 };
	int c;

	memset(o, 0, sizeof(*o));
	o->db = HX_DEFAULT_DB;
	while ((c = hx_opt_next(&a)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 'j': o->junit = optarg; break;
		case 'J': o->json = true; break;
		case 'F':
			if (hx_diff_gates_parse(optarg, &o->gates, &err) < 0)
				return hx_usage_error("diff", "%s", err.message);
			break;
		default: return hx_bad_option("diff", argv);
		}
	}
	if (argc - optind < 2)
		return hx_usage_error("diff", "two campaigns are needed: A B (ID, DB:ID or DB)");
	o->a = argv[optind++];
	o->b = argv[optind++];
	return hx_no_operands("diff", argc, argv);
}

/* The diff as a document of the JSON contract (docs/json.md): scalacn_version and command
 * first, then the diff's own keys (hx_diff_json_object). */
static void print_json(const struct hx_diff *d)
{
	struct json_object *doc = hx_json_doc("diff"), *body = hx_diff_json_object(d);

	json_object_object_foreach(body, key, val)
		json_object_object_add(doc, key, json_object_get(val));
	json_object_put(body);
	hx_json_emit(doc, stdout);
}

static int run_diff(const struct diff_opts *o, struct hx_campaign_ref *a,
		    struct hx_campaign_ref *b)
{
	struct scn_error err = { 0 };
	struct hx_diff d;
	int rc = hx_diff_compute(a->db, a->id, b->db, b->id, &d, &err);

	if (rc == 0 && o->junit)
		rc = hx_diff_junit(&d, o->gates, o->junit, &err);
	if (rc < 0) {
		hx_diff_free(&d);
		return hx_report_error(&err);
	}
	if (o->json)
		print_json(&d);
	else
		hx_diff_text(&d, stdout);
	rc = hx_diff_fails(&d, o->gates) ? HX_EXIT_FINDING : HX_EXIT_OK;
	if (rc && !o->json)
		printf("Result: CHANGED (a change --fail-on names)\n");
	hx_diff_free(&d);
	return rc;
}

int hx_cmd_diff(int argc, char **argv)
{
	struct hx_campaign_ref a, b;
	struct diff_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc;
	if ((rc = hx_campaign_ref_open("diff", o.a, o.db, &a)))
		return rc;
	if ((rc = hx_campaign_ref_open("diff", o.b, o.db, &b)) == 0) {
		rc = run_diff(&o, &a, &b);
		hx_campaign_ref_close(&b);
	}
	hx_campaign_ref_close(&a);
	return rc;
}

static const struct hx_opt diff_opts[] = {
	{ "db", 'd', "FILE", "results database of plain IDs (default: scalacn.db)",
	  HX_COMPLETE_FILE, 'd' },
	{ "fail-on", 'F', "LIST", "exit 1 when a change of a listed kind is found: wall-moved\n"
	  "(also walls gained or lost), new-cause, lost-cause, criterion,\n"
	  "model (a prediction outside A's 95% interval)",
	  "wall-moved new-cause lost-cause criterion model", 0 },
	{ "junit", 'j', "FILE", "JUnit XML: one testcase per kind of --fail-on", HX_COMPLETE_FILE,
	  0 },
	{ "json", 'J', NULL, "the changes as JSON (docs/json.md)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_diff = {
	"diff", "compare two campaigns: walls moved, causes gained or lost, criteria", "A B",
	diff_opts,
	"Compares campaign B with campaign A (each ID in --db, DB:ID, or DB for its newest\n"
	"campaign): walls that moved (level, class, or effect beyond the baselines' noise),\n"
	"appeared or went; supported causes gained or lost; criteria whose verdict changed;\n"
	"models of the same verb and metric predicted at A's measured points.\n",
	"Exit: 0 no change --fail-on names, 1 one was found, 2 usage or store error.\n",
	hx_cmd_diff,
};
