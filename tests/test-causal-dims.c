/* SPDX-License-Identifier: MIT */
/*
 * test-causal-dims: the causal analysis at twelve plan dimensions
 * (tests/plans/many-dims/plan.yaml on testbeds/sim/profiles/test-mixed.yaml, three planted
 * causes, one of them an interaction). `scalacn compare` runs brute force and cct, each
 * alone: cct names every planted cause with exactly its members, brute force does too, and
 * every cause cct names is planted or brute force's (no confident false cause). The
 * 6..12-dimension table is bench/bench-causal-dims.c's.
 * And a context that moves the metric by itself (tests/plans/contexts: 64-byte messages on
 * the shipped CX-6): {qps, cores, msg_size} is found by both strategies behind the decap-mask
 * wall, and msg_size alone (the operating point, not a wall) by neither.
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

/* In plan order, as `compare --json` lists a cause's members. */
static const char *const planted[] = { "[\"server.decap_masks\"]", "[\"flows\"]",
				       "[\"qps\",\"page_size\"]" };

static struct json_object *strategy(struct json_object *root, const char *name)
{
	struct json_object *arr, *s, *v;

	assert_true(json_object_object_get_ex(root, "strategies", &arr));
	for (size_t k = 0; k < json_object_array_length(arr); k++) {
		s = json_object_array_get_idx(arr, k);
		if (json_object_object_get_ex(s, "strategy", &v) &&
		    !strcmp(json_object_get_string(v), name))
			return s;
	}
	fail_msg("no strategy %s in compare's JSON", name);
	return NULL;
}

/* Whether strategy S names a cause (or, with LIST "suspects", a suspect) whose members print
 * as MEMBERS. */
static bool names_in(struct json_object *s, const char *list, const char *members)
{
	struct json_object *causes, *m;

	assert_true(json_object_object_get_ex(s, list, &causes));
	for (size_t i = 0; i < json_object_array_length(causes); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(causes, i), "members", &m) &&
		    !strcmp(json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN), members))
			return true;
	return false;
}

static bool names(struct json_object *s, const char *members)
{
	return names_in(s, "causes", members);
}

static bool is_planted(const char *members)
{
	for (size_t i = 0; i < sizeof(planted) / sizeof(planted[0]); i++)
		if (!strcmp(planted[i], members))
			return true;
	return false;
}

/* `scalacn compare --json` of the plan at PLAN (in the source tree), its store in DIR (made
 * from a mkdtemp template): the parsed document. */
static struct json_object *compare_json(char *dir, const char *plan_rel)
{
	char db[300], plan[300];
	const char *args[] = { "compare", "--db", db, "--json", plan, NULL };
	struct json_object *root;
	struct e2e_run r;

	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/compare.db", dir);
	snprintf(plan, sizeof(plan), "%s", e2e_src(plan_rel));
	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	root = json_tokener_parse(r.out);
	assert_non_null(root);
	e2e_run_free(&r);
	return root;
}

static void test_causal_dims_twelve(void **state)
{
	char dir[] = "/tmp/test-causal-dims.XXXXXX";
	struct json_object *root, *brute, *cct, *causes, *m;

	(void)state;
	root = compare_json(dir, "tests/plans/many-dims/plan.yaml");
	brute = strategy(root, "brute");
	cct = strategy(root, "cct");
	for (size_t i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
		if (!names(cct, planted[i]) || !names(brute, planted[i]))
			fail_msg("planted cause %s: cct %d, brute %d", planted[i],
				 names(cct, planted[i]), names(brute, planted[i]));
	}
	assert_true(json_object_object_get_ex(cct, "causes", &causes));
	for (size_t i = 0; i < json_object_array_length(causes); i++) {
		const char *mem;

		assert_true(json_object_object_get_ex(json_object_array_get_idx(causes, i),
						      "members", &m));
		mem = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN);
		if (!is_planted(mem) && !names(brute, mem))
			fail_msg("cct names %s: neither planted nor brute force's", mem);
	}
	json_object_put(root);
	e2e_rmdir(dir);
}

static void test_causal_dims_context_by_itself(void **state)
{
	char dir[] = "/tmp/test-causal-ctx.XXXXXX";
	const char *doorbells = "[\"qps\",\"cores\",\"msg_size\"]", *masks = "[\"server.decap_masks\"]";
	struct json_object *root, *brute, *cct;

	(void)state;
	root = compare_json(dir, "tests/plans/contexts/plan.yaml");
	brute = strategy(root, "brute");
	cct = strategy(root, "cct");
	assert_true(names(cct, doorbells));
	assert_true(names(cct, masks));
	assert_true(names(brute, doorbells));
	assert_true(names(brute, masks)); /* its replicate's outlier gets a second look */
	assert_false(names(cct, "[\"msg_size\"]"));
	assert_false(names(brute, "[\"msg_size\"]"));
	json_object_put(root);
	e2e_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_causal_dims_twelve),
		cmocka_unit_test(test_causal_dims_context_by_itself),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
