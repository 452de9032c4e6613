/* SPDX-License-Identifier: MIT */
/*
 * gen_addr (internal to generators/; gen_packet.h re-exports it for testbeds): the addressing
 * plan and rule layout of generated rule sets, shared by the rule builder (gen_rules.c), the
 * model placement (gen_model.c) and flow packets (gen_packet.c). It uses nothing of generators/
 * but gen.h, so these files all depend on it and it on none of them.
 *
 * Addressing (host h: 0 client, 1 server; subnet s < 256; container c < n per subnet):
 *   port ids: uplink 1; VF of container g = s*n + c is 2 + 2g, its representor 3 + 2g.
 *   container IPv4 10.s.0.0 | h << 15 | (c + 1); MAC 02:00:0h:ss:cc:cc (locally administered).
 *   VTEPs: client 172.16.0.1; server 172.20.0.1 + v, one address per encap context index v
 *   of a subnet (contexts are (VNI, remote VTEP) pairs). VNI of subnet s: 1000 + s.
 * Rule priorities: see the rule layout in gen_packet.h.
 */
#ifndef GEN_ADDR_H
#define GEN_ADDR_H

#include "generators/gen.h"

#define GEN_MAX_SUBNETS 256u
#define GEN_VTEP_CLIENT 0xac100001u /* 172.16.0.1 */
#define GEN_VTEP_SERVER 0xac140001u /* 172.20.0.1 (+ context index) */

#define GEN_PRIO_TX_GOTO 1u
#define GEN_PRIO_RX_GOTO 2u
#define GEN_PRIO_ENCAP 16u
#define GEN_PRIO_DECAP 1040u
#define GEN_PORT_UPLINK 1u
#define GEN_VXLAN_PORT 4789u
#define GEN_ROCE_PORT 4791u
#define GEN_VNI_BASE 1000u

/* Inline: a rule set of 64K flows computes them for every rule. */
static inline uint32_t gen_vf_port(uint32_t per_subnet, uint32_t subnet, uint32_t c)
{
	return 2u + 2u * (subnet * per_subnet + c);
}

static inline uint32_t gen_container_ip(enum gen_host h, uint32_t subnet, uint32_t c)
{
	return (10u << 24) | (subnet << 16) | ((uint32_t)h << 15) | (c + 1u);
}

static inline uint64_t gen_container_mac(enum gen_host h, uint32_t subnet, uint32_t c)
{
	return (0x02ULL << 40) | ((uint64_t)h << 32) | ((uint64_t)subnet << 24) | c;
}

#endif
