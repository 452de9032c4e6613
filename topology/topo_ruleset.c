/* SPDX-License-Identifier: MIT */
/*
 * topo_ruleset: the opaque concrete rule set of one host's eSwitch (ports, tables, mask
 * groups, rules). Storage is plain growable arrays; rules are compact records
 * (topo_rules_store.c) and full struct topo_rule records are made only when asked for
 * (topo_rules_view.c); groups are kept sorted by (table, priority, creation) so that
 * classification and checks walk them in probe order.
 * Assumes callers add tables before rules that goto them.
 */
#include "topology/topo.h"
#include "topology/topo_internal.h"
#include "topology/topo_ruleset_priv.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct topo_ruleset *topo_ruleset_new(void)
{
	struct topo_ruleset *rs = calloc(1, sizeof(*rs));

	if (rs)
		rs->n_tables = 1;
	return rs;
}

void topo_ruleset_free(struct topo_ruleset *rs)
{
	if (!rs)
		return;
	free(rs->ports);
	free(rs->groups);
	free(rs->group_seq);
	topo__block_put(rs->recs, rs->cap_rules * sizeof(*rs->recs)); /* kept for the next */
	topo__block_put(rs->words, rs->cap_words * sizeof(*rs->words));
	free(rs->acts);
	free(rs->aix);
	topo__index_drop(rs);
	topo__view_drop(rs);
	free(rs->pix);
	free(rs);
}

static void *dup_array(const void *src, size_t n, size_t sz, int *fail)
{
	void *p;

	if (!n)
		return NULL;
	p = malloc(n * sz);
	if (!p) {
		*fail = 1;
		return NULL;
	}
	memcpy(p, src, n * sz);
	return p;
}

static size_t port_slot(uint32_t id, size_t cap)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

static void port_put(struct topo_ruleset *rs, size_t i)
{
	size_t k = port_slot(rs->ports[i].id, rs->pix_cap);

	while (rs->pix[k])
		k = (k + 1) & (rs->pix_cap - 1);
	rs->pix[k] = (uint32_t)i + 1;
}

int topo__index_alloc(uint32_t **tab, size_t *cap, size_t n)
{
	size_t c = 16;
	uint32_t *p;

	while (c < 2 * n + 2)
		c *= 2;
	p = calloc(c, sizeof(*p));
	if (!p)
		return -ENOMEM;
	free(*tab);
	*tab = p;
	*cap = c;
	return 0;
}

/* Make room for N ports in the port index and re-insert ports [0, n_ports). */
static int port_index_rebuild(struct topo_ruleset *rs, size_t n)
{
	if (topo__index_alloc(&rs->pix, &rs->pix_cap, n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < rs->n_ports; i++)
		port_put(rs, i);
	return 0;
}

struct topo_ruleset *topo_ruleset_clone(const struct topo_ruleset *rs)
{
	struct topo_ruleset *c;
	int fail = 0;

	if (!rs)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->n_tables = rs->n_tables;
	c->n_ports = c->cap_ports = rs->n_ports;
	c->n_groups = c->cap_groups = c->cap_seq = rs->n_groups;
	c->n_rules = c->cap_rules = rs->n_rules;
	c->n_words = c->cap_words = rs->n_words;
	c->n_acts = c->cap_acts = rs->n_acts;
	c->next_seq = rs->next_seq;
	c->ports = dup_array(rs->ports, rs->n_ports, sizeof(*rs->ports), &fail);
	c->groups = dup_array(rs->groups, rs->n_groups, sizeof(*rs->groups), &fail);
	c->group_seq = dup_array(rs->group_seq, rs->n_groups, sizeof(*rs->group_seq), &fail);
	c->recs = dup_array(rs->recs, rs->n_rules, sizeof(*rs->recs), &fail);
	c->words = dup_array(rs->words, rs->n_words, sizeof(*rs->words), &fail);
	c->acts = dup_array(rs->acts, rs->n_acts, sizeof(*rs->acts), &fail);
	if (fail || port_index_rebuild(c, c->n_ports) < 0 ||
	    topo__actions_reindex(c, c->n_acts) < 0) {
		topo_ruleset_free(c);
		return NULL;
	}
	return c;
}

int topo_ruleset_add_port(struct topo_ruleset *rs, const struct topo_port *p)
{
	if (!rs || !p)
		return -EINVAL;
	if (topo_ruleset_port_by_id(rs, p->id))
		return -EEXIST;
	if (rs->n_ports >= UINT32_MAX - 1)
		return -ENOSPC;
	if (topo__grow((void **)&rs->ports, &rs->cap_ports, rs->n_ports + 1, sizeof(*rs->ports)))
		return -ENOMEM;
	if (rs->pix_cap < 2 * (rs->n_ports + 1) + 2 && port_index_rebuild(rs, rs->n_ports + 1))
		return -ENOMEM;
	rs->ports[rs->n_ports] = *p;
	port_put(rs, rs->n_ports++);
	return 0;
}

int topo_ruleset_add_table(struct topo_ruleset *rs)
{
	if (!rs)
		return -EINVAL;
	if (rs->n_tables >= (size_t)INT32_MAX)
		return -ENOSPC;
	return (int)rs->n_tables++;
}

size_t topo_ruleset_bytes(const struct topo_ruleset *rs)
{
	if (!rs)
		return 0;
	return sizeof(*rs) + rs->cap_ports * sizeof(*rs->ports) +
	       rs->cap_groups * sizeof(*rs->groups) + rs->cap_seq * sizeof(*rs->group_seq) +
	       rs->cap_rules * sizeof(*rs->recs) + rs->cap_words * sizeof(*rs->words) +
	       rs->cap_acts * sizeof(*rs->acts) + rs->aix_cap * sizeof(*rs->aix) +
	       topo__index_bytes(rs) + topo__view_bytes(rs) + rs->pix_cap * sizeof(*rs->pix);
}

int topo_ruleset_del_rule(struct topo_ruleset *rs, size_t i)
{
	if (!rs || i >= rs->n_rules)
		return -EINVAL;
	assert(rs->groups[rs->recs[i].group].n_rules > 0);
	rs->groups[rs->recs[i].group].n_rules--;
	/* its value words stay where they are, unused */
	memmove(&rs->recs[i], &rs->recs[i + 1], (rs->n_rules - i - 1) * sizeof(*rs->recs));
	rs->n_rules--;
	topo__index_drop(rs);
	topo__view_drop(rs);
	return 0;
}

size_t topo_ruleset_n_ports(const struct topo_ruleset *rs)
{
	return rs ? rs->n_ports : 0;
}

const struct topo_port *topo_ruleset_port(const struct topo_ruleset *rs, size_t i)
{
	return rs && i < rs->n_ports ? &rs->ports[i] : NULL;
}

const struct topo_port *topo_ruleset_port_by_id(const struct topo_ruleset *rs, uint32_t id)
{
	if (!rs || !rs->pix_cap)
		return NULL;
	for (size_t k = port_slot(id, rs->pix_cap); rs->pix[k]; k = (k + 1) & (rs->pix_cap - 1))
		if (rs->ports[rs->pix[k] - 1].id == id)
			return &rs->ports[rs->pix[k] - 1];
	return NULL;
}

size_t topo_ruleset_n_tables(const struct topo_ruleset *rs)
{
	return rs ? rs->n_tables : 0;
}

size_t topo_ruleset_n_rules(const struct topo_ruleset *rs)
{
	return rs ? rs->n_rules : 0;
}

const struct topo_rule *topo_ruleset_rule(const struct topo_ruleset *rs, size_t i)
{
	const struct topo_rule *v;

	if (!rs || i >= rs->n_rules)
		return NULL;
	v = topo__view_get(rs);
	return v ? &v[i] : NULL;
}

int topo_ruleset_rule_copy(const struct topo_ruleset *rs, size_t i, struct topo_rule *out)
{
	if (!rs || !out || i >= rs->n_rules)
		return -EINVAL;
	topo__rule_get(rs, i, out);
	return 0;
}

int topo_ruleset_rule_packed(const struct topo_ruleset *rs, size_t i,
			     struct topo_rule_packed *out)
{
	const struct topo__rec *r;

	if (!rs || !out || i >= rs->n_rules)
		return -EINVAL;
	r = &rs->recs[i];
	out->group = r->group;
	out->flow = r->flow;
	out->act = r->act;
	out->words = &rs->words[r->voff];
	return 0;
}

size_t topo_ruleset_n_action_lists(const struct topo_ruleset *rs)
{
	return rs ? rs->n_acts : 0;
}

const struct topo_action_list *topo_ruleset_action_list(const struct topo_ruleset *rs,
							 size_t id)
{
	return rs && id < rs->n_acts ? &rs->acts[id] : NULL;
}

size_t topo_ruleset_n_groups(const struct topo_ruleset *rs)
{
	return rs ? rs->n_groups : 0;
}

const struct topo_group *topo_ruleset_group(const struct topo_ruleset *rs, size_t i)
{
	return rs && i < rs->n_groups ? &rs->groups[i] : NULL;
}

size_t topo_ruleset_n_distinct_masks(const struct topo_ruleset *rs)
{
	size_t n = 0;

	if (!rs)
		return 0;
	for (size_t i = 0; i < rs->n_groups; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = topo_mask_equal(&rs->groups[i].mask, &rs->groups[j].mask);
		n += !seen;
	}
	return n;
}
