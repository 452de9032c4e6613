/* SPDX-License-Identifier: MIT */
/*
 * test-report: `scalacn report` through the real binary on the quickstart campaign: the page
 * is written in under 5 s, is well-formed XML (xmllint), links only files of its folder and
 * its own anchors (no script, no stylesheet or font from elsewhere, no remote reference in
 * the SVGs: url() only of their own #ids), holds every section with the campaign's numbers as the store has them; the md
 * and json formats carry the same numbers; a fitted model's section shows its stored R^2,
 * held-out bias and the plane beside it; an interrupted campaign still renders and says
 * what is missing; bad options exit 2.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "e2e_util.h"
#include "report-util.h"

struct ctx {
	char dir[64], db[256], out[256];
	char *page;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	snprintf(c->dir, sizeof(c->dir), "%s", e2e_tmpdir());
	snprintf(c->db, sizeof(c->db), "%s/q.db", c->dir);
	snprintf(c->out, sizeof(c->out), "%s/report", c->dir);
	if (rpt_quickstart(c->db, NULL) != 1)
		return -1;
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	e2e_rmdir(c->dir);
	free(c->page);
	free(c);
	return 0;
}

static int report(const char *db, const char *out, const char *format, char **stdout_text)
{
	const char *args[] = { "report", "--db", db, "-o", out, "--format", format, NULL };

	return rpt_scalacn(args, stdout_text);
}

/* The page contains TEXT (printed as the page prints it: escaped). */
static void assert_has(const char *page, const char *text)
{
	if (!strstr(page, text))
		fail_msg("the page lacks '%s'", text);
}

static void test_generated_quickly(void **state)
{
	struct ctx *c = *state;
	char path[512], *out = NULL;
	double t0 = rpt_now();

	assert_int_equal(report(c->db, c->out, "html", &out), 0);
	assert_true(rpt_now() - t0 < 5.0);
	assert_non_null(strstr(out, "index.html"));
	free(out);
	snprintf(path, sizeof(path), "%s/index.html", c->out);
	c->page = e2e_read_file(path);
	assert_non_null(c->page);
}

static void test_well_formed(void **state)
{
	struct ctx *c = *state;
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s/index.html' 2>&1", c->out);
	assert_int_equal(rpt_shell(cmd, NULL), 0);
	assert_true(strncmp(c->page, "<!DOCTYPE html>", 15) == 0);
}

/* Every src and href of the page: an anchor of the page, or a file of its folder. */
static void check_link(const struct ctx *c, const char *v)
{
	char path[600], anchor[200];
	struct stat st;

	if (strstr(v, "://") || !strncmp(v, "//", 2) || strchr(v, '/') || strstr(v, ".."))
		fail_msg("link '%s' leaves the folder", v);
	if (v[0] == '#') {
		snprintf(anchor, sizeof(anchor), "id=\"%s\"", v + 1);
		if (!strstr(c->page, anchor))
			fail_msg("anchor %s is not on the page", v);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", c->out, v);
	if (stat(path, &st) != 0 || st.st_size < 1000)
		fail_msg("image %s is missing or empty", v);
}

static void test_links_local(void **state)
{
	struct ctx *c = *state;
	char cmd[600], *attrs = NULL, *save = NULL;
	unsigned images = 0;

	snprintf(cmd, sizeof(cmd), "xmllint --xpath '//@src | //@href' '%s/index.html'", c->out);
	assert_int_equal(rpt_shell(cmd, &attrs), 0);
	for (char *tok = strtok_r(attrs, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		char *q = strchr(tok, '"'), *e = q ? strrchr(tok, '"') : NULL;

		assert_true(q && e > q);
		*e = 0;
		check_link(c, q + 1);
		images += !strncmp(tok, "src=", 4);
	}
	free(attrs);
	assert_int_equal(images, 4); /* two walls, two causes' sensitivities */
	assert_null(strstr(c->page, "<script"));
	assert_null(strstr(c->page, "<link"));
	assert_null(strstr(c->page, "url("));
	assert_null(strstr(c->page, "@import"));
	snprintf(cmd, sizeof(cmd), "cat '%s'/*.svg | grep -c -E 'href=|<image|url\\([^#]|@import'",
		 c->out);
	assert_int_equal(rpt_shell(cmd, NULL), 1); /* grep found nothing */
}

static void sql_has(const struct ctx *c, const char *sql)
{
	char buf[256];

	rpt_sql_text(c->db, sql, buf, sizeof(buf));
	assert_true(buf[0]);
	assert_has(c->page, buf);
}

static void test_sections_and_numbers(void **state)
{
	struct ctx *c = *state;
	static const char *const sections[] = { "summary", "walls", "causes", "models", "cost" };

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		char id[64];

		snprintf(id, sizeof(id), "<section id=\"%s\">", sections[i]);
		assert_has(c->page, id);
	}
	sql_has(c, "SELECT '<td>' || rnic_model || '</td>' FROM campaigns WHERE id = 1");
	sql_has(c, "SELECT '<td>' || firmware || '</td>' FROM campaigns WHERE id = 1");
	sql_has(c, "SELECT '<td>' || printf('%.3f', ratio) || '</td>' FROM criteria");
	sql_has(c, "SELECT '<td>' || printf('%.5g Gb/s', value) || '</td>' FROM criteria");
	sql_has(c, "SELECT '<td>FAIL</td>' FROM criteria WHERE pass = 0");
	sql_has(c, "SELECT '<td>flows</td><td>write bw</td><td>' || CAST(level AS INTEGER) || "
		   "'</td><td>' || CAST(last_good AS INTEGER) FROM symptoms WHERE point IS NOT NULL "
		   "AND dimension = 'flows'");
	sql_has(c, "SELECT '<td>server.decap_masks</td><td>write bw</td><td>' || "
		   "CAST(level AS INTEGER) FROM symptoms WHERE point IS NOT NULL AND "
		   "dimension = 'server.decap_masks'");
	sql_has(c, "SELECT printf('%+.1f%% [%+.1f%%, %+.1f%%]', 100 * effect, 100 * effect_lo, "
		   "100 * effect_hi) FROM causes WHERE members = 'flows'");
	sql_has(c, "SELECT printf('%+.1f%% [%+.1f%%, %+.1f%%]', 100 * effect, 100 * effect_lo, "
		   "100 * effect_hi) FROM causes WHERE members = 'server.decap_masks'");
	sql_has(c, "SELECT '<td>sweep</td><td>' || count(*) || '</td>' FROM trials t JOIN points p "
		   "ON p.id = t.point WHERE p.phase = 'sweep'");
	sql_has(c, "SELECT '<td>total</td><td>' || count(*) || '</td>' FROM trials");
	assert_has(c->page, "of a budget of 1 (");
	assert_has(c->page, "Brute force: ");
	assert_has(c->page, "No model was fitted");
}

static void test_md_and_json(void **state)
{
	struct ctx *c = *state;
	char dir[300], path[400], ratio[64];
	char *md, *js;
	struct json_object *root, *v;

	snprintf(dir, sizeof(dir), "%s/md", c->dir);
	assert_int_equal(report(c->db, dir, "md", NULL), 0);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	assert_non_null(md = e2e_read_file(path));
	assert_non_null(strstr(md, "## Walls"));
	assert_non_null(strstr(md, "](wall-1.svg)"));
	free(md);
	snprintf(dir, sizeof(dir), "%s/json", c->dir);
	assert_int_equal(report(c->db, dir, "json", NULL), 0);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	assert_non_null(js = e2e_read_file(path));
	assert_non_null(root = json_tokener_parse(js));
	assert_true(json_object_object_get_ex(root, "criteria", &v));
	rpt_sql_text(c->db, "SELECT printf('%.12f', ratio) FROM criteria", ratio, sizeof(ratio));
	assert_float_equal(json_object_get_double(json_object_object_get(
				   json_object_array_get_idx(v, 0), "ratio")), atof(ratio), 1e-9);
	assert_true(json_object_object_get_ex(root, "walls", &v));
	assert_true(json_object_array_length(v) >= 2);
	assert_int_equal(json_object_get_int64(json_object_object_get(
				 json_object_object_get(root, "campaign"), "trials")),
			 e2e_trial_count(c->db));
	json_object_put(root);
	free(js);
}

/* A campaign stopped by Ctrl-C after some trials renders and says what is missing. */
static void test_interrupted(void **state)
{
	struct ctx *c = *state;
	char plan[300], tb[300], db[300], out[300], err[300], dir[300], path[400];
	const char *args[] = { "run", plan, "--db", db, "--quiet", NULL };
	char *page;
	pid_t pid;

	e2e_write_paced_inputs(c->dir, "report-interrupted", 0.02, plan, sizeof(plan), tb,
			       sizeof(tb));
	snprintf(db, sizeof(db), "%s/int.db", c->dir);
	snprintf(out, sizeof(out), "%s/int.out", c->dir);
	snprintf(err, sizeof(err), "%s/int.err", c->dir);
	pid = e2e_scalacn_spawn(args, out, err);
	for (int i = 0; i < 600 && e2e_sql_long(db, "SELECT count(*) FROM trials") < 12; i++)
		usleep(50000);
	kill(pid, SIGINT);
	assert_int_equal(e2e_wait(pid), 130);
	snprintf(dir, sizeof(dir), "%s/int-report", c->dir);
	assert_int_equal(report(db, dir, "html", NULL), 0);
	snprintf(path, sizeof(path), "%s/index.html", dir);
	assert_non_null(page = e2e_read_file(path));
	assert_non_null(strstr(page, "Missing: the campaign is interrupted, not done"));
	assert_non_null(strstr(page, "Missing: no criterion verdict is stored"));
	assert_non_null(strstr(page, "no wall stored (the search did not finish)"));
	assert_non_null(strstr(page, "<section id=\"cost\">"));
	free(page);
	snprintf(path, sizeof(path), "xmllint --noout '%s/index.html'", dir);
	assert_int_equal(rpt_shell(path, NULL), 0);
}

/* A campaign with a model phase, fitted: the models section shows the stored quality. */
static void test_models(void **state)
{
	struct ctx *c = *state;
	char db[300], dir[300], path[400], want[256], buf[128], *page;
	const char *run[] = { "run", e2e_src("examples/plans/quickstart-model.yaml"), "--db", db,
			      "--quiet", NULL };
	const char *fit[] = { "fit", "--db", db, "--inputs", "causes", NULL };
	const char *rep[] = { "report", "--db", db, "-o", dir, NULL };

	snprintf(db, sizeof(db), "%s/m.db", c->dir);
	snprintf(dir, sizeof(dir), "%s/m-report", c->dir);
	assert_int_equal(rpt_scalacn(run, NULL), 0);
	assert_int_equal(rpt_scalacn(fit, NULL), 0);
	assert_int_equal(rpt_scalacn(rep, NULL), 0);
	snprintf(path, sizeof(path), "%s/index.html", dir);
	assert_non_null(page = e2e_read_file(path));
	rpt_sql_text(db, "SELECT printf('<td>R^2</td><td>%.4f (RMSE %.4g Gb/s)</td>', "
		     "json_extract(quality_json, '$.r2'), json_extract(quality_json, '$.rmse')) "
		     "FROM models ORDER BY id DESC", buf, sizeof(buf));
	assert_has(page, buf);
	rpt_sql_text(db, "SELECT printf('max %.2f%%, mean %.2f%%', "
		     "100 * json_extract(quality_json, '$.cv_max_bias'), "
		     "100 * json_extract(quality_json, '$.cv_mean_bias')) FROM models ORDER BY id DESC",
		     buf, sizeof(buf));
	assert_has(page, buf);
	snprintf(want, sizeof(want), "<td>baseline regression</td><td>plane: R^2 ");
	assert_has(page, want);
	assert_has(page, "src=\"model-1.svg\"");
	assert_has(page, "src=\"residuals-1.svg\"");
	assert_null(strstr(page, "No model was fitted"));
	free(page);
}

static void test_usage(void **state)
{
	struct ctx *c = *state;
	const char *no_out[] = { "report", "--db", c->db, NULL };
	const char *bad_format[] = { "report", "--db", c->db, "-o", c->out, "--format", "pdf", NULL };
	const char *no_db[] = { "report", "--db", "/nonexistent/x.db", "-o", c->out, NULL };
	const char *onto_file[] = { "report", "--db", c->db, "-o", c->db, NULL };
	struct e2e_run r;

	assert_int_equal(e2e_scalacn_run(&r, no_out), 2);
	assert_non_null(strstr(r.err, "-o DIR"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, bad_format), 2);
	assert_non_null(strstr(r.err, "html, md or json"));
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, no_db), 2);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, onto_file), 2);
	assert_non_null(strstr(r.err, "cannot make the report folder"));
	assert_non_null(strstr(r.err, "Not a directory"));
	e2e_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_quickly),   cmocka_unit_test(test_well_formed),
		cmocka_unit_test(test_links_local),         cmocka_unit_test(test_sections_and_numbers),
		cmocka_unit_test(test_md_and_json),         cmocka_unit_test(test_interrupted),
		cmocka_unit_test(test_models),              cmocka_unit_test(test_usage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
