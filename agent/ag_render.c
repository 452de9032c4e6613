/* SPDX-License-Identifier: MIT */
/*
 * ag_render: tc -batch lines that add a filter at a prio and delete a prio (see
 * ag_filter.h). The match and action arguments were rendered once, when the filter was
 * read (ag_tc_parse.c); actions are bound by index, so the kernel keeps the instances.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "agent/ag_filter.h"

static int fits(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int ag_render_add(const struct ag_filter *f, const char *dev, uint16_t pref, uint32_t handle,
		  char *buf, size_t len)
{
	return fits(snprintf(buf, len, "filter add dev %s ingress protocol %s chain 0 prio %u "
			     "handle %u flower %s %s", dev, f->proto, pref, handle, f->match,
			     f->actions), len);
}

int ag_render_del_one(const struct ag_filter *f, const char *dev, char *buf, size_t len)
{
	return fits(snprintf(buf, len, "filter del dev %s ingress protocol %s chain 0 prio %u "
			     "handle %u flower", dev, f->proto, f->pref, f->handle), len);
}

int ag_render_del(const char *proto, const char *dev, uint16_t pref, char *buf, size_t len)
{
	return fits(snprintf(buf, len, "filter del dev %s ingress protocol %s chain 0 prio %u",
			     dev, proto, pref), len);
}

static int put(FILE *out, const char *line, unsigned *lines)
{
	if (fprintf(out, "%s\n", line) < 0)
		return -EIO;
	++*lines;
	return 0;
}

int ag_render_move(FILE *out, const char *dev, const struct ag_filter *fs, const uint32_t *ids,
		   size_t n, uint16_t to, unsigned *lines)
{
	char line[2 * AG_ARGS_MAX + 128];

	for (size_t i = 0; i < n; i++) /* make ... */
		if (ag_render_add(&fs[ids[i]], dev, to, (uint32_t)i + 1, line, sizeof(line)) < 0 ||
		    put(out, line, lines) < 0)
			return -EIO;
	for (size_t i = 0; i < n; i++) { /* ... before break: each old prio once */
		const struct ag_filter *f = &fs[ids[i]];
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = fs[ids[j]].pref == f->pref;
		if (!seen && (ag_render_del(f->proto, dev, f->pref, line, sizeof(line)) < 0 ||
			      put(out, line, lines) < 0))
			return -EIO;
	}
	return 0;
}
