/* SPDX-License-Identifier: MIT */
/*
 * test-fitcmd: the data path of per-RNIC models (harness/fit/, harness/cli/cmd_fit.c,
 * results/res_models.c): trials in a store -> collected data (x = client masks, y = server
 * masks, ok trials at the most common setting only, medians per point) -> fitted, stored
 * model -> prediction. Synthetic trials from a known rbf2 (bandwidth) and plane (latency)
 * with seeded noise and pollution; a server-only sweep (one input, lifted); the ScalaCN
 * artifact's latency rows (docs/background.md); res_models storage.
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

/* ---- res_models ------------------------------------------------------------------------- */

static void test_fitcmd_store_rows(void **state)
{
	struct fx *f = *state;
	struct res_model *m = calloc(1, sizeof(*m)), *g = calloc(1, sizeof(*g));
	sqlite3_int64 foreign;

	assert_non_null(m);
	assert_non_null(g);
	snprintf(m->rnic_model, sizeof(m->rnic_model), "R");
	snprintf(m->firmware, sizeof(m->firmware), "fw1");
	snprintf(m->verb, sizeof(m->verb), "send");
	snprintf(m->metric, sizeof(m->metric), "bw");
	snprintf(m->form, sizeof(m->form), "plane");
	snprintf(m->params_json, sizeof(m->params_json), "[1.2345678901234567e-05,3,-0.1]");
	snprintf(m->se_json, sizeof(m->se_json), "{\"se\":[0.5,null,2]}");
	snprintf(m->domain_json, sizeof(m->domain_json), "{\"x\":[0,1],\"y\":[0,2]}");
	m->valid = true;
	assert_int_equal(res_model_put(f->db, m, &f->err), 0);
	assert_true(m->id > 0 && m->created > 0);
	assert_int_equal(res_model_get(f->db, m->id, g, &f->err), 0);
	assert_string_equal(g->params_json, m->params_json); /* number text kept byte for byte */
	assert_string_equal(g->se_json, m->se_json);
	assert_string_equal(g->domain_json, m->domain_json);
	assert_string_equal(g->quality_json, "{}");
	assert_true(g->valid);
	assert_int_equal(g->campaign, 0);

	/* Invalid JSON and missing names are refused; nothing is stored. */
	snprintf(m->params_json, sizeof(m->params_json), "[1,");
	assert_int_equal(res_model_put(f->db, m, &f->err), -EINVAL);
	snprintf(m->params_json, sizeof(m->params_json), "[1,2,3]");
	m->form[0] = '\0';
	assert_int_equal(res_model_put(f->db, m, &f->err), -EINVAL);

	/* Newest valid of a (rnic, verb, metric); firmware filter; invalid rows ignored. */
	snprintf(m->form, sizeof(m->form), "plane");
	snprintf(m->firmware, sizeof(m->firmware), "fw2");
	m->created = 0;
	assert_int_equal(res_model_put(f->db, m, &f->err), 0);
	int64_t newest = m->id;
	m->valid = false;
	assert_int_equal(res_model_put(f->db, m, &f->err), 0);
	assert_int_equal(res_model_latest(f->db, "R", NULL, "send", "bw", g, &f->err), 0);
	assert_int_equal(g->id, newest);
	assert_int_equal(res_model_latest(f->db, "R", "fw1", "send", "bw", g, &f->err), 0);
	assert_string_equal(g->firmware, "fw1");
	assert_int_equal(res_model_latest(f->db, "R", NULL, "send", "lat", g, &f->err), -ENOENT);
	assert_int_equal(res_model_get(f->db, 9999, g, &f->err), -ENOENT);

	/* A row written by something else (plain params array) reads back. */
	sqlite3 *h = res_sqlite(f->db);
	assert_int_equal(sqlite3_exec(h, "INSERT INTO models (rnic_model, verb, metric, form,"
				      " params_json) VALUES ('R', 'write', 'lat', 'plane', '[1,2,3]')",
				      NULL, NULL, NULL), SQLITE_OK);
	foreign = sqlite3_last_insert_rowid(h);
	assert_int_equal(res_model_get(f->db, foreign, g, &f->err), 0);
	assert_string_equal(g->params_json, "[1,2,3]");
	assert_string_equal(g->se_json, "{}");
	free(m);
	free(g);
}

/* ---- (a) the data path on synthetic trials ------------------------------------------ */

static void test_fitcmd_collect_rules(void **state)
{
	struct fx *f = *state;
	struct hx_fit_set *s = NULL;
	const struct hx_fit_data *d;

	build_synthetic(f);
	assert_int_equal(hx_fit_collect(f->db, NULL, NULL, NULL, &s, &f->err), 0);
	assert_int_equal(hx_fit_set_count(s), 3); /* OTHER send bw, SYN-1 send bw, send lat */
	d = find_group(s, "SYN-1", "send", "bw");
	assert_non_null(d);
	assert_int_equal(d->n, NX * NY);         /* one point per (x, y) ... */
	assert_int_equal(d->n_trials, NX * NY * 3); /* ... the median of its 3 repeats */
	assert_int_equal(d->n_other, 4);  /* flows 64 left out */
	assert_int_equal(d->n_not_ok, 3); /* timeouts */
	assert_int_equal(d->n_ok, NX * NY * 3 + 4);
	assert_string_equal(d->firmware, "1.0");
	assert_non_null(strstr(d->fixed_json, "\"flows\":128"));
	assert_null(strstr(d->fixed_json, "masks"));
	assert_null(strstr(d->fixed_json, "verb"));
	/* x = client encap + decap, y = server encap + decap: point 20 (10+10), 40 (10+30). */
	bool seen = false;
	for (size_t i = 0; i < d->n; i++)
		seen = seen || (d->x[i][0] == 20 && d->x[i][1] == 40);
	assert_true(seen);
	for (size_t i = 0; i < d->n; i++)
		assert_true(d->y[i] > 30 && d->y[i] < 200); /* no timeout zeros, no junk */
	hx_fit_set_free(s);

	/* Filters. */
	assert_int_equal(hx_fit_collect(f->db, "SYN-1", "send", "lat", &s, &f->err), 0);
	assert_int_equal(hx_fit_set_count(s), 1);
	assert_int_equal(hx_fit_set_at(s, 0)->n, NX * NY);
	hx_fit_set_free(s);
	assert_int_equal(hx_fit_collect(f->db, "NONE", NULL, NULL, &s, &f->err), 0);
	assert_int_equal(hx_fit_set_count(s), 0);
	hx_fit_set_free(s);

	/* --where picks the other setting (flows 64: 4 trials) instead of the most common one. */
	{
		const char *const where[] = { "flows=64", NULL }, *const none[] = { "flows=1K", NULL };

		assert_int_equal(hx_fit_collect_where(f->db, "SYN-1", "send", "bw", where, &s, &f->err), 0);
		assert_int_equal(hx_fit_set_count(s), 1);
		assert_int_equal(hx_fit_set_at(s, 0)->n_ok, 4);
		assert_non_null(strstr(hx_fit_set_at(s, 0)->fixed_json, "\"flows\":64"));
		hx_fit_set_free(s);
		assert_int_equal(hx_fit_collect_where(f->db, "SYN-1", "send", "bw", none, &s, &f->err), 0);
		assert_int_equal(hx_fit_set_count(s), 0);
		hx_fit_set_free(s);
	}
	assert_true(hx_level_number("8K") == 8192 && hx_level_number("2M") == 2097152);
	assert_true(isnan(hx_level_number("8Q")));

	/* Medians: (0,0) from 10, 100, 11 -> 11 (the outlier does not count); (2,1) from 5 and
	 * 7 (masks split differently between encap and decap) -> 6. */
	int64_t c = add_campaign(f, "MED", "1");
	static const struct { unsigned cen, cde, sde; double v; } med[] = {
		{ 0, 0, 0, 10 }, { 0, 0, 0, 100 }, { 0, 0, 0, 11 }, { 2, 0, 1, 5 }, { 1, 1, 1, 7 },
	};
	for (size_t i = 0; i < sizeof(med) / sizeof(med[0]); i++) {
		struct trial_spec t = { "write", "bw", "ok", med[i].cen, med[i].cde, 0, med[i].sde,
					16, 65536, med[i].v };
		put_trial(f, c, &t);
	}
	assert_int_equal(hx_fit_collect(f->db, "MED", NULL, NULL, &s, &f->err), 0);
	assert_int_equal(hx_fit_set_count(s), 1);
	d = hx_fit_set_at(s, 0);
	assert_int_equal(d->n, 2);
	assert_int_equal(d->n_trials, 5);
	assert_true(d->x[0][0] == 0 && d->x[0][1] == 0 && d->y[0] == 11);
	assert_true(d->x[1][0] == 2 && d->x[1][1] == 1 && d->y[1] == 6);
	assert_int_equal(d->campaign, c);
	assert_true(isnan(d->point_se_max)); /* one layout a point: no layout noise known */
	hx_fit_set_free(s);

	/* Rule layouts (the model phase): one point over layouts 0..4 is one data point, the
	 * robust mean of each layout's median: layout 0's 10, 12, 11 -> 11; then 20, 30, 40 and a
	 * trial 10x off (300: farther than 4 MADs and 10% from the median 30, left out) ->
	 * (11 + 20 + 30 + 40) / 4. The layout is not a setting: nothing is left out. */
	c = add_campaign(f, "LAY", "1");
	static const struct { unsigned layout; double v; } lay[] = {
		{ 0, 10 }, { 0, 12 }, { 0, 11 }, { 1, 20 }, { 2, 30 }, { 3, 40 }, { 4, 300 },
	};
	for (size_t i = 0; i < sizeof(lay) / sizeof(lay[0]); i++) {
		struct trial_spec t = { "write", "bw", "ok", 1, 0, 0, 2, 16, 65536, lay[i].v };

		put_trial_layout(f, c, &t, lay[i].layout);
	}
	assert_int_equal(hx_fit_collect(f->db, "LAY", NULL, NULL, &s, &f->err), 0);
	assert_int_equal(hx_fit_set_count(s), 1);
	d = hx_fit_set_at(s, 0);
	assert_int_equal(d->n, 1);
	assert_int_equal(d->n_trials, 7);
	assert_int_equal(d->n_other, 0);
	assert_null(strstr(d->fixed_json, "layout"));
	assert_true(fabs(d->y[0] - 25.25) < 1e-12);
	/* the point's own noise: the kept layouts' sd (12.53) over sqrt(4), over 25.25 */
	assert_true(fabs(d->point_se_max - sqrt(470.75 / 3) / 2 / 25.25) < 1e-12);
	assert_true(d->point_se_median == d->point_se_max);
	hx_fit_set_free(s);
}

static void test_fitcmd_fit_synthetic(void **state)
{
	struct fx *f = *state;
	struct found fd = { .n = 0 };
	const struct res_model *bw, *lat;
	double p[5];

	int64_t camp = build_synthetic(f);
	res_close(f->db);
	f->db = NULL;
	assert_int_equal(run(hx_cmd_fit, (char *[]){ "fit", "--db", f->db_path, "--rnic", "SYN-1",
						     NULL }), 0);
	assert_int_equal(res_open(f->db_path, false, &f->db, &f->err), 0);
	assert_int_equal(res_model_each(f->db, NULL, collect_model, &fd, &f->err), 0);
	assert_int_equal(fd.n, 2); /* OTHER was filtered out */
	bw = model_of(&fd, "send", "bw");
	lat = model_of(&fd, "send", "lat");
	assert_non_null(bw);
	assert_non_null(lat);
	assert_int_equal(bw->campaign, camp);
	assert_string_equal(bw->inputs, HX_FIT_INPUTS);
	assert_true(bw->valid);

	assert_string_equal(bw->form, "rbf2");
	params_of(bw, p, 5);
	print_message("synthetic rbf2 (truth a 120 b 0 c 0 d 30 e 40): a %.3f b %.3f c %.3f d %.3f e %.3f,"
		      " R^2 %.5f, CV max bias %.2f%%\n", p[0], p[1], p[2], fabs(p[3]), p[4],
		      quality_of(bw, "r2"), 100 * quality_of(bw, "cv_max_bias"));
	assert_true(fabs(p[0] - 120) < 6);
	assert_true(fabs(p[1]) < 3 && fabs(p[2]) < 3);
	assert_true(fabs(fabs(p[3]) - 30) < 1.5);
	assert_true(fabs(p[4] - 40) < 2);
	assert_true(quality_of(bw, "r2") > 0.99);
	assert_true(quality_of(bw, "cv_max_bias") < 0.05);
	assert_int_equal((int)quality_of(bw, "n_points"), NX * NY);
	assert_int_equal((int)quality_of(bw, "n_trials"), NX * NY * 3);
	assert_non_null(strstr(bw->domain_json, "\"x\":[0,40]"));
	assert_non_null(strstr(bw->domain_json, "\"y\":[0,80]"));
	assert_non_null(strstr(bw->domain_json, "\"n_other\":4"));
	/* the stored quality names where the model misses most when a point is held out */
	assert_non_null(strstr(bw->quality_json, "\"cv_worst\":[{\"x\":"));
	assert_non_null(strstr(bw->quality_json, "\"held_out\":"));

	assert_string_equal(lat->form, "plane");
	params_of(lat, p, 3);
	print_message("synthetic plane (truth 0.04 0.09 2.7): %.4f %.4f %.4f\n", p[0], p[1], p[2]);
	assert_true(fabs(p[0] - 0.04) < 0.002);
	assert_true(fabs(p[1] - 0.09) < 0.001);
	assert_true(fabs(p[2] - 2.7) < 0.03);
	assert_true(quality_of(lat, "r2") > 0.99);

	/* The standard errors came back from the store: one per parameter, positive. */
	struct fit_model m;
	assert_int_equal(hx_fit_model_from_row(lat, &m, &f->err), 0);
	for (size_t i = 0; i < 3; i++)
		assert_true(m.se[i] > 0 && m.se[i] < 0.05);
	assert_int_equal(m.n_points, NX * NY);

	/* Prediction with interval; the truth lies inside, outside the domain is flagged. */
	struct hx_prediction pr;
	assert_int_equal(hx_fit_predict(lat, 10, 20, &pr, &f->err), 0);
	assert_true(pr.in_domain);
	assert_true(pr.lo < syn_lat(10, 20) && syn_lat(10, 20) < pr.hi);
	assert_true(pr.hi - pr.lo < 0.2);
	assert_int_equal(hx_fit_predict(lat, 100, 20, &pr, &f->err), 0);
	assert_false(pr.in_domain);
	char id[24];
	snprintf(id, sizeof(id), "%lld", (long long)lat->id);
	assert_int_equal(run(hx_cmd_predict, (char *[]){ "predict", "--db", f->db_path, "--model", id,
							 "--masks-local", "100", "--masks-remote",
							 "20", NULL }), 0);
	assert_int_equal(run(hx_cmd_predict, (char *[]){ "predict", "--db", f->db_path, "--model",
							 "999", "--masks-local", "1",
							 "--masks-remote", "2", NULL }), 2);
	assert_int_equal(run(hx_cmd_models, (char *[]){ "models", "--db", f->db_path, NULL }), 0);
	assert_int_equal(run(hx_cmd_fit, (char *[]){ "fit", "--db", f->db_path, "--rnic", "NONE",
						     NULL }), 2);
	assert_int_equal(run(hx_cmd_fit, (char *[]){ "fit", "--db", f->db_path, "--form", "knee",
						     NULL }), 2);
}

/* Fit the whole store: RNIC then has exactly one model, of FORM, collected into FD. */
static void fit_single(struct fx *f, const char *rnic, const char *form, struct found *fd)
{
	assert_int_equal(run(hx_cmd_fit, (char *[]){ "fit", "--db", f->db_path, NULL }), 0);
	assert_int_equal(res_model_each(f->db, rnic, collect_model, fd, &f->err), 0);
	assert_int_equal(fd->n, 1);
	assert_string_equal(fd->m[0].form, form);
}

/* Export RNIC's models for the optimiser: its write bw at (0, Y) is M's prediction exactly.
 * Returns the loaded optimiser model; the caller frees it (opt_model_free). */
static struct opt_model *export_agrees(struct fx *f, const char *rnic, const struct res_model *m,
				       double y)
{
	struct opt_model *om = NULL;
	struct hx_prediction pr;
	char msg[512];
	double v;

	/* one input did not vary: degenerate for an agent, refused unless forced */
	assert_non_null(strstr(m->quality_json, "\"degenerate\":\"input client.masks did not vary"));
	assert_int_equal(run(hx_cmd_export, (char *[]){ "export", "--db", f->db_path, "--rnic",
							(char *)rnic, "-o", f->out, NULL }), 2);
	assert_int_equal(run(hx_cmd_export, (char *[]){ "export", "--db", f->db_path, "--rnic",
							(char *)rnic, "-o", f->out, "--force",
							NULL }), 0);
	assert_int_equal(opt_model_load(f->out, NULL, &om, msg, sizeof(msg)), 0);
	assert_int_equal(opt_model_predict(om, "write", "bw", 0, y, &v), 0);
	assert_int_equal(hx_fit_predict(m, 0, y, &pr, &f->err), 0);
	assert_true(fabs(v - pr.value) <= 1e-9 * pr.value);
	return om;
}

/* A campaign that swept the server's masks alone: fitted in y, lifted to two inputs. */
static void test_fitcmd_one_input_lifted(void **state)
{
	struct fx *f = *state;
	struct found fd = { .n = 0 };
	struct opt_model *om;
	struct hx_prediction pr;
	struct fit_model m;
	double p[3];
	int64_t c = add_campaign(f, "YONLY", "2");

	for (size_t j = 0; j < NY; j++)
		for (int r = 0; r < 2; r++) {
			struct trial_spec t = { "write", "bw", "ok", 0, 0, 0, grid_y[j], 128, 8388608,
						180.0 / (1 + 0.02 * grid_y[j]) * (1 + 0.002 * r) };
			put_trial(f, c, &t);
		}
	/* The restriction of service2 (service) follows the curve; lifted, k1 is fixed at 0. */
	fit_single(f, "YONLY", "service2", &fd);
	params_of(&fd.m[0], p, 3);
	assert_true(fabs(p[0] - 180.2) < 1);
	assert_true(p[1] == 0);
	assert_true(fabs(p[2] - 0.02) < 0.001);
	assert_int_equal(hx_fit_model_from_row(&fd.m[0], &m, &f->err), 0);
	assert_true(m.se[1] == 0 && m.se[2] > 0);
	assert_true(m.dom_min[0] == 0 && m.dom_max[0] == 0 && m.dom_max[1] == 80);
	assert_non_null(strstr(fd.m[0].quality_json, "fitted in y alone"));
	assert_int_equal(hx_fit_predict(&fd.m[0], 0, 10, &pr, &f->err), 0);
	assert_true(pr.in_domain && fabs(pr.value - 150.15) < 1);
	assert_true(pr.lo < pr.value && pr.value < pr.hi);
	assert_int_equal(hx_fit_predict(&fd.m[0], 1, 10, &pr, &f->err), 0);
	assert_false(pr.in_domain);
	/* Exported as the optimiser's service with three parameters. */
	om = export_agrees(f, "YONLY", &fd.m[0], 10);
	assert_int_equal(opt_model_in_domain(om, "write", "bw", 1, 10), 0);
	opt_model_free(om);
}

/* The same for the mechanism form: flat-then-decaying bandwidth swept in the server's masks
 * alone (11 levels: cap has 4 parameters, AICc needs n > 5) goes to cap (cap2's
 * restriction), lifted with k1 fixed at 0, exported exactly. */
static void test_fitcmd_one_input_lifted_cap(void **state)
{
	static const double truth[5] = { 177, 0.45, 0.03, 0.06, 150 };
	static const unsigned ys[] = { 0, 2, 5, 8, 10, 15, 20, 30, 40, 60, 80 };
	const size_t ny = sizeof(ys) / sizeof(ys[0]);
	struct fx *f = *state;
	struct found fd = { .n = 0 };
	struct hx_prediction pr;
	struct fit_model m;
	double p[5];
	int64_t c = add_campaign(f, "YCAP", "2");

	for (size_t j = 0; j < ny; j++)
		for (int r = 0; r < 2; r++) {
			const double in[2] = { 0, ys[j] };
			struct trial_spec t = { "write", "bw", "ok", 0, 0, 0, ys[j], 128, 8388608,
						fit_form_eval(FIT_CAP2, truth, in) * (1 + 0.002 * r) };
			put_trial(f, c, &t);
		}
	fit_single(f, "YCAP", "cap2", &fd);
	params_of(&fd.m[0], p, 5);
	assert_true(fabs(p[0] - 177.2) < 1);
	assert_true(p[2] == 0);
	assert_int_equal(hx_fit_model_from_row(&fd.m[0], &m, &f->err), 0);
	assert_true(m.se[2] == 0);
	assert_non_null(strstr(fd.m[0].quality_json, "fitted in y alone"));
	for (size_t j = 0; j < ny; j++) {
		const double in[2] = { 0, ys[j] };
		double want = fit_form_eval(FIT_CAP2, truth, in);

		assert_int_equal(hx_fit_predict(&fd.m[0], 0, ys[j], &pr, &f->err), 0);
		assert_true(fabs(pr.value - want) < 0.005 * want);
	}
	opt_model_free(export_agrees(f, "YCAP", &fd.m[0], 30));
}

/* ---- (b) the ScalaCN artifact's latency rows ----------------------------------------- */

static void test_fitcmd_artifact_latency_plane(void **state)
{
	struct fx *f = *state;
	/* cen/cde/sen/sde, send lat 2 B, write lat 2 B (us) from docs/background.md. */
	static const struct { unsigned cen, cde, sen, sde; double send, write; } rows[] = {
		{ 0, 0, 0, 0, 2.74, 2.76 },
		{ 0, 0, 0, 20, 4.49, 4.10 },
		{ 20, 0, 0, 20, 5.23, 5.38 },
		{ 20, 100, 80, 80, 22.02, 20.14 },
	};
	int64_t c = add_campaign(f, "ARTIFACT-CX7", "unknown");
	struct found fd = { .n = 0 };
	double s[3], w[3];

	for (size_t i = 0; i < 4; i++) {
		struct trial_spec ts = { "send", "lat", "ok", rows[i].cen, rows[i].cde, rows[i].sen,
					 rows[i].sde, 16, 2, rows[i].send };
		struct trial_spec tw = ts;

		tw.verb = "write";
		tw.value = rows[i].write;
		put_trial(f, c, &ts);
		put_trial(f, c, &tw);
	}
	/* Four points: too few for AICc selection (the command says so), fine for one form. */
	assert_int_equal(run(hx_cmd_fit, (char *[]){ "fit", "--db", f->db_path, NULL }), 2);
	assert_int_equal(run(hx_cmd_fit, (char *[]){ "fit", "--db", f->db_path, "--metric", "lat",
						     "--form", "plane", NULL }), 0);
	assert_int_equal(res_model_each(f->db, "ARTIFACT-CX7", collect_model, &fd, &f->err), 0);
	assert_int_equal(fd.n, 2);
	params_of(model_of(&fd, "send", "lat"), s, 3);
	params_of(model_of(&fd, "write", "lat"), w, 3);
	print_message("artifact latency plane: send %.4f us/local mask, %.4f us/remote mask, %.3f us;"
		      " write %.4f, %.4f, %.3f\n", s[0], s[1], s[2], w[0], w[1], w[2]);
	/* Least squares by hand (4 rows): send 0.038867, 0.091700, 2.674667. */
	assert_true(fabs(s[0] - 0.0388667) < 1e-4);
	assert_true(fabs(s[1] - 0.0917) < 1e-4);
	assert_true(fabs(s[2] - 2.674667) < 1e-3);
	assert_true(fabs(w[0] - 0.0617333) < 1e-4);
	assert_true(fabs(w[1] - 0.0619) < 1e-4);
}


/* CMD with ARGV, what it writes to FD (STDOUT_FILENO or STDERR_FILENO) into OUT (CAP bytes,
 * NUL-terminated); its exit code. */
static int run_captured(int (*cmd)(int, char **), char **argv, int fd, char *out, size_t cap)
{
	FILE *tmp = tmpfile();
	int saved, rc;
	size_t n;

	assert_non_null(tmp);
	fflush(stdout);
	fflush(stderr);
	saved = dup(fd);
	assert_true(saved >= 0 && dup2(fileno(tmp), fd) >= 0);
	rc = run(cmd, argv);
	fflush(stdout);
	fflush(stderr);
	assert_true(dup2(saved, fd) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, cap - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return rc;
}

static int run_stdout(int (*cmd)(int, char **), char **argv, char *out, size_t cap)
{
	return run_captured(cmd, argv, STDOUT_FILENO, out, cap);
}

/* predict asks the model of ID (inputs server.decap_masks, flows; 150 - 0.5 m - 0.001 f) by
 * its inputs' names and prints them (it printed "local 8, remote 4096 masks" for flows):
 * --at in either order, --masks-local / --masks-remote as the first and second input; a
 * name the model does not have, an input given twice or missing, exit 2. A model `export`
 * refuses (quality "degenerate") still predicts, with a warning that says why. */
static void predict_by_name(struct fx *f, int64_t id)
{
	char ids[24], out[1024];

	snprintf(ids, sizeof(ids), "%lld", (long long)id);
	assert_int_equal(run_stdout(hx_cmd_predict,
				    (char *[]){ "predict", "--db", f->db_path, "--model", ids,
						"--at", "flows=4096", "--at", "server.decap_masks=8",
						NULL },
				    out, sizeof(out)), 0);
	print_message("%s", out);
	assert_non_null(strstr(out, "write bw at server.decap_masks 8, flows 4096: 141.904 Gb/s"));
	assert_int_equal(run_stdout(hx_cmd_predict, (char *[]){ "predict", "--db", f->db_path,
								"--model", ids, "--masks-local", "8",
								"--masks-remote", "4096", NULL },
				    out, sizeof(out)), 0);
	assert_non_null(strstr(out, "at server.decap_masks 8, flows 4096: 141.904 Gb/s"));
	assert_int_equal(run_stdout(hx_cmd_predict, (char *[]){ "predict", "--db", f->db_path,
								"--model", ids, "--at", "flows=4096",
								"--at", "server.decap_masks=8",
								"--json", NULL },
				    out, sizeof(out)), 0);
	assert_non_null(strstr(out, "\"flows\":4096"));
	assert_non_null(strstr(out, "\"server.decap_masks\":8"));
	static const char *const bad[][4] = {
		{ "--at", "flow=4096", "--at", "server.decap_masks=8" },  /* no such input */
		{ "--at", "flows=4096", "--at", "flows=8" },              /* twice, one missing */
		{ "--masks-local", "8", "--at", "server.decap_masks=8" }, /* twice */
		{ "--at", "flows=4096", "--at", "server.decap_masks" },   /* no value */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(run_stdout(hx_cmd_predict,
					    (char *[]){ "predict", "--db", f->db_path, "--model",
							ids, (char *)bad[i][0], (char *)bad[i][1],
							(char *)bad[i][2], (char *)bad[i][3], NULL },
					    out, sizeof(out)), 2);
	assert_int_equal(run_stdout(hx_cmd_predict, (char *[]){ "predict", "--db", f->db_path,
								"--model", ids, "--at", "flows=1",
								NULL },
				    out, sizeof(out)), 2);
	char *argv[] = { "predict", "--db", f->db_path, "--model", ids, "--at", "flows=4096",
			 "--at", "server.decap_masks=8", NULL };
	assert_int_equal(run_captured(hx_cmd_predict, argv, STDERR_FILENO, out, sizeof(out)), 0);
	assert_null(strstr(out, "not exportable"));
	assert_int_equal(sqlite3_exec(res_sqlite(f->db), "UPDATE models SET quality_json ="
				      " json_set(quality_json, '$.degenerate', 'run scalacn fit again')",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(run_captured(hx_cmd_predict, argv, STDERR_FILENO, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "warning: model #"));
	assert_non_null(strstr(out, "is not exportable: run scalacn fit again"));
}

/* --inputs: a plane in (server.decap_masks, flows) is fitted on those inputs by name; the
 * other dimensions (client and server encap masks) form the setting; an export names the
 * inputs so an agent can feed them; its points are one layout each, and the text says
 * so. A bad --inputs text is a usage error. */
static void test_fitcmd_named_inputs(void **state)
{
	struct fx *f = *state;
	struct found fd = { .n = 0 };
	struct opt_model *om = NULL;
	const char *x = NULL, *y = NULL;
	char msg[512], out[8192];
	double p[3];
	int64_t c = add_campaign(f, "NAMED", "3");

	for (unsigned m = 1; m <= 64; m *= 2)
		for (unsigned fl = 1024; fl <= 16384; fl *= 4) {
			struct trial_spec t = { "write", "bw", "ok", 1, 0, 0, m, fl, 65536,
						150 - 0.5 * m - 0.001 * fl };
			put_trial(f, c, &t);
		}
	/* one layout a point (no model phase's): the text says its points are single draws */
	assert_int_equal(run_stdout(hx_cmd_fit, (char *[]){ "fit", "--db", f->db_path, "--rnic",
							    "NAMED", "--inputs",
							    "server.decap_masks,flows", "--form",
							    "plane", NULL }, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "no point was measured over several rule layouts"));
	res_close(f->db); /* reopen: see what the command stored */
	assert_int_equal(res_open(f->db_path, false, &f->db, &f->err), 0);
	assert_int_equal(res_model_each(f->db, "NAMED", collect_model, &fd, &f->err), 0);
	assert_int_equal(fd.n, 1);
	assert_string_equal(fd.m[0].inputs, "server.decap_masks,flows");
	params_of(&fd.m[0], p, 3);
	assert_true(fabs(p[0] + 0.5) < 1e-6 && fabs(p[1] + 0.001) < 1e-9 && fabs(p[2] - 150) < 1e-6);
	assert_non_null(strstr(fd.m[0].domain_json, "\"client.encap_masks\":1"));
	assert_int_equal(run(hx_cmd_export, (char *[]){ "export", "--db", f->db_path, "--rnic",
							"NAMED", "-o", f->out, NULL }), 0);
	assert_int_equal(opt_model_load(f->out, NULL, &om, msg, sizeof(msg)), 0);
	assert_int_equal(opt_model_inputs(om, "write", "bw", &x, &y), 0);
	assert_string_equal(x, "server.decap_masks");
	assert_string_equal(y, "flows");
	opt_model_free(om);
	assert_int_equal(run(hx_cmd_fit, (char *[]){ "fit", "--db", f->db_path, "--inputs",
						     "a,b,c", NULL }), 2);
	predict_by_name(f, fd.m[0].id);
}

/* `causes` says a stored cause acts through the flows (its detail's "through=flows", from
 * harness/causal/hx_through.c), in the table and in the JSON; a cause without it does not. */
static void test_fitcmd_causes_through_flows(void **state)
{
	struct fx *f = *state;
	int64_t c = add_campaign(f, "R", "1.0");
	const char *details[2] = {
		"verb=write; metric=bw; strategy=cct; kind=sw_fallback; class=S1; "
		"walls=encap_contexts@3024(ok 2896); through=flows",
		"verb=write; metric=bw; strategy=cct; kind=sw_fallback; class=S1; "
		"walls=flows@3024(ok 2896)",
	};
	const char *members[2] = { "encap_contexts", "flows" };
	char *text[] = { "causes", "--db", f->db_path, NULL };
	char *json[] = { "causes", "--db", f->db_path, "--json", NULL };
	char out[8192];

	for (int i = 0; i < 2; i++) {
		struct res_symptom sy = { .campaign = c };
		struct res_cause rc = { .campaign = c, .effect = -0.88, .confidence = 1.0,
					.supported = true };

		snprintf(sy.kind, sizeof(sy.kind), "sw_fallback");
		assert_int_equal(res_symptom_put(f->db, &sy, &f->err), 0);
		rc.symptom = sy.id;
		snprintf(rc.members, sizeof(rc.members), "%s", members[i]);
		snprintf(rc.detail, sizeof(rc.detail), "%s", details[i]);
		assert_int_equal(res_cause_put(f->db, &rc, &f->err), 0);
	}
	assert_int_equal(run_stdout(hx_cmd_causes, text, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "encap_contexts@3024(ok 2896) (through flows)"));
	assert_null(strstr(out, "flows@3024(ok 2896) (through"));
	assert_int_equal(run_stdout(hx_cmd_causes, json, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "\"through\":\"flows\""));
	assert_null(strstr(strstr(out, "\"through\"") + 1, "\"through\"")); /* one cause */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fitcmd_store_rows, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_collect_rules, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_fit_synthetic, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_one_input_lifted, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_one_input_lifted_cap, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_artifact_latency_plane, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_named_inputs, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fitcmd_causes_through_flows, fx_setup,
						fx_teardown),
	};

	return cmocka_run_group_tests_name("fitcmd", tests, NULL, NULL);
}
