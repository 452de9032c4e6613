/* SPDX-License-Identifier: MIT */
/*
 * e2e_util: process and file helpers for end-to-end tests (see e2e_util.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "e2e_util.h"

const char *e2e_scalacn(void)
{
	static char path[4096];
	const char *b = getenv("SCALACN_BUILD_ROOT");

	snprintf(path, sizeof(path), "%s/scalacn", b ? b : ".");
	return path;
}

const char *e2e_src(const char *rel)
{
	static char path[4][4096];
	static int next;
	const char *s = getenv("SCALACN_SOURCE_ROOT");
	char *p = path[next++ % 4];

	snprintf(p, 4096, "%s/%s", s ? s : ".", rel);
	return p;
}

const char *e2e_tmpdir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/scalacn-e2e-XXXXXX");
	return mkdtemp(dir);
}

void e2e_rmdir(const char *dir)
{
	char cmd[256];

	if (!dir || strncmp(dir, "/tmp/scalacn-e2e-", 17))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

int e2e_ctx_teardown(void **state)
{
	char *dir = *state; /* a context's first member: its directory's path */

	e2e_rmdir(dir);
	free(*state);
	return 0;
}

int e2e_dir_setup(void **state)
{
	struct e2e_dir_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	snprintf(c->dir, sizeof(c->dir), "%s", e2e_tmpdir());
	*state = c;
	return 0;
}

pid_t e2e_scalacn_spawn(const char *const *args, const char *out, const char *err)
{
	const char *argv[64];
	size_t n = 0;
	pid_t pid;

	argv[n++] = e2e_scalacn();
	while (args[n - 1] && n < 63) {
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

int e2e_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

char *e2e_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int e2e_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

int e2e_scalacn_run(struct e2e_run *r, const char *const *args)
{
	char out[] = "/tmp/scalacn-e2e-out-XXXXXX", err[] = "/tmp/scalacn-e2e-err-XXXXXX";
	int fo = mkstemp(out), fe = mkstemp(err);

	close(fo);
	close(fe);
	r->status = e2e_wait(e2e_scalacn_spawn(args, out, err));
	r->out = e2e_read_file(out);
	r->err = e2e_read_file(err);
	unlink(out);
	unlink(err);
	return r->status;
}

void e2e_run_free(struct e2e_run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

long e2e_sql_long(const char *db, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	long n = -1;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

long e2e_trial_count(const char *db)
{
	return e2e_sql_long(db, "SELECT count(*) FROM trials");
}

void e2e_write_paced_inputs(const char *dir, const char *name, double pace, char *plan,
			    size_t plan_len, char *testbed, size_t tb_len)
{
	char text[2048];

	snprintf(testbed, tb_len, "%s/tb.yaml", dir);
	snprintf(text, sizeof(text), "kind: sim\nprofile: %s\npace: %g\n",
		 e2e_src("testbeds/sim/profiles/cx6.yaml"), pace);
	e2e_write_file(testbed, text);
	snprintf(plan, plan_len, "%s/plan.yaml", dir);
	snprintf(text, sizeof(text),
		 "name: %s\nseed: 7\nrepeats: 3\nverbs: [write]\nmetrics: [bw]\n"
		 "testbed: tb.yaml\n"
		 "fixed: {msg_size: 65536, mtu: 1024, client.encap_masks: 1,\n"
		 "        client.decap_masks: 1, server.encap_masks: 1}\n"
		 "dimensions:\n"
		 "  - name: flows\n    sweep: {from: 1024, to: 16384, ratio: 2}\n    neutral: 256\n"
		 "  - name: server.decap_masks\n    levels: [2, 4, 8, 16, 32, 64]\n    neutral: 1\n"
		 "criteria:\n"
		 "  - name: write bw at 8K flows\n    verb: write\n    metric: bw\n"
		 "    at: {flows: 8192}\n    min_ratio: 0.9\n", name);
	e2e_write_file(plan, text);
}
