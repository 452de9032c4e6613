/* SPDX-License-Identifier: MIT */
/*
 * test-readonly-db: read-only commands open the database read-only, through the real
 * binary. A campaign's database (with fitted models) is put on a read-only bind mount in a
 * private mount namespace (unshare -m as root, unshare -rm otherwise; skipped where neither
 * is allowed); status, trials, causes, export-csv, models, predict and export then work, and
 * a writer's error says what is wrong instead of "run a campaign first".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e_util.h"

struct ctx {
	char dir[64], db[256], plan[256];
	const char *unshare; /* "unshare -m" or "unshare -rm" */
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	snprintf(c->dir, sizeof(c->dir), "%s", e2e_tmpdir());
	snprintf(c->db, sizeof(c->db), "%s/ro/run.db", c->dir);
	*state = c;
	return 0;
}

/* Run `scalacn ARGS` with DIR/ro mounted read-only; stdout and stderr into *OUT, *ERR. */
static int run_ro(struct ctx *c, const char *args, char **out, char **err)
{
	char cmd[2048], fo[300], fe[300];
	int st;

	snprintf(fo, sizeof(fo), "%s/out.txt", c->dir);
	snprintf(fe, sizeof(fe), "%s/err.txt", c->dir);
	snprintf(cmd, sizeof(cmd),
		 "%s sh -c 'mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\" \"$0\" "
		 "&& ! touch \"$0/probe\" 2>/dev/null && exec \"$@\"' '%s/ro' '%s' %s >'%s' 2>'%s'",
		 c->unshare, c->dir, e2e_scalacn(), args, fo, fe);
	st = system(cmd);
	*out = e2e_read_file(fo);
	*err = e2e_read_file(fe);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool can_mount_ro(struct ctx *c)
{
	static const char *const ways[] = { "unshare -m", "unshare -rm" };
	char cmd[512], dir[300];

	snprintf(dir, sizeof(dir), "%s/ro", c->dir);
	for (size_t i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "%s sh -c 'mount --bind \"$0\" \"$0\" && mount -o "
			 "remount,bind,ro \"$0\" \"$0\" && ! touch \"$0/probe\"' '%s' 2>/dev/null",
			 ways[i], dir);
		if (system(cmd) == 0) {
			c->unshare = ways[i];
			return true;
		}
	}
	return false;
}

static void make_database(struct ctx *c)
{
	char dir[300], text[1024];
	const char *run[] = { "run", c->plan, "--db", c->db, "--quiet", NULL };
	const char *fit[] = { "fit", "--db", c->db, NULL };
	struct e2e_run r;

	snprintf(dir, sizeof(dir), "%s/ro", c->dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(c->plan, sizeof(c->plan), "%s/plan.yaml", c->dir);
	snprintf(text, sizeof(text),
		 "name: ro\nseed: 3\nrepeats: 2\ntestbed: %s\nfixed: {flows: 256}\n"
		 "dimensions:\n  - name: server.decap_masks\n    levels: [2, 8, 32]\n"
		 "    neutral: 1\n  - name: client.decap_masks\n    levels: [2, 8, 32]\n"
		 "    neutral: 1\n", e2e_src("examples/testbeds/sim-cx6.yaml"));
	e2e_write_file(c->plan, text);
	r.status = e2e_scalacn_run(&r, run);
	assert_true(r.status == 0 || r.status == 1);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, fit), 0);
	e2e_run_free(&r);
}

static void expect_ok(struct ctx *c, const char *args, const char *want)
{
	char *out = NULL, *err = NULL;
	int rc = run_ro(c, args, &out, &err);

	if (rc != 0 || !out || !strstr(out, want))
		fail_msg("scalacn %s on a read-only mount: exit %d, stdout '%s', stderr '%s'", args,
			 rc, out ? out : "", err ? err : "");
	free(out);
	free(err);
}

static void test_readonly_db_read_commands_work(void **state)
{
	struct ctx *c = *state;
	char args[600], *out = NULL, *err = NULL;

	make_database(c);
	if (!can_mount_ro(c))
		skip();
	snprintf(args, sizeof(args), "status --db '%s'", c->db);
	expect_ok(c, args, "done");
	snprintf(args, sizeof(args), "trials --db '%s' --json --limit 3", c->db);
	expect_ok(c, args, "\"status\":\"ok\"");
	snprintf(args, sizeof(args), "causes --db '%s'", c->db);
	expect_ok(c, args, "Causes of campaign 1");
	snprintf(args, sizeof(args), "export-csv --db '%s'", c->db);
	expect_ok(c, args, "trial_id,campaign,key");
	snprintf(args, sizeof(args), "models --db '%s'", c->db);
	expect_ok(c, args, "ConnectX-6");
	snprintf(args, sizeof(args), "predict --db '%s' --model 1 --masks-local 4 --masks-remote 4", c->db);
	expect_ok(c, args, "");
	snprintf(args, sizeof(args), "export --db '%s' --rnic 'ConnectX-6 Dx (simulated)' "
		 "-o '%s/cx6.model'", c->db, c->dir);
	expect_ok(c, args, "");
	snprintf(args, sizeof(args), "%s/cx6.model", c->dir);
	assert_int_equal(access(args, R_OK), 0);
	/* a writer: refused for what it is, not "run a campaign first" */
	snprintf(args, sizeof(args), "run '%s' --db '%s'", c->plan, c->db);
	assert_int_equal(run_ro(c, args, &out, &err), 2);
	assert_null(strstr(err, "run a campaign first"));
	assert_non_null(strstr(err, "Read-only file system"));
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_readonly_db_read_commands_work, setup,
						e2e_ctx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
