/* SPDX-License-Identifier: MIT */
/*
 * res-test-util: what the results/ tests (test-results.c, test-results-analysis.c) share: a
 * fixture with a database path in its own temporary directory (removed with everything in
 * it at teardown), SQL probes that read one value, a campaign and a trial made to order.
 */
#ifndef RES_TEST_UTIL_H
#define RES_TEST_UTIL_H

#include <stdint.h>
#include <sqlite3.h>

#include "results/res.h"

struct fx {
	char dir[256];
	char path[320];
	struct res_db *db;
	struct scn_error err;
};

/* cmocka setup / teardown: a fresh temporary directory (under $TMPDIR) holding results.db. */
int fx_setup(void **state);
int fx_teardown(void **state);
/* The fixture with its database opened (created when missing). */
struct fx *opened(void **state);
/* The first column of the first row of SQL on H, as text into OUT / as an integer. */
void sql_text(sqlite3 *h, const char *sql, char *out, size_t cap);
int64_t sql_int(sqlite3 *h, const char *sql);
/* A running campaign (seed 7) with plan hash HASH and testbed identity IDENT; its id. */
int64_t add_campaign(struct res_db *db, const char *hash, const char *ident);
/* An ok write-bandwidth trial of KEY at BW Gb/s costing COST testbed-seconds. */
struct res_trial mk_trial(int64_t campaign, int64_t point, const char *key, double bw,
			  double cost);

/* A test run with the fixture. */
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

#endif
