/* SPDX-License-Identifier: MIT */
/*
 * gen_packet: helpers for testbeds that model the steering pipeline themselves (the
 * simulator): the header values of a generated flow's packet (fed to topo_ruleset_classify),
 * the rule layout, and all flow weights at once.
 *
 * Works only on rule sets made by gen_rules_build (it reads the flow table kept behind the
 * public struct). Flow ids are 0-based here; a rule's topo_rule.flow is the flow id + 1
 * (topology reserves 0 for "no flow").
 *
 * Directions: flow f is a (client container, server container) pair in one subnet. The
 * forward traffic (client -> server) is seen by (GEN_CLIENT, GEN_ENCAP) as a plain packet from
 * the client VF and by (GEN_SERVER, GEN_DECAP) as VXLAN from the server's uplink; the return
 * traffic (acks, read responses) is seen by (GEN_SERVER, GEN_ENCAP) and (GEN_CLIENT,
 * GEN_DECAP). Every field is set: tunnel fields are 0 on plain packets.
 *
 * Rule layout of gen_rules_build (default model: everything in table 0), so that probes can
 * be attributed: tx goto groups at priority 1, rx goto groups at priority 2 (models only),
 * encap groups at priority GEN_PRIO_ENCAP + shape index, decap groups at GEN_PRIO_DECAP +
 * shape index. With the default model a packet of an encap rule in shape i probes i + 1
 * groups; a packet of a decap rule in shape i probes m_encap + i + 1 groups (the host's
 * encap groups come first in table 0; a testbed that models separate rx/tx steering trees can
 * subtract the groups whose in_port cannot match).
 */
#ifndef GEN_PACKET_H
#define GEN_PACKET_H

#include "generators/gen.h"
#include "generators/gen_addr.h" /* GEN_PRIO_*, GEN_PORT_UPLINK, GEN_VNI_BASE, ... */

/* Write into PKT the header of FLOW's packet as it arrives at host H on direction D.
 * Returns 0, or -EINVAL (NULL, flow >= r->flows, bad host or direction). */
int gen_flow_packet(const struct gen_rules *r, enum gen_host h, enum gen_dir d, uint32_t flow,
		    uint64_t pkt[TOPO_F_COUNT]);

/* All N flow weights of T at once (OUT has N entries): the same values as gen_flow_weight
 * for i = 0..N-1 (up to rounding), in O(N) instead of N calls. */
void gen_flow_weights(const struct gen_traffic *t, uint32_t n, double *out);

#endif
