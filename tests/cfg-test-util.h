/* SPDX-License-Identifier: MIT */
/*
 * cfg-test-util: what the config-loading tests (test-ycfg, test-plan) share: a temp directory
 * per test (a cmocka setup / teardown pair), writing a file into it, and an error formatted
 * with that directory stripped so expected messages do not depend on where it was made.
 * Include after <cmocka.h> (helpers fail the running test with cmocka asserts).
 *
 * Ownership: cfgt_setup allocates the struct cfgt_dir put in *state; cfgt_teardown removes
 * the directory and frees it.
 */
#ifndef CFG_TEST_UTIL_H
#define CFG_TEST_UTIL_H

#include <stddef.h>

#include "common/scn_error.h"

struct cfgt_dir {
	char dir[64]; /* "/tmp/<prefix>-XXXXXX" once made */
};

/* Make "/tmp/PREFIX-XXXXXX" and put its struct cfgt_dir in *STATE; -1 on failure. */
int cfgt_setup(void **state, const char *prefix);
/* Remove the directory of *STATE with everything in it and free it; -1 on failure. */
int cfgt_teardown(void **state);
/* Write TEXT as file NAME in T's directory. */
void cfgt_put(const struct cfgt_dir *t, const char *name, const char *text);
/* ERR formatted into BUF (LEN bytes, NUL-terminated) with every "<T's dir>/" removed. */
void cfgt_error_text(const struct cfgt_dir *t, const struct scn_error *err, char *buf,
		     size_t len);

#endif
