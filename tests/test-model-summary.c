/* SPDX-License-Identifier: MIT */
/*
 * test-model-summary: what `scalacn run` says about its model phase (harness/cli/
 * hx_model_print.c), through the real CLI on the simulated BlueField-3: with the budget to
 * finish, every design whole, its inputs the causes' dimension, its points each with their
 * layouts, the same counts as the store's model points; with a budget that runs out inside
 * the phase, the designs left short named as such in the text and the JSON; with one that
 * runs out before it, the phase "not reached".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "e2e_util.h"

/* The plan DIR/NAME.yaml: write bw and latency over server decap masks, a model phase of 4
 * levels and 4 layouts a point, BUDGET_H testbed-hours (0: none). */
static void write_plan(const struct e2e_dir_ctx *c, const char *name, double budget_h, char *path,
		       size_t len)
{
	char text[2048], budget[64] = "";

	if (budget_h > 0)
		snprintf(budget, sizeof(budget), "budget_hours: %.6f\n", budget_h);
	snprintf(text, sizeof(text),
		 "name: %s\nseed: 3\ntestbed: %s\nrepeats: 3\n%sverbs: [write]\n"
		 "metrics: [bw, lat]\nfixed:\n  popularity: zipf\n  zipf_s: 1.0\n"
		 "dimensions:\n  - name: server.decap_masks\n    levels: [4, 64]\n    neutral: 1\n"
		 "model:\n  levels: 4\n  layouts: 4\n",
		 name, e2e_src("examples/testbeds/sim-bf3.yaml"), budget);
	snprintf(path, len, "%s/%s.yaml", c->dir, name);
	assert_int_equal(e2e_write_file(path, text), 0);
}

/* Run PLAN into DB with --json when JSON; the output parsed into *DOC (JSON) or kept in
 * *TEXT (to free); the exit status. The testbed-hours a run accounts (its "accounting"),
 * stored trials read back again included, are what its budget is held to. */
static int run(const char *plan, const char *db, bool json, json_object **doc, char **text)
{
	struct e2e_run r;
	const char *args[] = { "run", plan, "--db", db, "--quiet", json ? "--json" : NULL, NULL };
	int status = e2e_scalacn_run(&r, args);

	if (json) {
		*doc = json_tokener_parse(r.out);
		assert_non_null(*doc);
	} else {
		*text = strdup(r.out);
	}
	e2e_run_free(&r);
	return status;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	return v;
}

static long geti(json_object *o, const char *key)
{
	return (long)json_object_get_int64(get(o, key));
}

/* The testbed-hours the model phase's trials in DB cost, in millihours. */
static long model_millihours(const char *db)
{
	return e2e_sql_long(db, "select cast(sum(t.cost_s) / 3.6 as int) from trials t join "
				"points p on p.id = t.point where p.phase = 'model'");
}

/* With no budget: both designs whole, the store's model points and layouts counted. */
static void test_whole_designs(void **state)
{
	const struct e2e_dir_ctx *c = *state;
	char plan[1024], db[1100];
	json_object *doc, *mp, *designs;
	long points = 0, layouts = 0;

	snprintf(db, sizeof(db), "%s/whole.db", c->dir);
	write_plan(c, "whole", 0, plan, sizeof(plan));
	run(plan, db, true, &doc, NULL);
	mp = get(doc, "model_phase");
	assert_true(json_object_get_boolean(get(mp, "ran")));
	assert_false(json_object_get_boolean(get(mp, "budget_out")));
	designs = get(mp, "designs");
	assert_true(json_object_array_length(designs) >= 1);
	for (size_t i = 0; i < json_object_array_length(designs); i++) {
		json_object *d = json_object_array_get_idx(designs, i);

		assert_string_equal(json_object_get_string(json_object_array_get_idx(
					    get(d, "inputs"), 0)), "server.decap_masks");
		assert_true(geti(d, "planned") >= 4);
		assert_int_equal(geti(d, "points"), geti(d, "planned"));
		assert_true(geti(d, "layouts") >= 4 * geti(d, "points"));
		points += geti(d, "points");
		layouts += geti(d, "layouts");
	}
	/* the store's model points (one per layout, each (verb, metric) its own trials) */
	assert_int_equal(e2e_sql_long(db, "select count(distinct json_remove(p.levels_json, "
					  "'$.layout') || t.metric) from trials t join points p on "
					  "p.id = t.point where p.phase = 'model'"),
			 points);
	/* a point's layout 0 may be another phase's point: its other layouts are the phase's */
	assert_int_equal(points + e2e_sql_long(db, "select count(*) from trials t join points "
						   "p on p.id = t.point where p.phase = 'model' "
						   "and json_extract(p.levels_json, '$.layout') "
						   ">= 1"),
			 layouts);
	json_object_put(doc);
}

/* Budgets that run out inside the model phase, then before it. */
static void test_short_budgets(void **state)
{
	const struct e2e_dir_ctx *c = *state;
	char plan[1024], db[1100], dbs[1100], dbn[1100], *text = NULL;
	json_object *doc, *mp, *designs;
	long total, model, short_points = 0, planned = 0;

	snprintf(db, sizeof(db), "%s/full.db", c->dir);
	snprintf(dbs, sizeof(dbs), "%s/short.db", c->dir);
	snprintf(dbn, sizeof(dbn), "%s/none.db", c->dir);
	write_plan(c, "full", 0, plan, sizeof(plan));
	run(plan, db, true, &doc, NULL);
	total = (long)(1000 * json_object_get_double(get(get(doc, "accounting"), "testbed_hours")));
	json_object_put(doc);
	model = model_millihours(db);
	assert_true(model > 0 && total > model);

	write_plan(c, "short", (double)(total - model / 2) / 1000, plan, sizeof(plan));
	run(plan, dbs, true, &doc, NULL);
	mp = get(doc, "model_phase");
	assert_true(json_object_get_boolean(get(mp, "ran")));
	assert_true(json_object_get_boolean(get(mp, "budget_out")));
	designs = get(mp, "designs");
	for (size_t i = 0; i < json_object_array_length(designs); i++) {
		json_object *d = json_object_array_get_idx(designs, i);

		short_points += geti(d, "points");
		planned += geti(d, "planned");
	}
	assert_true(short_points < planned);
	json_object_put(doc);
	run(plan, dbs, false, NULL, &text); /* the same store again: the same account, as text */
	assert_non_null(strstr(text, "designs whole; the budget ran out in it"));
	assert_non_null(strstr(text, "the budget ran out"));
	free(text);

	write_plan(c, "none", (double)(total - model) / 2000, plan, sizeof(plan));
	run(plan, dbn, false, NULL, &text);
	assert_non_null(strstr(text, "Model phase: not reached"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_whole_designs, e2e_dir_setup,
						e2e_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_short_budgets, e2e_dir_setup,
						e2e_ctx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
