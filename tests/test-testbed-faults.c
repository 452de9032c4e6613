/* SPDX-License-Identifier: MIT */
/*
 * test-testbed-faults: what a campaign makes of a testbed that measures nothing or measures
 * nonsense, through the real binary. A dead testbed (every baseline trial times out, here a
 * simulated CX-6 asked for more encap contexts than it holds, with no criteria) is never
 * QUALIFIED: exit 3, a message that says the baseline could not be measured, a failed
 * campaign.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e_util.h"

struct ctx {
	char dir[64], plan[256], db[256];
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	snprintf(c->dir, sizeof(c->dir), "%s", e2e_tmpdir());
	snprintf(c->db, sizeof(c->db), "%s/x.db", c->dir);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	e2e_rmdir(c->dir);
	free(c);
	return 0;
}

/* 64K encap contexts on a CX-6 profile that holds 2048: every trial times out. */
static void write_dead_plan(struct ctx *c)
{
	char text[1024];

	snprintf(c->plan, sizeof(c->plan), "%s/dead.yaml", c->dir);
	snprintf(text, sizeof(text),
		 "name: dead\ntestbed: %s\nrepeats: 2\n"
		 "fixed: {flows: 64K, encap_contexts: 64K, client.encap_masks: 1}\n"
		 "dimensions:\n  - name: server.decap_masks\n    levels: [2, 4]\n"
		 "    neutral: 1\n", e2e_src("examples/testbeds/sim-cx6.yaml"));
	e2e_write_file(c->plan, text);
}

static void test_faults_dead_testbed_never_qualifies(void **state)
{
	struct ctx *c = *state;
	const char *run[] = { "run", c->plan, "--db", c->db, "--quiet", NULL };
	const char *json[] = { "run", c->plan, "--db", c->db, "--json", NULL };
	const char *status[] = { "status", "--db", c->db, NULL };
	struct e2e_run r;

	write_dead_plan(c);
	assert_int_equal(e2e_scalacn_run(&r, run), 3);
	assert_null(strstr(r.out, "QUALIFIED"));
	assert_non_null(strstr(r.err, "the baseline (write bw) could not be measured: all 2 "
			       "trials failed (timeout)"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, json), 3);
	assert_null(strstr(r.out, "qualified"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, status), 0);
	assert_non_null(strstr(r.out, "failed"));
	assert_null(strstr(r.out, "done"));
	e2e_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_faults_dead_testbed_never_qualifies, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
