/* SPDX-License-Identifier: MIT */
/*
 * gen_model (internal to generators/): where an architecture model puts a host's rules.
 *
 * Without a model every rule is in table 0. With a model (and its space), the send path is
 * walked from table 0 along tx gotos to the first table whose tx template contains encap: the
 * encap rules go there; the receive path likewise along rx gotos to the first table whose rx
 * template contains decap. Only tables on these two paths are created (model table 0 is rule
 * set table 0, the others are numbered in the order the walks meet them), so every created
 * table is reachable. Each table on the send path before the encap table gets one goto rule
 * per VF (mask in_port, priority GEN_PRIO_TX_GOTO); each table on the receive path before the
 * decap table gets one goto rule for VXLAN from the uplink (mask in_port + tun_dport, priority
 * GEN_PRIO_RX_GOTO). Encap/decap rules keep the fixed action lists [encap, fwd_uplink] and
 * [decap, fwd_vf]; the model's mask subsets are not used (the point's masks levels decide).
 * A path that hits a table without a template for its class, ends without encap/decap, or
 * loops is a config error.
 */
#ifndef GEN_MODEL_H
#define GEN_MODEL_H

#include "generators/gen.h"

struct gen_edge {
	uint32_t from, to; /* rule set table ids */
};

/* Invariant: encap_table, decap_table < n_tables; edges point between created tables. */
struct gen_placement {
	uint32_t n_tables; /* rule set tables, including the root */
	uint32_t encap_table, decap_table;
	unsigned n_tx, n_rx;
	struct gen_edge tx[TOPO_MAX_TABLES], rx[TOPO_MAX_TABLES];
};

/* Plan the placement for MODEL (NULL: all in table 0). 0 or -EINVAL (class config). */
int gen_placement_plan(const struct topo_model *model, const struct topo_space *space,
		       struct gen_placement *pl, struct scn_error *err);
/* Create the plan's tables and goto rules in RS (k subnets, n containers each). */
int gen_placement_apply(const struct gen_placement *pl, struct topo_ruleset *rs, uint32_t k,
			uint32_t n);

#endif
