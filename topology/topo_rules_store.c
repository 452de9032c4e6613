/* SPDX-License-Identifier: MIT */
/*
 * topo_rules_store: how a rule set stores its rules compactly (struct topo__rec in
 * topo_ruleset_priv.h): values packed as 32-bit words for the fields of the rule's mask only,
 * action lists interned (a rule set holds few distinct ones: one per tenant subnet or
 * destination port), everything else taken from the rule's group. A generated rule then
 * takes about 50 bytes instead of a 216-byte struct topo_rule, which is what building and
 * scanning large rule sets mostly pay for (fresh memory, cache misses). The readers here
 * unpack one rule into the public types.
 */
#include "topology/topo.h"
#include "topology/topo_internal.h"
#include "topology/topo_ruleset_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MACS ((1u << TOPO_F_ETH_SRC) | (1u << TOPO_F_ETH_DST))

/* *ARR (*CAP elements of SZ bytes) moved into room for NCAP elements: a kept block that fits
 * (topo_blocks.c: large arrays only), else realloc. 0 or -ENOMEM (*ARR as it was). */
static int resize(void **arr, size_t *cap, size_t ncap, size_t sz)
{
	void *p = topo__block_take(ncap * sz);

	if (p) {
		if (*arr)
			memcpy(p, *arr, *cap * sz);
		topo__block_put(*arr, *cap * sz);
	} else {
		p = realloc(*arr, ncap * sz);
		if (!p)
			return -ENOMEM;
	}
	*arr = p;
	*cap = ncap;
	return 0;
}

int topo__grow(void **arr, size_t *cap, size_t need, size_t sz)
{
	size_t ncap;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	return resize(arr, cap, ncap, sz);
}

int topo__reserve(void **arr, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return 0;
	return resize(arr, cap, need, sz);
}

void topo__rule_values(const struct topo_ruleset *rs, size_t i, uint64_t v[TOPO_F_COUNT])
{
	const struct topo__rec *r = &rs->recs[i];
	const uint32_t *w = &rs->words[r->voff];
	uint32_t fields = rs->groups[r->group].mask.fields;

	memset(v, 0, sizeof(uint64_t) * TOPO_F_COUNT);
	for (uint32_t f = fields; f; f &= f - 1) {
		unsigned k = (unsigned)__builtin_ctz(f);

		v[k] = *w++;
		if (MACS & (1u << k))
			v[k] |= (uint64_t)*w++ << 32;
	}
}

void topo__rule_match(const struct topo_ruleset *rs, size_t i, struct topo_match *out)
{
	out->mask = rs->groups[rs->recs[i].group].mask;
	topo__rule_values(rs, i, out->value);
}

void topo__rule_get(const struct topo_ruleset *rs, size_t i, struct topo_rule *out)
{
	const struct topo__rec *r = &rs->recs[i];
	const struct topo_group *g = &rs->groups[r->group];

	memset(out, 0, sizeof(*out));
	out->table = g->table;
	out->group = r->group;
	topo__rule_match(rs, i, &out->match);
	out->priority = g->priority;
	out->actions = rs->acts[r->act];
	out->flow = r->flow;
}

/* Make RS's plan the one for mask M. Out of line: rules come group by group, so the plan
 * of the rule before is usually the one (plan_for). */
static __attribute__((noinline)) void plan_make(struct topo_ruleset *rs,
						const struct topo_mask *m)
{
	struct topo__plan *p = &rs->plan;

	memset(p, 0, sizeof(*p));
	p->mask = *m;
	for (uint32_t f = m->fields & ((1u << TOPO_F_COUNT) - 1); f; f &= f - 1) {
		unsigned k = (unsigned)__builtin_ctz(f);

		p->field[p->nf] = (uint8_t)k;
		p->wide[p->nf] = (MACS >> k) & 1u;
		p->bits[p->nf] = topo__field_bits(m, (enum topo_field)k);
		p->words += 1 + p->wide[p->nf++];
	}
	p->valid = true;
}

static const struct topo__plan *plan_for(struct topo_ruleset *rs, const struct topo_mask *m)
{
	if (!rs->plan.valid || memcmp(&rs->plan.mask, m, sizeof(*m)) != 0)
		plan_make(rs, m);
	return &rs->plan;
}

/* The words of V under plan P into W (P->words of them, and one more word written). W is
 * restrict: its stores cannot change the plan, so the loop keeps the plan in registers. */
static void pack_words(const struct topo__plan *p, const uint64_t v[TOPO_F_COUNT],
		       uint32_t *restrict w)
{
	const unsigned nf = p->nf;

	for (unsigned k = 0; k < nf; k++) {
		uint64_t x = v[p->field[k]] & p->bits[k];

		w[0] = (uint32_t)x;
		w[1] = (uint32_t)(x >> 32);
		w += 1u + p->wide[k];
	}
}

/* Room in RS's words for N_WORDS more (and the packing's word of room beyond): the room
 * reserved (topo_ruleset_reserve_values) when it is enough, else doubling. 0, -ENOSPC or
 * -ENOMEM. */
static int words_room(struct topo_ruleset *rs, size_t n_words)
{
	size_t need = rs->n_words + n_words + 1u;

	if (need + TOPO_F_COUNT * 2 > UINT32_MAX)
		return -ENOSPC;
	if (need <= rs->cap_words)
		return 0;
	return rs->words_res >= need ? topo__reserve((void **)&rs->words, &rs->cap_words,
						      rs->words_res, sizeof(*rs->words))
				     : topo__grow((void **)&rs->words, &rs->cap_words, need,
						  sizeof(*rs->words));
}

long topo__pack_values(struct topo_ruleset *rs, const struct topo_mask *m,
		       const uint64_t v[TOPO_F_COUNT])
{
	const struct topo__plan *p = plan_for(rs, m);
	size_t off = rs->n_words;
	int rc = words_room(rs, p->words);

	if (rc)
		return rc;
	pack_words(p, v, &rs->words[off]);
	rs->n_words = off + p->words;
	return (long)off;
}

/* Field FIELD (significant bits BITS, two words when WIDE) of the N value arrays V, into
 * W, W + STRIDE, ...: one field of every rule at a time, so that the loop holds its plan
 * in registers. */
static void pack_column(size_t n, const uint64_t (*v)[TOPO_F_COUNT], unsigned field,
			uint64_t bits, bool wide, unsigned stride, uint32_t *restrict w)
{
	if (wide) {
		for (size_t i = 0; i < n; i++, w += stride) {
			uint64_t x = v[i][field] & bits;

			w[0] = (uint32_t)x;
			w[1] = (uint32_t)(x >> 32);
		}
		return;
	}
	for (size_t i = 0; i < n; i++, w += stride)
		w[0] = (uint32_t)(v[i][field] & bits);
}

int topo__pack_many(struct topo_ruleset *rs, const struct topo_mask *m, size_t n,
		    const uint64_t (*v)[TOPO_F_COUNT], size_t *off)
{
	const struct topo__plan *p = plan_for(rs, m);
	uint32_t *w;
	int rc;

	if (n > (UINT32_MAX - rs->n_words) / (p->words ? p->words : 1u))
		return -ENOSPC;
	rc = words_room(rs, n * p->words);
	if (rc)
		return rc;
	*off = rs->n_words;
	w = &rs->words[rs->n_words];
	for (unsigned k = 0, at = 0; k < p->nf; at += 1u + p->wide[k++])
		pack_column(n, v, p->field[k], p->bits[k], p->wide[k], p->words, w + at);
	rs->n_words += n * p->words;
	return 0;
}

static uint64_t actions_hash(const struct topo_action_list *a)
{
	uint64_t h = 0x6a09e667f3bcc909ull ^ a->n;

	for (unsigned i = 0; i < a->n; i++) {
		h ^= ((uint64_t)a->a[i].kind << 32) | a->a[i].arg;
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return h ^ (h >> 32);
}

static bool actions_same(const struct topo_action_list *a, const struct topo_action_list *b)
{
	if (a->n != b->n)
		return false;
	for (unsigned i = 0; i < a->n; i++)
		if (a->a[i].kind != b->a[i].kind || a->a[i].arg != b->a[i].arg)
			return false;
	return true;
}

static void actions_put(struct topo_ruleset *rs, size_t id)
{
	size_t k = (size_t)actions_hash(&rs->acts[id]) & (rs->aix_cap - 1);

	while (rs->aix[k])
		k = (k + 1) & (rs->aix_cap - 1);
	rs->aix[k] = (uint32_t)id + 1;
}

int topo__actions_reindex(struct topo_ruleset *rs, size_t n)
{
	if (topo__index_alloc(&rs->aix, &rs->aix_cap, n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < rs->n_acts; i++)
		actions_put(rs, i);
	return 0;
}

long topo__intern_actions(struct topo_ruleset *rs, const struct topo_action_list *a)
{
	struct topo_action_list *n;

	if (rs->aix_cap) {
		for (size_t k = (size_t)actions_hash(a) & (rs->aix_cap - 1); rs->aix[k];
		     k = (k + 1) & (rs->aix_cap - 1))
			if (actions_same(&rs->acts[rs->aix[k] - 1], a))
				return (long)rs->aix[k] - 1;
	}
	if (rs->n_acts >= UINT32_MAX - 1)
		return -ENOSPC;
	if (topo__grow((void **)&rs->acts, &rs->cap_acts, rs->n_acts + 1, sizeof(*rs->acts)))
		return -ENOMEM;
	if (rs->aix_cap < 2 * (rs->n_acts + 1) + 2 && topo__actions_reindex(rs, rs->n_acts + 1))
		return -ENOMEM;
	n = &rs->acts[rs->n_acts];
	memset(n, 0, sizeof(*n));
	n->n = a->n;
	memcpy(n->a, a->a, a->n * sizeof(a->a[0]));
	actions_put(rs, rs->n_acts);
	return (long)rs->n_acts++;
}
