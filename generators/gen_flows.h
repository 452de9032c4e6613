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
#include "generators/gen_addr.h"

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

/* Into PKT, every header field of the packet of flow FLOW (its entry F, PER_SUBNET
 * containers per subnet) as it arrives at host H on direction D: what gen_flow_packet
 * returns (gen_packet.c, kept as written: the reference test-generators compares every
 * built rule against), written field by field (the rule builder's per-rule path: no checks,
 * no clearing first). Forward traffic leaves the client (encap there) and enters the server (decap). */
static inline void gen_flow_fill(const struct gen_flow_info *f, uint32_t per_subnet,
				 enum gen_host h, enum gen_dir d, uint32_t flow,
				 uint64_t pkt[TOPO_F_COUNT])
{
	bool forward = (h == GEN_CLIENT) == (d == GEN_ENCAP), encap = d == GEN_ENCAP;
	enum gen_host src_h = forward ? GEN_CLIENT : GEN_SERVER;
	enum gen_host dst_h = forward ? GEN_SERVER : GEN_CLIENT;
	uint32_t src_c = forward ? f->cli : f->srv, dst_c = forward ? f->srv : f->cli;

	pkt[TOPO_F_IN_PORT] = encap ? gen_vf_port(per_subnet, f->subnet, src_c) : GEN_PORT_UPLINK;
	pkt[TOPO_F_ETH_SRC] = gen_container_mac(src_h, f->subnet, src_c);
	pkt[TOPO_F_ETH_DST] = gen_container_mac(dst_h, f->subnet, dst_c);
	pkt[TOPO_F_ETH_TYPE] = 0x0800;
	pkt[TOPO_F_IP_SRC] = gen_container_ip(src_h, f->subnet, src_c);
	pkt[TOPO_F_IP_DST] = gen_container_ip(dst_h, f->subnet, dst_c);
	pkt[TOPO_F_IP_PROTO] = 17;
	pkt[TOPO_F_L4_SRC] = 49152u + (flow & 0x3fffu);
	pkt[TOPO_F_L4_DST] = GEN_ROCE_PORT;
	pkt[TOPO_F_TUN_ID] = encap ? 0 : GEN_VNI_BASE + f->subnet;
	pkt[TOPO_F_TUN_SRC] = encap ? 0 : forward ? GEN_VTEP_CLIENT : GEN_VTEP_SERVER;
	pkt[TOPO_F_TUN_DST] = encap ? 0 : forward ? GEN_VTEP_SERVER + f->ctx : GEN_VTEP_CLIENT;
	pkt[TOPO_F_TUN_DPORT] = encap ? 0 : GEN_VXLAN_PORT;
}

/* Seeded flow permutations kept between builds (gen_perm_memo.c): get copies the
 * permutation of FLOWS entries drawn from random stream STREAM into PERM and says whether it
 * was held; put keeps a copy. SCALACN_RULES_CACHE=off in the environment turns both off. */
bool gen_perm_memo_get(uint32_t flows, uint64_t stream, uint32_t *perm);
void gen_perm_memo_put(uint32_t flows, uint64_t stream, const uint32_t *perm);
void gen_perm_memo_clear(void);

static inline struct gen_rules_priv *gen_priv(struct gen_rules *r)
{
	return (struct gen_rules_priv *)r;
}

static inline const struct gen_rules_priv *gen_cpriv(const struct gen_rules *r)
{
	return (const struct gen_rules_priv *)r;
}

#endif
