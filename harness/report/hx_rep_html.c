/* SPDX-License-Identifier: MIT */
/*
 * hx_rep_html: the report as one HTML page (index.html) that needs no network: its style
 * inline, no script, no remote font, every image a file beside it. Well-formed XML too
 * (every element closed, text escaped), so that any XML parser can check it.
 */
#include <stdio.h>
#include <string.h>

#include "harness/report/hx_rep_priv.h"

static const char style[] =
	"body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}"
	"h1{font-size:1.6em}h2{border-bottom:2px solid #1f77b4;padding-bottom:.2em;margin-top:1.6em}"
	"table{border-collapse:collapse;margin:.6em 0;font-size:.9em}"
	"td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}"
	"th{background:#eef3f8}figure{margin:1em 0}img{max-width:100%;height:auto;"
	"border:1px solid #ddd}figcaption{font-size:.85em;color:#555}"
	"p.missing{color:#a33;font-weight:bold}p.note{color:#555}"
	"nav a{margin-right:1em}";

static void h_section(struct hx_emit *e, const char *id, const char *title)
{
	fprintf(e->f, "<section id=\"%s\">\n<h2>", id);
	hx_rep_xml(e->f, title);
	fputs("</h2>\n", e->f);
}

static void h_section_end(struct hx_emit *e)
{
	fputs("</section>\n", e->f);
}

static void h_heading(struct hx_emit *e, const char *text)
{
	fputs("<h3>", e->f);
	hx_rep_xml(e->f, text);
	fputs("</h3>\n", e->f);
}

static void h_para(struct hx_emit *e, const char *cls, const char *text)
{
	if (cls && cls[0])
		fprintf(e->f, "<p class=\"%s\">", cls);
	else
		fputs("<p>", e->f);
	hx_rep_xml(e->f, text);
	fputs("</p>\n", e->f);
}

static void h_table(struct hx_emit *e, unsigned ncols, const char *const *head)
{
	bool any = false;

	for (unsigned i = 0; i < ncols; i++)
		any |= head[i][0] != 0;
	fputs("<table>\n", e->f);
	if (!any)
		return;
	fputs("<tr>", e->f);
	for (unsigned i = 0; i < ncols; i++) {
		fputs("<th>", e->f);
		hx_rep_xml(e->f, head[i]);
		fputs("</th>", e->f);
	}
	fputs("</tr>\n", e->f);
}

static void h_row(struct hx_emit *e, unsigned ncols, char (*cells)[192])
{
	fputs("<tr>", e->f);
	for (unsigned i = 0; i < ncols; i++) {
		fputs("<td>", e->f);
		hx_rep_xml(e->f, cells[i]);
		fputs("</td>", e->f);
	}
	fputs("</tr>\n", e->f);
}

static void h_table_end(struct hx_emit *e)
{
	fputs("</table>\n", e->f);
}

static void h_image(struct hx_emit *e, const char *src, const char *caption)
{
	fputs("<figure><img src=\"", e->f);
	hx_rep_xml(e->f, src);
	fputs("\" alt=\"", e->f);
	hx_rep_xml(e->f, caption);
	fputs("\"/><figcaption>", e->f);
	hx_rep_xml(e->f, caption);
	fputs("</figcaption></figure>\n", e->f);
}

int hx_rep_html(const struct hx_rep *r, FILE *f)
{
	struct hx_emit e = { f, h_section, h_section_end, h_heading, h_para, h_table, h_row,
			     h_table_end, h_image, 0 };
	char title[256];

	snprintf(title, sizeof(title), "scalacn report: campaign %lld, %s", (long long)r->c.id,
		 r->c.rnic_model);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>", f);
	hx_rep_xml(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
	hx_rep_xml(f, title);
	fputs("</h1>\n<nav><a href=\"#summary\">Summary</a><a href=\"#walls\">Walls</a>"
	      "<a href=\"#causes\">Causes</a><a href=\"#models\">Models</a>"
	      "<a href=\"#cost\">Search cost</a>", f);
	if (r->diff)
		fputs("<a href=\"#diff\">Diff</a>", f);
	fputs("</nav>\n", f);
	hx_rep_doc(r, &e);
	fputs("</body>\n</html>\n", f);
	return ferror(f) ? -1 : 0;
}
