/* SPDX-License-Identifier: MIT */
/*
 * test-hostile-input: hostile configuration through the real binary. An alias bomb plan and
 * a plan including /dev/zero exit 2 within a second with file:line:column from `enumerate`,
 * `run` and `run --dry-run`; a FIFO given as a plan is refused without blocking; and
 * `enumerate` refuses what `run` refuses (fixed masks above the fixed flows, a `testbed:`
 * file that does not exist) with the same message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>

#include "e2e_util.h"

struct ctx {
	char dir[64], path[256];
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	snprintf(c->dir, sizeof(c->dir), "%s", e2e_tmpdir());
	*state = c;
	return 0;
}

static const char *put(struct ctx *c, const char *name, const char *text)
{
	snprintf(c->path, sizeof(c->path), "%s/%s", c->dir, name);
	e2e_write_file(c->path, text);
	return c->path;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run `scalacn CMD PLAN [EXTRA] --db DIR/x.db` (enumerate takes no --db): exit 2 within a
 * second, one line on stderr holding WANT. */
static void expect_refused(struct ctx *c, const char *cmd, const char *plan, const char *extra,
			   const char *want)
{
	char db[256];
	const char *args[8] = { cmd, plan };
	size_t n = 2;
	struct e2e_run r;
	double t0;

	snprintf(db, sizeof(db), "%s/x.db", c->dir);
	if (extra)
		args[n++] = extra;
	if (strcmp(cmd, "enumerate")) {
		args[n++] = "--db";
		args[n++] = db;
	}
	args[n] = NULL;
	t0 = now_s();
	assert_int_equal(e2e_scalacn_run(&r, args), 2);
	assert_true(now_s() - t0 < 1.0);
	if (!strstr(r.err, want))
		fail_msg("%s %s: stderr '%s' lacks '%s'", cmd, plan, r.err, want);
	e2e_run_free(&r);
}

static void expect_everywhere(struct ctx *c, const char *plan, const char *want)
{
	expect_refused(c, "enumerate", plan, NULL, want);
	expect_refused(c, "run", plan, NULL, want);
	expect_refused(c, "run", plan, "--dry-run", want);
}

static void test_hostile_alias_bomb(void **state)
{
	struct ctx *c = *state;
	char text[1024], plan[256];

	snprintf(text, sizeof(text),
		 "name: bomb\n"
		 "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
		 "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
		 "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
		 "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
		 "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n");
	assert_true(strlen(text) < 430);
	snprintf(plan, sizeof(plan), "%s", put(c, "bomb.yaml", text));
	expect_everywhere(c, plan, "bomb.yaml:7:4: f: aliases expand this node to more than "
			  "100000 nodes");
}

static void test_hostile_special_files(void **state)
{
	struct ctx *c = *state;
	char plan[256], fifo[256];

	snprintf(plan, sizeof(plan), "%s", put(c, "zero.yaml", "name: z\ninclude: /dev/zero\n"));
	expect_everywhere(c, plan, "zero.yaml:2:10: include: cannot read include '/dev/zero': a "
			  "character device, not a regular file");
	snprintf(fifo, sizeof(fifo), "%s/fifo.yaml", c->dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	expect_everywhere(c, fifo, "fifo.yaml: cannot read: a FIFO (named pipe), not a regular "
			  "file");
	expect_everywhere(c, c->dir, ": cannot read: a directory, not a regular file");
}

static void test_hostile_enumerate_checks_as_run(void **state)
{
	struct ctx *c = *state;
	char text[1024], plan[256];

	snprintf(text, sizeof(text), "name: m\ntestbed: %s\nfixed:\n  flows: 4\n"
		 "  server.decap_masks: 64\n", e2e_src("examples/testbeds/sim-cx6.yaml"));
	snprintf(plan, sizeof(plan), "%s", put(c, "masks.yaml", text));
	expect_everywhere(c, plan, "masks.yaml:5:23: fixed.server.decap_masks: 64 masks need at "
			  "least 64 flows, but flows = 4 at the baseline point");
	snprintf(plan, sizeof(plan), "%s", put(c, "tb.yaml", "name: t\ntestbed: nowhere.yaml\n"));
	expect_everywhere(c, plan, "nowhere.yaml: cannot read: No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hostile_alias_bomb, setup, e2e_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_special_files, setup, e2e_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_enumerate_checks_as_run, setup,
						e2e_ctx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
