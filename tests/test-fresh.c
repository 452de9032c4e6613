/* SPDX-License-Identifier: MIT */
/*
 * test-fresh: what a new user meets, through the real `scalacn` binary: `measure` repairs a
 * point that has more masks than flows (as `run` does) or, with --no-repair, refuses it naming
 * the fix; a latency trial prints and stores no bandwidth; a campaign records absolute paths,
 * so `analyze` from another directory prints the same causes, and warns when the plan changed;
 * `replay --model` with a file that has no bandwidth model names what the file holds.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e_util.h"
#include "optimiser/scalacn-opt.h"

static const char *cx7(void)
{
	static char p[1024];

	snprintf(p, sizeof(p), "%s", e2e_src("examples/testbeds/sim-cx7.yaml"));
	return p;
}

/* The README's example: 20 decap masks with the neutral 16 flows. */
static void test_fresh_measure_repairs_like_run(void **state)
{
	struct e2e_run r;
	const char *args[] = { "measure", "--testbed", cx7(), "--verb", "send", "--size", "8M",
			       "--set", "mtu=1024", "--set", "server.decap_masks=20", NULL };

	(void)state;
	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	assert_non_null(strstr(r.err, "flows raised from 16 to 20"));
	assert_non_null(strstr(r.out, "20 flows"));
	assert_non_null(strstr(r.out, "bandwidth"));
	e2e_run_free(&r);
}

static void test_fresh_measure_no_repair_names_the_fix(void **state)
{
	struct e2e_run r;
	const char *args[] = { "measure", "--testbed", cx7(), "--set", "server.decap_masks=20",
			       "--no-repair", NULL };

	(void)state;
	assert_int_equal(e2e_scalacn_run(&r, args), 2);
	assert_non_null(strstr(r.err, "--set flows=20"));
	assert_string_equal(r.out, "");
	e2e_run_free(&r);
}

/* A latency test measures no bandwidth: no bandwidth line, JSON null. */
static void test_fresh_latency_prints_no_bandwidth(void **state)
{
	struct e2e_run r;
	const char *text[] = { "measure", "--testbed", cx7(), "--metric", "lat", NULL };
	const char *json[] = { "measure", "--testbed", cx7(), "--metric", "lat", "--json", NULL };

	(void)state;
	assert_int_equal(e2e_scalacn_run(&r, text), 0);
	assert_null(strstr(r.out, "bandwidth "));
	assert_non_null(strstr(r.out, "latency median"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, json), 0);
	assert_non_null(strstr(r.out, "\"bw_gbps\":null"));
	e2e_run_free(&r);
}

/* bw_gbps of `measure` (write, 64K, Zipf over 256 flows, 85 decap masks) at LAYOUT ("" for
 * none given). */
static double measure_layout_bw(const char *layout)
{
	struct e2e_run r;
	const char *args[] = { "measure", "--testbed", cx7(), "--verb", "write", "--size", "64K",
			       "--set", "flows=256", "--set", "popularity=zipf", "--set",
			       "server.decap_masks=85", "--json", *layout ? "--layout" : NULL, layout,
			       NULL };
	const char *at;
	double bw;

	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	at = strstr(r.out, "\"bw_gbps\":");
	assert_non_null(at);
	bw = strtod(at + strlen("\"bw_gbps\":"), NULL);
	e2e_run_free(&r);
	return bw;
}

/* --layout N builds the model phase's layout N: under skew it moves the response; the
 * default is layout 0; a negative or non-numeric layout is a usage error. */
static void test_fresh_measure_builds_a_layout(void **state)
{
	struct e2e_run r;
	const char *bad[] = { "measure", "--testbed", cx7(), "--layout", "-1", NULL };
	double l0 = measure_layout_bw(""), l0b = measure_layout_bw("0");
	double l2 = measure_layout_bw("2");

	(void)state;
	assert_true(l0 > 0);
	assert_float_equal(l0, l0b, 1e-9);
	assert_true(fabs(l2 - l0) > 0.05 * l0);
	assert_int_equal(e2e_scalacn_run(&r, bad), 2);
	assert_non_null(strstr(r.err, "--layout takes an integer"));
	e2e_run_free(&r);
}

/* `fit --form` with a name it does not know lists every form it does (the wall forms too),
 * and `fit --help` names the candidates it chooses among. */
static void test_fresh_fit_names_its_forms(void **state)
{
	struct e2e_run r;
	const char *bad[] = { "fit", "--db", "/nonexistent/x.db", "--form", "capc2,nope", NULL };
	const char *help[] = { "fit", "--help", NULL };

	(void)state;
	assert_int_equal(e2e_scalacn_run(&r, bad), 2);
	assert_non_null(strstr(r.err, "not 'nope'"));
	assert_non_null(strstr(r.err, "walkc2"));
	assert_non_null(strstr(r.err, "spillc2"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, help), 0);
	assert_non_null(strstr(r.out, "capc2"));
	assert_non_null(strstr(r.out, "lspillc2"));
	e2e_run_free(&r);
}

/* A plan copied into DIR whose testbed is the checkout's sim-cx6 (absolute path). */
static void write_plan(const char *dir, char *plan, size_t len)
{
	char *text = e2e_read_file(e2e_src("examples/plans/quickstart.yaml")), *p, *out;
	const char *from = "testbed: ../testbeds/sim-cx6.yaml";

	assert_non_null(text);
	p = strstr(text, from);
	assert_non_null(p);
	*p = '\0';
	assert_true(asprintf(&out, "%stestbed: %s%s", text, e2e_src("examples/testbeds/sim-cx6.yaml"),
			     p + strlen(from)) > 0);
	snprintf(plan, len, "%s/plan.yaml", dir);
	assert_int_equal(e2e_write_file(plan, out), 0);
	free(out);
	free(text);
}

/* Run in DIR with a relative plan path; analyze from / prints what it prints from DIR. */
static void test_fresh_analyze_from_any_directory(void **state)
{
	char old[1024], plan[1100], db[1100], *here;
	const char *dir = e2e_tmpdir();
	const char *run[] = { "run", "plan.yaml", "--db", "q.db", NULL };
	const char *an[] = { "analyze", "--db", db, NULL };
	struct e2e_run r;

	(void)state;
	assert_non_null(getcwd(old, sizeof(old)));
	write_plan(dir, plan, sizeof(plan));
	snprintf(db, sizeof(db), "%s/q.db", dir);
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(e2e_scalacn_run(&r, run), 1); /* NOT QUALIFIED, by design */
	e2e_run_free(&r);
	assert_int_equal(e2e_sql_long(db, "SELECT count(*) FROM campaigns WHERE plan_path LIKE '/%' "
				      "AND testbed LIKE '/%' AND length(plan_file_hash) = 16"), 1);
	assert_int_equal(e2e_scalacn_run(&r, an), 0);
	here = strdup(r.out);
	e2e_run_free(&r);
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(e2e_scalacn_run(&r, an), 0);
	assert_string_equal(r.out, here);
	assert_null(strstr(r.err, "warning"));
	assert_non_null(strstr(r.out, "server.decap_masks"));
	e2e_run_free(&r);
	{ /* a comment added after the campaign: same causes, and a warning */
		char *text = e2e_read_file(plan), *more;

		assert_true(asprintf(&more, "%s# edited after the campaign\n", text) > 0);
		assert_int_equal(e2e_write_file(plan, more), 0);
		free(more);
		free(text);
	}
	assert_int_equal(e2e_scalacn_run(&r, an), 0);
	assert_non_null(strstr(r.err, "warning: plan"));
	assert_non_null(strstr(r.err, "changed since campaign 1 ran"));
	assert_string_equal(r.out, here);
	e2e_run_free(&r);
	free(here);
	assert_int_equal(chdir(old), 0);
	e2e_rmdir(dir);
}

/* A send-only file without a bandwidth model: replay exits 2 naming what the file holds;
 * with one send/bw model (and no write/bw) it uses that one and says so. */
static void test_fresh_replay_names_the_models_a_file_holds(void **state)
{
	const char *dir = e2e_tmpdir();
	char model[1100], trace[1100], err[256];
	struct opt_model_row row = { "R", "fw", "send", "lat", OPT_FORM_LINE, { 0.1, 3 }, 2,
				     { 0 }, 0, NULL, "server.decap_masks", { 0 } };
	const char *gen[] = { "gen-trace", "--flows", "200", "--popularity", "zipf:1.0",
			      "--duration", "3", "--churn", "0", "--seed", "1", "-o", trace, NULL };
	const char *rep[] = { "replay", "--trace", trace, "--model", model, NULL };
	struct e2e_run r;

	(void)state;
	snprintf(model, sizeof(model), "%s/send.model", dir);
	snprintf(trace, sizeof(trace), "%s/t.csv", dir);
	assert_int_equal(e2e_scalacn_run(&r, gen), 0);
	e2e_run_free(&r);
	assert_int_equal(opt_model_write(model, &row, 1, err, sizeof(err)), 0);
	assert_int_equal(e2e_scalacn_run(&r, rep), 2);
	assert_non_null(strstr(r.err, "no write/bw model; it holds send/lat"));
	e2e_run_free(&r);
	row.metric = "bw";
	row.form = OPT_FORM_SERVICE;
	row.params[0] = 170;
	row.params[1] = 0.05;
	assert_int_equal(opt_model_write(model, &row, 1, err, sizeof(err)), 0);
	assert_int_equal(e2e_scalacn_run(&r, rep), 0);
	assert_non_null(strstr(r.err, "using its send/bw model"));
	e2e_run_free(&r);
	e2e_rmdir(dir);
}

/* A model fitted at MTU 4096 and one QP (its file's "fixed" setting): replay measures the
 * testbed at that setting and the testbed line says so; told --mtu 1024 --qps 4, it
 * measures there and notes that the model describes other traffic, naming both. A bad
 * --mtu exits 2. */
static void test_fresh_replay_notes_the_models_setting(void **state)
{
	const char *dir = e2e_tmpdir();
	char model[1100], trace[1100], tb[1100], err[256];
	struct opt_model_row row = { "R", "fw", "write", "bw", OPT_FORM_SERVICE, { 170, 0.05 }, 2,
				     { 0 }, 0, "{\"fixed\":{\"mtu\":4096,\"qps\":1,"
				     "\"msg_size\":65536}}", "server.decap_masks", { 0 } };
	const char *gen[] = { "gen-trace", "--flows", "200", "--popularity", "zipf:1.0",
			      "--duration", "3", "--churn", "0", "--seed", "1", "-o", trace, NULL };
	const char *rep[] = { "replay", "--trace", trace, "--model", model, "--testbed", tb,
			      "--mtu", "1024", "--qps", "4", NULL };
	const char *at[] = { "replay", "--trace", trace, "--model", model, "--testbed", tb, NULL };
	const char *bad[] = { "replay", "--trace", trace, "--mtu", "1500", NULL };
	struct e2e_run r;

	(void)state;
	snprintf(model, sizeof(model), "%s/w.model", dir);
	snprintf(trace, sizeof(trace), "%s/t.csv", dir);
	snprintf(tb, sizeof(tb), "%s", e2e_src("examples/testbeds/sim-cx7.yaml"));
	assert_int_equal(e2e_scalacn_run(&r, gen), 0);
	e2e_run_free(&r);
	assert_int_equal(opt_model_write(model, &row, 1, err, sizeof(err)), 0);
	assert_int_equal(e2e_scalacn_run(&r, rep), 0);
	assert_non_null(strstr(r.err, "write/bw model was fitted at mtu 4096 (the replay "
				      "measures at 1024), qps 1 (the replay measures at 4)"));
	assert_non_null(strstr(r.out, "MTU 1024, 4 QPs"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, at), 0);
	assert_null(strstr(r.err, "fitted at"));
	assert_non_null(strstr(r.out, "MTU 4096, 1 QP\n"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, bad), 2);
	assert_non_null(strstr(r.err, "--mtu: expected 256, 512, 1024, 2048 or 4096, got '1500'"));
	e2e_run_free(&r);
	e2e_rmdir(dir);
}

/* A model over flows and encap contexts (qualify-full's CX-6 read bandwidth): replay feeds
 * the contexts at the level its testbed point holds them (one per subnet) and runs; it
 * exited 2 before ("input 'encap_contexts' is not fed by this table"). An input that is no
 * dimension still is an error naming it. */
static void test_fresh_replay_feeds_the_points_other_levels(void **state)
{
	const char *dir = e2e_tmpdir();
	char model[1100], trace[1100], err[256];
	struct opt_model_row row = { "R", "fw", "write", "bw", OPT_FORM_PLANE, { -0.001, -0.01, 97 },
				     3, { 0 }, 0, NULL, "flows,encap_contexts", { 0 } };
	const char *gen[] = { "gen-trace", "--flows", "200", "--popularity", "zipf:1.0",
			      "--duration", "3", "--churn", "0", "--seed", "1", "-o", trace, NULL };
	const char *rep[] = { "replay", "--trace", trace, "--model", model, NULL };
	struct e2e_run r;

	(void)state;
	snprintf(model, sizeof(model), "%s/c.model", dir);
	snprintf(trace, sizeof(trace), "%s/t.csv", dir);
	assert_int_equal(e2e_scalacn_run(&r, gen), 0);
	e2e_run_free(&r);
	assert_int_equal(opt_model_write(model, &row, 1, err, sizeof(err)), 0);
	assert_int_equal(e2e_scalacn_run(&r, rep), 0);
	assert_null(strstr(r.err, "not fed"));
	assert_non_null(strstr(r.out, "optimiser"));
	e2e_run_free(&r);
	row.inputs = "flows,tenant_count";
	assert_int_equal(opt_model_write(model, &row, 1, err, sizeof(err)), 0);
	assert_int_equal(e2e_scalacn_run(&r, rep), 2);
	assert_non_null(strstr(r.err, "input 'tenant_count' is not fed by this table"));
	e2e_run_free(&r);
	e2e_rmdir(dir);
}

/* The model phase: a `model:` section adds a design over the causes' dimensions (phase
 * "model"), and `fit --inputs causes` fits each (verb, metric) on those dimensions. */
static void test_fresh_model_phase_over_the_causes(void **state)
{
	char old[1024], plan[1100], db[1100], *text;
	const char *dir = e2e_tmpdir();
	const char *run[] = { "run", "plan.yaml", "--db", "q.db", "--quiet", NULL };
	const char *fit[] = { "fit", "--db", "q.db", "--inputs", "causes", NULL };
	struct e2e_run r;

	(void)state;
	assert_non_null(getcwd(old, sizeof(old)));
	write_plan(dir, plan, sizeof(plan));
	text = e2e_read_file(plan);
	assert_non_null(text);
	{
		char *more;

		assert_true(asprintf(&more, "%smodel:\n  levels: 4\n", text) > 0);
		assert_int_equal(e2e_write_file(plan, more), 0);
		free(more);
	}
	free(text);
	snprintf(db, sizeof(db), "%s/q.db", dir);
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(e2e_scalacn_run(&r, run), 1);
	e2e_run_free(&r);
	/* 4 levels of each of the two causes' dimensions plus their walls' neighbours */
	assert_true(e2e_sql_long(db, "SELECT count(*) FROM points WHERE phase = 'model'") >= 16);
	assert_int_equal(e2e_sql_long(db, "SELECT count(DISTINCT t.id) FROM trials t JOIN points p "
				      "ON p.id = t.point WHERE p.phase = 'model' AND t.status != 'ok'"),
			 0);
	assert_int_equal(e2e_scalacn_run(&r, fit), 0);
	assert_non_null(strstr(r.out, "(inputs flows,server.decap_masks)"));
	e2e_run_free(&r);
	assert_int_equal(e2e_sql_long(db, "SELECT count(*) FROM models WHERE "
				      "inputs = 'flows,server.decap_masks'"), 1);
	assert_int_equal(chdir(old), 0);
	e2e_rmdir(dir);
}

/* Run the quickstart with a model phase of 6 levels (and the `model:` keys MORE, indented)
 * and BUDGET testbed-hours ("1": its own) into DIR/NAME. */
static void run_model_plan(const char *dir, const char *name, const char *budget,
			   const char *more_keys)
{
	char plan[1100], *text, *more, *at;
	const char *run[] = { "run", "plan.yaml", "--db", name, "--quiet", NULL };
	struct e2e_run r;

	write_plan(dir, plan, sizeof(plan));
	text = e2e_read_file(plan);
	assert_non_null(text);
	at = strstr(text, "budget_hours: 1 ");
	assert_non_null(at);
	*at = '\0';
	assert_true(asprintf(&more, "%sbudget_hours: %s %s\nmodel:\n  levels: 6\n%s", text,
			     budget, at + strlen("budget_hours: 1 "), more_keys) > 0);
	assert_int_equal(e2e_write_file(plan, more), 0);
	free(more);
	free(text);
	e2e_scalacn_run(&r, run);
	assert_true(r.status == 0 || r.status == 1);
	e2e_run_free(&r);
}

/* The distinct levels of INPUT among DB's model points, ascending, into V (at most 64). */
static unsigned model_levels_of(const char *db, const char *input, long *v)
{
	char sql[256];
	unsigned n = 0;
	long last = -1;

	for (;;) {
		snprintf(sql, sizeof(sql), "SELECT coalesce(min(CAST(json_extract(levels_json, "
			 "'$.\"%s\"') AS INTEGER)), -1) FROM points WHERE phase = 'model' AND "
			 "CAST(json_extract(levels_json, '$.\"%s\"') AS INTEGER) > %ld", input,
			 input, last);
		last = e2e_sql_long(db, sql);
		if (last < 0 || n == 64)
			return n;
		v[n++] = last;
	}
}

/* model.refine: levels are added to the grid (never taken away), strictly inside an input's
 * range, each between two of the grid's neighbouring levels. */
static void test_fresh_model_phase_refines_the_grid(void **state)
{
	static const char *const inputs[] = { "flows", "server.decap_masks" };
	const char *dir = e2e_tmpdir();
	char old[1024], grid[1100], ref[1100];
	unsigned added = 0;

	(void)state;
	assert_non_null(getcwd(old, sizeof(old)));
	assert_int_equal(chdir(dir), 0);
	run_model_plan(dir, "grid.db", "1", "");
	run_model_plan(dir, "ref.db", "1", "  refine: 2\n");
	snprintf(grid, sizeof(grid), "%s/grid.db", dir);
	snprintf(ref, sizeof(ref), "%s/ref.db", dir);
	for (size_t k = 0; k < 2; k++) {
		long g[64], r[64];
		unsigned ng = model_levels_of(grid, inputs[k], g);
		unsigned nr = model_levels_of(ref, inputs[k], r), j = 0;

		assert_true(ng >= 2 && nr >= ng);
		assert_true(r[0] == g[0] && r[nr - 1] == g[ng - 1]); /* the same range */
		for (unsigned i = 0; i < ng; i++) { /* every grid level is still there */
			while (j < nr && r[j] < g[i])
				j++;
			assert_true(j < nr && r[j] == g[i]);
		}
		added += nr - ng;
	}
	assert_true(added >= 1);
	assert_true(e2e_sql_long(ref, "SELECT count(*) FROM points WHERE phase = 'model'") >
		    e2e_sql_long(grid, "SELECT count(*) FROM points WHERE phase = 'model'"));
	assert_int_equal(chdir(old), 0);
	e2e_rmdir(dir);
}

/* The model phase measures coarse to fine: a budget that runs out in it leaves a grid that
 * spans both inputs' whole ranges (both ends of each axis), not a corner of the design. */
static void test_fresh_model_phase_cut_spans_the_range(void **state)
{
	const char *dir = e2e_tmpdir();
	char old[1024], full[1100], cut[1100], budget[32], sql[256];
	static const char *const inputs[] = { "flows", "server.decap_masks" };
	long pre_ms, model_ms, n_full, n_cut;

	(void)state;
	assert_non_null(getcwd(old, sizeof(old)));
	assert_int_equal(chdir(dir), 0);
	run_model_plan(dir, "full.db", "1", "");
	snprintf(full, sizeof(full), "%s/full.db", dir);
	pre_ms = e2e_sql_long(full, "SELECT CAST(1000 * sum(t.cost_s) AS INTEGER) FROM trials t "
			      "JOIN points p ON p.id = t.point WHERE p.phase != 'model'");
	model_ms = e2e_sql_long(full, "SELECT CAST(1000 * sum(t.cost_s) AS INTEGER) FROM trials t "
				"JOIN points p ON p.id = t.point WHERE p.phase = 'model'");
	assert_true(model_ms > 0);
	/* enough for everything before the model phase and a third of it */
	snprintf(budget, sizeof(budget), "%.6f", (pre_ms + model_ms / 3) / 3.6e6);
	run_model_plan(dir, "cut.db", budget, "");
	snprintf(cut, sizeof(cut), "%s/cut.db", dir);
	n_full = e2e_sql_long(full, "SELECT count(*) FROM points WHERE phase = 'model'");
	n_cut = e2e_sql_long(cut, "SELECT count(*) FROM points WHERE phase = 'model'");
	print_message("model points: %ld of %ld within the cut budget\n", n_cut, n_full);
	assert_true(n_cut > 0 && n_cut < n_full);
	for (unsigned k = 0; k < 4; k++) {
		snprintf(sql, sizeof(sql), "SELECT %s(CAST(json_extract(levels_json, '$.\"%s\"') AS "
			 "INTEGER)) FROM points WHERE phase = 'model'", k % 2 ? "max" : "min",
			 inputs[k / 2]);
		assert_int_equal(e2e_sql_long(cut, sql), e2e_sql_long(full, sql));
	}
	assert_int_equal(chdir(old), 0);
	e2e_rmdir(dir);
}

/* Gain of POLICY over static in replay's testbed table ("optimiser  ok  155.83  +237.1% ..."):
 * the percentage, and its rules count into *RULES. NAN when the row is missing. */
static double replay_gain(const char *out, const char *policy, long *rules)
{
	const char *p = strstr(out, "policy     status");
	char name[32], status[16];
	double bw, gain;

	while (p && (p = strchr(p, '\n')) && *++p)
		if (sscanf(p, "%31s %15s %lf %lf%% %*f %*s %*f %ld/", name, status, &bw, &gain,
			   rules) == 5 && !strcmp(name, policy))
			return gain;
	return NAN;
}

/* The mission's chain on the simulated CX-7 with no hand-written model: a campaign with a
 * model phase -> fit on the causes' dimensions -> export (valid, not forced) -> replay with
 * that file: the optimiser acts (hyper-mask copies) and beats the static layout. */
static void test_fresh_chain_campaign_to_optimiser(void **state)
{
	char old[1024], plan[1100], *text;
	const char *dir = e2e_tmpdir();
	const char *cx7 = e2e_src("examples/testbeds/sim-cx7.yaml");
	char tb[1024];
	struct e2e_run r;
	long rs = 0, ro = 0;
	double gain;

	(void)state;
	snprintf(tb, sizeof(tb), "%s", cx7);
	assert_non_null(getcwd(old, sizeof(old)));
	write_plan(dir, plan, sizeof(plan));
	text = e2e_read_file(plan);
	{
		char *more;

		assert_true(asprintf(&more, "%smodel:\n  levels: 6\n", text) > 0);
		assert_int_equal(e2e_write_file(plan, more), 0);
		free(more);
	}
	free(text);
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(e2e_scalacn_run(&r, (const char *[]){ "run", "plan.yaml", "--testbed",
			 tb, "--db", "q.db", "--quiet", NULL }), 0);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, (const char *[]){ "fit", "--db", "q.db", "--inputs",
			 "causes", NULL }), 0);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, (const char *[]){ "export", "--db", "q.db", "--rnic",
			 "ConnectX-7 (simulated)", "-o", "cx7.model", NULL }), 0);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, (const char *[]){ "gen-trace", "--flows", "3000",
			 "--popularity", "zipf:1.0", "--duration", "10", "--churn", "20", "--seed",
			 "1", "-o", "t.csv", NULL }), 0);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, (const char *[]){ "replay", "--trace", "t.csv",
			 "--model", "cx7.model", "--testbed", tb, NULL }), 0);
	gain = replay_gain(r.out, "optimiser", &ro);
	assert_true(replay_gain(r.out, "static", &rs) == 0);
	print_message("chain: optimiser %+.1f%% bandwidth over static (%ld rules vs %ld)\n", gain,
		      ro, rs);
	assert_true(gain > 20);
	assert_true(ro > rs); /* hyper-mask copies: it acted */
	e2e_run_free(&r);
	assert_int_equal(chdir(old), 0);
	e2e_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_measure_repairs_like_run),
		cmocka_unit_test(test_fresh_measure_no_repair_names_the_fix),
		cmocka_unit_test(test_fresh_latency_prints_no_bandwidth),
		cmocka_unit_test(test_fresh_measure_builds_a_layout),
		cmocka_unit_test(test_fresh_fit_names_its_forms),
		cmocka_unit_test(test_fresh_analyze_from_any_directory),
		cmocka_unit_test(test_fresh_replay_names_the_models_a_file_holds),
		cmocka_unit_test(test_fresh_replay_notes_the_models_setting),
		cmocka_unit_test(test_fresh_replay_feeds_the_points_other_levels),
		cmocka_unit_test(test_fresh_model_phase_over_the_causes),
		cmocka_unit_test(test_fresh_model_phase_cut_spans_the_range),
		cmocka_unit_test(test_fresh_model_phase_refines_the_grid),
		cmocka_unit_test(test_fresh_chain_campaign_to_optimiser),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
