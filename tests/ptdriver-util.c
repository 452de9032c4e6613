/* SPDX-License-Identifier: MIT */
/*
 * ptdriver-util: the perftest driver tests' shared helpers (ptdriver-util.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testbeds/perftest/pt_proc.h"
#include "tests/ptdriver-util.h"

char *src_path(const char *rel)
{
	const char *root = getenv("SCALACN_SOURCE_ROOT");
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", root ? root : ".", rel) > 0);
	return p;
}

char *fixture(const char *rel)
{
	const char *root = getenv("SCALACN_FIXTURES");
	char *p = NULL;

	if (!root || !*root)
		fail_msg("SCALACN_FIXTURES is not set (run the tests with `meson test`)");
	assert_true(asprintf(&p, "%s/%s", root, rel) > 0);
	if (access(p, R_OK) != 0)
		fail_msg("missing fixture %s: %s (see tests/fixtures/README.md)", p, strerror(errno));
	return p;
}

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

/* Text after the fixture's "$ command" line, without the trailing "[rc=N]" line. */
char *fixture_body(const char *rel)
{
	char *path = fixture(rel), *all = slurp(path, NULL), *body, *rc;

	free(path);
	body = strchr(all, '\n');
	body = strdup(body ? body + 1 : "");
	rc = strstr(body, "[rc=");
	if (rc)
		*rc = '\0';
	free(all);
	return body;
}

/* Run ARGV (NULL-terminated) and return its stdout (malloc'd), exit code in *code. */
char *run_out(char *const *argv, const char *in, int *code, size_t *len)
{
	struct pt_spawn s = { .argv = argv, .stdin_data = in, .stdin_len = in ? strlen(in) : 0 };
	struct scn_error err;
	struct pt_proc *p = NULL;
	char *out;
	size_t n;
	const char *o;

	assert_int_equal(pt_proc_run(&s, 10, &p, &err), 0);
	*code = pt_proc_exit_code(p);
	o = pt_proc_out(p, &n);
	out = malloc(n + 1);
	memcpy(out, o, n);
	out[n] = '\0';
	if (len)
		*len = n;
	pt_proc_free(p);
	return out;
}

char *write_tmp(const char *name, const char *text)
{
	char *path = NULL;
	FILE *f;

	assert_true(asprintf(&path, "/tmp/ptdrv-%d-%s", (int)getpid(), name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}
