/* SPDX-License-Identifier: MIT */
/*
 * ag_exec: running tc (no shell: argv as given) and collecting what it prints.
 */
#ifndef AG_EXEC_H
#define AG_EXEC_H

#include <stddef.h>

/* Run ARGV[0] (searched in PATH when it has no '/') with ARGV, stdin /dev/null; its stdout
 * into a malloc'ed NUL-terminated *OUT (*LEN bytes; at most 64 MiB), its stderr's first
 * line into ERR on failure. Returns 0 when it exited 0, else -EIO (ERR: "tc exited 2: ..."),
 * or a negative errno when it could not run. */
int ag_exec_capture(char *const argv[], char **out, size_t *len, char *err, size_t errlen);

#endif
