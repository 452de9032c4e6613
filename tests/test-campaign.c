/* SPDX-License-Identifier: MIT */
/*
 * test-campaign: campaigns end to end on the simulated testbed, through the real binary:
 * the quickstart finds the CX-6 wall, trials are committed and never measured twice, a
 * campaign killed with SIGKILL at a random trial and resumed ends with exactly the result of
 * an uninterrupted run, SIGINT, SIGTERM and SIGHUP exit 130 with a resume hint, JUnit output
 * validates against the schema's required elements, and exit codes follow the contract.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <sqlite3.h>

#include "e2e_util.h"

struct ctx {
	const char *dir;
	char db[256], plan[256], testbed[256];
};

/* A small plan on CX-6 (flows and receive-side masks), paced so a run takes ~1-2 s. */
static void write_inputs(struct ctx *c, double pace)
{
	e2e_write_paced_inputs(c->dir, "e2e", pace, c->plan, sizeof(c->plan), c->testbed,
			       sizeof(c->testbed));
	snprintf(c->db, sizeof(c->db), "%s/run.db", c->dir);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	c->dir = strdup(e2e_tmpdir());
	write_inputs(c, 0);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	e2e_rmdir(c->dir);
	free((void *)c->dir);
	free(c);
	return 0;
}

/* The outcome without its "accounting" part, as canonical JSON text (owned). */
static char *result_of(const char *json)
{
	struct json_object *root = json_tokener_parse(json);
	char *text;

	assert_non_null(root);
	json_object_object_del(root, "accounting");
	text = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
	json_object_put(root);
	return text;
}

static int run_json(const char *plan, const char *db, char **json, bool resume)
{
	struct e2e_run r;
	const char *args[] = { "run", plan, "--db", db, "--json", "--quiet",
			       resume ? "--resume" : NULL, NULL };
	int st = e2e_scalacn_run(&r, args);

	if (st != 0 && st != 1)
		fprintf(stderr, "run failed (%d): %s\n", st, r.err);
	*json = r.out;
	free(r.err);
	return st;
}

static void test_campaign_finds_cx6_flow_wall(void **state)
{
	struct ctx *c = *state;
	struct json_object *root, *walls;
	char *json = NULL;
	bool found = false;

	assert_int_equal(run_json(c->plan, c->db, &json, false), 1);
	root = json_tokener_parse(json);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "walls", &walls));
	for (size_t i = 0; i < json_object_array_length(walls); i++) {
		struct json_object *w = json_object_array_get_idx(walls, i), *v;
		double level;

		json_object_object_get_ex(w, "dimension", &v);
		if (strcmp(json_object_get_string(v), "flows"))
			continue;
		json_object_object_get_ex(w, "found", &v);
		assert_true(json_object_get_boolean(v));
		json_object_object_get_ex(w, "level", &v);
		level = json_object_get_double(v);
		/* CX-6 collapses between 7K and 8K offloaded flows. */
		assert_true(level > 7000 && level <= 8192);
		found = true;
	}
	assert_true(found);
	/* the baseline's noise is in the output: cv, and whether the plan can decide at it */
	assert_true(json_object_object_get_ex(root, "baselines", &walls));
	{
		struct json_object *b = json_object_array_get_idx(walls, 0), *v;

		assert_true(json_object_object_get_ex(b, "cv", &v));
		assert_true(json_object_get_double(v) > 0 && json_object_get_double(v) < 0.05);
		assert_true(json_object_object_get_ex(b, "too_noisy", &v));
		assert_false(json_object_get_boolean(v));
	}
	assert_true(json_object_object_get_ex(root, "sequential", &walls));
	json_object_put(root);
	free(json);
}

static void test_campaign_rerun_measures_nothing_new(void **state)
{
	struct ctx *c = *state;
	char *a = NULL, *b = NULL;
	long n1, n2;

	run_json(c->plan, c->db, &a, false);
	n1 = e2e_trial_count(c->db);
	run_json(c->plan, c->db, &b, false);
	n2 = e2e_trial_count(c->db);
	assert_true(n1 > 10);
	assert_int_equal(n1, n2);
	{
		char *ra = result_of(a), *rb = result_of(b);

		assert_string_equal(ra, rb);
		free(ra);
		free(rb);
	}
	assert_non_null(strstr(b, "\"measured\":0"));
	free(a);
	free(b);
}

/* Wait until DB holds N trials while PID runs; false when it ended first or after 60 s. */
static bool wait_for_trials(pid_t pid, const char *db, long n)
{
	for (int i = 0; i < 30000; i++) {
		if (e2e_trial_count(db) >= n)
			return true;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		usleep(2000);
	}
	return false;
}

static void test_campaign_kill9_then_resume_equals_uninterrupted(void **state)
{
	struct ctx *c = *state;
	char *whole = NULL, *resumed = NULL, out[300], err[300], db2[300];
	long total, at, seen;
	pid_t pid;
	int st;

	assert_int_not_equal(run_json(c->plan, c->db, &whole, false), 2);
	total = e2e_trial_count(c->db);
	write_inputs(c, 0.02); /* same plan; the testbed now takes real time per trial */
	snprintf(db2, sizeof(db2), "%s/killed.db", c->dir);
	snprintf(out, sizeof(out), "%s/k.out", c->dir);
	snprintf(err, sizeof(err), "%s/k.err", c->dir);
	srand((unsigned)time(NULL));
	at = 1 + rand() % (total - 2);
	{
		const char *args[] = { "run", c->plan, "--db", db2, "--quiet", NULL };

		pid = e2e_scalacn_spawn(args, out, err);
	}
	assert_true(wait_for_trials(pid, db2, at));
	kill(pid, SIGKILL);
	st = e2e_wait(pid);
	assert_int_equal(st, 128 + SIGKILL);
	seen = e2e_trial_count(db2);
	print_message("killed at trial %ld of %ld (asked for %ld)\n", seen, total, at);
	assert_true(seen < total);
	assert_int_not_equal(run_json(c->plan, db2, &resumed, true), 2);
	assert_int_equal(e2e_trial_count(db2), total);
	{
		char *a = result_of(whole), *b = result_of(resumed);

		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	free(whole);
	free(resumed);
}

static void test_campaign_signals_exit_130_with_hint(void **state)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP }; /* a closed terminal is a stop */
	struct ctx *c = *state;
	char out[300], err[300], db[300], *text;
	const char *args[] = { "run", c->plan, "--db", db, "--quiet", NULL };
	const char *resume[] = { "run", c->plan, "--db", db, "--quiet", "--resume", NULL };
	struct e2e_run r;
	pid_t pid;

	write_inputs(c, 0.02);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		snprintf(db, sizeof(db), "%s/sig%zu.db", c->dir, i);
		snprintf(out, sizeof(out), "%s/i%zu.out", c->dir, i);
		snprintf(err, sizeof(err), "%s/i%zu.err", c->dir, i);
		pid = e2e_scalacn_spawn(args, out, err);
		assert_true(wait_for_trials(pid, db, 3));
		kill(pid, sigs[i]);
		assert_int_equal(e2e_wait(pid), 130);
		text = e2e_read_file(err);
		assert_non_null(strstr(text, "--resume"));
		free(text);
	}
	assert_int_equal(e2e_scalacn_run(&r, resume), 1); /* the last one (SIGHUP) resumes */
	e2e_run_free(&r);
}

static void test_campaign_junit_validates(void **state)
{
	struct ctx *c = *state;
	char junit[300], cmd[1024], *xml;
	struct e2e_run r;
	const char *args[] = { "run", c->plan, "--db", c->db, "--quiet", "--junit", junit, NULL };

	snprintf(junit, sizeof(junit), "%s/out.xml", c->dir);
	assert_int_equal(e2e_scalacn_run(&r, args), 1);
	e2e_run_free(&r);
	xml = e2e_read_file(junit);
	assert_non_null(xml);
	assert_non_null(strstr(xml, "<testcase"));
	assert_non_null(strstr(xml, "write bw at 8K flows"));
	assert_non_null(strstr(xml, "<failure"));
	free(xml);
	snprintf(cmd, sizeof(cmd), "xmllint --noout --schema %s %s 2>/dev/null",
		 e2e_src("tests/junit.xsd"), junit);
	if (system("command -v xmllint >/dev/null") == 0)
		assert_int_equal(system(cmd), 0);
}

/* Suspects are listed apart in JUnit: a skipped testcase that says why the row is not a
 * cause (tests/plans/suspects.yaml keeps one), counted in the suite's skipped. */
static void test_campaign_junit_suspects(void **state)
{
	struct ctx *c = *state;
	char junit[300], cmd[1024], *xml, *suspect;
	struct e2e_run r;
	const char *args[] = { "run", e2e_src("tests/plans/suspects.yaml"), "--db", c->db,
			       "--quiet", "--junit", junit, NULL };

	snprintf(junit, sizeof(junit), "%s/suspects.xml", c->dir);
	assert_true(e2e_scalacn_run(&r, args) <= 1);
	e2e_run_free(&r);
	xml = e2e_read_file(junit);
	assert_non_null(xml);
	suspect = strstr(xml, "name=\"suspect: ");
	assert_non_null(suspect);
	assert_non_null(strstr(suspect, " (write bw)\""));
	assert_true(strstr(suspect, " (write bw)\"") < strchr(suspect, '>'));
	assert_non_null(strstr(xml, "<skipped type=\"scalacn\" message=\"not a cause: "));
	assert_non_null(strstr(xml, "skipped=\"1\""));
	assert_null(strstr(xml, "nan%"));
	free(xml);
	snprintf(cmd, sizeof(cmd), "xmllint --noout --schema %s %s 2>/dev/null",
		 e2e_src("tests/junit.xsd"), junit);
	if (system("command -v xmllint >/dev/null") == 0)
		assert_int_equal(system(cmd), 0);
}

static void test_campaign_exit_codes(void **state)
{
	struct ctx *c = *state;
	char bad[300], pt[300];
	struct e2e_run r;
	const char *missing[] = { "run", "/nonexistent/plan.yaml", "--db", c->db, NULL };
	const char *badtb[] = { "run", c->plan, "--testbed", bad, "--db", c->db, NULL };
	const char *resume[] = { "run", c->plan, "--db", pt, "--resume", NULL };

	snprintf(bad, sizeof(bad), "%s/bad-tb.yaml", c->dir);
	e2e_write_file(bad, "kind: sim\nprofile: cx6\nfrobnicate: 1\n");
	snprintf(pt, sizeof(pt), "%s/empty.db", c->dir);
	assert_int_equal(e2e_scalacn_run(&r, missing), 2);
	assert_non_null(strstr(r.err, "/nonexistent/plan.yaml"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, badtb), 2);
	assert_non_null(strstr(r.err, "bad-tb.yaml:3:1"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, resume), 2);
	assert_non_null(strstr(r.err, "nothing to resume"));
	e2e_run_free(&r);
}

/* A campaign whose layouts another generator drew (stored before schema 8: xoshiro256**) is
 * not resumed: the rest of its points would be other layouts under the same seeds. */
static void test_campaign_resume_refuses_other_generator(void **state)
{
	struct ctx *c = *state;
	struct e2e_run r;
	const char *run[] = { "run", c->plan, "--db", c->db, "--quiet", NULL };
	const char *resume[] = { "run", c->plan, "--db", c->db, "--quiet", "--resume", NULL };
	sqlite3 *h;

	assert_true(e2e_scalacn_run(&r, run) <= 1);
	e2e_run_free(&r);
	assert_int_equal(sqlite3_open(c->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "UPDATE campaigns SET rng = 'xoshiro256**'", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(e2e_scalacn_run(&r, resume), 2);
	assert_non_null(strstr(r.err, "xoshiro256**"));
	assert_non_null(strstr(r.err, "gsl-taus2"));
	assert_non_null(strstr(r.err, "new --db"));
	e2e_run_free(&r);
}

/* A latency wall where every trial times out (encap contexts past the buffer, S8) has no
 * effect size: the JSON says null and the text and JUnit say the trials failed (they
 * printed -100% and "nan%" before). */
static void test_campaign_latency_timeout_wall(void **state)
{
	struct ctx *c = *state;
	char plan[300], junit[300], *xml;
	struct e2e_run r;
	struct json_object *root, *walls, *w, *v;
	const char *args[] = { "run", plan, "--db", c->db, "--quiet", "--json", NULL };
	const char *text[] = { "run", plan, "--db", c->db, "--quiet", "--junit", junit, NULL };

	snprintf(plan, sizeof(plan), "%s/lat.yaml", c->dir);
	snprintf(junit, sizeof(junit), "%s/lat.xml", c->dir);
	e2e_write_file(plan,
		       "name: lat-timeouts\nseed: 3\nrepeats: 3\nverbs: [write]\nmetrics: [lat]\n"
		       "testbed: tb.yaml\n"
		       "fixed: {msg_size: 2, mtu: 1024, client.encap_masks: 1, client.decap_masks: 1,\n"
		       "        server.encap_masks: 1, server.decap_masks: 1, flows: 4096}\n"
		       "dimensions:\n  - name: encap_contexts\n    levels: [16, 256, 1024, 4096]\n"
		       "criteria:\n  - name: lat at 4K contexts\n    verb: write\n    metric: lat\n"
		       "    at: {encap_contexts: 4096}\n    max_ratio: 1.5\n");
	assert_int_equal(e2e_scalacn_run(&r, args), 1);
	root = json_tokener_parse(r.out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "walls", &walls));
	w = json_object_array_get_idx(walls, 0);
	assert_true(json_object_object_get_ex(w, "class", &v));
	assert_string_equal(json_object_get_string(v), "S8");
	assert_true(json_object_object_get_ex(w, "effect", &v));
	assert_null(v);
	json_object_put(root);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, text), 1);
	assert_non_null(strstr(r.out, "failed"));
	assert_null(strstr(r.out, "nan"));
	e2e_run_free(&r);
	xml = e2e_read_file(junit);
	assert_non_null(strstr(xml, "every trial failed"));
	free(xml);
}

/* A level that forces another (4K encap contexts need 4K flows) is repaired in the wall
 * search exactly as in the causal phase, so the wall table and the causes agree (the wall
 * search stopped with "no wall up to 0; ... need at least 1024 flows" while the causes said
 * encap_contexts@4096). */
static void test_campaign_coupled_levels_agree(void **state)
{
	struct ctx *c = *state;
	char plan[300];
	struct e2e_run r;
	struct json_object *root, *walls, *causes, *w, *v, *cw;
	const char *args[] = { "run", plan, "--db", c->db, "--quiet", "--json", NULL };

	snprintf(plan, sizeof(plan), "%s/coupled.yaml", c->dir);
	e2e_write_file(plan,
		       "name: coupled\nseed: 3\nrepeats: 3\nverbs: [write]\nmetrics: [bw]\n"
		       "testbed: tb.yaml\n"
		       "fixed: {client.encap_masks: 1, server.decap_masks: 1}\n"
		       "dimensions:\n  - name: encap_contexts\n    levels: [1K, 4K]\n"
		       "  - name: flows\n    levels: [1K, 2K]\n    neutral: 256\n");
	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	root = json_tokener_parse(r.out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "walls", &walls));
	w = json_object_array_get_idx(walls, 0);
	json_object_object_get_ex(w, "dimension", &v);
	assert_string_equal(json_object_get_string(v), "encap_contexts");
	json_object_object_get_ex(w, "found", &v);
	assert_true(json_object_get_boolean(v));
	assert_false(json_object_object_get_ex(w, "note", &v) &&
		     strstr(json_object_get_string(v), "stopped"));
	assert_true(json_object_object_get_ex(root, "causes", &causes));
	assert_int_equal(json_object_array_length(causes), 1);
	json_object_object_get_ex(json_object_array_get_idx(causes, 0), "walls", &cw);
	json_object_object_get_ex(w, "level", &v);
	assert_true(json_object_get_double(json_object_array_get_idx(cw, 0)) ==
		    json_object_get_double(v));
	json_object_put(root);
	e2e_run_free(&r);
}

/* Every trial id an explanation names is a trial of the store (a vendor can look it up). */
static void assert_ids_stored(const char *db, struct json_object *ids)
{
	sqlite3 *h;

	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	for (size_t i = 0; ids && i < json_object_array_length(ids); i++) {
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_prepare_v2(h, "SELECT count(*) FROM trials WHERE id = ?1", -1,
						    &st, NULL), SQLITE_OK);
		sqlite3_bind_int64(st, 1, json_object_get_int64(json_object_array_get_idx(ids, i)));
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), 1);
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
}

/* `scalacn explain` from the database alone (plan and testbed files gone): for a cause, the
 * stress point, the baseline, each dimension's sensitivity with its interval and why it is a
 * candidate or not, each removal order step by step, the points with and without it, the
 * replicate, and the trials behind each. */
static void test_campaign_explain_from_store(void **state)
{
	struct ctx *c = *state;
	struct e2e_run r;
	struct json_object *root, *ev, *sens, *orders, *steps;
	char *json = NULL;
	const char *text_args[] = { "explain", "--db", c->db, NULL };
	const char *json_args[] = { "explain", "--db", c->db, "--json", "1", NULL };
	const char *bad_args[] = { "explain", "--db", c->db, "99", NULL };

	assert_int_equal(run_json(c->plan, c->db, &json, false), 1);
	free(json);
	unlink(c->plan);
	unlink(c->testbed);
	assert_int_equal(e2e_scalacn_run(&r, text_args), 0);
	assert_non_null(strstr(r.out, "Cause 1 (id "));
	assert_non_null(strstr(r.out, "baseline: "));
	assert_non_null(strstr(r.out, "sensitivity at the stress point"));
	assert_non_null(strstr(r.out, "interval excludes zero"));
	assert_non_null(strstr(r.out, "removal orders"));
	assert_non_null(strstr(r.out, "cured"));
	assert_non_null(strstr(r.out, "replicate (fresh trials)"));
	assert_non_null(strstr(r.out, "trials "));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, json_args), 0);
	root = json_tokener_parse(r.out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "causes", &sens)); /* docs/json.md: explain */
	assert_int_equal(json_object_array_length(sens), 1);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(sens, 0), "evidence", &ev));
	assert_true(json_object_object_get_ex(ev, "stress_point", &sens));
	assert_true(json_object_object_get_ex(ev, "sensitivity", &sens));
	assert_true(json_object_array_length(sens) > 0);
	assert_true(json_object_object_get_ex(ev, "orders", &orders));
	assert_true(json_object_array_length(orders) >= 1);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(orders, 0), "steps", &steps));
	assert_true(json_object_array_length(steps) >= 1);
	for (size_t i = 0; i < json_object_array_length(steps); i++) {
		struct json_object *st = json_object_array_get_idx(steps, i), *ids;

		assert_true(json_object_object_get_ex(st, "result", &ids));
		assert_true(json_object_object_get_ex(st, "trial_ids", &ids));
		assert_true(json_object_array_length(ids) > 0);
		assert_ids_stored(c->db, ids);
	}
	json_object_put(root);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, bad_args), 2);
	assert_non_null(strstr(r.err, "not 99"));
	e2e_run_free(&r);
}

/* The member names of each cause of a JSON "causes" array, "a,b" per cause. */
static int n_causes_with(struct json_object *causes, const char *a, const char *b)
{
	int n = 0;

	for (size_t i = 0; causes && i < json_object_array_length(causes); i++) {
		struct json_object *m;

		json_object_object_get_ex(json_object_array_get_idx(causes, i), "members", &m);
		if (json_object_array_length(m) == 2 &&
		    !strcmp(json_object_get_string(json_object_array_get_idx(m, 0)), a) &&
		    !strcmp(json_object_get_string(json_object_array_get_idx(m, 1)), b))
			n++;
	}
	return n;
}

/* Write the planted-interaction plan (testbeds/sim/profiles/test-qp-pages.yaml: many QPs hurt
 * only with small pages) into C's directory with CRITERIA appended; its path into PLAN. */
static void write_qp_plan(struct ctx *c, const char *criteria, char *plan, size_t n)
{
	char tb[300], text[1200];

	snprintf(tb, sizeof(tb), "%s/qp.yaml", c->dir);
	snprintf(text, sizeof(text), "kind: sim\nprofile: %s\n",
		 e2e_src("testbeds/sim/profiles/test-qp-pages.yaml"));
	e2e_write_file(tb, text);
	snprintf(plan, n, "%s/qp-plan.yaml", c->dir);
	snprintf(text, sizeof(text),
		 "name: qp-pages\nseed: 5\nrepeats: 5\nverbs: [write]\nmetrics: [bw]\n"
		 "testbed: qp.yaml\ndimensions:\n"
		 "  - name: qps\n    levels: [64, 1K]\n"
		 "  - name: flows\n    levels: [1K, 4K]\n    neutral: 256\n"
		 "  - name: page_size\n    levels: [4K, 64K, 2M]\n    neutral: 2M\n"
		 "    scale: false\n"
		 "thresholds: {bw_drop: 10%%, significance: 0.01}\n%s", criteria);
	e2e_write_file(plan, text);
}

/* The shipped test profile with a planted interaction: cct and brute force both name one
 * cause with both members, and no other. */
static void test_campaign_planted_interaction_cct_and_brute(void **state)
{
	struct ctx *c = *state;
	char plan[300];
	struct e2e_run r;
	struct json_object *root, *causes;
	const char *run_args[] = { "run", plan, "--db", c->db, "--quiet", "--json", NULL };
	const char *brute_args[] = { "analyze", "--db", c->db, "--strategy", "brute", "--json",
				     NULL };

	write_qp_plan(c, "", plan, sizeof(plan));
	for (int k = 0; k < 2; k++) {
		assert_true(e2e_scalacn_run(&r, k ? brute_args : run_args) <= 1);
		root = json_tokener_parse(r.out);
		assert_non_null(root);
		assert_true(json_object_object_get_ex(root, "causes", &causes));
		assert_int_equal(json_object_array_length(causes), 1);
		assert_int_equal(n_causes_with(causes, "qps", "page_size"), 1);
		json_object_put(root);
		e2e_run_free(&r);
	}
}

/* A supported cause inside the qualified ranges fails the plan like a wall: each criterion
 * holds (QPs alone, small pages alone do not hurt) and no single-dimension wall exists, but
 * the {qps, page_size} interaction lies inside both criteria's ranges (page_size's below its
 * neutral 2M), so the run is NOT QUALIFIED, exit 1, and says why. Qualifying qps only up to
 * 64 puts the cause outside: exit 0. */
static void test_campaign_cause_in_range_fails_verdict(void **state)
{
	struct ctx *c = *state;
	char plan[300];
	struct e2e_run r;
	const char *args[] = { "run", plan, "--db", c->db, "--quiet", NULL };
	static const char crit[] =
		"criteria:\n"
		"  - {name: many qps, verb: write, metric: bw, at: {qps: %s}, min_ratio: 90%%}\n"
		"  - {name: small pages, verb: write, metric: bw, at: {page_size: 4K},"
		" min_ratio: 90%%}\n";
	char text[400];

	snprintf(text, sizeof(text), crit, "1K");
	write_qp_plan(c, text, plan, sizeof(plan));
	assert_int_equal(e2e_scalacn_run(&r, args), 1);
	assert_non_null(strstr(r.out, "0 of 2 criteria failed"));
	assert_non_null(strstr(r.out, "0 inside the qualified range, 1 causes, 1 of them inside it"));
	assert_non_null(strstr(r.out, "Result: NOT QUALIFIED"));
	e2e_run_free(&r);

	snprintf(text, sizeof(text), crit, "64");
	write_qp_plan(c, text, plan, sizeof(plan));
	unlink(c->db);
	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	assert_non_null(strstr(r.out, "1 causes, 0 of them inside it"));
	assert_non_null(strstr(r.out, "Result: QUALIFIED"));
	e2e_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_campaign_finds_cx6_flow_wall, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_rerun_measures_nothing_new, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_kill9_then_resume_equals_uninterrupted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_signals_exit_130_with_hint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_junit_validates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_junit_suspects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_exit_codes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_resume_refuses_other_generator, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_campaign_latency_timeout_wall, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_coupled_levels_agree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_explain_from_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_planted_interaction_cct_and_brute, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_campaign_cause_in_range_fails_verdict, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
