/* SPDX-License-Identifier: MIT */
/*
 * gen_assign: parse one "name=value" dimension assignment (command line, plan overrides) and
 * apply it with gen_levels_set (see gen.h). Values: a categorical level's name (case does not
 * matter) or its index; a number with an optional K, M or G suffix (x1024, x1024^2, x1024^3).
 * Spaces around the name and the value are ignored. Errors are class config.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "generators/gen.h"

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

/* Parse a number with an optional K/M/G suffix. 0 or -EINVAL. */
static int parse_number(const char *s, double *out)
{
	char *end;
	double v, mult = 1;

	if (!*s)
		return -EINVAL;
	v = strtod(s, &end);
	if (end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mult = 1024.0; end++; break;
	case 'm': case 'M': mult = 1048576.0; end++; break;
	case 'g': case 'G': mult = 1073741824.0; end++; break;
	default: break;
	}
	if (*end != '\0' || !isfinite(v))
		return -EINVAL;
	*out = v * mult;
	return 0;
}

static int categorical_value(const struct gen_dimension *d, const char *v, double *out,
			     struct scn_error *err)
{
	char allowed[256];
	size_t n = 0;

	for (unsigned i = 0; d->names && i < d->n_levels; i++)
		if (strcasecmp(d->names[i], v) == 0) {
			*out = i;
			return 0;
		}
	if (parse_number(v, out) == 0)
		return 0;
	allowed[0] = '\0';
	for (unsigned i = 0; i < d->n_levels && n < sizeof(allowed); i++) {
		if (d->names)
			n += (size_t)snprintf(allowed + n, sizeof(allowed) - n, "%s%s",
					      i ? ", " : "", d->names[i]);
		else
			n += (size_t)snprintf(allowed + n, sizeof(allowed) - n, "%s%u",
					      i ? ", " : "", i);
	}
	return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "%s: '%s' is not one of %s", d->name,
			     v, allowed);
}

static int unknown_dimension(const char *name, struct scn_error *err)
{
	char known[400];
	size_t n = 0;

	known[0] = '\0';
	for (unsigned i = 0; i < gen_dimension_count() && n < sizeof(known); i++)
		n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s", i ? ", " : "",
				      gen_dimension_at(i)->name);
	return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "unknown dimension '%s' (known: %s)",
			     name, known);
}

int gen_levels_assign(struct gen_levels *l, const char *assignment, struct scn_error *err)
{
	char buf[256], *eq, *name, *value;
	const struct gen_dimension *d;
	double level;
	int rc;

	if (!assignment || strlen(assignment) >= sizeof(buf))
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "dimension assignment missing or longer than %zu bytes",
				     sizeof(buf) - 1);
	strcpy(buf, assignment);
	eq = strchr(buf, '=');
	if (!eq)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "'%s': expected name=value", assignment);
	*eq = '\0';
	name = buf;
	value = eq + 1;
	trim(name);
	trim(value);
	d = gen_dimension_find(name);
	if (!d)
		return unknown_dimension(name, err);
	if (d->kind == GEN_DIM_CATEGORICAL) {
		rc = categorical_value(d, value, &level, err);
		if (rc)
			return rc;
	} else if (parse_number(value, &level) != 0) {
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "%s: '%s' is not a number (suffixes K, M, G allowed)", name,
				     value);
	}
	return gen_levels_set(l, d, level, err);
}
