/* SPDX-License-Identifier: MIT */
/*
 * ptdriver-util: what the perftest driver's tests share (test-ptdriver.c,
 * test-ptdriver-measure.c): paths under the source tree and the fixtures, whole files, a
 * fixture's captured output, and a command's standard output. Each fails the running cmocka
 * test on error; returned strings are malloc'd.
 */
#ifndef PTDRIVER_UTIL_H
#define PTDRIVER_UTIL_H

#include <stddef.h>

char *src_path(const char *rel);      /* $SCALACN_SOURCE_ROOT/REL */
char *fixture(const char *rel);       /* $SCALACN_FIXTURES/REL, which must be readable */
char *slurp(const char *path, size_t *len);
char *fixture_body(const char *rel);  /* after the "$ command" line, before "[rc=N]" */
/* TEXT written to /tmp/ptdrv-PID-NAME; its path. */
char *write_tmp(const char *name, const char *text);
/* Run ARGV (NULL-terminated, stdin IN or none) and return its stdout; its exit code in
 * *CODE, its length in *LEN (may be NULL). */
char *run_out(char *const *argv, const char *in, int *code, size_t *len);

#endif
