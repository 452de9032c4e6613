/* SPDX-License-Identifier: MIT */
/*
 * pt_counters: RDMA port counters before and after a run, from sysfs:
 *   /sys/class/infiniband/DEV/ports/N/counters/NAME     IB port counters (port_xmit_data and
 *                                                       port_rcv_data count octets / 4)
 *   /sys/class/infiniband/DEV/ports/N/hw_counters/NAME  driver counters (out_of_sequence, ...)
 * Local hosts are read directly; remote hosts run `grep -r . DIR DIR` (pt_counters_argv)
 * and the "PATH:VALUE" lines are parsed. Names are kept as the driver names them, values
 * raw (no octet conversion), so they match what the simulator reports.
 *
 * Plain value structs, no allocation. Counters that cannot be read are left out.
 */
#ifndef PT_COUNTERS_H
#define PT_COUNTERS_H

#include "testbeds/perftest/pt_argv.h"
#include "testbeds/tb.h"

#define PT_MAX_COUNTERS 160

struct pt_counters {
	unsigned n;
	char name[PT_MAX_COUNTERS][48];
	double value[PT_MAX_COUNTERS];
};

/* Set (or add to, when ADD) counter NAME. -ENOSPC when full. */
int pt_counters_put(struct pt_counters *c, const char *name, double v, bool add);
/* Value of NAME or NAN. */
double pt_counters_get(const struct pt_counters *c, const char *name);

/* ROOT NULL: /sys/class/infiniband. -ENOENT when neither directory exists. */
int pt_counters_read_local(const char *root, const char *dev, unsigned port,
			   struct pt_counters *c);
/* The argv that prints both directories as PATH:VALUE lines on any host. */
int pt_counters_argv(const char *dev, unsigned port, struct pt_argv *out);
/* Parse such output (lines that are not "…/counters/NAME:NUMBER" or hw_counters are skipped).
 * Returns how many counters were read. */
int pt_counters_parse(const char *text, struct pt_counters *c);
/* SUM[name] += AFTER[name] - BEFORE[name] for names present in both. */
void pt_counters_delta(const struct pt_counters *before, const struct pt_counters *after,
		       struct pt_counters *sum);
/* Copy into the sample: first the names the simulator also reports, then the others in
 * order, while fewer than TB_MAX_COUNTERS - RESERVE are in the sample. */
void pt_counters_to_sample(const struct pt_counters *c, struct tb_sample *s, unsigned reserve);

#endif
