/* SPDX-License-Identifier: MIT */
/*
 * test-ptparse-synth: the perftest parser on text built in the test: the table and error
 * lines quoted in docs/background.md, malformed tables, stderr of failed runs, and --out_json
 * in perftest 6.06's invalid form (as in upstream issue linux-rdma/perftest#216) and the
 * valid later form. The JSON numbers are those of the rxe-qemu fixtures, so text and JSON
 * must agree. Assumes SCALACN_FIXTURES (see test-ptparse.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "testbeds/perftest/pt_parse.h"
#include "tests/ptparse-util.h"
#include "tests/test-ptparse.h"

static struct pt_result *text_ok(const char *text)
{
	struct scn_error err;
	struct pt_result *r = NULL;

	if (pt_parse_text(text, strlen(text), "sample", &r, &err))
		fail_msg("sample: %s (line %d)", err.message, err.line);
	return r;
}

static void near(double got, double want)
{
	if (!(fabs(got - want) <= 1e-9 * (fabs(want) + 1.0)))
		fail_msg("got %.9g, want %.9g", got, want);
}

#define BW_MB " #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]\n"
#define BW_GB " #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]\n"
#define LAT_HDR                                                                            \
	" #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% percentile 99.9% "    \
	"percentile\n"
#define LAT_DUR_HDR " #bytes        #iterations       t_avg[usec]    tps average\n"

void test_ptparse_notes_samples(void **state)
{
	struct pt_result *mb = text_ok("RDMA_Write BW Test\n" BW_MB
				       " 65536      5000             20.75              18.07  \t\t   0.000289\n"
				       " 8192\t5000\t0.00\t1024\t0.016384\n");
	struct pt_result *gb = text_ok("RDMA_Read BW Test\n" BW_GB " 65536 1000 0.00 97.654321 0.186257\n");
	struct pt_result *lat = text_ok("Atomic FETCH_AND_ADD Latency Test\n" LAT_HDR
					" 8 1000 1.00 9.00 2.00 2.50 0.00 5.00 9.00\n");
	struct pt_result *dur = text_ok("Send Latency Test\n" LAT_DUR_HDR
					" 2       305017            1.64        610034.21\n");

	(void)state;
	near(pt_result_row(mb, 0)->bw_avg_gbps, 18.07 * 8.388608 / 1000.0);
	near(pt_result_row(mb, 1)->bw_avg, 1024.0); /* 2 or 6 decimals, tabs: split on blanks */
	near(pt_result_row(mb, 1)->bw_avg_gbps, 8.589934592);
	assert_int_equal(pt_result_bw_unit(gb), PT_BW_UNIT_GBPS);
	near(pt_result_row(gb, 0)->bw_avg_gbps, 97.654321);
	assert_int_equal(pt_result_verb(gb), PT_VERB_READ);
	assert_int_equal(pt_result_rtt_kind(lat), PT_RTT_FULL);
	near(pt_result_row(lat, 0)->p999, 9.0);
	assert_int_equal(pt_result_form(dur), PT_FORM_LAT_DUR);
	assert_int_equal(pt_result_rtt_kind(dur), PT_RTT_HALF);
	assert_int_equal(pt_result_row(dur, 0)->iterations, 305017);
	near(pt_result_row(dur, 0)->t_avg, 1.64);
	near(pt_result_row(dur, 0)->tps_avg, 610034.21);
	assert_true(isnan(pt_result_row(dur, 0)->t_typical));
	pt_result_free(mb);
	pt_result_free(gb);
	pt_result_free(lat);
	pt_result_free(dur);
}

static void expect_bad(const char *text, int line, int column, const char *what)
{
	struct scn_error err;
	struct pt_result *r = (struct pt_result *)&err; /* must be reset to NULL */

	assert_int_equal(pt_parse_text(text, strlen(text), "bad.out", &r, &err), -EINVAL);
	assert_null(r);
	assert_int_equal(err.code, -EINVAL);
	assert_int_equal(err.cls, SCN_ERR_TRANSIENT);
	assert_string_equal(err.file, "bad.out");
	assert_int_equal(err.line, line);
	if (column)
		assert_int_equal(err.column, column);
	if (!strstr(err.message, what))
		fail_msg("message \"%s\" lacks \"%s\"", err.message, what);
}

/* A cut table row is an error; any other over-long line is only cut. */
static void long_lines(void)
{
	static const char head[] = "Send BW Test\n" BW_MB " 2 1000 1.0 1.0 0.1\nnote: ";
	static const char row[] = "\n 4 1000 1.0 1.0 ";
	size_t n = 5000, at = sizeof(head) - 1;
	char *t = calloc(1, at + n + sizeof(row) + n + 1);
	struct pt_result *r;

	assert_non_null(t);
	memcpy(t, head, at);
	memset(t + at, 'x', n); /* line 4: 5006 bytes of prose */
	r = text_ok(t);
	assert_int_equal(pt_result_n_rows(r), 1);
	pt_result_free(r);
	memcpy(t + at + n, row, sizeof(row) - 1);
	memset(t + at + n + sizeof(row) - 1, '7', n); /* line 5: a row cut by the buffer */
	expect_bad(t, 5, 4096, "longer than");
	free(t);
}

void test_ptparse_malformed_input(void **state)
{
	(void)state;
	expect_bad("Send BW Test\n" BW_MB " 65536 1000 abc 1.0 0.1\n", 3, 13, "abc");
	expect_bad("Send BW Test\n" BW_MB " 2 1000 1.0 1.0 0.1\n 4 1000 1.0\n", 4, 2, "columns");
	expect_bad(LAT_HDR " 2 1000 1 2 3 4 5 6 7x\n", 2, 0, "7x");
	expect_bad("x\n" LAT_DUR_HDR " 99999999999999999999 5 1 2\n", 3, 2, "message size");
	expect_bad("Send BW Test\n\n\nno table here\n", 4, 0, "no result table");
	expect_bad("", 0, 0, "no result table");
	expect_bad(" #bytes #iterations foo bar\n 2 3 4\n", 1, 2, "unknown");
	expect_bad("Send BW Test\n" BW_MB "-----\n", 2, 0, "no rows");
	expect_bad(BW_MB " 2 1 1 1 1\n" LAT_HDR, 3, 2, "changes");
	expect_bad(BW_MB " 2 1 1 1 1\n" BW_GB " 2 1 1 1 1\n", 3, 2, "unit changes");
	long_lines();
}

void test_ptparse_stderr_fixtures(void **state)
{
	struct ptu_list errs = ptu_list_fixtures("perftest/rxe-qemu/", ".err");
	unsigned warned = 0;

	(void)state;
	assert_int_equal(errs.n, 34);
	for (size_t i = 0; i < errs.n; i++) {
		struct pt_diag d;
		size_t len;
		char *text = ptu_read_fixture(errs.names[i], &len);

		assert_non_null(text);
		/* every captured run exited 0: only the rxe inline warning is on stderr */
		assert_int_equal(pt_classify_stderr(text, len, &d), PT_ERR_NONE);
		assert_int_equal(d.err, PT_ERR_NONE);
		assert_int_equal(d.line, 0);
		assert_int_equal(d.wc_status, -1);
		warned += ptu_mem_has(text, len, "Disabling it");
		free(text);
	}
	assert_int_equal(warned, 6); /* read bw/lat and atomic, server and client */
	ptu_list_free(&errs);
}

struct err_case {
	const char *text;
	enum pt_err err;
	unsigned line;
	const char *message;
	enum scn_errclass cls;
};

void test_ptparse_stderr_errors(void **state)
{
	static const struct err_case cases[] = {
		{ "Did not detect devices\nIf device exists, check if driver is up\n",
		  PT_ERR_NO_DEVICE, 1, "Did not detect devices", SCN_ERR_DEVICE },
		{ " IB device mlx5_9 not found\n Unable to find the Infiniband/RoCE device\n",
		  PT_ERR_NO_DEVICE, 1, "IB device mlx5_9 not found", SCN_ERR_DEVICE },
		{ "Unable to find the Infiniband/RoCE device\n", PT_ERR_NO_DEVICE, 1,
		  "Unable to find the Infiniband/RoCE device", SCN_ERR_DEVICE },
		{ " Port number 1 state is Down\n Couldn't set the link layer\n", PT_ERR_PORT_DOWN, 1,
		  "Port number 1 state is Down", SCN_ERR_DEVICE },
		{ "Couldn't connect to 10.0.0.1:18515\nUnable to open file descriptor for socket "
		  "connection Unable to init the socket connection\n",
		  PT_ERR_CONN_REFUSED, 1, "Couldn't connect to 10.0.0.1:18515", SCN_ERR_TRANSIENT },
		{ "Unable to connect (retries = 10)\n", PT_ERR_CONN_REFUSED, 1,
		  "Unable to connect (retries = 10)", SCN_ERR_TRANSIENT },
		{ "Device not recognized to implement inline feature. Disabling it\n Couldn't listen "
		  "to port 18515\n",
		  PT_ERR_PORT_BUSY, 2, "Couldn't listen to port 18515", SCN_ERR_TRANSIENT },
		{ "Completion with error at client\n Failed status 12: wr_id 0 syndrom 0x81\n"
		  "scnt=128, ccnt=0\n",
		  PT_ERR_COMPLETION, 1, "Completion with error at client", SCN_ERR_TRANSIENT },
		{ " Couldn't read remote address\n Unable to read to socket/rdma_cm\n",
		  PT_ERR_PEER_GONE, 1, "Couldn't read remote address", SCN_ERR_TRANSIENT },
		{ "Correlation coefficient r^2: 0.41 < 0.9\nCan't produce a report\n", PT_ERR_REPORT,
		  1, "Correlation coefficient r^2: 0.41 < 0.9", SCN_ERR_TRANSIENT },
		{ "ib_write_lat: invalid option -- 'q'\n", PT_ERR_USAGE, 1,
		  "ib_write_lat: invalid option -- 'q'", SCN_ERR_CONFIG },
		{ "\n\nsomething unexpected\r\n", PT_ERR_UNKNOWN, 3, "something unexpected",
		  SCN_ERR_TRANSIENT },
		{ "WARNING: CPU is not PCIe relaxed ordering compliant.\n", PT_ERR_NONE, 0, "",
		  SCN_ERR_NONE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pt_diag d;
		enum pt_err e = pt_classify_stderr(cases[i].text, strlen(cases[i].text), &d);

		if (e != cases[i].err)
			fail_msg("case %zu: %s, want %s", i, pt_err_name(e), pt_err_name(cases[i].err));
		assert_int_equal(d.line, cases[i].line);
		assert_string_equal(d.message, cases[i].message);
		assert_int_equal(pt_err_class(e), cases[i].cls);
		assert_int_equal(d.wc_status, e == PT_ERR_COMPLETION ? 12 : -1);
	}
	assert_string_equal(pt_err_name(PT_ERR_CONN_REFUSED), "conn_refused");
	assert_string_equal(pt_err_name(PT_ERR_REPORT), "report");
	assert_int_equal(pt_classify_stderr(NULL, 0, NULL), PT_ERR_NONE);
}

/* perftest 6.06: bare keys and values, "TX_depth : 1", trailing commas (issue #216). */
static const char json606_lat[] =
	"{\ntest_info: {\ntest: RDMA_Write_Latency_Test,\nDual_port: OFF,\nDevice: \"rxe0\",\n"
	"Number_of_qps: 1,\nTransport_type: IB,\nConnection_type: RC,\nUsing_SRQ: OFF,\n"
	"PCIe_relax_order: OFF,\nibv_wr_API: OFF,\nTX_depth : 1,\nMtu: 1024,\n"
	"Link_type: Ethernet,\nGID_index: 1,\nMax_inline_data: 0,\nrdma_cm_QPs: OFF,\n"
	"Use_ROCm_memory: OFF,\nData_ex_method: Ethernet,\n},\nresults: {\nMsgSize: 2,\n"
	"n_iterations: 1000,\nt_min: 32.18,\nt_max: 419.83,\nt_typical: 44.27,\nt_avg: 51.48,\n"
	"t_stdev: 36.03,\npercentile_99: 288.10,\npercentile_99.9: 419.83,\n},\n}\n";

static const char jsonnew_lat[] =
	"{\n\"test_info\": {\n\"test\": \"RDMA_Write_Latency_Test\",\n\"Device\": \"rxe0\",\n"
	"\"Number_of_qps\": 1,\n\"Connection_type\": \"RC\",\n\"Mtu\": 1024,\n"
	"\"Data_ex_method\": \"Ethernet\"\n},\n\"results\": {\n\"MsgSize\": 2,\n"
	"\"n_iterations\": 1000,\n\"t_min\": 32.18,\n\"t_max\": 419.83,\n\"t_typical\": 44.27,\n"
	"\"t_avg\": 51.48,\n\"t_stdev\": 36.03,\n\"percentile_99\": 288.10,\n"
	"\"percentile_99.9\": 419.83\n}\n}\n";

static const char json606_bw[] =
	"{\ntest_info: {\ntest: RDMA_Write_BW_Test,\nNumber_of_qps: 1,\nConnection_type: RC,\n"
	"TX_depth : 128,\nCQ_Moderation: 1,\nMtu: 1024,\n},\nresults: {\nMsgSize: 65536,\n"
	"n_iterations: 5000,\nBW_peak: 20.75,\nBW_average: 18.07,\nMsgRate: 0.000289,\n},\n}\n";

static const char jsonnew_bw[] =
	"{\"test_info\": {\"test\": \"RDMA_Write_BW_Test\", \"Mtu\": 1024},\n\"results\": {"
	"\"MsgSize\": 65536, \"n_iterations\": 5000, \"BW_peak\": 20.75, \"BW_average\": 18.07,"
	" \"MsgRate\": 0.000289}}";

static struct pt_result *json_ok(const char *text, enum pt_bw_unit unit)
{
	struct scn_error err;
	struct pt_result *r = NULL;

	if (pt_parse_json(text, strlen(text), unit, "sample.json", &r, &err))
		fail_msg("sample.json: %s (line %d)", err.message, err.line);
	return r;
}

static void same_row(const struct pt_row *a, const struct pt_row *b)
{
	const double x[] = { a->bw_peak, a->bw_avg, a->bw_avg_gbps, a->msg_rate_mpps, a->t_min,
			     a->t_max, a->t_typical, a->t_avg, a->t_stdev, a->p99, a->p999,
			     a->tps_avg, a->cpu_util };
	const double y[] = { b->bw_peak, b->bw_avg, b->bw_avg_gbps, b->msg_rate_mpps, b->t_min,
			     b->t_max, b->t_typical, b->t_avg, b->t_stdev, b->p99, b->p999,
			     b->tps_avg, b->cpu_util };

	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->iterations, b->iterations);
	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		if (!(x[i] == y[i] || (isnan(x[i]) && isnan(y[i]))))
			fail_msg("column %zu: %.9g != %.9g", i, x[i], y[i]);
}

void test_ptparse_json_forms_agree(void **state)
{
	struct pt_result *l606 = json_ok(json606_lat, PT_BW_UNIT_NONE);
	struct pt_result *lnew = json_ok(jsonnew_lat, PT_BW_UNIT_NONE);
	struct pt_result *b606 = json_ok(json606_bw, PT_BW_UNIT_MIBS);
	struct pt_result *bnew = json_ok(jsonnew_bw, PT_BW_UNIT_MIBS);
	size_t len;
	char *t1 = ptu_read_fixture("perftest/rxe-qemu/loop__write_lat_x1_client.out", &len);
	char *t2 = ptu_read_fixture("perftest/rxe-qemu/loop__write_bw_x1_client.out", &len);
	struct pt_result *ltxt = text_ok(t1), *btxt = text_ok(t2);

	(void)state;
	assert_int_equal(pt_result_json_form(l606), PT_JSON_REPAIRED);
	assert_int_equal(pt_result_json_form(lnew), PT_JSON_VALID);
	assert_int_equal(pt_result_json_form(b606), PT_JSON_REPAIRED);
	assert_int_equal(pt_result_json_form(bnew), PT_JSON_VALID);
	assert_int_equal(pt_result_json_form(ltxt), PT_JSON_NONE);
	assert_string_equal(pt_result_title(l606), "RDMA_Write_Latency_Test");
	assert_int_equal(pt_result_verb(l606), PT_VERB_WRITE);
	assert_int_equal(pt_result_kind(l606), PT_KIND_LAT);
	assert_int_equal(pt_result_rtt_kind(lnew), PT_RTT_HALF);
	assert_int_equal(pt_result_kind(b606), PT_KIND_BW);
	assert_string_equal(pt_result_field_value(l606, "TX_depth"), "1");
	assert_string_equal(pt_result_field_value(l606, "Device"), "rxe0");
	assert_string_equal(pt_result_field_value(l606, "Mtu"), "1024");
	assert_string_equal(pt_result_field_value(lnew, "Connection_type"), "RC");
	near(pt_result_row(l606, 0)->t_typical, 44.27);
	near(pt_result_row(l606, 0)->p999, 419.83);
	same_row(pt_result_row(l606, 0), pt_result_row(lnew, 0));
	same_row(pt_result_row(b606, 0), pt_result_row(bnew, 0));
	near(pt_result_row(b606, 0)->bw_avg_gbps, 18.07 * 8.388608 / 1000.0);
	/* the text tables of the same runs print the same numbers */
	near(pt_result_row(ltxt, 0)->t_typical, pt_result_row(l606, 0)->t_typical);
	near(pt_result_row(ltxt, 0)->p99, pt_result_row(lnew, 0)->p99);
	near(pt_result_row(btxt, 0)->bw_avg_gbps, pt_result_row(b606, 0)->bw_avg_gbps);
	near(pt_result_row(btxt, 0)->msg_rate_mpps, pt_result_row(bnew, 0)->msg_rate_mpps);
	pt_result_free(l606);
	pt_result_free(lnew);
	pt_result_free(b606);
	pt_result_free(bnew);
	pt_result_free(ltxt);
	pt_result_free(btxt);
	free(t1);
	free(t2);
}

static json_object *strict(const char *s)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, s, (int)strlen(s));
	if (json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

void test_ptparse_json_repair(void **state)
{
	char *fixed = NULL, *again = NULL;
	size_t n = 0;
	json_object *a, *b;
	struct scn_error err;
	const char *odd = "{k: -0.5e3, s: a \"q\" b, t: true, n: 007, w: WARNING: spaces here,}";

	(void)state;
	assert_null(strict(json606_lat));
	assert_int_equal(pt_json_repair(json606_lat, strlen(json606_lat), &fixed, &n, &err), 0);
	assert_int_equal(strlen(fixed), n);
	a = strict(fixed);
	assert_non_null(a); /* the repaired text is JSON for a strict parser */
	assert_int_equal(pt_json_repair(fixed, n, &again, NULL, &err), 0);
	assert_string_equal(fixed, again); /* repairing JSON changes nothing */
	free(again);
	free(fixed);
	json_object_put(a);
	assert_int_equal(pt_json_repair(odd, strlen(odd), &fixed, NULL, &err), 0);
	assert_string_equal(fixed, "{\"k\": -0.5e3, \"s\": \"a \\\"q\\\" b\", \"t\": true, "
				   "\"n\": \"007\", \"w\": \"WARNING: spaces here\"}");
	a = strict(fixed);
	b = strict(jsonnew_bw);
	assert_non_null(a);
	assert_non_null(b);
	json_object_put(a);
	json_object_put(b);
	free(fixed);
}

void test_ptparse_json_bad(void **state)
{
	static const struct {
		const char *text;
		int line;
		const char *what;
	} bad[] = {
		{ "{\nresults: {\nMsgSize: 2,\n", 2, "unclosed" },
		{ "{\nresults: {\n]\n}\n", 3, "unbalanced" },
		{ "{ \"test_info\": {} }", 0, "results" },
		{ "{ results: { MsgSize: 2, n_iterations: 9, t_min: 1 } }", 0, "t_max" },
		{ "{ results: { MsgSize: -2, n_iterations: 9, BW_average: 1 } }", 0, "MsgSize" },
		{ "{ results: { MsgSize: 2, n_iterations: 9, BW_peak: x, BW_average: 1, MsgRate: 1 }}",
		  0, "BW_peak" },
		{ "[1, 2]", 0, "not an object" },
		{ "", 1, "not JSON" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct scn_error err;
		struct pt_result *r = NULL;
		int rc = pt_parse_json(bad[i].text, strlen(bad[i].text), PT_BW_UNIT_MIBS, "x.json",
				       &r, &err);

		assert_int_equal(rc, -EINVAL);
		assert_null(r);
		assert_string_equal(err.file, "x.json");
		assert_int_equal(err.line, bad[i].line);
		if (!strstr(err.message, bad[i].what))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.message, bad[i].what);
	}
}
