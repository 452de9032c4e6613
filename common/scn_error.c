/* SPDX-License-Identifier: MIT */
/*
 * scn_error: filling and formatting the shared error record (see scn_error.h).
 */
#include "common/scn_error.h"

#include <stdio.h>
#include <string.h>

void scn_error_clear(struct scn_error *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}

int scn_error_set(struct scn_error *e, enum scn_errclass cls, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	scn_error_clear(e);
	e->cls = cls;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	return code;
}

int scn_error_at(struct scn_error *e, const char *file, int line, int column, const char *key,
		 int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	scn_error_clear(e);
	e->cls = SCN_ERR_CONFIG;
	e->code = code;
	snprintf(e->file, sizeof(e->file), "%s", file ? file : "");
	e->line = line;
	e->column = column;
	snprintf(e->key, sizeof(e->key), "%s", key ? key : "");
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	return code;
}

void scn_error_prefix(struct scn_error *e, const char *fmt, ...)
{
	char joined[sizeof(e->message) + 256];
	size_t n;
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	n = (size_t)vsnprintf(joined, 256, fmt, ap);
	va_end(ap);
	if (n > 255)
		n = 255;
	memcpy(joined + n, e->message, strnlen(e->message, sizeof(e->message) - 1) + 1);
	joined[sizeof(e->message) - 1] = '\0'; /* keep what fits */
	memcpy(e->message, joined, sizeof(e->message));
}

const char *scn_error_format(const struct scn_error *e, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (e->file[0]) {
		if (e->line > 0 && e->column > 0)
			n = (size_t)snprintf(buf, len, "%s:%d:%d: ", e->file, e->line, e->column);
		else if (e->line > 0)
			n = (size_t)snprintf(buf, len, "%s:%d: ", e->file, e->line);
		else
			n = (size_t)snprintf(buf, len, "%s: ", e->file);
	}
	if (n < len && e->key[0])
		n += (size_t)snprintf(buf + n, len - n, "%s: ", e->key);
	if (n < len)
		snprintf(buf + n, len - n, "%s", e->message[0] ? e->message : "unknown error");
	return buf;
}

const char *scn_errclass_name(enum scn_errclass cls)
{
	static const char *const names[] = {
		[SCN_ERR_NONE] = "none",	 [SCN_ERR_CONFIG] = "config",
		[SCN_ERR_USAGE] = "usage",	 [SCN_ERR_TRANSIENT] = "transient",
		[SCN_ERR_DEVICE] = "device",	 [SCN_ERR_TIMEOUT] = "timeout",
		[SCN_ERR_STORE] = "store",	 [SCN_ERR_INTERNAL] = "internal",
	};
	if ((unsigned)cls < sizeof(names) / sizeof(names[0]) && names[cls])
		return names[cls];
	return "unknown";
}
