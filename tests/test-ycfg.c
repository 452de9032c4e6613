/* SPDX-License-Identifier: MIT */
/*
 * test-ycfg: unit tests of yamlcfg/ (ycfg.h). A small schema reader (the way plans and
 * testbed files use ycfg) runs over good and bad inputs; every bad input has its exact
 * formatted error ("file:line:column: key: message"). Includes use real files in a temp dir.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/cfg-test-util.h"
#include "yamlcfg/ycfg.h"

/* Strings are copied: the document is freed before the checks. */
struct cfg {
	char name[32];
	int64_t size;
	double ratio;
	bool enabled;
	int mode;
	unsigned n_dims;
	char dim_name[4][32];
	int64_t levels[4][8];
	unsigned n_levels[4];
};

static const char *const modes[] = { "fast", "slow", "careful", NULL };

static int read_dim(const struct ycfg_node *d, struct cfg *c, struct scn_error *err)
{
	static const char *const keys[] = { "name", "levels", NULL };
	struct ycfg_node lv;
	unsigned i = c->n_dims;
	const char *s;
	int rc;

	if ((rc = ycfg_check_keys(d, keys, err)) < 0 ||
	    (rc = ycfg_req_str(d, "name", &s, err)) < 0 ||
	    (rc = ycfg_require(d, "levels", &lv, err)) < 0)
		return rc;
	snprintf(c->dim_name[i], sizeof(c->dim_name[i]), "%s", s);
	if (!ycfg_is_seq(&lv))
		return ycfg_error(&lv, err, "expected a list");
	for (size_t k = 0; k < ycfg_seq_len(&lv) && k < 8; k++) {
		struct ycfg_node x = ycfg_seq_at(&lv, k);

		if ((rc = ycfg_int(&x, 0, 100, &c->levels[i][k], err)) < 0)
			return rc;
		c->n_levels[i]++;
	}
	c->n_dims++;
	return 0;
}

static int read_cfg(struct ycfg_doc *doc, struct cfg *c, struct scn_error *err)
{
	static const char *const keys[] = { "name", "size", "ratio", "enabled", "mode",
					    "dimensions", NULL };
	struct ycfg_node root = ycfg_root(doc), dims;
	const char *s;
	int rc;

	memset(c, 0, sizeof(*c));
	if ((rc = ycfg_check_keys(&root, keys, err)) < 0 ||
	    (rc = ycfg_req_str(&root, "name", &s, err)) < 0)
		return rc;
	snprintf(c->name, sizeof(c->name), "%s", s);
	if ((rc = ycfg_opt_int(&root, "size", 1, 1 << 20, 64, &c->size, err)) < 0 ||
	    (rc = ycfg_opt_double(&root, "ratio", 0, 1, 0.5, &c->ratio, err)) < 0 ||
	    (rc = ycfg_opt_bool(&root, "enabled", true, &c->enabled, err)) < 0)
		return rc;
	c->mode = 0;
	if (!ycfg_get(&root, "mode", &dims) && (rc = ycfg_enum(&dims, modes, &c->mode, err)) < 0)
		return rc;
	if (ycfg_get(&root, "dimensions", &dims))
		return 0;
	if (!ycfg_is_seq(&dims))
		return ycfg_error(&dims, err, "expected a list");
	for (size_t i = 0; i < ycfg_seq_len(&dims) && i < 4; i++) {
		struct ycfg_node d = ycfg_seq_at(&dims, i);

		if ((rc = read_dim(&d, c, err)) < 0)
			return rc;
	}
	return 0;
}

/* Load TEXT (as "t.yaml") and read it; returns rc and formats the error into BUF. */
static int run(const char *text, struct cfg *c, char *buf, size_t len)
{
	struct scn_error err;
	struct ycfg_doc *doc = NULL;
	int rc;

	scn_error_clear(&err);
	rc = ycfg_load_string("t.yaml", text, &doc, &err);
	if (!rc)
		rc = read_cfg(doc, c, &err);
	buf[0] = '\0';
	if (rc) {
		assert_int_equal(err.cls, SCN_ERR_CONFIG);
		scn_error_format(&err, buf, len);
	}
	ycfg_free(doc);
	return rc;
}

static void test_ycfg_good(void **state)
{
	struct cfg c;
	char buf[600];
	const char *text = "name: demo\n"
			   "size: 8K\n"
			   "ratio: 90%\n"
			   "enabled: no\n"
			   "mode: careful\n"
			   "dimensions:\n"
			   "  - name: a\n"
			   "    levels: [1, 2, 4]\n"
			   "  - {name: b, levels: [0, 100]}\n";
	(void)state;
	assert_int_equal(run(text, &c, buf, sizeof(buf)), 0);
	assert_string_equal(c.name, "demo");
	assert_int_equal(c.size, 8192);
	assert_true(c.ratio > 0.8999999 && c.ratio < 0.9000001);
	assert_false(c.enabled);
	assert_int_equal(c.mode, 2);
	assert_int_equal(c.n_dims, 2);
	assert_string_equal(c.dim_name[1], "b");
	assert_int_equal(c.n_levels[0], 3);
	assert_int_equal(c.levels[0][2], 4);
	assert_int_equal(c.levels[1][1], 100);
	/* Defaults. */
	assert_int_equal(run("name: x\n", &c, buf, sizeof(buf)), 0);
	assert_int_equal(c.size, 64);
	assert_true(c.ratio == 0.5);
	assert_true(c.enabled);
	/* Suffixes and bools in other spellings. */
	assert_int_equal(run("name: x\nsize: 1M\nenabled: YES\nratio: 0.05\n", &c, buf,
			     sizeof(buf)), 0);
	assert_int_equal(c.size, 1048576);
	assert_true(c.enabled);
	assert_true(c.ratio == 0.05);
}

struct bad {
	const char *text;
	const char *msg;
};

static const struct bad bad_inputs[] = {
	{ "size: 3\n", "t.yaml:1:1: name: missing key" },
	{ "name: x\nsise: 3\n",
	  "t.yaml:2:1: sise: unknown key 'sise' (allowed: name, size, ratio, enabled, mode, "
	  "dimensions)" },
	{ "name: x\nsize: 2M\n", "t.yaml:2:7: size: 2M is out of range [1, 1048576]" },
	{ "name: x\nsize: 0\n", "t.yaml:2:7: size: 0 is out of range [1, 1048576]" },
	{ "name: x\nsize: 12abc\n", "t.yaml:2:7: size: expected an integer, got '12abc'" },
	{ "name: x\nsize: 1.5\n", "t.yaml:2:7: size: expected an integer, got '1.5'" },
	{ "name: x\nsize: 99999999999999999999\n",
	  "t.yaml:2:7: size: integer '99999999999999999999' is too large" },
	{ "name: x\nsize:\n", "t.yaml:2:6: size: missing value (expected an integer)" },
	{ "name: x\nsize: [1]\n", "t.yaml:2:7: size: expected an integer, got a sequence" },
	{ "name: x\nratio: 150%\n", "t.yaml:2:8: ratio: 150% is out of range [0, 1]" },
	{ "name: x\nratio: nan\n", "t.yaml:2:8: ratio: expected a number, got 'nan'" },
	{ "name: x\nenabled: maybe\n",
	  "t.yaml:2:10: enabled: expected true/false/yes/no, got 'maybe'" },
	{ "name: x\nmode: quick\n",
	  "t.yaml:2:7: mode: unknown value 'quick' (choices: fast, slow, careful)" },
	{ "name: {a: 1}\n", "t.yaml:1:7: name: expected a string, got a mapping" },
	{ "name: x\nname: y\n", "t.yaml:2:1: name: duplicate key 'name' (also defined at t.yaml:1:1)" },
	{ "name: x\ndimensions:\n  - name: a\n    levels: [1, 2]\n  - name: b\n    levels: [3, 101]\n",
	  "t.yaml:6:17: dimensions[1].levels[1]: 101 is out of range [0, 100]" },
	{ "name: x\ndimensions:\n  - name: a\n    levls: [1]\n",
	  "t.yaml:4:5: dimensions[0].levls: unknown key 'levls' (allowed: name, levels)" },
	{ "name: x\ndimensions:\n  - name: a\n",
	  "t.yaml:3:5: dimensions[0].levels: missing key" },
	{ "name: x\ndimensions:\n  - 3\n",
	  "t.yaml:3:5: dimensions[0]: expected a mapping, got a scalar" },
	{ "name: x\n  size: 3\n",
	  "t.yaml:2:7: syntax error: mapping values are not allowed in this context" },
	{ "name: [x\n", "t.yaml:2:1: syntax error: did not find expected ',' or ']' while "
			"parsing a flow sequence" },
	{ "name: x\n---\nname: y\n", "t.yaml:3:1: more than one YAML document in the file" },
	{ "- a\n- b\n", "t.yaml:1:1: expected a mapping, got a sequence" },
	{ "", "t.yaml: expected a mapping, got nothing" },
	{ "name: x\ninclude: a.yaml\ninclude: b.yaml\n",
	  "t.yaml:3:1: include: duplicate key 'include' (also defined at t.yaml:2:1)" },
	{ "name: x\ninclude: {a: 1}\n",
	  "t.yaml:2:10: include: expected a file name or a list of them" },
	{ "name: x\ninclude: missing-file.yaml\n",
	  "t.yaml:2:10: include: cannot read include 'missing-file.yaml': No such file or "
	  "directory" },
};

static void test_ycfg_bad_inputs(void **state)
{
	char buf[600];
	struct cfg c;
	(void)state;

	for (size_t i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		int rc = run(bad_inputs[i].text, &c, buf, sizeof(buf));

		if (rc != -EINVAL || strcmp(buf, bad_inputs[i].msg))
			fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, buf,
				 bad_inputs[i].msg);
	}
}

/* ---- includes (real files) ---------------------------------------------------------------- */

static int tmp_setup(void **state)
{
	return cfgt_setup(state, "test-ycfg");
}

/* Load T's NAME and read it with the schema; error formatted into BUF with the dir removed. */
static int load_file(const struct cfgt_dir *t, const char *name, struct cfg *c, char *buf,
		     size_t len)
{
	char path[256];
	struct scn_error err;
	struct ycfg_doc *doc = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	scn_error_clear(&err);
	rc = ycfg_load(path, &doc, &err);
	if (!rc)
		rc = read_cfg(doc, c, &err);
	buf[0] = '\0';
	if (rc)
		cfgt_error_text(t, &err, buf, len); /* "<dir>/" stripped: stable expectations */
	ycfg_free(doc);
	return rc;
}

static void test_ycfg_include_merge(void **state)
{
	struct cfgt_dir *t = *state;
	char buf[600];
	struct cfg c;

	cfgt_put(t, "common.yaml", "size: 2K\nratio: 25%\n");
	cfgt_put(t, "more.yaml", "mode: slow\n");
	cfgt_put(t, "main.yaml", "name: merged\ninclude: [common.yaml, more.yaml]\nenabled: false\n");
	assert_int_equal(load_file(t, "main.yaml", &c, buf, sizeof(buf)), 0);
	assert_string_equal(c.name, "merged");
	assert_int_equal(c.size, 2048);
	assert_true(c.ratio == 0.25);
	assert_int_equal(c.mode, 1);
	assert_false(c.enabled);

	/* Order: own keys first, then included keys; nodes keep their file. */
	struct scn_error err;
	struct ycfg_doc *doc;
	char path[256];

	snprintf(path, sizeof(path), "%s/main.yaml", t->dir);
	assert_int_equal(ycfg_load(path, &doc, &err), 0);
	struct ycfg_node root = ycfg_root(doc), v;

	assert_int_equal(ycfg_map_len(&root), 5);
	assert_string_equal(ycfg_map_key(&root, 0), "name");
	assert_string_equal(ycfg_map_key(&root, 1), "enabled");
	assert_string_equal(ycfg_map_key(&root, 2), "size");
	assert_string_equal(ycfg_map_key(&root, 4), "mode");
	assert_int_equal(ycfg_get(&root, "include", &v), -ENOENT);
	assert_int_equal(ycfg_get(&root, "mode", &v), 0);
	assert_non_null(strstr(ycfg_file(&v), "/more.yaml"));
	assert_int_equal(ycfg_line(&v), 1);
	assert_int_equal(ycfg_column(&v), 7);
	assert_string_equal(ycfg_doc_file(doc), path);
	/* Relative paths resolve against the file the node came from. */
	char res[300], want[300];

	snprintf(want, sizeof(want), "%s/x/y.yaml", t->dir);
	assert_string_equal(ycfg_resolve_path(&v, "x/y.yaml", res, sizeof(res)), want);
	assert_string_equal(ycfg_resolve_path(&v, "/abs.yaml", res, sizeof(res)), "/abs.yaml");
	ycfg_free(doc);

	/* Nested include inside a sequence element mapping. */
	cfgt_put(t, "lv.yaml", "levels: [7, 9]\n");
	cfgt_put(t, "nest.yaml", "name: n\ndimensions:\n  - name: a\n    include: lv.yaml\n");
	assert_int_equal(load_file(t, "nest.yaml", &c, buf, sizeof(buf)), 0);
	assert_int_equal(c.n_levels[0], 2);
	assert_int_equal(c.levels[0][1], 9);
}

struct bad_file {
	const char *files[4][2]; /* name, text */
	const char *msg;
};

static const struct bad_file bad_files[] = {
	{ { { "m1.yaml", "name: x\nsize: 4\ninclude: c1.yaml\n" }, { "c1.yaml", "ratio: 1\nsize: 5\n" } },
	  "c1.yaml:2:1: size: duplicate key 'size' (also defined at m1.yaml:2:1)" },
	{ { { "m2.yaml", "name: x\ninclude: c2.yaml\n" }, { "c2.yaml", "include: m2.yaml\n" } },
	  "c2.yaml:1:10: include: include cycle: m2.yaml -> c2.yaml -> m2.yaml" },
	{ { { "m3.yaml", "name: x\ninclude: m3.yaml\n" } },
	  "m3.yaml:2:10: include: include cycle: m3.yaml -> m3.yaml" },
	{ { { "m4.yaml", "name: x\ninclude: [c4.yaml, nope.yaml]\n" }, { "c4.yaml", "size: 1\n" } },
	  "m4.yaml:2:20: include[1]: cannot read include 'nope.yaml': No such file or directory" },
	{ { { "m5.yaml", "name: x\ninclude: c5.yaml\n" }, { "c5.yaml", "- 1\n" } },
	  "m5.yaml:2:10: include: included file 'c5.yaml' does not hold a mapping" },
	{ { { "m6.yaml", "name: x\ninclude: c6.yaml\n" }, { "c6.yaml", "size: 200M\n" } },
	  "c6.yaml:1:7: size: 200M is out of range [1, 1048576]" },
	{ { { "m7.yaml", "name: x\ninclude: c7.yaml\n" }, { "c7.yaml", "size: [\n" } },
	  "c7.yaml:2:1: syntax error: did not find expected node content while parsing a flow "
	  "node" },
	{ { { "m8.yaml", "name: x\ninclude: c8.yaml\n" }, { "c8.yaml", "colour: red\n" } },
	  "c8.yaml:1:1: colour: unknown key 'colour' (allowed: name, size, ratio, enabled, mode, "
	  "dimensions)" },
};

static void test_ycfg_include_errors(void **state)
{
	struct cfgt_dir *t = *state;
	char buf[600];
	struct cfg c;

	for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		for (int f = 0; f < 4 && bad_files[i].files[f][0]; f++)
			cfgt_put(t, bad_files[i].files[f][0], bad_files[i].files[f][1]);
		int rc = load_file(t, bad_files[i].files[0][0], &c, buf, sizeof(buf));

		if (rc != -EINVAL || strcmp(buf, bad_files[i].msg))
			fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, buf,
				 bad_files[i].msg);
	}
}

static void test_ycfg_include_depth(void **state)
{
	struct cfgt_dir *t = *state;
	char name[32], text[64], buf[600];
	struct cfg c;

	/* d0 includes d1 ... d9: depth 9 > 8. */
	for (int i = 0; i <= 9; i++) {
		snprintf(name, sizeof(name), "d%d.yaml", i);
		if (i < 9)
			snprintf(text, sizeof(text), "k%d: 1\ninclude: d%d.yaml\n", i, i + 1);
		else
			snprintf(text, sizeof(text), "k9: 1\n");
		cfgt_put(t, name, text);
	}
	assert_int_equal(load_file(t, "d0.yaml", &c, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(buf, "d8.yaml:2:10: include: includes nested deeper than 8 levels "
				 "(at 'd9.yaml')");
	/* Depth exactly 8 is fine (read with the raw API: keys k1..k8 are not in the schema). */
	cfgt_put(t, "d8.yaml", "k8: 1\n");
	struct scn_error err;
	struct ycfg_doc *doc;
	char path[256];

	snprintf(path, sizeof(path), "%s/d0.yaml", t->dir);
	assert_int_equal(ycfg_load(path, &doc, &err), 0);
	struct ycfg_node root = ycfg_root(doc);

	assert_int_equal(ycfg_map_len(&root), 9);
	assert_string_equal(ycfg_map_key(&root, 8), "k8");
	ycfg_free(doc);
}

static void test_ycfg_missing_file(void **state)
{
	struct scn_error err;
	struct ycfg_doc *doc = (struct ycfg_doc *)&err;
	char buf[300];
	(void)state;

	assert_int_equal(ycfg_load("/nonexistent/plan.yaml", &doc, &err), -ENOENT);
	assert_null(doc);
	assert_int_equal(err.cls, SCN_ERR_CONFIG);
	assert_string_equal(scn_error_format(&err, buf, sizeof(buf)),
			    "/nonexistent/plan.yaml: cannot read: No such file or directory");
	ycfg_free(NULL);
}

static void test_ycfg_scalars(void **state)
{
	struct scn_error err;
	struct ycfg_doc *doc;
	struct ycfg_node root, n;
	int64_t i;
	double d;
	bool b;
	const char *s;
	(void)state;

	assert_int_equal(ycfg_load_string("s.yaml", "a: -3\nb: 1G\nc: 16K\nd: '42'\ne: \"\"\n"
					  "f: 1e-3\ng: -2%\nh: 8k\n", &doc, &err), 0);
	root = ycfg_root(doc);
	assert_int_equal(ycfg_req_int(&root, "a", -10, 10, &i, &err), 0);
	assert_int_equal(i, -3);
	assert_int_equal(ycfg_req_int(&root, "b", 0, INT64_MAX, &i, &err), 0);
	assert_int_equal(i, 1073741824);
	assert_int_equal(ycfg_req_double(&root, "c", 0, 1e9, &d, &err), 0);
	assert_true(d == 16384.0);
	assert_int_equal(ycfg_req_int(&root, "d", 0, 100, &i, &err), 0);
	assert_int_equal(i, 42);
	assert_int_equal(ycfg_req_str(&root, "e", &s, &err), 0);
	assert_string_equal(s, "");
	assert_int_equal(ycfg_req_double(&root, "f", 0, 1, &d, &err), 0);
	assert_true(d == 1e-3);
	assert_int_equal(ycfg_req_double(&root, "g", -1, 1, &d, &err), 0);
	assert_true(d == -0.02);
	assert_int_equal(ycfg_req_int(&root, "h", 0, INT64_MAX, &i, &err), 0);
	assert_int_equal(i, 8192);
	/* One-sided bounds. */
	assert_int_equal(ycfg_req_int(&root, "a", 0, INT64_MAX, &i, &err), -EINVAL);
	assert_string_equal(err.message, "-3 must be >= 0");
	assert_int_equal(ycfg_req_double(&root, "c", -DBL_MAX, 100, &d, &err), -EINVAL);
	assert_string_equal(err.message, "16K must be <= 100");
	assert_int_equal(ycfg_opt_bool(&root, "zz", true, &b, &err), 0);
	assert_true(b);
	assert_int_equal(ycfg_opt_str(&root, "zz", "dflt", &s, &err), 0);
	assert_string_equal(s, "dflt");
	assert_int_equal(ycfg_get(&root, "zz", &n), -ENOENT);
	assert_int_equal(ycfg_get(&root, "a", &n), 0);
	assert_true(ycfg_is_scalar(&n));
	assert_false(ycfg_is_map(&n));
	assert_string_equal(n.path, "a");
	ycfg_free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ycfg_good),
		cmocka_unit_test(test_ycfg_bad_inputs),
		cmocka_unit_test(test_ycfg_scalars),
		cmocka_unit_test(test_ycfg_missing_file),
		cmocka_unit_test_setup_teardown(test_ycfg_include_merge, tmp_setup, cfgt_teardown),
		cmocka_unit_test_setup_teardown(test_ycfg_include_errors, tmp_setup, cfgt_teardown),
		cmocka_unit_test_setup_teardown(test_ycfg_include_depth, tmp_setup, cfgt_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
