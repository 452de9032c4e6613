/* SPDX-License-Identifier: MIT */
/*
 * pt_parse: perftest stdout text -> struct pt_result (title, header fields, table rows).
 *
 * A line-by-line state machine over the input (which need not be NUL-terminated and may hold
 * any bytes): banner and dashed lines are skipped; the first line ending in "Test" (without
 * ':') is the title; " Label : value" lines after it, up to the next dashed line, are header
 * fields; a "#bytes" line opens a table whose layout its column names decide; later lines
 * whose first token is an unsigned integer are rows of that table and must be complete.
 * Everything else is ignored. See pt_parse.h for the format facts relied on.
 */
#include "testbeds/perftest/pt_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PT_LINE_MAX 4096
#define PT_MAX_TOKENS 24

struct table {
	enum pt_form form;
	enum pt_bw_unit unit;
	unsigned ncols;  /* numeric columns a row must have */
	int cpu_col;     /* index of CPU_Util, -1 when absent */
	unsigned line;   /* where the header was */
};

struct tok {
	const char *s;
	size_t len;
	unsigned col; /* 1-based column in the line */
};

struct text_state {
	const char *name;
	struct pt_result *r;
	struct table t;
	bool in_header; /* between the title and the next dashed line */
	unsigned col0;  /* blanks trimmed off the front of the current line */
	bool saw_table;
	struct scn_error *err;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

static char *trim(char *s)
{
	size_t n;

	while (*s && is_blank(*s))
		s++;
	n = strlen(s);
	while (n > 0 && is_blank(s[n - 1]))
		s[--n] = '\0';
	return s;
}

static bool all_of(const char *s, const char *set)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr(set, *s) && !is_blank(*s))
			return false;
	return true;
}

static size_t tokenize(const char *line, unsigned col0, struct tok *t, size_t max)
{
	size_t n = 0;
	const char *p = line;

	while (*p && n < max) {
		while (*p && is_blank(*p))
			p++;
		if (!*p)
			break;
		t[n].s = p;
		t[n].col = (unsigned)(p - line) + 1 + col0;
		while (*p && !is_blank(*p))
			p++;
		t[n].len = (size_t)(p - t[n].s);
		n++;
	}
	return n;
}

static bool tok_is_uint(const struct tok *t)
{
	if (t->len == 0)
		return false;
	for (size_t i = 0; i < t->len; i++)
		if (!isdigit((unsigned char)t->s[i]))
			return false;
	return true;
}

/* Unsigned decimal without sign; false on overflow or other characters. */
static bool tok_u64(const struct tok *t, uint64_t *out)
{
	uint64_t v = 0;

	if (!tok_is_uint(t))
		return false;
	for (size_t i = 0; i < t->len; i++) {
		unsigned d = (unsigned)(t->s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static bool tok_double(const struct tok *t, double *out)
{
	char buf[64], *end;

	if (t->len == 0 || t->len >= sizeof(buf))
		return false;
	memcpy(buf, t->s, t->len);
	buf[t->len] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	return end == buf + t->len && errno != ERANGE;
}

/* Decide the table layout from its header line (already trimmed, starts with "#bytes"). */
static int open_table(struct text_state *st, const char *hdr, unsigned ln)
{
	struct table *t = &st->t;
	bool per_port = strstr(hdr, "Port1") != NULL;

	memset(t, 0, sizeof(*t));
	t->line = ln;
	t->cpu_col = -1;
	if (strstr(hdr, "BW peak") || strstr(hdr, "BW average")) {
		t->form = strstr(hdr, "#sl") ? PT_FORM_BW_QOS : PT_FORM_BW;
		t->ncols = t->form == PT_FORM_BW_QOS ? 6 : 5;
		if (strstr(hdr, "[Gb/sec]"))
			t->unit = PT_BW_UNIT_GBPS;
		else if (strstr(hdr, "[MB/sec]"))
			t->unit = PT_BW_UNIT_MIBS;
	} else if (strstr(hdr, "t_min")) {
		t->form = PT_FORM_LAT;
		t->ncols = 9;
	} else if (strstr(hdr, "tps average") || strstr(hdr, "t_avg")) {
		t->form = PT_FORM_LAT_DUR;
		t->ncols = 4;
	} else {
		return pt_fail(st->err, st->name, ln, st->col0 + 1, -EINVAL,
			       "unknown result table header \"%.80s\"", hdr);
	}
	if (strstr(hdr, "CPU_Util"))
		t->cpu_col = (int)t->ncols + (per_port ? 4 : 0);
	if (st->r->form != PT_FORM_NONE && st->r->form != t->form)
		return pt_fail(st->err, st->name, ln, st->col0 + 1, -EINVAL,
			       "table layout changes from %s to %s", pt_form_name(st->r->form),
			       pt_form_name(t->form));
	if (st->saw_table && st->r->unit != t->unit)
		return pt_fail(st->err, st->name, ln, st->col0 + 1, -EINVAL,
			       "table unit changes from %s to %s", pt_bw_unit_name(st->r->unit),
			       pt_bw_unit_name(t->unit));
	st->r->form = t->form;
	st->r->unit = t->unit;
	st->saw_table = true;
	return 0;
}

static int bad_col(struct text_state *st, unsigned ln, const struct tok *t, const char *what)
{
	return pt_fail(st->err, st->name, ln, t->col, -EINVAL, "malformed %s \"%.*s\" in %s row",
		       what, (int)(t->len > 40 ? 40 : t->len), t->s, pt_form_name(st->t.form));
}

/* Read tok[first..first+n) as doubles into the pointers given. */
static int doubles(struct text_state *st, unsigned ln, const struct tok *tk, size_t first,
		   double *const *dst, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!tok_double(&tk[first + i], dst[i]))
			return bad_col(st, ln, &tk[first + i], "number");
	return 0;
}

static int fill_row(struct text_state *st, unsigned ln, const struct tok *tk, struct pt_row *row)
{
	size_t it = st->t.form == PT_FORM_BW_QOS ? 2 : 1;

	if (st->t.form == PT_FORM_BW_QOS) {
		uint64_t sl;
		if (!tok_u64(&tk[1], &sl) || sl > 255)
			return bad_col(st, ln, &tk[1], "service level");
		row->sl = (int)sl;
	}
	if (!tok_u64(&tk[it], &row->iterations))
		return bad_col(st, ln, &tk[it], "iteration count");
	switch (st->t.form) {
	case PT_FORM_BW:
	case PT_FORM_BW_QOS: {
		double *const d[] = { &row->bw_peak, &row->bw_avg, &row->msg_rate_mpps };
		return doubles(st, ln, tk, it + 1, d, 3);
	}
	case PT_FORM_LAT: {
		double *const d[] = { &row->t_min, &row->t_max, &row->t_typical, &row->t_avg,
				      &row->t_stdev, &row->p99, &row->p999 };
		return doubles(st, ln, tk, 2, d, 7);
	}
	default: {
		double *const d[] = { &row->t_avg, &row->tps_avg };
		return doubles(st, ln, tk, 2, d, 2);
	}
	}
}

static int parse_row(struct text_state *st, const char *line, unsigned ln)
{
	struct tok tk[PT_MAX_TOKENS];
	struct pt_row row;
	size_t n = tokenize(line, st->col0, tk, PT_MAX_TOKENS);
	int rc;

	if (n < st->t.ncols)
		return pt_fail(st->err, st->name, ln, st->col0 + 1, -EINVAL,
			       "%s row has %zu columns, expected %u", pt_form_name(st->t.form), n,
			       st->t.ncols);
	pt_row_init(&row);
	row.line = ln;
	if (!tok_u64(&tk[0], &row.bytes))
		return bad_col(st, ln, &tk[0], "message size");
	rc = fill_row(st, ln, tk, &row);
	if (rc)
		return rc;
	if (st->t.cpu_col >= 0 && (size_t)st->t.cpu_col < n &&
	    !tok_double(&tk[st->t.cpu_col], &row.cpu_util))
		return bad_col(st, ln, &tk[st->t.cpu_col], "CPU utilisation");
	if (st->t.form == PT_FORM_BW || st->t.form == PT_FORM_BW_QOS)
		row.bw_avg_gbps = pt_bw_to_gbps(row.bw_avg, st->t.unit);
	if (pt_result_add_row(st->r, &row))
		return pt_fail(st->err, st->name, ln, 0, -ENOMEM, "out of memory");
	return 0;
}

/* " Dual-port       : OFF\t\tDevice         : mlx5_0" -> two fields. A tab-separated piece
 * without ':' belongs to the next piece (" rdma_cm QPs\t : OFF" is one field). */
static int parse_fields(struct text_state *st, char *line, unsigned ln)
{
	char piece[PT_LINE_MAX];
	size_t plen = 0;
	char *p = line;

	while (*p) {
		size_t n = strcspn(p, "\t");
		char *colon;

		if (plen + n + 2 >= sizeof(piece))
			break;
		if (plen)
			piece[plen++] = ' ';
		memcpy(piece + plen, p, n);
		plen += n;
		piece[plen] = '\0';
		p += n;
		p += strspn(p, "\t");
		colon = strchr(piece, ':');
		if (!colon)
			continue;
		*colon = '\0';
		if (*trim(piece) && pt_result_add_field(st->r, trim(piece), trim(colon + 1), ln))
			return pt_fail(st->err, st->name, ln, 0, -ENOMEM, "out of memory");
		plen = 0;
	}
	return 0;
}

static bool is_title(const char *s)
{
	size_t n = strlen(s);

	return n >= 4 && strcmp(s + n - 4, "Test") == 0 && !strchr(s, ':');
}

static int do_line(struct text_state *st, char *raw, unsigned ln)
{
	char *s = trim(raw);
	struct tok first;

	if (!*s)
		return 0;
	st->col0 = (unsigned)(s - raw);
	if (strncmp(s, "#bytes", 6) == 0)
		return open_table(st, s, ln);
	if (tokenize(s, 0, &first, 1) == 1 && tok_is_uint(&first) && st->saw_table)
		return parse_row(st, s, ln);
	if (all_of(s, "-*")) {
		if (s[0] == '-')
			st->in_header = false;
		return 0;
	}
	if (!st->r->title[0] && !st->saw_table && is_title(s)) {
		pt_result_set_title(st->r, s);
		st->in_header = true;
		return 0;
	}
	if (st->in_header && strchr(s, ':'))
		return parse_fields(st, s, ln);
	return 0;
}

/* Copy one input line into buf (NULs become blanks). Returns false when it did not fit. */
static bool copy_line(char *buf, size_t cap, const char *p, size_t n)
{
	bool fits = n < cap;

	if (!fits)
		n = cap - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = p[i] ? p[i] : ' ';
	buf[n] = '\0';
	return fits;
}

/* Would do_line() take this line for a table row? (A cut row must not parse.) */
static bool starts_uint(const char *line)
{
	struct tok first;

	return tokenize(line, 0, &first, 1) == 1 && tok_is_uint(&first);
}

static int scan(struct text_state *st, const char *text, size_t len, unsigned *lines)
{
	char buf[PT_LINE_MAX];
	size_t pos = 0;
	unsigned ln = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		int rc;

		ln++;
		if (!copy_line(buf, sizeof(buf), text + pos, n) && st->saw_table && starts_uint(buf))
			return pt_fail(st->err, st->name, ln, PT_LINE_MAX, -EINVAL,
				       "table row longer than %d bytes", PT_LINE_MAX - 1);
		rc = do_line(st, buf, ln);
		if (rc)
			return rc;
		pos += n + (nl ? 1 : 0);
	}
	*lines = ln;
	return 0;
}

int pt_parse_text(const char *text, size_t len, const char *name, struct pt_result **out,
		  struct scn_error *err)
{
	struct text_state st = { .name = name, .err = err };
	unsigned lines = 0;
	int rc;

	*out = NULL;
	if (!text && len)
		return pt_fail(err, name, 0, 0, -EINVAL, "no text");
	st.r = pt_result_new();
	if (!st.r)
		return pt_fail(err, name, 0, 0, -ENOMEM, "out of memory");
	rc = scan(&st, text, len, &lines);
	if (!rc && !st.saw_table)
		rc = pt_fail(err, name, lines, 0, -EINVAL,
			     "no result table (\"#bytes\" header) in %u lines", lines);
	if (!rc)
		rc = pt_result_finish(st.r, name, st.t.line, err);
	if (rc) {
		pt_result_free(st.r);
		return rc;
	}
	*out = st.r;
	return 0;
}
