/* SPDX-License-Identifier: MIT */
/*
 * topology: the abstract RNIC of an RDMA-offloaded container network (DESIGN.md vocabulary).
 *
 * Two levels live here:
 *  1. Concrete rule sets (struct topo_ruleset): the ports of one host's eSwitch (uplink/PF,
 *     one VF per container, their representors), tenant subnets (VNI), tables (chains) with a
 *     root (table 0), matching masks (a set of header fields, prefix lengths for IP fields)
 *     grouped per table in priority order, and rules (mask + values + priority + action list).
 *     Generators build them, testbeds apply them, topo_ruleset_check() validates them.
 *  2. Architecture models (struct topo_model): the structural combination of components that
 *     the enumerator walks: how many tables, which mask shapes each table holds, which action
 *     list each table applies to packets from a VF (send path) and from the uplink (receive
 *     path), and where each goto points. See topo_enum.h.
 *
 * Value types (masks, matches, actions, models) are plain structs: they are copied freely and
 * hold no pointers. The rule set is opaque and owns everything it holds.
 */
#ifndef TOPO_H
#define TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/scn_error.h"

/* RDMA verbs a trial can drive. */
enum topo_verb { TOPO_VERB_SEND = 0, TOPO_VERB_WRITE, TOPO_VERB_READ, TOPO_VERB_COUNT };
const char *topo_verb_name(enum topo_verb v);           /* "send", "write", "read" */
int topo_verb_parse(const char *s, enum topo_verb *out); /* 0 or -EINVAL */

/* Header fields a rule can match. IP fields take a prefix length (0..32). */
enum topo_field {
	TOPO_F_IN_PORT = 0,
	TOPO_F_ETH_SRC,
	TOPO_F_ETH_DST,
	TOPO_F_ETH_TYPE,
	TOPO_F_IP_SRC,    /* inner (or plain) IPv4 source, prefix */
	TOPO_F_IP_DST,    /* inner (or plain) IPv4 destination, prefix */
	TOPO_F_IP_PROTO,
	TOPO_F_L4_SRC,
	TOPO_F_L4_DST,
	TOPO_F_TUN_ID,    /* VXLAN VNI */
	TOPO_F_TUN_SRC,   /* outer IPv4 source, prefix */
	TOPO_F_TUN_DST,   /* outer IPv4 destination, prefix */
	TOPO_F_TUN_DPORT, /* outer UDP destination port (4789) */
	TOPO_F_COUNT
};
const char *topo_field_name(enum topo_field f);           /* "ip_dst", "tun_id", ... */
int topo_field_parse(const char *s, enum topo_field *out); /* 0 or -EINVAL */
bool topo_field_has_prefix(enum topo_field f);              /* IP fields */
unsigned topo_field_width(enum topo_field f);               /* bits: 48 for MACs, 32 IP, ... */

/* A matching mask: which fields, and for IP fields how many leading bits. Two masks are the
 * same matcher shape iff topo_mask_equal(). Invariant: plen[f] == 0 unless f is in fields and
 * has a prefix; for a prefix field in fields, 1 <= plen[f] <= 32. */
struct topo_mask {
	uint32_t fields; /* bit (1u << enum topo_field) */
	uint8_t plen[TOPO_F_COUNT];
};
bool topo_mask_equal(const struct topo_mask *a, const struct topo_mask *b);
bool topo_mask_has(const struct topo_mask *m, enum topo_field f);
/* Bits matched in total (specificity): sum of widths / prefix lengths. */
unsigned topo_mask_bits(const struct topo_mask *m);
/* Parse "ip_dst/24,tun_id,l4_dst" (fields without /N are matched whole). */
int topo_mask_parse(const char *s, struct topo_mask *out, struct scn_error *err);
/* Format the inverse of topo_mask_parse into BUF; returns BUF. */
const char *topo_mask_format(const struct topo_mask *m, char *buf, size_t len);
/* True when every packet matched by A (with values) is also matched by B's mask/values:
 * B's fields are a subset of A's, B's prefixes are no longer, and values agree on B's bits. */
struct topo_match;
bool topo_match_covers(const struct topo_match *b, const struct topo_match *a);

/* Mask plus values. Values are host-order integers; for prefix fields only the top plen
 * bits are significant (others must be zero: topo_match_normalise enforces it). */
struct topo_match {
	struct topo_mask mask;
	uint64_t value[TOPO_F_COUNT];
};
void topo_match_normalise(struct topo_match *m);
/* Does a packet with header values PKT (all fields set) hit this match? */
bool topo_match_hits(const struct topo_match *m, const uint64_t pkt[TOPO_F_COUNT]);

/* Actions. FWD_VF forwards to a VF port in the same tenant subnet; FWD_VF_OTHER names a
 * forward to a VF in another subnet (never valid; the enumerator's templates may hold it so
 * that pruning has something to prune). */
enum topo_action_kind {
	TOPO_ACT_ENCAP = 0, /* arg: VNI; pushes VXLAN toward a remote VTEP */
	TOPO_ACT_DECAP,
	TOPO_ACT_FWD_VF,       /* arg: port id */
	TOPO_ACT_FWD_VF_OTHER, /* arg: port id (cross-subnet: invalid) */
	TOPO_ACT_FWD_UPLINK,
	TOPO_ACT_GOTO,         /* arg: table id */
	TOPO_ACT_COUNT,
	TOPO_ACT_DROP,
	TOPO_ACT_KIND_COUNT
};
const char *topo_action_name(enum topo_action_kind k); /* "encap", "fwd_vf", "goto", ... */
int topo_action_parse(const char *s, enum topo_action_kind *out);
bool topo_action_is_terminal(enum topo_action_kind k); /* forwards, goto, drop */

#define TOPO_MAX_ACTIONS 8
struct topo_action {
	enum topo_action_kind kind;
	uint32_t arg;
};
struct topo_action_list {
	uint8_t n;
	struct topo_action a[TOPO_MAX_ACTIONS];
};

/* Ports of one host's eSwitch. */
enum topo_port_kind { TOPO_PORT_UPLINK = 0, TOPO_PORT_VF, TOPO_PORT_REPRESENTOR };
struct topo_port {
	uint32_t id;          /* unique in the rule set; the value of TOPO_F_IN_PORT */
	enum topo_port_kind kind;
	uint32_t subnet;      /* tenant VNI for VFs and their representors; 0 for the uplink */
	uint32_t container;   /* container index (VFs, representors) */
	uint32_t ip;          /* container (inner) IPv4 address for VFs; VTEP address for uplink */
	uint64_t mac;
	uint32_t peer;        /* representor: the VF it stands for; VF: its representor */
};

/* Validity reasons. Each has a stable name and a sentence for people. */
enum topo_reason {
	TOPO_OK = 0,
	TOPO_R_AFTER_TERMINAL,    /* an action follows forward/goto/drop */
	TOPO_R_DECAP_NON_TUNNEL,  /* decap on traffic that is not VXLAN from the uplink */
	TOPO_R_ENCAP_NOT_UPLINK,  /* encapsulated traffic not sent to the uplink */
	TOPO_R_CROSS_SUBNET,      /* forward between tenant subnets */
	TOPO_R_LOOP,              /* goto graph has a cycle */
	TOPO_R_UNREACHABLE_TABLE, /* no goto path from the root */
	TOPO_R_BLACK_HOLE,        /* a packet class ends without forward or drop */
	TOPO_R_DEAD_RULE,         /* shadowed by a higher-priority rule that covers it */
	TOPO_R_COUNT
};
const char *topo_reason_name(enum topo_reason r);    /* "loop", "unreachable_table", ... */
const char *topo_reason_explain(enum topo_reason r); /* one sentence */

struct topo_violation {
	enum topo_reason reason;
	int table; /* -1 when not about one table */
	int rule;  /* rule index, -1 when not about one rule */
	char message[256];
};

/* ---- Concrete rule sets ---------------------------------------------------------------- */

struct topo_ruleset;

/* A table's mask group: all its rules share the mask; groups are walked in priority order
 * (lower value first), as mlx5 matchers are. */
struct topo_group {
	uint32_t table;
	struct topo_mask mask;
	uint32_t priority;
	uint32_t n_rules;
};

struct topo_rule {
	uint32_t table;
	uint32_t group;     /* index of its group (same table, same mask and priority) */
	struct topo_match match;
	uint32_t priority;  /* equal to its group's priority */
	struct topo_action_list actions;
	uint32_t flow;      /* generator's flow id (informative; 0 when none) */
};

/* Create an empty rule set with one root table (id 0). Free with topo_ruleset_free (NULL ok). */
struct topo_ruleset *topo_ruleset_new(void);
void topo_ruleset_free(struct topo_ruleset *rs);
struct topo_ruleset *topo_ruleset_clone(const struct topo_ruleset *rs);

int topo_ruleset_add_port(struct topo_ruleset *rs, const struct topo_port *p);
/* Add a table; returns its id (>= 1) or a negative errno. */
int topo_ruleset_add_table(struct topo_ruleset *rs);
/* Add a rule. Its group is found or created from (table, mask, priority). Returns rule index
 * or a negative errno (-EINVAL for a table that does not exist). */
int topo_ruleset_add_rule(struct topo_ruleset *rs, uint32_t table, const struct topo_match *m,
			  uint32_t priority, const struct topo_action_list *actions, uint32_t flow);
/* The builders' fast path (topo_ruleset_add.c): a reference to the group (TABLE, M,
 * PRIORITY), found or created as topo_ruleset_add_rule does (0, -EINVAL for a bad table
 * or mask, -ENOMEM); the id of action list A in the rule set (-EINVAL for a list
 * topo_ruleset_add_rule would refuse); then rules of that group: VALUES are header values
 * by field (only M's fields are read, cut to the mask here), ACT an id from
 * topo_ruleset_actions_id. The rule is the one topo_ruleset_add_rule adds with the same
 * values and actions; returns its index, -ESTALE when a group made since moved the
 * referenced one (take a new reference), -EINVAL, -ENOSPC or -ENOMEM. */
struct topo_group_ref {
	uint32_t index;
	uint64_t seq;
};
int topo_ruleset_group_ref(struct topo_ruleset *rs, uint32_t table, const struct topo_mask *m,
			   uint32_t priority, struct topo_group_ref *out);
long topo_ruleset_actions_id(struct topo_ruleset *rs, const struct topo_action_list *a);
int topo_ruleset_add_rule_ref(struct topo_ruleset *rs, const struct topo_group_ref *ref,
			      const uint64_t values[TOPO_F_COUNT], uint32_t act, uint32_t flow);
/* N rules of the group REF at once: rule i has the header values VALUES[i] (read and cut
 * as topo_ruleset_add_rule_ref does), the action-list id ACT[i] and the flow FLOW[i]. The
 * rules are those of N calls of topo_ruleset_add_rule_ref, in order; the group's plan and
 * the room are looked up once. 0, -ESTALE, -EINVAL (an unknown action-list id: nothing is
 * added), -ENOSPC or -ENOMEM. */
int topo_ruleset_add_rules_ref(struct topo_ruleset *rs, const struct topo_group_ref *ref,
			       size_t n, const uint64_t (*values)[TOPO_F_COUNT],
			       const uint32_t *act, const uint32_t *flow);
/* Make room for N_RULES rules in all (no reallocation until then): a builder that
 * knows its rule count calls it first. 0, -EINVAL or -ENOMEM. */
int topo_ruleset_reserve(struct topo_ruleset *rs, size_t n_rules);
/* Make room for the values of N_RULES more rules of mask M (rules store the values of
 * their mask's fields only). Reservations add up; the next rule added allocates the room
 * for all of them at once (so its add may give -ENOMEM). 0 or -EINVAL (M not a valid
 * mask). */
int topo_ruleset_reserve_values(struct topo_ruleset *rs, const struct topo_mask *m,
				size_t n_rules);
/* Rule storage that freed rule sets left for the next ones (large arrays only, bounded:
 * topo_blocks.c), so that building rule set after rule set does not take fresh memory from
 * the kernel each time: the bytes held now, and giving them all back (also done at exit). */
size_t topo_storage_held(void);
void topo_storage_release(void);
/* Bytes of memory the rule set holds (its arrays and indexes, allocated capacity). */
size_t topo_ruleset_bytes(const struct topo_ruleset *rs);
/* Remove rule I (indices above it shift down; empty groups stay, as mlx5 matchers do). */
int topo_ruleset_del_rule(struct topo_ruleset *rs, size_t i);

size_t topo_ruleset_n_ports(const struct topo_ruleset *rs);
const struct topo_port *topo_ruleset_port(const struct topo_ruleset *rs, size_t i);
const struct topo_port *topo_ruleset_port_by_id(const struct topo_ruleset *rs, uint32_t id);
size_t topo_ruleset_n_tables(const struct topo_ruleset *rs);
size_t topo_ruleset_n_rules(const struct topo_ruleset *rs);
/* Rule I as a full record. Rules are stored compactly: the first call unpacks all of them
 * (struct topo_rule each, held until the rule set changes), so the pointer is valid until
 * the next change of the rule set. NULL when I is out of range (or out of memory). */
const struct topo_rule *topo_ruleset_rule(const struct topo_ruleset *rs, size_t i);
/* Rule I (the same record) copied into OUT, without the full records: what a reader that
 * walks every rule once uses. 0 or -EINVAL. */
int topo_ruleset_rule_copy(const struct topo_ruleset *rs, size_t i, struct topo_rule *out);
/* Rule I as stored, for scanners that visit every rule and do per-group and per-action-list
 * work once: its group, flow, the id of its action list (rules with equal lists share one:
 * topo_ruleset_action_list), and its values: WORDS holds the values of its group mask's
 * fields in field order, one 32-bit word per field, two for eth_src and eth_dst (low word
 * first), cut to the mask. WORDS is valid until the rule set changes. 0 or -EINVAL. */
struct topo_rule_packed {
	uint32_t group, flow, act;
	const uint32_t *words;
};
int topo_ruleset_rule_packed(const struct topo_ruleset *rs, size_t i,
			     struct topo_rule_packed *out);
/* Distinct action lists of the rule set (ids 0 .. n - 1); NULL when ID is out of range. */
size_t topo_ruleset_n_action_lists(const struct topo_ruleset *rs);
const struct topo_action_list *topo_ruleset_action_list(const struct topo_ruleset *rs,
							 size_t id);
/* Groups of all tables, ordered by (table, priority, creation). */
size_t topo_ruleset_n_groups(const struct topo_ruleset *rs);
const struct topo_group *topo_ruleset_group(const struct topo_ruleset *rs, size_t i);
/* Distinct mask shapes in the rule set (groups with equal masks count once). */
size_t topo_ruleset_n_distinct_masks(const struct topo_ruleset *rs);

/* Classify a packet the way the eSwitch would: walk tables from the root, groups in priority
 * order, first hit wins, follow gotos. Writes the index of the final rule hit (or -1 on a
 * miss) and the number of groups probed in total. Returns 0, -ELOOP on a goto cycle. */
int topo_ruleset_classify(const struct topo_ruleset *rs, const uint64_t pkt[TOPO_F_COUNT],
			  int *rule, unsigned *probes);

/* Check a rule set. Writes up to MAX violations into OUT (may be NULL) and returns how many
 * were found in total (0 = valid). Checks: after_terminal, decap_non_tunnel (decap on a rule
 * that does not match tunnel traffic from the uplink), encap_not_uplink, cross_subnet, loop,
 * unreachable_table, dead_rule (a rule covered by an earlier-probed rule of the same table). */
size_t topo_ruleset_check(const struct topo_ruleset *rs, struct topo_violation *out, size_t max);

#endif
