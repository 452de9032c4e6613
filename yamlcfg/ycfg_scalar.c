/* SPDX-License-Identifier: MIT */
/*
 * ycfg_scalar: converting scalars with type and range checks, and the keyed shorthands.
 *
 * Accepted forms (documented in docs/plan-reference.md):
 *  - integers: optional sign, decimal digits, optional suffix K, M or G (x1024, x1024^2,
 *    x1024^3; lower case accepted): "8K" = 8192.
 *  - doubles: plain decimal numbers ("0.05", "1e-3"), percentages ("90%" = 0.9), and the
 *    same K/M/G suffixes as integers ("16K" = 16384). Non-finite values are rejected.
 *  - booleans: true/false/yes/no (any case).
 *  - strings: any scalar; an empty plain scalar (`key:` with nothing) is "missing".
 * Assumes libyaml does no tag resolution (every scalar is text), which is its behaviour.
 */
#include "yamlcfg/ycfg_internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Scalar text of N or an error naming what was found instead. */
static int text(const struct ycfg_node *n, const char *want, const char **out,
		struct scn_error *err)
{
	yaml_node_t *y = ycfg__node(n);

	if (!y)
		return ycfg_error(n, err, "missing value (expected %s)", want);
	if (y->type != YAML_SCALAR_NODE)
		return ycfg_error(n, err, "expected %s, got %s", want, ycfg__kind(n));
	if (!y->data.scalar.length && y->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
		return ycfg_error(n, err, "missing value (expected %s)", want);
	*out = (const char *)y->data.scalar.value;
	return 0;
}

static int suffix_shift(char c)
{
	switch (c) {
	case 'K': case 'k': return 10;
	case 'M': case 'm': return 20;
	case 'G': case 'g': return 30;
	default: return -1;
	}
}

/* Parse an integer with optional K/M/G suffix; -ERANGE on overflow, -EINVAL on syntax. */
static int parse_int(const char *s, int64_t *out)
{
	const char *p = s;
	bool neg = false;
	uint64_t v = 0, lim;
	int shift = 0;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (*p < '0' || *p > '9')
		return -EINVAL;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (lim - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p && (shift = suffix_shift(*p)) > 0)
		p++;
	if (*p)
		return -EINVAL;
	if (shift > 0) {
		if (v > lim >> shift)
			return -ERANGE;
		v <<= shift;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static int parse_double(const char *s, double *out)
{
	size_t len = strlen(s);
	double scale = 1.0;
	char buf[64], *end;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len + 1);
	if (buf[len - 1] == '%') {
		scale = 0.01;
		buf[--len] = '\0';
	} else if (suffix_shift(buf[len - 1]) > 0) {
		scale = ldexp(1.0, suffix_shift(buf[len - 1]));
		buf[--len] = '\0';
	}
	if (!len || strspn(buf, "0123456789.eE+-") != len)
		return -EINVAL;
	errno = 0;
	*out = strtod(buf, &end) * scale;
	if (*end || end == buf)
		return -EINVAL;
	if (errno == ERANGE || !isfinite(*out))
		return -ERANGE;
	return 0;
}

int ycfg_str(const struct ycfg_node *n, const char **out, struct scn_error *err)
{
	return text(n, "a string", out, err);
}

int ycfg_int(const struct ycfg_node *n, int64_t min, int64_t max, int64_t *out,
	     struct scn_error *err)
{
	const char *s = NULL;
	int64_t v;
	int rc;

	if ((rc = text(n, "an integer", &s, err)) < 0)
		return rc;
	rc = parse_int(s, &v);
	if (rc == -ERANGE)
		return ycfg_error(n, err, "integer '%s' is too large", s);
	if (rc < 0)
		return ycfg_error(n, err, "expected an integer, got '%s'", s);
	if (v < min || v > max) {
		if (max == INT64_MAX)
			return ycfg_error(n, err, "%s must be >= %lld", s, (long long)min);
		if (min == INT64_MIN)
			return ycfg_error(n, err, "%s must be <= %lld", s, (long long)max);
		return ycfg_error(n, err, "%s is out of range [%lld, %lld]", s, (long long)min,
				  (long long)max);
	}
	*out = v;
	return 0;
}

int ycfg_double(const struct ycfg_node *n, double min, double max, double *out,
		struct scn_error *err)
{
	const char *s = NULL;
	double v;
	int rc;

	if ((rc = text(n, "a number", &s, err)) < 0)
		return rc;
	rc = parse_double(s, &v);
	if (rc == -ERANGE)
		return ycfg_error(n, err, "number '%s' is out of the representable range", s);
	if (rc < 0)
		return ycfg_error(n, err, "expected a number, got '%s'", s);
	if (v < min || v > max) {
		if (max >= DBL_MAX)
			return ycfg_error(n, err, "%s must be >= %g", s, min);
		if (min <= -DBL_MAX)
			return ycfg_error(n, err, "%s must be <= %g", s, max);
		return ycfg_error(n, err, "%s is out of range [%g, %g]", s, min, max);
	}
	*out = v;
	return 0;
}

int ycfg_bool(const struct ycfg_node *n, bool *out, struct scn_error *err)
{
	const char *s = NULL;
	int rc;

	if ((rc = text(n, "true or false", &s, err)) < 0)
		return rc;
	if (!strcasecmp(s, "true") || !strcasecmp(s, "yes"))
		*out = true;
	else if (!strcasecmp(s, "false") || !strcasecmp(s, "no"))
		*out = false;
	else
		return ycfg_error(n, err, "expected true/false/yes/no, got '%s'", s);
	return 0;
}

int ycfg_enum(const struct ycfg_node *n, const char *const *names, int *out,
	      struct scn_error *err)
{
	char list[400] = "";
	const char *s = NULL;
	size_t len = 0;
	int rc;

	if ((rc = text(n, "a name", &s, err)) < 0)
		return rc;
	for (int i = 0; names[i]; i++) {
		if (!strcmp(names[i], s)) {
			*out = i;
			return 0;
		}
	}
	for (int i = 0; names[i] && len < sizeof(list); i++) {
		int w = snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", names[i]);

		len += w > 0 ? (size_t)w : 0;
	}
	return ycfg_error(n, err, "unknown value '%s' (choices: %s)", s, list);
}

/* ---- keyed shorthands ------------------------------------------------------------------ */

int ycfg_opt_int(const struct ycfg_node *map, const char *key, int64_t min, int64_t max,
		 int64_t def, int64_t *out, struct scn_error *err)
{
	struct ycfg_node c;

	if (ycfg_get(map, key, &c)) {
		*out = def;
		return 0;
	}
	return ycfg_int(&c, min, max, out, err);
}

int ycfg_opt_double(const struct ycfg_node *map, const char *key, double min, double max,
		    double def, double *out, struct scn_error *err)
{
	struct ycfg_node c;

	if (ycfg_get(map, key, &c)) {
		*out = def;
		return 0;
	}
	return ycfg_double(&c, min, max, out, err);
}

int ycfg_opt_bool(const struct ycfg_node *map, const char *key, bool def, bool *out,
		  struct scn_error *err)
{
	struct ycfg_node c;

	if (ycfg_get(map, key, &c)) {
		*out = def;
		return 0;
	}
	return ycfg_bool(&c, out, err);
}

int ycfg_opt_str(const struct ycfg_node *map, const char *key, const char *def,
		 const char **out, struct scn_error *err)
{
	struct ycfg_node c;

	if (ycfg_get(map, key, &c)) {
		*out = def;
		return 0;
	}
	return ycfg_str(&c, out, err);
}

int ycfg_req_int(const struct ycfg_node *map, const char *key, int64_t min, int64_t max,
		 int64_t *out, struct scn_error *err)
{
	struct ycfg_node c;
	int rc = ycfg_require(map, key, &c, err);

	return rc < 0 ? rc : ycfg_int(&c, min, max, out, err);
}

int ycfg_req_double(const struct ycfg_node *map, const char *key, double min, double max,
		    double *out, struct scn_error *err)
{
	struct ycfg_node c;
	int rc = ycfg_require(map, key, &c, err);

	return rc < 0 ? rc : ycfg_double(&c, min, max, out, err);
}

int ycfg_req_str(const struct ycfg_node *map, const char *key, const char **out,
		 struct scn_error *err)
{
	struct ycfg_node c;
	int rc = ycfg_require(map, key, &c, err);

	return rc < 0 ? rc : ycfg_str(&c, out, err);
}
