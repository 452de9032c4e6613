/* SPDX-License-Identifier: MIT */
/*
 * scn_error: the one error record every scalacn library fills in.
 *
 * Conventions (DESIGN.md): functions return 0 or a negative errno; the details go here.
 * Configuration errors also carry file, line, column (1-based; 0 = unknown) and the key path
 * ("plan.dimensions[2].levels"). Library code never prints; the CLI formats the record with
 * scn_error_format(): "file:line:column: key.path: message".
 *
 * The struct is a plain value owned by the caller (usually on the stack). No allocation.
 */
#ifndef SCN_ERROR_H
#define SCN_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/* Error classes: what the caller should do about it. */
enum scn_errclass {
	SCN_ERR_NONE = 0,
	SCN_ERR_CONFIG,    /* bad input file or value: fix the input (CLI exit 2) */
	SCN_ERR_USAGE,     /* bad command line (CLI exit 2) */
	SCN_ERR_TRANSIENT, /* worth retrying (testbed) */
	SCN_ERR_DEVICE,    /* device missing / down: stop (CLI exit 3) */
	SCN_ERR_TIMEOUT,   /* a deadline expired (testbed) */
	SCN_ERR_STORE,     /* database problem */
	SCN_ERR_INTERNAL,  /* a bug or resource exhaustion */
};

struct scn_error {
	enum scn_errclass cls;
	int code;           /* negative errno */
	char file[256];     /* empty when not about a file */
	int line, column;   /* 1-based, 0 = unknown */
	char key[160];      /* key path, empty when not about a key */
	char message[512];
};

/* Reset to "no error". Accepts NULL. */
void scn_error_clear(struct scn_error *e);

/* Set class, code and a printf-style message; file/line/key are cleared. Returns code.
 * Accepts e == NULL (then only returns code). */
int scn_error_set(struct scn_error *e, enum scn_errclass cls, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* As scn_error_set, with a position in a configuration file and a key path. */
int scn_error_at(struct scn_error *e, const char *file, int line, int column, const char *key,
		 int code, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* Prepend context to the message ("loading profile: " + old message). Accepts NULL. */
void scn_error_prefix(struct scn_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "file:line:column: key: message" (parts that are unknown are left out). Returns buf. */
const char *scn_error_format(const struct scn_error *e, char *buf, size_t len);

/* Stable lower-case name of a class ("config", "timeout", ...). */
const char *scn_errclass_name(enum scn_errclass cls);

#endif
