/* SPDX-License-Identifier: MIT */
/*
 * ag_mirror: a device's tc table mirrored into an opt_table, and plans turned into tc
 * operations (see ag_mirror.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <scalacn-opt-mirror.h>

#include "agent/ag_mirror.h"

void ag_mirror_free(struct ag_mirror *m)
{
	if (!m)
		return;
	opt_table_free(m->t);
	ag_filters_free(&m->cur);
	free(m->order);
	free(m->last_packets);
	memset(m, 0, sizeof(*m));
}

static int add_rules(struct ag_mirror *m, struct ag_filters *orig, uint64_t now)
{
	if (orig && ag_filters_index(orig) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < m->cur.n; i++) {
		struct ag_filter *f = &m->cur.v[i];
		long o = orig ? ag_filters_find(orig, f) : -1;
		int rc;

		f->rule.id = (uint32_t)i + 1;
		f->rule.priority = o >= 0 ? orig->v[o].pref : f->pref;
		f->rule.action = (uint32_t)i;
		rc = opt_table_add_rule(m->t, &f->rule, now);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One mask per prio; prios sharing a mask (the generators emit such: shapes that differ
 * only in fields tc does not show) are that mask's, placed at the first of them. Then the
 * cascade gets the real prios. */
static int adopt_prios(struct ag_mirror *m, char *err, size_t errlen)
{
	uint16_t *prios = calloc(m->cur.n + 1, sizeof(*prios));
	uint32_t prev_mask = 0, max_mask = 0, mask;
	size_t n = 0;
	int rc = prios ? 0 : -ENOMEM;

	m->n_prios = 0;
	for (size_t i = 0; rc == 0 && i < m->cur.n; i++) {
		const struct ag_filter *f = &m->cur.v[i];
		bool new_prio = !i || f->pref != m->cur.v[i - 1].pref;

		opt_table_get_rule(m->t, f->rule.id, NULL, &mask);
		if (!new_prio && mask != prev_mask) {
			snprintf(err, errlen, "%s ingress prio %u holds filters of two masks (handles "
				 "%u and %u): the agent needs one mask per prio", m->dev, f->pref,
				 m->cur.v[i - 1].handle, f->handle);
			rc = -EINVAL;
		}
		m->n_prios += new_prio;
		if (new_prio && mask > max_mask) {
			prios[n++] = f->pref;
			max_mask = mask;
		}
		prev_mask = mask;
	}
	if (rc == 0 && opt_table_set_prios(m->t, prios, n) < 0) {
		snprintf(err, errlen, "%s ingress: prio 1 is in use (the optimiser keeps it for the "
			 "hyper mask)", m->dev);
		rc = -EINVAL;
	}
	free(prios);
	return rc;
}

static int build_table(struct ag_mirror *m, const struct opt_config *cfg,
		       struct ag_filters *orig, uint64_t now, char *err, size_t errlen)
{
	int rc = opt_table_new(cfg, &m->t);

	if (rc == 0)
		rc = add_rules(m, orig, now);
	if (rc < 0 && !*err)
		snprintf(err, errlen, "%s: mirroring %zu filters: %s", m->dev, m->cur.n,
			 strerror(-rc));
	return rc == 0 ? adopt_prios(m, err, errlen) : rc;
}

int ag_mirror_build(struct ag_mirror *m, const char *dev, const struct opt_config *cfg,
		    struct ag_filters *fs, struct ag_filters *orig, uint64_t now,
		    char *err, size_t errlen)
{
	int rc;

	memset(m, 0, sizeof(*m));
	snprintf(m->dev, sizeof(m->dev), "%s", dev);
	m->cur = *fs;
	memset(fs, 0, sizeof(*fs));
	ag_filters_sort(&m->cur);
	m->last_packets = calloc(m->cur.n + 1, sizeof(*m->last_packets));
	m->order = calloc(m->cur.n + 1, sizeof(*m->order));
	for (size_t i = 0; m->order && i < m->cur.n; i++)
		m->order[i] = i;
	rc = m->last_packets && m->order ? build_table(m, cfg, orig, now, err, errlen) : -ENOMEM;
	if (rc < 0)
		ag_mirror_free(m);
	return rc;
}

bool ag_mirror_same(const struct ag_mirror *m, const struct ag_filters *fs)
{
	if (fs->n != m->cur.n)
		return false;
	for (size_t k = 0; k < fs->n; k++) {
		const struct ag_filter *c = &m->cur.v[m->order[k]];

		if (fs->v[k].pref != c->pref || fs->v[k].handle != c->handle ||
		    !ag_filter_same(&fs->v[k], c))
			return false;
	}
	return true;
}

void ag_mirror_feed(struct ag_mirror *m, const struct ag_filters *fs, uint64_t now)
{
	uint64_t masks_before = 0;

	m->tick_hits = m->tick_weighted = m->tick_hyper = 0;
	for (size_t k = 0; k < fs->n; k++) {
		size_t i = m->order[k];
		uint64_t p = fs->v[k].packets, last = m->last_packets[i];
		uint64_t d = p >= last ? p - last : p; /* a counter that went back was reset */

		if (!k || fs->v[k].pref != fs->v[k - 1].pref)
			masks_before++;
		m->last_packets[i] = p;
		m->cur.v[i].packets = p;
		if (d)
			opt_table_record_hits(m->t, m->cur.v[i].rule.id, d, now);
		m->tick_hits += d;
		m->tick_weighted += d * masks_before;
	}
}

static bool moves(enum opt_op_kind k)
{
	return k == OPT_OP_MASK_MOVE || k == OPT_OP_REPRIORITISE;
}

int ag_mirror_batch(const struct ag_mirror *m, const struct opt_plan *plan, FILE *out,
		    unsigned *lines, char *err, size_t errlen)
{
	uint32_t *idx = NULL;
	int rc = 0;

	*lines = 0;
	for (size_t i = 0; i < opt_plan_count(plan) && rc == 0; i++) {
		struct opt_op op;
		uint32_t *grown;

		opt_plan_op(plan, i, &op);
		if (!moves(op.kind) || op.n_rules == 0) {
			snprintf(err, errlen, "%s: plan op %zu is %s, which the agent does not apply",
				 m->dev, i + 1, opt_op_name(op.kind));
			rc = -ENOTSUP;
			break;
		}
		if (!(grown = realloc(idx, op.n_rules * sizeof(*idx)))) {
			rc = -ENOMEM;
			break;
		}
		idx = grown;
		for (uint32_t r = 0; r < op.n_rules; r++)
			idx[r] = op.rules[r] - 1; /* rule id i+1 is filter i */
		rc = ag_render_move(out, m->dev, m->cur.v, idx, op.n_rules, op.prio, lines);
	}
	free(idx);
	return rc;
}

int ag_mirror_expect(const struct ag_mirror *m, const struct opt_plan *plan,
		     struct ag_filters *after)
{
	memset(after, 0, sizeof(*after));
	for (size_t i = 0; i < m->cur.n; i++)
		if (ag_filters_push(after, &m->cur.v[i]) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < opt_plan_count(plan); i++) {
		struct opt_op op;

		opt_plan_op(plan, i, &op);
		for (uint32_t r = 0; moves(op.kind) && r < op.n_rules; r++) {
			after->v[op.rules[r] - 1].pref = op.prio;
			after->v[op.rules[r] - 1].handle = r + 1; /* as ag_render_move numbers them */
		}
	}
	ag_filters_sort(after);
	return 0;
}

static int by_cur_pref(const void *a, const void *b, void *base)
{
	const struct ag_filters *fs = base;
	const struct ag_filter *x = &fs->v[*(const size_t *)a];
	const struct ag_filter *y = &fs->v[*(const size_t *)b];

	if (x->pref != y->pref)
		return x->pref < y->pref ? -1 : 1;
	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

void ag_mirror_moved(struct ag_mirror *m, const struct opt_plan *plan)
{
	for (size_t i = 0; i < opt_plan_count(plan); i++) {
		struct opt_op op;

		opt_plan_op(plan, i, &op);
		for (uint32_t r = 0; moves(op.kind) && r < op.n_rules; r++) {
			m->cur.v[op.rules[r] - 1].pref = op.prio;
			m->cur.v[op.rules[r] - 1].handle = r + 1;
		}
	}
	qsort_r(m->order, m->cur.n, sizeof(*m->order), by_cur_pref, &m->cur);
}

/* Per mask id: its first prio and the largest handle there. */
struct mask_home {
	uint16_t pref;
	uint32_t handle;
};

static struct mask_home *mask_homes(const struct ag_mirror *m)
{
	struct mask_home *home = calloc(m->cur.n + 2, sizeof(*home));

	for (size_t k = 0; home && k < m->cur.n; k++) {
		const struct ag_filter *f = &m->cur.v[m->order[k]];
		uint32_t mask = 0;

		opt_table_get_rule(m->t, f->rule.id, NULL, &mask);
		if (!home[mask].pref)
			home[mask].pref = f->pref;
		if (home[mask].pref == f->pref && f->handle > home[mask].handle)
			home[mask].handle = f->handle;
	}
	return home;
}

int ag_mirror_merge_batch(const struct ag_mirror *m, FILE *out, unsigned *lines,
			  struct ag_filters *after)
{
	struct mask_home *home = mask_homes(m);
	char line[2 * AG_ARGS_MAX + 128];
	int rc = home ? 0 : -ENOMEM;

	*lines = 0;
	memset(after, 0, sizeof(*after));
	for (size_t k = 0; rc == 0 && k < m->cur.n; k++) { /* make ... */
		struct ag_filter f = m->cur.v[m->order[k]];
		uint32_t mask = 0;

		opt_table_get_rule(m->t, f.rule.id, NULL, &mask);
		if (f.pref != home[mask].pref) {
			f.pref = home[mask].pref;
			f.handle = ++home[mask].handle;
			rc = ag_render_add(&f, m->dev, f.pref, f.handle, line, sizeof(line)) < 0 ||
			     fprintf(out, "%s\n", line) < 0 ? -EIO : 0;
			++*lines;
		}
		if (rc == 0)
			rc = ag_filters_push(after, &f);
	}
	for (size_t k = 0; rc == 0 && k < m->cur.n; k++) { /* ... before break */
		const struct ag_filter *f = &m->cur.v[m->order[k]];
		uint32_t mask = 0;

		opt_table_get_rule(m->t, f->rule.id, NULL, &mask);
		if (f->pref != home[mask].pref && (k == 0 || m->cur.v[m->order[k - 1]].pref != f->pref)) {
			rc = ag_render_del(f->proto, m->dev, f->pref, line, sizeof(line)) < 0 ||
			     fprintf(out, "%s\n", line) < 0 ? -EIO : 0;
			++*lines;
		}
	}
	free(home);
	ag_filters_sort(after);
	return rc;
}
