/* SPDX-License-Identifier: MIT */
/*
 * gen_shapes: the mask-shape families of the rule generator (see gen_shapes.h).
 * Shape index i is a mixed-radix number: the flag set varies fastest, then the optional
 * prefix decorations, then the key; shape 0 is the plain "in_port + ip_dst/32" (encap) and
 * "in_port + tun_id + tun_dport + ip_src/32 + ip_dst/32" (decap) rule of a container network.
 * Assumes topology's mask invariant: plen set only for prefix fields present, 1..32.
 */
#include <assert.h>
#include <string.h>

#include "generators/gen_shapes.h"

static void add(struct topo_mask *m, enum topo_field f, unsigned plen)
{
	m->fields |= 1u << f;
	m->plen[f] = (uint8_t)plen;
}

unsigned gen_shape_count(enum gen_dir d)
{
	return d == GEN_ENCAP ? GEN_ENCAP_SHAPES : GEN_DECAP_SHAPES;
}

/* Flag bits of the encap family, in order: eth_src, eth_type, ip_proto, l4_dst. */
static void encap_shape(unsigned i, struct topo_mask *m)
{
	static const unsigned src_plen[8] = { 0, 8, 12, 16, 20, 24, 28, 32 };
	static const unsigned dst_plen[6] = { 32, 32, 0, 8, 16, 24 }; /* key 0,1 use ip_dst/32 */
	unsigned flags = i % 16, src = (i / 16) % 8, key = i / 128;

	add(m, TOPO_F_IN_PORT, 0);
	if (key == 0 || key == 1) {
		add(m, TOPO_F_IP_DST, 32);
		if (key == 1)
			add(m, TOPO_F_ETH_DST, 0);
	} else {
		add(m, TOPO_F_ETH_DST, 0);
		if (dst_plen[key])
			add(m, TOPO_F_IP_DST, dst_plen[key]);
	}
	if (src_plen[src])
		add(m, TOPO_F_IP_SRC, src_plen[src]);
	if (flags & 1)
		add(m, TOPO_F_ETH_SRC, 0);
	if (flags & 2)
		add(m, TOPO_F_ETH_TYPE, 0);
	if (flags & 4)
		add(m, TOPO_F_IP_PROTO, 0);
	if (flags & 8)
		add(m, TOPO_F_L4_DST, 0);
}

/* Flag bits of the decap family, in order: eth_type, ip_proto, l4_dst. */
static void decap_shape(unsigned i, struct topo_mask *m)
{
	static const unsigned tdst_plen[4] = { 0, 16, 24, 32 };
	static const unsigned tsrc_plen[5] = { 0, 8, 16, 24, 32 };
	unsigned flags = i % 8, tdst = (i / 8) % 4, tsrc = (i / 32) % 5, key = i / 160;

	add(m, TOPO_F_IN_PORT, 0);
	add(m, TOPO_F_TUN_ID, 0);
	add(m, TOPO_F_TUN_DPORT, 0);
	if (key & 1)
		add(m, TOPO_F_ETH_SRC, 0);
	else
		add(m, TOPO_F_IP_SRC, 32);
	if (key & 2)
		add(m, TOPO_F_ETH_DST, 0);
	else
		add(m, TOPO_F_IP_DST, 32);
	if (tdst_plen[tdst])
		add(m, TOPO_F_TUN_DST, tdst_plen[tdst]);
	if (tsrc_plen[tsrc])
		add(m, TOPO_F_TUN_SRC, tsrc_plen[tsrc]);
	if (flags & 1)
		add(m, TOPO_F_ETH_TYPE, 0);
	if (flags & 2)
		add(m, TOPO_F_IP_PROTO, 0);
	if (flags & 4)
		add(m, TOPO_F_L4_DST, 0);
}

void gen_shape(enum gen_dir d, unsigned i, struct topo_mask *out)
{
	assert(i < gen_shape_count(d));
	memset(out, 0, sizeof(*out));
	if (d == GEN_ENCAP)
		encap_shape(i, out);
	else
		decap_shape(i, out);
}
