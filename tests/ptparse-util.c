/* SPDX-License-Identifier: MIT */
/*
 * ptparse-util: reading fixture files and rxe-qemu command records for the ptparse tests.
 * Assumes $SCALACN_FIXTURES is set (tests/meson.build: tests/fixtures/); a missing variable,
 * file or folder ends the test at once with a message naming the path.
 */
#include "tests/ptparse-util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *ptu_read_path(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = '\0';
			*len = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

/* $SCALACN_FIXTURES, or a clear exit naming what is missing (tests/meson.build sets it). */
static const char *fixtures_root(void)
{
	const char *root = getenv("SCALACN_FIXTURES");

	if (!root || !*root) {
		fprintf(stderr, "SCALACN_FIXTURES is not set (run the tests with `meson test`)\n");
		exit(1);
	}
	return root;
}

char *ptu_read_fixture(const char *rel, size_t *len)
{
	char path[1024];
	char *text;

	snprintf(path, sizeof(path), "%s/%s", fixtures_root(), rel);
	text = ptu_read_path(path, len);
	if (!text) {
		fprintf(stderr, "missing fixture %s: %s (see tests/fixtures/README.md)\n", path,
			strerror(errno));
		exit(1);
	}
	return text;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct ptu_list ptu_list_fixtures(const char *reldir, const char *suffix)
{
	struct ptu_list l = { NULL, 0 };
	char path[1024];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", fixtures_root(), reldir);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "missing fixture folder %s: %s (see tests/fixtures/README.md)\n", path,
			strerror(errno));
		exit(1);
	}
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name), sl = strlen(suffix);
		char **grown;

		if (de->d_name[0] == '.' || nl <= sl || strcmp(de->d_name + nl - sl, suffix) != 0)
			continue;
		grown = realloc(l.names, (l.n + 1) * sizeof(*l.names));
		if (!grown)
			break;
		l.names = grown;
		l.names[l.n] = malloc(strlen(reldir) + nl + 1);
		if (!l.names[l.n])
			break;
		sprintf(l.names[l.n++], "%s%s", reldir, de->d_name);
	}
	closedir(d);
	if (l.n)
		qsort(l.names, l.n, sizeof(*l.names), cmp_names);
	return l;
}

void ptu_list_free(struct ptu_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	l->names = NULL;
	l->n = 0;
}

bool ptu_mem_has(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

static void verb_kind(struct ptu_cmd *c)
{
	static const struct {
		const char *name;
		enum pt_verb v;
	} verbs[] = { { "send", PT_VERB_SEND }, { "write", PT_VERB_WRITE },
		      { "read", PT_VERB_READ }, { "atomic", PT_VERB_ATOMIC } };

	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strstr(c->argv0, verbs[i].name))
			c->verb = verbs[i].v;
	c->kind = strstr(c->argv0, "_lat") ? PT_KIND_LAT : PT_KIND_BW;
}

static void take_args(struct ptu_cmd *c, char *argv)
{
	char *save = NULL, *t = strtok_r(argv, " ", &save);

	snprintf(c->argv0, sizeof(c->argv0), "%s", t ? t : "");
	while (t && (t = strtok_r(NULL, " ", &save))) {
		char *val = NULL;

		if (!strcmp(t, "-d") || !strcmp(t, "-x") || !strcmp(t, "-n") || !strcmp(t, "-q") ||
		    !strcmp(t, "-D") || !strcmp(t, "-g"))
			val = strtok_r(NULL, " ", &save);
		if (!strcmp(t, "-d") && val)
			snprintf(c->dev, sizeof(c->dev), "%s", val);
		else if (!strcmp(t, "-n") && val)
			c->iters = atoi(val);
		else if (!strcmp(t, "-q") && val)
			c->qps = atoi(val);
		else if (!strcmp(t, "-D"))
			c->duration = true;
		c->rdma_cm |= !strcmp(t, "-R");
		c->bidir |= !strcmp(t, "-b");
		c->gbits |= !strcmp(t, "--report_gbits");
		c->all |= !strcmp(t, "-a");
		c->client |= t[0] != '-' && !val;
	}
	verb_kind(c);
}

bool ptu_read_cmd(const char *rel, struct ptu_cmd *c)
{
	size_t len;
	char *text = ptu_read_fixture(rel, &len), *nl, *rc;

	memset(c, 0, sizeof(*c));
	c->qps = 1;
	c->rc = -1;
	if (!text)
		return false;
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	rc = nl ? strstr(nl + 1, "rc=") : NULL;
	if (rc)
		c->rc = atoi(rc + 3);
	take_args(c, text);
	free(text);
	return true;
}
