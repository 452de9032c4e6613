/* SPDX-License-Identifier: MIT */
/*
 * hx_replay: `scalacn replay` replays a flow trace (hx_trace.h) second by second through
 * the runtime optimiser (libscalacn-opt) and three baselines, and measures each policy's
 * table layout on a testbed.
 *
 * Policies (every one sees the same records in the same order):
 *   static    masks in insertion order (the order masks first appear: default offload);
 *   ovs       masks re-ranked by their hits of the last second, every second (OVS dpcls);
 *   emc       an exact-match cache (direct-mapped, EMC_ENTRIES) in front of the static
 *             cascade; a flow is inserted with probability 1/100 per packet that misses it;
 *   optimiser opt_table with the model file (hyper mask + cascading masks); ticks at 1 s.
 * A flow's rule is added at its first record and removed after IDLE_TIMEOUT_S seconds
 * without a record. Each trace mask index becomes one rule shape; every flow's rule matches
 * a distinct ip_dst/32 (flows never overlap), and its packets are one microflow.
 * Probes per packet: the position (1-based) of the flow's mask in the policy's cascade, +1
 * when a front cache (hyper mask / EMC) is in use and misses; 1 on a front-cache hit. For
 * the optimiser this is read from its layout (opt_table_mask_order, opt_table_in_hyper):
 * flows never overlap, so it equals opt_table_classify (checked with opts.verify).
 * CPU per tick: CPU time of the per-second maintenance (optimiser: tick + plan apply; ovs:
 * the re-ranking). Updates: rule adds and deletes, plus the policy's own rule operations
 * (optimiser: plan cost; ovs: rules of masks that moved; emc: insertions and evictions).
 *
 * At the end of the trace each policy's layout is kept (hx_replay_layout): the flows active
 * in the last LAYOUT_WINDOW_S seconds ranked by their packets there, the cascade order of
 * their masks and which flows a front cache holds. hx_replay_measure (hx_replay_layout.c)
 * realises each layout as rule sets of the generators' two-host testbed and measures it.
 *
 * Ownership: hx_replay_run's result is freed with hx_replay_free (NULL ok).
 */
#ifndef HX_REPLAY_H
#define HX_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/scn_error.h"
#include "harness/replay/hx_replay.h"
#include "optimiser/scalacn-opt.h"
#include "testbeds/tb.h"
#include <stddef.h>
#include <stdio.h>

/* ---- Flow traces ------------------------------------------------------------------------- */
/*
 * hx_trace: flow traces for `scalacn gen-trace` and `scalacn replay`.
 *
 * File format (CSV, UTF-8/ASCII, '\n' or "\r\n" line ends):
 *   - a header line, exactly "time,flow,mask,packets" or "time,flow,packets";
 *   - blank lines and lines starting with '#' are skipped anywhere;
 *   - one record per line: TIME (seconds since the trace start, decimal "12" or "12.375",
 *     at most 1e7, non-decreasing from line to line), FLOW (the flow key: 1..63 characters
 *     of [A-Za-z0-9_.:/-]), MASK (only with the 4-column header: the index of the matching
 *     mask the flow's rule sits in, 0..HX_TRACE_MAX_MASKS-1) and PACKETS (decimal,
 *     0..1e15: packets the flow carried from TIME until the flow's next record or the end
 *     of that second).
 * A flow's mask is the one of its first record (later records may repeat it or give
 * another: the reader keeps the per-record value; replay uses the first). Without the mask
 * column a flow's mask is derived from its key (hx_trace_key_mask).
 *
 * The reader is strict and bounded (it is fuzzed): every error is class config with
 * file:line:column. Records are kept in file order.
 *
 * Generation (hx_trace_generate): FLOWS popularity slots, slot i carrying the share w_i of
 * PPS packets per second (Zipf(S): w_i ~ (i+1)^-S; uniform: 1/FLOWS); each slot holds one
 * flow at a time. Churn: flow replacements arrive as a Poisson process of RATE per second;
 * each picks a slot uniformly, the slot's flow departs and a new flow (new key, new mask
 * drawn uniformly from MASKS) arrives. Per second and flow segment, packets are Poisson
 * around the slot's rate times the segment's length. Initial keys are a seeded permutation
 * of 0..FLOWS-1 (popularity is not readable from the key); new flows get FLOWS, FLOWS+1, ...
 * Deterministic for a seed (gen_rng only).
 *
 * Ownership: struct hx_trace is owned by the caller, freed with hx_trace_free (NULL ok).
 */
#define HX_TRACE_MAX_MASKS 4096u
#define HX_TRACE_MAX_KEY 63u
#define HX_TRACE_MAX_RECORDS (1u << 26)
#define HX_TRACE_MAX_BYTES (1u << 30)

struct hx_trace_rec {
	double time;
	uint64_t flow;    /* the key's 64-bit FNV-1a hash (keys are compared by it) */
	uint32_t mask;
	uint64_t packets;
};

struct hx_trace;

/* Parse LEN bytes of BUF (need not be NUL-terminated). NAME is used in error positions. */
int hx_trace_parse(const char *buf, size_t len, const char *name, struct hx_trace **out,
		   struct scn_error *err);
/* Read and parse the file at PATH (at most HX_TRACE_MAX_BYTES). */
int hx_trace_read(const char *path, struct hx_trace **out, struct scn_error *err);
void hx_trace_free(struct hx_trace *t);

size_t hx_trace_count(const struct hx_trace *t);
const struct hx_trace_rec *hx_trace_at(const struct hx_trace *t, size_t i);
bool hx_trace_has_mask(const struct hx_trace *t);
/* Key hash of a key string (what the reader stores in hx_trace_rec.flow). */
uint64_t hx_trace_key_hash(const char *key, size_t len);
/* Mask of a flow when the trace has no mask column: KEY_HASH mod MASKS (MASKS >= 1). */
uint32_t hx_trace_key_mask(uint64_t key_hash, uint32_t masks);

/* ---- Generation ------------------------------------------------------------------------- */
enum hx_trace_pop { HX_TRACE_UNIFORM = 0, HX_TRACE_ZIPF };

struct hx_trace_gen {
	uint32_t flows;         /* concurrent flows (popularity slots), 1..1M */
	enum hx_trace_pop pop;
	double zipf_s;          /* Zipf parameter (0..5) */
	double duration_s;      /* 1..86400, whole seconds are generated */
	double churn;           /* flow replacements per second (>= 0) */
	uint32_t masks;         /* distinct masks flows are spread over (1..HX_TRACE_MAX_MASKS) */
	double pps;             /* packets per second over all flows (> 0) */
	uint64_t seed;
};
void hx_trace_gen_default(struct hx_trace_gen *g);

/* Write the generated trace as CSV (4-column header) to OUT. Streams: memory is O(flows).
 * *ROWS (may be NULL) = records written. -EINVAL bad options (err set), -EIO write error. */
int hx_trace_generate(const struct hx_trace_gen *g, FILE *out, uint64_t *rows,
		      struct scn_error *err);

/* ---- Replay ----------------------------------------------------------------------------- */
enum hx_policy { HX_POL_STATIC = 0, HX_POL_OVS, HX_POL_EMC, HX_POL_OPT, HX_POL_COUNT };
const char *hx_policy_name(enum hx_policy p); /* "static", "ovs-rank", "emc-1/100", "optimiser" */

struct hx_replay_opts {
	const struct opt_model *model; /* NULL: the optimiser plans on every tick */
	struct opt_config opt;         /* optimiser configuration (opt_config_default) */
	uint32_t masks;                /* masks when the trace has no mask column (64) */
	uint32_t idle_timeout_s;       /* remove a flow's rule after this long idle (10) */
	uint32_t emc_entries;          /* EMC size (8192) */
	double emc_insert_p;           /* EMC insertion probability per missing packet (0.01) */
	uint32_t layout_window_s;      /* seconds at the end that rank flows for layouts (10) */
	uint64_t seed;                 /* EMC insertion draws */
	bool verify;                   /* also classify every record with opt_table_classify
					* and fail (-EPROTO) when its probes differ from the
					* layout's (slow: classify refreshes precedence) */
};
void hx_replay_opts_default(struct hx_replay_opts *o);

struct hx_policy_stats {
	double mean_probes, p99_probes;
	double updates_per_s;
	double front_hit_rate;   /* hyper mask / EMC hits over all packets (0 without) */
	double cpu_tick_mean_s, cpu_tick_max_s;
	uint64_t updates;
};

struct hx_replay_summary {
	uint32_t seconds;        /* seconds replayed */
	uint64_t records, packets;
	uint32_t flows_seen, masks_seen;
	uint32_t flows_final;    /* flows with a rule at the end */
	uint64_t opt_bytes;      /* heap bytes of the optimiser's table at the end */
	double opt_agent_cpu_s;  /* mean CPU per second in all optimiser calls an agent makes
				  * (rule adds/deletes, counters, tick, plan apply) */
	uint32_t opt_rules;
	struct hx_policy_stats pol[HX_POL_COUNT];
};

/* A policy's layout at the end of the trace (indices are layout flow ranks 0..n_flows-1,
 * hottest first, and dense masks 0..n_masks-1 in order of first appearance). */
struct hx_layout {
	uint32_t n_flows, n_masks;
	const uint64_t *packets;         /* per flow: packets in the window */
	const uint32_t *flow_mask;       /* per flow: its dense mask */
	const uint32_t *order[HX_POL_COUNT];  /* per policy: n_masks dense masks, lookup order */
	const uint8_t *front[HX_POL_COUNT];   /* per policy and flow: 1 = in the front cache */
};

struct hx_replay;

int hx_replay_run(const struct hx_trace *tr, const struct hx_replay_opts *o,
		  struct hx_replay **out, struct scn_error *err);
void hx_replay_free(struct hx_replay *r);
const struct hx_replay_summary *hx_replay_summary(const struct hx_replay *r);
const struct hx_layout *hx_replay_layout(const struct hx_replay *r);

/* ---- Testbed measurement (hx_replay_layout.c) ------------------------------------------ */
struct hx_measure_opts {
	enum topo_verb verb;   /* write */
	uint32_t bw_msg_size;  /* bandwidth test message size (65536) */
	uint32_t qps;          /* 4 */
	uint32_t mtu;          /* 1024 (the MTU of the calibrated CX-7 measurements) */
	uint32_t subnets;      /* tenant subnets of the generated testbed (16) */
	uint64_t seed;         /* rule-set and measurement seed (same for every policy) */
};
void hx_measure_opts_default(struct hx_measure_opts *o);
/* The testbed point a layout of N_FLOWS flows over N_MASKS masks is measured at (the file's
 * header: one client encap mask, the masks as the server's decap masks, one encap context
 * per subnet), with the traffic's Zipf exponent S (0: uniform). */
void hx_replay_point(uint32_t n_flows, uint32_t n_masks, const struct hx_measure_opts *o,
		     double s, struct gen_levels *lv);

/* The setting the model file's (RNIC (NULL: any), VERB, METRIC) model was fitted at, from
 * its quality_json "fixed" (NAN: the file does not say). hx_replay_setting.c. */
struct hx_model_setting {
	double mtu, qps, msg_size;
};
void hx_replay_model_setting(const char *model_path, const char *rnic, const char *verb,
			     const char *metric, struct hx_model_setting *out);

struct hx_policy_sample {
	struct tb_sample bw;   /* bandwidth test */
	struct tb_sample lat;  /* latency test */
	uint32_t server_rules, server_groups;
};

struct hx_measure_result {
	char rnic_model[64];
	double zipf_s;         /* popularity fitted to the window's packets (0 = uniform) */
	uint32_t flows, masks;
	struct hx_policy_sample pol[HX_POL_COUNT];
};

/* Popularity of the ranked window packets (descending): the Zipf exponent maximising the
 * likelihood, in [0, 3] (0 when uniform fits as well). */
double hx_replay_fit_zipf(const uint64_t *packets, uint32_t n);

/* Realise each policy's layout on the testbed described by TESTBED (a fresh open per
 * policy) and measure a bandwidth and a latency test. */
int hx_replay_measure(const struct hx_layout *l, const char *testbed,
		      const struct hx_measure_opts *o, struct hx_measure_result *out,
		      struct scn_error *err);

/* The server rule set of policy P's layout built from the generated rules G (exposed for
 * tests: realisation order). Caller frees with topo_ruleset_free. */
int hx_layout_server_rules(const struct hx_layout *l, enum hx_policy p,
			   const struct gen_rules *g, struct topo_ruleset **out,
			   struct scn_error *err);


#endif
