/* SPDX-License-Identifier: MIT */
/*
 * ag_render: tc -batch lines that add a filter at a prio and delete a prio (see
 * ag_filter.h). The match and action arguments were rendered once, when the filter was
 * read (ag_tc_parse.c); actions are bound by index, so the kernel keeps the instances.
 */
#include <errno.h>
#include <stdio.h>

#include "agent/ag_filter.h"

static int fits(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int ag_render_add(const struct ag_filter *f, const char *dev, uint16_t pref, char *buf,
		  size_t len)
{
	return fits(snprintf(buf, len, "filter add dev %s ingress protocol %s chain 0 prio %u "
			     "handle %u flower %s %s", dev, f->proto, pref, f->handle, f->match,
			     f->actions), len);
}

int ag_render_del(const char *proto, const char *dev, uint16_t pref, char *buf, size_t len)
{
	return fits(snprintf(buf, len, "filter del dev %s ingress protocol %s chain 0 prio %u",
			     dev, proto, pref), len);
}

int ag_render_move(FILE *out, const char *dev, const struct ag_filter *fs, const uint32_t *ids,
		   size_t n, uint16_t to, uint16_t from, unsigned *lines)
{
	char line[2 * AG_ARGS_MAX + 128];

	for (size_t i = 0; i < n; i++) { /* make ... */
		if (ag_render_add(&fs[ids ? ids[i] : i], dev, to, line, sizeof(line)) < 0 ||
		    fprintf(out, "%s\n", line) < 0)
			return -EIO;
		++*lines;
	}
	if (n == 0 || ag_render_del(fs[ids ? ids[0] : 0].proto, dev, from, line, sizeof(line)) < 0 ||
	    fprintf(out, "%s\n", line) < 0) /* ... before break */
		return -EIO;
	++*lines;
	return 0;
}
