/* SPDX-License-Identifier: MIT */
/*
 * hx_fit_priv: helpers shared by the hx_fit*.c files and cmd_fit.c (not a public API):
 * a bounded text builder for JSON/YAML and a strict number-array reader.
 */
#ifndef HX_FIT_PRIV_H
#define HX_FIT_PRIV_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

/* Text builder into a caller's buffer. Invariant: len <= cap, buf[len] == 0 when len < cap;
 * overflow set once anything did not fit (the text is then cut). */
struct hx_sb {
	char *buf;
	size_t cap, len;
	bool overflow;
};

static inline void hx_sb_init(struct hx_sb *s, char *buf, size_t cap)
{
	s->buf = buf;
	s->cap = cap;
	s->len = 0;
	s->overflow = false;
	if (cap)
		buf[0] = '\0';
}

void hx_sb_printf(struct hx_sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "%.17g", or null when not finite. */
void hx_sb_num(struct hx_sb *s, double v);
/* [v0,v1,...] */
void hx_sb_nums(struct hx_sb *s, const double *v, size_t n);
/* A JSON string literal. */
void hx_sb_str(struct hx_sb *s, const char *str);

/* JSON array of exactly N numbers (null -> NaN) into OUT: 0 or -EINVAL. */
int hx_json_nums(struct json_object *a, double *out, size_t n);

#endif
