/* SPDX-License-Identifier: MIT */
/*
 * e2e_util: helpers for end-to-end tests that run the real `scalacn` binary: spawn with
 * captured stdout/stderr, wait with a deadline, temporary directories, file reading.
 * Paths come from the environment meson sets (SCALACN_BUILD_ROOT, SCALACN_SOURCE_ROOT).
 */
#ifndef E2E_UTIL_H
#define E2E_UTIL_H

#include <stddef.h>
#include <sys/types.h>

struct e2e_run {
	int status;      /* exit code, or 128 + signal */
	char *out, *err; /* captured output, NUL-terminated, owned: e2e_run_free */
};

/* Path of the scalacn binary and of a file in the source tree (static buffers). */
const char *e2e_scalacn(void);
const char *e2e_src(const char *rel);
/* A fresh temporary directory (static buffer; removed by e2e_rmdir). */
const char *e2e_tmpdir(void);
void e2e_rmdir(const char *dir);
/* cmocka teardown of a context (*STATE, calloc'd) whose first member is the path of its
 * e2e_tmpdir (a char array): the directory is removed and the context freed. */
int e2e_ctx_teardown(void **state);
/* A context that is only its temporary directory; e2e_dir_setup makes one (*STATE, a fresh
 * e2e_tmpdir), e2e_ctx_teardown removes it. */
struct e2e_dir_ctx {
	char dir[512];
};
int e2e_dir_setup(void **state);

/* Run scalacn with ARGS (NULL-terminated, without argv[0]) in the current directory. */
int e2e_scalacn_run(struct e2e_run *r, const char *const *args);
/* Start scalacn in the background; stdout/stderr go to files OUT and ERR. Returns the pid. */
pid_t e2e_scalacn_spawn(const char *const *args, const char *out, const char *err);
/* Wait for PID, returning its exit code or 128 + signal. */
int e2e_wait(pid_t pid);
void e2e_run_free(struct e2e_run *r);
/* Read a whole file (owned, NUL-terminated) or NULL. */
char *e2e_read_file(const char *path);
int e2e_write_file(const char *path, const char *text);
/* The e2e campaign inputs in DIR: a CX-6 testbed paced by PACE real seconds per
 * testbed-second (tb.yaml), and a plan NAME of the quickstart's shape (walls in flows and
 * decap masks, a failing criterion: exit 1) that names it (plan.yaml). Paths into PLAN and
 * TESTBED. */
void e2e_write_paced_inputs(const char *dir, const char *name, double pace, char *plan,
			    size_t plan_len, char *testbed, size_t tb_len);
/* The first column of the first row of SQL on DB (opened read-only), or -1. */
long e2e_sql_long(const char *db, const char *sql);
/* Count lines of `sqlite3 DB "select count(*) from trials"` via the store library. */
long e2e_trial_count(const char *db);

#endif
