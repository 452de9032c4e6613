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
 * One pass reads the rules as topology stores them (topo_ruleset_rule_packed: group, flow,
 * action-list id, packed values; what depends only on the group or the action list is
 * worked out once for each); the rest works on compact per-rule arrays.
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
	struct ginfo *g;            /* per group */
	struct ainfo *a;            /* per action list */
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

/* What identifies a programmed rule is hashed field by field (no padding bytes): table,
 * priority, mask fields, each field's value with its prefix length, each action. The part
 * of the hash that its group decides (table, priority, fields) is computed once per group,
 * the values per rule from topology's packed words, the actions per distinct action list
 * (topo_ruleset_rule_packed). */
struct ginfo {
	uint64_t h0;                    /* the hash over table, priority and fields */
	uint64_t plen[TOPO_F_COUNT];    /* per field of the mask, in order: its plen << 56 */
	uint8_t wide[TOPO_F_COUNT];     /* 1 for a two-word field (MACs) */
	uint32_t table;
	uint8_t nf, tunnel, in_port;    /* fields; tunnel fields; in_port (its first word) */
};

/* Per action list: the direction it decides (-1: none), its goto target (-1: none). */
struct ainfo {
	int8_t dir;
	long to;
};

static uint64_t rule_hash(const struct ginfo *g, const uint32_t *w,
			  const struct topo_action_list *a)
{
	uint64_t h = g->h0;

	for (unsigned k = 0; k < g->nf; k++) {
		uint64_t v = w[0] | (g->wide[k] ? (uint64_t)w[1] << 32 : 0);

		w += 1u + g->wide[k];
		h = step(h, v ^ g->plen[k]);
	}
	for (unsigned i = 0; i < a->n; i++)
		h = step(h, ((uint64_t)a->a[i].kind << 32) | a->a[i].arg);
	h = fmix64(h);
	return h ? h : 1;
}

struct sim_diff_slot {
	uint64_t key;   /* a rule hash (never 0: see rule_hash) */
	uint32_t count; /* of B's copies not yet matched */
	uint32_t gen;   /* the call that wrote it; another call's slot is empty */
};

/* Room in T for NB keys at most half full, and a generation no slot holds yet. */
static int diff_table_ready(struct sim_diff_table *t, size_t nb)
{
	size_t cap = 16;

	while (cap < 2 * nb)
		cap *= 2;
	if (cap > t->cap) {
		free(t->slot);
		t->slot = calloc(cap, sizeof(*t->slot));
		t->cap = t->slot ? cap : 0;
		t->gen = 0;
		if (!t->slot)
			return -1;
	}
	if (++t->gen == 0) { /* wrapped: every slot could look current */
		memset(t->slot, 0, t->cap * sizeof(*t->slot));
		t->gen = 1;
	}
	return 0;
}

/* Size of the symmetric difference of multisets A and B: B goes into an open-addressing
 * table with counts, A's hashes take matches out of it. O(na + nb); the table is T's, kept
 * from call to call (a fresh one for 64K rules was megabytes of fresh pages every apply). */
int64_t sim_scan_diff(struct sim_diff_table *t, const uint64_t *a, size_t na, const uint64_t *b,
		      size_t nb)
{
	size_t same = 0, mask;
	uint32_t gen;

	if (diff_table_ready(t, nb) < 0)
		return -1;
	mask = t->cap - 1;
	gen = t->gen;
	for (size_t i = 0; i < nb; i++) {
		size_t k = b[i] & mask;

		while (t->slot[k].gen == gen && t->slot[k].key != b[i])
			k = (k + 1) & mask;
		if (t->slot[k].gen != gen)
			t->slot[k] = (struct sim_diff_slot){ b[i], 0, gen };
		t->slot[k].count++;
	}
	for (size_t i = 0; i < na; i++) {
		size_t k = a[i] & mask;

		while (t->slot[k].gen == gen && t->slot[k].key != a[i])
			k = (k + 1) & mask;
		if (t->slot[k].gen == gen && t->slot[k].count) {
			t->slot[k].count--;
			same++;
		}
	}
	return (int64_t)((na - same) + (nb - same));
}

void sim_diff_table_free(struct sim_diff_table *t)
{
	free(t->slot);
	*t = (struct sim_diff_table){ 0 };
}

/* A rule's direction: its action list's (the first decap or encap), else its mask's
 * (tunnel fields: receive), else in_port = the uplink (receive), else send. */
static void action_info(const struct topo_action_list *a, struct ainfo *out)
{
	out->dir = -1;
	out->to = -1;
	for (unsigned i = 0; i < a->n; i++) {
		enum topo_action_kind k = a->a[i].kind;

		if (k == TOPO_ACT_DECAP && out->dir < 0)
			out->dir = GEN_DECAP;
		else if (k == TOPO_ACT_ENCAP && out->dir < 0)
			out->dir = GEN_ENCAP;
		else if (k == TOPO_ACT_GOTO && out->to < 0)
			out->to = a->a[i].arg;
	}
}

static void group_info(const struct topo_group *gr, struct ginfo *out)
{
	const uint32_t tun = (1u << TOPO_F_TUN_ID) | (1u << TOPO_F_TUN_DPORT) |
			     (1u << TOPO_F_TUN_SRC) | (1u << TOPO_F_TUN_DST);
	const uint32_t macs = (1u << TOPO_F_ETH_SRC) | (1u << TOPO_F_ETH_DST);
	uint32_t fields = gr->mask.fields;

	memset(out, 0, sizeof(*out));
	out->h0 = step(step(step(0x5eedull, gr->table), gr->priority), fields);
	out->table = gr->table;
	out->tunnel = (fields & tun) != 0;
	out->in_port = (fields >> TOPO_F_IN_PORT) & 1u;
	for (int f = 0; f < TOPO_F_COUNT; f++)
		if ((fields >> f) & 1u) {
			out->plen[out->nf] = (uint64_t)gr->mask.plen[f] << 56;
			out->wide[out->nf++] = (macs >> f) & 1u;
		}
}

static enum gen_dir rule_dir(const struct ginfo *g, const struct ainfo *a, const uint32_t *w,
			     int64_t uplink)
{
	if (a->dir >= 0)
		return (enum gen_dir)a->dir;
	if (g->tunnel)
		return GEN_DECAP;
	if (g->in_port && uplink >= 0 && w[0] == (uint64_t)uplink) /* in_port: field 0 */
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

/* The one pass over the rules: hashes, directions, compact copies, shared gotos. */
static void first_pass(const struct topo_ruleset *rs, struct scan *sc, struct sim_host *h)
{
	size_t nr = topo_ruleset_n_rules(rs);
	int64_t uplink = find_uplink(rs);

	for (size_t g = 0; g < topo_ruleset_n_groups(rs); g++)
		group_info(topo_ruleset_group(rs, g), &sc->g[g]);
	for (size_t a = 0; a < topo_ruleset_n_action_lists(rs); a++)
		action_info(topo_ruleset_action_list(rs, a), &sc->a[a]);
	for (size_t i = 0; i < nr; i++) {
		struct topo_rule_packed r;
		struct rinfo *ri = &sc->r[i];
		const struct ginfo *g;
		const struct ainfo *a;

		topo_ruleset_rule_packed(rs, i, &r); /* i < nr: cannot fail */
		g = &sc->g[r.group];
		a = &sc->a[r.act];
		ri->dir = (uint8_t)rule_dir(g, a, r.words, uplink);
		ri->group = r.group;
		ri->flow = r.flow;
		ri->table = g->table;
		h->hashes[i] = rule_hash(g, r.words, topo_ruleset_action_list(rs, r.act));
		sc->gdir[r.group] |= (uint8_t)(1u << ri->dir);
		h->has_dir[ri->dir] = true;
		if (r.flow == 0 && a->to >= 0)
			sc->gotos[sc->n_gotos++] = (struct shared_goto){ r.group, g->table,
									 (uint32_t)a->to, ri->dir };
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
	free(sc->g);
	free(sc->a);
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
	size_t nt = topo_ruleset_n_tables(rs), na = topo_ruleset_n_action_lists(rs);
	struct scan sc = { 0 };
	bool ok;

	sc.r = malloc((nr ? nr : 1) * sizeof(*sc.r));
	sc.g = malloc((ng ? ng : 1) * sizeof(*sc.g));
	sc.a = malloc((na ? na : 1) * sizeof(*sc.a));
	sc.gotos = malloc((nr ? nr : 1) * sizeof(*sc.gotos));
	sc.gdir = calloc(ng ? ng : 1, 1);
	ok = sc.r && sc.g && sc.a && sc.gotos && sc.gdir;
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
