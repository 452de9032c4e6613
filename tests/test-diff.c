/* SPDX-License-Identifier: MIT */
/*
 * test-diff: `scalacn diff` through the real binary. The quickstart on the simulated CX-6
 * and on the simulated CX-7 (one database): the decap-masks wall moves (21 masks on CX-6, a
 * slope from 1 on CX-7) and the flows wall goes, so `--fail-on wall-moved` exits 1 naming
 * them, with JUnit that validates against tests/junit.xsd; the criterion's verdict changed
 * (FAIL -> PASS); the flows cause is lost, none gained. The same quickstart twice (two
 * databases) differs in nothing: exit 0. Fitted models (the model plan on CX-7 and CX-6):
 * CX-6's predictions at CX-7's points leave CX-7's intervals (exit 1 with --fail-on model),
 * the same campaign twice predicts the same. `report --baseline` adds the diff section.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e_util.h"
#include "report-util.h"

struct ctx {
	char dir[64], db[256], db2[256], junit[256];
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	snprintf(c->dir, sizeof(c->dir), "%s", e2e_tmpdir());
	snprintf(c->db, sizeof(c->db), "%s/two.db", c->dir);
	snprintf(c->db2, sizeof(c->db2), "%s/again.db", c->dir);
	snprintf(c->junit, sizeof(c->junit), "%s/diff.xml", c->dir);
	if (rpt_quickstart(c->db, NULL) != 1 ||
	    rpt_quickstart(c->db, e2e_src("examples/testbeds/sim-cx7.yaml")) != 0 ||
	    rpt_quickstart(c->db2, NULL) != 1)
		return -1;
	*state = c;
	return 0;
}

/* diff A B --db DB --fail-on GATES --junit FILE; stdout into *OUT (owned). */
static int diff(const struct ctx *c, const char *a, const char *b, const char *gates, char **out)
{
	const char *args[] = { "diff", a, b, "--db", c->db, "--junit", c->junit, "--fail-on",
			       gates, NULL };

	return rpt_scalacn(args, out);
}

static void junit_valid(const struct ctx *c, const char *failures)
{
	char cmd[700], *xml;

	snprintf(cmd, sizeof(cmd), "xmllint --noout --schema '%s' '%s' 2>&1",
		 e2e_src("tests/junit.xsd"), c->junit);
	assert_int_equal(rpt_shell(cmd, NULL), 0);
	assert_non_null(xml = e2e_read_file(c->junit));
	assert_non_null(strstr(xml, failures));
	free(xml);
}

static void test_wall_moved(void **state)
{
	struct ctx *c = *state;
	char *out;

	assert_int_equal(diff(c, "1", "2", "wall-moved", &out), 1);
	assert_non_null(strstr(out, "wall-moved    write bw wall along server.decap_masks"));
	assert_non_null(strstr(out, "A: at 21 (last good 20)"));
	assert_non_null(strstr(out, "wall-lost     write bw wall along flows"));
	assert_non_null(strstr(out, "Result: CHANGED"));
	free(out);
	junit_valid(c, "failures=\"1\"");
}

static void test_criterion_and_causes(void **state)
{
	struct ctx *c = *state;
	char *out;

	assert_int_equal(diff(c, "1", "2", "criterion", &out), 1);
	assert_non_null(strstr(out, "A: FAIL: ratio 0.3")); /* 32.5 of ~88.5 Gb/s */
	assert_non_null(strstr(out, "B: PASS: ratio"));
	free(out);
	assert_int_equal(diff(c, "1", "2", "new-cause", &out), 0); /* CX-7: decap masks only */
	free(out);
	assert_int_equal(diff(c, "1", "2", "lost-cause", &out), 1);
	assert_non_null(strstr(out, "cause-lost    cause flows (write bw)"));
	free(out);
	junit_valid(c, "failures=\"1\"");
}

static void test_identical(void **state)
{
	struct ctx *c = *state;
	char b[300], *out;

	snprintf(b, sizeof(b), "%s:1", c->db2);
	assert_int_equal(diff(c, "1", b, "wall-moved,new-cause,lost-cause,criterion,model", &out), 0);
	assert_non_null(strstr(out, "Compared: 2 walls, 2 causes, 1 criteria"));
	assert_non_null(strstr(out, "No change."));
	free(out);
	junit_valid(c, "failures=\"0\"");
	assert_int_equal(diff(c, c->db2, "1", "wall-moved", &out), 0); /* DB: its newest */
	free(out);
}

/* The model plan on TESTBED (NULL: its CX-7) into DIR/NAME, fitted on its causes' inputs. */
static void model_db(const struct ctx *c, const char *name, const char *testbed, char *db,
		     size_t len)
{
	const char *run[] = { "run", e2e_src("examples/plans/quickstart-model.yaml"), "--db", db,
			      "--quiet", testbed ? "--testbed" : NULL, testbed, NULL };
	const char *fit[] = { "fit", "--db", db, "--inputs", "causes", NULL };

	snprintf(db, len, "%s/%s", c->dir, name);
	rpt_scalacn(run, NULL);
	assert_int_equal(rpt_scalacn(fit, NULL), 0);
}

/* Models: CX-6's predictions at CX-7's measured points (8: the model phase's, over rule
 * layouts) leave CX-7's interval (exit 1); the same campaign twice predicts the same
 * (exit 0). */
static void test_models(void **state)
{
	struct ctx *c = *state;
	char a[300], b[300], a2[300], *out;

	model_db(c, "m7.db", NULL, a, sizeof(a));
	model_db(c, "m6.db", e2e_src("examples/testbeds/sim-cx6.yaml"), b, sizeof(b));
	model_db(c, "m7b.db", NULL, a2, sizeof(a2));
	assert_int_equal(diff(c, a, b, "model", &out), 1);
	assert_non_null(strstr(out, "model         model write bw at 8 measured points\n"));
	assert_non_null(strstr(out, "8 points outside A's 95% interval"));
	free(out);
	assert_int_equal(diff(c, a, a2, "model,wall-moved,criterion,new-cause,lost-cause", &out), 0);
	assert_non_null(strstr(out, "the same predictions at every point"));
	free(out);
}

static void test_usage(void **state)
{
	struct ctx *c = *state;
	char *out;

	assert_int_equal(diff(c, "1", "2", "wall-moved,bogus", &out), 2);
	free(out);
	assert_int_equal(diff(c, "1", "9", "wall-moved", &out), 2);
	free(out);
}

static void test_report_baseline(void **state)
{
	struct ctx *c = *state;
	char dir[300], path[400], *page;
	const char *args[] = { "report", "--db", c->db, "--campaign", "2", "--baseline", "1",
			       "-o", dir, NULL };

	snprintf(dir, sizeof(dir), "%s/rep", c->dir);
	assert_int_equal(rpt_scalacn(args, NULL), 0);
	snprintf(path, sizeof(path), "%s/index.html", dir);
	assert_non_null(page = e2e_read_file(path));
	assert_non_null(strstr(page, "<section id=\"diff\">"));
	assert_non_null(strstr(page, "<td>wall-moved</td><td>write bw wall along "
				     "server.decap_masks</td>"));
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wall_moved), cmocka_unit_test(test_criterion_and_causes),
		cmocka_unit_test(test_identical),  cmocka_unit_test(test_models),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_report_baseline),
	};

	return cmocka_run_group_tests(tests, setup, e2e_ctx_teardown);
}
