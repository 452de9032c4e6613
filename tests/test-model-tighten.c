/* SPDX-License-Identifier: MIT */
/*
 * test-model-tighten: the model phase's spare budget (plan key model.max_layouts,
 * harness/campaign/hx_model_tighten.c), through the real `scalacn run` on the simulated
 * BlueField-3 (2% trial noise) under Zipf traffic: without the key no point has more than
 * model.layouts layouts; with it, points whose value is not known to 0.5% get more, never
 * above the key, their first layouts the same trials; under a budget that runs short in the
 * tightening, a second run on the same store measures nothing new (it decides from the
 * stored trials what the first decided: the expected cost per trial counts the stored
 * ones, which it did not before); a key below model.layouts, or with one layout a point,
 * is refused, exit 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "e2e_util.h"

/* The layouts of the model phase's points: LAYOUTS(K) is 1 + the highest layout index of
 * each point (its levels without the layout), KEY the point. */
#define LAYOUTS_BY_POINT                                                                   \
	"select json_remove(levels_json, '$.layout') k, "                                   \
	"1 + max(coalesce(json_extract(levels_json, '$.layout'), 0)) n from points "        \
	"where phase = 'model' group by k"

/* The plan in DIR/NAME.yaml: write bw over server decap masks on the BF-3 sim, a model
 * phase of LAYOUTS layouts a point, MAX_LAYOUTS (0: key absent), BUDGET_H (0: none). */
static void write_plan(const struct e2e_dir_ctx *c, const char *name, unsigned max_layouts,
		       double budget_h, char *path, size_t len)
{
	char text[2048], extra[128] = "", budget[64] = "";

	if (max_layouts)
		snprintf(extra, sizeof(extra), "  max_layouts: %u\n", max_layouts);
	if (budget_h > 0)
		snprintf(budget, sizeof(budget), "budget_hours: %.6f\n", budget_h);
	snprintf(text, sizeof(text),
		 "name: %s\nseed: 3\ntestbed: %s\nrepeats: 3\n%sverbs: [write]\nmetrics: [bw]\n"
		 "fixed:\n  popularity: zipf\n  zipf_s: 1.0\n"
		 "dimensions:\n  - name: server.decap_masks\n    levels: [4, 64]\n    neutral: 1\n"
		 "model:\n  levels: 4\n  layouts: 4\n%s",
		 name, e2e_src("examples/testbeds/sim-bf3.yaml"), budget, extra);
	snprintf(path, len, "%s/%s.yaml", c->dir, name);
	assert_int_equal(e2e_write_file(path, text), 0);
}

/* Run PLAN into DB; its exit status; *HOURS (may be NULL) the testbed-hours the run
 * accounted (its trials', stored ones read back included: what its budget is held to). */
static int run(const char *plan, const char *db, double *hours)
{
	struct e2e_run r;
	const char *args[] = { "run", plan, "--db", db, "--quiet", "--json", NULL };
	int status = e2e_scalacn_run(&r, args);
	json_object *doc = json_tokener_parse(r.out), *acc, *h;

	if (status != 0)
		fprintf(stderr, "%s\n", r.err);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "accounting", &acc));
	assert_true(json_object_object_get_ex(acc, "testbed_hours", &h));
	if (hours)
		*hours = json_object_get_double(h);
	json_object_put(doc);
	e2e_run_free(&r);
	return status;
}

/* SELECT (an aggregate) over the model phase's trials of layouts 1..3 (layout 0's
 * point is other phases' too). */
static long first_layouts(const char *db, const char *select)
{
	char q[1024];

	snprintf(q, sizeof(q),
		 "select %s from trials t join points p on p.id = t.point where p.phase = "
		 "'model' and json_extract(p.levels_json, '$.layout') between 1 and 3",
		 select);
	return e2e_sql_long(db, q);
}

/* WHAT over the model points' layout counts (column n) that satisfy WHERE. */
static long layouts(const char *db, const char *what, const char *where)
{
	char q[1024];

	snprintf(q, sizeof(q), "select %s from (%s) where %s", what, LAYOUTS_BY_POINT, where);
	return e2e_sql_long(db, q);
}

static void test_tighten(void **state)
{
	const struct e2e_dir_ctx *c = *state;
	char plan[1024], db4[1100], db16[1100], dbb[1100];
	double plain_h, full_h;
	long before;

	snprintf(db4, sizeof(db4), "%s/l4.db", c->dir);
	snprintf(db16, sizeof(db16), "%s/l16.db", c->dir);
	snprintf(dbb, sizeof(dbb), "%s/budget.db", c->dir);
	write_plan(c, "l4", 0, 0, plan, sizeof(plan));
	assert_int_equal(run(plan, db4, &plain_h), 0);
	assert_int_equal(layouts(db4, "max(n)", "1"), 4);

	write_plan(c, "l16", 16, 0, plan, sizeof(plan));
	assert_int_equal(run(plan, db16, &full_h), 0);
	assert_int_equal(layouts(db16, "max(n)", "1"), 16);
	assert_true(layouts(db16, "count(*)", "n > 4") > 0);
	/* a point has its first 4, then doubles: 4, 8 or 16 */
	assert_int_equal(layouts(db16, "count(*)", "n not in (4, 8, 16)"), 0);
	/* the layouts both measured are the same trials */
	assert_int_equal(first_layouts(db4, "count(*)"), first_layouts(db16, "count(*)"));
	assert_int_equal(first_layouts(db4, "cast(sum(t.bw_gbps) * 1000 as int)"),
			 first_layouts(db16, "cast(sum(t.bw_gbps) * 1000 as int)"));

	/* a budget that runs out in the tightening, then the same plan again */
	assert_true(full_h > plain_h);
	write_plan(c, "budget", 16, (plain_h + full_h) / 2, plan, sizeof(plan));
	assert_int_equal(run(plan, dbb, NULL), 0);
	before = e2e_trial_count(dbb);
	assert_true(before > e2e_trial_count(db4) && before < e2e_trial_count(db16));
	assert_int_equal(run(plan, dbb, NULL), 0);
	assert_int_equal(e2e_trial_count(dbb), before); /* nothing new measured */
}

/* Run PLAN, expecting exit 2 with WHAT at line 17 of NAME and nothing stored in DB. */
static void refused(const char *plan, const char *db, const char *name, const char *what)
{
	struct e2e_run r;
	const char *args[] = { "run", plan, "--db", db, "--quiet", NULL };
	char where[64];

	snprintf(where, sizeof(where), "%s.yaml:17:", name);
	assert_int_equal(e2e_scalacn_run(&r, args), 2);
	assert_non_null(strstr(r.err, where));
	assert_non_null(strstr(r.err, what));
	e2e_run_free(&r);
	assert_int_equal(access(db, F_OK), -1); /* nothing stored */
}

static void test_max_layouts_refused(void **state)
{
	const struct e2e_dir_ctx *c = *state;
	char plan[1024], db[1100], *text, *at;

	snprintf(db, sizeof(db), "%s/bad.db", c->dir);
	write_plan(c, "bad", 2, 0, plan, sizeof(plan));
	refused(plan, db, "bad", "model.max_layouts: 2 is out of range [4, 64]");
	/* one layout a point: no spread over layouts to say which points are short */
	write_plan(c, "one", 8, 0, plan, sizeof(plan));
	text = e2e_read_file(plan);
	assert_non_null(text);
	at = strstr(text, "layouts: 4");
	assert_non_null(at);
	at[strlen("layouts: ")] = '1';
	assert_int_equal(e2e_write_file(plan, text), 0);
	free(text);
	refused(plan, db, "one", "model.max_layouts: needs model.layouts of 2 or more");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tighten, e2e_dir_setup,
						e2e_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_max_layouts_refused, e2e_dir_setup,
						e2e_ctx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
