/* SPDX-License-Identifier: MIT */
/*
 * gen_shapes (internal to generators/): the deterministic families of matching-mask shapes the
 * rule generator spreads flows over. Shape i of a direction is always the same mask, on every
 * platform and for every seed; a rule set with m masks on a side uses shapes 0..m-1.
 *
 * Encap shapes (send path, plain packets from a VF) always match in_port (the VF) plus a
 * destination key (ip_dst/32 or the inner eth_dst) that tells the VF's flows apart, and add
 * decorations: ip_dst prefixes (when eth_dst is the key), ip_src prefixes, eth_src, eth_type,
 * ip_proto, l4_dst. Decap shapes (receive path, VXLAN from the uplink) always match in_port
 * (the uplink), tun_id and tun_dport, a (source, destination) key from {ip_src/32, eth_src} x
 * {ip_dst/32, eth_dst}, and decorations: tun_dst and tun_src prefixes, eth_type, ip_proto,
 * l4_dst. Every shape therefore identifies a flow uniquely among the packets of its direction,
 * so rules of different flows never cover each other, whatever their shapes and priorities.
 */
#ifndef GEN_SHAPES_H
#define GEN_SHAPES_H

#include "generators/gen.h"

#define GEN_ENCAP_SHAPES 768u /* 6 destination keys x 8 ip_src choices x 16 flag sets */
#define GEN_DECAP_SHAPES 640u /* 4 keys x 4 tun_dst x 5 tun_src x 8 flag sets */

/* Number of distinct shapes available for direction D. */
unsigned gen_shape_count(enum gen_dir d);
/* Write shape I (< gen_shape_count(d)) of direction D into OUT. */
void gen_shape(enum gen_dir d, unsigned i, struct topo_mask *out);

#endif
