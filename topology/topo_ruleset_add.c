/* SPDX-License-Identifier: MIT */
/*
 * topo_ruleset_add: adding rules to a rule set. topo_ruleset_add_rule is the checked path
 * every caller may use (actions, table and mask validated, group found or created, values
 * normalised, action list interned). Builders that add many rules of few groups and few
 * action lists (the generators) take the fast path: a reference to the group and an id of
 * the action list, each obtained (and checked) once, then per rule only its values (say a
 * packet's header, of which the mask's fields are kept), or a batch of rules of one group at
 * once (topo_ruleset_add_rules_ref: the checks and the packing plan once per batch); the
 * rule stored is the same as topo_ruleset_add_rule would store.
 */
#include "topology/topo.h"
#include "topology/topo_internal.h"
#include "topology/topo_ruleset_priv.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Index of the group (table, mask, priority), creating it in sorted position if needed. */
static int find_or_add_group(struct topo_ruleset *rs, uint32_t table,
			     const struct topo_mask *mask, uint32_t priority)
{
	size_t pos = rs->n_groups;

	if (rs->n_rules) { /* rules usually arrive group by group */
		uint32_t last = rs->recs[rs->n_rules - 1].group;
		const struct topo_group *g = &rs->groups[last];

		if (g->table == table && g->priority == priority && topo_mask_equal(&g->mask, mask))
			return (int)last;
	}
	/* groups are sorted by (table, priority, seq): from the last one down, those above the
	 * key (the new group goes before them), those of the key (one may be the group), then
	 * stop; a builder making groups in key order stops at once */
	for (size_t i = rs->n_groups; i-- > 0;) {
		const struct topo_group *g = &rs->groups[i];

		if (g->table > table || (g->table == table && g->priority > priority))
			pos = i;
		else if (g->table == table && g->priority == priority) {
			if (topo_mask_equal(&g->mask, mask))
				return (int)i;
		} else
			break;
	}
	if (topo__grow((void **)&rs->groups, &rs->cap_groups, rs->n_groups + 1, sizeof(*rs->groups)))
		return -ENOMEM;
	if (topo__grow((void **)&rs->group_seq, &rs->cap_seq, rs->n_groups + 1,
		 sizeof(*rs->group_seq)))
		return -ENOMEM;
	memmove(&rs->groups[pos + 1], &rs->groups[pos],
		(rs->n_groups - pos) * sizeof(*rs->groups));
	memmove(&rs->group_seq[pos + 1], &rs->group_seq[pos],
		(rs->n_groups - pos) * sizeof(*rs->group_seq));
	memset(&rs->groups[pos], 0, sizeof(rs->groups[pos]));
	rs->groups[pos].table = table;
	rs->groups[pos].mask.fields = mask->fields; /* no padding bytes from the caller */
	memcpy(rs->groups[pos].mask.plen, mask->plen, sizeof(mask->plen));
	rs->groups[pos].priority = priority;
	rs->group_seq[pos] = rs->next_seq++;
	rs->n_groups++;
	assert(pos == 0 || rs->groups[pos - 1].table < table ||
	       (rs->groups[pos - 1].table == table && rs->groups[pos - 1].priority <= priority));
	assert(pos + 1 == rs->n_groups || rs->groups[pos + 1].table > table ||
	       rs->groups[pos + 1].priority > priority);
	for (size_t i = 0; i < rs->n_rules; i++)
		if (rs->recs[i].group >= pos)
			rs->recs[i].group++;
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
	g = &rs->groups[rs->recs[rs->n_rules - 1].group];
	if (g->table != table || g->priority != priority || g->mask.fields != m->fields ||
	    memcmp(g->mask.plen, m->plen, sizeof(m->plen)))
		return -1;
	return (long)rs->recs[rs->n_rules - 1].group;
}

/* A change of the rules drops what was built from them (index, full records). The load
 * is relaxed: no locked operation per rule added. */
static void rules_changed(struct topo_ruleset *rs)
{
	if (atomic_load_explicit(&rs->ix, memory_order_relaxed))
		topo__index_drop(rs);
	if (atomic_load_explicit(&rs->view, memory_order_relaxed))
		topo__view_drop(rs);
}

int topo_ruleset_add_rule(struct topo_ruleset *rs, uint32_t table, const struct topo_match *m,
			  uint32_t priority, const struct topo_action_list *actions, uint32_t flow)
{
	struct topo__rec *r;
	long g, act, voff;

	if (!rs || !m || !actions || table >= rs->n_tables || !actions_valid(rs, actions))
		return -EINVAL;
	g = last_group(rs, table, &m->mask, priority);
	if (g < 0 && !topo__mask_valid(&m->mask))
		return -EINVAL;
	if (rs->n_rules >= (size_t)INT32_MAX)
		return -ENOSPC;
	if (topo__grow((void **)&rs->recs, &rs->cap_rules, rs->n_rules + 1, sizeof(*rs->recs)))
		return -ENOMEM;
	if (g < 0)
		g = find_or_add_group(rs, table, &m->mask, priority);
	if (g < 0)
		return (int)g;
	assert(rs->groups[g].table == table && rs->groups[g].priority == priority);
	act = topo__intern_actions(rs, actions);
	if (act < 0)
		return (int)act;
	voff = topo__pack_values(rs, &m->mask, m->value); /* cuts to the mask */
	if (voff < 0)
		return (int)voff;
	r = &rs->recs[rs->n_rules];
	r->group = (uint32_t)g;
	r->flow = flow;
	r->act = (uint32_t)act;
	r->voff = (uint32_t)voff;
	rules_changed(rs);
	rs->groups[g].n_rules++;
	return (int)rs->n_rules++;
}

int topo_ruleset_reserve(struct topo_ruleset *rs, size_t n_rules)
{
	if (!rs)
		return -EINVAL;
	if (topo__reserve((void **)&rs->recs, &rs->cap_rules, n_rules, sizeof(*rs->recs)))
		return -ENOMEM;
	return 0;
}

int topo_ruleset_reserve_values(struct topo_ruleset *rs, const struct topo_mask *m,
				size_t n_rules)
{
	if (!rs || !m || !topo__mask_valid(m))
		return -EINVAL;
	if (rs->words_res < rs->n_words)
		rs->words_res = rs->n_words;
	rs->words_res += n_rules * topo__value_words(m) + 1; /* packing's word of room */
	return 0; /* the next rule added makes the room, once for every reservation before it */
}

int topo_ruleset_group_ref(struct topo_ruleset *rs, uint32_t table, const struct topo_mask *m,
			   uint32_t priority, struct topo_group_ref *out)
{
	int g;

	if (!rs || !m || !out || table >= rs->n_tables || !topo__mask_valid(m))
		return -EINVAL;
	g = find_or_add_group(rs, table, m, priority);
	if (g < 0)
		return g;
	out->index = (uint32_t)g;
	out->seq = rs->group_seq[g];
	return 0;
}

long topo_ruleset_actions_id(struct topo_ruleset *rs, const struct topo_action_list *a)
{
	if (!rs || !a || !actions_valid(rs, a))
		return -EINVAL;
	return topo__intern_actions(rs, a);
}

int topo_ruleset_add_rule_ref(struct topo_ruleset *rs, const struct topo_group_ref *ref,
			      const uint64_t values[TOPO_F_COUNT], uint32_t act, uint32_t flow)
{
	const struct topo_group *g;
	struct topo__rec *r;
	long voff;

	if (!rs || !ref || !values)
		return -EINVAL;
	if (ref->index >= rs->n_groups || rs->group_seq[ref->index] != ref->seq)
		return -ESTALE;
	if (act >= rs->n_acts)
		return -EINVAL;
	if (rs->n_rules >= (size_t)INT32_MAX)
		return -ENOSPC;
	if (rs->n_rules == rs->cap_rules &&
	    topo__grow((void **)&rs->recs, &rs->cap_rules, rs->n_rules + 1, sizeof(*rs->recs)))
		return -ENOMEM;
	g = &rs->groups[ref->index];
	voff = topo__pack_values(rs, &g->mask, values);
	if (voff < 0)
		return (int)voff;
	r = &rs->recs[rs->n_rules];
	r->group = ref->index;
	r->flow = flow;
	r->act = act;
	r->voff = (uint32_t)voff;
	rules_changed(rs);
	rs->groups[ref->index].n_rules++;
	return (int)rs->n_rules++;
}

int topo_ruleset_add_rules_ref(struct topo_ruleset *rs, const struct topo_group_ref *ref,
			       size_t n, const uint64_t (*values)[TOPO_F_COUNT],
			       const uint32_t *act, const uint32_t *flow)
{
	struct topo__rec *r;
	size_t off, words;
	int rc;

	if (!rs || !ref || (n && (!values || !act || !flow)))
		return -EINVAL;
	if (ref->index >= rs->n_groups || rs->group_seq[ref->index] != ref->seq)
		return -ESTALE;
	for (size_t i = 0; i < n; i++)
		if (act[i] >= rs->n_acts)
			return -EINVAL;
	if (n > (size_t)INT32_MAX - rs->n_rules)
		return -ENOSPC;
	if (rs->n_rules + n > rs->cap_rules &&
	    topo__grow((void **)&rs->recs, &rs->cap_rules, rs->n_rules + n, sizeof(*rs->recs)))
		return -ENOMEM;
	rc = topo__pack_many(rs, &rs->groups[ref->index].mask, n, values, &off);
	if (rc)
		return rc;
	words = topo__value_words(&rs->groups[ref->index].mask);
	r = &rs->recs[rs->n_rules];
	for (size_t i = 0; i < n; i++, off += words)
		r[i] = (struct topo__rec){ .group = ref->index, .flow = flow[i], .act = act[i],
					   .voff = (uint32_t)off };
	if (n)
		rules_changed(rs);
	rs->groups[ref->index].n_rules += (uint32_t)n;
	rs->n_rules += n;
	return 0;
}
