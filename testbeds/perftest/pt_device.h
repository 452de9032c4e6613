/* SPDX-License-Identifier: MIT */
/*
 * pt_device: what RNIC a host has: model, firmware, port state, link layer, MTU, line rate.
 *
 * Local hosts are asked through rdma-core (ibv_get_device_list, ibv_query_device,
 * ibv_query_port, ibv_query_gid) when libibverbs was found at build time (PT_HAVE_IBVERBS);
 * otherwise, and on remote hosts, `ibv_devinfo -v -d DEV` is run and its text parsed.
 * A missing device, a missing port or a port that is not ACTIVE is a device-class error
 * whose message says what was looked for, where and how.
 *
 * Plain value structs, no allocation.
 */
#ifndef PT_DEVICE_H
#define PT_DEVICE_H

#include <stdbool.h>

#include "common/scn_error.h"
#include "testbeds/perftest/pt_argv.h"

struct pt_devinfo {
	char device[64];
	char model[64];       /* "ConnectX-6 Dx", or "vendor 0x... part N" */
	char firmware[64];
	unsigned vendor_id, vendor_part_id;
	unsigned max_qp;
	unsigned port;
	int port_state;       /* ibv_port_state: 4 = ACTIVE */
	char link_layer[16];  /* "Ethernet", "InfiniBand" */
	unsigned active_mtu;  /* bytes */
	double line_rate_gbps;/* width x per-lane speed; 0 when unknown */
	char gid[64];         /* the configured GID index, "" when not asked or unknown */
};

/* True when this build asks rdma-core directly. */
bool pt_device_have_verbs(void);
/* Query DEV/PORT on this host. WHERE names the host in messages. */
int pt_device_query_local(const char *dev, unsigned port, int gid_index, const char *where,
			  struct pt_devinfo *out, struct scn_error *err);
/* argv of the remote query: ibv_devinfo -v -d DEV */
int pt_device_argv(const char *dev, struct pt_argv *out);
/* Parse `ibv_devinfo -v` TEXT for DEV/PORT (as printed; no "hca_id:" -> device error that
 * quotes the first line). WHERE/HOW name the host and the command in messages. */
int pt_device_parse_devinfo(const char *text, const char *dev, unsigned port, const char *where,
			    struct pt_devinfo *out, struct scn_error *err);
/* Marketing name of a PCI vendor/part id ("ConnectX-7"), or NULL. */
const char *pt_device_model_name(unsigned vendor_id, unsigned part_id);
const char *pt_port_state_name(int state); /* "ACTIVE", "DOWN", ... */
/* Fill o->model from the vendor/part ids (for the pt_device*.c files). */
void pt_devinfo_finish(struct pt_devinfo *o);

#endif
