/* SPDX-License-Identifier: MIT */
/*
 * report-util: what the report and diff tests share: a quickstart campaign into a database,
 * a text from SQL, a shell command's output, and the report page read back.
 */
#ifndef REPORT_UTIL_H
#define REPORT_UTIL_H

#include <stddef.h>

/* Run the quickstart plan into DB (TESTBED NULL: the plan's CX-6); returns scalacn's exit
 * status (1: the quickstart's failing criterion). */
int rpt_quickstart(const char *db, const char *testbed);
/* The first column of the first row of SQL on DB as text into BUF ("" none). */
const char *rpt_sql_text(const char *db, const char *sql, char *buf, size_t len);
/* Run scalacn with ARGS (NULL-terminated, no argv[0]); its stdout into *OUT (owned) when OUT
 * is not NULL. Exit status. */
int rpt_scalacn(const char *const *args, char **out);
/* Run the shell command CMD; its stdout into *OUT (owned, may be NULL). Exit status. */
int rpt_shell(const char *cmd, char **out);
/* Seconds since an arbitrary start (CLOCK_MONOTONIC). */
double rpt_now(void);

#endif
