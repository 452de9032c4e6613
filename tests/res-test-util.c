/* SPDX-License-Identifier: MIT */
/*
 * res-test-util: the results/ tests' fixture and probes (res-test-util.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "tests/res-test-util.h"

int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "%s/scn-res-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/results.db", f->dir);
	*state = f;
	return 0;
}

int fx_teardown(void **state)
{
	struct fx *f = *state;
	char p[600];
	struct dirent *e;
	DIR *d;

	res_close(f->db);
	d = opendir(f->dir);
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", f->dir, e->d_name);
			unlink(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f);
	return 0;
}

struct fx *opened(void **state)
{
	struct fx *f = *state;

	assert_int_equal(res_open(f->path, true, &f->db, &f->err), 0);
	return f;
}

void sql_text(sqlite3 *h, const char *sql, char *out, size_t cap)
{
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

int64_t sql_int(sqlite3 *h, const char *sql)
{
	char buf[64];

	sql_text(h, sql, buf, sizeof(buf));
	return strtoll(buf, NULL, 10);
}

int64_t add_campaign(struct res_db *db, const char *hash, const char *ident)
{
	struct res_campaign c = { .seed = 7, .status = RES_RUNNING, .started = 100.0 };
	struct scn_error err;

	snprintf(c.plan_hash, sizeof(c.plan_hash), "%s", hash);
	snprintf(c.testbed_identity, sizeof(c.testbed_identity), "%s", ident);
	assert_int_equal(res_campaign_insert(db, &c, &err), 0);
	assert_true(c.id > 0);
	return c.id;
}

struct res_trial mk_trial(int64_t campaign, int64_t point, const char *key, double bw,
			  double cost)
{
	struct res_trial t = { .campaign = campaign, .point = point, .repeat = 0 };

	snprintf(t.key, sizeof(t.key), "%s", key);
	snprintf(t.verb, sizeof(t.verb), "write");
	snprintf(t.metric, sizeof(t.metric), "bw");
	snprintf(t.sample.status, sizeof(t.sample.status), "ok");
	t.sample.bw_gbps = bw;
	t.sample.cost_s = cost;
	return t;
}
