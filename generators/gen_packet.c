/* SPDX-License-Identifier: MIT */
/*
 * gen_packet: flow packets of generated rule sets (gen_packet.h), from the flow table
 * (gen_flows.h) and the addressing plan (gen_addr.h). Pure function of the flow table; no
 * allocation.
 */
#include <errno.h>
#include <string.h>

#include "generators/gen_addr.h"
#include "generators/gen_flows.h"
#include "generators/gen_packet.h"

int gen_flow_packet(const struct gen_rules *r, enum gen_host h, enum gen_dir d, uint32_t flow,
		    uint64_t pkt[TOPO_F_COUNT])
{
	const struct gen_rules_priv *p;
	const struct gen_flow_info *f;
	enum gen_host src_h, dst_h;
	uint32_t src_c, dst_c;
	bool forward;

	if (!r || !pkt || flow >= r->flows || (unsigned)h >= GEN_HOSTS || (unsigned)d >= GEN_DIRS)
		return -EINVAL;
	p = gen_cpriv(r);
	f = &p->flow[flow];
	/* Forward traffic leaves the client (encap there) and enters the server (decap). */
	forward = (h == GEN_CLIENT) == (d == GEN_ENCAP);
	src_h = forward ? GEN_CLIENT : GEN_SERVER;
	dst_h = forward ? GEN_SERVER : GEN_CLIENT;
	src_c = forward ? f->cli : f->srv;
	dst_c = forward ? f->srv : f->cli;

	memset(pkt, 0, sizeof(uint64_t) * TOPO_F_COUNT);
	pkt[TOPO_F_ETH_SRC] = gen_container_mac(src_h, f->subnet, src_c);
	pkt[TOPO_F_ETH_DST] = gen_container_mac(dst_h, f->subnet, dst_c);
	pkt[TOPO_F_ETH_TYPE] = 0x0800;
	pkt[TOPO_F_IP_SRC] = gen_container_ip(src_h, f->subnet, src_c);
	pkt[TOPO_F_IP_DST] = gen_container_ip(dst_h, f->subnet, dst_c);
	pkt[TOPO_F_IP_PROTO] = 17;
	pkt[TOPO_F_L4_SRC] = 49152u + (flow & 0x3fffu);
	pkt[TOPO_F_L4_DST] = GEN_ROCE_PORT;
	if (d == GEN_ENCAP) {
		pkt[TOPO_F_IN_PORT] = gen_vf_port(p->per_subnet, f->subnet, src_c);
		return 0;
	}
	pkt[TOPO_F_IN_PORT] = GEN_PORT_UPLINK;
	pkt[TOPO_F_TUN_ID] = GEN_VNI_BASE + f->subnet;
	pkt[TOPO_F_TUN_SRC] = forward ? GEN_VTEP_CLIENT : GEN_VTEP_SERVER;
	pkt[TOPO_F_TUN_DST] = forward ? GEN_VTEP_SERVER + f->ctx : GEN_VTEP_CLIENT;
	pkt[TOPO_F_TUN_DPORT] = GEN_VXLAN_PORT;
	return 0;
}
