/* SPDX-License-Identifier: MIT */
/*
 * test-fitcmd-export: `scalacn export` to the optimiser's model file: predictions of the
 * loaded file equal the store's (1e-9 relative), in-domain flags agree, YAML for people,
 * damaged (digit flipped, header flipped) and wrong-version files refused with a clear
 * error, knee models skipped; the mechanism forms (cap2 for bw, walk2 for lat, forced with
 * --form) round-trip too, and the optimiser's one-input cap / walk rows predict what
 * fitting's cap / walk forms do; the file records the rules one flow put on each host.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <sqlite3.h>

#include "fitting/fit.h"
#include "generators/gen.h"
#include "harness/cli/hx_cli.h"
#include "harness/fit/hx_fit.h"
#include "optimiser/scalacn-opt.h"
#include "results/res.h"
#include "results/res_models.h"
#include "testbeds/tb.h"
#include "tests/fitcmd-util.h"

/* ---- (d) export round trip ------------------------------------------------------------- */

static void fit_synthetic_store(struct fx *f)
{
	build_synthetic(f);
	assert_int_equal(run(hx_cmd_fit, (char *[]){ "fit", "--db", f->db_path, "--rnic", "SYN-1",
						     NULL }), 0);
}

static void test_fitcmd_export_round_trip(void **state)
{
	struct fx *f = *state;
	static const char *const metrics[] = { "bw", "lat" };
	static const double pts[][2] = { { 0, 0 }, { 5, 10 }, { 17, 33 }, { 40, 80 }, { 100, 3 } };
	struct opt_model *om = NULL;
	struct res_model *row = calloc(1, sizeof(*row));
	char msg[512];

	assert_non_null(row);
	fit_synthetic_store(f);
	assert_int_equal(run(hx_cmd_export, (char *[]){ "export", "--db", f->db_path, "--rnic",
							"SYN-1", "-o", f->out, NULL }), 0);
	assert_int_equal(opt_model_load(f->out, "SYN-1", &om, msg, sizeof(msg)), 0);
	for (size_t k = 0; k < 2; k++) {
		assert_int_equal(res_model_latest(f->db, "SYN-1", NULL, "send", metrics[k], row,
						  &f->err), 0);
		for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
			struct hx_prediction p;
			double v;

			assert_int_equal(hx_fit_predict(row, pts[i][0], pts[i][1], &p, &f->err), 0);
			assert_int_equal(opt_model_predict(om, "send", metrics[k], pts[i][0],
							   pts[i][1], &v), 0);
			assert_true(fabs(v - p.value) <= 1e-9 * fabs(p.value));
			assert_int_equal(opt_model_in_domain(om, "send", metrics[k], pts[i][0],
							     pts[i][1]), p.in_domain ? 1 : 0);
		}
	}
	opt_model_free(om);
	free(row);

	/* YAML for people. */
	char yml[400], buf[8192];
	snprintf(yml, sizeof(yml), "%s/model.yaml", f->dir);
	assert_int_equal(run(hx_cmd_export, (char *[]){ "export", "--db", f->db_path, "--rnic",
							"SYN-1", "-o", yml, "--format", "yaml",
							NULL }), 0);
	FILE *y = fopen(yml, "r");
	assert_non_null(y);
	size_t n = fread(buf, 1, sizeof(buf) - 1, y);
	buf[n] = '\0';
	fclose(y);
	assert_non_null(strstr(buf, "rnic_model: \"SYN-1\""));
	assert_non_null(strstr(buf, "form: rbf2"));
	assert_non_null(strstr(buf, "form: plane"));
	assert_non_null(strstr(buf, "exported_to_agents: true"));
	/* Unknown RNIC and bad format are usage errors. */
	assert_int_equal(run(hx_cmd_export, (char *[]){ "export", "--db", f->db_path, "--rnic",
							"NONE", "-o", yml, NULL }), 2);
	assert_int_equal(run(hx_cmd_export, (char *[]){ "export", "--db", f->db_path, "--rnic",
							"SYN-1", "-o", yml, "--format", "xml",
							NULL }), 2);
}

/* Export of FORM-forced models of SYN-1 (bw and lat) predicts what the store predicts. */
static void export_forced(struct fx *f, const char *form, const char *metric)
{
	static const double pts[][2] = { { 0, 0 }, { 1, 0 }, { 5, 10 }, { 17, 33 }, { 40, 80 },
					 { 100, 3 } };
	struct res_model *row = calloc(1, sizeof(*row));
	struct opt_model *om = NULL;
	char msg[512];

	assert_non_null(row);
	assert_int_equal(run(hx_cmd_fit, (char *[]){ "fit", "--db", f->db_path, "--rnic", "SYN-1",
						     "--metric", (char *)metric, "--form",
						     (char *)form, NULL }), 0);
	/* a forced form may fit the synthetic surface badly (degenerate for an agent): this
	 * test is about the export's arithmetic, so it forces the export */
	assert_int_equal(run(hx_cmd_export, (char *[]){ "export", "--db", f->db_path, "--rnic",
							"SYN-1", "-o", f->out, "--force", NULL }), 0);
	assert_int_equal(opt_model_load(f->out, "SYN-1", &om, msg, sizeof(msg)), 0);
	assert_int_equal(res_model_latest(f->db, "SYN-1", NULL, "send", metric, row, &f->err), 0);
	assert_string_equal(row->form, form);
	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		struct hx_prediction p;
		double v;

		assert_int_equal(hx_fit_predict(row, pts[i][0], pts[i][1], &p, &f->err), 0);
		assert_int_equal(opt_model_predict(om, "send", metric, pts[i][0], pts[i][1], &v), 0);
		assert_true(fabs(v - p.value) <= 1e-9 * fabs(p.value));
		assert_int_equal(opt_model_in_domain(om, "send", metric, pts[i][0], pts[i][1]),
				 p.in_domain ? 1 : 0);
	}
	opt_model_free(om);
	free(row);
}

static void test_fitcmd_export_mechanism_forms(void **state)
{
	struct fx *f = *state;

	build_synthetic(f);
	export_forced(f, "cap2", "bw");
	export_forced(f, "walk2", "lat");
}

/* Is F a bandwidth form (its metric "bw")? */
static bool is_bw(enum fit_form f)
{
	static const enum fit_form bw[] = { FIT_CAP, FIT_CAP2, FIT_CLIFF2, FIT_CLIFF2Y,
					    FIT_SPILL2, FIT_SPILL2Y, FIT_CACHE2, FIT_SPILLC2,
					    FIT_SPILLC2Y, FIT_CAPC2, FIT_SPILLT2, FIT_SPILLT2Y,
					    FIT_SPILLCT2, FIT_SPILLCT2Y };

	for (size_t i = 0; i < sizeof(bw) / sizeof(bw[0]); i++)
		if (bw[i] == f)
			return true;
	return false;
}

/* The optimiser's cap [L,c,k1,s] / walk [a,b,s] rows (one input) equal fitting's cap / walk,
 * and its five- / four-parameter rows fitting's cap2 / walk2 (every other exported form
 * likewise, spillc's eleven parameters included, and the spill rows of files from before
 * the slow path's growth g, which load with g = 0), at points on both sides of
 * the cap's corner and at zero masks (no hit probe). */
static void test_fitcmd_export_mechanism_formulas(void **state)
{
	static const struct {
		enum fit_form ff;
		enum opt_form of;
		double p[OPT_MODEL_MAX_PARAMS];
		size_t n;
	} cases[] = {
		{ FIT_CAP, OPT_FORM_CAP, { 177, 0.45, 0.05, 150 }, 4 },
		{ FIT_CAP2, OPT_FORM_CAP, { 177, 0.45, 0.03, 0.06, 150 }, 5 },
		{ FIT_WALK, OPT_FORM_WALK, { 2.7, 0.07, 150 }, 3 },
		{ FIT_WALK2, OPT_FORM_WALK, { 2.7, 0.05, 0.08, 150 }, 4 },
		{ FIT_CLIFF2, OPT_FORM_CLIFF, { 88, 0.4, 0.03, 0.7, 40, 6 }, 6 },
		{ FIT_CLIFF2Y, OPT_FORM_CLIFFY, { 88, 0.4, 0.03, 0.7, 40, 6 }, 6 },
		{ FIT_SPILL2, OPT_FORM_SPILL, { 88, 0.4, 0.03, 20, 10, 3, 0.1, 0.6 }, 8 },
		{ FIT_SPILL2Y, OPT_FORM_SPILLY, { 88, 0.4, 0.03, 20, 10, 3, 0.1, 0.6 }, 8 },
		{ FIT_LSPILL2, OPT_FORM_LSPILL, { 2.7, 0.05, 10, 10, 3, 0.1, 0.6 }, 7 },
		{ FIT_LSPILL2Y, OPT_FORM_LSPILLY, { 2.7, 0.05, 10, 10, 3, 0.1, 0.6 }, 7 },
		/* files from before the slow path's growth g: without it, g = 0 */
		{ FIT_SPILL2, OPT_FORM_SPILL, { 88, 0.4, 0.03, 20, 10, 3, 0.1 }, 7 },
		{ FIT_LSPILL2Y, OPT_FORM_LSPILLY, { 2.7, 0.05, 10, 10, 3, 0.1 }, 6 },
		{ FIT_SPILLC2Y, OPT_FORM_SPILLCY, { 88, 0.3, 0.02, 1.5, 8, 6, 20, 30, 3, 0.1 }, 10 },
		{ FIT_LSPILLC2, OPT_FORM_LSPILLC, { 2.7, 0.05, 1.5, 8, 6, 10, 30, 3, 0.1 }, 9 },
		{ FIT_CACHE2, OPT_FORM_CACHE, { 97, 0.3, 0.01, 0.02, 0.05, 0.1, 0.05, 60 }, 8 },
		{ FIT_SPILLC2, OPT_FORM_SPILLC, { 88, 0.3, 0.02, 1.5, 8, 6, 20, 30, 3, 0.1, 0.6 },
		  11 },
		{ FIT_SPILLC2Y, OPT_FORM_SPILLCY, { 88, 0.3, 0.02, 1.5, 8, 6, 20, 30, 3, 0.1, 0.6 },
		  11 },
		{ FIT_LSPILLC2, OPT_FORM_LSPILLC, { 2.7, 0.05, 1.5, 8, 6, 10, 30, 3, 0.1, 0.6 },
		  10 },
		{ FIT_LSPILLC2Y, OPT_FORM_LSPILLCY, { 2.7, 0.05, 1.5, 8, 6, 10, 30, 3, 0.1, 0.6 },
		  10 },
		{ FIT_WALKC2, OPT_FORM_WALKC, { 2.7, 0.05, 0.08, 0.4, 7 }, 5 },
		{ FIT_CAPC2, OPT_FORM_CAPC, { 97, 0.2, 0.01, 0.02, 1.3, 15 }, 6 },
		{ FIT_PIPEC2, OPT_FORM_PIPEC, { 97, 0.2, 0.03, 0.02, 1.3, 15 }, 6 },
		/* the table share: a jump at the corner (20 flows: 0.6 spilled), every flow
		 * spilled past w = 30 */
		{ FIT_SPILLT2, OPT_FORM_SPILLT, { 88, 0.4, 0.03, 20, 10, 30, 0.1, 0.6, 0.8 }, 9 },
		{ FIT_SPILLT2Y, OPT_FORM_SPILLTY, { 88, 0.4, 0.03, 20, 10, 30, 0.1, 0.6, 0.8 }, 9 },
		{ FIT_LSPILLT2, OPT_FORM_LSPILLT, { 2.7, 0.05, 10, 10, 30, 0.1, 0.6, 0.8 }, 8 },
		{ FIT_LSPILLT2Y, OPT_FORM_LSPILLTY, { 2.7, 0.05, 10, 10, 30, 0.1, 0.6, 0.8 }, 8 },
		{ FIT_SPILLCT2, OPT_FORM_SPILLCT,
		  { 88, 0.3, 0.02, 1.5, 8, 6, 20, 10, 30, 0.1, 0.6, 0.8 }, 12 },
		{ FIT_SPILLCT2Y, OPT_FORM_SPILLCTY,
		  { 88, 0.3, 0.02, 1.5, 8, 6, 20, 10, 30, 0.1, 0.6, 0.8 }, 12 },
		{ FIT_LSPILLCT2, OPT_FORM_LSPILLCT,
		  { 2.7, 0.05, 1.5, 8, 6, 10, 10, 30, 0.1, 0.6, 0.8 }, 11 },
		{ FIT_LSPILLCT2Y, OPT_FORM_LSPILLCTY,
		  { 2.7, 0.05, 1.5, 8, 6, 10, 10, 30, 0.1, 0.6, 0.8 }, 11 },
	};
	static const double pts[][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 5, 5 }, { 9, 12 },
					 { 20, 0 }, { 40, 80 }, { 300, 2 } };
	struct fx *f = *state;
	char msg[512];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct opt_model_row r = { "R", "fw", "send", is_bw(cases[c].ff) ? "bw" : "lat",
					   cases[c].of, { 0 }, cases[c].n, { 0 }, 0, NULL, NULL,
					   { 0 } };
		struct opt_model *om = NULL;

		memcpy(r.params, cases[c].p, sizeof(r.params));
		assert_int_equal(opt_model_write(f->out, &r, 1, msg, sizeof(msg)), 0);
		assert_int_equal(opt_model_load(f->out, "R", &om, msg, sizeof(msg)), 0);
		for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
			double in[2] = { pts[i][0], fit_form_get(cases[c].ff)->n_inputs == 2 ?
							     pts[i][1] : 0 };
			double want = fit_form_eval(cases[c].ff, cases[c].p, in), v;

			assert_int_equal(opt_model_predict(om, "send", r.metric, in[0], in[1], &v),
					 0);
			assert_true(fabs(v - want) <= 1e-12 * fabs(want));
		}
		opt_model_free(om);
	}
	/* s must be positive; parameter counts are checked. */
	struct opt_model_row bad = { "R", "fw", "send", "bw", OPT_FORM_CAP,
				     { 177, 0.45, 0.05, -1 }, 4, { 0 }, 0, NULL, NULL, { 0 } };
	assert_int_equal(opt_model_write(f->out, &bad, 1, msg, sizeof(msg)), -EINVAL);
	bad.form = OPT_FORM_WALK;
	bad.n_params = 2;
	assert_int_equal(opt_model_write(f->out, &bad, 1, msg, sizeof(msg)), -EINVAL);
	/* a negative growth g is refused; a spill row of 9 parameters has no meaning */
	struct opt_model_row spill = { "R", "fw", "send", "bw", OPT_FORM_SPILL,
				       { 88, 0.4, 0.03, 20, 10, 3, 0.1, -0.2 }, 8, { 0 }, 0, NULL,
				       NULL, { 0 } };
	assert_int_equal(opt_model_write(f->out, &spill, 1, msg, sizeof(msg)), -EINVAL);
	spill.params[7] = 0.2;
	assert_int_equal(opt_model_write(f->out, &spill, 1, msg, sizeof(msg)), 0);
	spill.n_params = 9;
	assert_int_equal(opt_model_write(f->out, &spill, 1, msg, sizeof(msg)), -EINVAL);
	/* the table share: 9 parameters exactly, w and A positive */
	struct opt_model_row table = { "R", "fw", "send", "bw", OPT_FORM_SPILLT,
				       { 88, 0.4, 0.03, 20, 10, 30, 0.1, 0.6, 0.8 }, 9, { 0 }, 0,
				       NULL, NULL, { 0 } };
	assert_int_equal(opt_model_write(f->out, &table, 1, msg, sizeof(msg)), 0);
	table.params[8] = 0;
	assert_int_equal(opt_model_write(f->out, &table, 1, msg, sizeof(msg)), -EINVAL);
	table.params[8] = 0.8;
	table.params[5] = -30;
	assert_int_equal(opt_model_write(f->out, &table, 1, msg, sizeof(msg)), -EINVAL);
	table.params[5] = 30;
	table.n_params = 8;
	assert_int_equal(opt_model_write(f->out, &table, 1, msg, sizeof(msg)), -EINVAL);
}

static size_t slurp(const char *path, unsigned char **buf)
{
	FILE *fp = fopen(path, "rb");
	long n;

	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	rewind(fp);
	*buf = malloc((size_t)n);
	assert_non_null(*buf);
	assert_int_equal(fread(*buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	return (size_t)n;
}

static void spit(const char *path, const unsigned char *buf, size_t n)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

static void test_fitcmd_export_damaged_refused(void **state)
{
	struct fx *f = *state;
	struct opt_model *om = NULL;
	unsigned char *buf, *hit;
	char bad[400], params[512], msg[512];
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	size_t n;

	fit_synthetic_store(f);
	assert_int_equal(run(hx_cmd_export, (char *[]){ "export", "--db", f->db_path, "--rnic",
							"SYN-1", "-o", f->out, NULL }), 0);
	/* The params text of one row, as stored in the file. */
	assert_int_equal(sqlite3_open_v2(f->out, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT params_json FROM models WHERE metric = 'lat'",
					    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(params, sizeof(params), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);

	/* Flip a digit of a parameter: still a database, checksum mismatch. */
	n = slurp(f->out, &buf);
	hit = memmem(buf, n, params, strlen(params));
	assert_non_null(hit);
	for (unsigned char *p = hit + 1; p < hit + strlen(params); p++)
		if (*p >= '1' && *p <= '8') {
			(*p)++;
			break;
		}
	snprintf(bad, sizeof(bad), "%s/damaged.db", f->dir);
	spit(bad, buf, n);
	assert_int_equal(opt_model_load(bad, "SYN-1", &om, msg, sizeof(msg)), -EBADMSG);
	assert_null(om);
	assert_non_null(strstr(msg, "checksum"));
	print_message("damaged parameter: %s\n", msg);

	/* Flip the header bytes: not a database. */
	free(buf);
	n = slurp(f->out, &buf);
	for (size_t i = 0; i < 16; i++)
		buf[i] ^= 0x5a;
	spit(bad, buf, n);
	assert_int_equal(opt_model_load(bad, "SYN-1", &om, msg, sizeof(msg)), -EINVAL);
	assert_null(om);
	assert_true(strlen(msg) > 10);
	print_message("damaged header: %s\n", msg);
	free(buf);

	/* A wrong version. */
	n = slurp(f->out, &buf);
	spit(bad, buf, n);
	free(buf);
	assert_int_equal(sqlite3_open(bad, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "UPDATE meta SET value = '5' WHERE key = 'version'", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(opt_model_load(bad, "SYN-1", &om, msg, sizeof(msg)), -EPROTO);
	assert_null(om);
	assert_non_null(strstr(msg, "version"));
	print_message("wrong version: %s\n", msg);
}

static void test_fitcmd_export_skips_knee(void **state)
{
	struct fx *f = *state;
	struct res_model *k = calloc(1, sizeof(*k));
	struct hx_export_info info;
	struct opt_model *om = NULL;
	char msg[512];
	double v;

	assert_non_null(k);
	fit_synthetic_store(f);
	snprintf(k->rnic_model, sizeof(k->rnic_model), "SYN-1");
	snprintf(k->verb, sizeof(k->verb), "read");
	snprintf(k->metric, sizeof(k->metric), "bw");
	snprintf(k->form, sizeof(k->form), "knee");
	snprintf(k->inputs, sizeof(k->inputs), "client.masks");
	snprintf(k->params_json, sizeof(k->params_json), "[100,10,30,2]");
	snprintf(k->se_json, sizeof(k->se_json), "{}");
	snprintf(k->domain_json, sizeof(k->domain_json), "{\"x\":[0,64]}");
	k->valid = true;
	assert_int_equal(res_model_put(f->db, k, &f->err), 0);
	assert_int_equal(hx_fit_export(f->db, "SYN-1", NULL, false, f->out, HX_EXPORT_SQLITE, &info,
				       &f->err), 0);
	assert_int_equal(info.exported, 2);
	assert_int_equal(info.skipped, 1);
	assert_non_null(strstr(info.skipped_text, "knee"));
	assert_int_equal(opt_model_load(f->out, "SYN-1", &om, msg, sizeof(msg)), 0);
	assert_int_equal(opt_model_predict(om, "read", "bw", 1, 0, &v), -ENOENT);
	assert_int_equal(opt_model_predict(om, "send", "bw", 1, 0, &v), 0);
	opt_model_free(om);
	free(k);
}

/* A stored plane of VERB/bw on INPUTS, its other dimensions at FIXED (JSON). */
static void put_plane(struct fx *f, const char *verb, const char *inputs, const char *fixed)
{
	struct res_model *k = calloc(1, sizeof(*k));

	assert_non_null(k);
	snprintf(k->rnic_model, sizeof(k->rnic_model), "SYN-1");
	snprintf(k->verb, sizeof(k->verb), "%s", verb);
	snprintf(k->metric, sizeof(k->metric), "bw");
	snprintf(k->form, sizeof(k->form), "plane");
	snprintf(k->inputs, sizeof(k->inputs), "%s", inputs);
	snprintf(k->params_json, sizeof(k->params_json), "[-1,-0.01,100]");
	snprintf(k->se_json, sizeof(k->se_json), "{}");
	snprintf(k->domain_json, sizeof(k->domain_json), "{\"x\":[1,64],\"y\":[256,16384],"
		 "\"fixed\":%s}", fixed);
	k->valid = true;
	assert_int_equal(res_model_put(f->db, k, &f->err), 0);
	free(k);
}

static void flow_rules_of(const char *path, const char *verb, char *buf, size_t len)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT flow_rules FROM models WHERE verb = ?1",
					    -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, verb, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
}

/* The file says how many rules one flow put on each host where a model was measured: one per
 * direction with masks (an input counts; a fixed level counts when above 0), "[]" when the
 * store does not say (a sum input's split). The export says the MTU and QPs the models were
 * fitted at. */
static void test_fitcmd_export_flow_rules(void **state)
{
	struct fx *f = *state;
	struct hx_export_info info;
	char got[64];

	put_plane(f, "write", "server.decap_masks,flows", "{\"client.encap_masks\":1,"
		  "\"client.decap_masks\":0,\"server.encap_masks\":1,\"qps\":1,\"mtu\":4096}");
	put_plane(f, "read", "client.decap_masks,flows", "{\"client.encap_masks\":4,"
		  "\"server.decap_masks\":0,\"server.encap_masks\":0,\"mtu\":1024,\"qps\":4}");
	put_plane(f, "send", "client.masks,server.masks", "{\"flows\":256}");
	assert_int_equal(hx_fit_export(f->db, "SYN-1", NULL, false, f->out, HX_EXPORT_SQLITE, &info,
				       &f->err), 0);
	assert_int_equal(info.exported, 3);
	flow_rules_of(f->out, "write", got, sizeof(got));
	assert_string_equal(got, "[1,2]");
	flow_rules_of(f->out, "read", got, sizeof(got));
	assert_string_equal(got, "[2,0]");
	flow_rules_of(f->out, "send", got, sizeof(got));
	assert_string_equal(got, "[]");
	/* the traffic each model describes, once per distinct setting (send's store says none) */
	assert_non_null(strstr(info.setting, "MTU 4096, 1 QP"));
	assert_non_null(strstr(info.setting, "MTU 1024, 4 QPs"));
	assert_int_equal(strlen(info.setting), strlen("MTU 1024, 4 QPs; MTU 4096, 1 QP"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fitcmd_export_round_trip, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_export_damaged_refused, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_export_skips_knee, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_export_flow_rules, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_export_mechanism_forms, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_export_mechanism_formulas, fx_setup,
						fx_teardown),
	};

	return cmocka_run_group_tests_name("fitcmd-export", tests, NULL, NULL);
}
