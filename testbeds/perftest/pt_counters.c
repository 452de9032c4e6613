/* SPDX-License-Identifier: MIT */
/*
 * pt_counters: sysfs RDMA counters (pt_counters.h). Assumes each sysfs counter file holds one
 * unsigned decimal number; files that do not (or fail to read) are skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_counters.h"

#define SYSFS_IB "/sys/class/infiniband"

int pt_counters_put(struct pt_counters *c, const char *name, double v, bool add)
{
	if (strlen(name) >= sizeof(c->name[0]))
		return -EINVAL;
	for (unsigned i = 0; i < c->n; i++)
		if (strcmp(c->name[i], name) == 0) {
			c->value[i] = add ? c->value[i] + v : v;
			return 0;
		}
	if (c->n >= PT_MAX_COUNTERS)
		return -ENOSPC;
	snprintf(c->name[c->n], sizeof(c->name[0]), "%s", name);
	c->value[c->n++] = v;
	return 0;
}

double pt_counters_get(const struct pt_counters *c, const char *name)
{
	for (unsigned i = 0; i < c->n; i++)
		if (strcmp(c->name[i], name) == 0)
			return c->value[i];
	return NAN;
}

static bool parse_value(const char *s, double *v)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	*v = strtod(s, &end);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	return *end == '\0';
}

static int read_dir(const char *dir, struct pt_counters *c)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		char path[1024], buf[64];
		FILE *f;
		double v;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		if (fgets(buf, sizeof(buf), f) && parse_value(buf, &v))
			pt_counters_put(c, e->d_name, v, false);
		fclose(f);
	}
	closedir(d);
	return 0;
}

int pt_counters_read_local(const char *root, const char *dev, unsigned port,
			   struct pt_counters *c)
{
	char dir[768];
	int a, b;

	snprintf(dir, sizeof(dir), "%s/%s/ports/%u/counters", root ? root : SYSFS_IB, dev, port);
	a = read_dir(dir, c);
	snprintf(dir, sizeof(dir), "%s/%s/ports/%u/hw_counters", root ? root : SYSFS_IB, dev, port);
	b = read_dir(dir, c);
	return a < 0 && b < 0 ? -ENOENT : 0;
}

int pt_counters_argv(const char *dev, unsigned port, struct pt_argv *out)
{
	char a[512], b[512];

	snprintf(a, sizeof(a), SYSFS_IB "/%s/ports/%u/counters", dev, port);
	snprintf(b, sizeof(b), SYSFS_IB "/%s/ports/%u/hw_counters", dev, port);
	return pt_argv_addl(out, "grep", "-r", ".", a, b, NULL);
}

static void parse_line(const char *line, struct pt_counters *c, int *n)
{
	const char *colon = strrchr(line, ':'), *slash, *dir;
	char name[64];
	double v;

	if (!colon || !parse_value(colon + 1, &v))
		return;
	slash = colon;
	while (slash > line && slash[-1] != '/')
		slash--;
	if (slash == line || (size_t)(colon - slash) >= sizeof(name) || colon == slash)
		return;
	dir = slash - 1;
	while (dir > line && dir[-1] != '/')
		dir--;
	if (strncmp(dir, "counters/", 9) != 0 && strncmp(dir, "hw_counters/", 12) != 0)
		return;
	memcpy(name, slash, (size_t)(colon - slash));
	name[colon - slash] = '\0';
	if (pt_counters_put(c, name, v, false) == 0)
		(*n)++;
}

int pt_counters_parse(const char *text, struct pt_counters *c)
{
	int n = 0;

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[1024];

		if (len < sizeof(line)) {
			memcpy(line, p, len);
			line[len] = '\0';
			parse_line(line, c, &n);
		}
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

void pt_counters_delta(const struct pt_counters *before, const struct pt_counters *after,
		       struct pt_counters *sum)
{
	for (unsigned i = 0; i < after->n; i++) {
		double b = pt_counters_get(before, after->name[i]);

		if (!isnan(b))
			pt_counters_put(sum, after->name[i], after->value[i] - b, true);
	}
}

void pt_counters_to_sample(const struct pt_counters *c, struct tb_sample *s, unsigned reserve)
{
	static const char *const first[] = {
		"port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets",
		"out_of_buffer", "out_of_sequence", "packet_seq_err", "local_ack_timeout_err",
		"rnr_nak_retry_err", "np_cnp_sent", "rp_cnp_handled", "implied_nak_seq_err",
		"duplicate_request", "rx_write_requests", "rx_read_requests",
	};
	unsigned cap = TB_MAX_COUNTERS > reserve ? TB_MAX_COUNTERS - reserve : 0;

	for (size_t i = 0; i < sizeof(first) / sizeof(first[0]) && s->n_counters < cap; i++) {
		double v = pt_counters_get(c, first[i]);

		if (!isnan(v))
			tb_sample_add_counter(s, first[i], v);
	}
	for (unsigned i = 0; i < c->n && s->n_counters < cap; i++)
		if (isnan(tb_sample_counter(s, c->name[i])))
			tb_sample_add_counter(s, c->name[i], c->value[i]);
}
