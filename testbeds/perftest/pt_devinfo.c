/* SPDX-License-Identifier: MIT */
/*
 * pt_devinfo: parsing `ibv_devinfo -v` output (pt_device.h) and the names shared by both ways
 * of discovery. Assumes rdma-core's layout: "hca_id:\tDEV" starts a device, "\t\tport:\tN"
 * a port, fields are "name:<tabs>value" (fixtures/rdma/rxe-qemu/loop__ibv_devinfo.txt).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_device.h"

const char *pt_device_model_name(unsigned vendor_id, unsigned part_id)
{
	static const struct { unsigned part; const char *name; } mlx[] = {
		{ 4115, "ConnectX-4" }, { 4117, "ConnectX-4 Lx" }, { 4119, "ConnectX-5" },
		{ 4121, "ConnectX-5 Ex" }, { 4123, "ConnectX-6" }, { 4125, "ConnectX-6 Dx" },
		{ 4127, "ConnectX-6 Lx" }, { 4129, "ConnectX-7" }, { 4131, "ConnectX-8" },
		{ 41682, "BlueField" }, { 41686, "BlueField-2" }, { 41692, "BlueField-3" },
	};

	if (vendor_id == 0x02c9)
		for (size_t i = 0; i < sizeof(mlx) / sizeof(mlx[0]); i++)
			if (mlx[i].part == part_id)
				return mlx[i].name;
	if (vendor_id == 0x8086 && part_id == 0x1592)
		return "E810";
	if (vendor_id == 0xffffff && part_id == 0) /* RXE_VENDOR_ID: the kernel's rdma_rxe */
		return "Soft-RoCE (rxe)";
	return NULL;
}

const char *pt_port_state_name(int state)
{
	static const char *const n[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE",
					 "ACTIVE_DEFER" };

	return state >= 0 && state <= 5 ? n[state] : "UNKNOWN";
}

int pt_device_argv(const char *dev, struct pt_argv *out)
{
	return pt_argv_addl(out, "ibv_devinfo", "-v", "-d", dev, NULL);
}

/* "  name:\t\tvalue" -> name, value (trimmed). false when not a field line. */
static bool field(const char *line, char *name, size_t nl, char *val, size_t vl)
{
	const char *c = strchr(line, ':'), *p = line, *v;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!c || c == p || (size_t)(c - p) >= nl)
		return false;
	n = (size_t)(c - p);
	memcpy(name, p, n);
	name[n] = '\0';
	for (v = c + 1; *v == ' ' || *v == '\t'; v++)
		;
	snprintf(val, vl, "%s", v);
	n = strlen(val);
	while (n && (val[n - 1] == '\n' || val[n - 1] == ' ' || val[n - 1] == '\r'))
		val[--n] = '\0';
	return true;
}

static void first_line(const char *text, char *buf, size_t len)
{
	size_t n = strcspn(text, "\n");

	while (*text == ' ' && n) {
		text++;
		n--;
	}
	snprintf(buf, len, "%.*s", (int)(n < 200 ? n : 200), text);
}

static void port_field(struct pt_devinfo *o, const char *name, const char *val, double *width,
		       double *lane)
{
	if (!strcmp(name, "state"))
		o->port_state = strstr(val, "ACTIVE") ? 4 : strstr(val, "DOWN") ? 1 :
				strstr(val, "INIT") ? 2 : strstr(val, "ARMED") ? 3 : 0;
	else if (!strcmp(name, "active_mtu"))
		o->active_mtu = (unsigned)strtoul(val, NULL, 10);
	else if (!strcmp(name, "link_layer"))
		snprintf(o->link_layer, sizeof(o->link_layer), "%s", val);
	else if (!strcmp(name, "active_width"))
		*width = strtod(val, NULL);
	else if (!strcmp(name, "active_speed"))
		*lane = strtod(val, NULL);
}

static void dev_field(struct pt_devinfo *o, const char *name, const char *val)
{
	if (!strcmp(name, "fw_ver"))
		snprintf(o->firmware, sizeof(o->firmware), "%s", val);
	else if (!strcmp(name, "vendor_id"))
		o->vendor_id = (unsigned)strtoul(val, NULL, 0);
	else if (!strcmp(name, "vendor_part_id"))
		o->vendor_part_id = (unsigned)strtoul(val, NULL, 0);
	else if (!strcmp(name, "max_qp"))
		o->max_qp = (unsigned)strtoul(val, NULL, 0);
}

void pt_devinfo_finish(struct pt_devinfo *o)
{
	const char *m = pt_device_model_name(o->vendor_id, o->vendor_part_id);

	if (m)
		snprintf(o->model, sizeof(o->model), "%s", m);
	else
		snprintf(o->model, sizeof(o->model), "vendor 0x%x part %u", o->vendor_id,
			 o->vendor_part_id);
}

int pt_device_parse_devinfo(const char *text, const char *dev, unsigned port, const char *where,
			    struct pt_devinfo *out, struct scn_error *err)
{
	bool in_dev = false, in_port = false, seen_port = false;
	double width = 0, lane = 0;
	char name[64], val[256], first[256];

	memset(out, 0, sizeof(*out));
	snprintf(out->device, sizeof(out->device), "%s", dev);
	out->port = port;
	for (const char *p = text ? text : ""; *p;) {
		const char *nl = strchr(p, '\n');
		char line[512];
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) - 1 ? n : sizeof(line) - 1), p);
		p = nl ? nl + 1 : p + n;
		if (!field(line, name, sizeof(name), val, sizeof(val)))
			continue;
		if (!strcmp(name, "hca_id")) {
			in_dev = !strcmp(val, dev);
			in_port = false;
		} else if (in_dev && !strcmp(name, "port")) {
			in_port = strtoul(val, NULL, 10) == port;
			seen_port |= in_port;
		} else if (in_dev && in_port)
			port_field(out, name, val, &width, &lane);
		else if (in_dev)
			dev_field(out, name, val);
	}
	first_line(text ? text : "", first, sizeof(first));
	if (!out->firmware[0] && !out->vendor_id)
		return scn_error_set(err, SCN_ERR_DEVICE, -ENODEV, "no RDMA device '%s' on %s "
				     "(looked with `ibv_devinfo -v -d %s`): %s", dev, where, dev,
				     first[0] ? first : "no output");
	if (!seen_port)
		return scn_error_set(err, SCN_ERR_DEVICE, -ENODEV, "RDMA device '%s' on %s has "
				     "no port %u (ibv_devinfo -v -d %s)", dev, where, port, dev);
	out->line_rate_gbps = width * lane;
	pt_devinfo_finish(out);
	if (out->port_state != 4)
		return scn_error_set(err, SCN_ERR_DEVICE, -ENETDOWN, "port %u of RDMA device '%s' "
				     "on %s is %s, not ACTIVE", port, dev, where,
				     pt_port_state_name(out->port_state));
	return 0;
}
