/* SPDX-License-Identifier: MIT */
/*
 * hx_commands: the table of `scalacn` commands, in the order `scalacn --help` lists them.
 * Each command's definition (summary, operands, option table, help text, handler) lives in
 * its cmd_*.c beside the code that reads those options; adding a command is one struct
 * there and one line here (docs/design.md, "Commands and options").
 */
#include <string.h>

#include "harness/cli/hx_cli.h"

const struct hx_command *const hx_commands[] = {
	&hx_def_run,
	&hx_def_enumerate,
	&hx_def_measure,
	&hx_def_dimensions,
	&hx_def_status,
	&hx_def_trials,
	&hx_def_export_csv,
	&hx_def_analyze,
	&hx_def_causes,
	&hx_def_explain,
	&hx_def_compare,
	&hx_def_fit,
	&hx_def_models,
	&hx_def_predict,
	&hx_def_export,
	&hx_def_keygen,
	&hx_def_gen_trace,
	&hx_def_replay,
	&hx_def_perftest,
	&hx_def_report,
	&hx_def_diff,
	NULL,
};

const struct hx_command *hx_command_find(const char *name)
{
	for (const struct hx_command *const *c = hx_commands; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}
