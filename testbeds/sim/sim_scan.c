/* SPDX-License-Identifier: MIT */
/*
 * sim_scan: the O(rules) analysis of one host's rule set (used by apply, sim_rules.c).
 *
 *  - probes per flow and direction: a packet walks its table's mask groups in priority order
 *    until the group of its flow's rule; with goto chains the walks of each table add up.
 *    The probes of a rule are the position of its group among the groups its direction
 *    walks: all groups of the table when the profile's steering shares one tree between
 *    directions, else only the groups holding rules of that direction plus empty groups
 *    (mlx5 does not skip empty matchers). Tables entered through gotos that serve every flow
 *    (rules with flow 0) add the probes of the way there. On generated rule sets, where no
 *    rule covers another flow's packet, this equals topo_ruleset_classify() (tests check).
 *    A flow without a rule of a direction the host has rules for misses: it walks every
 *    group of table 0.
 *  - a rule's direction: its action list (decap / encap), else its mask (tunnel fields mean
 *    VXLAN from the uplink: receive), else in_port = an uplink port (receive), else send.
 *  - rule hashes for the diff against the previous apply (sim_scan_diff: a hash multiset).
 * One pass reads the rules (each copied out of topology's compact storage, not through the
 * full records topo_ruleset_rule would make); the rest works on compact per-rule arrays.
 * Assumes topo_rule.flow = flow index + 1 (0 = no flow), as gen_rules_build writes it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/sim/sim_internal.h"

/* What the passes after the first need of a rule. */
struct rinfo {
	uint32_t group, flow, table;
	uint8_t dir;
};

struct shared_goto {
	uint32_t group, table, target;
	uint8_t dir;
};

/* Scratch of one host's analysis. */
struct scan {
	struct rinfo *r;
	struct shared_goto *gotos;
	size_t n_gotos;
	uint8_t *gdir;              /* per group: bit d set when it holds a rule of direction d */
	uint32_t *pos[GEN_DIRS];    /* per group: position on direction d's walk */
	uint32_t *mintab[GEN_DIRS]; /* per flow: lowest table holding one of its rules */
	uint32_t *entry[GEN_DIRS];  /* per table: probes to enter it through shared gotos */
};

static uint64_t fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

static uint64_t step(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* Hash of what identifies a programmed rule (field by field: no padding bytes). */
static uint64_t rule_hash(const struct topo_rule *r)
{
	uint64_t h = step(step(0x5eedull, r->table), r->priority);
	uint32_t fields = r->match.mask.fields;

	h = step(h, fields);
	for (int f = 0; f < TOPO_F_COUNT; f++)
		if ((fields >> f) & 1u)
			h = step(h, r->match.value[f] ^ ((uint64_t)r->match.mask.plen[f] << 56));
	for (unsigned i = 0; i < r->actions.n; i++)
		h = step(h, ((uint64_t)r->actions.a[i].kind << 32) | r->actions.a[i].arg);
	h = fmix64(h);
	return h ? h : 1;
}

struct hslot {
	uint64_t key; /* 0 = empty (hashes are never 0: see rule_hash) */
	uint32_t count;
};

/* Size of the symmetric difference of multisets A and B: B goes into an open-addressing
 * table with counts, A's hashes take matches out of it. O(na + nb). -1 on no memory. */
int64_t sim_scan_diff(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t cap = 16, same = 0;
	struct hslot *t;

	while (cap < 2 * nb)
		cap *= 2;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i < nb; i++) {
		size_t k = b[i] & (cap - 1);

		while (t[k].key && t[k].key != b[i])
			k = (k + 1) & (cap - 1);
		t[k].key = b[i];
		t[k].count++;
	}
	for (size_t i = 0; i < na; i++) {
		size_t k = a[i] & (cap - 1);

		while (t[k].key && t[k].key != a[i])
			k = (k + 1) & (cap - 1);
		if (t[k].key && t[k].count) {
			t[k].count--;
			same++;
		}
	}
	free(t);
	return (int64_t)((na - same) + (nb - same));
}

static enum gen_dir rule_dir(const struct topo_rule *r, int64_t uplink, long *goto_to)
{
	const uint32_t tun = (1u << TOPO_F_TUN_ID) | (1u << TOPO_F_TUN_DPORT) |
			     (1u << TOPO_F_TUN_SRC) | (1u << TOPO_F_TUN_DST);
	int dir = -1;

	*goto_to = -1;
	for (unsigned i = 0; i < r->actions.n; i++) {
		enum topo_action_kind k = r->actions.a[i].kind;

		if (k == TOPO_ACT_DECAP && dir < 0)
			dir = GEN_DECAP;
		else if (k == TOPO_ACT_ENCAP && dir < 0)
			dir = GEN_ENCAP;
		else if (k == TOPO_ACT_GOTO && *goto_to < 0)
			*goto_to = r->actions.a[i].arg;
	}
	if (dir >= 0)
		return (enum gen_dir)dir;
	if (r->match.mask.fields & tun)
		return GEN_DECAP;
	if ((r->match.mask.fields & (1u << TOPO_F_IN_PORT)) && uplink >= 0 &&
	    r->match.value[TOPO_F_IN_PORT] == (uint64_t)uplink)
		return GEN_DECAP;
	return GEN_ENCAP;
}

static int64_t find_uplink(const struct topo_ruleset *rs)
{
	for (size_t i = 0; i < topo_ruleset_n_ports(rs); i++)
		if (topo_ruleset_port(rs, i)->kind == TOPO_PORT_UPLINK)
			return topo_ruleset_port(rs, i)->id;
	return -1;
}

/* The one pass over the rule records: hashes, directions, compact copies, shared gotos. */
static void first_pass(const struct topo_ruleset *rs, struct scan *sc, struct sim_host *h)
{
	size_t nr = topo_ruleset_n_rules(rs);
	int64_t uplink = find_uplink(rs);

	for (size_t i = 0; i < nr; i++) {
		struct topo_rule rule, *r = &rule;
		struct rinfo *ri = &sc->r[i];
		long to;

		topo_ruleset_rule_copy(rs, i, r); /* i < nr: cannot fail */
		ri->dir = (uint8_t)rule_dir(r, uplink, &to);
		ri->group = r->group;
		ri->flow = r->flow;
		ri->table = r->table;
		h->hashes[i] = rule_hash(r);
		sc->gdir[r->group] |= (uint8_t)(1u << ri->dir);
		h->has_dir[ri->dir] = true;
		if (r->flow == 0 && to >= 0)
			sc->gotos[sc->n_gotos++] = (struct shared_goto){ r->group, r->table,
									 (uint32_t)to, ri->dir };
	}
}

/* Positions of groups on each direction's walk; walk length of table 0 into WALK0. */
static void group_positions(const struct topo_ruleset *rs, const struct scan *sc, bool shared,
			    uint32_t walk0[GEN_DIRS])
{
	size_t ng = topo_ruleset_n_groups(rs);
	uint32_t cnt[GEN_DIRS] = { 0, 0 };
	uint32_t table = UINT32_MAX;

	walk0[0] = walk0[1] = 0;
	for (size_t g = 0; g < ng; g++) {
		const struct topo_group *gr = topo_ruleset_group(rs, g);

		if (gr->table != table) {
			table = gr->table;
			cnt[0] = cnt[1] = 0;
		}
		for (int d = 0; d < GEN_DIRS; d++) {
			if (shared || sc->gdir[g] == 0 || (sc->gdir[g] >> d) & 1u)
				cnt[d]++;
			sc->pos[d][g] = cnt[d];
			if (table == 0)
				walk0[d] = cnt[d];
		}
	}
}

/* entry[d][t] = entry[d][from] + position of the shared goto's group, relaxed n_tables
 * times (enough for any acyclic goto graph). */
static void table_entries(struct scan *sc, size_t nt)
{
	for (size_t pass = 0; pass < nt && sc->n_gotos; pass++)
		for (size_t i = 0; i < sc->n_gotos; i++) {
			const struct shared_goto *g = &sc->gotos[i];
			uint32_t v;

			if (g->target >= nt)
				continue;
			v = sc->entry[g->dir][g->table] + sc->pos[g->dir][g->group];
			if (v > sc->entry[g->dir][g->target])
				sc->entry[g->dir][g->target] = v;
		}
}

/* Per-flow probes and flags, N flows; rules at index >= h->in_hw are not in hardware. */
static void flow_probes(const struct scan *sc, size_t nr, uint32_t n, struct sim_host *h)
{
	for (size_t i = 0; i < nr; i++) {
		const struct rinfo *r = &sc->r[i];
		int d = r->dir;
		uint32_t f = r->flow - 1;

		if (r->flow == 0 || r->flow > n)
			continue;
		h->probes[d][f] += sc->pos[d][r->group];
		if (!(h->flags[d][f] & SIM_F_RULE) || r->table < sc->mintab[d][f])
			sc->mintab[d][f] = r->table;
		h->flags[d][f] |= (uint8_t)(SIM_F_RULE | (i >= h->in_hw ? SIM_F_SW : 0));
	}
	for (int d = 0; d < GEN_DIRS; d++)
		for (uint32_t f = 0; f < n; f++) {
			if (h->flags[d][f] & SIM_F_RULE) {
				h->probes[d][f] += sc->entry[d][sc->mintab[d][f]];
			} else if (h->has_dir[d]) {
				h->probes[d][f] = h->walk0[d];
				h->flags[d][f] |= SIM_F_MISS;
			}
		}
}

static void scan_free(struct scan *sc)
{
	free(sc->r);
	free(sc->gotos);
	free(sc->gdir);
	for (int d = 0; d < GEN_DIRS; d++) {
		free(sc->pos[d]);
		free(sc->mintab[d]);
		free(sc->entry[d]);
	}
}

int sim_scan_host(const struct topo_ruleset *rs, uint32_t n, bool shared_tree,
		  struct sim_host *h)
{
	size_t nr = topo_ruleset_n_rules(rs), ng = topo_ruleset_n_groups(rs);
	size_t nt = topo_ruleset_n_tables(rs);
	struct scan sc = { 0 };
	bool ok;

	sc.r = malloc((nr ? nr : 1) * sizeof(*sc.r));
	sc.gotos = malloc((nr ? nr : 1) * sizeof(*sc.gotos));
	sc.gdir = calloc(ng ? ng : 1, 1);
	ok = sc.r && sc.gotos && sc.gdir;
	for (int d = 0; d < GEN_DIRS; d++) {
		sc.pos[d] = calloc(ng ? ng : 1, sizeof(uint32_t));
		sc.mintab[d] = calloc(n ? n : 1, sizeof(uint32_t));
		sc.entry[d] = calloc(nt ? nt : 1, sizeof(uint32_t));
		ok = ok && sc.pos[d] && sc.mintab[d] && sc.entry[d];
	}
	if (ok) {
		first_pass(rs, &sc, h);
		group_positions(rs, &sc, shared_tree, h->walk0);
		table_entries(&sc, nt);
		flow_probes(&sc, nr, n, h);
	}
	scan_free(&sc);
	return ok ? 0 : -ENOMEM;
}
