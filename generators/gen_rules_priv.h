/* SPDX-License-Identifier: MIT */
/*
 * gen_rules_priv (internal to generators/): what gen_rules_build keeps behind the public
 * struct gen_rules, and the addressing plan shared by the rule builder and gen_flow_packet.
 *
 * Addressing (host h: 0 client, 1 server; subnet s < 256; container c < n per subnet):
 *   port ids: uplink 1; VF of container g = s*n + c is 2 + 2g, its representor 3 + 2g.
 *   container IPv4 10.s.0.0 | h << 15 | (c + 1); MAC 02:00:0h:ss:cc:cc (locally administered).
 *   VTEPs: client 172.16.0.1; server 172.20.0.1 + v, one address per encap context index v
 *   of a subnet (contexts are (VNI, remote VTEP) pairs). VNI of subnet s: 1000 + s.
 */
#ifndef GEN_RULES_PRIV_H
#define GEN_RULES_PRIV_H

#include "generators/gen.h"

#define GEN_MAX_SUBNETS 256u
#define GEN_MAX_FLOWS (1u << 20)
#define GEN_VTEP_CLIENT 0xac100001u /* 172.16.0.1 */
#define GEN_VTEP_SERVER 0xac140001u /* 172.20.0.1 (+ context index) */

/* One flow: containers are indices inside the subnet (client side, server side). */
struct gen_flow_info {
	uint32_t subnet;
	uint32_t cli, srv;
	uint32_t ctx; /* remote VTEP index of its encap context on the client */
};

/* Invariant: pub.flows entries in flow; every cli, srv < per_subnet; subnet < pub.subnets. */
struct gen_rules_priv {
	struct gen_rules pub; /* first member: gen_rules_free and gen_flow_packet cast back */
	uint32_t per_subnet;  /* containers per subnet per host */
	struct gen_flow_info *flow;
};

static inline struct gen_rules_priv *gen_priv(struct gen_rules *r)
{
	return (struct gen_rules_priv *)r;
}

static inline const struct gen_rules_priv *gen_cpriv(const struct gen_rules *r)
{
	return (const struct gen_rules_priv *)r;
}

uint32_t gen_vf_port(uint32_t per_subnet, uint32_t subnet, uint32_t c);
uint32_t gen_container_ip(enum gen_host h, uint32_t subnet, uint32_t c);
uint64_t gen_container_mac(enum gen_host h, uint32_t subnet, uint32_t c);

#endif
