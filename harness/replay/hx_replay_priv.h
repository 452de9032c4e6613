/* SPDX-License-Identifier: MIT */
/*
 * hx_replay_priv: the replay's state, shared by hx_replay.c (the per-second loop and the
 * policies) and hx_replay_end.c (statistics and the end-of-trace layouts). Private to harness/.
 */
#ifndef HX_REPLAY_PRIV_H
#define HX_REPLAY_PRIV_H

#include "harness/replay/hx_replay.h"

#define HX_HIST (HX_TRACE_MAX_MASKS + 3u)
#define HX_MAX_FLOWS (1u << 24) /* flows get ip_dst 10.0.0.0 + index */

/* One flow of the trace. Invariant: active == it has a rule in every policy (the optimiser
 * may have deleted it with an idle mask: then it is re-added on its next record). */
struct rflow {
	uint64_t key;
	uint32_t mask;      /* dense mask */
	uint32_t last_seen; /* second of its latest record */
	uint64_t win_packets;
	bool active;
	bool opt_gone;      /* its rule went with a mask the optimiser deleted: add it again */
};

/* One dense mask (trace masks in order of first appearance). */
struct rmask {
	uint32_t n_rules;   /* active rules */
	uint64_t hits;      /* packets in the current second (ovs ranking) */
	uint32_t ovs_pos;   /* position in ovs_order */
	uint32_t opt_id;    /* the optimiser's mask id (0 until its first rule is added) */
};

struct hx_replay {
	struct hx_replay_opts o;
	bool has_mask;      /* the trace gives masks (else they come from the keys) */
	struct rflow *flows;
	uint32_t n_flows, cap_flows;
	uint32_t *hslot;    /* open addressing: flow index + 1, 0 = empty */
	uint32_t hcap;
	int32_t mask_dense[HX_TRACE_MAX_MASKS]; /* trace mask -> dense, -1 unknown */
	struct rmask masks[HX_TRACE_MAX_MASKS];
	uint32_t n_masks;
	uint32_t ovs_order[HX_TRACE_MAX_MASKS];
	uint32_t *emc;      /* emc_entries slots: flow index + 1, 0 = empty */
	struct opt_table *table;
	uint32_t opt_pos[HX_TRACE_MAX_MASKS]; /* dense mask -> 1-based cascade position */
	bool opt_pos_dirty;
	uint32_t opt_hyper_n;                 /* hyper entries (the front probe is paid) */
	double cpu_agent;                     /* CPU in every optimiser call an agent makes */
	/* The second's counters, fed as one poll before its tick (opt_table_record_batch: one
	 * clock read per poll, as an agent polling tc -s pays, not one per record). */
	struct opt_count *poll;
	struct opt_pkt *poll_pkt;
	size_t n_poll, cap_poll;
	struct gen_rng rng;
	uint64_t hist[HX_POL_COUNT][HX_HIST];
	uint64_t front_hits[HX_POL_COUNT];
	double cpu_sum[HX_POL_COUNT], cpu_max[HX_POL_COUNT];
	uint32_t ticks;
	struct hx_replay_summary sum;
	/* layout (filled at the end) */
	struct hx_layout lay;
	uint64_t *lay_packets;
	uint32_t *lay_mask, *lay_order[HX_POL_COUNT];
	uint8_t *lay_front[HX_POL_COUNT];
};

/* splitmix64's finaliser: the replay's one hash (flow keys, EMC slots). */
static inline uint64_t hx_replay_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The EMC slot of flow IDX (here, not in hx_replay.c, so that hx_replay_end.c needs nothing
 * of the file that calls it). */
static inline uint32_t hx_replay_emc_slot(const struct hx_replay *r, uint32_t idx)
{
	return (uint32_t)(hx_replay_mix(r->flows[idx].key ^ 0xe3c) % r->o.emc_entries);
}
/* hx_replay_end.c */
int hx_replay_finish(struct hx_replay *r, uint32_t last_sec);

#endif
