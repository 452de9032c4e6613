/* SPDX-License-Identifier: MIT */
/*
 * test-signed-model: signed model files (libscalacn-opt's opt_sign.c and `scalacn keygen`,
 * `scalacn export --sign` through the real binary). A signed file loads with its public key
 * and predicts as the unsigned loader does; an unsigned file, a file signed by another key,
 * a flipped byte and the attack the checksum cannot stop (a parameter edited with SQLite and
 * the FNV-1a checksum recomputed: opt_model_load accepts it, predictions change) are all
 * refused by opt_model_load_signed. A secret key others can read is refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "e2e_util.h"
#include "optimiser/scalacn-opt.h"

struct ctx {
	char dir[64], model[256], key[256], pub[256];
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	snprintf(c->dir, sizeof(c->dir), "%s", e2e_tmpdir());
	snprintf(c->model, sizeof(c->model), "%s/m.model", c->dir);
	snprintf(c->key, sizeof(c->key), "%s/key", c->dir);
	snprintf(c->pub, sizeof(c->pub), "%s/key.pub", c->dir);
	*state = c;
	return 0;
}

static void write_model(const char *path)
{
	static const struct opt_model_row rows[] = {
		{ "cx7", "28.39", "write", "bw", OPT_FORM_PLANE, { -0.5, -0.25, 88.59 }, 3,
		  { 0, 64, 0, 64 }, 4, NULL, NULL, { 0 } },
		{ "cx7", "28.39", "write", "lat", OPT_FORM_LINE, { 0.07, 2.7 }, 2, { 0 }, 0, NULL, NULL, { 0 } },
	};
	char err[256];

	assert_int_equal(opt_model_write(path, rows, 2, err, sizeof(err)), 0);
}

static double predict(const char *path, const char *pub, int *rc)
{
	struct opt_model *m = NULL;
	char err[512] = "";
	double v = NAN;

	*rc = pub ? opt_model_load_signed(path, NULL, pub, &m, err, sizeof(err))
		  : opt_model_load(path, NULL, &m, err, sizeof(err));
	if (*rc == 0)
		assert_int_equal(opt_model_predict(m, "write", "bw", 0, 0, &v), 0);
	opt_model_free(m);
	return v;
}

static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* The attacker's "ten lines of Python": the FNV-1a checksum of scalacn-opt.h, recomputed. */
static void recompute_checksum(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ull;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char sql[128];

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	/* the model file's version 3 checksum: 10 columns, flow_rules last (scalacn-opt.h) */
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT rnic_model, firmware, verb, metric, form, "
					    "params_json, domain_json, quality_json, inputs, "
					    "flow_rules FROM models ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, "
					    "9, 10", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < 10; i++) {
			const unsigned char *v = sqlite3_column_text(st, i);

			for (int k = 0; k < sqlite3_column_bytes(st, i); k++)
				h = (h ^ v[k]) * 0x100000001b3ull;
			h = (h ^ 0x1f) * 0x100000001b3ull;
		}
		h = (h ^ 0x1e) * 0x100000001b3ull;
	}
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql), "UPDATE meta SET value = '%016" PRIx64 "' WHERE key = "
		 "'checksum'", h);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_signed_model_library(void **state)
{
	struct ctx *c = *state;
	char err[512], other[300], otherpub[300], sig[300];
	int rc;

	write_model(c->model);
	assert_int_equal(opt_key_generate(c->key, c->pub, err, sizeof(err)), 0);
	assert_int_equal(opt_key_generate(c->key, c->pub, err, sizeof(err)), -EEXIST);
	assert_int_equal(opt_model_sign(c->model, c->key, err, sizeof(err)), 0);
	assert_true(fabs(predict(c->model, c->pub, &rc) - 88.59) < 1e-9);
	assert_int_equal(rc, 0);
	/* another key's public half */
	snprintf(other, sizeof(other), "%s/other", c->dir);
	snprintf(otherpub, sizeof(otherpub), "%s/other.pub", c->dir);
	assert_int_equal(opt_key_generate(other, otherpub, err, sizeof(err)), 0);
	predict(c->model, otherpub, &rc);
	assert_int_equal(rc, -EBADMSG);
	/* the checksum attack: accepted without a key, refused with one */
	exec_sql(c->model, "UPDATE models SET params_json = '[-0.5,-0.25,188.59]' "
		 "WHERE metric = 'bw'");
	recompute_checksum(c->model);
	assert_true(fabs(predict(c->model, NULL, &rc) - 188.59) < 1e-9);
	assert_int_equal(rc, 0);
	predict(c->model, c->pub, &rc);
	assert_int_equal(rc, -EBADMSG);
	/* unsigned */
	snprintf(sig, sizeof(sig), "%s.sig", c->model);
	assert_int_equal(unlink(sig), 0);
	predict(c->model, c->pub, &rc);
	assert_int_equal(rc, -EPERM);
	/* a secret key others can read is not used */
	assert_int_equal(chmod(c->key, 0644), 0);
	assert_int_equal(opt_model_sign(c->model, c->key, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "readable by others"));
}

static void test_signed_model_messages(void **state)
{
	struct ctx *c = *state;
	struct opt_model *m = NULL;
	char err[512], sig[300];
	FILE *f;

	write_model(c->model);
	assert_int_equal(opt_key_generate(c->key, c->pub, err, sizeof(err)), 0);
	assert_int_equal(opt_model_load_signed(c->model, NULL, c->pub, &m, err, sizeof(err)),
			 -EPERM);
	assert_non_null(strstr(err, "is not signed"));
	assert_int_equal(opt_model_sign(c->model, c->key, err, sizeof(err)), 0);
	f = fopen(c->model, "r+b"); /* one byte of the file, well inside its pages */
	assert_non_null(f);
	fseek(f, 2000, SEEK_SET);
	fputc(fgetc(f) ^ 1, f);
	fclose(f);
	assert_int_equal(opt_model_load_signed(c->model, NULL, c->pub, &m, err, sizeof(err)),
			 -EBADMSG);
	assert_non_null(strstr(err, "does not match its signature"));
	snprintf(sig, sizeof(sig), "%s.sig", c->model);
	e2e_write_file(sig, "not a signature\n");
	assert_int_equal(opt_model_load_signed(c->model, NULL, c->pub, &m, err, sizeof(err)),
			 -EINVAL);
	e2e_write_file(c->pub, "zz\n");
	assert_int_equal(opt_model_load_signed(c->model, NULL, c->pub, &m, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not 32 bytes of hex"));
	assert_null(m);
}

/* Through the binary: keygen, then export --sign of a fitted campaign's models. */
static void test_signed_model_export_sign(void **state)
{
	struct ctx *c = *state;
	char db[300], plan[300], text[1024], sig[300];
	const char *keygen[] = { "keygen", "-o", c->key, NULL };
	const char *run[] = { "run", plan, "--db", db, "--quiet", NULL };
	const char *fit[] = { "fit", "--db", db, NULL };
	const char *export[] = { "export", "--db", db, "--rnic", "ConnectX-6 Dx (simulated)", "-o",
				 c->model, "--sign", c->key, NULL };
	struct e2e_run r;
	int rc;

	snprintf(db, sizeof(db), "%s/run.db", c->dir);
	snprintf(plan, sizeof(plan), "%s/plan.yaml", c->dir);
	snprintf(text, sizeof(text),
		 "name: sign\nseed: 3\nrepeats: 2\ntestbed: %s\nfixed: {flows: 256}\n"
		 "dimensions:\n  - name: server.decap_masks\n    levels: [2, 8, 32]\n"
		 "    neutral: 1\n  - name: client.decap_masks\n    levels: [2, 8, 32]\n"
		 "    neutral: 1\n", e2e_src("examples/testbeds/sim-cx6.yaml"));
	e2e_write_file(plan, text);
	assert_int_equal(e2e_scalacn_run(&r, keygen), 0);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, keygen), 2); /* never over an existing key */
	e2e_run_free(&r);
	rc = e2e_scalacn_run(&r, run);
	assert_true(rc == 0 || rc == 1);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, fit), 0);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, export), 0);
	assert_non_null(strstr(r.out, "signed: "));
	e2e_run_free(&r);
	snprintf(sig, sizeof(sig), "%s.sig", c->model);
	assert_int_equal(access(sig, R_OK), 0);
	predict(c->model, c->pub, &rc);
	assert_int_equal(rc, 0); /* verified, loaded, predicts */
	exec_sql(c->model, "UPDATE models SET quality_json = '{}'");
	recompute_checksum(c->model);
	predict(c->model, c->pub, &rc);
	assert_int_equal(rc, -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_signed_model_library, setup, e2e_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_signed_model_messages, setup, e2e_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_signed_model_export_sign, setup, e2e_ctx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
