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
/* After getopt_long returned '?' or ':': "unknown or incomplete option 'ARGV[optind - 1]'". */
int hx_bad_option(const char *cmd, char **argv);
/* After getopt_long: 0 when it consumed all of ARGV, else "unexpected argument 'ARG'". */
int hx_no_operands(const char *cmd, int argc, char **argv);

/* Where commands look for the results store when --db is not given. */
#define HX_DEFAULT_DB "scalacn.db"

struct res_db;
/* Parse ARG, the value of option OPT (e.g. "--campaign"), as a row id >= 1 into *OUT.
 * Otherwise a usage error of CMD "OPT takes a WHAT id, not 'ARG'": returns its exit code. */
int hx_parse_id(const char *cmd, const char *opt, const char *what, const char *arg,
		long long *out);
/* Open the existing results store at PATH into *DB (the caller closes it with res_close).
 * Returns 0, or an exit code after printing "scalacn: no results database at PATH (run a
 * campaign first, or give --db)" when there is none, or the store's error otherwise. */
int hx_open_store(const char *path, struct res_db **db);
/* The same, read-only (res_open_ro), for commands that only read: a database on a read-only
 * file or mount works. */
int hx_open_store_ro(const char *path, struct res_db **db);

struct res_campaign;
/* Print "scalacn CMD: warning: ..." on stderr for each of C's plan and testbed files that
 * changed since the campaign ran (hx_provenance_changed). */
void hx_provenance_warn(const char *cmd, const struct res_campaign *c);

/* The campaign ID of DB (<= 0: the newest) into *C (cmd_causal.c). */
int hx_find_campaign(struct res_db *db, long long id, struct res_campaign *c,
		     struct scn_error *err);
/* VALUE of "KEY=VALUE" in a "; "-separated detail text (a stored cause's detail), into BUF. */
const char *hx_detail_get(const char *detail, const char *key, char *buf, size_t len);

/* Commands (each in its own cmd_*.c). */
int hx_cmd_enumerate(int argc, char **argv);
int hx_cmd_measure(int argc, char **argv);
int hx_cmd_dimensions(int argc, char **argv);
int hx_cmd_run(int argc, char **argv);
int hx_cmd_trials(int argc, char **argv);
int hx_cmd_status(int argc, char **argv);
int hx_cmd_export_csv(int argc, char **argv);
int hx_cmd_perftest(int argc, char **argv); /* cmd_perftest.c */
int hx_cmd_analyze(int argc, char **argv);  /* cmd_causal.c */
int hx_cmd_causes(int argc, char **argv);
int hx_cmd_explain(int argc, char **argv);  /* cmd_explain.c */
int hx_cmd_compare(int argc, char **argv);  /* cmd_compare.c */
int hx_cmd_fit(int argc, char **argv);      /* cmd_fit.c */
int hx_cmd_models(int argc, char **argv);
int hx_cmd_predict(int argc, char **argv);
int hx_cmd_export(int argc, char **argv);
int hx_cmd_keygen(int argc, char **argv);   /* cmd_keygen.c */
int hx_cmd_gen_trace(int argc, char **argv); /* cmd_replay.c */
int hx_cmd_replay(int argc, char **argv);
int hx_cmd_report(int argc, char **argv);   /* cmd_report.c */
int hx_cmd_diff(int argc, char **argv);     /* cmd_diff.c */

#endif
