/* SPDX-License-Identifier: MIT */
/*
 * cmd_store: commands that read the results store: `scalacn status` (campaigns),
 * `scalacn trials` (one line per trial) and `scalacn export-csv`.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/hx_cli.h"
#include "results/res.h"

struct store_opts {
	const char *db, *out;
	long long campaign;
	unsigned long limit;
	bool json;
};

static int parse_store_opts(const char *cmd, int argc, char **argv, struct store_opts *o)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },	      { "campaign", required_argument, NULL, 'c' },
		{ "limit", required_argument, NULL, 'n' },    { "json", no_argument, NULL, 'J' },
		{ "output", required_argument, NULL, 'o' },   { NULL, 0, NULL, 0 },
	};
	char *end;
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->db = HX_DEFAULT_DB;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:c:n:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 'o': o->out = optarg; break;
		case 'J': o->json = true; break;
		case 'c':
			if ((rc = hx_parse_id(cmd, "--campaign", "campaign", optarg, &o->campaign)))
				return rc;
			break;
		case 'n':
			o->limit = strtoul(optarg, &end, 10);
			if (*end)
				return hx_usage_error(cmd, "--limit takes a number, not '%s'", optarg);
			break;
		default:
			return hx_bad_option(cmd, argv);
		}
	}
	return hx_no_operands(cmd, argc, argv);
}

struct status_ctx {
	struct res_db *db;
	int64_t fallback; /* the default campaign of read commands, 0 when none */
};

static int print_campaign(const struct res_campaign *c, void *ctx)
{
	struct status_ctx *x = ctx;
	int64_t n = 0;
	double cost = 0;

	res_trial_count(x->db, c->id, &n, &cost, NULL);
	printf("%3lld%c  %-11s %-22s %-10s %7lld %9.3f  %s\n", (long long)c->id,
	       c->id == x->fallback ? '*' : ' ',
	       res_campaign_status_name(c->status), c->rnic_model, c->firmware, (long long)n,
	       cost / 3600.0, c->summary[0] ? c->summary : c->plan_path);
	return 0;
}

int hx_cmd_status(int argc, char **argv)
{
	struct store_opts o;
	struct res_db *db = NULL;
	struct scn_error err;
	int rc = parse_store_opts("status", argc, argv, &o);

	if (rc || (rc = hx_open_store_ro(o.db, &db)))
		return rc;
	struct status_ctx x = { .db = db };
	struct res_campaign def;

	if (res_campaign_default(db, &def, NULL) == 0)
		x.fallback = def.id;
	printf("%4s  %-11s %-22s %-10s %7s %9s  %s\n", "id", "status", "rnic", "firmware", "trials",
	       "testbed-h", "summary");
	rc = res_campaign_each(db, print_campaign, &x, &err);
	if (rc == 0 && x.fallback)
		printf("* the campaign causes and analyze show without --campaign (the newest "
		       "done, interrupted or running one)\n");
	res_close(db);
	return rc < 0 ? hx_report_error(&err) : HX_EXIT_OK;
}

struct trials_ctx {
	unsigned long shown, limit;
	bool json;
};

/* A measured number as JSON (%.6g) or null when the trial did not measure it. */
static const char *json_num(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		return "null";
	snprintf(buf, len, "%.6g", v);
	return buf;
}

/* A measured number in a table column of WIDTH, or blanks when it was not measured. */
static const char *cell(double v, int width, int prec, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%*.*f", width, prec, v);
	else
		snprintf(buf, len, "%*s", width, "");
	return buf;
}

static int print_trial(const struct res_trial *t, const char *levels_json, void *ctx)
{
	struct trials_ctx *c = ctx;
	char b1[40], b2[40], b3[40];

	if (c->limit && c->shown >= c->limit)
		return 1;
	c->shown++;
	if (c->json) {
		printf("%s{\"id\":%lld,\"campaign\":%lld,\"key\":\"%s\",\"verb\":\"%s\",\"metric\":\"%s\",\"repeat\":%d,"
		       "\"status\":\"%s\",\"bw_gbps\":%s,\"lat_median_us\":%s,\"lat_p99_us\":%s,\"cost_s\":%.6g,"
		       "\"point\":%s,\"counters\":%s}",
		       c->shown > 1 ? ",\n" : "", (long long)t->id, (long long)t->campaign, t->key,
		       t->verb, t->metric, t->repeat, t->sample.status,
		       json_num(t->sample.bw_gbps, b1, sizeof(b1)),
		       json_num(t->sample.lat_median_us, b2, sizeof(b2)),
		       json_num(t->sample.lat_p99_us, b3, sizeof(b3)), t->sample.cost_s,
		       levels_json ? levels_json : "null", t->sample.counters_json);
		return 0;
	}
	printf("%6lld %4lld %-5s %-3s %2d %-16s %s %s %8.3f  %s\n", (long long)t->id,
	       (long long)t->campaign, t->verb, t->metric, t->repeat, t->sample.status,
	       cell(t->sample.bw_gbps, 9, 3, b1, sizeof(b1)),
	       cell(t->sample.lat_median_us, 9, 3, b2, sizeof(b2)), t->sample.cost_s, t->key);
	return 0;
}

int hx_cmd_trials(int argc, char **argv)
{
	struct store_opts o;
	struct trials_ctx c = { 0 };
	struct res_db *db = NULL;
	struct scn_error err;
	int rc = parse_store_opts("trials", argc, argv, &o);

	if (rc || (rc = hx_open_store_ro(o.db, &db)))
		return rc;
	c.limit = o.limit;
	c.json = o.json;
	if (c.json)
		printf("[\n");
	else
		printf("%6s %4s %-5s %-3s %2s %-16s %9s %9s %8s  %s\n", "id", "camp", "verb", "m", "r",
		       "status", "bw Gb/s", "lat us", "cost s", "key");
	rc = res_trial_each(db, o.campaign, print_trial, &c, &err);
	if (c.json)
		printf("\n]\n");
	res_close(db);
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
