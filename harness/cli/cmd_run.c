/* SPDX-License-Identifier: MIT */
/*
 * cmd_run: `scalacn run PLAN [options]`: option parsing for a campaign (hx_campaign does it).
 */
#include <stdlib.h>
#include <string.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/cli/hx_cli.h"
#include "harness/cli/hx_report.h"

static const struct hx_opt run_opts[] = {
	{ "testbed", 't', "FILE", "testbed description (default: the plan's 'testbed:')",
	  HX_COMPLETE_FILE, 0 },
	{ "db", 'd', "FILE", "results database (default: scalacn.db)", HX_COMPLETE_FILE, 0 },
	{ "resume", 'r', NULL, "continue the newest campaign of this plan on this testbed", NULL, 0 },
	{ "jobs", 'j', "N", "trials at once, one per testbed slot (1..64; a testbed of one\n"
	  "pair runs one at a time: docs/scale-out.md)",
	  NULL, 0 },
	{ "json", 'J', NULL, "print the outcome as JSON on stdout (docs/json.md)", NULL, 0 },
	{ "quiet", 'q', NULL, "no progress on stderr", NULL, 0 },
	{ "junit", 'u', "FILE", "write a JUnit report: a testcase per criterion (and per wall in\n"
	  "range; without criteria per wall and cause); an <error> testcase on a\n"
	  "configuration or testbed error", HX_COMPLETE_FILE, 0 },
	{ "dry-run", 'n', NULL, "print every command the testbed would run per trial, in order,\n"
	  "and run none (testbeds that run commands: kind perftest)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_run = {
	"run", "run a qualification campaign from a plan (walls, criteria)", "PLAN", run_opts,
	"Runs a campaign: baseline per verb and metric, enumeration of the plan's component\n"
	"space, wall search along every scale dimension (geometric sweep, then bisection to\n"
	"the knee), then the plan's qualification criteria and the causal analysis. Every trial\n"
	"is committed to the database the moment it finishes; trials already stored (same\n"
	"point, repeat and testbed) are reused, never measured twice. On a terminal a progress\n"
	"line shows the phase, trials done of the phase's planned total, testbed-hours used of\n"
	"the budget and the ETA from the measured pace; otherwise a line per phase and at most\n"
	"one a minute.\n",
	"Exit: 0 qualified, 1 a criterion failed, or a wall or a supported cause lies inside\n"
	"the qualified range (or the budget ran out), 2 usage/config error, 3 testbed error,\n"
	"130 interrupted (resume with --resume). NO_COLOR turns colour off.\n",
	hx_cmd_run,
};

int hx_cmd_run(int argc, char **argv)
{
	struct hx_run_opts o = { .db_path = HX_DEFAULT_DB, .jobs = 1 };
	struct hx_args a = HX_ARGS("run", argc, argv);
	char *end;
	int c;

	while ((c = hx_opt_next(&a)) != -1) {
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
