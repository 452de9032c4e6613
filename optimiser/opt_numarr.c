/* SPDX-License-Identifier: MIT */
/*
 * A strict, bounded parser for JSON arrays of numbers (model params_json / domain_json).
 * The library may not depend on a JSON library, so this is the one hand parser; it accepts
 * nothing but '[' number (',' number)* ']' or '[]' with JSON whitespace around tokens.
 * Each number is checked against the JSON grammar first, then converted by strtod on a
 * bounded copy whose '.' is replaced by the current locale's decimal point.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "optimiser/opt_priv.h"

#define NUMARR_MAX_INPUT 4096
#define NUMARR_MAX_TOKEN 64

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Length of a JSON number at S[0..len), 0 when there is none. */
static size_t json_number_len(const char *s, size_t len)
{
	size_t i = 0;

	if (i < len && s[i] == '-')
		i++;
	if (i >= len || !is_digit(s[i]))
		return 0;
	if (s[i] == '0')
		i++;
	else
		while (i < len && is_digit(s[i]))
			i++;
	if (i < len && s[i] == '.') {
		i++;
		if (i >= len || !is_digit(s[i]))
			return 0;
		while (i < len && is_digit(s[i]))
			i++;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= len || !is_digit(s[i]))
			return 0;
		while (i < len && is_digit(s[i]))
			i++;
	}
	return i;
}

static int convert(const char *s, size_t n, double *out)
{
	char buf[NUMARR_MAX_TOKEN + 8];
	const char *dp = localeconv()->decimal_point;
	size_t o = 0, dl = dp ? strlen(dp) : 0;
	char *end;

	if (n > NUMARR_MAX_TOKEN)
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.' && dl > 0 && dl <= 4) {
			memcpy(buf + o, dp, dl);
			o += dl;
		} else {
			buf[o++] = s[i];
		}
	}
	buf[o] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	if (end != buf + o)
		return -EINVAL;
	if (!isfinite(*out))
		return -ERANGE;
	return 0; /* underflow to 0 or a denormal is accepted */
}

int opt_parse_number_array(const char *s, size_t len, double *out, size_t cap, size_t *n)
{
	size_t i = 0, count = 0;

	if (n)
		*n = 0;
	if (!s)
		return -EINVAL;
	if (len > NUMARR_MAX_INPUT)
		return -E2BIG;
	while (i < len && is_ws(s[i]))
		i++;
	if (i >= len || s[i] != '[')
		return -EINVAL;
	i++;
	while (i < len && is_ws(s[i]))
		i++;
	if (i < len && s[i] == ']') {
		i++;
	} else {
		for (;;) {
			size_t nl = json_number_len(s + i, len - i);
			int rc;

			if (nl == 0)
				return -EINVAL;
			if (count >= cap)
				return -E2BIG;
			rc = convert(s + i, nl, &out[count]);
			if (rc < 0)
				return rc;
			count++;
			i += nl;
			while (i < len && is_ws(s[i]))
				i++;
			if (i < len && s[i] == ',') {
				i++;
				while (i < len && is_ws(s[i]))
					i++;
				continue;
			}
			if (i < len && s[i] == ']') {
				i++;
				break;
			}
			return -EINVAL;
		}
	}
	while (i < len && is_ws(s[i]))
		i++;
	if (i != len)
		return -EINVAL;
	if (n)
		*n = count;
	return 0;
}
