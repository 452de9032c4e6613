/* SPDX-License-Identifier: MIT */
/*
 * hx_cli: shared CLI helpers: mapping error classes to exit codes, printing errors, parsing
 * row ids and opening the results store the way the store-reading commands do.
 */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/cli/hx_cli.h"
#include "results/res.h"

int hx_exit_for(const struct scn_error *e)
{
	switch (e->cls) {
	case SCN_ERR_CONFIG:
	case SCN_ERR_USAGE:
		return HX_EXIT_USAGE;
	case SCN_ERR_DEVICE:
	case SCN_ERR_TIMEOUT:
	case SCN_ERR_TRANSIENT:
		return HX_EXIT_TESTBED;
	default:
		return HX_EXIT_USAGE;
	}
}

int hx_report_error(const struct scn_error *e)
{
	char buf[1024];

	fprintf(stderr, "scalacn: %s\n", scn_error_format(e, buf, sizeof(buf)));
	return hx_exit_for(e);
}

int hx_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "scalacn %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'scalacn help %s')\n", cmd);
	return HX_EXIT_USAGE;
}

int hx_bad_option(const char *cmd, char **argv)
{
	const char *opt = argv[optind - 1];

	if (!strcmp(opt, "--json"))
		return hx_usage_error(cmd, "--json: '%s' has no JSON output", cmd);
	return hx_usage_error(cmd, "unknown or incomplete option '%s'", opt);
}

int hx_no_operands(const char *cmd, int argc, char **argv)
{
	if (optind != argc)
		return hx_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	return 0;
}

int hx_parse_id(const char *cmd, const char *opt, const char *what, const char *arg,
		long long *out)
{
	char *end;

	*out = strtoll(arg, &end, 10);
	if (*end || *out < 1)
		return hx_usage_error(cmd, "%s takes a %s id, not '%s'", opt, what, arg);
	return 0;
}

int hx_open_store(const char *path, struct res_db **db)
{
	struct scn_error err;
	int rc = res_open(path, false, db, &err);

	if (rc == -ENOENT) {
		fprintf(stderr, "scalacn: no results database at %s (run a campaign first, or give --db)\n",
			path);
		return HX_EXIT_USAGE;
	}
	return rc < 0 ? hx_report_error(&err) : 0;
}

int hx_open_store_ro(const char *path, struct res_db **db)
{
	struct scn_error err;
	int rc = res_open_ro(path, db, &err);

	if (rc == -ENOENT && access(path, F_OK) != 0) {
		fprintf(stderr, "scalacn: no results database at %s (run a campaign first, or give --db)\n",
			path);
		return HX_EXIT_USAGE;
	}
	return rc < 0 ? hx_report_error(&err) : 0;
}

void hx_provenance_warn(const char *cmd, const struct res_campaign *c)
{
	char why[768];

	for (int tb = 0; tb < 2; tb++)
		if (hx_provenance_changed(c, tb, why, sizeof(why)))
			fprintf(stderr, "scalacn %s: warning: %s\n", cmd, why);
}

const char *hx_thousands(double v, char *buf, size_t len)
{
	char digits[32];
	int n, at = 0, out = 0;

	if (!isfinite(v) || fabs(v) >= 1e15) { /* beyond separators: one exponent notation */
		snprintf(buf, len, "%.3e", v);
		return buf;
	}
	n = snprintf(digits, sizeof(digits), "%.0f", fabs(v));

	if (v < 0 && out + 1 < (int)len)
		buf[out++] = '-';
	for (; at < n && out + 2 < (int)len; at++) {
		if (at && (n - at) % 3 == 0)
			buf[out++] = ',';
		buf[out++] = digits[at];
	}
	buf[out] = '\0';
	return buf;
}

const char *hx_path_display(const char *path, char *buf, size_t len)
{
	char *abs = path ? realpath(path, NULL) : NULL;

	snprintf(buf, len, "%s", abs ? abs : path ? path : "");
	free(abs);
	return buf;
}

int hx_grow(void **arr, size_t size, unsigned long n, unsigned long *cap)
{
	unsigned long want = *cap ? 2 * *cap : 16;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*arr, want * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = want;
	return 0;
}
