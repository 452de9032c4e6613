/* SPDX-License-Identifier: MIT */
/*
 * test-sim-util: helpers of the simulator's tests (see test-sim-util.h). Test-only code: setup
 * failures abort. Assumes SCALACN_SOURCE_ROOT names the source tree (meson's test_env).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test-sim-util.h"

static void die(const char *what)
{
	fprintf(stderr, "sim-util: %s\n", what);
	abort();
}

char *su_profile_text(const char *name)
{
	const char *root = getenv("SCALACN_SOURCE_ROOT");
	char path[1024];
	FILE *f;
	long n;
	char *buf;

	snprintf(path, sizeof(path), "%s/testbeds/sim/profiles/%s.yaml", root ? root : ".",
		 name);
	f = fopen(path, "rb");
	if (!f)
		die(path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		die("read profile");
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Start of line holding "KEY:" at INDENT within [from, to). */
static char *find_key(char *from, char *to, const char *key, int indent)
{
	size_t kl = strlen(key);

	for (char *p = from; p && p < to; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		int sp = 0;

		while (p[sp] == ' ')
			sp++;
		if (sp == indent && strncmp(p + sp, key, kl) == 0 && p[sp + kl] == ':')
			return p;
	}
	return NULL;
}

void su_set(char **text, const char *section, const char *key, const char *value)
{
	char *t = *text, *from = t, *to = t + strlen(t), *line, *eol, *out;
	int indent = 0;

	if (section) {
		char *s = find_key(t, to, section, 0), *next;

		if (!s)
			die(section);
		from = strchr(s, '\n') + 1;
		for (next = from; *next && (*next == ' ' || *next == '\n' || *next == '#');) {
			char *nl = strchr(next, '\n');

			if (!nl) {
				next += strlen(next);
				break;
			}
			next = nl + 1;
		}
		to = next;
		indent = 2;
	}
	line = find_key(from, to, key, indent);
	if (!line)
		die(key);
	eol = strchr(line, '\n');
	if (!eol)
		eol = line + strlen(line);
	out = malloc(strlen(t) + strlen(key) + strlen(value) + 16);
	if (!out)
		die("oom");
	sprintf(out, "%.*s%*s%s: %s%s", (int)(line - t), t, indent, "", key, value, eol);
	free(t);
	*text = out;
}

static const char *const mechanisms[] = { "steering", "steering_cache", "rule_capacity",
	"encap_contexts", "rule_programming", "qp_cache", "uar", "traffic_class", "noise", NULL };

void su_enable(char **text, const char *section, int on)
{
	su_set(text, section, "enabled", on ? "true" : "false");
}

void su_all_off(char **text)
{
	for (int i = 0; mechanisms[i]; i++)
		su_enable(text, mechanisms[i], 0);
}

int su_line_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	int line = 1;

	if (!p)
		return 0;
	for (const char *q = text; q < p; q++)
		line += *q == '\n';
	return line;
}

const char *su_write_testbed(const char *profile_text, char *buf, size_t len)
{
	char dir[] = "/tmp/scn-sim-XXXXXX", path[512];
	FILE *f;

	if (!mkdtemp(dir))
		die("mkdtemp");
	snprintf(path, sizeof(path), "%s/profile.yaml", dir);
	f = fopen(path, "w");
	if (!f || fputs(profile_text, f) < 0)
		die("write profile");
	fclose(f);
	snprintf(buf, len, "%s/testbed.yaml", dir);
	f = fopen(buf, "w");
	if (!f || fputs("kind: sim\nprofile: profile.yaml\nname: test\n", f) < 0)
		die("write testbed");
	fclose(f);
	return buf;
}

/* Remove the files and directory su_write_testbed made for testbed file PATH. */
void su_remove(const char *path)
{
	char dir[512], f[600];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(f, sizeof(f), "%s/profile.yaml", dir);
	unlink(f);
	unlink(path);
	rmdir(dir);
}

struct tb *su_open_text(const char *text)
{
	char path[512], msg[1024];
	struct scn_error err;
	struct tb *tb = NULL;
	int rc;

	scn_error_clear(&err);
	rc = tb_open(su_write_testbed(text, path, sizeof(path)), &tb, &err);
	su_remove(path);
	if (rc < 0) {
		fprintf(stderr, "%s\n", scn_error_format(&err, msg, sizeof(msg)));
		die("tb_open");
	}
	return tb;
}

void su_levels(struct gen_levels *l, uint32_t flows, uint32_t ce, uint32_t cd, uint32_t se,
	       uint32_t sd)
{
	gen_levels_neutral(l);
	l->flows = flows;
	l->masks[GEN_CLIENT][GEN_ENCAP] = ce;
	l->masks[GEN_CLIENT][GEN_DECAP] = cd;
	l->masks[GEN_SERVER][GEN_ENCAP] = se;
	l->masks[GEN_SERVER][GEN_DECAP] = sd;
}

struct gen_rules *su_rules(const struct gen_levels *l)
{
	struct gen_rules *r = NULL;
	struct scn_error err;
	char msg[1024];

	scn_error_clear(&err);
	if (gen_rules_build(NULL, NULL, l, 1, &r, &err) < 0) {
		fprintf(stderr, "%s\n", scn_error_format(&err, msg, sizeof(msg)));
		die("gen_rules_build");
	}
	return r;
}

void su_run(struct tb *tb, const struct gen_levels *l, uint64_t seed, struct tb_sample *out)
{
	struct gen_rules *r = su_rules(l);
	struct gen_traffic t;
	struct scn_error err;

	gen_traffic_from_levels(l, &t);
	if (tb_apply(tb, r, &err) < 0 || tb_measure(tb, &t, seed, out, &err) < 0)
		die("apply/measure");
	gen_rules_free(r);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double su_median(struct tb *tb, const struct gen_levels *l, int n)
{
	struct gen_rules *r = su_rules(l);
	struct gen_traffic t;
	struct scn_error err;
	double v[64];

	gen_traffic_from_levels(l, &t);
	if (n > 64 || tb_apply(tb, r, &err) < 0)
		die("apply");
	for (int i = 0; i < n; i++) {
		struct tb_sample s;

		if (tb_measure(tb, &t, 1000 + (uint64_t)i, &s, &err) < 0)
			die("measure");
		v[i] = l->metric == GEN_METRIC_BW ? s.bw_gbps : s.lat_median_us;
	}
	gen_rules_free(r);
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

/* ---- checks and testbeds of the tests (cmocka) ---------------------------------------- */

void within(double got, double want, double tol, const char *what)
{
	double rel = fabs(got - want) / want;

	if (rel > tol)
		fail_msg("%s: got %.4g, want %.4g (+-%.0f%%), off by %.1f%%", what, got, want,
			 tol * 100, rel * 100);
}

/* A profile with only MECH switched on (NULL: none). Caller frees. */
char *only(const char *mech)
{
	char *t = su_profile_text("cx7");

	su_all_off(&t);
	if (mech)
		su_enable(&t, mech, 1);
	return t;
}

struct tb *open_only(const char *mech)
{
	char *t = only(mech);
	struct tb *tb = su_open_text(t);

	free(t);
	return tb;
}

void bw_levels(struct gen_levels *l, enum topo_verb v, uint32_t size, uint32_t mtu)
{
	l->verb = v;
	l->metric = GEN_METRIC_BW;
	l->msg_size = size;
	l->mtu = mtu;
}

struct tb *open_shipped(const char *name)
{
	char *t = su_profile_text(name);
	struct tb *tb = su_open_text(t);

	free(t);
	return tb;
}
