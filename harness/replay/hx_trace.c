/* SPDX-License-Identifier: MIT */
/*
 * hx_trace: the strict, bounded reader of flow-trace CSV files (format in hx_trace.h).
 * Assumes nothing about its input: it is fuzzed (tests/fuzz-optload.c). Numbers are parsed
 * by hand (no strtod: locale, hex and "inf" must not slip through).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/replay/hx_replay.h"

/* Invariant: rec[0..n) hold parsed records with non-decreasing time; n <= cap. */
struct hx_trace {
	struct hx_trace_rec *rec;
	size_t n, cap;
	bool has_mask;
};

struct cursor {
	const char *p, *end, *line_start;
	const char *name;
	int line;
};

uint64_t hx_trace_key_hash(const char *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint32_t hx_trace_key_mask(uint64_t key_hash, uint32_t masks)
{
	return masks ? (uint32_t)((key_hash >> 17) % masks) : 0;
}

static int fail(struct scn_error *err, const struct cursor *c, const char *at, const char *what)
{
	return scn_error_at(err, c->name, c->line, (int)(at - c->line_start) + 1, "", -EINVAL,
			    "trace: %s", what);
}

/* Field [*s, *e) of the current line, ending at ',' or the line end. */
static void field(const char *from, const char *line_end, const char **s, const char **e)
{
	const char *q = from;

	while (q < line_end && *q != ',')
		q++;
	*s = from;
	*e = q;
}

static bool parse_u64(const char *s, const char *e, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (s == e || e - s > 20)
		return false;
	for (const char *q = s; q < e; q++) {
		if (*q < '0' || *q > '9')
			return false;
		if (v > (max - (uint64_t)(*q - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*q - '0');
	}
	*out = v;
	return true;
}

/* Decimal "D+" or "D+.D+", at most 1e7, at most 9 fraction digits. */
static bool parse_time(const char *s, const char *e, double *out)
{
	const char *dot = memchr(s, '.', (size_t)(e - s));
	uint64_t ip = 0, fp = 0;
	double scale = 1;

	if (!parse_u64(s, dot ? dot : e, 10000000ULL, &ip))
		return false;
	if (dot) {
		if (e - dot - 1 > 9 || !parse_u64(dot + 1, e, UINT64_MAX, &fp))
			return false;
		for (const char *q = dot + 1; q < e; q++)
			scale *= 10;
	}
	*out = (double)ip + (double)fp / scale;
	return *out <= 1e7;
}

static bool key_ok(const char *s, const char *e)
{
	if (s == e || (size_t)(e - s) > HX_TRACE_MAX_KEY)
		return false;
	for (const char *q = s; q < e; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (*q >= '0' && *q <= '9') || strchr("_.:/-", *q)))
			return false;
	return true;
}

static int push(struct hx_trace *t, const struct hx_trace_rec *r)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct hx_trace_rec *g;

		if (cap > HX_TRACE_MAX_RECORDS)
			cap = HX_TRACE_MAX_RECORDS;
		if (t->n >= cap)
			return -E2BIG;
		g = realloc(t->rec, cap * sizeof(*g));
		if (!g)
			return -ENOMEM;
		t->rec = g;
		t->cap = cap;
	}
	t->rec[t->n++] = *r;
	return 0;
}

/* One record line [c->p, le). */
static int record(struct hx_trace *t, struct cursor *c, const char *le, struct scn_error *err)
{
	const char *s = NULL, *e = NULL;
	struct hx_trace_rec r = { 0 };
	int nf = t->has_mask ? 4 : 3, rc;
	uint64_t v;

	for (int i = 0; i < nf; i++) {
		field(i ? e + 1 : c->p, le, &s, &e);
		if ((i < nf - 1 && e == le) || (i == nf - 1 && e != le))
			return fail(err, c, e, i < nf - 1 ? "too few fields" : "too many fields");
		if (i == 0 && !parse_time(s, e, &r.time))
			return fail(err, c, s, "time: expected seconds like 12 or 12.5 (<= 1e7)");
		if (i == 1) {
			if (!key_ok(s, e))
				return fail(err, c, s, "flow: expected 1..63 characters of "
						       "[A-Za-z0-9_.:/-]");
			r.flow = hx_trace_key_hash(s, (size_t)(e - s));
		}
		if (i == 2 && t->has_mask) {
			if (!parse_u64(s, e, HX_TRACE_MAX_MASKS - 1, &v))
				return fail(err, c, s, "mask: expected an integer 0..4095");
			r.mask = (uint32_t)v;
		} else if (i == nf - 1) {
			if (!parse_u64(s, e, 1000000000000000ULL, &r.packets))
				return fail(err, c, s, "packets: expected an integer 0..1e15");
		}
	}
	if (t->n && r.time < t->rec[t->n - 1].time)
		return fail(err, c, c->p, "time goes backwards (records must be in time order)");
	rc = push(t, &r);
	if (rc == -E2BIG)
		return fail(err, c, c->p, "too many records");
	if (rc < 0)
		return scn_error_set(err, SCN_ERR_INTERNAL, rc, "trace: out of memory");
	return 0;
}

static int parse_lines(struct hx_trace *t, struct cursor *c, struct scn_error *err)
{
	bool header = false;

	while (c->p < c->end) {
		const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
		const char *le = nl ? nl : c->end;
		int rc = 0;

		c->line++;
		c->line_start = c->p;
		if (le > c->p && le[-1] == '\r')
			le--;
		if (memchr(c->p, '\0', (size_t)(le - c->p)))
			return fail(err, c, c->p, "NUL byte in the file");
		if (le == c->p || *c->p == '#') {
			/* blank or comment */
		} else if (!header) {
			size_t n = (size_t)(le - c->p);

			if (n == 22 && !memcmp(c->p, "time,flow,mask,packets", 22))
				t->has_mask = true;
			else if (!(n == 17 && !memcmp(c->p, "time,flow,packets", 17)))
				return fail(err, c, c->p, "expected the header 'time,flow,mask,"
						       "packets' or 'time,flow,packets'");
			header = true;
		} else {
			rc = record(t, c, le, err);
		}
		if (rc)
			return rc;
		c->p = nl ? nl + 1 : c->end;
	}
	if (!header) {
		c->line_start = c->p;
		return fail(err, c, c->p, "empty file (no header line)");
	}
	return 0;
}

int hx_trace_parse(const char *buf, size_t len, const char *name, struct hx_trace **out,
		   struct scn_error *err)
{
	struct cursor c = { buf, buf + len, buf, name ? name : "<trace>", 0 };
	struct hx_trace *t;
	int rc;

	*out = NULL;
	if (!buf && len)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "trace: NULL buffer");
	if (len > HX_TRACE_MAX_BYTES)
		return scn_error_set(err, SCN_ERR_CONFIG, -E2BIG, "%s: trace larger than 1 GiB",
				     c.name);
	t = calloc(1, sizeof(*t));
	if (!t)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "trace: out of memory");
	rc = buf ? parse_lines(t, &c, err) : fail(err, &c, c.p, "empty file (no header line)");
	if (rc) {
		hx_trace_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int hx_trace_read(const char *path, struct hx_trace **out, struct scn_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	*out = NULL;
	if (!f)
		return scn_error_set(err, SCN_ERR_CONFIG, -errno, "%s: cannot open trace (%s)",
				     path, strerror(errno));
	for (;;) {
		size_t got;

		if (len == cap) {
			char *g;

			cap = cap ? 2 * cap : 65536;
			if (cap > (size_t)HX_TRACE_MAX_BYTES + 1)
				cap = (size_t)HX_TRACE_MAX_BYTES + 1;
			if (len == cap)
				break;
			g = realloc(buf, cap);
			if (!g) {
				free(buf);
				fclose(f);
				return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM,
						     "trace: out of memory");
			}
			buf = g;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc)
		scn_error_set(err, SCN_ERR_CONFIG, rc, "%s: read error", path);
	else
		rc = hx_trace_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}

void hx_trace_free(struct hx_trace *t)
{
	if (!t)
		return;
	free(t->rec);
	free(t);
}

size_t hx_trace_count(const struct hx_trace *t)
{
	return t ? t->n : 0;
}

const struct hx_trace_rec *hx_trace_at(const struct hx_trace *t, size_t i)
{
	return t && i < t->n ? &t->rec[i] : NULL;
}

bool hx_trace_has_mask(const struct hx_trace *t)
{
	return t && t->has_mask;
}
