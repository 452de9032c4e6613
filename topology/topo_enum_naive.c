/* SPDX-License-Identifier: MIT */
/*
 * topo_enum_naive: the reference enumerator. It generates every complete model of the space
 * in the canonical order (n_tables ascending; tables compared from table 0; per table: mask
 * subset, tx option, rx option) and keeps those topo_model_check() accepts. Exponential:
 * only for small spaces (tests compare it with topo_enumerate).
 */
#include "topology/topo.h"
#include "topology/topo_enum.h"
#include "topology/topo_internal.h"

#include <string.h>

struct digit {
	uint16_t v;   /* mask subset */
	unsigned a, b; /* tx and rx option index */
};

/* Advance one table's digit; false (and reset) when it wraps around. */
static bool advance(const struct topo_space *s, struct digit *d, unsigned n_opts)
{
	if (++d->b < n_opts)
		return true;
	d->b = 0;
	if (++d->a < n_opts)
		return true;
	d->a = 0;
	d->v = topo__next_subset(s, d->v);
	if (d->v)
		return true;
	d->v = topo__next_subset(s, 0);
	return false;
}

static void apply(struct topo_table_choice *c, const struct digit *d,
		  const struct topo__opt *opts)
{
	c->masks = d->v;
	c->tx_template = opts[d->a].tmpl;
	c->tx_goto = opts[d->a].go;
	c->rx_template = opts[d->b].tmpl;
	c->rx_goto = opts[d->b].go;
}

/* All models with N tables; returns true when the callback asked to stop. */
static bool run(const struct topo_space *s, unsigned n, topo_model_cb cb, void *ctx,
		struct topo_enum_stats *st)
{
	struct topo__opt opts[TOPO__MAX_OPTS];
	unsigned n_opts = topo__options(s, n, opts);
	struct digit d[TOPO_MAX_TABLES];
	struct topo_model m;

	memset(&m, 0, sizeof(m));
	m.n_tables = n;
	for (unsigned t = 0; t < n; t++)
		d[t] = (struct digit){ topo__next_subset(s, 0), 0, 0 };
	for (;;) {
		enum topo_reason r;
		int t;

		for (unsigned u = 0; u < n; u++)
			apply(&m.t[u], &d[u], opts);
		st->visited++;
		r = topo_model_check(s, &m, NULL);
		if (r != TOPO_OK) {
			st->pruned[r] += 1;
			st->prune_events[r]++;
		} else {
			st->valid++;
			if (cb && cb(&m, ctx)) {
				st->stopped = true;
				return true;
			}
		}
		for (t = (int)n - 1; t >= 0; t--)
			if (advance(s, &d[t], n_opts))
				break;
		if (t < 0)
			return false;
	}
}

int topo_enumerate_naive(const struct topo_space *s, topo_model_cb cb, void *ctx,
			 struct topo_enum_stats *stats, struct scn_error *err)
{
	struct topo_enum_stats local_stats;
	int rc = topo_space_validate(s, err);

	if (rc < 0)
		return rc;
	if (!stats)
		stats = &local_stats;
	topo__stats_init(s, stats);
	for (unsigned n = 1; n <= s->max_tables; n++)
		if (run(s, n, cb, ctx, stats))
			break;
	return 0;
}
