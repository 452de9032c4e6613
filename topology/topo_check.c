/* SPDX-License-Identifier: MIT */
/*
 * topo_check: validity of a concrete rule set (topo_ruleset_check). Reports, in this order:
 * per rule (index order) after_terminal, decap_non_tunnel, encap_not_uplink, cross_subnet;
 * then loop (each goto edge that closes a cycle), unreachable_table, dead_rule.
 * Assumes: a port's subnet is its tenant VNI; tunnel traffic is recognised by a match on a
 * tunnel field (tun_id, tun_src, tun_dst, tun_dport) or on in_port == an uplink port, or by
 * arriving in a table through a goto from such a rule; a rule that matches in_port == a VF
 * or representor matches that VF's (plain) traffic.
 */
#include "topology/topo.h"
#include "topology/topo_check_priv.h"
#include "topology/topo_internal.h"
#include "topology/topo_ruleset_priv.h"
#include "topology/topo_sink.h"

#include <stdlib.h>
#include <string.h>

/* The port whose id the rule matches as in_port, or NULL. */
static const struct topo_port *in_port_of(const struct topo_ruleset *rs,
					  const struct topo_rule *r)
{
	if (!topo_mask_has(&r->match.mask, TOPO_F_IN_PORT))
		return NULL;
	return topo_ruleset_port_by_id(rs, (uint32_t)r->match.value[TOPO_F_IN_PORT]);
}

static bool from_vf(const struct topo_ruleset *rs, const struct topo_rule *r)
{
	const struct topo_port *p = in_port_of(rs, r);

	return p && p->kind != TOPO_PORT_UPLINK;
}

static bool matches_tunnel(const struct topo_ruleset *rs, const struct topo_rule *r)
{
	const struct topo_port *p = in_port_of(rs, r);
	uint32_t tun = (1u << TOPO_F_TUN_ID) | (1u << TOPO_F_TUN_SRC) | (1u << TOPO_F_TUN_DST) |
		       (1u << TOPO_F_TUN_DPORT);

	if (p)
		return p->kind == TOPO_PORT_UPLINK;
	return (r->match.mask.fields & tun) != 0;
}

/* Source tenant subnet (VNI) of a rule's traffic, or -1 when the match does not say. */
static long source_subnet(const struct topo_ruleset *rs, const struct topo_rule *r, bool decap)
{
	const struct topo_port *p = in_port_of(rs, r);

	if (decap && topo_mask_has(&r->match.mask, TOPO_F_TUN_ID))
		return (long)r->match.value[TOPO_F_TUN_ID];
	if (p && p->kind != TOPO_PORT_UPLINK)
		return (long)p->subnet;
	if (!decap && topo_mask_has(&r->match.mask, TOPO_F_IP_SRC) &&
	    r->match.mask.plen[TOPO_F_IP_SRC] == 32) {
		for (size_t i = 0; i < rs->n_ports; i++)
			if (rs->ports[i].kind == TOPO_PORT_VF &&
			    rs->ports[i].ip == (uint32_t)r->match.value[TOPO_F_IP_SRC])
				return (long)rs->ports[i].subnet;
	}
	return -1;
}

/* Tables entered through a goto from a rule that matches (still encapsulated) tunnel
 * traffic. OUT has n_tables entries. */
static void tunnel_tables(const struct topo_ruleset *rs, bool *out)
{
	memset(out, 0, rs->n_tables * sizeof(*out));
	for (size_t i = 0; i < rs->n_rules; i++) {
		struct topo_rule rule, *r = &rule;

		topo__rule_get(rs, i, r);
		if (!matches_tunnel(rs, r))
			continue;
		for (unsigned k = 0; k < r->actions.n; k++) {
			if (r->actions.a[k].kind == TOPO_ACT_DECAP)
				break;
			if (r->actions.a[k].kind == TOPO_ACT_GOTO) {
				out[r->actions.a[k].arg] = true;
				break;
			}
		}
	}
}

static void check_terminal(struct topo__sink *s, const struct topo_rule *r, size_t i)
{
	for (unsigned k = 0; k + 1 < r->actions.n; k++) {
		if (!topo_action_is_terminal(r->actions.a[k].kind))
			continue;
		topo__sink_add(s, TOPO_R_AFTER_TERMINAL, r->table, (long)i,
			       "rule %zu in table %u: action %u (%s) follows %s, which ends the "
			       "action list; the NIC never executes it", i, r->table, k + 2,
			       topo_action_name(r->actions.a[k + 1].kind),
			       topo_action_name(r->actions.a[k].kind));
		return;
	}
}

static void check_tunnel(struct topo__sink *s, const struct topo_ruleset *rs,
			 const struct topo_rule *r, size_t i, const bool *tun_table)
{
	bool via = tun_table ? tun_table[r->table] : true; /* no memory: no false alarm */
	bool tunnel = !from_vf(rs, r) && (matches_tunnel(rs, r) || via);
	bool decapped = false, encapped = false, said_decap = false, said_encap = false;

	for (unsigned k = 0; k < r->actions.n; k++) {
		enum topo_action_kind a = r->actions.a[k].kind;

		if (a == TOPO_ACT_DECAP && !said_decap && (!tunnel || decapped || encapped)) {
			topo__sink_add(s, TOPO_R_DECAP_NON_TUNNEL, r->table, (long)i,
				       "rule %zu in table %u decapsulates traffic that is not VXLAN "
				       "from the uplink (%s)", i, r->table,
				       decapped ? "it was decapsulated already"
				       : encapped ? "the rule itself encapsulated it"
				       : from_vf(rs, r) ? "it matches a VF's traffic"
							: "it matches no tunnel field or uplink port");
			said_decap = true;
		}
		if (a == TOPO_ACT_DECAP)
			decapped = true;
		if (a == TOPO_ACT_ENCAP)
			encapped = true;
		if ((a == TOPO_ACT_FWD_VF || a == TOPO_ACT_FWD_VF_OTHER) && encapped && !said_encap) {
			topo__sink_add(s, TOPO_R_ENCAP_NOT_UPLINK, r->table, (long)i,
				       "rule %zu in table %u encapsulates traffic and then forwards "
				       "it to VF port %u instead of the uplink", i, r->table,
				       r->actions.a[k].arg);
			said_encap = true;
		}
	}
}

static void check_subnet(struct topo__sink *s, const struct topo_ruleset *rs,
			 const struct topo_rule *r, size_t i)
{
	bool decap = false;

	for (unsigned k = 0; k < r->actions.n; k++) {
		const struct topo_action *a = &r->actions.a[k];
		const struct topo_port *dst;
		long src;

		if (a->kind == TOPO_ACT_DECAP)
			decap = true;
		if (a->kind == TOPO_ACT_FWD_VF_OTHER) {
			topo__sink_add(s, TOPO_R_CROSS_SUBNET, r->table, (long)i,
				       "rule %zu in table %u forwards to VF port %u in another tenant "
				       "subnet", i, r->table, a->arg);
			return;
		}
		if (a->kind != TOPO_ACT_FWD_VF)
			continue;
		dst = topo_ruleset_port_by_id(rs, a->arg);
		src = source_subnet(rs, r, decap);
		if (dst && dst->kind != TOPO_PORT_UPLINK && src >= 0 && (uint32_t)src != dst->subnet) {
			topo__sink_add(s, TOPO_R_CROSS_SUBNET, r->table, (long)i,
				       "rule %zu in table %u forwards traffic of subnet %ld to VF port "
				       "%u, which belongs to subnet %u", i, r->table, src, a->arg,
				       dst->subnet);
			return;
		}
	}
}

size_t topo_ruleset_check(const struct topo_ruleset *rs, struct topo_violation *out, size_t max)
{
	struct topo__sink s = { out, max, 0 };
	bool *tun_table;

	if (!rs)
		return 0;
	tun_table = calloc(rs->n_tables, sizeof(*tun_table));
	if (tun_table)
		tunnel_tables(rs, tun_table);
	for (size_t i = 0; i < rs->n_rules; i++) {
		struct topo_rule rule, *r = &rule;

		topo__rule_get(rs, i, r);
		check_terminal(&s, r, i);
		check_tunnel(&s, rs, r, i, tun_table);
		check_subnet(&s, rs, r, i);
	}
	free(tun_table);
	topo__check_graph(&s, rs);
	topo__check_dead(&s, rs);
	return s.n;
}
