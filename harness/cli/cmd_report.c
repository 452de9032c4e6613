/* SPDX-License-Identifier: MIT */
/*
 * cmd_report: `scalacn report [--db FILE] [--campaign ID] -o DIR [--format html|md|json]
 * [--baseline CAMPAIGN]`: a campaign's report as a self-contained folder (harness/report/:
 * the page and its PLplot SVG plots), optionally with a diff section against a baseline
 * campaign. Prints where it wrote the page.
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/hx_campaign_ref.h"
#include "harness/cli/hx_cli.h"
#include "harness/report/hx_rep.h"
#include "results/res.h"

struct report_opts {
	const char *db, *dir, *baseline;
	long long campaign;
	int format;
};

static int parse_opts(int argc, char **argv, struct report_opts *o)
{
	struct hx_args a = HX_ARGS("report", argc, argv);
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->db = HX_DEFAULT_DB;
	while ((c = hx_opt_next(&a)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 'o': o->dir = optarg; break;
		case 'b': o->baseline = optarg; break;
		case 'c':
			if ((rc = hx_parse_id("report", "--campaign", "campaign", optarg, &o->campaign)))
				return rc;
			break;
		case 'f':
			if ((o->format = hx_rep_format_parse(optarg)) < 0)
				return hx_usage_error("report", "--format takes html, md or json, not '%s'",
						      optarg);
			break;
		default: return hx_bad_option("report", argv);
		}
	}
	if (!o->dir)
		return hx_usage_error("report", "-o DIR is required (the folder to write)");
	return hx_no_operands("report", argc, argv);
}

int hx_cmd_report(int argc, char **argv)
{
	struct hx_campaign_ref ref, base = { 0 };
	struct hx_rep_info info;
	struct scn_error err = { 0 };
	struct report_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc;
	if ((rc = hx_campaign_ref_at(o.db, o.campaign, &ref)))
		return rc;
	if (o.baseline && (rc = hx_campaign_ref_open("report", o.baseline, o.db, &base))) {
		hx_campaign_ref_close(&ref);
		return rc;
	}
	struct hx_rep_opts ro = { ref.db, ref.id, o.dir, (enum hx_rep_format)o.format, base.db,
				  base.id };

	rc = hx_rep_write(&ro, &info, &err);
	hx_campaign_ref_close(&base);
	hx_campaign_ref_close(&ref);
	if (rc < 0)
		return hx_report_error(&err);
	printf("report of campaign %lld: %s (%u plots", (long long)ref.id, info.page, info.images);
	if (info.missing)
		printf("; the page says what is missing: %u note%s", info.missing,
		       info.missing == 1 ? "" : "s");
	printf(")\n");
	return HX_EXIT_OK;
}

static const struct hx_opt report_opts[] = {
	{ "db", 'd', "FILE", "results database (default: scalacn.db)", HX_COMPLETE_FILE, 'd' },
	{ "campaign", 'c', "ID", "campaign (default: the newest that did not fail)", NULL, 'c' },
	{ "output", 'o', "DIR", "the folder to write (made when missing)", HX_COMPLETE_FILE, 'o' },
	{ "format", 'f', "F", "html (default), md or json (report.json: docs/json.md)",
	  "html md json", 'f' },
	{ "baseline", 'b', "C", "add a diff section against campaign C (ID, DB:ID or DB)",
	  HX_COMPLETE_FILE, 'b' },
	HX_OPT_END,
};

const struct hx_command hx_def_report = {
	"report", "write a campaign's report: an HTML page with plots (or md, json)", NULL,
	report_opts,
	"Writes a self-contained folder DIR: index.html (md: report.md, json: report.json) and\n"
	"its SVG plots (PLplot). The page needs no network. Sections: summary (RNIC, firmware,\n"
	"testbed, plan, dates, testbed-hours of the budget, each criterion's verdict with its\n"
	"numbers), walls (the metric against each swept dimension, the wall marked, error bars\n"
	"from the repeats, the baseline band), causes and suspects (sensitivity chart and the\n"
	"removal orders per cause), models (fitted curve against the measured points,\n"
	"residuals, R^2, held-out bias, why the form won, a plane fitted beside it), search\n"
	"cost (trials and testbed-hours per phase, the brute-force size). A campaign that did\n"
	"not finish still renders and says what is missing. Reads the database only.\n",
	NULL, hx_cmd_report,
};
