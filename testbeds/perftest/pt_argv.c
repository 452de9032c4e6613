/* SPDX-License-Identifier: MIT */
/*
 * pt_argv: growable argument vectors (pt_argv.h). Assumes arguments are C strings; a vector
 * is always NULL-terminated once it holds anything, so v can go straight to execve.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_argv.h"

void pt_argv_init(struct pt_argv *a)
{
	a->v = NULL;
	a->n = a->cap = 0;
}

void pt_argv_free(struct pt_argv *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	pt_argv_init(a);
}

static int push_owned(struct pt_argv *a, char *s)
{
	if (!s)
		return -ENOMEM;
	if (a->n + 1 >= a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			free(s);
			return -ENOMEM;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
	return 0;
}

int pt_argv_add(struct pt_argv *a, const char *s)
{
	return push_owned(a, strdup(s ? s : ""));
}

int pt_argv_addf(struct pt_argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	return push_owned(a, s);
}

int pt_argv_addv(struct pt_argv *a, char *const *list)
{
	int rc;

	for (size_t i = 0; list && list[i]; i++)
		if ((rc = pt_argv_add(a, list[i])) < 0)
			return rc;
	return 0;
}

int pt_argv_addl(struct pt_argv *a, ...)
{
	va_list ap;
	const char *s;
	int rc = 0;

	va_start(ap, a);
	while (!rc && (s = va_arg(ap, const char *)) != NULL)
		rc = pt_argv_add(a, s);
	va_end(ap);
	return rc;
}

int pt_argv_cat(struct pt_argv *a, const struct pt_argv *src)
{
	return src->n ? pt_argv_addv(a, src->v) : 0;
}
