/* SPDX-License-Identifier: MIT */
/*
 * topo_enum: architecture models, their validity, and enumeration with pruning.
 *
 * The component space (struct topo_space) says what may be combined: up to max_tables tables;
 * a list of named mask shapes, of which each table holds a non-empty subset of at most
 * max_masks_per_table; a list of named action-list templates (sequences of action kinds);
 * k subnets x n containers per subnet per host.
 *
 * An architecture model (struct topo_model) picks, for each table: its mask subset, the
 * template applied to packets arriving from a VF (send path: plain container traffic) and the
 * template applied to packets arriving from the uplink (receive path: VXLAN), each either a
 * template index or TOPO_NONE (no rules for that class), and for every template that contains
 * a goto, the target table. Packets from VFs and from the uplink both enter table 0.
 *
 * Validity of a model (each reason has its own code, see topo.h):
 *  after_terminal, decap_non_tunnel (decap applied to a packet that is not VXLAN: a send-path
 *  packet, or a receive-path packet already decapsulated), encap_not_uplink (an encapsulated
 *  packet forwarded to a VF), cross_subnet (a fwd_vf_other action), loop (goto cycle),
 *  unreachable_table (no goto path from table 0), black_hole (a packet of either class reaches
 *  a table without a template for its class, or a template that ends without forward, goto
 *  or drop; also a receive-path packet delivered to a VF still encapsulated).
 *
 * Reason attribution is canonical, so that the pruning enumerator and the naive one agree:
 * topo_model_check() walks tables in index order and, for table t, reports the first of
 * (after_terminal, decap_non_tunnel, encap_not_uplink, cross_subnet) that the table's own
 * templates violate (each simulated from its class's nominal state: tx plain, rx VXLAN),
 * then loop if a cycle closes among tables 0..t; after all tables it reports
 * unreachable_table, then walks the tx packets and then the rx packets from table 0 and
 * reports the first problem on the way: black_hole, or decap_non_tunnel / encap_not_uplink
 * that only the path shows (e.g. decap at table 0, goto, decap again at table 1).
 *
 * Brute-force size (computed, not enumerated): sum over t = 1..max_tables of
 * (per-table choices at t tables)^t, where per-table choices = mask subsets x
 * (template choices of one class)^2 (tx and rx choose independently), and template choices
 * = 1 (TOPO_NONE) + the templates, each goto template counted t times. It is kept
 * as log10 (it can exceed 2^64). Flow paths: with k subnets x n containers per subnet on each
 * of two hosts, valid paths are container pairs inside a subnet, k*n^2 per direction; a table
 * whose contents are unconstrained lets every one of the k*n source VFs forward anywhere,
 * (k*n + 1)^(k*n) combinations.
 */
#ifndef TOPO_ENUM_H
#define TOPO_ENUM_H

#include "topology/topo.h"

#define TOPO_NONE 0xff
#define TOPO_MAX_TABLES 8
#define TOPO_MAX_SHAPES 16
#define TOPO_MAX_TEMPLATES 16

struct topo_shape {
	char name[32];
	struct topo_mask mask;
};

struct topo_template {
	char name[32];
	uint8_t n;
	enum topo_action_kind kinds[TOPO_MAX_ACTIONS];
};

struct topo_space {
	unsigned max_tables;          /* 1..TOPO_MAX_TABLES */
	unsigned max_masks_per_table; /* 1..n_shapes */
	unsigned n_shapes;
	struct topo_shape shapes[TOPO_MAX_SHAPES];
	unsigned n_templates;
	struct topo_template templates[TOPO_MAX_TEMPLATES];
	unsigned subnets;             /* k >= 1 */
	unsigned containers;          /* n per subnet per host >= 1 */
};

/* Fill a space with scalacn's default components (documented in docs/plan-reference.md). */
void topo_space_default(struct topo_space *s);

struct topo_table_choice {
	uint16_t masks;      /* bit i = shape i */
	uint8_t tx_template; /* template index or TOPO_NONE */
	uint8_t rx_template;
	uint8_t tx_goto;     /* target table when tx_template has a goto, else TOPO_NONE */
	uint8_t rx_goto;
};

struct topo_model {
	unsigned n_tables;
	struct topo_table_choice t[TOPO_MAX_TABLES];
};

/* Check a complete model against SPACE. Returns TOPO_OK or the canonical first reason; V (may
 * be NULL) gets the table and a message a person understands. */
enum topo_reason topo_model_check(const struct topo_space *s, const struct topo_model *m,
				  struct topo_violation *v);

/* Print a model in one line ("t0{masks=a+b tx=encap_up rx=decap_vf} t1{...}"). */
const char *topo_model_format(const struct topo_space *s, const struct topo_model *m,
			      char *buf, size_t len);

struct topo_enum_stats {
	double log10_bruteforce;   /* log10 of the brute-force model count */
	uint64_t visited;          /* partial + complete models the enumerator built */
	uint64_t valid;            /* complete valid models streamed to the callback */
	double pruned[TOPO_R_COUNT]; /* complete models excluded, by canonical reason */
	uint64_t prune_events[TOPO_R_COUNT]; /* partial models cut, by reason */
	double flow_paths_valid;              /* k * n^2 */
	double log10_flow_paths_unconstrained; /* k*n * log10(k*n + 1) */
	bool stopped;              /* the callback asked to stop */
};

/* Called for each valid model; return non-zero to stop the enumeration. */
typedef int (*topo_model_cb)(const struct topo_model *m, void *ctx);

/* Validate SPACE (limits, names) -> 0 or -EINVAL with ERR set. */
int topo_space_validate(const struct topo_space *s, struct scn_error *err);

/* Stream every valid model of SPACE through CB (may be NULL: count only), pruning partial
 * models as soon as they violate a constraint. Memory use does not grow with the space. */
int topo_enumerate(const struct topo_space *s, topo_model_cb cb, void *ctx,
		   struct topo_enum_stats *stats, struct scn_error *err);

/* Reference: generate every complete model, then filter with topo_model_check(). Same valid
 * models in the same order and the same pruned[] counts as topo_enumerate(); only for small
 * spaces (tests). */
int topo_enumerate_naive(const struct topo_space *s, topo_model_cb cb, void *ctx,
			 struct topo_enum_stats *stats, struct scn_error *err);

/* log10 of the brute-force size of SPACE. */
double topo_space_log10_size(const struct topo_space *s);

#endif
