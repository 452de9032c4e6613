/* SPDX-License-Identifier: MIT */
/*
 * hx_replay: the per-second replay loop of `scalacn replay` and its four policies (model and
 * definitions in hx_replay.h). Flows are interned by key in an open-addressing table; each
 * record is charged under every policy's current layout; at the end of each second idle
 * flows are removed and the policies that maintain a layout (ovs ranking, optimiser) run
 * their tick, timed in thread CPU time.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/replay/hx_replay_priv.h"

static const enum opt_field optional[7] = { OPT_F_ETH_TYPE, OPT_F_IP_PROTO, OPT_F_L4_DST,
					    OPT_F_TUN_ID, OPT_F_L4_SRC, OPT_F_ETH_SRC,
					    OPT_F_TUN_DPORT };

const char *hx_policy_name(enum hx_policy p)
{
	static const char *const n[HX_POL_COUNT] = { "static", "ovs-rank", "emc-1/100",
						     "optimiser" };
	return p < HX_POL_COUNT ? n[p] : "?";
}

void hx_replay_opts_default(struct hx_replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	opt_config_default(&o->opt);
	o->masks = 64;
	o->idle_timeout_s = 10;
	o->emc_entries = 8192;
	o->emc_insert_p = 0.01;
	o->layout_window_s = 10;
	o->seed = 1;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Rule (and its one microflow) of flow IDX in dense mask M: in_port, ip_dst/32 (distinct
 * per flow) and the optional fields in the bits of M % 128; M / 128 = k > 0 adds ip_src/k. */
static void make_rule(uint32_t idx, uint32_t m, struct opt_rule *r, struct opt_pkt *pkt)
{
	memset(r, 0, sizeof(*r));
	r->id = idx + 1;
	r->priority = 100;
	r->action = idx;
	r->mask.fields = 1u << OPT_F_IN_PORT | 1u << OPT_F_IP_DST;
	r->mask.plen[OPT_F_IP_DST] = 32;
	for (int b = 0; b < 7; b++)
		if ((m % 128) & (1u << b))
			r->mask.fields |= 1u << optional[b];
	if (m / 128) {
		r->mask.fields |= 1u << OPT_F_IP_SRC;
		r->mask.plen[OPT_F_IP_SRC] = (uint8_t)(m / 128);
	}
	for (int f = 0; f < OPT_F_COUNT; f++) {
		uint64_t v = hx_replay_mix(((uint64_t)idx << 4) + (uint64_t)f + 1);

		pkt->v[f] = opt_field_is_ip((enum opt_field)f) ? v & 0xffffffffu : v & 0xffff;
	}
	pkt->v[OPT_F_IN_PORT] = 1;
	pkt->v[OPT_F_IP_DST] = 0x0a000000u + idx;
	memcpy(r->v, pkt->v, sizeof(r->v));
}

static int grow_hash(struct hx_replay *r)
{
	uint32_t cap = r->hcap ? 2 * r->hcap : 4096;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->n_flows; i++) {
		uint32_t k = (uint32_t)hx_replay_mix(r->flows[i].key) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(r->hslot);
	r->hslot = h;
	r->hcap = cap;
	return 0;
}

/* Index of the flow with KEY, created (inactive) when new. -ENOMEM, -E2BIG. */
static int64_t intern(struct hx_replay *r, uint64_t key, uint32_t trace_mask)
{
	uint32_t k;

	if (2 * (r->n_flows + 1) > r->hcap && grow_hash(r) < 0)
		return -ENOMEM;
	for (k = (uint32_t)hx_replay_mix(key) & (r->hcap - 1); r->hslot[k]; k = (k + 1) & (r->hcap - 1))
		if (r->flows[r->hslot[k] - 1].key == key)
			return r->hslot[k] - 1;
	if (r->n_flows >= HX_MAX_FLOWS)
		return -E2BIG;
	if (r->n_flows == r->cap_flows) {
		uint32_t cap = r->cap_flows ? 2 * r->cap_flows : 4096;
		struct rflow *g = realloc(r->flows, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		r->flows = g;
		r->cap_flows = cap;
	}
	if (r->mask_dense[trace_mask] < 0) {
		r->mask_dense[trace_mask] = (int32_t)r->n_masks;
		r->ovs_order[r->n_masks] = r->n_masks;
		r->masks[r->n_masks].ovs_pos = r->n_masks;
		r->n_masks++;
	}
	r->flows[r->n_flows] = (struct rflow){ key, (uint32_t)r->mask_dense[trace_mask], 0, 0,
					       false, false };
	r->hslot[k] = r->n_flows + 1;
	return r->n_flows++;
}

static void count_updates(struct hx_replay *r, uint64_t n)
{
	for (int p = 0; p < HX_POL_COUNT; p++)
		r->sum.pol[p].updates += n;
}

static int opt_add(struct hx_replay *r, uint32_t idx, uint32_t now)
{
	struct opt_rule rule;
	struct opt_pkt pkt;
	uint32_t mid = 0;
	int rc;

	make_rule(idx, r->flows[idx].mask, &rule, &pkt);
	rc = opt_table_add_rule(r->table, &rule, now);
	if (rc == 0 && opt_table_get_rule(r->table, rule.id, NULL, &mid) == 0 &&
	    r->masks[r->flows[idx].mask].opt_id != mid) {
		r->masks[r->flows[idx].mask].opt_id = mid;
		r->opt_pos_dirty = true;
	}
	return rc;
}

/* Queue flow IDX's counter for the second's poll. */
static int poll_push(struct hx_replay *r, uint32_t idx, const struct opt_pkt *pkt,
		     uint64_t packets)
{
	if (r->n_poll == r->cap_poll) {
		size_t nc = r->cap_poll ? 2 * r->cap_poll : 1024;
		struct opt_count *c = realloc(r->poll, nc * sizeof(*c));
		struct opt_pkt *k;

		if (!c)
			return -ENOMEM;
		r->poll = c;
		k = realloc(r->poll_pkt, nc * sizeof(*k));
		if (!k)
			return -ENOMEM;
		r->poll_pkt = k;
		r->cap_poll = nc;
	}
	r->poll_pkt[r->n_poll] = *pkt;
	r->poll[r->n_poll++] = (struct opt_count){ idx + 1, packets, NULL };
	return 0;
}

/* Feed the second's counters to the optimiser in one call, in the order they were read. */
static int poll_flush(struct hx_replay *r, uint32_t sec)
{
	double c0;
	long refused;

	for (size_t i = 0; i < r->n_poll; i++)
		r->poll[i].pkt = &r->poll_pkt[i];
	c0 = cpu_now();
	refused = opt_table_record_batch(r->table, r->poll, r->n_poll, sec);
	r->cpu_agent += cpu_now() - c0;
	r->n_poll = 0;
	return refused == 0 ? 0 : refused < 0 ? (int)refused : -EPROTO;
}

static int activate(struct hx_replay *r, uint32_t idx, uint32_t now)
{
	double c0 = cpu_now();
	int rc = opt_add(r, idx, now);

	r->cpu_agent += cpu_now() - c0;

	if (rc < 0)
		return rc;
	r->flows[idx].active = true;
	r->flows[idx].opt_gone = false;
	r->masks[r->flows[idx].mask].n_rules++;
	count_updates(r, 1);
	return 0;
}

/* EMC: P packets of flow IDX; returns packets that missed (and probe the cascade). */
static uint64_t emc_charge(struct hx_replay *r, uint32_t idx, uint64_t p)
{
	uint32_t s = hx_replay_emc_slot(r, idx);
	double q = r->o.emc_insert_p, u;
	uint64_t k;

	if (r->emc[s] == idx + 1) {
		r->front_hits[HX_POL_EMC] += p;
		return 0;
	}
	u = gen_rng_uniform(&r->rng);
	k = q >= 1 ? 1 : (q <= 0 ? p + 1 : (uint64_t)ceil(log1p(-u) / log1p(-q)));
	if (k == 0)
		k = 1;
	if (k > p)
		return p;
	r->sum.pol[HX_POL_EMC].updates += r->emc[s] ? 2 : 1; /* evict + insert */
	r->emc[s] = idx + 1;
	r->front_hits[HX_POL_EMC] += p - k;
	return k;
}

struct idpos {
	uint32_t id, pos;
};

static int cmp_idpos(const void *a, const void *b)
{
	const struct idpos *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Re-read the optimiser's cascade order into opt_pos (after its layout changed). */
static void opt_refresh_pos(struct hx_replay *r)
{
	static_assert(HX_TRACE_MAX_MASKS <= 4096, "stack arrays below");
	uint32_t ids[HX_TRACE_MAX_MASKS];
	struct idpos map[HX_TRACE_MAX_MASKS];
	size_t n = opt_table_mask_order(r->table, ids, HX_TRACE_MAX_MASKS);
	struct opt_table_stats st;

	for (size_t i = 0; i < n; i++)
		map[i] = (struct idpos){ ids[i], (uint32_t)i + 1 };
	qsort(map, n, sizeof(*map), cmp_idpos);
	for (uint32_t m = 0; m < r->n_masks; m++) {
		struct idpos key = { r->masks[m].opt_id, 0 };
		const struct idpos *hit = bsearch(&key, map, n, sizeof(*map), cmp_idpos);

		r->opt_pos[m] = hit ? hit->pos : 0;
	}
	opt_table_stats(r->table, &st);
	r->opt_hyper_n = st.hyper_entries;
	r->opt_pos_dirty = false;
}

/* Masks the optimiser's layout probes for flow IDX (flows never overlap). */
static uint32_t opt_probes(struct hx_replay *r, uint32_t idx)
{
	if (r->opt_pos_dirty)
		opt_refresh_pos(r);
	if (opt_table_in_hyper(r->table, idx + 1))
		return 1;
	return (r->opt_hyper_n > 0) + r->opt_pos[r->flows[idx].mask];
}

static void charge(struct hx_replay *r, enum hx_policy p, uint32_t probes, uint64_t packets)
{
	if (probes >= HX_HIST)
		probes = HX_HIST - 1;
	r->hist[p][probes] += packets;
}

static int record(struct hx_replay *r, const struct hx_trace_rec *rec, uint32_t sec, bool win)
{
	uint32_t tmask = r->has_mask ? rec->mask : hx_trace_key_mask(rec->flow, r->o.masks);
	int64_t fi = intern(r, rec->flow, tmask);
	struct opt_rule rule;
	struct opt_pkt pkt;
	uint32_t idx, m, probes = 0, id = 0, vprobes = 0;
	uint64_t miss;
	double c0;
	int rc;

	if (fi < 0)
		return (int)fi;
	idx = (uint32_t)fi;
	if (!r->flows[idx].active && (rc = activate(r, idx, sec)) < 0)
		return rc;
	m = r->flows[idx].mask;
	r->flows[idx].last_seen = sec;
	if (win)
		r->flows[idx].win_packets += rec->packets;
	r->masks[m].hits += rec->packets;
	r->sum.packets += rec->packets;
	charge(r, HX_POL_STATIC, m + 1, rec->packets);
	charge(r, HX_POL_OVS, r->masks[m].ovs_pos + 1, rec->packets);
	miss = emc_charge(r, idx, rec->packets);
	charge(r, HX_POL_EMC, 1, rec->packets - miss);
	charge(r, HX_POL_EMC, m + 2, miss);
	make_rule(idx, m, &rule, &pkt);
	if (r->flows[idx].opt_gone) { /* deleted with an idle mask: back in */
		c0 = cpu_now();
		rc = opt_add(r, idx, sec);
		r->cpu_agent += cpu_now() - c0;
		if (rc < 0)
			return rc;
		r->flows[idx].opt_gone = false;
	}
	rc = poll_push(r, idx, &pkt, rec->packets);
	if (rc < 0)
		return rc;
	probes = opt_probes(r, idx);
	if (probes == 1 && opt_table_in_hyper(r->table, idx + 1))
		r->front_hits[HX_POL_OPT] += rec->packets;
	if (r->o.verify && (opt_table_classify(r->table, &pkt, &id, &vprobes) < 0 ||
			    id != idx + 1 || vprobes != probes))
		return -EPROTO;
	charge(r, HX_POL_OPT, probes, rec->packets);
	return 0;
}

/* Flows idle for idle_timeout_s at the end of second SEC lose their rules. */
static void expire(struct hx_replay *r, uint32_t sec)
{
	for (uint32_t i = 0; i < r->n_flows; i++) {
		struct rflow *f = &r->flows[i];
		double c0;
		uint32_t s;

		if (!f->active || sec - f->last_seen < r->o.idle_timeout_s)
			continue;
		f->active = false;
		r->masks[f->mask].n_rules--;
		c0 = cpu_now();
		(void)opt_table_del_rule(r->table, i + 1);
		r->cpu_agent += cpu_now() - c0;
		r->opt_pos_dirty = true; /* a hyper copy may have gone */
		s = hx_replay_emc_slot(r, i);
		if (r->emc[s] == i + 1) {
			r->emc[s] = 0;
			r->sum.pol[HX_POL_EMC].updates++;
		}
		count_updates(r, 1);
	}
}

static void cpu_add(struct hx_replay *r, enum hx_policy p, double s)
{
	r->cpu_sum[p] += s;
	if (s > r->cpu_max[p])
		r->cpu_max[p] = s;
}

/* OVS: stable re-ranking by this second's hits; rules of moved masks are re-programmed. */
static void ovs_rank(struct hx_replay *r)
{
	double c0 = cpu_now();

	for (uint32_t i = 1; i < r->n_masks; i++) { /* insertion sort: stable, nearly sorted */
		uint32_t m = r->ovs_order[i], j = i;

		while (j > 0 && r->masks[r->ovs_order[j - 1]].hits < r->masks[m].hits) {
			r->ovs_order[j] = r->ovs_order[j - 1];
			j--;
		}
		r->ovs_order[j] = m;
	}
	for (uint32_t i = 0; i < r->n_masks; i++) {
		struct rmask *k = &r->masks[r->ovs_order[i]];

		if (k->ovs_pos != i)
			r->sum.pol[HX_POL_OVS].updates += k->n_rules;
		k->ovs_pos = i;
		k->hits = 0;
	}
	cpu_add(r, HX_POL_OVS, cpu_now() - c0);
}

/* The flows whose rules PLAN deletes with their masks (the agent applies it, so it knows). */
static void note_deleted(struct hx_replay *r, const struct opt_plan *plan)
{
	struct opt_op op;

	for (size_t i = 0; opt_plan_op(plan, i, &op) == 0; i++)
		for (uint32_t j = 0; op.kind == OPT_OP_MASK_DELETE && j < op.n_rules; j++)
			if (op.rules[j] >= 1 && op.rules[j] <= r->n_flows)
				r->flows[op.rules[j] - 1].opt_gone = true;
}

static int opt_tick(struct hx_replay *r, uint32_t sec)
{
	struct opt_plan *plan = NULL;
	struct opt_plan_info info;
	double c0 = cpu_now();
	int rc = opt_table_tick(r->table, sec, r->o.model, &plan);

	if (rc == 0)
		rc = opt_plan_apply(r->table, plan);
	cpu_add(r, HX_POL_OPT, cpu_now() - c0);
	r->cpu_agent += cpu_now() - c0;
	r->opt_pos_dirty = true;
	if (rc == 0) {
		opt_plan_info(plan, &info);
		r->sum.pol[HX_POL_OPT].updates += info.cost;
		note_deleted(r, plan);
	}
	opt_plan_free(plan);
	return rc;
}

static int end_second(struct hx_replay *r, uint32_t sec)
{
	int rc = poll_flush(r, sec);

	if (rc < 0)
		return rc;
	expire(r, sec);
	ovs_rank(r);
	r->ticks++;
	return opt_tick(r, sec);
}

static int setup(struct hx_replay *r, const struct hx_replay_opts *o)
{
	r->o = *o;
	if (r->o.masks < 1 || r->o.masks > HX_TRACE_MAX_MASKS || r->o.emc_entries < 1 ||
	    r->o.idle_timeout_s < 1)
		return -EINVAL;
	for (uint32_t i = 0; i < HX_TRACE_MAX_MASKS; i++)
		r->mask_dense[i] = -1;
	gen_rng_seed(&r->rng, o->seed);
	r->emc = calloc(r->o.emc_entries, sizeof(*r->emc));
	if (!r->emc)
		return -ENOMEM;
	return opt_table_new(&r->o.opt, &r->table);
}

static int replay_records(struct hx_replay *r, const struct hx_trace *tr, uint32_t last)
{
	size_t n = hx_trace_count(tr);
	uint32_t cur = 0, win0 = last + 1 > r->o.layout_window_s ?
					   last + 1 - r->o.layout_window_s : 0;
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct hx_trace_rec *rec = hx_trace_at(tr, i);
		uint32_t sec = (uint32_t)rec->time;

		while (cur < sec && rc == 0)
			rc = end_second(r, cur++);
		if (rc == 0)
			rc = record(r, rec, sec, sec >= win0);
	}
	if (rc == 0 && n)
		rc = end_second(r, cur);
	return rc;
}

int hx_replay_run(const struct hx_trace *tr, const struct hx_replay_opts *o,
		  struct hx_replay **out, struct scn_error *err)
{
	size_t n = hx_trace_count(tr);
	struct hx_replay *r = calloc(1, sizeof(*r));
	uint32_t last = n ? (uint32_t)hx_trace_at(tr, n - 1)->time : 0;
	int rc;

	*out = NULL;
	if (!r)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "replay: out of memory");
	rc = setup(r, o);
	if (rc == -EINVAL)
		scn_error_set(err, SCN_ERR_USAGE, rc, "replay: bad options (masks 1..4096, "
			      "emc entries and idle timeout >= 1) or optimiser configuration");
	if (rc == 0 && n == 0)
		rc = scn_error_set(err, SCN_ERR_CONFIG, -ENODATA, "replay: the trace has no records");
	if (rc == 0) {
		r->has_mask = hx_trace_has_mask(tr);
		rc = replay_records(r, tr, last);
		if (rc == -EPROTO)
			scn_error_set(err, SCN_ERR_INTERNAL, rc, "replay: the optimiser "
				      "misclassified a flow (a bug)");
		else if (rc == -E2BIG)
			scn_error_set(err, SCN_ERR_CONFIG, rc, "replay: more than 16M flows");
		else if (rc == -ENOSPC)
			scn_error_set(err, SCN_ERR_CONFIG, rc, "replay: more masks than the "
				      "optimiser accepts (max_masks)");
	}
	if (rc == 0) {
		r->sum.records = n;
		rc = hx_replay_finish(r, last);
	}
	if (rc < 0) {
		if (err && err->cls == SCN_ERR_NONE)
			scn_error_set(err, SCN_ERR_INTERNAL, rc, "replay failed (%s)",
				      strerror(-rc));
		hx_replay_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void hx_replay_free(struct hx_replay *r)
{
	if (!r)
		return;
	free(r->flows);
	free(r->poll);
	free(r->poll_pkt);
	free(r->hslot);
	free(r->emc);
	opt_table_free(r->table);
	free(r->lay_packets);
	free(r->lay_mask);
	for (int p = 0; p < HX_POL_COUNT; p++) {
		free(r->lay_order[p]);
		free(r->lay_front[p]);
	}
	free(r);
}

const struct hx_replay_summary *hx_replay_summary(const struct hx_replay *r)
{
	return &r->sum;
}

const struct hx_layout *hx_replay_layout(const struct hx_replay *r)
{
	return &r->lay;
}
