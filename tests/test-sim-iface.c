/* SPDX-License-Identifier: MIT */
/*
 * test-sim-iface: unit tests of the simulated testbed's interface (testbeds/tb.c): describe
 * shows no parameters, every shipped profile gives finite bounded numbers, the testbed-kind
 * dispatcher, profile and testbed-file errors with file:line, the sample helpers.
 * Assumes SCALACN_SOURCE_ROOT.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "generators/gen.h"
#include "testbeds/tb.h"
#include "tests/test-sim-util.h"

/* ---- interface: describe, dispatcher, profile errors ----------------------------------------- */

static void test_sim_describe_shows_no_parameters(void **state)
{
	static const char *const shipped[] = { "cx4", "cx5", "cx6", "cx7", "bf3", "e810" };
	const char *root = getenv("SCALACN_SOURCE_ROOT");

	(void)state;
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		struct tb_description d;
		struct scn_error err;
		struct tb *tb = NULL;
		struct gen_levels l;
		struct tb_sample s;
		char path[1024];
		bool steer = false;

		snprintf(path, sizeof(path), "%s/examples/testbeds/sim-%s.yaml", root ? root : ".",
			 shipped[i]);
		scn_error_clear(&err);
		assert_int_equal(tb_open(path, &tb, &err), 0);
		assert_int_equal(tb_describe(tb, &d, &err), 0);
		assert_string_equal(d.kind, "sim");
		assert_true(strlen(d.rnic_model) > 0 && strlen(d.firmware) > 0);
		assert_true(d.line_rate_gbps >= 25);
		assert_true(strstr(d.identity, "sim:") == d.identity);
		for (unsigned c = 0; c < d.n_counter_names; c++) {
			assert_null(strstr(d.counter_names[c], "cache"));
			steer |= strcmp(d.counter_names[c], "rx_steer_missed_packets") == 0;
		}
		assert_true(steer);
		su_levels(&l, 64, 4, 4, 4, 4);
		su_run(tb, &l, 1, &s);
		assert_int_equal(s.status, TB_OK);
		assert_int_equal(s.n_counters, d.n_counter_names);
		assert_true(s.bw_gbps > 0 && s.bw_gbps <= d.line_rate_gbps);
		tb_close(tb);
	}
	tb_close(NULL);
}

/* Every shipped profile gives finite, bounded numbers over a small grid of points. */
static void test_sim_shipped_profiles_sane(void **state)
{
	static const char *const shipped[] = { "cx4", "cx5", "cx6", "cx7", "bf3", "e810" };
	static const uint32_t masks[] = { 0, 1, 8, 64 }, flows[] = { 64, 2048 };

	(void)state;
	for (size_t p = 0; p < sizeof(shipped) / sizeof(shipped[0]); p++) {
		struct tb *tb = open_shipped(shipped[p]);
		struct tb_description d;
		struct scn_error err;

		assert_int_equal(tb_describe(tb, &d, &err), 0);
		for (size_t m = 0; m < 4; m++)
			for (size_t f = 0; f < 2; f++) {
				struct gen_levels l;
				struct gen_rules *r;
				struct gen_traffic t;

				su_levels(&l, flows[f], masks[m], masks[m], masks[m], masks[m]);
				r = su_rules(&l);
				assert_int_equal(tb_apply(tb, r, &err), 0);
				for (int v = 0; v < TOPO_VERB_COUNT; v++)
					for (int metric = 0; metric < 2; metric++) {
						struct tb_sample s;

						l.verb = (enum topo_verb)v;
						l.metric = (enum gen_metric)metric;
						gen_traffic_from_levels(&l, &t);
						assert_int_equal(tb_measure(tb, &t, 5, &s, &err), 0);
						if (p == 5 && 2 * masks[m] > 64) { /* e810: recipes */
							assert_int_equal(s.status, TB_APPLY_FAILED);
							continue;
						}
						assert_int_equal(s.status, TB_OK);
						/* a latency test measures no bandwidth (NAN) */
						assert_true(metric == GEN_METRIC_LAT ? isnan(s.bw_gbps)
										     : s.bw_gbps > 0);
						assert_true(metric == GEN_METRIC_LAT ||
							    s.bw_gbps <= d.line_rate_gbps * 1.2);
						assert_true(s.lat_median_us > 0 &&
							    s.lat_p99_us >= s.lat_median_us);
						assert_true(s.msg_rate_mpps > 0 && s.cost_s > 0);
						for (unsigned c = 0; c < s.n_counters; c++)
							assert_true(isfinite(s.counters[c].value) &&
								    s.counters[c].value >= 0);
					}
				gen_rules_free(r);
			}
		tb_close(tb);
	}
}

/* Open a testbed file with TEXT; return the formatted error (empty when it opened). */
static const char *open_error(const char *dir_text, const char *profile_text, char *msg,
			      size_t len)
{
	char path[512];
	struct scn_error err;
	struct tb *tb = NULL;
	FILE *f;

	su_write_testbed(profile_text ? profile_text : "", path, sizeof(path));
	if (dir_text) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(dir_text, f);
		fclose(f);
	}
	scn_error_clear(&err);
	msg[0] = '\0';
	if (tb_open(path, &tb, &err) < 0) {
		assert_int_equal(err.cls, SCN_ERR_CONFIG);
		scn_error_format(&err, msg, len);
	}
	tb_close(tb);
	su_remove(path);
	return msg;
}

static void expect_at(const char *msg, const char *file, int line, const char *needle)
{
	char want[64];

	snprintf(want, sizeof(want), "%s:%d:", file, line);
	if (!strstr(msg, want) || !strstr(msg, needle))
		fail_msg("error '%s' lacks '%s' or '%s'", msg, want, needle);
}

static void test_sim_dispatch_kinds(void **state)
{
	char msg[1024];

	(void)state;
	open_error("# lab\nkind: vm\n", NULL, msg, sizeof(msg));
	expect_at(msg, "testbed.yaml", 2,
		  "testbed kind 'vm' is not built yet in this version");
	open_error("kind: qemu\n", NULL, msg, sizeof(msg));
	expect_at(msg, "testbed.yaml", 1, "unknown testbed kind 'qemu' (known: sim");
	open_error("kind: sim\nprofile: cx6\n", NULL, msg, sizeof(msg));
	assert_string_equal(msg, "");               /* a shipped profile by bare name */
	open_error("kind: sim\nprofile: nosuch\n", NULL, msg, sizeof(msg));
	expect_at(msg, "testbed.yaml", 2, "profile 'nosuch' not found");
	open_error("kind: sim\nprofile: cx6\ncolour: red\n", NULL, msg, sizeof(msg));
	expect_at(msg, "testbed.yaml", 3, "unknown key 'colour'");
}

static void test_sim_profile_errors(void **state)
{
	char msg[1024], *t;
	char *p;

	(void)state;
	/* unknown key */
	t = su_profile_text("cx7");
	p = strstr(t, "  shared_tree:");
	assert_non_null(p);
	memcpy(p, "  shared_trex:", 14);
	open_error(NULL, t, msg, sizeof(msg));
	expect_at(msg, "profile.yaml", su_line_of(t, "shared_trex"), "unknown key 'shared_trex'");
	free(t);
	/* negative capacity */
	t = su_profile_text("cx7");
	su_set(&t, "encap_contexts", "capacity", "-4096");
	open_error(NULL, t, msg, sizeof(msg));
	expect_at(msg, "profile.yaml", su_line_of(t, "capacity: -4096"), "-4096 is out of range [0,");
	assert_non_null(strstr(msg, "encap_contexts.capacity"));
	free(t);
	/* missing field of an enabled mechanism */
	t = su_profile_text("cx7");
	p = strstr(t, "  rx_probe_ns:");
	assert_non_null(p);
	memcpy(p, "# ", 2);
	open_error(NULL, t, msg, sizeof(msg));
	/* reported at the mapping: its first key, the line after "steering:" */
	expect_at(msg, "profile.yaml", su_line_of(t, "\nsteering:") + 2, "missing key");
	assert_non_null(strstr(msg, "steering.rx_probe_ns"));
	free(t);
	/* cross-field check */
	t = su_profile_text("cx7");
	su_set(&t, "steering_cache", "recover_below", "300000");
	open_error(NULL, t, msg, sizeof(msg));
	expect_at(msg, "profile.yaml", su_line_of(t, "recover_below: 300000"),
		  "must not exceed hard_capacity");
	free(t);
	/* a disabled mechanism may leave its numbers out */
	t = strdup("model: m\nfirmware: f\nline_rate_gbps: 100\n"
		   "link: {mtu: 1024, max_mtu: 4096, wire_overhead_bytes: 82, per_packet_ns: 10,"
		   " per_message_ns: 100, ack_every_packets: 16, base_latency_us: 2,"
		   " lat_per_kib_us: 0.1, read_extra_us: 0.5, p99_ratio: 1.1,"
		   " rx_overflow_drop: 0, cnp_interval_us: 4, software_gbps: 10,"
		   " software_latency_us: 80}\n"
		   "timing: {setup_s: 1, settle_s: 0}\n"
		   "steering: {enabled: false}\nsteering_cache: {enabled: false}\n"
		   "rule_capacity: {enabled: false}\nencap_contexts: {enabled: false}\n"
		   "rule_programming: {enabled: false}\nqp_cache: {enabled: false}\n"
		   "uar: {enabled: false}\ntraffic_class: {enabled: false}\n"
		   "noise: {enabled: false}\n");
	open_error(NULL, t, msg, sizeof(msg));
	assert_string_equal(msg, "");
	free(t);
}

static void test_sim_sample_helpers(void **state)
{
	struct tb_sample s;
	enum tb_status st;
	char name[32];

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_true(isnan(tb_sample_counter(&s, "port_xmit_data")));
	assert_int_equal(tb_sample_add_counter(&s, "port_xmit_data", 4), 0);
	assert_int_equal(tb_sample_add_counter(&s, "port_xmit_data", 5), 0); /* overwrites */
	assert_int_equal(s.n_counters, 1);
	assert_true(tb_sample_counter(&s, "port_xmit_data") == 5);
	for (int i = 1; i < TB_MAX_COUNTERS; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		assert_int_equal(tb_sample_add_counter(&s, name, i), 0);
	}
	assert_int_equal(tb_sample_add_counter(&s, "one_too_many", 1), -ENOSPC);
	assert_int_equal(tb_sample_add_counter(&s, NULL, 1), -EINVAL);
	for (int i = 0; i < TB_STATUS_COUNT; i++) {
		assert_int_equal(tb_status_parse(tb_status_name((enum tb_status)i), &st), 0);
		assert_int_equal(st, i);
	}
	assert_string_equal(tb_status_name(TB_APPLY_FAILED), "apply_failed");
	assert_int_equal(tb_status_parse("fine", &st), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_describe_shows_no_parameters),
		cmocka_unit_test(test_sim_shipped_profiles_sane),
		cmocka_unit_test(test_sim_dispatch_kinds),
		cmocka_unit_test(test_sim_profile_errors),
		cmocka_unit_test(test_sim_sample_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
