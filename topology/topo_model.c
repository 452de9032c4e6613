/* SPDX-License-Identifier: MIT */
/*
 * topo_model: validity of an architecture model (topo_model_check) with the canonical reason
 * attribution of topo_enum.h, split into the per-table step (shared with the pruning
 * enumerator) and the final step on a complete model.
 *
 * Packet states: a send-path (tx) packet starts as plain container traffic, a receive-path
 * (rx) packet as VXLAN from the uplink. The per-table step simulates each of the table's own
 * templates from its class's nominal state, so it depends on nothing but the table. Effects
 * that only a path shows (a packet encapsulated in table 0 that table 2 forwards to a VF, or
 * decapsulated twice across tables) are found by the final packet walk, which reports them
 * under their own reason (encap_not_uplink, decap_non_tunnel) after unreachable_table, in
 * walk order together with black_hole.
 */
#include "topology/topo.h"
#include "topology/topo_enum.h"
#include "topology/topo_internal.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum pkt_state { ST_PLAIN, ST_TUNNEL, ST_ENCAPPED };

static const char *const class_names[2] = { "send-path (tx)", "receive-path (rx)" };

bool topo__template_has_goto(const struct topo_template *tp)
{
	for (unsigned k = 0; k < tp->n; k++)
		if (tp->kinds[k] == TOPO_ACT_GOTO)
			return true;
	return false;
}

enum topo_reason topo__template_reason(const struct topo_template *tp, enum topo__class c)
{
	enum pkt_state st = c == TOPO__TX ? ST_PLAIN : ST_TUNNEL;
	unsigned bits = 0;

	for (unsigned k = 0; k + 1 < tp->n; k++)
		if (topo_action_is_terminal(tp->kinds[k]))
			return TOPO_R_AFTER_TERMINAL;
	for (unsigned k = 0; k < tp->n; k++) {
		switch (tp->kinds[k]) {
		case TOPO_ACT_DECAP:
			if (st != ST_TUNNEL)
				bits |= 1u << TOPO_R_DECAP_NON_TUNNEL;
			st = ST_PLAIN;
			break;
		case TOPO_ACT_ENCAP:
			st = ST_ENCAPPED;
			break;
		case TOPO_ACT_FWD_VF_OTHER:
			bits |= 1u << TOPO_R_CROSS_SUBNET;
			/* fall through */
		case TOPO_ACT_FWD_VF:
			if (st == ST_ENCAPPED)
				bits |= 1u << TOPO_R_ENCAP_NOT_UPLINK;
			break;
		default:
			break;
		}
	}
	for (unsigned r = TOPO_R_DECAP_NON_TUNNEL; r <= TOPO_R_CROSS_SUBNET; r++)
		if (bits & (1u << r))
			return (enum topo_reason)r;
	return TOPO_OK;
}

enum topo_reason topo__pair_reason(const struct topo_space *s, unsigned tx, unsigned rx,
				   enum topo__class *cls)
{
	enum topo_reason a = tx == TOPO_NONE ? TOPO_OK
					     : topo__template_reason(&s->templates[tx], TOPO__TX);
	enum topo_reason b = rx == TOPO_NONE ? TOPO_OK
					     : topo__template_reason(&s->templates[rx], TOPO__RX);

	if (a != TOPO_OK && (b == TOPO_OK || a <= b)) {
		*cls = TOPO__TX;
		return a;
	}
	*cls = TOPO__RX;
	return b;
}

/* Goto targets of table U as a bit set (templates with a goto only). */
static unsigned targets(const struct topo_space *s, const struct topo_model *m, unsigned u)
{
	const struct topo_table_choice *c = &m->t[u];
	unsigned set = 0;

	if (c->tx_template != TOPO_NONE && c->tx_goto < TOPO_MAX_TABLES &&
	    topo__template_has_goto(&s->templates[c->tx_template]))
		set |= 1u << c->tx_goto;
	if (c->rx_template != TOPO_NONE && c->rx_goto < TOPO_MAX_TABLES &&
	    topo__template_has_goto(&s->templates[c->rx_template]))
		set |= 1u << c->rx_goto;
	return set;
}

/* Tables reachable in one or more gotos from table FROM among tables 0..n-1, whose goto
 * target sets are TG (targets outside 0..n-1 are ignored). */
static unsigned reach(const unsigned *tg, unsigned n, unsigned from)
{
	unsigned within = (1u << n) - 1, seen = 0, frontier = 1u << from;

	while (frontier) {
		unsigned next = 0;

		for (unsigned u = 0; u < n; u++)
			if (frontier & (1u << u))
				next |= tg[u] & within;
		frontier = next & ~seen;
		seen |= next;
	}
	return seen;
}

static bool loop_closes_tg(const unsigned *tg, unsigned t)
{
	if (!(tg[t] & ((2u << t) - 1)))
		return false;
	return (reach(tg, t + 1, t) >> t) & 1u;
}

bool topo__loop_closes(const struct topo_space *s, const struct topo_model *m, unsigned t)
{
	unsigned tg[TOPO_MAX_TABLES];

	for (unsigned u = 0; u <= t; u++)
		tg[u] = targets(s, m, u);
	return loop_closes_tg(tg, t);
}

enum topo_reason topo__table_reason(const struct topo_space *s, const struct topo_model *m,
				    unsigned t, const unsigned *tg, struct topo_violation *v)
{
	const struct topo_table_choice *c = &m->t[t];
	enum topo__class cls;
	enum topo_reason r = topo__pair_reason(s, c->tx_template, c->rx_template, &cls);

	if (r != TOPO_OK) {
		if (v) {
			unsigned tp = cls == TOPO__TX ? c->tx_template : c->rx_template;

			v->reason = r;
			v->table = (int)t;
			v->rule = -1;
			snprintf(v->message, sizeof(v->message),
				 "table %u: %s template '%s': %s", t, class_names[cls],
				 s->templates[tp].name, topo_reason_explain(r));
		}
		return r;
	}
	if (loop_closes_tg(tg, t)) {
		if (v) {
			v->reason = TOPO_R_LOOP;
			v->table = (int)t;
			v->rule = -1;
			snprintf(v->message, sizeof(v->message),
				 "table %u: its gotos close a cycle among tables 0..%u, so packets "
				 "could loop forever", t, t);
		}
		return TOPO_R_LOOP;
	}
	return TOPO_OK;
}

static enum topo_reason fail(struct topo_violation *v, enum topo_reason r, unsigned t,
			     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum topo_reason fail(struct topo_violation *v, enum topo_reason r, unsigned t,
			     const char *fmt, ...)
{
	va_list ap;

	if (v) {
		v->reason = r;
		v->table = (int)t;
		v->rule = -1;
		va_start(ap, fmt);
		vsnprintf(v->message, sizeof(v->message), fmt, ap);
		va_end(ap);
	}
	return r;
}

/* Follow the packets of class C from table 0 until they leave (no loops: checked before). */
static enum topo_reason walk(const struct topo_space *s, const struct topo_model *m,
			     enum topo__class c, struct topo_violation *v)
{
	enum pkt_state st = c == TOPO__TX ? ST_PLAIN : ST_TUNNEL;
	const char *who = class_names[c];
	unsigned t = 0;

	for (unsigned hops = 0; hops <= m->n_tables; hops++) {
		const struct topo_table_choice *ch = &m->t[t];
		unsigned tp = c == TOPO__TX ? ch->tx_template : ch->rx_template;
		unsigned go = c == TOPO__TX ? ch->tx_goto : ch->rx_goto;
		bool moved = false;

		assert(t < m->n_tables);

		if (tp == TOPO_NONE)
			return fail(v, TOPO_R_BLACK_HOLE, t,
				    "table %u has no rule for %s packets, which reach it and are lost",
				    t, who);
		for (unsigned k = 0; k < s->templates[tp].n && !moved; k++) {
			switch (s->templates[tp].kinds[k]) {
			case TOPO_ACT_ENCAP:
				st = ST_ENCAPPED;
				break;
			case TOPO_ACT_DECAP:
				if (st != ST_TUNNEL)
					return fail(v, TOPO_R_DECAP_NON_TUNNEL, t,
						    "table %u decapsulates %s packets that are no "
						    "longer VXLAN from the uplink", t, who);
				st = ST_PLAIN;
				break;
			case TOPO_ACT_FWD_VF_OTHER:
				return fail(v, TOPO_R_CROSS_SUBNET, t,
					    "table %u forwards %s packets into another subnet", t, who);
			case TOPO_ACT_FWD_VF:
				if (st == ST_ENCAPPED)
					return fail(v, TOPO_R_ENCAP_NOT_UPLINK, t,
						    "table %u forwards encapsulated %s packets to a VF "
						    "instead of the uplink", t, who);
				if (st == ST_TUNNEL)
					return fail(v, TOPO_R_BLACK_HOLE, t,
						    "table %u delivers %s packets to a VF still "
						    "VXLAN-encapsulated; the container cannot read them",
						    t, who);
				return TOPO_OK;
			case TOPO_ACT_FWD_UPLINK:
			case TOPO_ACT_DROP:
				return TOPO_OK;
			case TOPO_ACT_GOTO:
				if (go >= m->n_tables)
					return fail(v, TOPO_R_BLACK_HOLE, t,
						    "table %u sends %s packets to a table that does not "
						    "exist", t, who);
				t = go;
				moved = true;
				break;
			default:
				break;
			}
		}
		if (!moved)
			return fail(v, TOPO_R_BLACK_HOLE, t,
				    "at table %u the %s actions end without a forward, goto or drop, "
				    "so the packets are lost", t, who);
	}
	return fail(v, TOPO_R_LOOP, t, "table %u: %s packets loop", t, who);
}

static enum topo_reason final_reason_tg(const struct topo_space *s, const struct topo_model *m,
				       const unsigned *tg, struct topo_violation *v)
{
	unsigned seen = reach(tg, m->n_tables, 0) | 1u;
	enum topo_reason r;

	for (unsigned t = 1; t < m->n_tables; t++)
		if (!(seen & (1u << t)))
			return fail(v, TOPO_R_UNREACHABLE_TABLE, t,
				    "table %u is not reached by any goto from table 0, so its rules "
				    "never see a packet", t);
	r = walk(s, m, TOPO__TX, v);
	if (r == TOPO_OK)
		r = walk(s, m, TOPO__RX, v);
	return r;
}

enum topo_reason topo__final_reason(const struct topo_space *s, const struct topo_model *m,
				    struct topo_violation *v)
{
	unsigned tg[TOPO_MAX_TABLES];

	for (unsigned u = 0; u < m->n_tables; u++)
		tg[u] = targets(s, m, u);
	return final_reason_tg(s, m, tg, v);
}

/* Goto target (bit set) of one class's template, or ~0u when the goto is out of range. */
static unsigned class_target(const struct topo_space *s, unsigned tp, unsigned go, unsigned n)
{
	if (tp == TOPO_NONE || !topo__template_has_goto(&s->templates[tp]))
		return 0;
	return go < n ? 1u << go : ~0u;
}

/* Does table T of M fit S (mask subset, template indices, goto targets)? Sets TG[T], the
 * table's goto target set. */
static bool table_fits(const struct topo_space *s, const struct topo_model *m, unsigned t,
		       unsigned *tg)
{
	const struct topo_table_choice *c = &m->t[t];
	unsigned a, b;

	if (!c->masks || (c->masks >> s->n_shapes) ||
	    topo__popcount(c->masks) > s->max_masks_per_table)
		return false;
	if ((c->tx_template != TOPO_NONE && c->tx_template >= s->n_templates) ||
	    (c->rx_template != TOPO_NONE && c->rx_template >= s->n_templates))
		return false;
	a = class_target(s, c->tx_template, c->tx_goto, m->n_tables);
	b = class_target(s, c->rx_template, c->rx_goto, m->n_tables);
	tg[t] = a | b;
	return a != ~0u && b != ~0u;
}

enum topo_reason topo_model_check(const struct topo_space *s, const struct topo_model *m,
				  struct topo_violation *v)
{
	unsigned tg[TOPO_MAX_TABLES];
	enum topo_reason r;

	if (m->n_tables < 1 || m->n_tables > TOPO_MAX_TABLES)
		return fail(v, TOPO_R_BLACK_HOLE, 0, "a model needs 1..%d tables, not %u",
			    TOPO_MAX_TABLES, m->n_tables);
	/* tables in order: each table's fit, then its canonical per-table step */
	for (unsigned t = 0; t < m->n_tables; t++) {
		if (!table_fits(s, m, t, tg))
			return fail(v, TOPO_R_BLACK_HOLE, t,
				    "table %u does not fit the component space (masks, template "
				    "index or goto target out of range)", t);
		r = topo__table_reason(s, m, t, tg, v);
		if (r != TOPO_OK)
			return r;
	}
	r = final_reason_tg(s, m, tg, v);
	if (r == TOPO_OK && v) {
		v->reason = TOPO_OK;
		v->table = -1;
		v->rule = -1;
		v->message[0] = '\0';
	}
	return r;
}

static size_t put(char *buf, size_t len, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t put(char *buf, size_t len, size_t n, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (n >= len)
		return n;
	va_start(ap, fmt);
	w = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return w < 0 ? n : n + (size_t)w;
}

static size_t put_template(const struct topo_space *s, char *buf, size_t len, size_t n,
			   const char *cls, unsigned tp, unsigned go)
{
	if (tp == TOPO_NONE || tp >= s->n_templates)
		return put(buf, len, n, " %s=-", cls);
	n = put(buf, len, n, " %s=%s", cls, s->templates[tp].name);
	if (topo__template_has_goto(&s->templates[tp]))
		n = put(buf, len, n, "->t%u", go);
	return n;
}

const char *topo_model_format(const struct topo_space *s, const struct topo_model *m,
			      char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (unsigned t = 0; t < m->n_tables && t < TOPO_MAX_TABLES; t++) {
		const struct topo_table_choice *c = &m->t[t];
		bool first = true;

		n = put(buf, len, n, "%st%u{masks=", t ? " " : "", t);
		for (unsigned i = 0; i < s->n_shapes; i++) {
			if (!(c->masks & (1u << i)))
				continue;
			n = put(buf, len, n, "%s%s", first ? "" : "+", s->shapes[i].name);
			first = false;
		}
		n = put_template(s, buf, len, n, "tx", c->tx_template, c->tx_goto);
		n = put_template(s, buf, len, n, "rx", c->rx_template, c->rx_goto);
		n = put(buf, len, n, "}");
	}
	return buf;
}
