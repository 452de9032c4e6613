/* SPDX-License-Identifier: MIT */
/*
 * gen_parts: the shared parts behind struct gen_rules (gen_flows.h): reference counts, the
 * assembly of a gen_rules from a flow table and two host rule sets, and gen_rules_build, the
 * plain full build (every part built fresh, nothing shared): the reference that the rule-set
 * cache (gen_rules_cache.c) is tested against.
 */
#include <errno.h>
#include <stdlib.h>

#include "generators/gen_flows.h"
#include "generators/gen_model.h"

struct gen_part *gen_part_ref(struct gen_part *p)
{
	if (p)
		atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
	return p;
}

void gen_part_unref(struct gen_part *p)
{
	if (!p || atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1)
		return;
	topo_ruleset_free(p->rs);
	free(p->flow);
	free(p);
}

int gen_rules_assemble(const struct gen_levels *l, struct gen_part *flows,
		       struct gen_part *const host[GEN_HOSTS], struct gen_rules **out)
{
	struct gen_rules_priv *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	atomic_init(&p->refs, 1);
	p->pub.flows = l->flows;
	p->pub.subnets = l->subnets;
	p->pub.encap_contexts = l->flows && l->masks[GEN_CLIENT][GEN_ENCAP] ? flows->contexts : 0;
	p->per_subnet = flows->per_subnet;
	p->flow = flows->flow;
	p->parts[0] = gen_part_ref(flows);
	for (int h = 0; h < GEN_HOSTS; h++) {
		p->parts[1 + h] = gen_part_ref(host[h]);
		p->pub.host[h] = host[h]->rs;
	}
	*out = &p->pub;
	return 0;
}

struct gen_rules *gen_rules_ref(struct gen_rules *r)
{
	if (r)
		atomic_fetch_add_explicit(&gen_priv(r)->refs, 1, memory_order_relaxed);
	return r;
}

uint64_t gen_rules_host_id(const struct gen_rules *r, enum gen_host h)
{
	if (!r || (unsigned)h >= GEN_HOSTS)
		return 0;
	return gen_cpriv(r)->parts[1 + h]->id;
}

void gen_rules_free(struct gen_rules *r)
{
	struct gen_rules_priv *p;

	if (!r)
		return;
	p = gen_priv(r);
	if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1)
		return;
	for (int i = 0; i < 1 + GEN_HOSTS; i++)
		gen_part_unref(p->parts[i]);
	free(p);
}

int gen_rules_build(const struct topo_model *model, const struct topo_space *space,
		    const struct gen_levels *l, uint64_t seed, struct gen_rules **out,
		    struct scn_error *err)
{
	struct gen_part *flows = NULL, *host[GEN_HOSTS] = { NULL, NULL };
	struct gen_placement pl;
	int rc;

	if (!l || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "gen_rules_build: NULL");
	*out = NULL;
	rc = gen_levels_check(l, err);
	if (rc == 0)
		rc = gen_placement_plan(model, space, &pl, err);
	if (rc == 0)
		rc = gen_part_flows(l, seed, &flows, err);
	for (int h = 0; rc == 0 && h < GEN_HOSTS; h++)
		rc = gen_part_host(flows, &pl, l, (enum gen_host)h, seed, &host[h], err);
	if (rc == 0 && gen_rules_assemble(l, flows, host, out) < 0)
		rc = scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	gen_part_unref(flows);
	for (int h = 0; h < GEN_HOSTS; h++)
		gen_part_unref(host[h]);
	return rc;
}
