/* SPDX-License-Identifier: MIT */
/*
 * hx_rep_md: the report as Markdown (report.md, GitHub's dialect): the same sections as the
 * HTML page, tables as pipe tables, the plots as image links to the SVG files beside it.
 */
#include <stdio.h>
#include <string.h>

#include "harness/report/hx_rep_priv.h"

/* Table cells: a pipe or a newline would end the cell. */
static void cell(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '\n' ? ' ' : *s, f);
}

static void m_section(struct hx_emit *e, const char *id, const char *title)
{
	fprintf(e->f, "\n<a id=\"%s\"></a>\n## %s\n\n", id, title);
}

static void m_section_end(struct hx_emit *e)
{
	fputc('\n', e->f);
}

static void m_heading(struct hx_emit *e, const char *text)
{
	fprintf(e->f, "\n### %s\n\n", text);
}

static void m_para(struct hx_emit *e, const char *cls, const char *text)
{
	fprintf(e->f, cls && !strcmp(cls, "missing") ? "**%s**\n\n" : "%s\n\n", text);
}

static void m_table(struct hx_emit *e, unsigned ncols, const char *const *head)
{
	fputs("|", e->f);
	for (unsigned i = 0; i < ncols; i++) {
		fputc(' ', e->f);
		cell(e->f, head[i][0] ? head[i] : " ");
		fputs(" |", e->f);
	}
	fputs("\n|", e->f);
	for (unsigned i = 0; i < ncols; i++)
		fputs("---|", e->f);
	fputc('\n', e->f);
}

static void m_row(struct hx_emit *e, unsigned ncols, char (*cells)[192])
{
	fputs("|", e->f);
	for (unsigned i = 0; i < ncols; i++) {
		fputc(' ', e->f);
		cell(e->f, cells[i]);
		fputs(" |", e->f);
	}
	fputc('\n', e->f);
}

static void m_table_end(struct hx_emit *e)
{
	fputc('\n', e->f);
}

static void m_image(struct hx_emit *e, const char *src, const char *caption)
{
	fprintf(e->f, "![%s](%s)\n\n*%s*\n\n", caption, src, caption);
}

int hx_rep_md(const struct hx_rep *r, FILE *f)
{
	struct hx_emit e = { f, m_section, m_section_end, m_heading, m_para, m_table, m_row,
			     m_table_end, m_image, 0 };

	fprintf(f, "# scalacn report: campaign %lld, %s\n", (long long)r->c.id, r->c.rnic_model);
	hx_rep_doc(r, &e);
	return ferror(f) ? -1 : 0;
}
