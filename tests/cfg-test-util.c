/* SPDX-License-Identifier: MIT */
/*
 * cfg-test-util: temp directory fixture and dir-stripped error text for the config-loading
 * tests (see cfg-test-util.h). Assumes a POSIX system with /tmp and `rm` for the teardown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cfg-test-util.h"

int cfgt_setup(void **state, const char *prefix)
{
	struct cfgt_dir *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "/tmp/%s-XXXXXX", prefix);
	if (!mkdtemp(t->dir)) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

int cfgt_teardown(void **state)
{
	struct cfgt_dir *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		return -1;
	free(t);
	return 0;
}

void cfgt_put(const struct cfgt_dir *t, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

void cfgt_error_text(const struct cfgt_dir *t, const struct scn_error *err, char *buf,
		     size_t len)
{
	char full[800];
	size_t dl = strlen(t->dir);
	char *o = buf;

	scn_error_format(err, full, sizeof(full));
	for (const char *q = full; *q && (size_t)(o - buf) + 1 < len;) {
		if (!strncmp(q, t->dir, dl) && q[dl] == '/')
			q += dl + 1;
		else
			*o++ = *q++;
	}
	*o = '\0';
}
