/* SPDX-License-Identifier: MIT */
/*
 * hx_cli: shared CLI helpers: mapping error classes to exit codes and printing errors.
 */
#include <stdarg.h>
#include <stdio.h>

#include "harness/hx_cli.h"

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
