/* SPDX-License-Identifier: MIT */
/*
 * topo_enum: the pruning enumerator of architecture models. For n_tables = 1..max_tables it
 * builds models table by table (table 0 first); for table t it tries every choice in the
 * canonical order (mask subset, then tx option, then rx option; see topo__options) and
 * applies the per-table step of topo_model_check at once. A violation cuts the whole subtree:
 * the complete models below it (choices^(n_tables-1-t)) are added to pruned[reason]. Complete
 * models then go through the final step (unreachable_table, packet walk).
 *
 * Mask subsets play no part in validity, so each (tx, rx) pair of a table is judged once per
 * prefix: a cut pair is counted for every mask subset at once, and only the surviving pairs
 * are expanded under each subset, in the canonical order. The time is then about the valid
 * models plus (prefixes x pairs), not the brute-force size. stats.visited counts the pairs
 * judged plus the complete models streamed; prune_events counts cut partial models (one per
 * mask subset).
 *
 * Memory: one model, small fixed tables, and the surviving pairs per depth (max_tables x
 * options^2 x 2 bytes, at most 266 KB), whatever the number of models.
 * The local (template-pair) reasons are precomputed with the same function topo_model_check
 * uses, so the two always agree.
 */
#include "topology/topo.h"
#include "topology/topo_enum.h"
#include "topology/topo_internal.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One enumeration. Invariants: while dfs(t) runs, m.t[0..t-1] hold the current prefix and
 * no per-table step failed for them; m.t[n..] stay zero; below[t] = choices^(n-1-t). */
struct penum {
	const struct topo_space *s;
	topo_model_cb cb;
	void *ctx;
	struct topo_enum_stats *st;
	struct topo_model m;
	unsigned n;                /* tables of the models being built */
	struct topo__opt opts[TOPO__MAX_OPTS];
	unsigned n_opts;
	unsigned n_sub;            /* mask subsets per table */
	/* local reason of (tx, rx) templates; index n_templates stands for TOPO_NONE */
	uint8_t local[TOPO_MAX_TEMPLATES + 1][TOPO_MAX_TEMPLATES + 1];
	double below[TOPO_MAX_TABLES]; /* complete models under a cut at table t */
	/* surviving (tx, rx) option pairs per depth: surv[t * n_opts^2 + i] = a * n_opts + b */
	uint16_t *surv;
	bool stop;
};

static unsigned tix(const struct penum *e, uint8_t tmpl)
{
	return tmpl == TOPO_NONE ? e->s->n_templates : tmpl;
}

static void set_pair(struct penum *e, struct topo_table_choice *c, unsigned a, unsigned b)
{
	c->tx_template = e->opts[a].tmpl;
	c->tx_goto = e->opts[a].go;
	c->rx_template = e->opts[b].tmpl;
	c->rx_goto = e->opts[b].go;
}

/* Reason of the choice now in table t (masks play no part in validity), including the
 * final step when t is the last table. */
static enum topo_reason judge(struct penum *e, unsigned t)
{
	const struct topo_table_choice *c = &e->m.t[t];
	enum topo_reason r = (enum topo_reason)e->local[tix(e, c->tx_template)]
						      [tix(e, c->rx_template)];

	if (r == TOPO_OK && topo__loop_closes(e->s, &e->m, t))
		r = TOPO_R_LOOP;
	if (r == TOPO_OK && t + 1 == e->n)
		r = topo__final_reason(e->s, &e->m, NULL);
	return r;
}

static void dfs(struct penum *e, unsigned t)
{
	struct topo_table_choice *c = &e->m.t[t];
	uint16_t *surv = e->surv + (size_t)t * e->n_opts * e->n_opts;
	unsigned n_surv = 0;

	/* 1: judge every (tx, rx) pair once; a cut pair cuts it under every mask subset */
	c->masks = topo__next_subset(e->s, 0);
	for (unsigned a = 0; a < e->n_opts; a++) {
		for (unsigned b = 0; b < e->n_opts; b++) {
			enum topo_reason r;

			set_pair(e, c, a, b);
			e->st->visited++;
			r = judge(e, t);
			if (r == TOPO_OK) {
				surv[n_surv++] = (uint16_t)(a * e->n_opts + b);
				continue;
			}
			e->st->pruned[r] += e->below[t] * e->n_sub;
			e->st->prune_events[r] += e->n_sub;
		}
	}
	assert(n_surv <= e->n_opts * e->n_opts);
	/* 2: the survivors in canonical order: mask subset, then pair */
	for (uint16_t v = c->masks; v && !e->stop; v = topo__next_subset(e->s, v)) {
		for (unsigned i = 0; i < n_surv && !e->stop; i++) {
			c->masks = v;
			set_pair(e, c, surv[i] / e->n_opts, surv[i] % e->n_opts);
			if (t + 1 < e->n) {
				dfs(e, t + 1);
				continue;
			}
			e->st->visited++;
			e->st->valid++;
			if (e->cb && e->cb(&e->m, e->ctx))
				e->stop = e->st->stopped = true;
		}
	}
}

static void setup(struct penum *e, unsigned n)
{
	const struct topo_space *s = e->s;
	double c = topo__choices(s, n);

	e->n = n;
	memset(&e->m, 0, sizeof(e->m));
	e->m.n_tables = n;
	e->n_opts = topo__options(s, n, e->opts);
	e->n_sub = 0;
	for (uint16_t v = topo__next_subset(s, 0); v; v = topo__next_subset(s, v))
		e->n_sub++;
	for (unsigned a = 0; a <= s->n_templates; a++) {
		for (unsigned b = 0; b <= s->n_templates; b++) {
			enum topo__class cls;
			unsigned ta = a == s->n_templates ? TOPO_NONE : a;
			unsigned tb = b == s->n_templates ? TOPO_NONE : b;

			e->local[a][b] = (uint8_t)topo__pair_reason(s, ta, tb, &cls);
		}
	}
	assert(n >= 1 && n <= TOPO_MAX_TABLES && e->n_opts <= TOPO__MAX_OPTS);
	e->below[n - 1] = 1;
	for (unsigned t = n - 1; t > 0; t--)
		e->below[t - 1] = e->below[t] * c;
}

int topo_enumerate(const struct topo_space *s, topo_model_cb cb, void *ctx,
		   struct topo_enum_stats *stats, struct scn_error *err)
{
	struct topo_enum_stats local_stats;
	struct penum e;
	unsigned n_opts;
	int rc = topo_space_validate(s, err);

	if (rc < 0)
		return rc;
	if (!stats)
		stats = &local_stats;
	topo__stats_init(s, stats);
	memset(&e, 0, sizeof(e));
	e.s = s;
	e.cb = cb;
	e.ctx = ctx;
	e.st = stats;
	n_opts = topo__options(s, s->max_tables, e.opts);
	e.surv = malloc((size_t)s->max_tables * n_opts * n_opts * sizeof(*e.surv));
	if (!e.surv)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	for (unsigned n = 1; n <= s->max_tables && !e.stop; n++) {
		setup(&e, n);
		dfs(&e, 0);
	}
	free(e.surv);
	return 0;
}
