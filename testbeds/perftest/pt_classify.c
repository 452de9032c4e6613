/* SPDX-License-Identifier: MIT */
/*
 * pt_classify: perftest stderr -> an error class, the line that shows it, and the work
 * completion status when one was printed.
 *
 * Assumes the messages of perftest 6.06 / v4.5-0.17 and rdma-core 44 (docs/background.md):
 * each known message is a fixed substring (matched without regard to case); some need two
 * substrings on one line ("IB device" + "not found"). Lines that are known harmless warnings
 * ("Device not recognized to implement inline feature. Disabling it", "WARNING: ...") are
 * ignored; any other non-empty line makes the text at least PT_ERR_UNKNOWN.
 */
#include "testbeds/perftest/pt_parse.h"

#include <stdlib.h>
#include <string.h>

struct pattern {
	const char *a, *b; /* both must occur on the line (b may be NULL) */
	enum pt_err err;
};

static const struct pattern patterns[] = {
	{ "Did not detect devices", NULL, PT_ERR_NO_DEVICE },
	{ "Unable to find the Infiniband/RoCE device", NULL, PT_ERR_NO_DEVICE },
	{ "IB device", "not found", PT_ERR_NO_DEVICE },
	{ "No IB devices found", NULL, PT_ERR_NO_DEVICE },
	{ "Failed to get IB devices list", NULL, PT_ERR_NO_DEVICE },
	{ "Couldn't get device list", NULL, PT_ERR_NO_DEVICE },
	{ "Couldn't get context for", NULL, PT_ERR_NO_DEVICE },
	{ "Port number", "state is", PT_ERR_PORT_DOWN },
	{ "Unable to query port", NULL, PT_ERR_PORT_DOWN },
	{ "Couldn't connect to", NULL, PT_ERR_CONN_REFUSED },
	{ "Unable to connect", NULL, PT_ERR_CONN_REFUSED },
	{ "Connection refused", NULL, PT_ERR_CONN_REFUSED },
	{ "Unable to init the socket connection", NULL, PT_ERR_CONN_REFUSED },
	{ "Unable to open file descriptor for socket connection", NULL, PT_ERR_CONN_REFUSED },
	{ "Couldn't listen to port", NULL, PT_ERR_PORT_BUSY },
	{ "Address already in use", NULL, PT_ERR_PORT_BUSY },
	{ "Couldn't bind", NULL, PT_ERR_PORT_BUSY },
	{ "Completion with error", NULL, PT_ERR_COMPLETION },
	{ "Failed status", NULL, PT_ERR_COMPLETION },
	{ "Poll send CQ error", NULL, PT_ERR_COMPLETION },
	{ "poll CQ failed", NULL, PT_ERR_COMPLETION },
	{ "Couldn't read remote address", NULL, PT_ERR_PEER_GONE },
	{ "Failed to exchange data between server and clients", NULL, PT_ERR_PEER_GONE },
	{ "Connection reset", NULL, PT_ERR_PEER_GONE },
	{ "Broken pipe", NULL, PT_ERR_PEER_GONE },
	{ "Can't produce a report", NULL, PT_ERR_REPORT },
	{ "Correlation coefficient", NULL, PT_ERR_REPORT },
	{ "invalid option", NULL, PT_ERR_USAGE },
	{ "unrecognized option", NULL, PT_ERR_USAGE },
	{ "requires an argument", NULL, PT_ERR_USAGE },
	{ "Invalid Command", NULL, PT_ERR_USAGE },
	{ "should be between", NULL, PT_ERR_USAGE },
	{ "Illegal", NULL, PT_ERR_USAGE },
};

/* Harmless: printed by successful runs. */
static const char *const benign[] = {
	"not recognized to implement inline feature",
	"warning",
	"Conflicting CPU frequency values detected",
	"Requested mtu is higher than active mtu",
	"Waiting for client",
};

static bool has_ci(const char *s, const char *p)
{
	return strcasestr(s, p) != NULL;
}

static enum pt_err line_class(const char *s)
{
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (has_ci(s, patterns[i].a) && (!patterns[i].b || has_ci(s, patterns[i].b)))
			return patterns[i].err;
	for (size_t i = 0; i < sizeof(benign) / sizeof(benign[0]); i++)
		if (has_ci(s, benign[i]))
			return PT_ERR_NONE;
	return PT_ERR_UNKNOWN;
}

/* "Failed status 12: wr_id 0 syndrom 0x81" -> 12; -1 when absent. */
static int wc_status_of(const char *s)
{
	const char *p = strcasestr(s, "Failed status");
	char *end;
	long v;

	if (!p)
		return -1;
	p += strlen("Failed status");
	v = strtol(p, &end, 10);
	return end != p && v >= 0 && v < 1000 ? (int)v : -1;
}

static void copy_cut(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Copy a line (NULs become blanks), trimmed, into buf. */
static void take_line(char *buf, size_t cap, const char *p, size_t n)
{
	size_t b = 0, e = n;

	while (b < e && strchr(" \t\r\v\f", p[b]) && p[b])
		b++;
	while (e > b && strchr(" \t\r\v\f", p[e - 1]) && p[e - 1])
		e--;
	n = e - b < cap ? e - b : cap - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = p[b + i] ? p[b + i] : ' ';
	buf[n] = '\0';
}

enum pt_err pt_classify_stderr(const char *text, size_t len, struct pt_diag *d)
{
	struct pt_diag best = { .err = PT_ERR_NONE, .wc_status = -1 };
	char buf[1024];
	size_t pos = 0;
	unsigned ln = 0;

	while (text && pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		enum pt_err e;

		ln++;
		take_line(buf, sizeof(buf), text + pos, n);
		pos += n + (nl ? 1 : 0);
		if (!buf[0])
			continue;
		if (best.wc_status < 0)
			best.wc_status = wc_status_of(buf);
		e = line_class(buf);
		if (e != PT_ERR_NONE && (best.err == PT_ERR_NONE || e < best.err)) {
			best.err = e;
			best.line = ln;
			copy_cut(best.message, sizeof(best.message), buf);
		}
	}
	if (d)
		*d = best;
	return best.err;
}

const char *pt_err_name(enum pt_err e)
{
	static const char *const n[] = { "none",      "no_device", "port_down", "conn_refused",
					 "port_busy", "completion", "peer_gone", "report",
					 "usage",     "unknown" };
	return (size_t)e < sizeof(n) / sizeof(n[0]) ? n[e] : "?";
}

enum scn_errclass pt_err_class(enum pt_err e)
{
	switch (e) {
	case PT_ERR_NONE:
		return SCN_ERR_NONE;
	case PT_ERR_NO_DEVICE:
	case PT_ERR_PORT_DOWN:
		return SCN_ERR_DEVICE;
	case PT_ERR_USAGE:
		return SCN_ERR_CONFIG;
	case PT_ERR_CONN_REFUSED:
	case PT_ERR_PORT_BUSY:
	case PT_ERR_COMPLETION:
	case PT_ERR_PEER_GONE:
	case PT_ERR_REPORT:
	case PT_ERR_UNKNOWN:
	default:
		return SCN_ERR_TRANSIENT;
	}
}
