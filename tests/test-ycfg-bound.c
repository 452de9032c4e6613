/* SPDX-License-Identifier: MIT */
/*
 * test-ycfg-bound: yamlcfg's loaders are bounded by construction (ycfg.h). Alias bombs with
 * sequences and with mappings, recursive aliases and nesting through aliases are refused at
 * a position within a second; FIFOs, devices, directories and files over the size cap are
 * refused naming what they are (never read, never blocked on); the number of files in one
 * document is capped; ordinary aliases still load.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/cfg-test-util.h"
#include "yamlcfg/ycfg.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Load TEXT from memory as "t.yaml"; the formatted error goes to BUF. */
static int load_text(const char *text, char *buf, size_t len)
{
	struct ycfg_doc *doc = NULL;
	struct scn_error err;
	int rc;

	scn_error_clear(&err);
	rc = ycfg_load_string("t.yaml", text, &doc, &err);
	buf[0] = '\0';
	if (rc)
		scn_error_format(&err, buf, len);
	ycfg_free(doc);
	return rc;
}

/* Load file NAME of T's directory; the error (directory stripped) goes to BUF. */
static int load_file(const struct cfgt_dir *t, const char *name, char *buf, size_t len)
{
	struct ycfg_doc *doc = NULL;
	struct scn_error err;
	char path[256];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	scn_error_clear(&err);
	rc = ycfg_load(path, &doc, &err);
	buf[0] = '\0';
	if (rc)
		cfgt_error_text(t, &err, buf, len);
	ycfg_free(doc);
	return rc;
}

/* The classic: nine levels of nine references each (9^9 nodes when expanded). */
static const char bomb_seq[] =
	"name: bomb\n"
	"a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
	"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
	"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
	"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
	"h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
	"i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n";

static void test_ycfg_bound_alias_bomb_sequences(void **state)
{
	char buf[600];
	double t0 = now_s();

	(void)state;
	assert_int_equal(load_text(bomb_seq, buf, sizeof(buf)), -EINVAL);
	assert_true(now_s() - t0 < 1.0);
	assert_string_equal(buf, "t.yaml:7:4: f: aliases expand this node to more than 100000 "
			    "nodes, the most a configuration file may hold (an alias bomb?)");
}

static void test_ycfg_bound_alias_bomb_mappings(void **state)
{
	char text[2048], buf[600];
	size_t n = 0;

	(void)state;
	n += (size_t)snprintf(text + n, sizeof(text) - n, "l0: &l0 {a: 1, b: 1, c: 1, d: 1}\n");
	for (int lv = 1; lv < 14; lv++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "l%d: &l%d {a: *l%d, b: *l%d, c: *l%d, d: *l%d}\n", lv, lv,
				      lv - 1, lv - 1, lv - 1, lv - 1);
	assert_int_equal(load_text(text, buf, sizeof(buf)), -EINVAL);
	assert_non_null(strstr(buf, "t.yaml:8:5: l7: aliases expand this node to more than"));
}

static void test_ycfg_bound_recursive_and_deep(void **state)
{
	char text[4096], buf[600];
	size_t n = 0;

	(void)state;
	assert_int_equal(load_text("a: &a [1, *a]\n", buf, sizeof(buf)), -EINVAL);
	assert_string_equal(buf, "t.yaml:1:4: a[1]: this node contains an alias of itself (a "
			    "recursive alias expands without end)");
	assert_int_equal(load_text("a: &a {x: 1, y: *a}\n", buf, sizeof(buf)), -EINVAL);
	assert_non_null(strstr(buf, "a.y: this node contains an alias of itself"));
	/* 40 levels written out, referenced from 40 levels deep: 80 when expanded */
	n += (size_t)snprintf(text + n, sizeof(text) - n, "a: &a ");
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "[");
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "]");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "\nb: ");
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "[");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "*a");
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "]");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "\n");
	assert_int_equal(load_text(text, buf, sizeof(buf)), -EINVAL);
	assert_non_null(strstr(buf, "nesting deeper than 64 levels (aliases included)"));
}

static void test_ycfg_bound_plain_aliases_load(void **state)
{
	char buf[600];

	(void)state;
	assert_int_equal(load_text("x: &x [1, 2, 3]\ny: [*x, *x, *x]\nz: &z {a: 1}\nw: [*z, *z]\n",
				   buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("a load blocked");
}

static void test_ycfg_bound_special_files(void **state)
{
	struct cfgt_dir *t = *state;
	char path[256], buf[600];

	signal(SIGALRM, on_alarm);
	alarm(10);
	snprintf(path, sizeof(path), "%s/fifo.yaml", t->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(load_file(t, "fifo.yaml", buf, sizeof(buf)), -EINVAL);
	assert_string_equal(buf, "fifo.yaml: cannot read: a FIFO (named pipe), not a regular file");
	snprintf(path, sizeof(path), "%s/dir.yaml", t->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(load_file(t, "dir.yaml", buf, sizeof(buf)), -EISDIR);
	assert_string_equal(buf, "dir.yaml: cannot read: a directory, not a regular file");
	cfgt_put(t, "zero.yaml", "name: z\ninclude: /dev/zero\n");
	assert_int_equal(load_file(t, "zero.yaml", buf, sizeof(buf)), -EINVAL);
	assert_string_equal(buf, "zero.yaml:2:10: include: cannot read include '/dev/zero': "
			    "a character device, not a regular file");
	cfgt_put(t, "pipe.yaml", "name: z\ninclude: [fifo.yaml]\n");
	assert_int_equal(load_file(t, "pipe.yaml", buf, sizeof(buf)), -EINVAL);
	assert_non_null(strstr(buf, "pipe.yaml:2:11: include[0]: cannot read include"));
	assert_non_null(strstr(buf, "fifo.yaml': a FIFO (named pipe), not a regular file"));
	alarm(0);
}

static void test_ycfg_bound_size_cap(void **state)
{
	struct cfgt_dir *t = *state;
	char path[256], buf[600], *text = NULL;
	size_t len = 0;
	int fd;

	cfgt_put(t, "big.yaml", "name: big\n");
	snprintf(path, sizeof(path), "%s/big.yaml", t->dir);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)YCFG_MAX_FILE_BYTES + 1), 0); /* sparse */
	close(fd);
	assert_int_equal(load_file(t, "big.yaml", buf, sizeof(buf)), -EFBIG);
	assert_string_equal(buf, "big.yaml: cannot read: larger than 16 MiB, the most a "
			    "configuration file may hold");
	assert_int_equal(ycfg_read_file(path, 8, &text, &len, buf, sizeof(buf)), -EFBIG);
	assert_null(text);
	assert_string_equal(buf, "larger than 8 bytes, the most a configuration file may hold");
	cfgt_put(t, "ok.yaml", "12345678");
	snprintf(path, sizeof(path), "%s/ok.yaml", t->dir);
	assert_int_equal(ycfg_read_file(path, 8, &text, &len, buf, sizeof(buf)), 0);
	assert_int_equal(len, 8);
	assert_string_equal(text, "12345678");
	free(text);
}

static void test_ycfg_bound_file_count(void **state)
{
	struct cfgt_dir *t = *state;
	char text[4096], buf[600];
	size_t n = 0;

	/* every file of a list of 70 is loaded once per mention: 71 files in one document */
	cfgt_put(t, "leaf.yaml", "{}\n");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "include: [");
	for (int i = 0; i < 70; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%sleaf.yaml", i ? ", " : "");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "]\n");
	cfgt_put(t, "fan.yaml", text);
	assert_int_equal(load_file(t, "fan.yaml", buf, sizeof(buf)), -EINVAL);
	assert_non_null(strstr(buf, "fan.yaml:1:"));
	assert_non_null(strstr(buf, "include[63]: more than 64 files in one document"));
}

static int tmp_setup(void **state)
{
	return cfgt_setup(state, "scalacn-ycfg-bound");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ycfg_bound_alias_bomb_sequences),
		cmocka_unit_test(test_ycfg_bound_alias_bomb_mappings),
		cmocka_unit_test(test_ycfg_bound_recursive_and_deep),
		cmocka_unit_test(test_ycfg_bound_plain_aliases_load),
		cmocka_unit_test_setup_teardown(test_ycfg_bound_special_files, tmp_setup,
						cfgt_teardown),
		cmocka_unit_test_setup_teardown(test_ycfg_bound_size_cap, tmp_setup, cfgt_teardown),
		cmocka_unit_test_setup_teardown(test_ycfg_bound_file_count, tmp_setup,
						cfgt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
