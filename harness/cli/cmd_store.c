/* SPDX-License-Identifier: MIT */
/*
 * cmd_store: commands that read the results store: `scalacn status` (campaigns) and
 * `scalacn export-csv`. `scalacn trials` is cmd_trials.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/cli/hx_cli.h"
#include "results/res.h"

struct store_opts {
	const char *db, *out;
	long long campaign;
	bool json;
};

static int parse_store_opts(const char *cmd, int argc, char **argv, struct store_opts *o)
{
	struct hx_args a = HX_ARGS(cmd, argc, argv);
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->db = HX_DEFAULT_DB;
	while ((c = hx_opt_next(&a)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 'o': o->out = optarg; break;
		case 'J': o->json = true; break;
		case 'c':
			if ((rc = hx_parse_id(cmd, "--campaign", "campaign", optarg, &o->campaign)))
				return rc;
			break;
		default:
			return hx_bad_option(cmd, argv);
		}
	}
	return hx_no_operands(cmd, argc, argv);
}

/* The campaigns of a store, gathered so that the table is sized to its content. */
struct status_row {
	struct res_campaign c;
	int64_t trials;
	double cost_s;
};

struct status_ctx {
	struct res_db *db;
	int64_t fallback; /* the default campaign of read commands, 0 when none */
	unsigned long n, cap;
	struct status_row *rows;
};

static int gather_campaign(const struct res_campaign *c, void *ctx)
{
	struct status_ctx *x = ctx;
	struct status_row *r;

	if (hx_grow((void **)&x->rows, sizeof(*x->rows), x->n, &x->cap) < 0)
		return -ENOMEM;
	r = &x->rows[x->n++];
	r->c = *c;
	r->trials = 0;
	r->cost_s = 0;
	res_trial_count(x->db, c->id, &r->trials, &r->cost_s, NULL);
	return 0;
}

static int width_of(const char *s, int w)
{
	int n = (int)strlen(s);

	return n > w ? n : w;
}

static void print_status_table(const struct status_ctx *x)
{
	int ws = (int)strlen("status"), wr = (int)strlen("RNIC model"), wf = (int)strlen("firmware");
	char trials[32];

	for (unsigned long i = 0; i < x->n; i++) {
		ws = width_of(res_campaign_status_name(x->rows[i].c.status), ws);
		wr = width_of(x->rows[i].c.rnic_model, wr);
		wf = width_of(x->rows[i].c.firmware, wf);
	}
	printf("%5s  %-*s  %-*s  %-*s  %7s  %13s  %s\n", "id", ws, "status", wr, "RNIC model", wf,
	       "firmware", "trials", "testbed-hours", "summary (or plan)");
	for (unsigned long i = 0; i < x->n; i++) {
		const struct status_row *r = &x->rows[i];

		hx_thousands((double)r->trials, trials, sizeof(trials));
		printf("%4lld%c  %-*s  %-*s  %-*s  %7s  %13.3f  %s\n", (long long)r->c.id,
		       r->c.id == x->fallback ? '*' : ' ', ws, res_campaign_status_name(r->c.status),
		       wr, r->c.rnic_model, wf, r->c.firmware, trials, r->cost_s / 3600.0,
		       r->c.summary[0] ? r->c.summary : r->c.plan_path);
	}
	if (x->fallback)
		printf("* the campaign causes and analyze show without --campaign (the newest "
		       "done, interrupted or running one)\n");
}

static void print_status_json(const struct status_ctx *x)
{
	struct json_object *doc = hx_json_doc("status"), *arr = json_object_new_array();

	for (unsigned long i = 0; i < x->n; i++) {
		const struct status_row *r = &x->rows[i];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "id", json_object_new_int64(r->c.id));
		json_object_object_add(j, "status", json_object_new_string(
					       res_campaign_status_name(r->c.status)));
		json_object_object_add(j, "default", json_object_new_boolean(r->c.id == x->fallback));
		json_object_object_add(j, "rnic_model", json_object_new_string(r->c.rnic_model));
		json_object_object_add(j, "firmware", json_object_new_string(r->c.firmware));
		json_object_object_add(j, "plan", json_object_new_string(r->c.plan_path));
		json_object_object_add(j, "testbed", json_object_new_string(r->c.testbed));
		json_object_object_add(j, "scalacn_version_of_run",
				       json_object_new_string(r->c.tool_version));
		json_object_object_add(j, "trials", json_object_new_int64(r->trials));
		json_object_object_add(j, "testbed_hours", json_object_new_double(r->cost_s / 3600.0));
		json_object_object_add(j, "started", r->c.started > 0 ?
				       json_object_new_double(r->c.started) : NULL);
		json_object_object_add(j, "finished", r->c.finished > 0 ?
				       json_object_new_double(r->c.finished) : NULL);
		json_object_object_add(j, "summary", json_object_new_string(r->c.summary));
		json_object_array_add(arr, j);
	}
	json_object_object_add(doc, "campaigns", arr);
	hx_json_emit(doc, stdout);
}

int hx_cmd_status(int argc, char **argv)
{
	struct store_opts o;
	struct res_db *db = NULL;
	struct scn_error err;
	struct status_ctx x = { 0 };
	struct res_campaign def;
	int rc = parse_store_opts("status", argc, argv, &o);

	if (rc || (rc = hx_open_store_ro(o.db, &db)))
		return rc;
	x.db = db;
	if (res_campaign_default(db, &def, NULL) == 0)
		x.fallback = def.id;
	rc = res_campaign_each(db, gather_campaign, &x, &err);
	if (rc == 0 && o.json)
		print_status_json(&x);
	else if (rc == 0)
		print_status_table(&x);
	free(x.rows);
	res_close(db);
	if (rc == -ENOMEM)
		return scn_error_set(&err, SCN_ERR_INTERNAL, rc, "out of memory"), hx_report_error(&err);
	return rc < 0 ? hx_report_error(&err) : HX_EXIT_OK;
}

int hx_cmd_export_csv(int argc, char **argv)
{
	struct store_opts o;
	struct res_db *db = NULL;
	struct scn_error err;
	FILE *out = stdout;
	int rc = parse_store_opts("export-csv", argc, argv, &o);

	if (rc || (rc = hx_open_store_ro(o.db, &db)))
		return rc;
	if (o.out && !(out = fopen(o.out, "w"))) {
		fprintf(stderr, "scalacn: cannot write %s: %s\n", o.out, strerror(errno));
		res_close(db);
		return HX_EXIT_USAGE;
	}
	rc = res_export_csv(db, o.campaign, out, &err);
	if (out != stdout)
		fclose(out);
	res_close(db);
	return rc < 0 ? hx_report_error(&err) : HX_EXIT_OK;
}

static const struct hx_opt status_opts[] = {
	{ "db", 'd', "FILE", "results database (default: scalacn.db)", HX_COMPLETE_FILE, 0 },
	{ "json", 'J', NULL, "the campaigns as JSON (docs/json.md)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_status = {
	"status", "list the campaigns in a results database", NULL, status_opts,
	"One line per campaign: id, status, RNIC model, firmware, trials, testbed-hours spent\n"
	"and what it concluded; '*' marks the campaign read commands default to.\n",
	NULL, hx_cmd_status,
};

static const struct hx_opt export_csv_opts[] = {
	{ "db", 'd', "FILE", "results database (default: scalacn.db)", HX_COMPLETE_FILE, 0 },
	{ "campaign", 'c', "ID", "only this campaign's trials (default: every campaign)", NULL, 0 },
	{ "output", 'o', "FILE", "write to FILE (default: stdout)", HX_COMPLETE_FILE, 'o' },
	HX_OPT_END,
};

const struct hx_command hx_def_export_csv = {
	"export-csv", "write the trials of a database as CSV", NULL, export_csv_opts,
	"One row per trial, one column per dimension, counters as JSON in the last column; a\n"
	"number the trial did not measure is an empty field. CSV is its only form: --json is\n"
	"refused (use 'scalacn trials --json').\n",
	NULL, hx_cmd_export_csv,
};
