/* SPDX-License-Identifier: MIT */
/*
 * hx_cli: the command table of the `scalacn` program and the helpers every command shares
 * (exit codes, error printing, option parsing conventions).
 *
 * Only the CLI talks to the user: commands print results on stdout, diagnostics on stderr,
 * and return one of the exit codes below. Libraries fill struct scn_error instead.
 */
#ifndef HX_CLI_H
#define HX_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "common/scn_error.h"

enum hx_exit {
	HX_EXIT_OK = 0,      /* qualified / success */
	HX_EXIT_FINDING = 1, /* a criterion failed or a wall was found in the qualified range */
	HX_EXIT_USAGE = 2,   /* usage or configuration error */
	HX_EXIT_TESTBED = 3, /* testbed error */
	HX_EXIT_INTERRUPTED = 130,
};

struct hx_command {
	const char *name;
	const char *summary; /* one line for `scalacn --help` */
	const char *usage;   /* full text for `scalacn help NAME` */
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
};

/* The command table (NULL-terminated by name). */
extern const struct hx_command hx_commands[];
const struct hx_command *hx_command_find(const char *name);

/* Print "scalacn: <formatted error>" on stderr and return the exit code for its class. */
int hx_report_error(const struct scn_error *e);
/* Exit code for an error class (config/usage -> 2, device/timeout/transient -> 3, ...). */
int hx_exit_for(const struct scn_error *e);
/* One-line usage error for command CMD: "scalacn CMD: MESSAGE (see 'scalacn help CMD')". */
int hx_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Commands (each in its own cmd_*.c). */
int hx_cmd_enumerate(int argc, char **argv);
int hx_cmd_measure(int argc, char **argv);
int hx_cmd_dimensions(int argc, char **argv);
int hx_cmd_run(int argc, char **argv);
int hx_cmd_trials(int argc, char **argv);
int hx_cmd_status(int argc, char **argv);
int hx_cmd_export_csv(int argc, char **argv);
int hx_cmd_perftest(int argc, char **argv); /* cmd_perftest.c */

#endif
