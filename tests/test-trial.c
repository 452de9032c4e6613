/* SPDX-License-Identifier: MIT */
/*
 * test-trial: the harness's trial runner (hx_trial.c) on the simulated CX-6: a point's
 * measurement does not depend on the points measured before it. A CX-6 whose rules fell
 * back to software at 8192 flows stays in software (hysteresis) unless the rules are cleared,
 * so without the reset a following 7194-flow point looked collapsed in an uninterrupted
 * campaign but healthy after a resume.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/trial/hx_trial.h"

struct fixture {
	char dir[64], db_path[96];
	struct tb *tb;
	struct res_db *db;
	struct hx_runner r;
};

static void open_fixture(struct fixture *f, const char *name)
{
	char tb_path[1024];
	const char *src = getenv("SCALACN_SOURCE_ROOT");
	struct res_campaign c = { .seed = 3 };
	struct scn_error err;

	snprintf(f->dir, sizeof(f->dir), "/tmp/scalacn-trial-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->db_path, sizeof(f->db_path), "%s/%s.db", f->dir, name);
	snprintf(tb_path, sizeof(tb_path), "%s/examples/testbeds/sim-cx6.yaml", src ? src : ".");
	hx_runner_init(&f->r);
	assert_int_equal(tb_open(tb_path, &f->tb, &err), 0);
	assert_int_equal(tb_describe(f->tb, &f->r.desc, &err), 0);
	assert_int_equal(res_open(f->db_path, true, &f->db, &err), 0);
	assert_int_equal(res_campaign_insert(f->db, &c, &err), 0);
	f->r.tb = f->tb;
	f->r.db = f->db;
	f->r.campaign = c.id;
	f->r.seed = 3;
	f->r.repeats = 1;
}

static void close_fixture(struct fixture *f)
{
	char cmd[128];

	hx_runner_release(&f->r);
	res_close(f->db);
	tb_close(f->tb);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
}

static void levels_at(struct gen_levels *l, uint32_t flows)
{
	gen_levels_neutral(l);
	l->mtu = 1024;
	l->flows = flows;
	for (int h = 0; h < GEN_HOSTS; h++)
		for (int d = 0; d < GEN_DIRS; d++)
			l->masks[h][d] = 1;
}

static struct hx_trial_out trial(struct fixture *f, uint32_t flows)
{
	struct gen_levels l;
	struct hx_trial_out out;
	struct scn_error err;

	levels_at(&l, flows);
	assert_int_equal(hx_trial(&f->r, &l, "test", 0, &out, &err), 0);
	return out;
}

static void test_trial_independent_of_earlier_fallback(void **state)
{
	struct fixture after, fresh;
	struct hx_trial_out collapsed, a, b;

	(void)state;
	open_fixture(&after, "after");
	open_fixture(&fresh, "fresh");
	collapsed = trial(&after, 8192);
	assert_non_null(strstr(collapsed.sample.counters_json, "\"tc_not_in_hw\":"));
	assert_true(strstr(collapsed.sample.counters_json, "\"tc_not_in_hw\":0,") == NULL);
	a = trial(&after, 7194);
	b = trial(&fresh, 7194);
	print_message("8192 flows %.1f Gb/s; then 7194 flows %.1f Gb/s; fresh 7194 flows %.1f Gb/s\n",
		      collapsed.sample.bw_gbps, a.sample.bw_gbps, b.sample.bw_gbps);
	assert_true(collapsed.sample.bw_gbps < 0.6 * b.sample.bw_gbps);
	assert_true(a.sample.bw_gbps == b.sample.bw_gbps);
	assert_string_equal(a.sample.counters_json, b.sample.counters_json);
	close_fixture(&after);
	close_fixture(&fresh);
}

static void test_trial_found_in_store_is_not_measured_again(void **state)
{
	struct fixture f;
	struct hx_trial_out first, again;

	(void)state;
	open_fixture(&f, "store");
	first = trial(&f, 512);
	again = trial(&f, 512);
	assert_false(first.cached);
	assert_true(again.cached);
	assert_int_equal(first.id, again.id);
	assert_int_equal(f.r.measured, 1);
	assert_int_equal(f.r.cached, 1);
	close_fixture(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trial_independent_of_earlier_fallback),
		cmocka_unit_test(test_trial_found_in_store_is_not_measured_again),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
