/* SPDX-License-Identifier: MIT */
/*
 * The cascade order part of a tick: a target order by locality (window hits x specificity)
 * that is a topological order of the precedence graph, with hysteresis against churn; then
 * new tc prios for the cheapest set of masks (the rest keep theirs), spread in the gaps
 * between kept masks, never on a prio in use; moves emitted in target order under the
 * update budget (a prefix when it runs out). When the prio space is nearly exhausted at the
 * tail, every prio is re-spread in one go.
 * Assumes at most cfg.max_masks (<= 4096) masks: O(masks^2) per tick.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "optimiser/opt_priv.h"

struct slotp {
	struct omask *m;
	uint16_t prio;
};

static double locality(const struct opt_table *t, const struct omask *m)
{
	double w = t->cfg.specificity_weight;

	return (double)m->hits * (1.0 - w + w * m->specificity);
}

/* DESIRED = a topological order of the precedence graph over CUR's masks; among the masks
 * free to go next, the incumbent (earliest now) keeps its place unless another beats its
 * locality by the hysteresis factor. A cycle is broken at the incumbent. */
static int desired_order(const struct opt_table *t, const struct slotp *cur, size_t n,
			 struct omask **out)
{
	uint32_t *indeg = calloc(n, sizeof(*indeg));
	bool *done = calloc(n, sizeof(*done));
	double h = 1.0 + t->cfg.reorder_hysteresis;

	if (!indeg || !done) {
		free(indeg);
		free(done);
		return -ENOMEM;
	}
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < n; b++)
			indeg[b] += a != b &&
				opt_prec(t, cur[a].m->slot, cur[b].m->slot);
	for (size_t k = 0; k < n; k++) {
		size_t inc = n, best = n, pick;

		for (size_t i = 0; i < n; i++) {
			if (done[i] || indeg[i])
				continue;
			if (inc == n)
				inc = i;
			if (best == n || locality(t, cur[i].m) > locality(t, cur[best].m))
				best = i;
		}
		if (inc == n) /* cycle: take the earliest remaining mask */
			for (size_t i = 0; i < n && inc == n; i++)
				if (!done[i])
					inc = best = i;
		pick = locality(t, cur[best].m) > h * locality(t, cur[inc].m) ? best : inc;
		done[pick] = true;
		out[k] = cur[pick].m;
		for (size_t b = 0; b < n; b++)
			if (!done[b] && indeg[b] &&
			    opt_prec(t, cur[pick].m->slot, cur[b].m->slot))
				indeg[b]--;
	}
	free(indeg);
	free(done);
	return 0;
}

/* Keep[i] marks the run of WANT whose current prios already increase and that holds the
 * most rules (those masks stay put: the cheapest set of moves). O(n^2), n <= max_masks. */
static int longest_kept(const struct slotp *want, size_t n, bool *keep)
{
	uint64_t *w = malloc(n * sizeof(*w));
	uint32_t *prev = malloc(n * sizeof(*prev));
	size_t best = 0;

	if (!w || !prev) {
		free(w);
		free(prev);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		w[i] = opt_group_cost(want[i].m);
		prev[i] = UINT32_MAX;
		for (size_t j = 0; j < i; j++)
			if (want[j].prio < want[i].prio && w[j] + opt_group_cost(want[i].m) > w[i]) {
				w[i] = w[j] + opt_group_cost(want[i].m);
				prev[i] = (uint32_t)j;
			}
		if (w[i] > w[best])
			best = i;
	}
	memset(keep, 0, n * sizeof(*keep));
	for (uint32_t i = (uint32_t)best; n && i != UINT32_MAX; i = prev[i])
		keep[i] = true;
	free(w);
	free(prev);
	return 0;
}

/* Prios for WANT[i..j) strictly inside (LO, HI), evenly spread, skipping USED; marks what
 * it takes. false (with nothing marked) when the gap is too small. */
static bool assign_run(struct slotp *want, size_t i, size_t j, unsigned lo, unsigned hi,
		       uint8_t *used)
{
	unsigned last = lo;

	for (size_t k = i; k < j; k++) {
		unsigned p = lo + (unsigned)((uint64_t)(hi - lo) * (k - i + 1) / (j - i + 1));

		if (p <= last)
			p = last + 1;
		while (p < hi && used[p])
			p++;
		if (p >= hi) {
			while (k-- > i)
				used[want[k].prio] = 0;
			return false;
		}
		used[p] = 1;
		want[k].prio = (uint16_t)p;
		last = p;
	}
	return true;
}

/* New prios for the masks of WANT not kept: spread inside the gap between their kept
 * neighbours, never on a prio any mask holds now (no two masks share a tc prio at any point
 * of a partial application). A gap too small is widened by un-keeping its neighbours, right
 * then left. A trailing run is spaced by TAIL_GAP (room for appends). false only when
 * the whole prio space cannot hold the masks. */
static bool assign_prios(struct slotp *want, size_t n, bool *keep, uint8_t *used,
			 unsigned tail_gap)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i;
		bool right = true;

		if (keep[i]) {
			i++;
			continue;
		}
		while (j < n && !keep[j])
			j++;
		for (;;) {
			unsigned lo = i ? want[i - 1].prio : OPT_HYPER_PRIO;
			unsigned hi = j < n ? want[j].prio : OPT_PRIO_MAX + 1u;

			if (j == n && lo + tail_gap * (unsigned)(j - i + 1) < hi)
				hi = lo + tail_gap * (unsigned)(j - i + 1);
			if (assign_run(want, i, j, lo, hi, used))
				break;
			if (i == 0 && j == n && hi == OPT_PRIO_MAX + 1u)
				return false;
			if ((right && j < n) || i == 0) {
				keep[j] = false; /* it will move: its prio stays used until then */
				while (j < n && !keep[j])
					j++;
			} else {
				keep[--i] = false;
				while (i > 0 && !keep[i - 1])
					i--;
			}
			right = !right;
		}
		i = j;
	}
	return true;
}

static int emit_moves(struct planner *pl, const struct slotp *cur, const struct slotp *want,
		      size_t n, const bool *keep)
{
	int rc = 0;

	for (size_t p = 0; p < n && rc == 0; p++) {
		enum opt_op_kind k = cur[p].m == want[p].m ? OPT_OP_REPRIORITISE : OPT_OP_MASK_MOVE;

		if (keep[p])
			continue;
		if (pl->compact) { /* rare (after ~1000 tail moves): spent whole, as debt */
			pl->t->tokens -= opt_group_cost(want[p].m);
			pl->p->info.cost += opt_group_cost(want[p].m);
		} else if (!opt_spend(pl, opt_group_cost(want[p].m))) { /* stop: a prefix */
			for (size_t q = p + 1; q < n; q++)
				pl->p->info.deferred += !keep[q];
			break;
		}
		rc = opt_mask_ids(pl, want[p].m);
		if (rc == 0)
			rc = opt_plan_push(pl->p, k, want[p].m, (uint32_t)p, want[p].prio,
					   want[p].m->prio, pl->ids, (uint32_t)pl->n_ids);
	}
	return rc;
}

/* Target order (locality when triggered, else the current one), then new prios for the
 * cheapest set of masks; every prio is re-spread, in one go, when the tail of the prio space
 * is nearly used up. */
int opt_plan_masks(struct planner *pl)
{
	struct opt_table *t = pl->t;
	size_t n = 0, sz = t->n_masks + 1;
	struct slotp *cur = malloc(sz * sizeof(*cur)), *want = malloc(sz * sizeof(*want));
	struct omask **order = malloc(sz * sizeof(*order));
	uint8_t *used = calloc(OPT_PRIO_MAX + 2u, 1);
	bool *keep = malloc(sz * sizeof(*keep));
	unsigned tail_gap = OPT_PRIO_GAP;
	int rc = 0;

	if (!cur || !want || !order || !used || !keep) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < t->n_masks; i++)
		if (!t->order[i]->plan_del)
			cur[n++] = (struct slotp){ t->order[i], t->order[i]->prio };
	for (uint32_t i = 0; i < t->n_masks; i++)
		used[t->order[i]->prio] = 1;
	if (n == 0 || (!pl->p->info.triggered && cur[n - 1].prio <= OPT_PRIO_COMPACT_AT))
		goto out;
	memcpy(want, cur, n * sizeof(*want));
	if (pl->p->info.triggered) {
		rc = desired_order(t, cur, n, order);
		for (size_t i = 0; i < n && rc == 0; i++)
			want[i] = (struct slotp){ order[i], order[i]->prio };
	}
	if (rc == 0)
		rc = longest_kept(want, n, keep);
	if (rc < 0)
		goto out;
	if (cur[n - 1].prio > OPT_PRIO_COMPACT_AT) { /* compact, in one go */
		memset(keep, 0, n * sizeof(*keep));
		pl->compact = true;
		tail_gap = (OPT_PRIO_MAX - OPT_PRIO_FIRST) / (2 * ((unsigned)n + 1)); /* <= half */
		tail_gap = tail_gap < 2 ? 2 : tail_gap > OPT_PRIO_GAP ? OPT_PRIO_GAP : tail_gap;
	}
	if (!assign_prios(want, n, keep, used, tail_gap)) {
		rc = -ENOSPC; /* cannot happen: n <= 4096 leaves > 57000 free prios */
		goto out;
	}
	rc = emit_moves(pl, cur, want, n, keep);
out:
	free(cur);
	free(want);
	free(order);
	free(used);
	free(keep);
	return rc;
}

