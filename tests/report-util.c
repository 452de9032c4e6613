/* SPDX-License-Identifier: MIT */
/*
 * report-util: helpers of the report and diff tests (report-util.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <sqlite3.h>

#include "e2e_util.h"
#include "report-util.h"

int rpt_scalacn(const char *const *args, char **out)
{
	struct e2e_run r;
	int st = e2e_scalacn_run(&r, args);

	if (out)
		*out = strdup(r.out ? r.out : "");
	e2e_run_free(&r);
	return st;
}

int rpt_quickstart(const char *db, const char *testbed)
{
	const char *args[] = { "run", e2e_src("examples/plans/quickstart.yaml"), "--db", db,
			       "--quiet", testbed ? "--testbed" : NULL, testbed, NULL };

	return rpt_scalacn(args, NULL);
}

const char *rpt_sql_text(const char *db, const char *sql, char *buf, size_t len)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;

	buf[0] = 0;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_text(st, 0))
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
	return buf;
}

int rpt_shell(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	size_t cap = 4096, n = 0, k;
	char *buf = malloc(cap);
	int st;

	if (!p || !buf) {
		free(buf);
		if (p)
			pclose(p);
		return -1;
	}
	while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += k;
		if (n + 1 == cap && !(buf = realloc(buf, cap *= 2)))
			break;
	}
	if (buf)
		buf[n] = 0;
	st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

double rpt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
