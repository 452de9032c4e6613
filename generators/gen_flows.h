/* SPDX-License-Identifier: MIT */
/*
 * gen_flows (internal to generators/): the flow table gen_rules_build keeps behind the public
 * struct gen_rules. Written by the rule builder (gen_rules.c), read by gen_flow_packet
 * (gen_packet.c); types and casts only, so both depend on it and it on neither.
 * Addressing of the containers and VTEPs named here: gen_addr.h.
 */
#ifndef GEN_FLOWS_H
#define GEN_FLOWS_H

#include "generators/gen.h"

#define GEN_MAX_FLOWS (1u << 20) /* most flows gen_rules_build accepts */

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

#endif
