/* SPDX-License-Identifier: MIT */
/*
 * gen_flows (internal to generators/): what gen_rules_build keeps behind the public struct
 * gen_rules: the flow table and the host rule sets as shared parts. Built by the rule builder
 * (gen_rules.c), held and assembled by gen_parts.c (and the cache, gen_rules_cache.c), read
 * by gen_flow_packet (gen_packet.c).
 * Addressing of the containers and VTEPs named here: gen_addr.h.
 */
#ifndef GEN_FLOWS_H
#define GEN_FLOWS_H

#include <stdatomic.h>

#include "generators/gen.h"

#define GEN_MAX_FLOWS (1u << 20) /* most flows gen_rules_build accepts */

/* One flow: containers are indices inside the subnet (client side, server side). */
struct gen_flow_info {
	uint32_t subnet;
	uint32_t cli, srv;
	uint32_t ctx; /* remote VTEP index of its encap context on the client */
};

/* A built part that rule-set objects share by reference: a flow table (flow != NULL) or one
 * host's rule set (rs != NULL). Immutable once built; the last holder to let go frees it.
 * The count is atomic: holders may be threads (a rule-set cache shared by trials).
 * Invariant (flow table): flows entries in flow; every cli, srv < per_subnet;
 * subnet < subnets. */
struct gen_part {
	atomic_uint refs;
	size_t bytes;               /* memory it holds (what a cache charges for it) */
	struct topo_ruleset *rs;    /* host part */
	struct gen_flow_info *flow; /* flow-table part */
	uint32_t flows, subnets, per_subnet;
	uint32_t contexts;          /* encap contexts the flow table spreads flows over */
	uint64_t id;                /* cache parts: nonzero, a hash of the content key; else 0 */
};

/* Behind the public struct: the parts it holds (flow table, client, server), each one
 * reference; per_subnet and flow are copied out of the flow table for gen_flow_packet. */
struct gen_rules_priv {
	struct gen_rules pub; /* first member: gen_rules_free and gen_flow_packet cast back */
	atomic_uint refs;
	uint32_t per_subnet;  /* containers per subnet per host */
	const struct gen_flow_info *flow;
	struct gen_part *parts[1 + GEN_HOSTS]; /* [0] flow table, [1 + h] host h */
};

/* Build the flow table of L (gen_rules.c). 0 or a negative errno with ERR set. */
int gen_part_flows(const struct gen_levels *l, uint64_t seed, struct gen_part **out,
		   struct scn_error *err);
/* Build host H's rule set of L on flow table FLOWS, placement PL (gen_rules.c). */
struct gen_placement;
int gen_part_host(const struct gen_part *flows, const struct gen_placement *pl,
		  const struct gen_levels *l, enum gen_host h, uint64_t seed,
		  struct gen_part **out, struct scn_error *err);
/* Take and drop a reference (gen_parts.c); unref frees at the last one (NULL ok). */
struct gen_part *gen_part_ref(struct gen_part *p);
void gen_part_unref(struct gen_part *p);
/* A new struct gen_rules of L holding one more reference to each of FLOWS and HOST[]
 * (gen_parts.c). 0 or -ENOMEM. */
int gen_rules_assemble(const struct gen_levels *l, struct gen_part *flows,
		       struct gen_part *const host[GEN_HOSTS], struct gen_rules **out);

static inline struct gen_rules_priv *gen_priv(struct gen_rules *r)
{
	return (struct gen_rules_priv *)r;
}

static inline const struct gen_rules_priv *gen_cpriv(const struct gen_rules *r)
{
	return (const struct gen_rules_priv *)r;
}

#endif
