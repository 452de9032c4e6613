/* SPDX-License-Identifier: MIT */
/*
 * test-results-lock: results/'s one-writer lock (res_lock_writer: a second holder is refused
 * naming the first, the lock is free again once released) and the default campaign of read
 * commands (res_campaign_default: the newest done, interrupted or running one, never a
 * failed one).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "results/res.h"

static void test_results_lock_one_writer(void **state)
{
	char dir[] = "/tmp/scalacn-reslock-XXXXXX", db[128], want[64], cmd[160];
	struct res_lock *a = NULL, *b = NULL;
	struct scn_error err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/x.db", dir);
	assert_int_equal(res_lock_writer(db, "run", &a, &err), 0);
	assert_non_null(a);
	assert_int_equal(res_lock_writer(db, "analyze", &b, &err), -EBUSY);
	assert_null(b);
	assert_int_equal(err.cls, SCN_ERR_STORE);
	snprintf(want, sizeof(want), "(scalacn run, pid %ld on ", (long)getpid());
	assert_non_null(strstr(err.message, want));
	assert_non_null(strstr(err.message, "in use by another writer"));
	res_unlock(a);
	assert_int_equal(res_lock_writer(db, "analyze", &b, &err), 0);
	res_unlock(b);
	res_unlock(NULL);
	assert_int_equal(res_lock_writer(":memory:", "run", &a, &err), 0);
	assert_null(a);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static int64_t add(struct res_db *db, enum res_campaign_status st)
{
	struct res_campaign c;
	struct scn_error err;

	memset(&c, 0, sizeof(c));
	snprintf(c.plan_hash, sizeof(c.plan_hash), "h");
	c.status = st;
	assert_int_equal(res_campaign_insert(db, &c, &err), 0);
	return c.id;
}

static void test_results_default_campaign_skips_failed(void **state)
{
	struct res_db *db = NULL;
	struct res_campaign c;
	struct scn_error err;
	int64_t done, inter;

	(void)state;
	assert_int_equal(res_open(":memory:", true, &db, &err), 0);
	assert_int_equal(res_campaign_default(db, &c, &err), -ENOENT);
	assert_non_null(strstr(err.message, "holds no campaign"));
	add(db, RES_FAILED);
	assert_int_equal(res_campaign_default(db, &c, &err), -ENOENT);
	assert_non_null(strstr(err.message, "(1 failed: name one with --campaign ID"));
	done = add(db, RES_DONE);
	add(db, RES_FAILED);
	assert_int_equal(res_campaign_default(db, &c, &err), 0);
	assert_int_equal(c.id, done);
	inter = add(db, RES_INTERRUPTED);
	add(db, RES_FAILED);
	assert_int_equal(res_campaign_default(db, &c, &err), 0);
	assert_int_equal(c.id, inter);
	res_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results_lock_one_writer),
		cmocka_unit_test(test_results_default_campaign_skips_failed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
