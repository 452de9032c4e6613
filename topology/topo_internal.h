/* SPDX-License-Identifier: MIT */
/*
 * topo_internal: helpers shared by the topology sources (not part of the public API).
 *
 * The model checks are split the way topo_enum.h's canonical attribution needs them: a
 * per-table part that only looks at table t's own templates and the goto edges among tables
 * 0..t (so a pruning enumerator can apply it as soon as table t is chosen), and a final part
 * that needs the complete model (reachability, then the packet walk).
 */
#ifndef TOPO_INTERNAL_H
#define TOPO_INTERNAL_H

#include "topology/topo.h"
#include "topology/topo_enum.h"

/* Is M a well-formed mask (known fields only, prefix lengths per the struct invariant)? */
bool topo__mask_valid(const struct topo_mask *m);
/* Fields that take a prefix length (topo_field_has_prefix as a bit set). */
#define TOPO__PREFIX_FIELDS ((1u << TOPO_F_IP_SRC) | (1u << TOPO_F_IP_DST) | \
			     (1u << TOPO_F_TUN_SRC) | (1u << TOPO_F_TUN_DST))

/* Bit mask of the significant bits of field F under mask M (0 when F is not in M). Inline:
 * rule insertion, normalisation and classification call it per field. */
static inline uint64_t topo__field_bits(const struct topo_mask *m, enum topo_field f)
{
	static const uint8_t width[TOPO_F_COUNT] = { 32, 48, 48, 16, 32, 32, 8, 16, 16, 24,
						     32, 32, 16 };
	unsigned p;

	if ((unsigned)f >= TOPO_F_COUNT || !(m->fields & (1u << f)))
		return 0;
	if (TOPO__PREFIX_FIELDS & (1u << f)) {
		p = m->plen[f] > 32 ? 32 : m->plen[f];
		return p ? (0xffffffffull << (32 - p)) & 0xffffffffull : 0;
	}
	return (1ull << width[f]) - 1;
}

/* Packet classes of an architecture model. */
enum topo__class { TOPO__TX = 0, TOPO__RX = 1 };

/* Reason (or TOPO_OK) that one template violates on its own, simulated from the class's
 * nominal state (tx: plain container traffic, rx: VXLAN from the uplink). The first of
 * after_terminal, decap_non_tunnel, encap_not_uplink, cross_subnet in that order. */
enum topo_reason topo__template_reason(const struct topo_template *tp, enum topo__class c);
/* Does the template hold a goto? */
bool topo__template_has_goto(const struct topo_template *tp);

/* Local reason of a table with templates TX and RX (either may be TOPO_NONE): the first
 * reason in code order over both templates (tx before rx within a reason); *cls gets the
 * class that shows it. */
enum topo_reason topo__pair_reason(const struct topo_space *s, unsigned tx, unsigned rx,
				   enum topo__class *cls);

/* Does a goto cycle close among tables 0..t of M, given none among 0..t-1? */
bool topo__loop_closes(const struct topo_space *s, const struct topo_model *m, unsigned t);

/* Full per-table step of the canonical check for table T (local reasons, then loop); TG
 * holds the goto target set of each table 0..t (bit u = a goto to table u). */
enum topo_reason topo__table_reason(const struct topo_space *s, const struct topo_model *m,
				    unsigned t, const unsigned *tg, struct topo_violation *v);
/* Final step on a complete model: unreachable_table, then the packet walk. */
enum topo_reason topo__final_reason(const struct topo_space *s, const struct topo_model *m,
				    struct topo_violation *v);

/* Per-table choice count at N tables (mask subsets x template options squared). */
double topo__choices(const struct topo_space *s, unsigned n_tables);
/* Template options of one class at N tables: NONE, then each template (goto templates once
 * per target). Writes up to TOPO__MAX_OPTS (template, goto) pairs; returns the count. */
#define TOPO__MAX_OPTS (1 + TOPO_MAX_TEMPLATES * TOPO_MAX_TABLES)
struct topo__opt {
	uint8_t tmpl;
	uint8_t go;
};
unsigned topo__options(const struct topo_space *s, unsigned n_tables, struct topo__opt *out);
/* Mask subsets in increasing integer order: the lowest subset above V with at most
 * max_masks_per_table shapes, or 0 when none is left (V = 0 gives the first). */
uint16_t topo__next_subset(const struct topo_space *s, unsigned v);

static inline unsigned topo__popcount(unsigned v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* Fill the flow-path and brute-force fields of STATS (zeroing the rest). */
void topo__stats_init(const struct topo_space *s, struct topo_enum_stats *stats);

#endif
