/* SPDX-License-Identifier: MIT */
/*
 * pt_tc: programming a host's eSwitch with tc flower, and reading back what the NIC took.
 *
 * Rendering (pt_tc_render): one `tc -batch` line per rule:
 *   filter add dev DEV ingress protocol ip chain TABLE prio P flower [skip_sw] KEYS ACTIONS
 * - (chain, prio) is one matching mask (docs/background.md): a rule's prio is 1 + the rank of
 *   its mask group within its table (groups in priority order), so masks keep their order.
 * - DEV: rules that match tunnel fields (tun_*) sit on the VXLAN device (decap path); rules
 *   matching in_port of a VF (or its representor) on that VF's representor, the k-th VF in
 *   port order on representors[k % n] (a lab host has fewer representors than a campaign
 *   has containers); everything else on the uplink. Without representors: the uplink.
 * - Keys: eth_src/dst -> src_mac/dst_mac, ip_src/dst -> src_ip/dst_ip with /prefix,
 *   ip_proto, l4 -> src_port/dst_port (ip_proto udp is added when a port is matched without
 *   it: flower needs it), tun_id -> enc_key_id, tun_src/dst -> enc_src_ip/enc_dst_ip,
 *   tun_dport -> enc_dst_port. in_port picks DEV. eth_type other than IPv4 -> protocol 0xNNNN.
 * - Actions: encap -> tunnel_key set src_ip VTEP dst_ip PEER_VTEP id VNI dst_port 4789;
 *   decap -> tunnel_key unset; fwd_vf -> mirred egress redirect dev REP; fwd_uplink ->
 *   redirect to the VXLAN device after an encap, else to the uplink; goto -> goto chain N;
 *   drop -> drop; count -> nothing (tc counts every filter). fwd_vf_other is refused.
 *   Every encap of one host targets the one peer VTEP: distinct encap contexts beyond
 *   distinct VNIs are not reproduced.
 * Rules that render to the same filter (same device, chain, prio, keys: rules differing
 * only in in_port when representors are fewer than VFs) are rendered once; scope->n_merged
 * counts the others (flower would refuse them with "File exists").
 * Each device used also gets `qdisc add dev DEV ingress` first (run tc with -force so an
 * existing qdisc does not stop the batch). pt_tc_render_cleanup deletes every chain used.
 *
 * Reading back (pt_tc_count_json): the JSON of `tc -s -j filter show dev DEV ingress`: an
 * array whose filter entries carry "options" with in_hw / not_in_hw (software fallback, a
 * finding), and action stats; packets are taken from each filter's first action.
 *
 * Ownership: rendered batches are malloc'd strings the caller free()s.
 */
#ifndef PT_TC_H
#define PT_TC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/scn_error.h"
#include "topology/topo.h"

#define PT_TC_MAX_DEVS 70

struct pt_tc_devs {
	const char *uplink, *vxlan;
	const char (*reps)[64];
	unsigned n_reps;
	const char *vtep_ip, *peer_vtep_ip; /* dotted IPv4 */
	bool skip_sw;
	/* One more filter per device after the rules: chain 0, prio PT_TC_TAIL_PRIO, protocol
	 * all, no keys, action pass (what ingress does without a filter). Every packet that
	 * walked chain 0's masks and matched none is counted there, so the filters' hits show
	 * where packets went even when no rule matches them (docs/rxe-vm.md). */
	bool tail_counter;
};
#define PT_TC_TAIL_PRIO 65535

/* What a rendered batch touched: for cleanup and for reading back. */
struct pt_tc_scope {
	char devs[PT_TC_MAX_DEVS][64];
	unsigned n_devs;
	uint32_t max_chain;
	size_t n_rules;      /* filter lines rendered */
	size_t n_merged;     /* rules merged into an identical earlier filter (not rendered) */
};

int pt_tc_render(const struct topo_ruleset *rs, const struct pt_tc_devs *d, char **batch,
		 struct pt_tc_scope *scope, struct scn_error *err);
/* "filter del dev DEV ingress chain C" for every device and chain 0..max_chain. */
int pt_tc_render_cleanup(const struct pt_tc_scope *scope, char **batch);

struct pt_tc_count {
	unsigned filters, in_hw, not_in_hw;
	double packets, bytes;
};
/* Add the filters of one `tc -s -j filter show` output to C. -EINVAL (transient) for text
 * that is not such JSON. */
int pt_tc_count_json(const char *json, size_t len, struct pt_tc_count *c, struct scn_error *err);

/* Packets one filter counted (pt_tc_hits.c): its first action's stats, as `tc -s -j filter
 * show` reports them. A filter is named by (chain, prio, handle) on its device. */
struct pt_tc_hit {
	uint32_t chain, prio, handle;
	double packets;
};
/* Invariant: n <= cap; v is malloc'd (NULL when cap is 0). Free with pt_tc_hits_free. */
struct pt_tc_hits {
	struct pt_tc_hit *v;
	size_t n, cap;
};
/* Append the filters of one `tc -s -j filter show` output to H, in tc's order. -EINVAL
 * (transient) for text that is not such JSON, -ENOMEM. */
int pt_tc_hits_json(const char *json, size_t len, struct pt_tc_hits *h, struct scn_error *err);
/* AFTER[i].packets -= the packets of the same filter in BEFORE (a filter BEFORE lacks, or one
 * whose count went down because it was installed again, keeps its count). */
void pt_tc_hits_delta(const struct pt_tc_hits *before, struct pt_tc_hits *after);
void pt_tc_hits_free(struct pt_tc_hits *h);

#endif
