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
 * changes. Models: see gen_model.h. Build cost here is O(rules + containers + k * n^2):
 * rules go in through topology's fast path (a group reference per shape, an action-list id
 * per subnet or destination VF, then the rules of a shape 64 at a time: per rule only the
 * flow's packet, written field by field by gen_flow_fill, of which topology keeps the
 * shape's fields), into room reserved up front for the rules and their values.
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
			uint32_t pick = j + gen_rng_below(&rng, n2 - j), t = idx[pick];
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
 * side's masks leaves the other sides' rules as they were; drawn once per (flows, stream) in a
 * process and kept (gen_perm_memo.c). Layout SHIFT > 0 (gen_layout.c)
 * then moves the flow of each slot of the shape-major order SHIFT slots on (cyclic), into
 * the scratch TMP (F entries). */
static void side_perm(uint32_t F, uint32_t m, enum gen_host h, enum gen_dir d, uint64_t seed,
		      uint32_t shift, uint32_t *perm, uint32_t *tmp)
{
	uint64_t stream = stream_seed(seed, 0x73696465u + 2u * (uint32_t)h + (uint32_t)d);
	struct gen_rng rng;

	if (!gen_perm_memo_get(F, stream, perm)) {
		gen_rng_seed(&rng, stream);
		for (uint32_t i = 0; i < F; i++)
			perm[i] = i;
		gen_rng_shuffle(&rng, perm, F, sizeof(*perm));
		gen_perm_memo_put(F, stream, perm);
	}
	if (shift % F == 0)
		return;
	for (uint32_t i = 0; i < F; i++)
		tmp[slot_place((i + shift) % F, F, m)] = perm[slot_place(i, F, m)];
	memcpy(perm, tmp, sizeof(*perm) * F);
}

/* What host H's side rules are added with (topology's fast path, topo.h): per direction,
 * the group of each of its m shapes (with what makes it, to look it up again), the ids of
 * the action lists met so far: one per subnet (encap: its VNI, to the uplink) or per
 * destination VF (decap), UINT32_MAX until first used. */
struct side_shape {
	struct topo_group_ref ref;
	struct topo_mask mask;
	uint32_t table, prio;
};
struct host_build {
	struct side_shape *shape[GEN_DIRS];
	uint32_t *act[GEN_DIRS];
};

/* The id of the action list of flow F's rule on side (h, d), made and interned now: encap
 * pushes the subnet's VNI and goes to the uplink; decap pops it and forwards to the
 * destination container's VF. Out of line: once per subnet or destination VF. */
static __attribute__((noinline)) long make_actions(const struct gen_rules_priv *p,
						   struct topo_ruleset *rs, enum gen_dir d,
						   const struct gen_flow_info *f, uint32_t dst,
						   uint32_t *id)
{
	struct topo_action_list a;
	long rc;

	memset(&a, 0, sizeof(a));
	a.n = 2;
	if (d == GEN_ENCAP) {
		a.a[0] = (struct topo_action){ TOPO_ACT_ENCAP, GEN_VNI_BASE + f->subnet };
		a.a[1] = (struct topo_action){ TOPO_ACT_FWD_UPLINK, 0 };
	} else {
		a.a[0] = (struct topo_action){ TOPO_ACT_DECAP, 0 };
		a.a[1] = (struct topo_action){ TOPO_ACT_FWD_VF,
					       gen_vf_port(p->per_subnet, f->subnet, dst) };
	}
	rc = topo_ruleset_actions_id(rs, &a);
	if (rc >= 0)
		*id = (uint32_t)rc;
	return rc;
}

/* The id of the action list of flow F's rule on side (h, d): one per subnet (encap) or
 * destination VF (decap), made the first time it is needed. */
static inline long rule_actions(const struct gen_rules_priv *p, struct topo_ruleset *rs,
				struct host_build *hb, enum gen_host h, enum gen_dir d,
				const struct gen_flow_info *f)
{
	bool forward = (h == GEN_CLIENT) == (d == GEN_ENCAP);
	uint32_t dst = forward ? f->srv : f->cli;
	uint32_t *id = &hb->act[d][d == GEN_ENCAP ? f->subnet : f->subnet * p->per_subnet + dst];

	return *id != UINT32_MAX ? (long)*id : make_actions(p, rs, d, f, dst, id);
}

/* Shape S of direction D: its mask and its group's priority, in TABLE. */
static void shape_info(enum gen_dir d, uint32_t s, uint32_t table, struct side_shape *out)
{
	memset(out, 0, sizeof(*out));
	gen_shape(d, s, &out->mask);
	out->table = table;
	out->prio = (d == GEN_ENCAP ? GEN_PRIO_ENCAP : GEN_PRIO_DECAP) + s;
}

/* Rules of side (h, d) gathered for one shape's group, added together
 * (topo_ruleset_add_rules_ref): each one's flow packet, action-list id and flow id + 1. */
#define BATCH 64
struct rule_batch {
	uint64_t pkt[BATCH][TOPO_F_COUNT];
	uint32_t act[BATCH], flow[BATCH];
	uint32_t n;
};

/* Add the rules of B to shape SH's group, and empty B. 0 or a negative errno. */
static int batch_flush(struct topo_ruleset *rs, struct side_shape *sh, struct rule_batch *b)
{
	int rc = topo_ruleset_add_rules_ref(rs, &sh->ref, b->n, b->pkt, b->act, b->flow);

	if (rc == -ESTALE) { /* a group made since moved this one: look it up again */
		rc = topo_ruleset_group_ref(rs, sh->table, &sh->mask, sh->prio, &sh->ref);
		if (rc == 0)
			rc = topo_ruleset_add_rules_ref(rs, &sh->ref, b->n, b->pkt, b->act, b->flow);
	}
	b->n = 0;
	return rc;
}

/* Rule of flow FLOW on side (h, d) into B: its values are the flow's packet (the same as
 * gen_flow_packet's), of which topology keeps the shape's fields. 0 or a negative errno. */
static inline __attribute__((always_inline)) int
batch_rule(struct gen_rules_priv *p, struct topo_ruleset *rs, struct host_build *hb,
	   enum gen_host h, enum gen_dir d, uint32_t flow, struct rule_batch *b)
{
	const struct gen_flow_info *f = &p->flow[flow];
	long act = rule_actions(p, rs, hb, h, d, f);

	if (act < 0)
		return (int)act;
	gen_flow_fill(f, p->per_subnet, h, d, flow, b->pkt[b->n]);
	b->act[b->n] = (uint32_t)act;
	b->flow[b->n++] = flow + 1;
	return 0;
}

/* Rule of flow FLOW on side (h, d) in shape S, on its own. 0 or a negative errno. */
static int add_rule(struct gen_rules_priv *p, struct topo_ruleset *rs, struct host_build *hb,
		    enum gen_host h, enum gen_dir d, uint32_t s, uint32_t flow,
		    struct rule_batch *b)
{
	int rc = batch_rule(p, rs, hb, h, d, flow, b);

	return rc < 0 ? rc : batch_flush(rs, &hb->shape[d][s], b);
}

#define FETCH_AHEAD 8 /* rules ahead whose flow is fetched into the cache */

/* Side (h, d)'s first rule of each of its M shapes (the j-th flow of PERM for shape j < m),
 * each shape's group made just before. */
static int add_firsts(struct gen_rules_priv *p, struct topo_ruleset *rs, struct host_build *hb,
		      enum gen_host h, enum gen_dir d, uint32_t m, uint32_t table,
		      const uint32_t *perm, struct rule_batch *b)
{
	int rc = 0;

	for (uint32_t s = 0; rc == 0 && s < m; s++) {
		struct side_shape *sh = &hb->shape[d][s];

		shape_info(d, s, table, sh);
		rc = topo_ruleset_group_ref(rs, table, &sh->mask, sh->prio, &sh->ref);
		if (rc == 0)
			rc = add_rule(p, rs, hb, h, d, s, perm[s], b);
	}
	return rc;
}

/* The rest of side (h, d)'s rules, shape by shape: shape s holds the flows j = s + m,
 * s + 2m, ... of PERM. They are gathered in that order into SEQ first (F entries), so that
 * adding reads them in sequence; they go in BATCH at a time. Inlined for each (h, d) (see
 * add_rest), so that the packet of each is worked out with constants. */
static inline __attribute__((always_inline)) int
add_rest_side(struct gen_rules_priv *p, struct topo_ruleset *rs, struct host_build *hb,
	      enum gen_host h, enum gen_dir d, uint32_t m, const uint32_t *perm, uint32_t *seq,
	      struct rule_batch *b)
{
	uint32_t F = p->pub.flows, n = 0;
	int rc = 0;

	for (uint32_t s = 0; s < m; s++)
		for (uint32_t j = s + m; j < F; j += m)
			seq[n++] = perm[j];
	for (uint32_t s = 0, i = 0; rc == 0 && s < m; s++) {
		for (uint32_t j = s + m; rc == 0 && j < F; j += m, i++) {
			if (i + FETCH_AHEAD < n) /* the flows come in permuted order */
				__builtin_prefetch(&p->flow[seq[i + FETCH_AHEAD]]);
			rc = batch_rule(p, rs, hb, h, d, seq[i], b);
			if (rc == 0 && b->n == BATCH)
				rc = batch_flush(rs, &hb->shape[d][s], b);
		}
		if (rc == 0 && b->n)
			rc = batch_flush(rs, &hb->shape[d][s], b);
	}
	return rc;
}

static int add_rest(struct gen_rules_priv *p, struct topo_ruleset *rs, struct host_build *hb,
		    enum gen_host h, enum gen_dir d, uint32_t m, const uint32_t *perm,
		    uint32_t *seq, struct rule_batch *b)
{
	if (h == GEN_CLIENT)
		return d == GEN_ENCAP
			       ? add_rest_side(p, rs, hb, GEN_CLIENT, GEN_ENCAP, m, perm, seq, b)
			       : add_rest_side(p, rs, hb, GEN_CLIENT, GEN_DECAP, m, perm, seq, b);
	return d == GEN_ENCAP ? add_rest_side(p, rs, hb, GEN_SERVER, GEN_ENCAP, m, perm, seq, b)
			      : add_rest_side(p, rs, hb, GEN_SERVER, GEN_DECAP, m, perm, seq, b);
}

/* Both sides of host H: the first rule of every shape (both directions; each shape's group
 * is made with it), then the remaining rules shape by shape: creating a group late costs a
 * pass over all rules in topology, adding to the group just used is cheap. */
static int add_sides(struct gen_rules_priv *p, struct topo_ruleset *rs, struct host_build *hb,
		     const struct gen_placement *pl, const struct gen_levels *l, enum gen_host h,
		     uint64_t seed, uint32_t *perm[GEN_DIRS + 1], struct rule_batch *b)
{
	uint32_t F = p->pub.flows;
	int rc = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int d = 0; rc == 0 && d < GEN_DIRS; d++) {
			uint32_t m = l->masks[h][d];

			if (F == 0 || m == 0)
				continue;
			if (pass == 1) {
				rc = add_rest(p, rs, hb, h, (enum gen_dir)d, m, perm[d],
					      perm[GEN_DIRS], b);
				continue;
			}
			side_perm(F, m, h, (enum gen_dir)d, seed, gen_layout_shift(l->layout, F),
				  perm[d], perm[GEN_DIRS]);
			rc = add_firsts(p, rs, hb, h, (enum gen_dir)d, m,
					d == GEN_ENCAP ? pl->encap_table : pl->decap_table,
					perm[d], b);
		}
	return rc;
}

/* Room for host H's side rules on top of the rules RS holds, and for the values of each
 * shape's rules (shape s of a side with m shapes holds the flows j = s, s + m, ... of its
 * permutation). */
static int reserve_sides(struct topo_ruleset *rs, const struct gen_levels *l, enum gen_host h)
{
	size_t total = topo_ruleset_n_rules(rs);
	int rc;

	for (int d = 0; d < GEN_DIRS; d++)
		total += l->masks[h][d] ? l->flows : 0;
	rc = topo_ruleset_reserve(rs, total);
	for (int d = 0; rc == 0 && d < GEN_DIRS; d++)
		for (uint32_t s = 0; rc == 0 && s < l->masks[h][d] && s < l->flows; s++) {
			struct topo_mask mask;

			gen_shape((enum gen_dir)d, s, &mask);
			rc = topo_ruleset_reserve_values(rs, &mask,
							 (l->flows - 1 - s) / l->masks[h][d] + 1);
		}
	return rc;
}

static void host_build_free(struct host_build *hb)
{
	for (int d = 0; d < GEN_DIRS; d++) {
		free(hb->shape[d]);
		free(hb->act[d]);
	}
}

static int host_build_init(struct host_build *hb, const struct gen_levels *l, enum gen_host h,
			   uint32_t k, uint32_t n)
{
	int rc = 0;

	memset(hb, 0, sizeof(*hb));
	for (int d = 0; d < GEN_DIRS; d++) {
		size_t acts = d == GEN_ENCAP ? k : (size_t)k * n;

		hb->shape[d] = calloc(l->masks[h][d] ? l->masks[h][d] : 1, sizeof(*hb->shape[d]));
		hb->act[d] = malloc(acts * sizeof(*hb->act[d]));
		if (!hb->shape[d] || !hb->act[d])
			rc = -ENOMEM;
		else
			memset(hb->act[d], 0xff, acts * sizeof(*hb->act[d]));
	}
	if (rc)
		host_build_free(hb);
	return rc;
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
	uint32_t k = v->pub.subnets, n = v->per_subnet;
	struct rule_batch batch = { .n = 0 };
	struct host_build hb;
	int rc;

	if (!perm)
		return -ENOMEM;
	rc = host_build_init(&hb, l, h, k, n);
	if (rc) {
		free(perm);
		return rc;
	}
	perms[GEN_ENCAP] = perm;
	perms[GEN_DECAP] = perm + l->flows;
	perms[GEN_DIRS] = perm + 2 * l->flows;
	rc = add_ports(rs, h, k, n);
	if (rc == 0)
		rc = gen_placement_apply(pl, rs, k, n);
	if (rc == 0)
		rc = reserve_sides(rs, l, h);
	if (rc == 0)
		rc = add_sides(v, rs, &hb, pl, l, h, seed, perms, &batch);
	host_build_free(&hb);
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
