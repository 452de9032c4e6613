/* SPDX-License-Identifier: MIT */
/*
 * ag_tick: one tick of one device: read its table, feed the counters, let the optimiser
 * plan, and apply the plan safely: every intermediate state of the batch and the table tc
 * shows afterwards must hand the traffic seen to the same actions as before (ag_check.h);
 * in a dry run the operations are printed instead (see ag_agent.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ag_agent.h"

/* SEEN[i]: rule i+1 had hits in the optimiser's window. */
static bool *seen_rules(const struct ag_mirror *m)
{
	bool *seen = calloc(m->cur.n + 1, sizeof(*seen));

	for (size_t i = 0; seen && i < m->cur.n; i++) {
		uint64_t hits = 0;

		opt_table_window_hits(m->t, (uint32_t)i + 1, &hits);
		seen[i] = hits > 0;
	}
	return seen;
}

/* Every prefix of PLAN's moves (the states tc passes through) forwards as before. */
static int check_prefixes(const struct ag_mirror *m, const struct opt_plan *plan,
			  const bool *seen, struct ag_check *chk)
{
	struct ag_filters mid = { 0 };
	int rc = 0;

	for (size_t i = 0; i < m->cur.n && rc == 0; i++)
		rc = ag_filters_push(&mid, &m->cur.v[i]);
	for (size_t i = 0; rc == 0 && i < opt_plan_count(plan); i++) {
		struct opt_op op;

		opt_plan_op(plan, i, &op);
		for (uint32_t r = 0; r < op.n_rules; r++)
			mid.v[op.rules[r] - 1].pref = op.prio;
		ag_check_tables(&m->cur, &mid, seen, chk);
	}
	ag_filters_free(&mid);
	return rc;
}

/* tc shows what the plan said, and the traffic seen keeps its actions. */
int ag_agent_verify(struct ag_agent *a, struct ag_dev *d, const struct ag_filters *expect,
		    const bool *seen, char *err, size_t errlen)
{
	struct ag_filters now;
	struct ag_check chk = { 0 };
	int rc = ag_agent_read(a, d->m.dev, &now, err, errlen);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < now.n && rc == 0; i++)
		if (now.n != expect->n || now.v[i].pref != expect->v[i].pref ||
		    !ag_filter_same(&now.v[i], &expect->v[i])) {
			snprintf(err, errlen, "%s: after the batch tc shows prio %u handle %u where the "
				 "batch put prio %u", d->m.dev, now.v[i].pref, now.v[i].handle,
				 i < expect->n ? expect->v[i].pref : 0);
			rc = -EPROTO;
		}
	if (rc == 0 && now.n != expect->n) {
		snprintf(err, errlen, "%s: after the batch tc shows %zu filters, the batch %zu",
			 d->m.dev, now.n, expect->n);
		rc = -EPROTO;
	}
	ag_check_tables(&d->m.cur, &now, seen, &chk);
	d->st.checked += chk.packets;
	d->st.changed += chk.changed;
	if (rc == 0 && chk.changed) {
		snprintf(err, errlen, "%s: forwarding check: %zu of %zu packets changed action: %s",
			 d->m.dev, chk.changed, chk.packets, chk.first);
		rc = -EPROTO;
	}
	if (rc == 0)
		fprintf(a->log, "scalacn-agent: %s: forwarding check: %zu packets of the traffic seen, "
			"0 changed action\n", d->m.dev, chk.packets);
	ag_filters_free(&now);
	return rc;
}

static int apply(struct ag_agent *a, struct ag_dev *d, struct opt_plan *plan, const char *text,
		 unsigned lines, char *err, size_t errlen)
{
	struct ag_filters expect = { 0 };
	struct ag_check chk = { 0 };
	bool *seen = seen_rules(&d->m);
	int rc = seen ? check_prefixes(&d->m, plan, seen, &chk) : -ENOMEM;

	if (rc == 0 && chk.changed) { /* never happens with an acyclic plan: refuse, not fatal */
		fprintf(a->log, "scalacn-agent: %s: plan refused: a state on its way would change "
			"actions (%s)\n", d->m.dev, chk.first);
		free(seen);
		return 0;
	}
	if (rc == 0)
		rc = ag_mirror_expect(&d->m, plan, &expect);
	if (rc == 0 && (rc = ag_agent_batch(a, text, err, errlen)) < 0)
		fprintf(a->log, "scalacn-agent: %s: tc batch failed\n", d->m.dev);
	if (rc == 0 && (rc = opt_plan_apply(d->m.t, plan)) < 0)
		snprintf(err, errlen, "%s: the optimiser refused its own plan (%s)", d->m.dev,
			 strerror(-rc));
	if (rc == 0)
		rc = ag_agent_verify(a, d, &expect, seen, err, errlen);
	if (rc == 0) {
		ag_mirror_moved(&d->m, plan);
		d->st.rule_ops += lines;
		d->st.plans++;
	}
	ag_filters_free(&expect);
	free(seen);
	return rc;
}

static int plan_dev(struct ag_agent *a, struct ag_dev *d, struct opt_plan *plan, char *err,
		    size_t errlen)
{
	struct opt_plan_info info;
	char *text = NULL, why[512] = "";
	size_t len = 0;
	unsigned lines = 0;
	FILE *mem = open_memstream(&text, &len);
	int rc = mem ? ag_mirror_batch(&d->m, plan, mem, &lines, why, sizeof(why)) : -ENOMEM;

	if (mem)
		fclose(mem);
	opt_plan_info(plan, &info);
	fprintf(a->log, "scalacn-agent: %s: plan: predicted degradation %.1f%% at %u masks, %zu "
		"ops, %u tc operations, cost %u, deferred %u%s\n", d->m.dev, 100 * info.degradation,
		info.masks, opt_plan_count(plan), lines, info.cost, info.deferred,
		a->dry_run ? " (dry run)" : "");
	if (rc == -ENOTSUP) {
		fprintf(a->log, "scalacn-agent: plan dropped: %s\n", why);
		rc = 0;
	} else if (rc == 0 && a->dry_run) {
		fprintf(a->ops_out, "# %s: %zu ops\n%s", d->m.dev, opt_plan_count(plan), text);
	} else if (rc == 0) {
		rc = apply(a, d, plan, text, lines, err, errlen);
	}
	free(text);
	return rc;
}

static int tick_dev(struct ag_agent *a, struct ag_dev *d, uint64_t now, char *err,
		    size_t errlen)
{
	struct ag_filters fs;
	struct opt_plan *plan = NULL;
	struct opt_plan_info info;
	bool borrowed = false;
	int rc = ag_agent_read(a, d->m.dev, &fs, err, errlen);

	if (rc == 0 && (a->rebuild || !ag_mirror_same(&d->m, &fs))) {
		fprintf(a->log, "scalacn-agent: %s: %s: mirrored again\n", d->m.dev, a->rebuild ?
			"model reloaded" : "the table changed outside the agent");
		d->st.rebuilds++;
		rc = ag_agent_mirror(a, d, &fs, now, err, errlen); /* takes FS over */
		fs = d->m.cur; /* fed from the read just mirrored */
		borrowed = true;
	}
	if (rc == 0) {
		ag_mirror_feed(&d->m, &fs, now);
		d->st.probes_per_packet = d->m.tick_hits ? (double)d->m.tick_weighted /
							   (double)d->m.tick_hits : 0;
		d->st.hyper_hit_rate = d->m.tick_hits ? (double)d->m.tick_hyper /
							(double)d->m.tick_hits : 0;
		rc = opt_table_tick(d->m.t, now, a->model, &plan);
		if (rc < 0)
			snprintf(err, errlen, "%s: optimiser tick: %s", d->m.dev, strerror(-rc));
	}
	if (!borrowed)
		ag_filters_free(&fs);
	if (rc == 0) {
		struct opt_table_stats st;

		opt_plan_info(plan, &info);
		opt_table_stats(d->m.t, &st);
		d->st.degradation = info.degradation;
		if (opt_plan_count(plan) > 0 && d->m.n_prios > st.masks)
			rc = ag_agent_merge(a, d, now, err, errlen); /* first; the next tick plans */
		else if (opt_plan_count(plan) > 0)
			rc = plan_dev(a, d, plan, err, errlen);
	}
	opt_plan_free(plan);
	return rc;
}

int ag_agent_tick(struct ag_agent *a, uint64_t now, char *err, size_t errlen)
{
	int rc = 0;

	for (unsigned i = 0; i < a->n_dev && rc == 0; i++)
		rc = tick_dev(a, &a->dev[i], now, err, errlen);
	a->rebuild = false;
	a->ticks++;
	return rc;
}
