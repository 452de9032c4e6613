/* SPDX-License-Identifier: MIT */
/*
 * pt_tc: rendering a topology rule set as a `tc -batch` file of flower filters (pt_tc.h).
 * Assumes topo values are host-order integers (IPv4 in the low 32 bits, MACs in the low 48)
 * and that rule->group indexes topo_ruleset_group's (table, priority)-sorted list.
 * Rules whose match part renders the same (same device, chain, prio and keys) are merged into
 * the first: in_port is expressed by the device, so with fewer representors than VFs (or
 * none) rules that differ only in in_port collide, and flower refuses the second one with
 * "File exists" (seen on a real kernel, docs/rxe-vm.md); the count is scope->n_merged.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_tc.h"

/* Match parts already rendered: an open-addressing set of strings. Invariant: n * 2 <= cap
 * (cap a power of two, or 0 before the first insert); slots own their strings. */
struct seen {
	char **slot;
	size_t cap, n;
};

struct ctx {
	const struct topo_ruleset *rs;
	const struct pt_tc_devs *d;
	unsigned *prio;        /* per group */
	struct pt_tc_scope *scope;
	struct seen seen;
	FILE *f;
};

static size_t str_hash(const char *s)
{
	size_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static char **seen_find(const struct seen *z, const char *key)
{
	size_t i = str_hash(key) & (z->cap - 1);

	while (z->slot[i] && strcmp(z->slot[i], key) != 0)
		i = (i + 1) & (z->cap - 1);
	return &z->slot[i];
}

static int seen_grow(struct seen *z)
{
	struct seen bigger = { .cap = z->cap ? z->cap * 2 : 64 };

	if (!(bigger.slot = calloc(bigger.cap, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < z->cap; i++)
		if (z->slot[i])
			*seen_find(&bigger, z->slot[i]) = z->slot[i];
	bigger.n = z->n;
	free(z->slot);
	*z = bigger;
	return 0;
}

/* 1: KEY was there (KEY freed); 0: KEY taken over; -ENOMEM (KEY freed). */
static int seen_add(struct seen *z, char *key)
{
	char **p;

	if ((z->n + 1) * 2 > z->cap && seen_grow(z) < 0) {
		free(key);
		return -ENOMEM;
	}
	p = seen_find(z, key);
	if (*p) {
		free(key);
		return 1;
	}
	*p = key;
	z->n++;
	assert(z->n * 2 <= z->cap);
	return 0;
}

static void seen_free(struct seen *z)
{
	for (size_t i = 0; i < z->cap; i++)
		free(z->slot[i]);
	free(z->slot);
}

static void ip_str(uint64_t v, char *b, size_t n)
{
	snprintf(b, n, "%u.%u.%u.%u", (unsigned)(v >> 24) & 255, (unsigned)(v >> 16) & 255,
		 (unsigned)(v >> 8) & 255, (unsigned)v & 255);
}

/* Representor (or uplink) for port id; NULL when the port is unknown. */
static const char *port_dev(const struct ctx *c, uint32_t id)
{
	const struct topo_port *p = topo_ruleset_port_by_id(c->rs, id);
	size_t k = 0;

	if (!p)
		return NULL;
	if (p->kind == TOPO_PORT_UPLINK || !c->d->n_reps)
		return c->d->uplink;
	if (p->kind == TOPO_PORT_REPRESENTOR && (p = topo_ruleset_port_by_id(c->rs, p->peer)) == NULL)
		return c->d->uplink;
	for (size_t i = 0; i < topo_ruleset_n_ports(c->rs); i++) {
		const struct topo_port *q = topo_ruleset_port(c->rs, i);

		if (q == p || q->id == p->id)
			break;
		k += q->kind == TOPO_PORT_VF;
	}
	return c->d->reps[k % c->d->n_reps];
}

static const char *rule_dev(const struct ctx *c, const struct topo_rule *r)
{
	const struct topo_mask *m = &r->match.mask;
	const char *dev;

	if (topo_mask_has(m, TOPO_F_TUN_ID) || topo_mask_has(m, TOPO_F_TUN_SRC) ||
	    topo_mask_has(m, TOPO_F_TUN_DST) || topo_mask_has(m, TOPO_F_TUN_DPORT))
		return c->d->vxlan;
	if (topo_mask_has(m, TOPO_F_IN_PORT) &&
	    (dev = port_dev(c, (uint32_t)r->match.value[TOPO_F_IN_PORT])) != NULL)
		return dev;
	return c->d->uplink;
}

static void note_dev(struct pt_tc_scope *s, const char *dev)
{
	for (unsigned i = 0; i < s->n_devs; i++)
		if (strcmp(s->devs[i], dev) == 0)
			return;
	if (s->n_devs < PT_TC_MAX_DEVS)
		snprintf(s->devs[s->n_devs++], sizeof(s->devs[0]), "%s", dev);
}

static void put_keys(FILE *f, const struct topo_match *m)
{
	static const char *const ipk[TOPO_F_COUNT] = {
		[TOPO_F_IP_SRC] = "src_ip", [TOPO_F_IP_DST] = "dst_ip",
		[TOPO_F_TUN_SRC] = "enc_src_ip", [TOPO_F_TUN_DST] = "enc_dst_ip",
	};
	static const char *const numk[TOPO_F_COUNT] = {
		[TOPO_F_L4_SRC] = "src_port", [TOPO_F_L4_DST] = "dst_port",
		[TOPO_F_TUN_ID] = "enc_key_id", [TOPO_F_TUN_DPORT] = "enc_dst_port",
	};
	const struct topo_mask *k = &m->mask;
	char ip[32];

	for (int fld = 0; fld < TOPO_F_COUNT; fld++) {
		uint64_t v = m->value[fld];

		if (!topo_mask_has(k, (enum topo_field)fld))
			continue;
		if (fld == TOPO_F_ETH_SRC || fld == TOPO_F_ETH_DST)
			fprintf(f, " %s %02x:%02x:%02x:%02x:%02x:%02x",
				fld == TOPO_F_ETH_SRC ? "src_mac" : "dst_mac",
				(unsigned)(v >> 40) & 255, (unsigned)(v >> 32) & 255,
				(unsigned)(v >> 24) & 255, (unsigned)(v >> 16) & 255,
				(unsigned)(v >> 8) & 255, (unsigned)v & 255);
		else if (ipk[fld]) {
			ip_str(v, ip, sizeof(ip));
			fprintf(f, " %s %s/%u", ipk[fld], ip, k->plen[fld] ? k->plen[fld] : 32);
		} else if (fld == TOPO_F_IP_PROTO)
			fprintf(f, " ip_proto %s", v == 6 ? "tcp" : v == 17 ? "udp" : v == 1 ? "icmp" :
				"udp");
		else if (numk[fld])
			fprintf(f, " %s %llu", numk[fld], (unsigned long long)v);
	}
}

/* ip_proto must come before ports in flower; emit it first when ports are matched. */
static void put_proto(FILE *f, const struct topo_match *m)
{
	const struct topo_mask *k = &m->mask;

	if ((topo_mask_has(k, TOPO_F_L4_SRC) || topo_mask_has(k, TOPO_F_L4_DST)) &&
	    !topo_mask_has(k, TOPO_F_IP_PROTO))
		fprintf(f, " ip_proto udp");
}

static int put_actions(const struct ctx *c, const struct topo_rule *r)
{
	bool encap = false;

	for (unsigned i = 0; i < r->actions.n; i++) {
		const struct topo_action *a = &r->actions.a[i];
		const char *dev;

		switch (a->kind) {
		case TOPO_ACT_ENCAP:
			encap = true;
			fprintf(c->f, " action tunnel_key set src_ip %s dst_ip %s id %u dst_port 4789",
				c->d->vtep_ip, c->d->peer_vtep_ip, a->arg);
			break;
		case TOPO_ACT_DECAP:
			fprintf(c->f, " action tunnel_key unset");
			break;
		case TOPO_ACT_FWD_VF:
			if (!(dev = port_dev(c, a->arg)))
				return -EINVAL;
			fprintf(c->f, " action mirred egress redirect dev %s", dev);
			break;
		case TOPO_ACT_FWD_UPLINK:
			fprintf(c->f, " action mirred egress redirect dev %s",
				encap ? c->d->vxlan : c->d->uplink);
			break;
		case TOPO_ACT_GOTO:
			fprintf(c->f, " action goto chain %u", a->arg);
			if (a->arg > c->scope->max_chain)
				c->scope->max_chain = a->arg;
			break;
		case TOPO_ACT_DROP:
			fprintf(c->f, " action drop");
			break;
		case TOPO_ACT_COUNT:
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

/* prio of every group: 1 + rank within its table. */
static int group_prios(const struct topo_ruleset *rs, unsigned **out)
{
	size_t n = topo_ruleset_n_groups(rs);
	unsigned *p = calloc(n ? n : 1, sizeof(*p)), rank = 0;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct topo_group *g = topo_ruleset_group(rs, i);

		rank = (i && topo_ruleset_group(rs, i - 1)->table == g->table) ? rank + 1 : 0;
		p[i] = rank + 1;
	}
	*out = p;
	return 0;
}

static unsigned rule_prio(const struct ctx *c, const struct topo_rule *r)
{
	size_t n = topo_ruleset_n_groups(c->rs);
	const struct topo_group *g = r->group < n ? topo_ruleset_group(c->rs, r->group) : NULL;

	if (g && g->table == r->table && g->priority == r->priority &&
	    topo_mask_equal(&g->mask, &r->match.mask))
		return c->prio[r->group];
	for (size_t i = 0; i < n; i++) {
		g = topo_ruleset_group(c->rs, i);
		if (g->table == r->table && g->priority == r->priority &&
		    topo_mask_equal(&g->mask, &r->match.mask))
			return c->prio[i];
	}
	return 1;
}

static const char *protocol(const struct topo_match *m, char *buf, size_t n)
{
	if (topo_mask_has(&m->mask, TOPO_F_ETH_TYPE) && m->value[TOPO_F_ETH_TYPE] != 0x0800) {
		snprintf(buf, n, "0x%04x", (unsigned)m->value[TOPO_F_ETH_TYPE] & 0xffff);
		return buf;
	}
	return "ip";
}

static int render_rule(struct ctx *c, size_t i, struct scn_error *err)
{
	const struct topo_rule *r = topo_ruleset_rule(c->rs, i);
	const char *dev = rule_dev(c, r);
	char proto[16], *match = NULL;
	size_t mlen = 0;
	FILE *m = open_memstream(&match, &mlen);
	int dup;

	if (!m)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "tc: out of memory");
	note_dev(c->scope, dev);
	if (r->table > c->scope->max_chain)
		c->scope->max_chain = r->table;
	fprintf(m, "filter add dev %s ingress protocol %s chain %u prio %u flower%s", dev,
		protocol(&r->match, proto, sizeof(proto)), r->table, rule_prio(c, r),
		c->d->skip_sw ? " skip_sw" : "");
	put_proto(m, &r->match);
	put_keys(m, &r->match);
	if (fclose(m) != 0 || !match) {
		free(match);
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "tc: out of memory");
	}
	if ((dup = seen_add(&c->seen, match)) < 0)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "tc: out of memory");
	if (dup) { /* the same filter on the same device: flower would refuse it */
		c->scope->n_merged++;
		return 0;
	}
	fputs(match, c->f); /* still valid: the set owns it now */
	if (put_actions(c, r) < 0)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "tc: rule %zu has an action tc "
				     "cannot express here (forward across subnets or to an unknown "
				     "port)", i);
	fputc('\n', c->f);
	c->scope->n_rules++;
	return 0;
}

int pt_tc_render(const struct topo_ruleset *rs, const struct pt_tc_devs *d, char **batch,
		 struct pt_tc_scope *scope, struct scn_error *err)
{
	struct ctx c = { .rs = rs, .d = d, .scope = scope };
	char *rules = NULL, *head = NULL;
	size_t rlen = 0, hlen = 0;
	int rc = 0;

	*batch = NULL;
	memset(scope, 0, sizeof(*scope));
	if (!rs || !d || !d->uplink || !d->vxlan || !d->vtep_ip || !d->peer_vtep_ip)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "tc: incomplete arguments");
	if (group_prios(rs, &c.prio) < 0 || !(c.f = open_memstream(&rules, &rlen))) {
		free(c.prio);
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "tc: out of memory");
	}
	for (size_t i = 0; rc == 0 && i < topo_ruleset_n_rules(rs); i++)
		rc = render_rule(&c, i, err);
	fclose(c.f);
	free(c.prio);
	seen_free(&c.seen);
	if (rc == 0 && (c.f = open_memstream(&head, &hlen)) != NULL) {
		for (unsigned i = 0; i < scope->n_devs; i++)
			fprintf(c.f, "qdisc add dev %s ingress\n", scope->devs[i]);
		fputs(rules ? rules : "", c.f);
		for (unsigned i = 0; d->tail_counter && i < scope->n_devs; i++, scope->n_rules++)
			fprintf(c.f, "filter add dev %s ingress protocol all chain 0 prio %u flower%s "
				"action pass\n", scope->devs[i], PT_TC_TAIL_PRIO,
				d->skip_sw ? " skip_sw" : "");
		fclose(c.f);
	} else if (rc == 0)
		rc = scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "tc: out of memory");
	free(rules);
	if (rc < 0) {
		free(head);
		return rc;
	}
	*batch = head;
	return 0;
}

int pt_tc_render_cleanup(const struct pt_tc_scope *scope, char **batch)
{
	size_t len = 0;
	FILE *f = open_memstream(batch, &len);

	if (!f)
		return -ENOMEM;
	for (unsigned i = 0; i < scope->n_devs; i++)
		for (uint32_t ch = 0; ch <= scope->max_chain; ch++)
			fprintf(f, "filter del dev %s ingress chain %u\n", scope->devs[i], ch);
	fclose(f);
	return 0;
}
