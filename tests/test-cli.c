/* SPDX-License-Identifier: MIT */
/*
 * test-cli: the `scalacn` program's command-line contract: --help, --version, help COMMAND,
 * one-line errors with exit 2 for unknown commands and options, enumerate's report on the
 * quickstart plan, the dry run, and the CX-7 calibration through `scalacn measure --json`.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "e2e_util.h"

static int count_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

static void test_cli_help_lists_commands(void **state)
{
	struct e2e_run r;
	const char *args[] = { "--help", NULL };

	(void)state;
	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	assert_non_null(strstr(r.out, "Commands:"));
	assert_non_null(strstr(r.out, "run "));
	assert_non_null(strstr(r.out, "enumerate"));
	e2e_run_free(&r);
}

static void test_cli_version(void **state)
{
	struct e2e_run r;
	const char *args[] = { "--version", NULL };

	(void)state;
	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	assert_string_equal(r.out, "scalacn " SCALACN_VERSION "\n");
	e2e_run_free(&r);
}

static void test_cli_help_command(void **state)
{
	struct e2e_run r;
	const char *args[] = { "help", "run", NULL };
	const char *bad[] = { "help", "frobnicate", NULL };

	(void)state;
	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	assert_non_null(strstr(r.out, "usage: scalacn run PLAN"));
	assert_non_null(strstr(r.out, "--resume"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, bad), 2);
	assert_int_equal(count_lines(r.err), 1);
	e2e_run_free(&r);
}

/* Every command listed by --help takes --help and -h (anywhere among its arguments): its
 * usage on stdout, nothing on stderr, exit 0; after "--" it is an argument again. */
static void test_cli_every_command_takes_help(void **state)
{
	struct e2e_run r, list;
	const char *overview[] = { "--help", NULL };
	unsigned n = 0;

	(void)state;
	assert_int_equal(e2e_scalacn_run(&list, overview), 0);
	for (const char *p = strstr(list.out, "\n  "); p; p = strstr(p + 1, "\n  ")) {
		char name[32], want[48];

		if (sscanf(p + 3, "%31s", name) != 1)
			continue;
		snprintf(want, sizeof(want), "usage: scalacn %s", name);
		for (int k = 0; k < 2; k++) {
			const char *args[] = { name, "--db", "x.db", k ? "-h" : "--help", NULL };

			assert_int_equal(e2e_scalacn_run(&r, args), 0);
			assert_non_null(strstr(r.out, want));
			assert_string_equal(r.err, "");
			e2e_run_free(&r);
		}
		n++;
	}
	e2e_run_free(&list);
	assert_true(n >= 17);
	{
		const char *after[] = { "trials", "--", "--help", NULL };

		assert_int_equal(e2e_scalacn_run(&r, after), 2);
		e2e_run_free(&r);
	}
}

static void test_cli_unknown_command_and_option(void **state)
{
	struct e2e_run r;
	const char *cmd[] = { "frobnicate", NULL };
	const char *opt[] = { "--frobnicate", NULL };
	const char *sub[] = { "run", "--frobnicate", "x.yaml", NULL };
	const char *none[] = { NULL };

	(void)state;
	assert_int_equal(e2e_scalacn_run(&r, cmd), 2);
	assert_int_equal(count_lines(r.err), 1);
	assert_non_null(strstr(r.err, "unknown command 'frobnicate'"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, opt), 2);
	assert_int_equal(count_lines(r.err), 1);
	assert_non_null(strstr(r.err, "unknown option '--frobnicate'"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, sub), 2);
	assert_int_equal(count_lines(r.err), 1);
	assert_non_null(strstr(r.err, "--frobnicate"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, none), 2);
	e2e_run_free(&r);
}

static void test_cli_enumerate_quickstart(void **state)
{
	struct e2e_run r;
	const char *args[] = { "enumerate", e2e_src("examples/plans/quickstart.yaml"), NULL };

	(void)state;
	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	assert_non_null(strstr(r.out, "Brute-force size:"));
	assert_non_null(strstr(r.out, "Valid models:"));
	assert_non_null(strstr(r.out, "loop"));
	assert_non_null(strstr(r.out, "unreachable_table"));
	assert_non_null(strstr(r.out, "black_hole"));
	e2e_run_free(&r);
}

static void test_cli_config_error_has_position(void **state)
{
	const char *dir = e2e_tmpdir();
	char plan[256];
	struct e2e_run r;
	const char *args[] = { "enumerate", plan, NULL };

	(void)state;
	snprintf(plan, sizeof(plan), "%s/bad.yaml", dir);
	e2e_write_file(plan, "name: bad\nrepeats: 3\ncomponents:\n  max_tables: -1\n");
	assert_int_equal(e2e_scalacn_run(&r, args), 2);
	assert_non_null(strstr(r.err, "bad.yaml:4:"));
	assert_non_null(strstr(r.err, "components.max_tables"));
	e2e_run_free(&r);
	e2e_write_file(plan, "name: [unclosed\n");
	assert_int_equal(e2e_scalacn_run(&r, args), 2);
	assert_non_null(strstr(r.err, "bad.yaml:"));
	e2e_run_free(&r);
	e2e_rmdir(dir);
}

static void test_cli_dry_run_prints_command_plan(void **state)
{
	const char *dir = e2e_tmpdir();
	char db[256];
	struct e2e_run r;
	const char *args[] = { "run", e2e_src("examples/plans/quickstart.yaml"), "--testbed",
			       e2e_src("examples/testbeds/lab-two-hosts.yaml"), "--db", db,
			       "--dry-run", "--quiet", NULL };
	const char *sim[] = { "run", e2e_src("examples/plans/quickstart.yaml"), "--db", db,
			      "--dry-run", "--quiet", NULL };

	(void)state;
	snprintf(db, sizeof(db), "%s/never.db", dir);
	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	assert_non_null(strstr(r.out, "trial 1:"));
	assert_non_null(strstr(r.out, "tc -force -batch"));
	assert_non_null(strstr(r.out, "ib_write_bw"));
	/* the server starts before the client, after the counters are read */
	assert_true(strstr(r.out, "LISTEN") > strstr(r.out, "ib_write_bw"));
	assert_non_null(strstr(r.out, "nothing was measured or stored"));
	assert_int_equal(access(db, F_OK), -1);
	e2e_run_free(&r);
	/* the simulated testbed runs no commands: a dry run there is a config error */
	assert_int_equal(e2e_scalacn_run(&r, sim), 2);
	e2e_run_free(&r);
	e2e_rmdir(dir);
}

/* The CX-7 calibration from the shell: `scalacn measure ... --json` at the four rows of the
 * public ScalaCN measurements (docs/background.md), each within 10%. */
static double measure_json(const char *verb, const char *size, const char *metric,
			   const unsigned m[4], const char *qps)
{
	static const char *const dims[] = { "client.encap_masks", "client.decap_masks",
					    "server.encap_masks", "server.decap_masks" };
	char sets[4][64], q[32];
	struct e2e_run r;
	const char *args[] = { "measure", "--testbed", e2e_src("examples/testbeds/sim-cx7.yaml"),
			       "--verb", verb, "--size", size, "--metric", metric, "--set",
			       "mtu=1024", "--set", "flows=400", "--set", q, "--set", sets[0],
			       "--set", sets[1], "--set", sets[2], "--set", sets[3], "--json",
			       NULL };
	struct json_object *root, *v;
	double value;

	snprintf(q, sizeof(q), "qps=%s", qps);
	for (int i = 0; i < 4; i++)
		snprintf(sets[i], sizeof(sets[i]), "%s=%u", dims[i], m[i]);
	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	root = json_tokener_parse(r.out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, strcmp(metric, "bw") ? "lat_median_us" : "bw_mib_s", &v));
	value = json_object_get_double(v);
	json_object_put(root);
	e2e_run_free(&r);
	return value;
}

static void test_cli_measure_reproduces_cx7_calibration(void **state)
{
	static const struct {
		unsigned m[4];
		double send_bw, send_lat, write_bw, write_lat; /* MiB/s, us */
	} rows[] = {
		{ { 0, 0, 0, 0 }, 21118, 2.74, 21115, 2.76 },
		{ { 0, 0, 0, 20 }, 11224, 4.49, 11852, 4.10 },
		{ { 20, 0, 0, 20 }, 11187, 5.23, 11312, 5.38 },
		{ { 20, 100, 80, 80 }, 3176, 22.02, 3221, 20.14 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double got[4] = {
			measure_json("send", "8M", "bw", rows[i].m, "4"),
			measure_json("send", "2", "lat", rows[i].m, "1"),
			measure_json("write", "8M", "bw", rows[i].m, "4"),
			measure_json("write", "2", "lat", rows[i].m, "1"),
		};
		double want[4] = { rows[i].send_bw, rows[i].send_lat, rows[i].write_bw,
				   rows[i].write_lat };

		for (int k = 0; k < 4; k++) {
			print_message("row %zu value %d: %.2f (measured %.2f)\n", i, k, got[k], want[k]);
			assert_true(fabs(got[k] / want[k] - 1.0) <= 0.10);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_help_lists_commands),
		cmocka_unit_test(test_cli_version),
		cmocka_unit_test(test_cli_help_command),
		cmocka_unit_test(test_cli_every_command_takes_help),
		cmocka_unit_test(test_cli_unknown_command_and_option),
		cmocka_unit_test(test_cli_enumerate_quickstart),
		cmocka_unit_test(test_cli_config_error_has_position),
		cmocka_unit_test(test_cli_dry_run_prints_command_plan),
		cmocka_unit_test(test_cli_measure_reproduces_cx7_calibration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
