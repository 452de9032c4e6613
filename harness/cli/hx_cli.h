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

#include <getopt.h>
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

/* One option of a command. The command's table of these (hx_command.opts) is the only place
 * an option is declared: it drives parsing (hx_opt_next), `--help`, the man page and the bash
 * completion (hx_help.c). */
struct hx_opt {
	const char *name;     /* long name without "--" */
	int key;              /* what hx_opt_next returns for it (the command's switch case) */
	const char *arg;      /* the argument's name in help ("FILE"); NULL: a flag */
	const char *help;     /* what it does; "\n" starts a continuation line */
	const char *complete; /* the argument's completion: HX_COMPLETE_FILE, or a
			       * space-separated list of words; NULL: none */
	char short_name;      /* 0, or its one-letter form ('o' for -o) */
};
#define HX_COMPLETE_FILE "@file"
#define HX_OPT_END { NULL, 0, NULL, NULL, NULL, 0 }

struct hx_command {
	const char *name;
	const char *summary;  /* one line for `scalacn --help` */
	const char *operands; /* what follows the options in the synopsis ("PLAN"), or NULL */
	const struct hx_opt *opts; /* ended by HX_OPT_END */
	const char *text;     /* description paragraphs between synopsis and options */
	const char *notes;    /* after the options (exit codes, examples), or NULL */
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
};

/* The command table (NULL-terminated; hx_commands.c). Each command's struct lives in its
 * cmd_*.c beside the code that handles its options. */
extern const struct hx_command *const hx_commands[];
const struct hx_command *hx_command_find(const char *name);

/* Parsing ARGV for command CMD by its option table (hx_opt.c):
 *	struct hx_args a = HX_ARGS("run", argc, argv);
 *	while ((c = hx_opt_next(&a)) != -1) switch (c) { case 't': ... optarg ... }
 * hx_opt_next returns an option's key, -1 after the last option (optind is then the first
 * operand) or '?' on an unknown or incomplete option (then return hx_bad_option). */
#define HX_MAX_OPTS 48
struct hx_args {
	const char *cmd;
	int argc;
	char **argv;
	const struct hx_command *c; /* set by the first hx_opt_next */
	char shorts[2 * HX_MAX_OPTS + 2];
	struct option longs[HX_MAX_OPTS + 1];
};
#define HX_ARGS(cmd_, argc_, argv_) { .cmd = (cmd_), .argc = (argc_), .argv = (argv_) }
int hx_opt_next(struct hx_args *a);
/* Help (hx_help.c): the command's usage on OUT; the man page's COMMANDS section in scdoc;
 * the bash completion script. */
void hx_command_usage(const struct hx_command *c, FILE *out);
void hx_commands_scdoc(FILE *out);
void hx_commands_bash_completion(FILE *out);

/* Print "scalacn: <formatted error>" on stderr and return the exit code for its class. */
int hx_report_error(const struct scn_error *e);
/* Exit code for an error class (config/usage -> 2, device/timeout/transient -> 3, ...). */
int hx_exit_for(const struct scn_error *e);
/* One-line usage error for command CMD: "scalacn CMD: MESSAGE (see 'scalacn help CMD')". */
int hx_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* After hx_opt_next returned '?': "unknown or incomplete option 'ARGV[optind - 1]'"; for
 * --json of a command without a JSON form: "--json: CMD has no JSON output". */
int hx_bad_option(const char *cmd, char **argv);
/* After getopt_long: 0 when it consumed all of ARGV, else "unexpected argument 'ARG'". */
int hx_no_operands(const char *cmd, int argc, char **argv);

/* The JSON contract (hx_json.c, docs/json.md): a document is an object with "scalacn_version"
 * and "command"; hx_json_num gives null for a number not measured (NaN, inf); hx_json_emit
 * prints DOC on OUT and releases it. */
struct json_object;
struct json_object *hx_json_doc(const char *command);
struct json_object *hx_json_num(double v);
void hx_json_emit(struct json_object *doc, FILE *out);
/* A stored comma-separated list ("a,b") as a JSON array of strings, or (IDS) of the
 * distinct integers in the order stored. */
struct json_object *hx_json_list(const char *list, bool ids);

/* The legend under every table of causes (classes and confidence). */
#define HX_CAUSE_LEGEND                                                                         \
	"class: S1 rules fell back to software, S4 rule churn, S6 masks or flows walked per\n"    \
	"packet, S8 timeouts, unclassified otherwise; confidence: the share of removal orders\n"  \
	"that kept the cause (1.00 = every order); trials: distinct trials of the evidence"

/* V (a count) with thousands separators: "12,345" (tables; JSON keeps the number); from
 * 10^15 on, or not finite: "1.234e+15". */
const char *hx_thousands(double v, char *buf, size_t len);

/* Room for one more element in *ARR (of N elements of SIZE bytes, *CAP allocated): doubles
 * *CAP when full (from 16). Returns 0, or -ENOMEM with *ARR unchanged. */
int hx_grow(void **arr, size_t size, unsigned long n, unsigned long *cap);

/* PATH as shown to people and programs: absolute, without "." and ".." (realpath), or as
 * given when it cannot be resolved. Returns BUF. */
const char *hx_path_display(const char *path, char *buf, size_t len);

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

/* Commands: each one's definition and handler in its cmd_*.c. */
extern const struct hx_command hx_def_run, hx_def_enumerate, hx_def_measure, hx_def_dimensions,
	hx_def_status, hx_def_trials, hx_def_export_csv, hx_def_analyze, hx_def_causes,
	hx_def_explain, hx_def_compare, hx_def_fit, hx_def_models, hx_def_predict, hx_def_export,
	hx_def_keygen, hx_def_gen_trace, hx_def_replay, hx_def_perftest, hx_def_report, hx_def_diff;
int hx_cmd_enumerate(int argc, char **argv);
int hx_cmd_measure(int argc, char **argv);
int hx_cmd_dimensions(int argc, char **argv); /* cmd_dimensions.c */
int hx_cmd_run(int argc, char **argv);
int hx_cmd_trials(int argc, char **argv);     /* cmd_trials.c */
int hx_cmd_status(int argc, char **argv);     /* cmd_store.c */
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
