/* SPDX-License-Identifier: MIT */
/*
 * cmd_run: `scalacn run PLAN [options]`: option parsing for a campaign (hx_campaign does it).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/cli/hx_cli.h"
#include "harness/cli/hx_report.h"

int hx_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "testbed", required_argument, NULL, 't' }, { "db", required_argument, NULL, 'd' },
		{ "resume", no_argument, NULL, 'r' },	      { "jobs", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },	      { "quiet", no_argument, NULL, 'q' },
		{ "junit", required_argument, NULL, 'u' },    { "dry-run", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct hx_run_opts o = { .db_path = HX_DEFAULT_DB, .jobs = 1 };
	char *end;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:d:rj:qu:", opts, NULL)) != -1) {
		switch (c) {
		case 't': o.testbed_path = optarg; break;
		case 'd': o.db_path = optarg; break;
		case 'r': o.resume = true; break;
		case 'J': o.json = true; break;
		case 'q': o.quiet = true; break;
		case 'u': o.junit_path = optarg; break;
		case 'n': o.dry_run = true; break;
		case 'j':
			o.jobs = (unsigned)strtoul(optarg, &end, 10);
			if (*end || o.jobs < 1 || o.jobs > 64)
				return hx_usage_error("run", "--jobs takes 1..64, not '%s'", optarg);
			break;
		default:
			return hx_bad_option("run", argv);
		}
	}
	if (optind != argc - 1)
		return hx_usage_error("run", "expected one PLAN file");
	o.plan_path = argv[optind];
	if (o.dry_run && (o.resume || o.junit_path))
		return hx_usage_error("run", "--dry-run measures nothing: it takes neither --resume nor --junit");
	return hx_campaign_run(&o);
}
