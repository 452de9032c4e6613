/* SPDX-License-Identifier: MIT */
/*
 * topo_names: stable names of verbs, header fields, actions and validity reasons, their
 * parsers, and the static properties of fields (width, prefix) and actions (terminal).
 * Assumes the enums of topo.h are dense and start at 0.
 */
#include "topology/topo.h"

#include <errno.h>
#include <string.h>

static const char *const verb_names[TOPO_VERB_COUNT] = { "send", "write", "read" };

static const char *const field_names[TOPO_F_COUNT] = {
	"in_port", "eth_src", "eth_dst", "eth_type", "ip_src", "ip_dst", "ip_proto",
	"l4_src", "l4_dst", "tun_id", "tun_src", "tun_dst", "tun_dport",
};

static const unsigned field_widths[TOPO_F_COUNT] = {
	32, 48, 48, 16, 32, 32, 8, 16, 16, 24, 32, 32, 16,
};

static const char *const action_names[TOPO_ACT_KIND_COUNT] = {
	"encap", "decap", "fwd_vf", "fwd_vf_other", "fwd_uplink", "goto", "count", "drop",
};

static const char *const reason_names[TOPO_R_COUNT] = {
	"ok", "after_terminal", "decap_non_tunnel", "encap_not_uplink", "cross_subnet",
	"loop", "unreachable_table", "black_hole", "dead_rule",
};

static const char *const reason_sentences[TOPO_R_COUNT] = {
	"The configuration is valid.",
	"An action follows a forward, goto or drop, so the NIC would never execute it.",
	"A decap is applied to traffic that is not VXLAN arriving from the uplink.",
	"Encapsulated traffic is sent to a VF instead of the uplink.",
	"Traffic is forwarded from one tenant subnet into another.",
	"The goto graph between tables has a cycle, so packets could loop forever.",
	"A table cannot be reached by any goto path from the root table.",
	("Some packets end up nowhere: no rule handles them, or their actions neither forward "
	 "nor drop them, or tunnel traffic reaches a container still encapsulated."),
	"A rule can never match because an earlier-probed rule of its table covers it.",
};

static int find_name(const char *const *names, unsigned n, const char *s)
{
	if (!s)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

const char *topo_verb_name(enum topo_verb v)
{
	return (unsigned)v < TOPO_VERB_COUNT ? verb_names[v] : "?";
}

int topo_verb_parse(const char *s, enum topo_verb *out)
{
	int i = find_name(verb_names, TOPO_VERB_COUNT, s);

	if (i < 0)
		return -EINVAL;
	*out = (enum topo_verb)i;
	return 0;
}

const char *topo_field_name(enum topo_field f)
{
	return (unsigned)f < TOPO_F_COUNT ? field_names[f] : "?";
}

int topo_field_parse(const char *s, enum topo_field *out)
{
	int i = find_name(field_names, TOPO_F_COUNT, s);

	if (i < 0)
		return -EINVAL;
	*out = (enum topo_field)i;
	return 0;
}

bool topo_field_has_prefix(enum topo_field f)
{
	return f == TOPO_F_IP_SRC || f == TOPO_F_IP_DST || f == TOPO_F_TUN_SRC ||
	       f == TOPO_F_TUN_DST;
}

unsigned topo_field_width(enum topo_field f)
{
	return (unsigned)f < TOPO_F_COUNT ? field_widths[f] : 0;
}

const char *topo_action_name(enum topo_action_kind k)
{
	return (unsigned)k < TOPO_ACT_KIND_COUNT ? action_names[k] : "?";
}

int topo_action_parse(const char *s, enum topo_action_kind *out)
{
	int i = find_name(action_names, TOPO_ACT_KIND_COUNT, s);

	if (i < 0)
		return -EINVAL;
	*out = (enum topo_action_kind)i;
	return 0;
}

bool topo_action_is_terminal(enum topo_action_kind k)
{
	return k == TOPO_ACT_FWD_VF || k == TOPO_ACT_FWD_VF_OTHER || k == TOPO_ACT_FWD_UPLINK ||
	       k == TOPO_ACT_GOTO || k == TOPO_ACT_DROP;
}

const char *topo_reason_name(enum topo_reason r)
{
	return (unsigned)r < TOPO_R_COUNT ? reason_names[r] : "?";
}

const char *topo_reason_explain(enum topo_reason r)
{
	return (unsigned)r < TOPO_R_COUNT ? reason_sentences[r] : "Unknown reason.";
}
