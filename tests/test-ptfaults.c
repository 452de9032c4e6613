/* SPDX-License-Identifier: MIT */
/*
 * test-ptfaults: a perftest testbed that measures nonsense or fails, through the backend
 * (fake perftest tools, tests/ptfake.h). 0, negative or infinite numbers never make an ok
 * trial (tb_sample_judge; perftest's "inf" latency and a 0 bandwidth are unusable trials,
 * with the raw line as evidence, after every attempt was tried); unusable output on one
 * attempt and a good one on the next is an ok trial; a failure that outlives the retries
 * comes back with the number of attempts and perftest's own line. Local perftest processes
 * die with the harness: a harness process killed with SIGKILL during a trial (the fake
 * client sleeps) leaves neither the client nor the server running.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "generators/gen.h"
#include "testbeds/tb.h"
#include "tests/ptfake.h"

static void lat_traffic(struct gen_traffic *t, enum gen_metric m)
{
	struct gen_levels l;

	gen_levels_neutral(&l);
	l.iterations = 1000;
	l.metric = m;
	gen_traffic_from_levels(&l, t);
}

static void test_ptfaults_judge(void **state)
{
	static const double bad[] = { 0, -1, INFINITY, -INFINITY, NAN };
	struct tb_sample s;
	enum tb_status st;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&s, 0, sizeof(s));
		s.bw_gbps = bad[i];
		s.msg_rate_mpps = 1;
		s.lat_median_us = s.lat_p99_us = NAN;
		assert_true(tb_sample_judge(&s, GEN_METRIC_BW, "raw line"));
		assert_int_equal(s.status, TB_UNUSABLE);
		assert_true(isnan(s.bw_gbps) && isnan(s.msg_rate_mpps));
		assert_string_equal(s.evidence, "raw line");
		memset(&s, 0, sizeof(s));
		s.bw_gbps = s.msg_rate_mpps = NAN;
		s.lat_median_us = bad[i];
		s.lat_p99_us = 3;
		assert_true(tb_sample_judge(&s, GEN_METRIC_LAT, NULL));
		assert_int_equal(s.status, TB_UNUSABLE);
	}
	memset(&s, 0, sizeof(s));
	s.bw_gbps = 10;
	s.msg_rate_mpps = NAN;
	s.lat_median_us = s.lat_p99_us = NAN;
	assert_false(tb_sample_judge(&s, GEN_METRIC_BW, "x"));
	assert_int_equal(s.status, TB_OK);
	assert_string_equal(s.evidence, "");
	s.msg_rate_mpps = INFINITY; /* a secondary number may be absent, never infinite */
	assert_true(tb_sample_judge(&s, GEN_METRIC_BW, NULL));
	memset(&s, 0, sizeof(s));
	s.status = TB_TIMEOUT;
	s.bw_gbps = NAN;
	assert_false(tb_sample_judge(&s, GEN_METRIC_BW, NULL));
	assert_int_equal(s.status, TB_TIMEOUT);
	assert_string_equal(tb_status_name(TB_UNUSABLE), "unusable");
	assert_int_equal(tb_status_parse("unusable", &st), 0);
	assert_int_equal(st, TB_UNUSABLE);
}

/* The number in DIR/n (the attempts a fake counted), 0 when absent. */
static int read_count(const char *dir)
{
	char *path = NULL, buf[16] = "";
	FILE *f;

	assert_true(asprintf(&path, "%s/n", dir) > 0);
	f = fopen(path, "r");
	if (f && !fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	if (f)
		fclose(f);
	free(path);
	return atoi(buf);
}

/* Measure once on a local fake whose client runs CLIENT; *ATTEMPTS: clients started. */
static int measure_fake(const char *tool, const char *client, enum gen_metric m,
			unsigned retries, unsigned port_off, struct tb_sample *s,
			struct scn_error *err, int *attempts)
{
	char *dir = ptf_dir(), *inv, *frag = NULL;
	struct gen_traffic t;
	struct tb *tb = NULL;
	int rc;

	frag = ptf_counting(client);
	ptf_tool(dir, tool, frag);
	inv = ptf_inventory(dir, dir, "local", ptf_port_base(port_off), retries);
	assert_int_equal(tb_open(inv, &tb, err), 0);
	lat_traffic(&t, m);
	rc = tb_measure(tb, &t, 1, s, err);
	tb_close(tb);
	*attempts = read_count(dir);
	free(frag);
	free(inv);
	ptf_rmdir(dir);
	return rc;
}

static void test_ptfaults_inf_latency_is_unusable(void **state)
{
	char *table = ptf_lat_table("inf"), *client = NULL;
	struct scn_error err;
	struct tb_sample s;
	int attempts = 0;

	(void)state;
	if (!ptf_usable())
		skip();
	assert_true(asprintf(&client, "cat <<'END'\n%sEND\n", table) > 0);
	assert_int_equal(measure_fake("ib_write_lat", client, GEN_METRIC_LAT, 1, 0, &s, &err,
				      &attempts), 0);
	assert_int_equal(s.status, TB_UNUSABLE);
	assert_int_equal(attempts, 2); /* tried again before giving up on it */
	assert_true(isnan(s.lat_median_us) && isnan(s.lat_p99_us) && isnan(s.bw_gbps));
	assert_non_null(strstr(s.evidence, "client: line 6: 65536 1000 inf inf inf inf"));
	free(client);
	free(table);
}

static void test_ptfaults_zero_bandwidth_is_unusable(void **state)
{
	const char *client =
		"cat <<'END'\n                    RDMA_Write BW Test\n"
		" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
		" 65536      1000             0.00              0.00  \t\t   0.000000\nEND\n";
	struct scn_error err;
	struct tb_sample s;
	int attempts = 0;

	(void)state;
	if (!ptf_usable())
		skip();
	assert_int_equal(measure_fake("ib_write_bw", client, GEN_METRIC_BW, 0, 20, &s, &err,
				      &attempts), 0);
	assert_int_equal(s.status, TB_UNUSABLE);
	assert_int_equal(attempts, 1);
	assert_true(isnan(s.bw_gbps) && isnan(s.msg_rate_mpps));
	assert_non_null(strstr(s.evidence, "65536 1000 0.00 0.00 0.000000"));
}

static void test_ptfaults_inf_then_good_is_ok(void **state)
{
	char *bad = ptf_lat_table("inf"), *good = ptf_lat_table("44.27"), *client = NULL;
	struct scn_error err;
	struct tb_sample s;
	int attempts = 0;

	(void)state;
	if (!ptf_usable())
		skip();
	assert_true(asprintf(&client, "if [ $n -eq 1 ]; then cat <<'END'\n%sEND\nelse "
			     "cat <<'END'\n%sEND\nfi\n", bad, good) > 0);
	assert_int_equal(measure_fake("ib_write_lat", client, GEN_METRIC_LAT, 2, 40, &s, &err,
				      &attempts), 0);
	assert_int_equal(s.status, TB_OK);
	assert_int_equal(attempts, 2);
	assert_true(fabs(s.lat_median_us - 44.27) < 1e-9);
	assert_string_equal(s.evidence, "");
	free(client);
	free(good);
	free(bad);
}

static void test_ptfaults_error_names_attempts_and_line(void **state)
{
	const char *client = "echo \"Couldn't connect to 127.0.0.1:$port\" >&2; exit 1\n";
	struct scn_error err;
	struct tb_sample s;
	int attempts = 0;

	(void)state;
	if (!ptf_usable())
		skip();
	assert_true(measure_fake("ib_write_bw", client, GEN_METRIC_BW, 1, 60, &s, &err,
				 &attempts) < 0);
	assert_int_equal(attempts, 2);
	assert_int_equal(err.cls, SCN_ERR_TRANSIENT);
	assert_non_null(strstr(err.message, "after 2 attempts: perftest on client"));
	assert_non_null(strstr(err.message, "Couldn't connect to 127.0.0.1:"));
}

/* The pid in FILE, 0 when it is not there (yet). */
static pid_t pid_in(const char *dir, const char *name)
{
	char *path = NULL, buf[32] = "";
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "r");
	if (f && !fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	if (f)
		fclose(f);
	free(path);
	return (pid_t)atoi(buf);
}

/* PID is gone or a zombie nobody reaped yet: not running. */
static bool running(pid_t pid)
{
	char path[64], buf[512], *rp, state = 'X';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return false;
	if (fgets(buf, sizeof(buf), f) && (rp = strrchr(buf, ')')))
		state = rp[2];
	fclose(f);
	return state != 'Z' && state != 'X';
}

/* A harness: measure one trial on the fake in DIR (long deadlines), never returning in time. */
static void harness(const char *dir)
{
	char *text = NULL, *inv;
	struct gen_traffic t;
	struct scn_error err;
	struct tb_sample s;
	struct tb *tb = NULL;

	if (asprintf(&text, "kind: perftest\nname: fake\neswitch: none\n"
		     "perftest: {bin_dir: %s, run_s: 60}\n"
		     "timeouts: {setup_s: 60, slack_s: 60, listen_s: 10}\nretries: 0\n"
		     "ports: {base: %u, count: 16}\nhosts:\n"
		     "  - {name: server, transport: local, data_ip: 127.0.0.1, rnic: {device: rxe0}}\n"
		     "  - {name: client, transport: local, rnic: {device: rxe0}}\n"
		     "pairs: [{client: client, server: server}]\n", dir, ptf_port_base(80)) < 0)
		_exit(2);
	inv = ptf_write(dir, "harness.yaml", text, false);
	if (tb_open(inv, &tb, &err) < 0)
		_exit(3);
	lat_traffic(&t, GEN_METRIC_BW);
	tb_measure(tb, &t, 1, &s, &err);
	_exit(4);
}

static void test_ptfaults_children_die_with_the_harness(void **state)
{
	char *dir;
	pid_t h, cli = 0, srv = 0;
	int st;

	(void)state;
	if (!ptf_usable())
		skip();
	dir = ptf_dir();
	ptf_tool(dir, "ib_write_bw", "echo $$ > \"$dir/client.pid\"; exec sleep 100\n");
	h = fork();
	assert_true(h >= 0);
	if (h == 0)
		harness(dir);
	for (int i = 0; i < 1000 && !(cli && srv); i++) {
		usleep(10000);
		cli = pid_in(dir, "client.pid");
		srv = pid_in(dir, "server.pid");
	}
	assert_true(cli > 0 && srv > 0);
	usleep(100000); /* the client has exec'd sleep */
	assert_true(running(cli) && running(srv));
	assert_int_equal(kill(h, SIGKILL), 0);
	assert_int_equal(waitpid(h, &st, 0), h);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	for (int i = 0; i < 300 && (running(cli) || running(srv)); i++)
		usleep(10000);
	assert_false(running(cli));
	assert_false(running(srv));
	ptf_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptfaults_judge),
		cmocka_unit_test(test_ptfaults_inf_latency_is_unusable),
		cmocka_unit_test(test_ptfaults_zero_bandwidth_is_unusable),
		cmocka_unit_test(test_ptfaults_inf_then_good_is_ok),
		cmocka_unit_test(test_ptfaults_error_names_attempts_and_line),
		cmocka_unit_test(test_ptfaults_children_die_with_the_harness),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
