/* SPDX-License-Identifier: MIT */
/*
 * pt_cmd: the perftest command line of one side of a run, from a trial's traffic spec.
 *
 *   BIN_DIR/ib_{send,write,read}_{bw,lat} -d DEV -i IB_PORT [-x GID] -c CONN -p TCP_PORT
 *       -s SIZE -m MTU [-n ITERS | -D SECONDS] -F [--report_gbits -q QPS -t TX_DEPTH]
 *       [-S TC] [--use_hugepages] [-R] [SERVER_IP]       (SERVER_IP: client only)
 * -q, -t and --report_gbits are BW-only (the LAT tests reject -q). page_size >= 2 MiB asks
 * for huge pages; traffic_class is the service level (-S), which RoCE maps to a priority. popularity, flows, cores, uar_spread and rule_churn have no perftest option
 * and are not passed (the rule set carries the flows).
 *
 * Ownership: the caller initialises and frees OUT.
 */
#ifndef PT_CMD_H
#define PT_CMD_H

#include "generators/gen.h"
#include "testbeds/perftest/pt_argv.h"
#include "testbeds/perftest/pt_inventory.h"

/* SERVER_IP NULL: the server side. 0, -EINVAL (class config) for traffic perftest cannot
 * run, -ENOMEM. */
int pt_cmd_argv(const struct pt_inventory *inv, const struct pt_host *h,
		const struct gen_traffic *t, unsigned tcp_port, const char *server_ip,
		struct pt_argv *out, struct scn_error *err);
/* Seconds the traffic is expected to take (duration, or the inventory's run_s). */
double pt_cmd_run_seconds(const struct pt_inventory *inv, const struct gen_traffic *t);

#endif
