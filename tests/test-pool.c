/* SPDX-License-Identifier: MIT */
/*
 * test-pool: testbed pools (testbeds/tb_pool.c) and the pooled trial runner
 * (harness/trial/hx_pool.c, hx_trial.c, hx_repeats.c). A sim file with `slots: K` opens K
 * alike slots and refuses a count out of range with file:line; slots that differ in
 * firmware are refused naming the slot; a point's repeats measured on four slots at once
 * are, value for value, what one testbed measures; a slot whose testbed fails is taken out
 * (the observer is told once) and its trials run on the others; when every slot fails the
 * trial fails as a device error; a perftest file with `pool: true` makes each pair a slot
 * with its share of the ports; a fresh pool's first builds, on every slot at once, make one
 * rule-set cache.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "harness/trial/hx_trial.h"
#include "testbeds/perftest/pt_slots.h"
#include "testbeds/tb_pool.h"

struct fixture {
	char dir[64], db_path[96], tb_path[128];
	struct res_db *db;
	struct hx_runner r;
	unsigned lost, lost_slot;
};

/* The first column of SQL's first row on DB. */
static long sql_long(struct res_db *db, const char *sql)
{
	sqlite3_stmt *st;
	long v = -1;

	assert_int_equal(sqlite3_prepare_v2(res_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static long sqlite3_slots(struct res_db *db)
{
	return sql_long(db, "SELECT count(DISTINCT slot) FROM trials");
}

static void write_tb(struct fixture *f, const char *extra)
{
	FILE *fp = fopen(f->tb_path, "w");

	assert_non_null(fp);
	fprintf(fp, "kind: sim\nprofile: cx6\nname: pool-test\n%s", extra);
	fclose(fp);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct res_campaign c = { .seed = 5 };
	struct scn_error err;

	snprintf(f->dir, sizeof(f->dir), "/tmp/scalacn-pool-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->db_path, sizeof(f->db_path), "%s/pool.db", f->dir);
	snprintf(f->tb_path, sizeof(f->tb_path), "%s/tb.yaml", f->dir);
	assert_int_equal(res_open(f->db_path, true, &f->db, &err), 0);
	assert_int_equal(res_campaign_insert(f->db, &c, &err), 0);
	hx_runner_init(&f->r);
	f->r.db = f->db;
	f->r.campaign = c.id;
	f->r.seed = 5;
	f->r.repeats = 8;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	hx_runner_release(&f->r);
	res_close(f->db);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static void test_pool_sim_slots_open_alike(void **state)
{
	struct fixture *f = *state;
	struct tb_pool *p = NULL;
	struct scn_error err;
	struct tb_description d;

	write_tb(f, "slots: 4\n");
	assert_int_equal(tb_pool_open(f->tb_path, NULL, &p, &err), 0);
	assert_int_equal(tb_pool_size(p), 4);
	assert_null(tb_pool_slot(p, 4));
	assert_int_equal(tb_describe(tb_pool_slot(p, 3), &d, &err), 0);
	assert_string_equal(d.identity, tb_pool_description(p)->identity);
	assert_ptr_not_equal(tb_pool_slot(p, 0), tb_pool_slot(p, 1));
	tb_pool_close(p);
	write_tb(f, "");
	assert_int_equal(tb_pool_open(f->tb_path, NULL, &p, &err), 0);
	assert_int_equal(tb_pool_size(p), 1);
	tb_pool_close(p);
	write_tb(f, "slots: 65\n");
	assert_true(tb_pool_open(f->tb_path, NULL, &p, &err) < 0);
	assert_null(p);
	assert_int_equal(err.cls, SCN_ERR_CONFIG);
	assert_int_equal(err.line, 4);
	assert_non_null(strstr(err.key, "slots"));
}

static void test_pool_slots_must_be_alike(void **state)
{
	struct tb_description d[3];
	struct scn_error err;

	(void)state;
	memset(d, 0, sizeof(d));
	for (int i = 0; i < 3; i++) {
		snprintf(d[i].rnic_model, sizeof(d[i].rnic_model), "ConnectX-6 Dx");
		snprintf(d[i].firmware, sizeof(d[i].firmware), "22.36.1010");
		snprintf(d[i].identity, sizeof(d[i].identity), "perftest:lab");
	}
	assert_int_equal(tb_pool_check_alike("lab.yaml", d, 3, &err), 0);
	snprintf(d[2].firmware, sizeof(d[2].firmware), "22.39.1002");
	assert_int_equal(tb_pool_check_alike("lab.yaml", d, 3, &err), -EINVAL);
	assert_int_equal(err.cls, SCN_ERR_CONFIG);
	assert_non_null(strstr(err.message, "lab.yaml: slot 2 has ConnectX-6 Dx firmware 22.39.1002"));
}

/* A runner on store PATH (a campaign of seed 5) for the slots TB[0..N-1]. */
static void runner_on(struct hx_runner *r, const char *path, struct res_db **db,
		      struct tb *const *tb, unsigned n)
{
	struct res_campaign c = { .seed = 5 };
	struct scn_error err;

	assert_int_equal(res_open(path, true, db, &err), 0);
	assert_int_equal(res_campaign_insert(*db, &c, &err), 0);
	hx_runner_init(r);
	assert_int_equal(tb_describe(tb[0], &r->desc, &err), 0);
	assert_int_equal(hx_runner_slots(r, tb, n), 0);
	r->db = *db;
	r->campaign = c.id;
	r->seed = 5;
	r->repeats = 8;
}

static void levels_at_wall(struct gen_levels *l)
{
	gen_levels_neutral(l);
	l->flows = 8192;
	l->masks[GEN_SERVER][GEN_DECAP] = 4;
}

/* The point's 8 repeats on one testbed and on a pool of four: the same values, in order. */
static void test_pool_repeats_measure_as_one_testbed(void **state)
{
	struct fixture *f = *state;
	struct hx_point_result one = { .n = 0 }, four = { .n = 0 };
	struct hx_runner serial, pooled;
	struct res_db *db1, *db4;
	struct tb_pool *p = NULL;
	struct tb *slots[4];
	struct gen_levels l;
	struct scn_error err;
	char path[128];

	/* each trial holds its slot 20 ms, so the repeats in flight need several slots (without
	 * a delay one slot, free again at once and holding the rules, may take them all) */
	write_tb(f, "slots: 4\ndelay_s: 0.02\n");
	assert_int_equal(tb_pool_open(f->tb_path, NULL, &p, &err), 0);
	for (unsigned i = 0; i < 4; i++)
		slots[i] = tb_pool_slot(p, i);
	snprintf(path, sizeof(path), "%s/one.db", f->dir);
	runner_on(&serial, path, &db1, slots, 1);
	snprintf(path, sizeof(path), "%s/four.db", f->dir);
	runner_on(&pooled, path, &db4, slots, 4);
	levels_at_wall(&l);
	assert_int_equal(hx_point_run(&serial, &l, "test", &one, &err), 0);
	assert_int_equal(hx_point_run(&pooled, &l, "test", &four, &err), 0);
	assert_int_equal(one.n, 8);
	assert_int_equal(four.n, 8);
	assert_int_equal(pooled.measured, 8);
	for (unsigned i = 0; i < 8; i++)
		assert_true(one.x[i] == four.x[i] && one.x[i] > 0);
	assert_true(sqlite3_slots(db4) > 1);
	hx_runner_release(&serial);
	hx_runner_release(&pooled);
	res_close(db1);
	res_close(db4);
	tb_pool_close(p);
}

/* A fresh pooled runner's first trials start on every slot at once, and each slot's thread
 * builds its rules: the rule-set cache is made once, under the pool's build lock. (Each
 * thread that saw none used to make its own, and all but one leaked with the rule sets
 * built through them: the sanitizer job's leak check caught it in one campaign in a
 * hundred; here 200 fresh runners each start 8 repeats on 4 slots.) */
static void test_pool_first_builds_make_one_cache(void **state)
{
	struct fixture *f = *state;
	struct tb_pool *p = NULL;
	struct tb *slots[4];
	struct scn_error err;

	write_tb(f, "slots: 4\n");
	assert_int_equal(tb_pool_open(f->tb_path, NULL, &p, &err), 0);
	for (unsigned i = 0; i < 4; i++)
		slots[i] = tb_pool_slot(p, i);
	for (unsigned k = 0; k < 200; k++) {
		struct hx_point_result res = { .n = 0 };
		struct hx_runner r;
		struct gen_levels l;

		hx_runner_init(&r);
		assert_int_equal(tb_describe(slots[0], &r.desc, &err), 0);
		assert_int_equal(hx_runner_slots(&r, slots, 4), 0);
		r.db = f->db;
		r.campaign = f->r.campaign;
		r.seed = 5;
		r.repeats = 8;
		gen_levels_neutral(&l);
		l.flows = 1024 + k; /* a new point each time: nothing comes from the store */
		l.masks[GEN_SERVER][GEN_DECAP] = 4;
		assert_int_equal(hx_point_run(&r, &l, "test", &res, &err), 0);
		assert_int_equal(res.n, 8);
		assert_int_equal(r.measured, 8);
		assert_non_null(r.rules_cache);
		hx_runner_release(&r);
	}
	tb_pool_close(p);
}

/* A testbed that is gone: every measure is a device error. */
static int gone_measure(struct tb *tb, const struct gen_traffic *t, uint64_t seed,
			struct tb_sample *out, struct scn_error *err)
{
	(void)tb, (void)t, (void)seed, (void)out;
	return scn_error_set(err, SCN_ERR_DEVICE, -EIO, "host lab-b unreachable");
}

static int gone_apply(struct tb *tb, const struct gen_rules *rules, struct scn_error *err)
{
	(void)tb, (void)rules, (void)err;
	return 0;
}

static const struct tb_ops gone_ops = { .kind = "gone", .apply = gone_apply,
					.measure = gone_measure };

static void on_lost(void *ctx, unsigned slot, unsigned alive, const char *why)
{
	struct fixture *f = ctx;

	f->lost++;
	f->lost_slot = slot;
	assert_int_equal(alive, 2);
	assert_non_null(strstr(why, "host lab-b unreachable"));
}

static void test_pool_failed_slot_taken_out_and_retried(void **state)
{
	struct fixture *f = *state;
	struct hx_observer obs = { .ctx = f, .slot_lost = on_lost };
	struct tb gone = { .ops = &gone_ops };
	struct hx_point_result res = { .n = 0 };
	struct tb_pool *p = NULL;
	struct tb *slots[3];
	struct gen_levels l;
	struct scn_error err;
	struct hx_runner r;
	struct res_db *db;
	char path[128];

	/* the healthy slots hold each trial 20 ms, so a repeat in flight must take the gone slot
	 * (without a delay, on a loaded host, slot 0 alone could finish all 8: flaky in CI) */
	write_tb(f, "slots: 2\ndelay_s: 0.02\n");
	assert_int_equal(tb_pool_open(f->tb_path, NULL, &p, &err), 0);
	slots[0] = tb_pool_slot(p, 0);
	slots[1] = &gone;
	slots[2] = tb_pool_slot(p, 1);
	snprintf(path, sizeof(path), "%s/lost.db", f->dir);
	runner_on(&r, path, &db, slots, 3);
	r.observer = &obs;
	levels_at_wall(&l);
	assert_int_equal(hx_point_run(&r, &l, "test", &res, &err), 0);
	assert_int_equal(res.n, 8);
	assert_int_equal(res.failed, 0);
	assert_int_equal(f->lost, 1);
	assert_int_equal(f->lost_slot, 1);
	assert_int_equal(sql_long(db, "SELECT count(*) FROM trials WHERE slot = 1"), 0);
	assert_int_equal(sql_long(db, "SELECT count(*) FROM trials"), 8);
	hx_runner_release(&r);
	res_close(db);
	tb_pool_close(p);
}

static void test_pool_every_slot_failed_is_device_error(void **state)
{
	struct fixture *f = *state;
	struct tb gone = { .ops = &gone_ops };
	struct tb *slots[2] = { &gone, &gone };
	struct hx_point_result res = { .n = 0 };
	struct gen_levels l;
	struct scn_error err;

	assert_int_equal(hx_runner_slots(&f->r, slots, 2), 0);
	levels_at_wall(&l);
	assert_true(hx_point_run(&f->r, &l, "test", &res, &err) < 0);
	assert_int_equal(err.cls, SCN_ERR_DEVICE);
	assert_non_null(strstr(err.message, "host lab-b unreachable"));
	assert_int_equal(f->r.measured, 0);
}

/* perftest `pool: true`: each pair a slot of its own with half the ports; without it the
 * pairs are one slot (load inside every trial). */
static void test_pool_perftest_pairs_are_slots(void **state)
{
	struct fixture *f = *state;
	struct pt_inventory *inv = NULL, *slot[4] = { NULL };
	struct scn_error err;
	unsigned n = 0;
	FILE *fp;

	for (int pool = 1; pool >= 0; pool--) {
		fp = fopen(f->tb_path, "w");
		assert_non_null(fp);
		fprintf(fp, "kind: perftest\nname: lab\neswitch: none\npool: %s\n"
			"ports: {base: 20000, count: 64}\nhosts:\n", pool ? "true" : "false");
		for (int h = 0; h < 4; h++)
			fprintf(fp, "  - {name: h%d, transport: ssh, ssh: {host: h%d.lab}, "
				"data_ip: 10.0.0.%d, rnic: {device: mlx5_0}}\n", h, h, h + 1);
		fprintf(fp, "pairs: [{client: h0, server: h1}, {client: h2, server: h3}]\n");
		fclose(fp);
		assert_int_equal(pt_inventory_load(f->tb_path, &inv, &err), 0);
		assert_int_equal(pt_slots_of(inv, slot, 4, &n, &err), 0);
		assert_int_equal(n, pool ? 2 : 1);
		assert_int_equal(slot[n - 1]->n_pairs, pool ? 1 : 2);
		if (pool) {
			assert_string_equal(slot[1]->hosts[0].name, "h2");
			assert_string_equal(slot[1]->hosts[1].data_ip, "10.0.0.4");
			assert_int_equal(slot[1]->port_base, 20032);
			assert_int_equal(slot[1]->port_count, 32);
		}
		for (unsigned i = 0; i < n; i++)
			pt_inventory_free(slot[i]);
		pt_inventory_free(inv);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pool_sim_slots_open_alike, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_slots_must_be_alike, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_repeats_measure_as_one_testbed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pool_first_builds_make_one_cache, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pool_failed_slot_taken_out_and_retried, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pool_every_slot_failed_is_device_error, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pool_perftest_pairs_are_slots, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
