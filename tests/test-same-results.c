/* SPDX-License-Identifier: MIT */
/*
 * test-same-results: campaigns give the same results whether every rule set is built from
 * scratch (SCALACN_RULES_CACHE=off, the plain full build) or comes from the rule-set cache
 * (the default): on the shipped plans quickstart.yaml and qualify-full.yaml, `run --json`
 * (baselines, walls, criteria, causes), `causes --json` and `export-csv` (every trial's
 * numbers and counters) are byte for byte the same. scripts/same-outputs compares a build
 * against an older revision the same way on many more commands.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e_util.h"

/* The three outputs of PLAN run into store DB, in OUT[0..3) (owned). */
static void outputs(const char *plan, const char *db, char *out[3])
{
	const char *run[] = { "run", plan, "--db", db, "--json", "--quiet", NULL };
	const char *causes[] = { "causes", "--db", db, "--json", NULL };
	char csv[512];
	const char *export[] = { "export-csv", "--db", db, "-o", csv, NULL };
	struct e2e_run r;

	snprintf(csv, sizeof(csv), "%s.csv", db);
	e2e_scalacn_run(&r, run);
	assert_true(r.status == 0 || r.status == 1); /* qualified or not: both are results */
	out[0] = r.out;
	r.out = NULL;
	e2e_run_free(&r);
	e2e_scalacn_run(&r, causes);
	assert_int_equal(r.status, 0);
	out[1] = r.out;
	r.out = NULL;
	e2e_run_free(&r);
	e2e_scalacn_run(&r, export);
	assert_int_equal(r.status, 0);
	e2e_run_free(&r);
	out[2] = e2e_read_file(csv);
	assert_non_null(out[2]);
}

static void same_on(const char *plan_rel)
{
	const char *dir = e2e_tmpdir();
	char plain_db[512], cached_db[512], *plain[3], *cached[3];

	snprintf(plain_db, sizeof(plain_db), "%s/plain.db", dir);
	snprintf(cached_db, sizeof(cached_db), "%s/cached.db", dir);
	assert_int_equal(setenv("SCALACN_RULES_CACHE", "off", 1), 0);
	outputs(e2e_src(plan_rel), plain_db, plain);
	assert_int_equal(unsetenv("SCALACN_RULES_CACHE"), 0);
	outputs(e2e_src(plan_rel), cached_db, cached);
	for (int i = 0; i < 3; i++) {
		assert_true(strlen(plain[i]) > 100);
		assert_string_equal(plain[i], cached[i]);
		free(plain[i]);
		free(cached[i]);
	}
	e2e_rmdir(dir);
}

static void test_same_results_quickstart(void **state)
{
	(void)state;
	same_on("examples/plans/quickstart.yaml");
}

static void test_same_results_qualify_full(void **state)
{
	(void)state;
	same_on("examples/plans/qualify-full.yaml");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_results_quickstart),
		cmocka_unit_test(test_same_results_qualify_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
