/* SPDX-License-Identifier: MIT */
/*
 * pt_net: /proc/net/tcp reading and the port allocator (pt_net.h). Assumes the Linux text
 * format of /proc/net/tcp{,6}; lines that do not parse are skipped.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_net.h"

/* Parse one table line into (port, state). false for the header and junk. */
static bool parse_line(const char *line, unsigned *port, unsigned *state)
{
	char local[80], remote[80];
	unsigned sl;
	const char *colon;

	if (sscanf(line, " %u: %79s %79s %x", &sl, local, remote, state) != 4)
		return false;
	colon = strrchr(local, ':');
	return colon && sscanf(colon + 1, "%x", port) == 1;
}

bool pt_tcp_table_has(const char *table, unsigned port, bool listen_only)
{
	const char *p = table;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		char line[256];
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		unsigned lport, st;

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		if (parse_line(line, &lport, &st) && lport == port &&
		    (listen_only ? st == 0x0A : st != 0x06))
			return true;
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

static int append_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "re");
	char chunk[8192];
	size_t n;

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		char *b = realloc(*buf, *len + n + 1);

		if (!b) {
			fclose(f);
			return -ENOMEM;
		}
		memcpy(b + *len, chunk, n);
		*len += n;
		b[*len] = '\0';
		*buf = b;
	}
	fclose(f);
	return 0;
}

int pt_tcp_table_local(char **out)
{
	size_t len = 0;
	int rc;

	*out = calloc(1, 1);
	if (!*out)
		return -ENOMEM;
	if ((rc = append_file("/proc/net/tcp", out, &len)) < 0 ||
	    (rc = append_file("/proc/net/tcp6", out, &len)) < 0) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* Invariant: next < count; taken has count entries. */
struct pt_ports {
	pthread_mutex_t lock;
	unsigned base, count, next;
	bool *taken;
};

int pt_ports_new(unsigned base, unsigned count, struct pt_ports **out)
{
	struct pt_ports *a;

	*out = NULL;
	if (count == 0 || base == 0 || base + count > 65536)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a || !(a->taken = calloc(count, sizeof(bool)))) {
		free(a);
		return -ENOMEM;
	}
	pthread_mutex_init(&a->lock, NULL);
	a->base = base;
	a->count = count;
	*out = a;
	return 0;
}

void pt_ports_free(struct pt_ports *a)
{
	if (!a)
		return;
	pthread_mutex_destroy(&a->lock);
	free(a->taken);
	free(a);
}

int pt_ports_get(struct pt_ports *a, const char *table, unsigned *port, struct scn_error *err)
{
	int rc = -EADDRINUSE;

	pthread_mutex_lock(&a->lock);
	for (unsigned k = 0; k < a->count; k++) {
		unsigned i = (a->next + k) % a->count;

		if (a->taken[i] || (table && pt_tcp_table_has(table, a->base + i, false)))
			continue;
		a->taken[i] = true;
		a->next = (i + 1) % a->count;
		*port = a->base + i;
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&a->lock);
	if (rc < 0)
		scn_error_set(err, SCN_ERR_TRANSIENT, rc, "no free TCP port in %u..%u for perftest",
			      a->base, a->base + a->count - 1);
	return rc;
}

void pt_ports_put(struct pt_ports *a, unsigned port)
{
	if (!a || port < a->base || port >= a->base + a->count)
		return;
	pthread_mutex_lock(&a->lock);
	a->taken[port - a->base] = false;
	pthread_mutex_unlock(&a->lock);
}
