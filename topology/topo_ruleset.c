/* SPDX-License-Identifier: MIT */
/*
 * topo_ruleset: the opaque concrete rule set of one host's eSwitch (ports, tables, mask
 * groups, rules). Storage is plain growable arrays; groups are kept sorted by
 * (table, priority, creation) so that classification and checks walk them in probe order.
 * Assumes callers add tables before rules that goto them.
 */
#include "topology/topo.h"
#include "topology/topo_internal.h"
#include "topology/topo_ruleset_priv.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Grow *ARR (element size SZ) so that it holds at least NEED elements. */
static int grow(void **arr, size_t *cap, size_t need, size_t sz)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * sz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

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
	free(rs->rules);
	topo__index_drop(rs);
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

/* Make room for N ports in the port index and re-insert ports [0, n_ports). */
static int port_index_rebuild(struct topo_ruleset *rs, size_t n)
{
	size_t cap = 16;
	uint32_t *p;

	while (cap < 2 * n + 2)
		cap *= 2;
	p = calloc(cap, sizeof(*p));
	if (!p)
		return -ENOMEM;
	free(rs->pix);
	rs->pix = p;
	rs->pix_cap = cap;
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
	c->next_seq = rs->next_seq;
	c->ports = dup_array(rs->ports, rs->n_ports, sizeof(*rs->ports), &fail);
	c->groups = dup_array(rs->groups, rs->n_groups, sizeof(*rs->groups), &fail);
	c->group_seq = dup_array(rs->group_seq, rs->n_groups, sizeof(*rs->group_seq), &fail);
	c->rules = dup_array(rs->rules, rs->n_rules, sizeof(*rs->rules), &fail);
	if (fail || port_index_rebuild(c, c->n_ports) < 0) {
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
	if (grow((void **)&rs->ports, &rs->cap_ports, rs->n_ports + 1, sizeof(*rs->ports)))
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

/* Index of the group (table, mask, priority), creating it in sorted position if needed. */
static int find_or_add_group(struct topo_ruleset *rs, uint32_t table,
			     const struct topo_mask *mask, uint32_t priority)
{
	size_t pos = rs->n_groups;

	if (rs->n_rules) { /* rules usually arrive group by group */
		uint32_t last = rs->rules[rs->n_rules - 1].group;
		const struct topo_group *g = &rs->groups[last];

		if (g->table == table && g->priority == priority && topo_mask_equal(&g->mask, mask))
			return (int)last;
	}
	for (size_t i = 0; i < rs->n_groups; i++) {
		const struct topo_group *g = &rs->groups[i];

		if (g->table == table && g->priority == priority && topo_mask_equal(&g->mask, mask))
			return (int)i;
	}
	/* sorted by (table, priority, seq): new group goes after every group <= its key */
	for (size_t i = 0; i < rs->n_groups; i++) {
		const struct topo_group *g = &rs->groups[i];

		if (g->table > table || (g->table == table && g->priority > priority)) {
			pos = i;
			break;
		}
	}
	if (grow((void **)&rs->groups, &rs->cap_groups, rs->n_groups + 1, sizeof(*rs->groups)))
		return -ENOMEM;
	if (grow((void **)&rs->group_seq, &rs->cap_seq, rs->n_groups + 1,
		 sizeof(*rs->group_seq)))
		return -ENOMEM;
	memmove(&rs->groups[pos + 1], &rs->groups[pos],
		(rs->n_groups - pos) * sizeof(*rs->groups));
	memmove(&rs->group_seq[pos + 1], &rs->group_seq[pos],
		(rs->n_groups - pos) * sizeof(*rs->group_seq));
	memset(&rs->groups[pos], 0, sizeof(rs->groups[pos]));
	rs->groups[pos].table = table;
	rs->groups[pos].mask = *mask;
	rs->groups[pos].priority = priority;
	rs->group_seq[pos] = rs->next_seq++;
	rs->n_groups++;
	assert(pos == 0 || rs->groups[pos - 1].table < table ||
	       (rs->groups[pos - 1].table == table && rs->groups[pos - 1].priority <= priority));
	assert(pos + 1 == rs->n_groups || rs->groups[pos + 1].table > table ||
	       rs->groups[pos + 1].priority > priority);
	for (size_t i = 0; i < rs->n_rules; i++)
		if (rs->rules[i].group >= pos)
			rs->rules[i].group++;
	return (int)pos;
}

static bool actions_valid(const struct topo_ruleset *rs, const struct topo_action_list *a)
{
	if (a->n > TOPO_MAX_ACTIONS)
		return false;
	for (unsigned i = 0; i < a->n; i++) {
		if ((unsigned)a->a[i].kind >= TOPO_ACT_KIND_COUNT)
			return false;
		if (a->a[i].kind == TOPO_ACT_GOTO && a->a[i].arg >= rs->n_tables)
			return false;
	}
	return true;
}

/* The group of the last rule added when it is (TABLE, M's mask, PRIORITY), else -1. Rules
 * usually arrive group by group, and a mask equal byte for byte to a group's (which was
 * checked when the group was made) needs no check of its own. */
static long last_group(const struct topo_ruleset *rs, uint32_t table, const struct topo_mask *m,
		       uint32_t priority)
{
	const struct topo_group *g;

	if (!rs->n_rules)
		return -1;
	g = &rs->groups[rs->rules[rs->n_rules - 1].group];
	if (g->table != table || g->priority != priority || g->mask.fields != m->fields ||
	    memcmp(g->mask.plen, m->plen, sizeof(m->plen)))
		return -1;
	return (long)rs->rules[rs->n_rules - 1].group;
}

/* OUT = M normalised (topo_match_normalise), with the field bits of M's mask kept from the
 * rule before when the mask is the same. */
static void normalise_into(struct topo_ruleset *rs, const struct topo_match *m,
			   struct topo_match *out)
{
	if (!rs->norm_valid || memcmp(&rs->norm_mask, &m->mask, sizeof(m->mask)) != 0) {
		rs->norm_mask = m->mask;
		for (unsigned f = 0; f < TOPO_F_COUNT; f++)
			rs->norm_bits[f] = topo__field_bits(&m->mask, (enum topo_field)f);
		rs->norm_valid = true;
	}
	out->mask = m->mask;
	for (unsigned f = 0; f < TOPO_F_COUNT; f++) {
		if (!(TOPO__PREFIX_FIELDS & m->mask.fields & (1u << f)))
			out->mask.plen[f] = 0;
		out->value[f] = m->value[f] & rs->norm_bits[f];
	}
}

int topo_ruleset_add_rule(struct topo_ruleset *rs, uint32_t table, const struct topo_match *m,
			  uint32_t priority, const struct topo_action_list *actions, uint32_t flow)
{
	struct topo_rule *r;
	long g;

	if (!rs || !m || !actions || table >= rs->n_tables || !actions_valid(rs, actions))
		return -EINVAL;
	g = last_group(rs, table, &m->mask, priority);
	if (g < 0 && !topo__mask_valid(&m->mask))
		return -EINVAL;
	if (rs->n_rules >= (size_t)INT32_MAX)
		return -ENOSPC;
	if (grow((void **)&rs->rules, &rs->cap_rules, rs->n_rules + 1, sizeof(*rs->rules)))
		return -ENOMEM;
	if (g < 0)
		g = find_or_add_group(rs, table, &m->mask, priority);
	if (g < 0)
		return (int)g;
	assert(rs->groups[g].table == table && rs->groups[g].priority == priority);
	r = &rs->rules[rs->n_rules];
	memset(r, 0, sizeof(*r));
	r->table = table;
	r->group = (uint32_t)g;
	normalise_into(rs, m, &r->match);
	r->priority = priority;
	r->actions = *actions;
	r->flow = flow;
	if (atomic_load_explicit(&rs->ix, memory_order_relaxed)) /* no locked op per rule */
		topo__index_drop(rs);
	rs->groups[g].n_rules++;
	return (int)rs->n_rules++;
}

int topo_ruleset_reserve(struct topo_ruleset *rs, size_t n_rules)
{
	if (!rs)
		return -EINVAL;
	if (grow((void **)&rs->rules, &rs->cap_rules, n_rules, sizeof(*rs->rules)))
		return -ENOMEM;
	return 0;
}

size_t topo_ruleset_bytes(const struct topo_ruleset *rs)
{
	if (!rs)
		return 0;
	return sizeof(*rs) + rs->cap_ports * sizeof(*rs->ports) +
	       rs->cap_groups * sizeof(*rs->groups) + rs->cap_seq * sizeof(*rs->group_seq) +
	       rs->cap_rules * sizeof(*rs->rules) +
	       topo__index_bytes(rs) + rs->pix_cap * sizeof(*rs->pix);
}

int topo_ruleset_del_rule(struct topo_ruleset *rs, size_t i)
{
	if (!rs || i >= rs->n_rules)
		return -EINVAL;
	assert(rs->groups[rs->rules[i].group].n_rules > 0);
	rs->groups[rs->rules[i].group].n_rules--;
	memmove(&rs->rules[i], &rs->rules[i + 1], (rs->n_rules - i - 1) * sizeof(*rs->rules));
	rs->n_rules--;
	topo__index_drop(rs);
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
	return rs && i < rs->n_rules ? &rs->rules[i] : NULL;
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
