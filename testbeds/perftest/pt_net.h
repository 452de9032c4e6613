/* SPDX-License-Identifier: MIT */
/*
 * pt_net: the TCP side of perftest's out-of-band exchange: is a port in use or listening
 * (from /proc/net/tcp text, local or fetched from a remote host), and which port a new
 * server may take.
 *
 * Never probe a perftest server by connecting to it: the server takes the probe for its one
 * client (docs/background.md). So LISTEN is read from the kernel's socket table instead:
 * "/proc/net/tcp" and "/proc/net/tcp6" lines "sl local_address rem_address st ...", the
 * local port in hex after the last ':', state 0A = LISTEN, 06 = TIME_WAIT.
 *
 * Ports: an allocator hands out ports of [base, base + count) that it has not handed out
 * and that the socket table does not show in use (any state but TIME_WAIT), round robin so
 * consecutive runs move on. It is thread-safe. Ownership: pt_ports_new / pt_ports_free (NULL
 * ok); pt_tcp_table_local returns a malloc'd string the caller free()s.
 */
#ifndef PT_NET_H
#define PT_NET_H

#include <stdbool.h>
#include <stddef.h>

#include "common/scn_error.h"

/* Does TABLE show a socket bound to local PORT: listening only (LISTEN) or in any state but
 * TIME_WAIT (!listen_only)? */
bool pt_tcp_table_has(const char *table, unsigned port, bool listen_only);
/* Read /proc/net/tcp and /proc/net/tcp6 of this host into one string. 0 or -errno. */
int pt_tcp_table_local(char **out);

struct pt_ports;
int pt_ports_new(unsigned base, unsigned count, struct pt_ports **out);
void pt_ports_free(struct pt_ports *a);
/* Take a port free in TABLE (NULL: nothing known in use). -EADDRINUSE when none is left
 * (class transient). */
int pt_ports_get(struct pt_ports *a, const char *table, unsigned *port, struct scn_error *err);
void pt_ports_put(struct pt_ports *a, unsigned port);

#endif
