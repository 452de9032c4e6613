/* SPDX-License-Identifier: MIT */
/*
 * test-opt-model: unit tests of libscalacn-opt's model files (round trip, damage, version,
 * what a version means for the cached walk,
 * garbage, the RNIC a table selects, a tick that follows its model) and of the
 * number-array parser (edge cases and a seeded fuzz). Assumes a writable temporary
 * directory (mkstemp in /tmp).
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
#include <sqlite3.h>

#include "optimiser/opt_priv.h" /* white box: the number-array parser */
#include "optimiser/scalacn-opt.h"
#include "tests/opt-test-rng.h"

/* ---- Models ---------------------------------------------------------------------------- */

static void tmp_path(char *buf, size_t len)
{
	int fd;

	snprintf(buf, len, "/tmp/test-optimiser-XXXXXX");
	fd = mkstemp(buf);
	assert_true(fd >= 0);
	close(fd);
}

static const struct opt_model_row rows[] = {
	{ "cx7", "28.39", "write", "bw", OPT_FORM_RBF2, { 170, 0, 0, 40.5, 10 }, 5,
	  { 0, 200, 0, 200 }, 4, NULL, NULL, { 0 } },
	{ "cx7", "28.39", "write", "lat", OPT_FORM_PLANE, { 0.04, 0.09, 2.74 }, 3, { 0 }, 0,
	  "{\"r2\":0.93}", NULL, { 0 } },
	{ "cx7", "28.39", "send", "bw", OPT_FORM_SERVICE, { 177, 0.02, 0.05 }, 3, { 0, 100 }, 2,
	  NULL, NULL, { 0 } },
	{ "cx7", "28.39", "send", "lat", OPT_FORM_LINE, { 0.07, 2.7 }, 2, { 0 }, 0, NULL, NULL, { 0 } },
	{ "cx7", "28.39", "read", "bw", OPT_FORM_RBF1, { 123.25, 0, 30, 5 }, 4, { 0 }, 0, NULL, NULL,
	  { 0 } },
	{ "cx7", "28.39", "read", "lat", OPT_FORM_KNEE, { 3, 0.5, 64 }, 3, { 0 }, 0, NULL, NULL, { 0 } },
};

static void test_optimiser_model_round_trip(void **state)
{
	char path[64], err[256] = "";
	struct opt_model *m = NULL;
	double v, x = 37, y = 11;

	(void)state;
	tmp_path(path, sizeof(path));
	assert_int_equal(opt_model_write(path, rows, 6, err, sizeof(err)), 0);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(opt_model_predict(m, "write", "bw", x, y, &v), 0);
	assert_float_equal(v, 170 * exp(-(x * x + y * y) / (2 * 40.5 * 40.5)) + 10, 1e-12);
	assert_int_equal(opt_model_predict(m, "write", "lat", x, y, &v), 0);
	assert_float_equal(v, 0.04 * x + 0.09 * y + 2.74, 1e-12);
	assert_int_equal(opt_model_predict(m, "send", "bw", x, y, &v), 0);
	assert_float_equal(v, 177 / (1 + 0.02 * x + 0.05 * y), 1e-12);
	assert_int_equal(opt_model_predict(m, "send", "lat", x, y, &v), 0);
	assert_float_equal(v, 0.07 * x + 2.7, 1e-12);
	assert_int_equal(opt_model_predict(m, "read", "bw", x, y, &v), 0);
	assert_float_equal(v, 123.25 * exp(-x * x / (2 * 30.0 * 30.0)) + 5, 1e-12);
	assert_int_equal(opt_model_predict(m, "read", "lat", 10, 0, &v), 0);
	assert_float_equal(v, 3, 1e-12);
	assert_int_equal(opt_model_predict(m, "read", "lat", 80, 0, &v), 0);
	assert_float_equal(v, 3 + 0.5 * 16, 1e-12);
	assert_int_equal(opt_model_predict(m, "read", "nope", 1, 1, &v), -ENOENT);
	assert_int_equal(opt_model_in_domain(m, "write", "bw", 100, 100), 1);
	assert_int_equal(opt_model_in_domain(m, "write", "bw", 100, 300), 0);
	assert_int_equal(opt_model_in_domain(m, "send", "bw", 101, 0), 0);
	assert_int_equal(opt_model_in_domain(m, "send", "lat", 1e9, 0), 1);
	opt_model_free(m);
	unlink(path);
}

static void sql_exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* Recompute meta.checksum from the header's definition (independent implementation). */
static void reseal(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	char sql[128];

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	/* version 3: the 10 columns, inputs then flow_rules last (scalacn-opt.h) */
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT * FROM models ORDER BY 1,2,3,4,5,6,7,8,9,"
					    "10", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int c = 0; c <= 10; c++) {
			const unsigned char *v = c < 10 ? sqlite3_column_text(st, c) : NULL;
			int n = c < 10 ? sqlite3_column_bytes(st, c) : 0;

			for (int i = 0; i < n; i++)
				h = (h ^ v[i]) * 0x100000001b3ULL;
			h = (h ^ (c < 10 ? 0x1f : 0x1e)) * 0x100000001b3ULL;
		}
	}
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql), "UPDATE meta SET value = '%016llx' WHERE key = 'checksum'",
		 (unsigned long long)h);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_optimiser_model_damaged_refused(void **state)
{
	char path[64], err[256] = "";
	struct opt_model *m = NULL;
	unsigned char *buf;
	long n, hits = 0;
	FILE *f;

	(void)state;
	tmp_path(path, sizeof(path));
	assert_int_equal(opt_model_write(path, rows, 6, err, sizeof(err)), 0);
	f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	buf = malloc((size_t)n);
	fseek(f, 0, SEEK_SET);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	for (long i = 0; i + 6 <= n; i++) /* flip one byte of the params "123.25" */
		if (memcmp(buf + i, "123.25", 6) == 0) {
			fseek(f, i + 4, SEEK_SET);
			fputc('3', f);
			hits++;
		}
	fclose(f);
	free(buf);
	assert_int_equal(hits, 1);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), -EBADMSG);
	assert_null(m);
	assert_non_null(strstr(err, "checksum mismatch"));
	unlink(path);
}

static void test_optimiser_model_wrong_version_refused(void **state)
{
	char path[64], err[256] = "";
	struct opt_model *m = NULL;

	(void)state;
	tmp_path(path, sizeof(path));
	assert_int_equal(opt_model_write(path, rows, 6, err, sizeof(err)), 0);
	sql_exec(path, "UPDATE meta SET value = '5' WHERE key = 'version'");
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "unsupported version"));
	sql_exec(path, "UPDATE meta SET value = '3' WHERE key = 'version';"
		       "UPDATE meta SET value = 'other' WHERE key = 'format'");
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "format"));
	sql_exec(path, "UPDATE meta SET value = 'scalacn-model' WHERE key = 'format'");
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	opt_model_free(m);
	m = NULL;
	/* a bad params array under a correct checksum (recomputed here from the documented
	 * canonical form, which also checks that spec) is refused as malformed */
	sql_exec(path, "UPDATE models SET params_json = '[1,2'"
		       " WHERE metric = 'lat' AND verb = 'send'");
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), -EBADMSG);
	reseal(path);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "params_json"));
	sql_exec(path, "UPDATE models SET params_json = '[0.07, 2.7]' WHERE params_json = '[1,2'");
	reseal(path);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	opt_model_free(m);
	unlink(path);
}

/* Version 4 files walk the cached-walk forms' masks evenly (P = y); a file of version 3
 * or before meant the mean deal of x flows over y masks, P = 3x (1 - exp(-y/(3x))), and
 * is still evaluated so: one lspillc row (a latency a + b P (1 + u m), no spill, no cache
 * miss below both capacities) read as version 4, then as version 3. */
static void test_optimiser_model_walk_by_version(void **state)
{
	static const struct opt_model_row walk[] = {
		{ "cx6", "22.36", "send", "lat", OPT_FORM_LSPILLC,
		  { 2.0, 0.1, 1.5, 500, 1e6, 10, 1e9, 2, 0.1 }, 9, { 0 }, 0, NULL, NULL, { 0 } },
	};
	char path[64], err[256] = "";
	struct opt_model *m = NULL;
	double v, deal = -3.0 * 256 * expm1(-128.0 / (3.0 * 256));

	(void)state;
	tmp_path(path, sizeof(path));
	assert_int_equal(opt_model_write(path, walk, 1, err, sizeof(err)), 0);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(opt_model_predict(m, "send", "lat", 256, 128, &v), 0);
	assert_float_equal(v, 2.0 + 0.1 * 128, 1e-9);
	assert_int_equal(opt_model_predict(m, "send", "lat", 4096, 128, &v), 0);
	assert_float_equal(v, 2.0 + 0.1 * 128, 1e-9); /* the flows do not bend the walk */
	opt_model_free(m);
	m = NULL;
	sql_exec(path, "UPDATE meta SET value = '3' WHERE key = 'version'");
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(opt_model_predict(m, "send", "lat", 256, 128, &v), 0);
	assert_float_equal(v, 2.0 + 0.1 * deal, 1e-9);
	assert_true(deal < 0.93 * 128);
	opt_model_free(m);
	unlink(path);
}

static void test_optimiser_model_garbage_refused(void **state)
{
	char path[64], err[256] = "";
	struct opt_model *m = NULL;
	uint64_t s = 42;
	FILE *f;

	(void)state;
	tmp_path(path, sizeof(path));
	f = fopen(path, "wb");
	for (int i = 0; i < 4096; i++)
		fputc((int)(rng_next(&s) & 255), f);
	fclose(f);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an SQLite database"));
	assert_null(m);
	f = fopen(path, "wb"); /* empty file: an empty database without our tables */
	fclose(f);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "missing table"));
	/* a view in place of the models table is refused before anything runs */
	sql_exec(path, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
		       "CREATE VIEW models AS SELECT 'a','b','write','bw','line','[1,2]','[]','{}'");
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "missing table"));
	assert_int_equal(opt_model_load("/tmp", NULL, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "regular file"));
	unlink(path);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), -ENOENT);
	assert_int_equal(opt_model_load(path, NULL, &m, NULL, 0), -ENOENT);
}

static void test_optimiser_model_selects_rnic(void **state)
{
	struct opt_model_row two[2] = { rows[3], rows[3] };
	char path[64], err[256] = "";
	struct opt_model *m = NULL;
	double v;

	(void)state;
	two[1].rnic_model = "cx6";
	two[1].params[1] = 9.5;
	tmp_path(path, sizeof(path));
	assert_int_equal(opt_model_write(path, two, 2, err, sizeof(err)), 0);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "several RNIC models"));
	assert_int_equal(opt_model_load(path, "cx6", &m, err, sizeof(err)), 0);
	assert_int_equal(opt_model_predict(m, "send", "lat", 1, 0, &v), 0);
	assert_float_equal(v, 0.07 + 9.5, 1e-12);
	opt_model_free(m);
	assert_int_equal(opt_model_load(path, "e810", &m, err, sizeof(err)), -ENOENT);
	two[0].n_params = 4; /* line takes two */
	assert_int_equal(opt_model_write(path, two, 1, err, sizeof(err)), -EINVAL);
	unlink(path);
}

static void test_optimiser_tick_follows_model(void **state)
{
	struct opt_model_row row = { "cx7", "fw", "write", "bw", OPT_FORM_LINE, { -1, 100 }, 2,
				     { 0 }, 0, NULL, NULL, { 0 } };
	char path[64], err[256] = "";
	struct opt_model *m = NULL;
	struct opt_config c;
	struct opt_table *t = NULL;
	struct opt_plan *p = NULL;
	struct opt_plan_info info;

	(void)state;
	tmp_path(path, sizeof(path));
	assert_int_equal(opt_model_write(path, &row, 1, err, sizeof(err)), 0);
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	opt_config_default(&c);
	assert_int_equal(opt_table_new(&c, &t), 0);
	for (uint32_t i = 0; i < 10; i++) {
		struct opt_rule r = { .id = i + 1, .priority = 1 };

		r.mask.fields = (1u << OPT_F_TUN_DPORT) | (i ? 1u << (i - 1) : 0);
		r.mask.plen[i ? i - 1 : 0] = 32;
		assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
		if (i == 1) { /* 2 masks: predicted degradation 2% */
			assert_int_equal(opt_table_tick(t, 1, m, &p), 0);
			opt_plan_info(p, &info);
			assert_false(info.triggered);
			assert_float_equal(info.degradation, 0.02, 1e-12);
			opt_plan_free(p);
		}
	}
	assert_int_equal(opt_table_tick(t, 2, m, &p), 0);
	opt_plan_info(p, &info);
	assert_true(info.triggered);
	assert_int_equal(info.masks, 10);
	assert_float_equal(info.degradation, 0.10, 1e-12);
	opt_plan_free(p);
	snprintf(c.metric, sizeof(c.metric), "lat");
	opt_table_free(t);
	assert_int_equal(opt_table_new(&c, &t), 0);
	assert_int_equal(opt_table_tick(t, 2, m, &p), -ENOENT);
	assert_null(p);
	opt_table_free(t);
	opt_model_free(m);
	unlink(path);
}

/* ---- Number-array parser --------------------------------------------------------------- */

static int parse(const char *s, double *out, size_t cap, size_t *n)
{
	return opt_parse_number_array(s, strlen(s), out, cap, n);
}

static void test_optimiser_number_array_edge_cases(void **state)
{
	static const char *const bad[] = {
		"", "[", "]", "[1,]", "[,1]", "[01]", "[1e]", "[.5]", "[1.]", "[1 2]", "[\"1\"]",
		"[nan]", "[inf]", "[+1]", "[1]x", "1", "[[1]]", "[true]", "[null]", "[0x10]",
		"[1,,2]", "[- 1]", "{}", "[1e+]", "[--1]",
	};
	double v[4];
	size_t n = 99;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse(bad[i], v, 4, &n), -EINVAL);
	assert_int_equal(parse("[]", v, 4, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(parse(" \t[ 1 ,\n-2.5e-3 , 0 ,1E2 ] \r\n", v, 4, &n), 0);
	assert_int_equal(n, 4);
	assert_float_equal(v[0], 1, 0);
	assert_float_equal(v[1], -2.5e-3, 1e-18);
	assert_float_equal(v[2], 0, 0);
	assert_float_equal(v[3], 100, 0);
	assert_int_equal(parse("[-0]", v, 4, &n), 0);
	assert_int_equal(parse("[1,2,3,4,5]", v, 4, &n), -E2BIG);
	assert_int_equal(parse("[1e999]", v, 4, &n), -ERANGE);
	assert_int_equal(parse("[-1e999]", v, 4, &n), -ERANGE);
	assert_int_equal(parse("[1e-400]", v, 4, &n), 0); /* underflow to 0 is fine */
	assert_int_equal(opt_parse_number_array("[7]junk", 3, v, 4, &n), 0); /* LEN bounds */
	assert_float_equal(v[0], 7, 0);
	assert_int_equal(opt_parse_number_array("[7\0]", 4, v, 4, &n), -EINVAL);
	assert_int_equal(opt_parse_number_array(NULL, 0, v, 4, &n), -EINVAL);
	{
		char big[5000];

		memset(big, ' ', sizeof(big));
		big[0] = '[';
		big[sizeof(big) - 1] = ']';
		assert_int_equal(opt_parse_number_array(big, sizeof(big), v, 4, &n), -E2BIG);
		memset(big, '1', 100);
		big[0] = '[';
		assert_int_equal(opt_parse_number_array(big, 200, v, 4, &n), -E2BIG); /* token */
		big[100] = ']';
		assert_int_equal(opt_parse_number_array(big, 101, v, 4, &n), -E2BIG);
	}
}

static void test_optimiser_number_array_fuzz(void **state)
{
	static const char alphabet[] = "[]0123456789-+.eE, \t\"nx";
	static const char *const seeds[] = { "[1,2.5,-3e4]", "[0]", "[]", "[12.75e-3, 9]" };
	uint64_t s = 7;
	double v[8];
	char buf[64];

	(void)state;
	for (int it = 0; it < 200000; it++) {
		size_t n = 0, len;

		if (it & 1) { /* mutate a valid array */
			const char *src = seeds[rng_below(&s, 4)];

			len = strlen(src);
			memcpy(buf, src, len);
			for (int k = (int)rng_below(&s, 3); k >= 0; k--)
				buf[rng_below(&s, (uint32_t)len)] = alphabet[rng_below(&s, sizeof(alphabet) - 1)];
		} else { /* random text from the alphabet */
			len = rng_below(&s, sizeof(buf));
			for (size_t i = 0; i < len; i++)
				buf[i] = alphabet[rng_below(&s, sizeof(alphabet) - 1)];
		}
		if (opt_parse_number_array(buf, len, v, 8, &n) == 0) {
			assert_true(n <= 8);
			assert_true(buf[0] == '[' || buf[0] == ' ' || buf[0] == '\t');
			for (size_t i = 0; i < n; i++)
				assert_true(isfinite(v[i]));
		} else {
			assert_int_equal(n, 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_optimiser_model_round_trip),
		cmocka_unit_test(test_optimiser_model_damaged_refused),
		cmocka_unit_test(test_optimiser_model_wrong_version_refused),
		cmocka_unit_test(test_optimiser_model_walk_by_version),
		cmocka_unit_test(test_optimiser_model_garbage_refused),
		cmocka_unit_test(test_optimiser_model_selects_rnic),
		cmocka_unit_test(test_optimiser_tick_follows_model),
		cmocka_unit_test(test_optimiser_number_array_edge_cases),
		cmocka_unit_test(test_optimiser_number_array_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
