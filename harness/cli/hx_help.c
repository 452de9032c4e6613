/* SPDX-License-Identifier: MIT */
/*
 * hx_help: every rendering of the command table (hx_commands, each command's option table):
 * `scalacn CMD --help`, the COMMANDS section of the man page in scdoc (`scalacn help
 * --scdoc`, used by docs/man/meson.build) and the bash completion script (`scalacn help
 * --bash-completion`). Nothing here knows a command by name.
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/hx_cli.h"

#define SYNOPSIS_WIDTH 92

/* "[--db FILE]" or "[-o FILE|--output FILE]" into BUF. */
static const char *synopsis_word(const struct hx_opt *o, char *buf, size_t len)
{
	char shortf[8] = "";

	if (o->short_name)
		snprintf(shortf, sizeof(shortf), "-%c|", o->short_name);
	snprintf(buf, len, "[%s--%s%s%s]", shortf, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	return buf;
}

static void print_synopsis(const struct hx_command *c, FILE *out)
{
	char word[128];
	int col = fprintf(out, "usage: scalacn %s", c->name), indent = col;

	if (c->operands)
		col += fprintf(out, " %s", c->operands);
	for (const struct hx_opt *o = c->opts; o && o->name; o++) {
		synopsis_word(o, word, sizeof(word));
		if (col + 1 + (int)strlen(word) > SYNOPSIS_WIDTH)
			col = fprintf(out, "\n%*s", indent, "") - 1;
		col += fprintf(out, " %s", word);
	}
	fputc('\n', out);
}

/* "--db FILE" (or "-o, --output FILE") into BUF. */
static const char *option_label(const struct hx_opt *o, char *buf, size_t len)
{
	char shortf[8] = "";

	if (o->short_name)
		snprintf(shortf, sizeof(shortf), "-%c, ", o->short_name);
	snprintf(buf, len, "%s--%s%s%s", shortf, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	return buf;
}

/* Print HELP with every line after the first indented by INDENT. */
static void print_indented(const char *help, int indent, FILE *out)
{
	for (const char *s = help; *s; s++) {
		fputc(*s, out);
		if (*s == '\n' && s[1])
			fprintf(out, "%*s", indent, "");
	}
	fputc('\n', out);
}

void hx_command_usage(const struct hx_command *c, FILE *out)
{
	char label[128];
	int width = 0;

	print_synopsis(c, out);
	if (c->text)
		fprintf(out, "\n%s", c->text);
	for (const struct hx_opt *o = c->opts; o && o->name; o++) {
		int w = (int)strlen(option_label(o, label, sizeof(label)));

		width = w > width ? w : width;
	}
	if (c->opts && c->opts->name)
		fprintf(out, "\nOptions:\n");
	for (const struct hx_opt *o = c->opts; o && o->name; o++) {
		fprintf(out, "  %-*s  ", width, option_label(o, label, sizeof(label)));
		print_indented(o->help, width + 4, out);
	}
	fprintf(out, "  %-*s  %s\n", width, "-h, --help", "this text");
	if (c->notes)
		fprintf(out, "\n%s", c->notes);
}

/* One line of prose for scdoc: '*', '_' and '\\' escaped. */
static void scdoc_escaped(const char *s, size_t n, FILE *out)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '*' || s[i] == '_' || s[i] == '\\')
			fputc('\\', out);
		fputc(s[i], out);
	}
}

/* TEXT for scdoc: prose lines escaped; lines indented by spaces (examples) become a
 * literal block, kept as they are. */
static void scdoc_text(const char *text, FILE *out)
{
	bool literal = false;

	for (const char *s = text; s && *s;) {
		size_t n = strcspn(s, "\n");
		bool indented = s[0] == ' ';

		if (indented != literal)
			fputs("```\n", out);
		literal = indented;
		if (literal)
			fwrite(s, 1, n, out);
		else
			scdoc_escaped(s, n, out);
		fputc('\n', out);
		s += n + (s[n] == '\n');
	}
	if (literal)
		fputs("```\n", out);
}

void hx_commands_scdoc(FILE *out)
{
	char label[128];

	for (const struct hx_command *const *cp = hx_commands; *cp; cp++) {
		const struct hx_command *c = *cp;

		fprintf(out, "## %s\n\n*scalacn %s*", c->name, c->name);
		if (c->operands)
			fprintf(out, " _%s_", c->operands);
		fprintf(out, " [_options_]\n\n");
		scdoc_text(c->summary, out);
		fprintf(out, ".\n\n");
		if (c->text) {
			scdoc_text(c->text, out);
			fputc('\n', out);
		}
		for (const struct hx_opt *o = c->opts; o && o->name; o++) {
			fprintf(out, "*");
			option_label(o, label, sizeof(label));
			scdoc_escaped(label, strlen(label), out);
			fprintf(out, "*\n\t");
			for (const char *s = o->help; *s;) {
				size_t n = strcspn(s, "\n");

				scdoc_escaped(s, n, out);
				s += n;
				if (*s == '\n' && *++s)
					fputc(' ', out);
			}
			fprintf(out, "\n\n");
		}
		if (c->notes) {
			scdoc_text(c->notes, out);
			fputc('\n', out);
		}
	}
}

/* One case arm of the completion function: the words and argument completions of C. */
static void bash_command_case(const struct hx_command *c, FILE *out)
{
	fprintf(out, "\t%s)\n\t\tcase \"$prev\" in\n", c->name);
	for (const struct hx_opt *o = c->opts; o && o->name; o++) {
		if (!o->arg)
			continue;
		fprintf(out, "\t\t--%s%s%c)\n", o->name, o->short_name ? "|-" : "",
			o->short_name ? o->short_name : ' ');
		if (o->complete && !strcmp(o->complete, HX_COMPLETE_FILE))
			fprintf(out, "\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\")); return;;\n");
		else if (o->complete)
			fprintf(out, "\t\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\")); return;;\n",
				o->complete);
		else
			fprintf(out, "\t\t\treturn;;\n");
	}
	fprintf(out, "\t\tesac\n\t\twords_=\"--help");
	for (const struct hx_opt *o = c->opts; o && o->name; o++)
		fprintf(out, " --%s", o->name);
	fprintf(out, "\";;\n");
}

void hx_commands_bash_completion(FILE *out)
{
	fprintf(out, "# bash completion for scalacn (generated by `scalacn help --bash-completion`)\n"
		     "_scalacn() {\n"
		     "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		     "\tlocal cmd=${COMP_WORDS[1]} words_\n"
		     "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
		     "\t\tCOMPREPLY=($(compgen -W 'help --help --version");
	for (const struct hx_command *const *cp = hx_commands; *cp; cp++)
		fprintf(out, " %s", (*cp)->name);
	fprintf(out, "' -- \"$cur\")); return\n\tfi\n\tcase \"$cmd\" in\n"
		     "\thelp)\n\t\tCOMPREPLY=($(compgen -W '");
	for (const struct hx_command *const *cp = hx_commands; *cp; cp++)
		fprintf(out, "%s%s", cp == hx_commands ? "" : " ", (*cp)->name);
	fprintf(out, "' -- \"$cur\")); return;;\n");
	for (const struct hx_command *const *cp = hx_commands; *cp; cp++)
		bash_command_case(*cp, out);
	fprintf(out, "\t*) return;;\n\tesac\n"
		     "\tif [[ \"$cur\" == -* ]]; then\n"
		     "\t\tCOMPREPLY=($(compgen -W \"$words_\" -- \"$cur\"))\n"
		     "\telse\n"
		     "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		     "\tfi\n}\ncomplete -o filenames -F _scalacn scalacn\n");
}
