/* SPDX-License-Identifier: MIT */
/*
 * pt_parse_json: perftest --out_json files -> struct pt_result.
 *
 * perftest 6.06 writes pseudo-JSON (upstream issue linux-rdma/perftest#216): bare keys
 * ("test_info: {"), bare values ("Connection_type: RC,"), a blank before some colons
 * ("TX_depth : 1"), keys with dots ("percentile_99.9"), and a comma after every member,
 * including the last. Later versions write valid JSON with the same keys. So: try json-c in
 * strict mode; if that fails, repair the text (quote bare words, drop trailing commas; the
 * repair never adds or removes a newline, so line numbers survive) and parse strictly again.
 * Values are read by json-c only. Keys read from "results": MsgSize, n_iterations, BW_peak,
 * BW_average, MsgRate, t_min, t_max, t_typical, t_avg, t_stdev, percentile_99,
 * percentile_99.9, tps_average, CPU_util; "test_info" gives the title ("test") and fields.
 */
#include "testbeds/perftest/pt_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define PT_JSON_MAX_DEPTH 64

struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_put(struct sbuf *b, const char *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;
		char *q;
		while (ncap < b->len + n + 1)
			ncap *= 2;
		q = realloc(b->s, ncap);
		if (!q) {
			b->oom = true;
			return;
		}
		b->s = q;
		b->cap = ncap;
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_putc(struct sbuf *b, char c)
{
	sb_put(b, &c, 1);
}

/* JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool is_json_number(const char *s, size_t n)
{
	size_t i = 0, d;

	if (i < n && s[i] == '-')
		i++;
	if (i >= n)
		return false;
	if (s[i] == '0')
		i++;
	else if (s[i] >= '1' && s[i] <= '9')
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	else
		return false;
	if (i < n && s[i] == '.') {
		for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return false;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return false;
	}
	return i == n;
}

static bool is_literal(const char *s, size_t n)
{
	return (n == 4 && !memcmp(s, "true", 4)) || (n == 5 && !memcmp(s, "false", 5)) ||
	       (n == 4 && !memcmp(s, "null", 4));
}

static void put_quoted(struct sbuf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	sb_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			sb_putc(b, '\\');
			sb_putc(b, (char)c);
		} else if (c < 0x20) {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			sb_put(b, u, sizeof(u));
		} else {
			sb_putc(b, (char)c);
		}
	}
	sb_putc(b, '"');
}

/* Drop a ',' that is the last non-blank output (a trailing comma before } or ]). */
static void drop_trailing_comma(struct sbuf *b)
{
	size_t i = b->len;

	while (i > 0 && strchr(" \t\r\n", b->s[i - 1]))
		i--;
	if (i > 0 && b->s[i - 1] == ',') {
		memmove(b->s + i - 1, b->s + i, b->len - i + 1);
		b->len--;
	}
}

struct repair {
	const char *in;
	size_t len, pos;
	unsigned line;
	char stack[PT_JSON_MAX_DEPTH];
	unsigned stack_line[PT_JSON_MAX_DEPTH]; /* where each open bracket is */
	int depth;
	bool expect_key;
	struct sbuf out;
};

static void copy_string(struct repair *rp)
{
	size_t start = rp->pos++;

	while (rp->pos < rp->len && rp->in[rp->pos] != '"') {
		if (rp->in[rp->pos] == '\n')
			rp->line++;
		rp->pos += rp->in[rp->pos] == '\\' && rp->pos + 1 < rp->len ? 2 : 1;
	}
	if (rp->pos < rp->len)
		rp->pos++;
	sb_put(&rp->out, rp->in + start, rp->pos - start);
}

/* A bare word: a key runs to ':', a value to ',', '}' or ']'; neither crosses a newline. */
static void bare_word(struct repair *rp)
{
	const char *stop = rp->expect_key ? ":{}[],\"\n" : ",}]\n";
	size_t start = rp->pos, n;

	while (rp->pos < rp->len && !strchr(stop, rp->in[rp->pos]))
		rp->pos++;
	n = rp->pos - start;
	while (n > 0 && strchr(" \t\r", rp->in[start + n - 1]))
		n--;
	if (rp->pos < rp->len && rp->in[rp->pos] == '\0')
		rp->pos++; /* strchr matches the terminator: never stall on a NUL byte */
	if (!rp->expect_key && (is_json_number(rp->in + start, n) || is_literal(rp->in + start, n)))
		sb_put(&rp->out, rp->in + start, n);
	else
		put_quoted(&rp->out, rp->in + start, n);
}

static int structural(struct repair *rp, char c, struct scn_error *err)
{
	switch (c) {
	case '{':
	case '[':
		if (rp->depth >= PT_JSON_MAX_DEPTH)
			return pt_fail(err, NULL, rp->line, 0, -EINVAL, "JSON nested too deep");
		rp->stack_line[rp->depth] = rp->line;
		rp->stack[rp->depth++] = c;
		rp->expect_key = c == '{';
		break;
	case '}':
	case ']':
		if (rp->depth == 0 || rp->stack[rp->depth - 1] != (c == '}' ? '{' : '['))
			return pt_fail(err, NULL, rp->line, 0, -EINVAL, "unbalanced '%c' in JSON", c);
		rp->depth--;
		drop_trailing_comma(&rp->out);
		rp->expect_key = false;
		break;
	case ',':
		rp->expect_key = rp->depth > 0 && rp->stack[rp->depth - 1] == '{';
		break;
	default: /* ':' */
		rp->expect_key = false;
		break;
	}
	sb_putc(&rp->out, c);
	rp->pos++;
	return 0;
}

int pt_json_repair(const char *text, size_t len, char **out, size_t *out_len,
		   struct scn_error *err)
{
	struct repair rp = { .in = text, .len = len, .line = 1 };
	int rc = 0;

	*out = NULL;
	sb_put(&rp.out, "", 0);
	while (!rc && rp.pos < rp.len) {
		char c = text[rp.pos];
		if (c == '"') {
			copy_string(&rp);
		} else if (strchr("{}[],:", c) && c) {
			rc = structural(&rp, c, err);
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			rp.line += c == '\n';
			sb_putc(&rp.out, c);
			rp.pos++;
		} else {
			bare_word(&rp);
		}
	}
	if (!rc && rp.depth > 0)
		rc = pt_fail(err, NULL, rp.stack_line[rp.depth - 1], 0, -EINVAL,
			     "unclosed '%c' in JSON", rp.stack[rp.depth - 1]);
	if (!rc && rp.out.oom)
		rc = pt_fail(err, NULL, rp.line, 0, -ENOMEM, "out of memory");
	if (rc) {
		free(rp.out.s);
		return rc;
	}
	*out = rp.out.s;
	if (out_len)
		*out_len = rp.out.len;
	return 0;
}

/* Strict json-c parse of the whole text (only white space may follow the value). On failure
 * returns NULL and sets *bad_off to where json-c stopped. */
static json_object *strict_parse(const char *s, size_t len, size_t *bad_off)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;
	size_t end;

	*bad_off = 0;
	if (!tok)
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, s, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (o && json_tokener_get_error(tok) == json_tokener_success)
		for (size_t i = end; i < len && o; i++)
			if (!strchr(" \t\r\n", s[i]) || !s[i]) {
				json_object_put(o);
				o = NULL;
				end = i;
			}
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(o);
		o = NULL;
		*bad_off = end;
	}
	json_tokener_free(tok);
	return o;
}

static unsigned line_of(const char *s, size_t len, size_t off)
{
	unsigned ln = 1;

	for (size_t i = 0; i < off && i < len; i++)
		ln += s[i] == '\n';
	return ln;
}

int pt_parse_json(const char *text, size_t len, enum pt_bw_unit unit, const char *name,
		  struct pt_result **out, struct scn_error *err)
{
	enum pt_json_form form = PT_JSON_VALID;
	char *fixed = NULL;
	size_t fixed_len = 0, bad = 0;
	json_object *root;
	int rc;

	*out = NULL;
	if ((!text && len) || len >= INT_MAX)
		return pt_fail(err, name, 0, 0, -EINVAL, "no JSON text, or too large");
	root = strict_parse(text ? text : "", len, &bad);
	if (!root) {
		form = PT_JSON_REPAIRED;
		rc = pt_json_repair(text ? text : "", len, &fixed, &fixed_len, err);
		if (rc) {
			if (err)
				snprintf(err->file, sizeof(err->file), "%s", name ? name : "perftest JSON");
			return rc;
		}
		root = strict_parse(fixed, fixed_len, &bad);
		if (!root) {
			rc = pt_fail(err, name, line_of(fixed, fixed_len, bad), 0, -EINVAL,
				     "not JSON, even after repairing the perftest 6.06 form");
			free(fixed);
			return rc;
		}
	}
	rc = pt_json_fill(root, unit, form, name, out, err);
	json_object_put(root);
	free(fixed);
	return rc;
}
