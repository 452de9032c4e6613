/* SPDX-License-Identifier: MIT */
/*
 * ptfake: fake perftest tools for tests of the perftest testbed (test-ptfaults, and the e2e
 * tests that run campaigns on it). A fake tool is a bash script: given -p PORT and no
 * address it is a server (python3) that accepts one connection and waits for the client to
 * close it; with an IPv4 address last it is a client that connects and then sources a bash
 * fragment of the test's choosing (print a perftest table, print "inf", fail, sleep...).
 * Needs bash and python3 (ptf_usable says whether they are there: skip otherwise).
 *
 * Ownership: strings returned are malloc'd and freed by the caller; ptf_rmdir removes a
 * directory made by ptf_dir and frees its name.
 */
#ifndef PTFAKE_H
#define PTFAKE_H

#include <stdbool.h>

bool ptf_usable(void);
/* A fresh directory /tmp/ptfake-PID-N. */
char *ptf_dir(void);
void ptf_rmdir(char *dir);
/* Write DIR/NAME with TEXT (mode 0755 when EXEC). Returns the path. */
char *ptf_write(const char *dir, const char *name, const char *text, bool exec);
/* Fake TOOL ("ib_write_lat") in DIR whose client runs CLIENT (bash, fd 3 connected to the
 * server; $dir is DIR). The server writes its pid to DIR/server.pid. */
void ptf_tool(const char *dir, const char *tool, const char *client);
/* A perftest testbed file in DIR: two hosts reached by TRANSPORT ("local", or "kubectl"
 * with pod p), perftest from BIN_DIR, ports from PORT_BASE, RETRIES. Returns the path. */
char *ptf_inventory(const char *dir, const char *bin_dir, const char *transport,
		    unsigned port_base, unsigned retries);
/* A port range of 16 unlikely to collide with another test running now. */
unsigned ptf_port_base(unsigned offset);
/* BODY preceded by a counter: $n is 1 for the first client started in $dir, 2 for the
 * next... (kept in $dir/n). Malloc'd. */
char *ptf_counting(const char *body);
/* A fake kubectl in DIR (runs what follows "--" here) and a fake ibv_devinfo (a captured
 * Soft-RoCE rxe0, from $SCALACN_FIXTURES): with DIR first in PATH, a kubectl testbed is
 * described and measured on this host, so campaigns run through the real binary. */
void ptf_kubectl(const char *dir);
/* A perftest latency client table whose median (and average) is MEDIAN (text: "44.27",
 * "inf", "0.00"). Malloc'd. */
char *ptf_lat_table(const char *median);

#endif
