/* SPDX-License-Identifier: MIT */
/*
 * Plans: the op list the tick builds, applying it to the table's layout, and rendering it
 * as JSON or as `tc -batch` lines (mapping documented in scalacn-opt.h).
 * Assumes a plan is applied to the table it was made from, unchanged since (generation).
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "optimiser/opt_priv.h"

static const char *const op_names[] = { "hyper_add", "hyper_evict", "mask_move",
					"reprioritise", "mask_delete" };

const char *opt_op_name(enum opt_op_kind k)
{
	return (unsigned)k < sizeof(op_names) / sizeof(op_names[0]) ? op_names[k] : "?";
}

int opt_plan_push(struct opt_plan *p, enum opt_op_kind k, const struct omask *m,
		  uint32_t position, uint16_t prio, uint16_t old_prio, const uint32_t *rules,
		  uint32_t n_rules)
{
	if (p->n_ops == p->cap_ops) {
		size_t nc = p->cap_ops ? p->cap_ops * 2 : 16;
		struct opt_op *no = realloc(p->ops, nc * sizeof(*no));
		size_t *nf;

		if (!no)
			return -ENOMEM;
		p->ops = no;
		nf = realloc(p->rule_off, nc * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		p->rule_off = nf;
		p->cap_ops = nc;
	}
	if (p->n_rules + n_rules > p->cap_rules) {
		size_t nc = p->cap_rules ? p->cap_rules : 64;
		uint32_t *nr;

		while (nc < p->n_rules + n_rules)
			nc *= 2;
		nr = realloc(p->rules, nc * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		p->rules = nr;
		p->cap_rules = nc;
	}
	if (n_rules)
		memcpy(p->rules + p->n_rules, rules, n_rules * sizeof(*rules));
	p->rule_off[p->n_ops] = p->n_rules;
	p->ops[p->n_ops] = (struct opt_op){ .kind = k, .mask_id = m ? m->id : 0,
					    .position = position, .prio = prio,
					    .old_prio = old_prio, .n_rules = n_rules };
	p->n_rules += n_rules;
	p->n_ops++;
	return 0;
}

void opt_plan_free(struct opt_plan *p)
{
	if (!p)
		return;
	free(p->ops);
	free(p->rule_off);
	free(p->rules);
	free(p);
}

size_t opt_plan_count(const struct opt_plan *p)
{
	return p ? p->n_ops : 0;
}

int opt_plan_op(const struct opt_plan *p, size_t i, struct opt_op *out)
{
	if (!p || i >= p->n_ops || !out)
		return -ERANGE;
	*out = p->ops[i];
	out->rules = p->ops[i].n_rules ? p->rules + p->rule_off[i] : NULL;
	return 0;
}

void opt_plan_info(const struct opt_plan *p, struct opt_plan_info *out)
{
	if (p)
		*out = p->info;
	else
		memset(out, 0, sizeof(*out));
}

/* ---- Apply ----------------------------------------------------------------------------- */

static int by_prio(const void *a, const void *b)
{
	const struct omask *x = *(struct omask *const *)a, *y = *(struct omask *const *)b;

	return x->prio < y->prio ? -1 : x->prio > y->prio;
}

static int apply_op(struct opt_table *t, const struct opt_op *op)
{
	struct omask *m = op->mask_id ? opt_find_mask(t, op->mask_id) : NULL;
	struct orule *r = op->n_rules ? opt_find_rule(t, op->rules[0]) : NULL;

	switch (op->kind) {
	case OPT_OP_HYPER_EVICT:
		if (!r)
			return -ESTALE;
		opt_hyper_remove(t, r);
		return 0;
	case OPT_OP_HYPER_ADD:
		if (!r || !r->flow_single)
			return -ESTALE;
		return opt_hyper_insert(t, r);
	case OPT_OP_MASK_DELETE:
		if (!m)
			return -ESTALE;
		while (m->n_rules)
			opt_remove_rule(t, m->rules[m->n_rules - 1]);
		opt_remove_mask(t, m);
		return 0;
	case OPT_OP_MASK_MOVE:
	case OPT_OP_REPRIORITISE:
		if (!m)
			return -ESTALE;
		m->prio = op->prio;
		return 0;
	}
	return -EINVAL;
}

int opt_plan_apply(struct opt_table *t, const struct opt_plan *p)
{
	struct opt_op op;
	int rc = 0;

	if (!t || !p)
		return -EINVAL;
	if (p->generation != t->generation)
		return -ESTALE;
	if (p->n_ops == 0)
		return 0;
	for (size_t i = 0; i < p->n_ops && rc == 0; i++) {
		opt_plan_op(p, i, &op);
		rc = apply_op(t, &op);
	}
	qsort(t->order, t->n_masks, sizeof(*t->order), by_prio); /* the layout is prio order */
	for (uint32_t i = 0; i < t->n_masks; i++) {
		t->order[i]->pos = i;
		assert(i == 0 || t->order[i - 1]->prio < t->order[i]->prio);
	}
	opt_update_flags(t);
	t->generation++;
	return rc;
}

/* ---- Render ---------------------------------------------------------------------------- */

int opt_plan_render_json(const struct opt_plan *p, FILE *out)
{
	struct opt_op op;

	if (!p || !out)
		return -EINVAL;
	fprintf(out, "{\"triggered\":%s,\"degradation\":%.6g,\"masks\":%" PRIu32
		",\"cost\":%" PRIu32 ",\"deferred\":%" PRIu32 ",\"ops\":[",
		p->info.triggered ? "true" : "false", p->info.degradation, p->info.masks,
		p->info.cost, p->info.deferred);
	for (size_t i = 0; i < p->n_ops; i++) {
		opt_plan_op(p, i, &op);
		fprintf(out, "%s{\"op\":\"%s\",\"mask\":%" PRIu32 ",\"position\":%" PRIu32
			",\"prio\":%u,\"old_prio\":%u,\"rules\":[", i ? "," : "",
			opt_op_name(op.kind), op.mask_id, op.position, op.prio, op.old_prio);
		for (uint32_t j = 0; j < op.n_rules; j++)
			fprintf(out, "%s%" PRIu32, j ? "," : "", op.rules[j]);
		fputs("]}", out);
	}
	fputs("]}\n", out);
	return ferror(out) ? -EIO : 0;
}

static void put_ip(FILE *out, const char *key, uint64_t v, unsigned plen)
{
	fprintf(out, " %s %u.%u.%u.%u/%u", key, (unsigned)(v >> 24) & 255,
		(unsigned)(v >> 16) & 255, (unsigned)(v >> 8) & 255, (unsigned)v & 255, plen);
}

static void put_mac(FILE *out, const char *key, uint64_t v)
{
	fprintf(out, " %s %02x:%02x:%02x:%02x:%02x:%02x", key, (unsigned)(v >> 40) & 255,
		(unsigned)(v >> 32) & 255, (unsigned)(v >> 24) & 255, (unsigned)(v >> 16) & 255,
		(unsigned)(v >> 8) & 255, (unsigned)v & 255);
}

static const char *const tc_keys[OPT_F_COUNT] = {
	NULL, "src_mac", "dst_mac", NULL, "src_ip", "dst_ip", "ip_proto", "src_port",
	"dst_port", "enc_key_id", "enc_src_ip", "enc_dst_ip", "enc_dst_port" };

static void put_head(FILE *out, const char *verb, const char *dev, const struct opt_rule *r,
		     unsigned prio)
{
	const struct opt_mask *m = &r->mask;
	bool ip = false;

	for (int f = 0; f < OPT_F_COUNT; f++)
		ip = ip || ((m->fields & (1u << f)) && f >= OPT_F_IP_SRC && f <= OPT_F_L4_DST);
	fprintf(out, "filter %s dev %s ingress protocol ", verb, dev);
	if (m->fields & (1u << OPT_F_ETH_TYPE))
		fprintf(out, "0x%04" PRIx64, r->v[OPT_F_ETH_TYPE] & 0xffff);
	else
		fputs(ip ? "ip" : "all", out);
	fprintf(out, " prio %u chain 0 handle %" PRIu32 " flower", prio, r->id);
}

static void put_rule(FILE *out, const char *dev, const struct opt_rule *r, unsigned prio)
{
	put_head(out, "add", dev, r, prio);
	for (int f = 0; f < OPT_F_COUNT; f++) {
		if (!(r->mask.fields & (1u << f)) || !tc_keys[f])
			continue;
		if (opt_field_is_ip((enum opt_field)f))
			put_ip(out, tc_keys[f], r->v[f], r->mask.plen[f]);
		else if (f == OPT_F_ETH_SRC || f == OPT_F_ETH_DST)
			put_mac(out, tc_keys[f], r->v[f]);
		else
			fprintf(out, " %s %" PRIu64, tc_keys[f], r->v[f]);
	}
	fprintf(out, " action gact pass cookie %08" PRIx32 "\n", r->action);
}

static void put_del(FILE *out, const char *dev, const struct opt_rule *r, unsigned prio)
{
	put_head(out, "del", dev, r, prio);
	fputc('\n', out);
}

static int render_op(const struct opt_table *t, const struct opt_op *op, const char *dev,
		     FILE *out)
{
	struct opt_rule r;
	struct opt_pkt flow;

	for (uint32_t j = 0; j < op->n_rules; j++) {
		if (opt_table_get_rule(t, op->rules[j], &r, NULL) < 0)
			return -ESTALE;
		switch (op->kind) {
		case OPT_OP_HYPER_ADD: /* the exact copy: the microflow's header, all fields */
			if (opt_table_get_flow(t, r.id, &flow) < 0)
				return -ESTALE;
			opt_mask_full(&r.mask);
			memcpy(r.v, flow.v, sizeof(r.v));
			put_rule(out, dev, &r, OPT_HYPER_PRIO);
			break;
		case OPT_OP_HYPER_EVICT: put_del(out, dev, &r, OPT_HYPER_PRIO); break;
		case OPT_OP_MASK_DELETE: put_del(out, dev, &r, op->old_prio); break;
		case OPT_OP_MASK_MOVE:
		case OPT_OP_REPRIORITISE: put_rule(out, dev, &r, op->prio); break;
		}
	}
	if (op->kind != OPT_OP_MASK_MOVE && op->kind != OPT_OP_REPRIORITISE)
		return 0;
	for (uint32_t j = 0; j < op->n_rules; j++) {
		opt_table_get_rule(t, op->rules[j], &r, NULL);
		put_del(out, dev, &r, op->old_prio);
	}
	return 0;
}

int opt_plan_render_tc(const struct opt_plan *p, const struct opt_table *t, const char *dev,
		       FILE *out)
{
	struct opt_op op;
	int rc;

	if (!p || !t || !dev || !out || strpbrk(dev, " \t\n\"'\\#") || !*dev)
		return -EINVAL;
	if (p->generation != t->generation)
		return -ESTALE;
	for (size_t i = 0; i < p->n_ops; i++) {
		opt_plan_op(p, i, &op);
		rc = render_op(t, &op, dev, out);
		if (rc < 0)
			return rc;
	}
	return ferror(out) ? -EIO : 0;
}
