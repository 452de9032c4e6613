/* SPDX-License-Identifier: MIT */
/*
 * test-ptparse: the perftest output parser (testbeds/perftest/pt_parse.h) on real output.
 * Assumes SCALACN_FIXTURES points at tests/fixtures (tests/meson.build sets it): the ScalaCN
 * artifact logs (ConnectX, RoCE) and the Soft-RoCE perftest 6.06 captures (.cmd/.out/.err).
 * Numbers asserted below are copied from those files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_parse.h"
#include "tests/ptparse-util.h"
#include "tests/test-ptparse.h"

#define ART "perftest/scalacn-artifact/"
#define RXE "perftest/rxe-qemu/"

static struct pt_result *parse_fixture(const char *rel)
{
	struct scn_error err;
	struct pt_result *r = NULL;
	size_t len;
	char *text = ptu_read_fixture(rel, &len);
	int rc;

	assert_non_null(text);
	rc = pt_parse_text(text, len, rel, &r, &err);
	if (rc)
		fail_msg("%s: %s (line %d)", rel, err.message, err.line);
	free(text);
	return r;
}

static void assert_near(double got, double want)
{
	if (!(fabs(got - want) <= 1e-9 * (fabs(want) + 1.0)))
		fail_msg("got %.9g, want %.9g", got, want);
}

/* Every fixture stdout with a "#bytes" table parses; the others fail with -EINVAL. */
static void test_ptparse_every_fixture_output(void **state)
{
	const char *dirs[] = { ART, RXE };
	unsigned with_table = 0, without = 0;

	(void)state;
	for (size_t d = 0; d < 2; d++) {
		struct ptu_list files = ptu_list_fixtures(dirs[d], d == 0 ? ".log" : ".out");
		for (size_t i = 0; i < files.n; i++) {
			struct scn_error err;
			struct pt_result *r = NULL;
			size_t len;
			char *text = ptu_read_fixture(files.names[i], &len);
			int rc = pt_parse_text(text, len, files.names[i], &r, &err);

			if (ptu_mem_has(text, len, "#bytes")) {
				if (rc)
					fail_msg("%s: %s (line %d)", files.names[i], err.message,
						 err.line);
				assert_true(pt_result_n_rows(r) >= 1);
				assert_int_equal(pt_result_kind(r), pt_title_kind(pt_result_title(r)));
				assert_int_not_equal(pt_result_verb(r), PT_VERB_UNKNOWN);
				with_table++;
			} else {
				assert_int_equal(rc, -EINVAL);
				assert_null(r);
				assert_string_equal(err.file, files.names[i]);
				assert_true(err.line > 0);
				without++;
			}
			pt_result_free(r);
			free(text);
		}
		ptu_list_free(&files);
	}
	assert_int_equal(with_table, 8 + 31); /* 8 artifact logs, 31 rxe stdouts */
	assert_int_equal(without, 3);         /* rc_pingpong x2, read_lat server */
}

static void test_ptparse_artifact_write_lat(void **state)
{
	struct pt_result *r = parse_fixture(ART "cen_0_cde_0_sen_0_sde_20_write_lat_pod.log");
	const struct pt_row *row = pt_result_row_for_bytes(r, 2);

	(void)state;
	assert_string_equal(pt_result_title(r), "RDMA_Write Latency Test");
	assert_int_equal(pt_result_verb(r), PT_VERB_WRITE);
	assert_int_equal(pt_result_kind(r), PT_KIND_LAT);
	assert_int_equal(pt_result_form(r), PT_FORM_LAT);
	assert_int_equal(pt_result_rtt_kind(r), PT_RTT_HALF);
	assert_int_equal(pt_result_bw_unit(r), PT_BW_UNIT_NONE);
	assert_int_equal(pt_result_n_rows(r), 23);
	assert_non_null(row);
	assert_int_equal(row->line, 22);
	assert_int_equal(row->iterations, 1000);
	assert_near(row->t_min, 4.00);
	assert_near(row->t_max, 8.65);
	assert_near(row->t_typical, 4.10);
	assert_near(row->t_avg, 4.11);
	assert_near(row->t_stdev, 0.16);
	assert_near(row->p99, 4.34);
	assert_near(row->p999, 8.65);
	assert_true(isnan(row->bw_avg) && isnan(row->tps_avg));
	assert_near(pt_result_row_for_bytes(r, 8388608)->t_typical, 772.43);
	/* 15 header fields, two-field lines split on tabs, a tab inside "rdma_cm QPs" */
	assert_int_equal(pt_result_n_fields(r), 15);
	assert_string_equal(pt_result_field_value(r, "Mtu"), "1024[B]");
	assert_string_equal(pt_result_field_value(r, "Connection type"), "RC");
	assert_string_equal(pt_result_field_value(r, "Using SRQ"), "OFF");
	assert_string_equal(pt_result_field_value(r, "Number of qps"), "1");
	assert_string_equal(pt_result_field_value(r, "Transport type"), "IB");
	assert_string_equal(pt_result_field_value(r, "Device"), "[DEV]");
	assert_string_equal(pt_result_field_value(r, "rdma_cm QPs"), "OFF");
	assert_string_equal(pt_result_field_value(r, "Max inline data"), "220[B]");
	assert_string_equal(pt_result_field_value(r, "Data ex. method"), "Ethernet");
	assert_int_equal(pt_result_field(r, 0)->line, 3);
	assert_null(pt_result_field_value(r, "GID"));
	pt_result_free(r);
}

static void test_ptparse_artifact_send_bw(void **state)
{
	struct pt_result *base = parse_fixture(ART "cen_0_cde_0_sen_0_sde_0_send_bw_pod.log");
	struct pt_result *wall = parse_fixture(ART "cen_0_cde_0_sen_0_sde_20_send_bw_pod.log");
	const struct pt_row *b = pt_result_row_for_bytes(base, 8388608);
	const struct pt_row *w = pt_result_row_for_bytes(wall, 32768);

	(void)state;
	assert_string_equal(pt_result_title(base), "Send BW Test");
	assert_int_equal(pt_result_form(base), PT_FORM_BW);
	assert_int_equal(pt_result_bw_unit(base), PT_BW_UNIT_MIBS);
	assert_int_equal(pt_result_rtt_kind(base), PT_RTT_NA);
	assert_string_equal(pt_result_field_value(base, "Number of qps"), "4");
	assert_int_equal(pt_result_n_rows(base), 23);
	assert_int_equal(b->iterations, 4000);
	assert_near(b->bw_peak, 21118.03);
	assert_near(b->bw_avg, 21118.02);
	assert_near(b->msg_rate_mpps, 0.002640);
	assert_near(b->bw_avg_gbps, 21118.02 * 1048576.0 * 8.0 / 1e9);
	assert_true(fabs(b->bw_avg_gbps - 177.1508) < 0.0001);
	/* 20 decap masks on the server: the 32 KiB average collapses from 21015.17 to 3534.58 */
	assert_near(w->bw_avg, 3534.58);
	assert_near(pt_result_row_for_bytes(base, 32768)->bw_avg, 21015.17);
	assert_true(w->bw_avg / pt_result_row_for_bytes(base, 32768)->bw_avg < 0.17);
	pt_result_free(base);
	pt_result_free(wall);
}

static void test_ptparse_rxe_forms(void **state)
{
	struct pt_result *g = parse_fixture(RXE "loop__write_bw_D5_gbit_client.out");
	struct pt_result *a = parse_fixture(RXE "loop__atomic_bw_client.out");
	struct pt_result *bd = parse_fixture(RXE "loop__write_bw_bidir_server.out");
	struct pt_result *rl = parse_fixture(RXE "loop__read_lat_client.out");
	const struct pt_row *row = pt_result_row(g, 0);

	(void)state;
	assert_int_equal(pt_result_bw_unit(g), PT_BW_UNIT_GBPS);
	assert_int_equal(row->bytes, 65536);
	assert_int_equal(row->iterations, 608);
	assert_near(row->bw_peak, 0.0); /* -D: peak not measured */
	assert_near(row->bw_avg, 0.11);
	assert_near(row->bw_avg_gbps, 0.11);
	assert_near(row->msg_rate_mpps, 0.000202);
	assert_string_equal(pt_result_title(a), "Atomic FETCH_AND_ADD BW Test");
	assert_int_equal(pt_result_verb(a), PT_VERB_ATOMIC);
	assert_string_equal(pt_result_field_value(a, "Outstand reads"), "128");
	assert_int_equal(pt_result_row(a, 0)->bytes, 8);
	assert_near(pt_result_row(a, 0)->bw_avg, 0.08);
	assert_true(pt_result_bidirectional(bd));
	assert_false(pt_result_bidirectional(g));
	assert_near(pt_result_row(bd, 0)->bw_peak, 33.51);
	assert_near(pt_result_row(bd, 0)->bw_avg, 28.69);
	assert_int_equal(pt_result_verb(rl), PT_VERB_READ);
	assert_int_equal(pt_result_rtt_kind(rl), PT_RTT_FULL);
	assert_near(pt_result_row(rl, 0)->t_typical, 121.85);
	assert_near(pt_result_row(rl, 0)->p999, 1651.85);
	pt_result_free(g);
	pt_result_free(a);
	pt_result_free(bd);
	pt_result_free(rl);
}

/* Each rxe .cmd (argv as run) agrees with what its stdout parses to. */
static void test_ptparse_cmd_agrees_with_output(void **state)
{
	struct ptu_list cmds = ptu_list_fixtures(RXE, ".cmd");
	unsigned checked = 0;

	(void)state;
	for (size_t i = 0; i < cmds.n; i++) {
		struct ptu_cmd c;
		char out[512];
		struct pt_result *r;

		if (!ptu_read_cmd(cmds.names[i], &c) || strncmp(c.argv0, "ib_", 3) != 0)
			continue;
		snprintf(out, sizeof(out), "%.*s.out", (int)(strlen(cmds.names[i]) - 4),
			 cmds.names[i]);
		if (strstr(out, "read_lat_server"))
			continue; /* perftest prints no table there */
		r = parse_fixture(out);
		assert_int_equal(c.rc, 0);
		assert_int_equal(pt_result_verb(r), c.verb);
		assert_int_equal(pt_result_kind(r), c.kind);
		assert_string_equal(pt_result_field_value(r, "Device"), c.dev);
		assert_int_equal(atoi(pt_result_field_value(r, "Number of qps")), c.qps);
		assert_string_equal(pt_result_field_value(r, "rdma_cm QPs"), c.rdma_cm ? "ON" : "OFF");
		assert_int_equal(pt_result_bidirectional(r), c.bidir);
		if (c.kind == PT_KIND_BW)
			assert_int_equal(pt_result_bw_unit(r),
					 c.gbits ? PT_BW_UNIT_GBPS : PT_BW_UNIT_MIBS);
		for (size_t k = 0; k < pt_result_n_rows(r); k++) {
			const struct pt_row *row = pt_result_row(r, k);
			if (c.iters > 0) /* perftest counts iterations over all QPs */
				assert_int_equal(row->iterations, (uint64_t)c.iters * c.qps);
			if (c.duration)
				assert_near(row->bw_peak, 0.0);
		}
		if (c.all && c.client)
			for (size_t k = 0; k < 23; k++)
				assert_int_equal(pt_result_row(r, k)->bytes, (uint64_t)2 << k);
		pt_result_free(r);
		checked++;
	}
	assert_int_equal(checked, 31);
	ptu_list_free(&cmds);
}

static void test_ptparse_server_all_rows(void **state)
{
	struct pt_result *w = parse_fixture(RXE "loop__write_bw_all_server.out");
	struct pt_result *s = parse_fixture(RXE "loop__send_bw_all_server.out");

	(void)state;
	/* the write server of -a reports only the last size; the send server reports all */
	assert_int_equal(pt_result_n_rows(w), 1);
	assert_int_equal(pt_result_row(w, 0)->bytes, 8388608);
	assert_int_equal(pt_result_n_rows(s), 23);
	for (size_t k = 0; k < 23; k++)
		assert_near(pt_result_row(s, k)->bw_peak, 0.0);
	assert_near(pt_result_row_for_bytes(s, 65536)->bw_avg, 22.51);
	pt_result_free(w);
	pt_result_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptparse_every_fixture_output),
		cmocka_unit_test(test_ptparse_artifact_write_lat),
		cmocka_unit_test(test_ptparse_artifact_send_bw),
		cmocka_unit_test(test_ptparse_rxe_forms),
		cmocka_unit_test(test_ptparse_cmd_agrees_with_output),
		cmocka_unit_test(test_ptparse_server_all_rows),
		cmocka_unit_test(test_ptparse_notes_samples),
		cmocka_unit_test(test_ptparse_malformed_input),
		cmocka_unit_test(test_ptparse_stderr_fixtures),
		cmocka_unit_test(test_ptparse_stderr_errors),
		cmocka_unit_test(test_ptparse_json_forms_agree),
		cmocka_unit_test(test_ptparse_json_repair),
		cmocka_unit_test(test_ptparse_json_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
