/* SPDX-License-Identifier: MIT */
/*
 * hx_replay_end: after the last second of a replay, the per-policy statistics (mean and
 * p99 probes from the histograms, updates per second, front-cache hit rate, CPU per tick)
 * and the layouts the testbed measurement realises (hx_replay.h "hx_layout").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/replay/hx_replay_priv.h"

static void policy_stats(struct hx_replay *r, enum hx_policy p)
{
	struct hx_policy_stats *s = &r->sum.pol[p];
	uint64_t total = 0, acc = 0;
	double sum = 0;

	for (uint32_t i = 0; i < HX_HIST; i++) {
		total += r->hist[p][i];
		sum += (double)r->hist[p][i] * i;
	}
	s->mean_probes = total ? sum / (double)total : 0;
	for (uint32_t i = 0; i < HX_HIST && total; i++) {
		acc += r->hist[p][i];
		if ((double)acc >= 0.99 * (double)total) {
			s->p99_probes = i;
			break;
		}
	}
	s->front_hit_rate = total ? (double)r->front_hits[p] / (double)total : 0;
	s->updates_per_s = r->sum.seconds ? (double)s->updates / r->sum.seconds : 0;
	s->cpu_tick_mean_s = r->ticks ? r->cpu_sum[p] / r->ticks : 0;
	s->cpu_tick_max_s = r->cpu_max[p];
}

/* Flow indices of active flows with window packets, hottest first (ties: older flow). */
static uint32_t *ranked(const struct hx_replay *r, uint32_t *n)
{
	const struct rflow *fl = r->flows;
	uint32_t *idx = malloc((r->n_flows ? r->n_flows : 1) * sizeof(*idx)), k = 0;

	if (!idx)
		return NULL;
	for (uint32_t i = 0; i < r->n_flows; i++)
		if (fl[i].active && fl[i].win_packets)
			idx[k++] = i;
	*n = k;
	return idx;
}

struct pair {
	uint64_t packets;
	uint32_t idx;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->packets != y->packets)
		return x->packets > y->packets ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Cascade order of the optimiser's masks as dense masks. */
static uint32_t opt_order(const struct hx_replay *r, uint32_t *dense)
{
	uint32_t ids[HX_TRACE_MAX_MASKS], n, k = 0;

	n = (uint32_t)opt_table_mask_order(r->table, ids, HX_TRACE_MAX_MASKS);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t m = 0; m < r->n_masks; m++)
			if (r->masks[m].opt_id == ids[i]) {
				dense[k++] = m;
				break;
			}
	return k;
}

/* Policy P's order over the layout's compact masks (COMPACT[dense] or -1). */
static void layout_order(const struct hx_replay *r, enum hx_policy p, const int32_t *compact,
			 uint32_t *out)
{
	uint32_t dense[HX_TRACE_MAX_MASKS], n = 0, k = 0;
	uint8_t seen[HX_TRACE_MAX_MASKS] = { 0 };

	if (p == HX_POL_OVS) {
		memcpy(dense, r->ovs_order, r->n_masks * sizeof(uint32_t));
		n = r->n_masks;
	} else if (p == HX_POL_OPT) {
		n = opt_order(r, dense);
	}
	for (uint32_t i = 0; i < n; i++)
		if (compact[dense[i]] >= 0 && !seen[dense[i]]) {
			seen[dense[i]] = 1;
			out[k++] = (uint32_t)compact[dense[i]];
		}
	for (uint32_t m = 0; m < r->n_masks; m++) /* static, and masks a policy lacks: last */
		if (compact[m] >= 0 && !seen[m])
			out[k++] = (uint32_t)compact[m];
}

static int build_layout(struct hx_replay *r)
{
	uint32_t n = 0, *idx = ranked(r, &n), nm = 0;
	int32_t compact[HX_TRACE_MAX_MASKS];
	struct pair *pr = malloc((n ? n : 1) * sizeof(*pr));
	int rc = 0;

	if (!idx || !pr) {
		free(idx);
		free(pr);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		pr[i] = (struct pair){ r->flows[idx[i]].win_packets, idx[i] };
	qsort(pr, n, sizeof(*pr), cmp_pair);
	for (uint32_t m = 0; m < HX_TRACE_MAX_MASKS; m++)
		compact[m] = -1;
	for (uint32_t i = 0; i < n; i++) /* compact masks keep first-appearance order */
		compact[r->flows[pr[i].idx].mask] = 0;
	for (uint32_t m = 0; m < r->n_masks; m++)
		if (compact[m] == 0)
			compact[m] = (int32_t)nm++;
	r->lay_packets = malloc((n ? n : 1) * sizeof(uint64_t));
	r->lay_mask = malloc((n ? n : 1) * sizeof(uint32_t));
	for (int p = 0; p < HX_POL_COUNT; p++) {
		r->lay_order[p] = malloc((nm ? nm : 1) * sizeof(uint32_t));
		r->lay_front[p] = calloc(n ? n : 1, 1);
		if (!r->lay_order[p] || !r->lay_front[p])
			rc = -ENOMEM;
	}
	if (!r->lay_packets || !r->lay_mask)
		rc = -ENOMEM;
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		uint32_t f = pr[i].idx;

		r->lay_packets[i] = pr[i].packets;
		r->lay_mask[i] = (uint32_t)compact[r->flows[f].mask];
		r->lay_front[HX_POL_EMC][i] = r->emc[hx_replay_emc_slot(r, f)] == f + 1;
		r->lay_front[HX_POL_OPT][i] = opt_table_in_hyper(r->table, f + 1);
	}
	for (int p = 0; p < HX_POL_COUNT && rc == 0; p++)
		layout_order(r, (enum hx_policy)p, compact, r->lay_order[p]);
	free(idx);
	free(pr);
	r->lay = (struct hx_layout){ n, nm, r->lay_packets, r->lay_mask, { 0 }, { 0 } };
	for (int p = 0; p < HX_POL_COUNT; p++) {
		r->lay.order[p] = r->lay_order[p];
		r->lay.front[p] = r->lay_front[p];
	}
	return rc;
}

int hx_replay_finish(struct hx_replay *r, uint32_t last_sec)
{
	struct opt_table_stats st;

	r->sum.seconds = last_sec + 1;
	r->sum.flows_seen = r->n_flows;
	r->sum.masks_seen = r->n_masks;
	for (uint32_t i = 0; i < r->n_flows; i++)
		r->sum.flows_final += r->flows[i].active;
	opt_table_stats(r->table, &st);
	r->sum.opt_bytes = st.bytes;
	r->sum.opt_rules = st.rules;
	r->sum.opt_agent_cpu_s = r->cpu_agent / r->sum.seconds;
	for (int p = 0; p < HX_POL_COUNT; p++)
		policy_stats(r, (enum hx_policy)p);
	return build_layout(r);
}
