/* SPDX-License-Identifier: MIT */
/*
 * bench-report: what a report costs next to the campaign it shows. Runs the quickstart
 * campaign once with the scalacn binary (its CPU time: RUSAGE_CHILDREN), then writes that
 * campaign's HTML report (plots included) 9 times in this process through the report room
 * (CPU time of each), and the JSON report (no plots) 9 times. Prints the median CPU per
 * report and its ratio to the campaign's CPU. Figures only; nothing is asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench-util.h"
#include "harness/report/hx_rep.h"
#include "results/res.h"

struct job {
	struct res_db *db;
	char dir[256];
	enum hx_rep_format format;
};

static double children_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The quickstart into DB; its CPU seconds. */
static double campaign(const char *db)
{
	char cmd[2048];
	double t0 = children_cpu_s();

	snprintf(cmd, sizeof(cmd), "'%s/scalacn' run '%s/examples/plans/quickstart.yaml' --db '%s' "
		 "--quiet >/dev/null", getenv("SCALACN_BUILD_ROOT"), getenv("SCALACN_SOURCE_ROOT"), db);
	if (WEXITSTATUS(system(cmd)) != 1) {
		fprintf(stderr, "bench-report: the quickstart did not end with its exit status 1\n");
		exit(1);
	}
	return children_cpu_s() - t0;
}

static void write_report(void *ctx)
{
	struct job *j = ctx;
	struct hx_rep_opts o = { j->db, 1, j->dir, j->format, NULL, 0 };
	struct hx_rep_info info;
	struct scn_error err = { 0 };

	if (hx_rep_write(&o, &info, &err) < 0) {
		fprintf(stderr, "bench-report: %s\n", err.message);
		exit(1);
	}
}

int main(void)
{
	char tmp[] = "/tmp/bench-report.XXXXXX", db[300], cmd[400];
	struct scn_error err = { 0 };
	struct bench_spread html, json;
	struct job j;
	double camp;

	if (!getenv("SCALACN_BUILD_ROOT") || !getenv("SCALACN_SOURCE_ROOT") || !mkdtemp(tmp))
		return 1;
	snprintf(db, sizeof(db), "%s/q.db", tmp);
	camp = campaign(db);
	if (res_open_ro(db, &j.db, &err) < 0)
		return fprintf(stderr, "bench-report: %s\n", err.message), 1;
	snprintf(j.dir, sizeof(j.dir), "%s/report", tmp);
	j.format = HX_REP_HTML;
	bench_repeat(write_report, &j, 9, &html);
	j.format = HX_REP_JSON;
	bench_repeat(write_report, &j, 9, &json);
	res_close(j.db);
	printf("quickstart campaign: %.1f ms CPU (the scalacn process)\n", 1e3 * camp);
	printf("its HTML report with 4 plots: %.2f ms CPU per report (median of %zu, %.2f..%.2f), "
	       "%.3f of the campaign\n", 1e3 * html.median, html.n, 1e3 * html.min, 1e3 * html.max,
	       html.median / camp);
	printf("its JSON report: %.2f ms CPU per report (median of %zu), %.3f of the campaign\n",
	       1e3 * json.median, json.n, json.median / camp);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : 1;
}
