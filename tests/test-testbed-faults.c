/* SPDX-License-Identifier: MIT */
/*
 * test-testbed-faults: what a campaign makes of a testbed that measures nothing or measures
 * nonsense, through the real binary. A dead testbed (every baseline trial times out, here a
 * simulated CX-6 asked for more encap contexts than it holds, with no criteria) is never
 * QUALIFIED: exit 3, a message that says the baseline could not be measured, a failed
 * campaign. On a perftest testbed (fake tools and kubectl, tests/ptfake.h) that prints "inf"
 * latencies on two attempts of three, the campaign goes on: those trials are `unusable`
 * (numbers NULL) with their evidence kept (attempts, perftest's line; `trials --json` and
 * `trials --evidence ID`), `trials --json` and `perftest parse --json` stay valid JSON; a testbed
 * that fails on every attempt stops the campaign with exit 3 and a message naming the
 * trial's point, the attempts and perftest's own line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "e2e_util.h"
#include "tests/ptfake.h"

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
	assert_non_null(strstr(r.err, "the baseline (write bw) could not be measured: all 6 "
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

/* A latency plan on a kubectl perftest testbed in DIR whose client runs CLIENT (after the
 * attempt counter); DIR goes first in PATH. */
static void write_perftest_plan(struct ctx *c, const char *fake, const char *client,
				unsigned port_off)
{
	char *counted = ptf_counting(client), *inv, text[1024], *path = NULL;
	const char *old = getenv("PATH");

	ptf_kubectl(fake);
	ptf_tool(fake, "ib_write_lat", counted);
	inv = ptf_inventory(fake, fake, "kubectl", ptf_port_base(port_off), 1);
	assert_true(asprintf(&path, "%s:%s", fake, old ? old : "/usr/bin:/bin") > 0);
	setenv("PATH", path, 1);
	snprintf(c->plan, sizeof(c->plan), "%s/lat.yaml", c->dir);
	snprintf(text, sizeof(text), "name: lat\ntestbed: %s\nrepeats: 2\nverbs: [write]\n"
		 "metrics: [lat]\ndimensions:\n  - name: server.decap_masks\n    levels: [2]\n"
		 "    neutral: 0\n", inv);
	e2e_write_file(c->plan, text);
	free(path);
	free(inv);
	free(counted);
}

static void restore_path(const char *fake)
{
	const char *p = getenv("PATH");
	size_t n = strlen(fake);

	if (p && !strncmp(p, fake, n) && p[n] == ':') {
		char *rest = strdup(p + n + 1);

		setenv("PATH", rest, 1);
		free(rest);
	}
}

/* TEXT parses as JSON (json-c) and holds no bare inf or nan. */
static void assert_valid_json(const char *text)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *j;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	j = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (!j)
		fail_msg("not JSON: %s", text);
	json_object_put(j);
	json_tokener_free(tok);
	assert_null(strstr(text, ":inf"));
	assert_null(strstr(text, "nan"));
	assert_null(strstr(text, "Infinity"));
}

/* The evidence of the first trial in a `trials --json` document: unusable after two attempts
 * that printed inf, each host's device apart. */
static void assert_first_trial_evidence(const char *doc)
{
	struct json_object *j = json_tokener_parse(doc), *trials, *t, *ev, *v, *lines, *devs;

	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "trials", &trials));
	t = json_object_array_get_idx(trials, 0);
	assert_true(json_object_object_get_ex(t, "status", &v));
	assert_string_equal(json_object_get_string(v), "unusable");
	assert_true(json_object_object_get_ex(t, "evidence", &ev));
	assert_non_null(ev);
	assert_true(json_object_object_get_ex(ev, "attempts", &v));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(ev, "lines", &lines));
	assert_non_null(strstr(json_object_get_string(json_object_array_get_idx(lines, 0)),
			       "65536 1000 inf inf inf inf"));
	assert_true(json_object_object_get_ex(ev, "devices", &devs));
	assert_int_equal(json_object_array_length(devs), 2);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(devs, 1), "host", &v));
	assert_string_equal(json_object_get_string(v), "client");
	json_object_put(j);
}

static void test_faults_inf_latency_is_unusable_not_an_abort(void **state)
{
	struct ctx *c = *state;
	char *fake, *bad = ptf_lat_table("inf"), *good = ptf_lat_table("44.27"), *client = NULL;
	const char *run[] = { "run", c->plan, "--db", c->db, "--quiet", NULL };
	const char *trials[] = { "trials", "--db", c->db, NULL };
	const char *json[] = { "trials", "--db", c->db, "--json", NULL };
	const char *evidence[] = { "trials", "--db", c->db, "--evidence", "1", NULL };
	const char *missing[] = { "trials", "--db", c->db, "--evidence", "999", NULL };
	struct e2e_run r;

	if (!ptf_usable())
		skip();
	fake = ptf_dir();
	/* attempts 1, 2 print inf (one whole trial, retries: 1), attempt 3 is good, ... */
	assert_true(asprintf(&client, "if [ $((n %% 3)) -ne 0 ]; then cat <<'END'\n%sEND\n"
			     "else cat <<'END'\n%sEND\nfi\n", bad, good) > 0);
	write_perftest_plan(c, fake, client, 100);
	if (e2e_scalacn_run(&r, run) != 0)
		fail_msg("run: exit %d, stderr: %s", r.status, r.err);
	assert_non_null(strstr(r.out, "Result: QUALIFIED"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, trials), 0);
	assert_non_null(strstr(r.out, " unusable "));
	assert_non_null(strstr(r.out, "44.270"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, json), 0);
	assert_valid_json(r.out);
	assert_non_null(strstr(r.out, "\"status\":\"unusable\",\n      \"bw_gbps\":null,\n"
			       "      \"lat_median_us\":null,\n      \"lat_p99_us\":null"));
	assert_first_trial_evidence(r.out);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, evidence), 0);
	if (!strstr(r.out, "Trial 1 (campaign 1, baseline, write lat, repeat 0, baseline): "
		    "unusable, 2 attempts\nRaw lines that decided it:\n  client: line 6: 65536 "
		    "1000 inf inf inf inf") ||
	    !strstr(r.out, "Completion: no error reported") ||
	    !strstr(r.out, "server/rxe0") || !strstr(r.out, "client/rxe0"))
		fail_msg("trials --evidence 1: %s", r.out);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, missing), 2);
	assert_non_null(strstr(r.err, "no trial 999"));
	e2e_run_free(&r);
	restore_path(fake);
	ptf_rmdir(fake);
	free(client);
	free(good);
	free(bad);
}

static void test_faults_perftest_parse_json_has_no_inf(void **state)
{
	struct ctx *c = *state;
	char path[256], *table = ptf_lat_table("inf");
	const char *args[] = { "perftest", "parse", "--json", path, NULL };
	struct e2e_run r;

	snprintf(path, sizeof(path), "%s/inf.txt", c->dir);
	e2e_write_file(path, table);
	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	assert_valid_json(r.out);
	assert_non_null(strstr(r.out, "\"lat_median_us\":null"));
	e2e_run_free(&r);
	free(table);
}

static void test_faults_stop_names_point_attempts_and_line(void **state)
{
	struct ctx *c = *state;
	const char *run[] = { "run", c->plan, "--db", c->db, "--quiet", NULL };
	char *fake;
	struct e2e_run r;

	if (!ptf_usable())
		skip();
	fake = ptf_dir();
	write_perftest_plan(c, fake, "echo \"Couldn't connect to 127.0.0.1:$port\" >&2; exit 1\n",
			    200);
	assert_int_equal(e2e_scalacn_run(&r, run), 3);
	if (!strstr(r.err, "trial write lat, repeat 1: after 2 attempts: perftest on client") ||
	    !strstr(r.err, "Couldn't connect to 127.0.0.1:"))
		fail_msg("stderr: %s", r.err);
	e2e_run_free(&r);
	restore_path(fake);
	ptf_rmdir(fake);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_faults_dead_testbed_never_qualifies, setup,
						e2e_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_faults_inf_latency_is_unusable_not_an_abort,
						setup, e2e_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_faults_perftest_parse_json_has_no_inf, setup,
						e2e_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_faults_stop_names_point_attempts_and_line,
						setup, e2e_ctx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
