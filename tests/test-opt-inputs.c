/* SPDX-License-Identifier: MIT */
/*
 * test-opt-inputs: a model's inputs by name (model file version 2) and how a table feeds
 * them (optimiser/opt_inputs.c): the table's masks into the input it names, its rule count
 * over the file's rules per flow on its host (version 3) into the flows input, fixed values into the rest; a missing (verb, metric) or an unfed
 * input is refused with a message naming what the file holds; version-1 files still load
 * and keep their feeding (x = masks, y = remote_masks).
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
#include <sqlite3.h>
#include <unistd.h>

#include "optimiser/scalacn-opt.h"

static void tmp_path(char *buf, size_t len)
{
	static int n;

	snprintf(buf, len, "/tmp/scn-opt-inputs-%d-%d.db", (int)getpid(), n++);
	unlink(buf);
}

/* bw = 100 - 1 * x - 0.01 * y on (server.decap_masks, flows): a plane is exact to check. */
static const struct opt_model_row named = {
	"R", "fw", "send", "bw", OPT_FORM_PLANE, { -1, -0.01, 100 }, 3, { 0 }, 0, NULL,
	"server.decap_masks,flows", { 0 }
};

static struct opt_table *table_with(unsigned masks, unsigned rules_per_mask,
				    const char *masks_input, const char *flows_input)
{
	struct opt_config cfg;
	struct opt_table *t = NULL;
	uint32_t id = 1;

	opt_config_default(&cfg);
	snprintf(cfg.verb, sizeof(cfg.verb), "send");
	snprintf(cfg.masks_input, sizeof(cfg.masks_input), "%s", masks_input);
	snprintf(cfg.flows_input, sizeof(cfg.flows_input), "%s", flows_input);
	assert_int_equal(opt_table_new(&cfg, &t), 0);
	for (unsigned m = 0; m < masks; m++)
		for (unsigned k = 0; k < rules_per_mask; k++) {
			struct opt_rule r = { .id = id++, .priority = 1 };

			r.mask.fields = 1u << OPT_F_IP_DST | 1u << (OPT_F_IP_PROTO + m % 4);
			r.mask.plen[OPT_F_IP_DST] = (uint8_t)(32 - m / 4);
			r.v[OPT_F_IP_DST] = ((uint64_t)k << 8) & 0xffffffffu;
			r.v[OPT_F_IP_PROTO + m % 4] = 6;
			assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
		}
	return t;
}

static void test_opt_inputs_named_model_roundtrip(void **state)
{
	char path[80], err[256] = "";
	const char *x = NULL, *y = NULL;
	struct opt_model *m = NULL;
	double v;

	(void)state;
	tmp_path(path, sizeof(path));
	assert_int_equal(opt_model_write(path, &named, 1, err, sizeof(err)), 0);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(opt_model_inputs(m, "send", "bw", &x, &y), 0);
	assert_string_equal(x, "server.decap_masks");
	assert_string_equal(y, "flows");
	assert_int_equal(opt_model_inputs(m, "write", "bw", &x, &y), -ENOENT);
	assert_int_equal(opt_model_predict(m, "send", "bw", 10, 1000, &v), 0);
	assert_true(v > 79.99 && v < 80.01);
	opt_model_free(m);
	unlink(path);
}

/* The table's masks go to server.decap_masks, its rules to flows: degradation 1 - bw/bw0
 * with bw0 at 0 masks and the same flows. */
static void test_opt_inputs_table_feeds_by_name(void **state)
{
	char path[80], err[256] = "";
	struct opt_model *m = NULL;
	struct opt_table *t = table_with(20, 50, "server.decap_masks", "flows");
	struct opt_plan *p = NULL;
	struct opt_plan_info info;

	(void)state;
	tmp_path(path, sizeof(path));
	assert_int_equal(opt_model_write(path, &named, 1, err, sizeof(err)), 0);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(opt_table_check_model(t, m, err, sizeof(err)), 0);
	assert_int_equal(opt_table_tick(t, 1, m, &p), 0);
	opt_plan_info(p, &info);
	/* bw(20 masks, 1000 flows) = 70, bw(0, 1000) = 90 */
	assert_true(info.degradation > 0.2221 && info.degradation < 0.2223);
	assert_true(info.triggered);
	opt_plan_free(p);
	opt_table_free(t);
	opt_model_free(m);
	unlink(path);
}

/* Degradation the named plane predicts for a server table of 20 masks x 50 rules when the
 * file says one flow put FLOW_RULES rules on each host, the host's other rules OTHER. */
static double degradation_with(double client_rules, double server_rules, double other)
{
	struct opt_model_row row = named;
	char path[80], err[256] = "";
	struct opt_model *m = NULL;
	struct opt_table *t = table_with(20, 50, "server.decap_masks", "flows");
	struct opt_plan *p = NULL;
	struct opt_plan_info info;

	row.flow_rules[0] = client_rules;
	row.flow_rules[1] = server_rules;
	tmp_path(path, sizeof(path));
	assert_int_equal(opt_model_write(path, &row, 1, err, sizeof(err)), 0);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	if (other > 0) {
		struct opt_config cfg;

		opt_table_free(t);
		t = NULL;
		opt_config_default(&cfg);
		snprintf(cfg.verb, sizeof(cfg.verb), "send");
		snprintf(cfg.masks_input, sizeof(cfg.masks_input), "server.decap_masks");
		snprintf(cfg.flows_input, sizeof(cfg.flows_input), "flows");
		assert_int_equal(opt_config_set_input(&cfg, "flows", other), 0);
		assert_int_equal(opt_table_new(&cfg, &t), 0);
		for (uint32_t i = 0; i < 20; i++) { /* 20 masks of one rule each */
			struct opt_rule r = { .id = i + 1, .priority = 1 };

			r.mask.fields = 1u << OPT_F_IP_DST;
			r.mask.plen[OPT_F_IP_DST] = (uint8_t)(32 - i);
			assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
		}
	}
	assert_int_equal(opt_table_tick(t, 1, m, &p), 0);
	opt_plan_info(p, &info);
	opt_plan_free(p);
	opt_table_free(t);
	opt_model_free(m);
	unlink(path);
	return info.degradation;
}

/* A model measured with two rules per flow on the server (encap and decap offloaded there)
 * is fed the table's 1000 rules as 500 of its flows: bw(20, 500) = 75 against bw(0, 500) =
 * 95. The client's figure does not count for a server table; a file that does not say
 * (0) means one rule per flow; the fixed value of the flows input adds the host's other
 * rules (20 + 1980 rules over 2 per flow = 1000 flows: bw 70 against 90). */
static void test_opt_inputs_flows_fed_as_host_rules(void **state)
{
	(void)state;
	assert_true(fabs(degradation_with(1, 2, 0) - 20.0 / 95) < 1e-9);
	assert_true(fabs(degradation_with(3, 1, 0) - 20.0 / 90) < 1e-9);
	assert_true(fabs(degradation_with(0, 0, 0) - 20.0 / 90) < 1e-9);
	assert_true(fabs(degradation_with(1, 2, 1980) - 20.0 / 90) < 1e-9);
}

/* Seal a hand-made file of one row: meta with VERSION and the FNV-1a checksum of the row's
 * N values (each followed by 0x1f, the row by 0x1e), as scalacn-opt.h specifies. */
static void seal_by_hand(sqlite3 *h, const char *const *vals, int n, const char *version)
{
	uint64_t hash = 0xcbf29ce484222325ULL;
	char sql[200];

	for (int c = 0; c < n; c++) {
		for (const char *v = vals[c]; *v; v++)
			hash = (hash ^ (unsigned char)*v) * 0x100000001b3ULL;
		hash = (hash ^ 0x1f) * 0x100000001b3ULL;
	}
	hash = (hash ^ 0x1e) * 0x100000001b3ULL;
	snprintf(sql, sizeof(sql), "INSERT INTO meta VALUES('format','scalacn-model'),"
		 "('version','%s'),('checksum','%016llx')", version, (unsigned long long)hash);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
}

/* A version-2 file (no flow_rules column, the 9-column checksum) still loads, and its flows
 * input is fed the table's rule count as before (rules per flow unknown: 1). */
static void test_opt_inputs_version2_file_loads(void **state)
{
	static const char *const vals[] = { "R", "fw", "send", "bw", "plane", "[-1,-0.01,100]",
					    "[]", "{}", "server.decap_masks,flows" };
	char path[80], err[256] = "";
	struct opt_model *m = NULL;
	struct opt_table *t = table_with(20, 50, "server.decap_masks", "flows");
	struct opt_plan *p = NULL;
	struct opt_plan_info info;
	sqlite3 *h;

	(void)state;
	tmp_path(path, sizeof(path));
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h,
		"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
		"CREATE TABLE models(rnic_model TEXT NOT NULL, firmware TEXT NOT NULL,"
		" verb TEXT NOT NULL, metric TEXT NOT NULL, form TEXT NOT NULL,"
		" params_json TEXT NOT NULL, domain_json TEXT NOT NULL, quality_json TEXT NOT NULL,"
		" inputs TEXT NOT NULL);"
		"INSERT INTO models VALUES('R','fw','send','bw','plane','[-1,-0.01,100]','[]','{}',"
		"'server.decap_masks,flows');", NULL, NULL, NULL), SQLITE_OK);
	seal_by_hand(h, vals, 9, "2");
	sqlite3_close(h);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(opt_table_tick(t, 1, m, &p), 0);
	opt_plan_info(p, &info);
	assert_true(fabs(info.degradation - 20.0 / 90) < 1e-9);
	opt_plan_free(p);
	opt_table_free(t);
	opt_model_free(m);
	unlink(path);
}

/* Rules per flow outside 0 or 1..16 are refused by the writer and by the loader. */
static void test_opt_inputs_bad_flow_rules_refused(void **state)
{
	struct opt_model_row row = named;
	char path[80], err[256] = "";
	struct opt_model *m = NULL;
	sqlite3 *h;

	(void)state;
	tmp_path(path, sizeof(path));
	row.flow_rules[1] = 0.5;
	assert_int_equal(opt_model_write(path, &row, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "rules per flow"));
	row.flow_rules[1] = 2;
	assert_int_equal(opt_model_write(path, &row, 1, err, sizeof(err)), 0);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "UPDATE models SET flow_rules = '[3]'", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(h);
	/* refused: by the checksum first; the loader's own check is the same predicate */
	assert_true(opt_model_load(path, NULL, &m, err, sizeof(err)) < 0);
	assert_null(m);
	unlink(path);
}

static void test_opt_inputs_unfed_and_missing_refused(void **state)
{
	char path[80], err[256] = "";
	struct opt_model *m = NULL;
	struct opt_table *t = table_with(2, 1, "server.decap_masks", "");
	struct opt_plan *p = NULL;
	struct opt_config cfg;

	(void)state;
	tmp_path(path, sizeof(path));
	assert_int_equal(opt_model_write(path, &named, 1, err, sizeof(err)), 0);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(opt_table_check_model(t, m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'flows'"));
	assert_int_equal(opt_table_tick(t, 1, m, &p), -EINVAL);
	opt_table_free(t);
	/* a fixed value feeds it */
	opt_config_default(&cfg);
	snprintf(cfg.verb, sizeof(cfg.verb), "send");
	snprintf(cfg.masks_input, sizeof(cfg.masks_input), "server.decap_masks");
	assert_int_equal(opt_config_set_input(&cfg, "flows", 4096), 0);
	assert_int_equal(opt_table_new(&cfg, &t), 0);
	assert_int_equal(opt_table_check_model(t, m, err, sizeof(err)), 0);
	opt_table_free(t);
	/* a (verb, metric) the file lacks names what it has */
	snprintf(cfg.verb, sizeof(cfg.verb), "write");
	assert_int_equal(opt_table_new(&cfg, &t), 0);
	assert_int_equal(opt_table_check_model(t, m, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no write/bw model; it holds send/bw"));
	opt_table_free(t);
	opt_model_free(m);
	unlink(path);
}

/* A version-1 file (no inputs column) loads as client.masks,server.masks and keeps the old
 * feeding (x = the table's masks, y = remote_masks). */
static void test_opt_inputs_version1_file_loads(void **state)
{
	char path[80], err[256] = "";
	const char *x, *y;
	struct opt_model *m = NULL;
	sqlite3 *h;

	(void)state;
	tmp_path(path, sizeof(path));
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	/* the version-1 layout; checksum = FNV-1a of the one row's 8 values (0x1f, 0x1e) */
	assert_int_equal(sqlite3_exec(h,
		"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
		"CREATE TABLE models(rnic_model TEXT NOT NULL, firmware TEXT NOT NULL,"
		" verb TEXT NOT NULL, metric TEXT NOT NULL, form TEXT NOT NULL,"
		" params_json TEXT NOT NULL, domain_json TEXT NOT NULL, quality_json TEXT NOT NULL);"
		"INSERT INTO models VALUES('R','fw','write','bw','line','[-1,100]','[]','{}');",
		NULL, NULL, NULL), SQLITE_OK);
	{
		static const char *const vals[] = { "R", "fw", "write", "bw", "line", "[-1,100]",
						    "[]", "{}" };

		seal_by_hand(h, vals, 8, "1");
	}
	sqlite3_close(h);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(opt_model_inputs(m, "write", "bw", &x, &y), 0);
	assert_string_equal(x, "client.masks");
	assert_string_equal(y, "server.masks");
	opt_model_free(m);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opt_inputs_named_model_roundtrip),
		cmocka_unit_test(test_opt_inputs_table_feeds_by_name),
		cmocka_unit_test(test_opt_inputs_unfed_and_missing_refused),
		cmocka_unit_test(test_opt_inputs_version1_file_loads),
		cmocka_unit_test(test_opt_inputs_version2_file_loads),
		cmocka_unit_test(test_opt_inputs_flows_fed_as_host_rules),
		cmocka_unit_test(test_opt_inputs_bad_flow_rules_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
