/* SPDX-License-Identifier: MIT */
/*
 * gen_rules: build the parts of a point's rule sets (gen.h, gen_packet.h): the flow table and
 * each host's rule set (gen_flows.h); gen_parts.c assembles them into a struct gen_rules.
 *
 * Layout: k = subnets, n containers per subnet per host with k * n^2 >= flows. Flow f lives in
 * subnet f % k as that subnet's (f / k)-th flow; each subnet's flows are distinct (client
 * container, server container) pairs drawn by a seeded partial shuffle. Each host gets an
 * uplink (port 1) and a VF + representor per container (addressing in gen_addr.h).
 *
 * Rules per host and direction (h, d) with m = masks[h][d] > 0: one rule per flow; flows are
 * permuted by a seeded shuffle of their own (so changing one side's masks leaves the other
 * sides alone), moved along by the point's layout (gen_layout.c; layout 0: as drawn), and the j-th flow of the permutation gets shape j % m of the direction's
 * family (gen_shapes.h): each of the m shapes holds at least one rule, so the side has exactly
 * m distinct masks. Shape i is its own group at priority GEN_PRIO_ENCAP/DECAP + i. A rule's
 * values are its flow's packet (gen_flow_packet) on the shape's fields; every shape tells the
 * flows apart, so no rule covers another and each packet hits exactly its flow's rule.
 * m = 0: that kind is not offloaded (no rules).
 *
 * Encap contexts (client, forward direction): C = encap_contexts (0 = one per flow), raised
 * to the number of subnets that carry flows (each needs its own VNI), split over subnets like
 * the flows; the j-th flow of subnet s uses remote VTEP index j % C_s. The count is reported
 * in gen_rules.encap_contexts (0 when the client's encap is not offloaded).
 *
 * Host h's rule set is a function of the flow table (flows, subnets, encap contexts, seed)
 * and masks[h] only: what lets the cache (gen_rules_cache.c) reuse one host while the other
 * changes. Models: see gen_model.h. Build cost here is O(rules + containers + k * n^2);
 * inserting the rules into the topology rule sets (reserved up front) is most of the time.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "generators/gen_addr.h"
#include "generators/gen_flows.h"
#include "generators/gen_model.h"
#include "generators/gen_packet.h"
#include "generators/gen_shapes.h"

static const char *const side_name[GEN_HOSTS][GEN_DIRS] = {
	{ "client.encap_masks", "client.decap_masks" },
	{ "server.encap_masks", "server.decap_masks" },
};

static uint32_t rng_below(struct gen_rng *rng, uint32_t bound)
{
	return (uint32_t)(((gen_rng_next(rng) >> 32) * bound) >> 32);
}

int gen_levels_check(const struct gen_levels *l, struct scn_error *err)
{
	if (l->subnets < 1 || l->subnets > GEN_MAX_SUBNETS)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "subnets: %u is out of range [1, %u]", l->subnets,
				     GEN_MAX_SUBNETS);
	if (l->flows > GEN_MAX_FLOWS)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "flows: %u is out of range [1, %u]", l->flows, GEN_MAX_FLOWS);
	for (int h = 0; h < GEN_HOSTS; h++)
		for (int d = 0; d < GEN_DIRS; d++) {
			uint32_t m = l->masks[h][d];

			if (m > gen_shape_count((enum gen_dir)d))
				return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
						     "%s: %u is more than the %u distinct %s "
						     "mask shapes available", side_name[h][d], m,
						     gen_shape_count((enum gen_dir)d),
						     d == GEN_ENCAP ? "encap" : "decap");
			if (l->flows > 0 && m > l->flows)
				return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
						     "%s: %u masks need at least %u flows, but "
						     "flows = %u", side_name[h][d], m, m, l->flows);
		}
	if (l->encap_contexts > l->flows && l->flows > 0)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "encap_contexts: %u contexts need at least %u flows, but "
				     "flows = %u", l->encap_contexts, l->encap_contexts, l->flows);
	return 0;
}

static uint32_t isqrt_ceil(uint32_t x)
{
	uint32_t r = 0;

	while ((uint64_t)r * r < x)
		r++;
	return r;
}

static uint64_t stream_seed(uint64_t seed, uint32_t what)
{
	return gen_hash64(&what, sizeof(what), seed);
}

/* Pick each subnet's container pairs and encap contexts into the flow table P of L. */
static int pick_flows(struct gen_part *p, const struct gen_levels *l, uint64_t seed)
{
	uint32_t k = p->subnets, F = p->flows, n = p->per_subnet;
	uint32_t n2 = n * n, C = l->encap_contexts ? l->encap_contexts : F;
	uint32_t *idx = malloc(sizeof(*idx) * (n2 ? n2 : 1));
	struct gen_rng rng;

	if (!idx)
		return -ENOMEM;
	if (C < (k < F ? k : F))
		C = k < F ? k : F;
	gen_rng_seed(&rng, stream_seed(seed, 0x70616972u)); /* "pair" */
	for (uint32_t s = 0; s < k; s++) {
		uint32_t Fs = F / k + (s < F % k), Cs = C / k + (s < C % k);

		for (uint32_t i = 0; i < n2; i++)
			idx[i] = i;
		for (uint32_t j = 0; j < Fs; j++) {
			uint32_t pick = j + rng_below(&rng, n2 - j), t = idx[pick];
			struct gen_flow_info *f = &p->flow[s + j * k];

			assert(Cs > 0); /* C_s >= 1 wherever F_s >= 1 (C >= min(k, F), C <= F) */
			idx[pick] = idx[j];
			idx[j] = t;
			f->subnet = s;
			f->cli = t / n;
			f->srv = t % n;
			f->ctx = j % Cs;
		}
	}
	free(idx);
	p->contexts = C;
	return 0;
}

int gen_part_flows(const struct gen_levels *l, uint64_t seed, struct gen_part **out,
		   struct scn_error *err)
{
	struct gen_part *p = calloc(1, sizeof(*p));
	int rc = -ENOMEM;

	*out = NULL;
	if (p) {
		atomic_init(&p->refs, 1);
		p->flows = l->flows;
		p->subnets = l->subnets;
		p->per_subnet = isqrt_ceil((l->flows + l->subnets - 1) / l->subnets);
		if (p->per_subnet == 0)
			p->per_subnet = 1;
		p->flow = calloc(l->flows ? l->flows : 1, sizeof(*p->flow));
		p->bytes = sizeof(*p) + sizeof(*p->flow) * (l->flows ? l->flows : 1);
		rc = p->flow ? pick_flows(p, l, seed) : -ENOMEM;
	}
	if (rc) {
		gen_part_unref(p);
		return scn_error_set(err, SCN_ERR_INTERNAL, rc, "out of memory");
	}
	*out = p;
	return 0;
}

static int add_ports(struct topo_ruleset *rs, enum gen_host h, uint32_t k, uint32_t n)
{
	struct topo_port up = { .id = GEN_PORT_UPLINK, .kind = TOPO_PORT_UPLINK,
				.ip = h == GEN_CLIENT ? GEN_VTEP_CLIENT : GEN_VTEP_SERVER,
				.mac = 0x02ff00000000ULL | (uint64_t)h };
	int rc = topo_ruleset_add_port(rs, &up);

	for (uint32_t s = 0; rc >= 0 && s < k; s++)
		for (uint32_t c = 0; rc >= 0 && c < n; c++) {
			uint32_t vf = gen_vf_port(n, s, c);
			struct topo_port v = { .id = vf, .kind = TOPO_PORT_VF,
					       .subnet = GEN_VNI_BASE + s, .container = s * n + c,
					       .ip = gen_container_ip(h, s, c),
					       .mac = gen_container_mac(h, s, c), .peer = vf + 1 };
			struct topo_port r = v;

			r.id = vf + 1;
			r.kind = TOPO_PORT_REPRESENTOR;
			r.ip = 0;
			r.mac = v.mac | (0x04ULL << 40);
			r.peer = vf;
			rc = topo_ruleset_add_port(rs, &v);
			if (rc >= 0)
				rc = topo_ruleset_add_port(rs, &r);
		}
	return rc < 0 ? rc : 0;
}

static void rule_actions(const struct gen_rules_priv *p, enum gen_host h, enum gen_dir d,
			 const struct gen_flow_info *f, struct topo_action_list *a)
{
	bool forward = (h == GEN_CLIENT) == (d == GEN_ENCAP);

	memset(a, 0, sizeof(*a));
	a->n = 2;
	if (d == GEN_ENCAP) {
		a->a[0] = (struct topo_action){ TOPO_ACT_ENCAP, GEN_VNI_BASE + f->subnet };
		a->a[1] = (struct topo_action){ TOPO_ACT_FWD_UPLINK, 0 };
	} else {
		uint32_t dst = forward ? f->srv : f->cli;

		a->a[0] = (struct topo_action){ TOPO_ACT_DECAP, 0 };
		a->a[1] = (struct topo_action){ TOPO_ACT_FWD_VF,
						gen_vf_port(p->per_subnet, f->subnet, dst) };
	}
}

/* Place of slot I in the shape-major order of F places over M shapes (shape s holds places
 * s, s + m, s + 2m, ...: its rules go in together): slot I is shape s's r-th place. */
static uint32_t slot_place(uint32_t i, uint32_t F, uint32_t m)
{
	uint32_t q = F / m, big = F % m; /* the first BIG shapes hold q + 1 places */
	uint32_t s = i < big * (q + 1) ? i / (q + 1) : big + (i - big * (q + 1)) / q;
	uint32_t r = i - (s < big ? s * (q + 1) : big * (q + 1) + (s - big) * q);

	return s + r * m;
}

/* Seeded permutation of the flows for side (h, d): its own stream, so that changing one
 * side's masks leaves the other sides' rules as they were. Layout SHIFT > 0 (gen_layout.c)
 * then moves the flow of each slot of the shape-major order SHIFT slots on (cyclic), into
 * the scratch TMP (F entries). */
static void side_perm(uint32_t F, uint32_t m, enum gen_host h, enum gen_dir d, uint64_t seed,
		      uint32_t shift, uint32_t *perm, uint32_t *tmp)
{
	struct gen_rng rng;

	gen_rng_seed(&rng, stream_seed(seed, 0x73696465u + 2u * (uint32_t)h + (uint32_t)d));
	for (uint32_t i = 0; i < F; i++)
		perm[i] = i;
	for (uint32_t i = 0; i + 1 < F; i++) {
		uint32_t j = i + rng_below(&rng, F - i), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	if (shift % F == 0)
		return;
	for (uint32_t i = 0; i < F; i++)
		tmp[slot_place((i + shift) % F, F, m)] = perm[slot_place(i, F, m)];
	memcpy(perm, tmp, sizeof(*perm) * F);
}

/* Rule of the j-th flow of side (h, d)'s permutation; its shape M is shape j % m.
 * Returns 0 or a negative errno. */
static int add_rule(struct gen_rules_priv *p, struct topo_ruleset *rs, uint32_t table,
		    enum gen_host h, enum gen_dir d, uint32_t m, const uint32_t *perm, uint32_t j,
		    const struct topo_mask *mask)
{
	uint32_t flow = perm[j];
	uint32_t prio = (d == GEN_ENCAP ? GEN_PRIO_ENCAP : GEN_PRIO_DECAP) + j % m;
	struct topo_action_list acts;
	struct topo_match match;
	uint64_t pkt[TOPO_F_COUNT];
	int rc;

	match.mask = *mask;
	gen_flow_packet(&p->pub, h, d, flow, pkt);
	for (int fld = 0; fld < TOPO_F_COUNT; fld++)
		match.value[fld] = (mask->fields >> fld) & 1u ? pkt[fld] : 0;
	/* topo_ruleset_add_rule normalises (cuts prefix fields to their plen) */
	rule_actions(p, h, d, &p->flow[flow], &acts);
	rc = topo_ruleset_add_rule(rs, table, &match, prio, &acts, flow + 1);
	return rc < 0 ? rc : 0;
}

#define FETCH_AHEAD 8 /* rules ahead whose flow is fetched into the cache */

/* Both sides of host H. Groups are created first (one rule per shape, both directions),
 * then the remaining rules shape by shape: creating a group late costs a pass over all rules
 * in topology, adding to the group just used is cheap. */
static int add_sides(struct gen_rules_priv *p, struct topo_ruleset *rs,
		     const struct gen_placement *pl, const struct gen_levels *l, enum gen_host h,
		     uint64_t seed, uint32_t *perm[GEN_DIRS + 1])
{
	uint32_t F = p->pub.flows;
	int rc = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int d = 0; rc == 0 && d < GEN_DIRS; d++) {
			uint32_t m = l->masks[h][d];
			uint32_t table = d == GEN_ENCAP ? pl->encap_table : pl->decap_table;

			if (F == 0 || m == 0)
				continue;
			if (pass == 0)
				side_perm(F, m, h, (enum gen_dir)d, seed,
					  gen_layout_shift(l->layout, F), perm[d],
					  perm[GEN_DIRS]);
			for (uint32_t s = 0; rc == 0 && s < m; s++) {
				struct topo_mask mask;

				gen_shape((enum gen_dir)d, s, &mask);
				for (uint32_t j = pass ? s + m : s; rc == 0 && j < F;
				     j += pass ? m : F) {
					/* the flows come in permuted order: fetch one ahead */
					if (pass && j + FETCH_AHEAD * m < F)
						__builtin_prefetch(&p->flow[perm[d][j + FETCH_AHEAD * m]]);
					rc = add_rule(p, rs, table, h, (enum gen_dir)d, m, perm[d],
						      j, &mask);
				}
			}
		}
	return rc;
}

/* Rules of host H's two sides (placement rules of a model come on top: few). */
static size_t host_rules(const struct gen_levels *l, enum gen_host h)
{
	size_t n = 0;

	for (int d = 0; d < GEN_DIRS; d++)
		n += l->masks[h][d] ? l->flows : 0;
	return n;
}

/* The view of flow table FLOWS that the rule helpers (and gen_flow_packet) read. */
static void flows_view(const struct gen_part *flows, struct gen_rules_priv *v)
{
	memset(v, 0, sizeof(*v));
	v->pub.flows = flows->flows;
	v->pub.subnets = flows->subnets;
	v->per_subnet = flows->per_subnet;
	v->flow = flows->flow;
}

static int fill_host(struct gen_rules_priv *v, struct topo_ruleset *rs,
		     const struct gen_placement *pl, const struct gen_levels *l, enum gen_host h,
		     uint64_t seed)
{
	uint32_t *perm = malloc(sizeof(*perm) * 3 * (l->flows ? l->flows : 1));
	uint32_t *perms[GEN_DIRS + 1]; /* encap, decap, and the layout's scratch */
	int rc;

	if (!perm)
		return -ENOMEM;
	perms[GEN_ENCAP] = perm;
	perms[GEN_DECAP] = perm + l->flows;
	perms[GEN_DIRS] = perm + 2 * l->flows;
	rc = topo_ruleset_reserve(rs, host_rules(l, h));
	if (rc == 0)
		rc = add_ports(rs, h, v->pub.subnets, v->per_subnet);
	if (rc == 0)
		rc = gen_placement_apply(pl, rs, v->pub.subnets, v->per_subnet);
	if (rc == 0)
		rc = add_sides(v, rs, pl, l, h, seed, perms);
	free(perm);
	return rc;
}

int gen_part_host(const struct gen_part *flows, const struct gen_placement *pl,
		  const struct gen_levels *l, enum gen_host h, uint64_t seed,
		  struct gen_part **out, struct scn_error *err)
{
	struct gen_part *p = calloc(1, sizeof(*p));
	struct gen_rules_priv v;
	int rc = -ENOMEM;

	*out = NULL;
	flows_view(flows, &v);
	if (p) {
		atomic_init(&p->refs, 1);
		p->rs = topo_ruleset_new();
		rc = p->rs ? fill_host(&v, p->rs, pl, l, h, seed) : -ENOMEM;
		p->bytes = sizeof(*p) + topo_ruleset_bytes(p->rs);
	}
	if (rc < 0) {
		gen_part_unref(p);
		return scn_error_set(err, SCN_ERR_INTERNAL, rc,
				     "building the %s rule set failed (%s)",
				     h == GEN_CLIENT ? "client" : "server", strerror(-rc));
	}
	*out = p;
	return 0;
}
