/* SPDX-License-Identifier: MIT */
/*
 * main: the `scalacn` program's entry point: global options (--help, --version), the
 * `help COMMAND` command (and `help --scdoc`, `help --bash-completion`: the man page's
 * commands and the completion script, generated from the command table at build time), and
 * dispatch to the command table in hx_commands.c.
 */
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/hx_cli.h"

static void print_overview(FILE *out)
{
	fprintf(out,
		"usage: scalacn [--help] [--version] COMMAND [ARGS]\n"
		"\n"
		"scalacn finds the scalability walls of RDMA NICs in offloaded container networks,\n"
		"names their causes, and fits per-RNIC performance models.\n"
		"\n"
		"Commands:\n");
	for (const struct hx_command *const *c = hx_commands; *c; c++)
		fprintf(out, "  %-13s %s\n", (*c)->name, (*c)->summary);
	fprintf(out, "\nRun 'scalacn COMMAND --help' (or 'scalacn help COMMAND') for a command's options.\n"
		     "Exit codes: 0 ok/qualified, 1 finding (criterion failed, wall or cause in range),\n"
		     "2 usage or configuration error, 3 testbed error, 130 interrupted.\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct hx_command *c;

	if (argc < 2) {
		print_overview(stdout);
		return HX_EXIT_OK;
	}
	if (argc == 2 && !strcmp(argv[1], "--scdoc")) { /* docs/man/meson.build */
		hx_commands_scdoc(stdout);
		return HX_EXIT_OK;
	}
	if (argc == 2 && !strcmp(argv[1], "--bash-completion")) {
		hx_commands_bash_completion(stdout);
		return HX_EXIT_OK;
	}
	if (argc > 2)
		return hx_usage_error("help", "expected one command name, got %d", argc - 1);
	c = hx_command_find(argv[1]);
	if (!c) {
		fprintf(stderr, "scalacn: unknown command '%s' (see 'scalacn --help')\n", argv[1]);
		return HX_EXIT_USAGE;
	}
	hx_command_usage(c, stdout);
	return HX_EXIT_OK;
}

/* `scalacn CMD --help` / `-h` anywhere among CMD's arguments (as git, ip and tc take it):
 * the command's usage on stdout, exit 0. A "--" ends the options. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

/* A campaign builds and drops thousands of rule sets and simulator tables of a few to tens of
 * MiB each. glibc serves blocks that large with fresh mmap()s (and trims the heap top back
 * to the kernel), so every build paid page faults on zeroed pages: a third of a cached
 * qualify-full campaign's CPU. Blocks up to the largest threshold glibc allows come from the
 * heap instead, and freed memory stays in the process for the next build. */
static void keep_freed_memory(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

int main(int argc, char **argv)
{
	const struct hx_command *c;

	keep_freed_memory();

	if (argc < 2) {
		print_overview(stderr);
		return HX_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_overview(stdout);
		return HX_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("scalacn %s\n", SCALACN_VERSION);
		return HX_EXIT_OK;
	}
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	if (argv[1][0] == '-') {
		fprintf(stderr, "scalacn: unknown option '%s' (see 'scalacn --help')\n", argv[1]);
		return HX_EXIT_USAGE;
	}
	c = hx_command_find(argv[1]);
	if (!c) {
		fprintf(stderr, "scalacn: unknown command '%s' (see 'scalacn --help')\n", argv[1]);
		return HX_EXIT_USAGE;
	}
	if (wants_help(argc, argv)) {
		hx_command_usage(c, stdout);
		return HX_EXIT_OK;
	}
	return c->run(argc - 1, argv + 1);
}
