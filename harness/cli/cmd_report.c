/* SPDX-License-Identifier: MIT */
/*
 * cmd_report: `scalacn report [--db FILE] [--campaign ID] -o DIR [--format html|md|json]
 * [--baseline CAMPAIGN]`: a campaign's report as a self-contained folder (harness/report/:
 * the page and its PLplot SVG plots), optionally with a diff section against a baseline
 * campaign. Prints where it wrote the page.
 */
#include <getopt.h>
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
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },     { "campaign", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' }, { "format", required_argument, NULL, 'f' },
		{ "baseline", required_argument, NULL, 'b' }, { NULL, 0, NULL, 0 },
	};
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->db = HX_DEFAULT_DB;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:c:o:f:b:", opts, NULL)) != -1) {
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
