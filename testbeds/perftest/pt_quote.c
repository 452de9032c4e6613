/* SPDX-License-Identifier: MIT */
/*
 * pt_quote: quoting for the remote POSIX shell that ssh hands our command to, and validation
 * of the names the inventory puts on command lines (pt_argv.h). Assumes the remote shell is
 * POSIX sh-compatible (dash, bash, busybox ash): inside single quotes nothing is special,
 * a newline included, so '...' with ' written as '\'' passes any byte string but NUL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_argv.h"

static bool safe_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_./:=@%+,-", c) != NULL;
}

static void put(char *buf, size_t len, size_t *at, char c)
{
	if (*at + 1 < len)
		buf[*at] = c;
	(*at)++;
}

size_t pt_sh_quote(const char *arg, char *buf, size_t len)
{
	size_t at = 0;
	bool plain = arg && *arg;

	for (const char *p = arg; plain && *p; p++)
		plain = safe_char(*p);
	if (plain) {
		for (const char *p = arg; *p; p++)
			put(buf, len, &at, *p);
	} else {
		put(buf, len, &at, '\'');
		for (const char *p = arg ? arg : ""; *p; p++) {
			if (*p == '\'') {
				put(buf, len, &at, '\'');
				put(buf, len, &at, '\\');
				put(buf, len, &at, '\'');
			}
			put(buf, len, &at, *p);
		}
		put(buf, len, &at, '\'');
	}
	if (len)
		buf[at < len ? at : len - 1] = '\0';
	return at;
}

char *pt_sh_join(char *const *argv)
{
	size_t total = 1, at = 0;
	char *s;

	for (size_t i = 0; argv && argv[i]; i++)
		total += pt_sh_quote(argv[i], NULL, 0) + 1;
	s = malloc(total);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; argv && argv[i]; i++) {
		if (i)
			s[at++] = ' ';
		at += pt_sh_quote(argv[i], s + at, total - at);
	}
	return s;
}

static int check(const char *what, const char *s, size_t max, const char *extra,
		 struct scn_error *err)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > max)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "%s must be 1..%zu characters "
				     "long", what, max);
	if (s[0] == '-' || s[0] == '.')
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "%s '%s' must not start with "
				     "'%c'", what, s, s[0]);
	for (const char *p = s; *p; p++) {
		char c = *p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr(extra, c))
			continue;
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "%s holds the character 0x%02x "
				     "at offset %td (allowed: letters, digits and '%s')", what,
				     (unsigned char)c, p - s, extra);
	}
	return 0;
}

int pt_valid_name(const char *what, const char *s, struct scn_error *err)
{
	return check(what, s, 63, "_.:-", err);
}

int pt_valid_host(const char *what, const char *s, struct scn_error *err)
{
	return check(what, s, 255, "_.:-", err);
}

int pt_valid_path(const char *what, const char *s, struct scn_error *err)
{
	if (!s || !*s || s[0] == '-' || strchr(s, '\n') || strchr(s, '\r'))
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "%s must be a non-empty path "
				     "without newlines that does not start with '-'", what);
	return 0;
}
