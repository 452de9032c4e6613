/* SPDX-License-Identifier: MIT */
/*
 * pt_device: local RDMA device discovery (pt_device.h). With PT_HAVE_IBVERBS (meson found
 * libibverbs) rdma-core is asked directly; without it `ibv_devinfo -v -d DEV` is run and
 * parsed. Assumes ibv_get_device_list returns NULL (errno ENOSYS on kernels without RDMA) or
 * an empty list when there is no device (docs/background.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "testbeds/perftest/pt_config.h"
#include "testbeds/perftest/pt_device.h"

#ifdef PT_HAVE_IBVERBS
#include <infiniband/verbs.h>

bool pt_device_have_verbs(void)
{
	return true;
}

static double width_of(uint8_t w)
{
	return w == 1 ? 1 : w == 2 ? 4 : w == 4 ? 8 : w == 8 ? 12 : w == 16 ? 2 : 0;
}

static double lane_of(uint8_t s)
{
	switch (s) {
	case 1: return 2.5;
	case 2: return 5;
	case 4: case 8: return 10;
	case 16: return 14;
	case 32: return 25;
	case 64: return 50;
	case 128: return 100;
	default: return 0;
	}
}

static int query(struct ibv_context *ctx, unsigned port, int gid_index, const char *where,
		 struct pt_devinfo *o, struct scn_error *err)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union ibv_gid gid;

	if (ibv_query_device(ctx, &da) != 0)
		return scn_error_set(err, SCN_ERR_DEVICE, -EIO, "ibv_query_device(%s) failed on %s",
				     o->device, where);
	snprintf(o->firmware, sizeof(o->firmware), "%s", da.fw_ver);
	o->vendor_id = da.vendor_id;
	o->vendor_part_id = da.vendor_part_id;
	o->max_qp = (unsigned)da.max_qp;
	pt_devinfo_finish(o);
	if (port < 1 || port > da.phys_port_cnt || ibv_query_port(ctx, (uint8_t)port, &pa) != 0)
		return scn_error_set(err, SCN_ERR_DEVICE, -ENODEV, "RDMA device '%s' on %s has no "
				     "port %u (it has %u)", o->device, where, port, da.phys_port_cnt);
	o->port_state = pa.state;
	o->active_mtu = 128u << pa.active_mtu;
	snprintf(o->link_layer, sizeof(o->link_layer), "%s",
		 pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand");
	o->line_rate_gbps = width_of(pa.active_width) * lane_of(pa.active_speed);
	if (gid_index >= 0 && ibv_query_gid(ctx, (uint8_t)port, gid_index, &gid) == 0) {
		const uint8_t *r = gid.raw;

		snprintf(o->gid, sizeof(o->gid), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
			 "%02x%02x:%02x%02x:%02x%02x", r[0], r[1], r[2], r[3], r[4], r[5], r[6],
			 r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
	}
	if (pa.state != IBV_PORT_ACTIVE)
		return scn_error_set(err, SCN_ERR_DEVICE, -ENETDOWN, "port %u of RDMA device '%s' "
				     "on %s is %s, not ACTIVE", port, o->device, where,
				     pt_port_state_name(pa.state));
	return 0;
}

int pt_device_query_local(const char *dev, unsigned port, int gid_index, const char *where,
			  struct pt_devinfo *out, struct scn_error *err)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n = 0, rc;

	memset(out, 0, sizeof(*out));
	snprintf(out->device, sizeof(out->device), "%s", dev);
	out->port = port;
	errno = 0;
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		int e = errno;

		if (list)
			ibv_free_device_list(list);
		return scn_error_set(err, SCN_ERR_DEVICE, -ENODEV, "no RDMA device '%s' on %s: "
				     "ibv_get_device_list found no device at all%s%s", dev, where,
				     e ? ": " : "", e ? strerror(e) : "");
	}
	for (int i = 0; i < n && !ctx; i++)
		if (strcmp(ibv_get_device_name(list[i]), dev) == 0 && !(ctx = ibv_open_device(list[i])))
			rc = errno;
	if (!ctx) {
		char names[256] = "";

		for (int i = 0; i < n; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", ibv_get_device_name(list[i]));
		ibv_free_device_list(list);
		return scn_error_set(err, SCN_ERR_DEVICE, -ENODEV, "no RDMA device '%s' on %s "
				     "(ibv_get_device_list has: %s)", dev, where, names);
	}
	rc = query(ctx, port, gid_index, where, out, err);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return rc;
}

#else /* no libibverbs at build time: ask ibv_devinfo */
#include "testbeds/perftest/pt_proc.h"

bool pt_device_have_verbs(void)
{
	return false;
}

int pt_device_query_local(const char *dev, unsigned port, int gid_index, const char *where,
			  struct pt_devinfo *out, struct scn_error *err)
{
	struct pt_argv a;
	struct pt_proc *p = NULL;
	int rc;

	(void)gid_index;
	pt_argv_init(&a);
	if ((rc = pt_device_argv(dev, &a)) < 0) {
		pt_argv_free(&a);
		return scn_error_set(err, SCN_ERR_INTERNAL, rc, "out of memory");
	}
	rc = pt_proc_run(&(struct pt_spawn){ .argv = a.v }, 30, &p, err);
	if (rc == -ENOENT)
		rc = scn_error_set(err, SCN_ERR_DEVICE, -ENODEV, "no RDMA device '%s' on %s: "
				   "ibv_devinfo is not installed (rdma-core)", dev, where);
	else if (rc == 0) {
		size_t lo, le;
		const char *o = pt_proc_out(p, &lo), *e = pt_proc_err(p, &le);

		rc = pt_device_parse_devinfo(lo ? o : e, dev, port, where, out, err);
	}
	pt_proc_free(p);
	pt_argv_free(&a);
	return rc;
}
#endif
