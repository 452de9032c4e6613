/* SPDX-License-Identifier: MIT */
/*
 * pt_argv: command lines of the perftest driver as argument vectors, never as shell strings.
 *
 * A struct pt_argv is a growable, NULL-terminated vector of malloc'd strings, ready for
 * execve (pt_spawn.h). The only place a shell ever sees our arguments is a remote shell behind ssh;
 * pt_sh_quote / pt_sh_join quote each argument so that the remote shell passes it through as
 * one word whatever it holds (quotes, ;, $(), newlines). pt_valid_name is the stricter check
 * for names that also end up in file paths and tc/perftest options (devices, netdevs, hosts).
 *
 * Ownership: a pt_argv owns its strings; pt_argv_free (NULL ok) releases them. pt_sh_join
 * returns a malloc'd string the caller free()s. Nothing here prints.
 */
#ifndef PT_ARGV_H
#define PT_ARGV_H

#include <stdbool.h>
#include <stddef.h>

#include "common/scn_error.h"

/* Invariant: n < cap when v != NULL, and v[n] == NULL. */
struct pt_argv {
	char **v;
	size_t n, cap;
};

void pt_argv_init(struct pt_argv *a);
void pt_argv_free(struct pt_argv *a);
/* Append a copy of s. 0 or -ENOMEM. */
int pt_argv_add(struct pt_argv *a, const char *s);
int pt_argv_addf(struct pt_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append every string of the NULL-terminated list. */
int pt_argv_addv(struct pt_argv *a, char *const *list);
/* Append every string argument up to a NULL one: pt_argv_addl(a, "-p", "22", NULL). */
int pt_argv_addl(struct pt_argv *a, ...) __attribute__((sentinel));
/* Append all of src. */
int pt_argv_cat(struct pt_argv *a, const struct pt_argv *src);

/* Quote ARG for a POSIX shell: unchanged when it only holds [A-Za-z0-9_./:=@%+,-] (and is not
 * empty), else in single quotes with ' written as '\''. Writes into BUF like snprintf and
 * returns the length the quoted form needs (without the NUL). */
size_t pt_sh_quote(const char *arg, char *buf, size_t len);
/* The words of ARGV quoted and joined by spaces; malloc'd, NULL on ENOMEM. */
char *pt_sh_join(char *const *argv);

/* A name that goes on command lines and into paths: 1..63 characters of [A-Za-z0-9_.:-],
 * not starting with '-' or '.'. WHAT names it in the error (class config). 0 or -EINVAL. */
int pt_valid_name(const char *what, const char *s, struct scn_error *err);
/* An ssh destination: a host name or address ([A-Za-z0-9_.:-], 1..255, no leading '-'). */
int pt_valid_host(const char *what, const char *s, struct scn_error *err);
/* A file path: no newline or NUL, no leading '-', not empty. */
int pt_valid_path(const char *what, const char *s, struct scn_error *err);

#endif
