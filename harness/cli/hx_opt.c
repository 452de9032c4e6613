/* SPDX-License-Identifier: MIT */
/*
 * hx_opt: option parsing from a command's option table (struct hx_opt in hx_cli.h): the
 * table becomes getopt_long's long options and short option string, so the options a
 * command accepts are exactly the ones its help, man page and completion list.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/hx_cli.h"

static void build(struct hx_args *a)
{
	unsigned n = 0, k = 0;

	a->shorts[k++] = ':'; /* a missing argument returns ':' (reported like '?') */
	for (const struct hx_opt *o = a->c->opts; o && o->name && n < HX_MAX_OPTS; o++, n++) {
		a->longs[n] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					       NULL, o->key };
		if (o->short_name) {
			a->shorts[k++] = o->short_name;
			if (o->arg)
				a->shorts[k++] = ':';
		}
	}
	a->longs[n] = (struct option){ NULL, 0, NULL, 0 };
	a->shorts[k] = '\0';
	optind = 1;
	opterr = 0;
}

/* A short form comes back from getopt as its letter: the table maps it to the key. */
static int key_of(const struct hx_command *c, int got)
{
	for (const struct hx_opt *o = c->opts; o && o->name; o++)
		if (o->short_name && o->short_name == got)
			return o->key;
	return got;
}

int hx_opt_next(struct hx_args *a)
{
	int got;

	if (!a->c) {
		a->c = hx_command_find(a->cmd);
		if (!a->c)
			return '?';
		build(a);
	}
	got = getopt_long(a->argc, a->argv, a->shorts, a->longs, NULL);
	if (got == ':' || got == '?')
		return '?';
	return got == -1 ? -1 : key_of(a->c, got);
}
