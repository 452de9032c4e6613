/* SPDX-License-Identifier: MIT */
/*
 * sim_internal: private structures of the simulated testbed (testbeds/sim only).
 *
 * The simulator is split in stages that mirror a real trial:
 *   sim_profile.c  reads a profile YAML (every mechanism: parameters + on/off switch);
 *   sim_scan.c     O(rules) analysis of one host's rule set (per-flow probes from the group
 *                  position of each flow's rule, rule hashes);
 *   sim_memo.c     analyses of rule sets seen before, kept by content id;
 *   sim_rules.c    apply(): rule diff against the previous apply, capacity and
 *                  software-fallback state with hysteresis; per-traffic aggregates;
 *   sim_model.c    measure(): the noiseless performance of one traffic spec (O(1) once the
 *                  per-flow aggregates of a traffic popularity are cached, O(flows) otherwise);
 *   sim_sample.c   seeded noise, counters and the tb_sample the harness sees;
 *   sim.c          the tb_ops table, open/describe/close.
 * Nothing here is visible to the harness: struct tb_sim is opaque outside testbeds/sim.
 */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/scn_error.h"
#include "generators/gen.h"
#include "testbeds/tb.h"

/* ---- Profile ----------------------------------------------------------------------------- */

/* Invariants (checked by sim_profile_load): every number >= 0; link.mtu <= link.max_mtu and
 * both are powers of two in [256, 4096]; steering_cache.recover_below <= hard_capacity;
 * noise.cv < 1; noise.outlier_p <= 1; noise.outlier_factor >= 1; line_rate_gbps > 0. A
 * mechanism with on == false has no effect whatever its other values (they may be 0). */
struct sim_profile {
	char model[64];
	char firmware[64];
	double line_rate_gbps;
	struct {
		double mtu, max_mtu, wire_overhead_bytes, per_packet_ns, per_message_ns;
		double ack_every_packets, base_latency_us, lat_per_kib_us, read_extra_us;
		double p99_ratio, rx_overflow_drop, cnp_interval_us;
		double software_gbps, software_latency_us; /* the vswitch slow path */
	} link;
	struct {
		double setup_s, settle_s;
	} timing;
	struct {
		bool on;
		bool shared_tree; /* one walk for both directions (else per-direction trees) */
		double tx_probe_ns, rx_probe_ns, encap_probe_latency_us, decap_probe_latency_us;
	} steer;
	struct {
		bool on;
		double resident_masks, resident_rules, miss_probe_ns, miss_probe_latency_us;
		double hard_capacity, recover_below;
	} cache;
	struct {
		bool on;
		double max_rules, max_masks;
	} capacity;
	struct {
		bool on;
		double capacity, deadline_s;
	} encap;
	struct {
		bool on;
		double rules_per_s, apply_overhead_s, churn_cost;
	} prog;
	struct {
		bool on;
		double cache_kib, qpc_bytes, mtt_bytes, base_miss, miss_ns;
	} qpc;
	struct {
		bool on;
		double pages, doorbell_ns, contention;
	} uar;
	struct {
		bool on;
		double gain, queue_us_idle, queue_us_loaded;
	} tclass;
	struct {
		bool on;
		double cv, outlier_p, outlier_factor;
	} noise;
};

/* Load and validate a profile. Errors are class config with file:line:column and key path. */
int sim_profile_load(const char *path, struct sim_profile *p, uint64_t *text_hash,
		     struct scn_error *err);

/* ---- Prepared rule sets (apply) ---------------------------------------------------------- */

/* Per-flow flags of one host and direction. */
enum {
	SIM_F_RULE = 1u,   /* the flow has a rule of this direction on this host */
	SIM_F_MISS = 2u,   /* the host has rules of this direction but none for the flow */
	SIM_F_SW = 4u,     /* the flow's rule is not in hardware (software fallback) */
};

/* One host's rule set as the simulated NIC holds it.
 * Invariants: probes[d] and flags[d] have n_flows entries (NULL when n_flows == 0);
 * hashes has n_rules entries (never 0); in_hw + not_in_hw == n_rules when the
 * set was accepted; fallback implies steering_cache.on. */
struct sim_host {
	uint32_t n_rules, n_groups, n_masks;
	bool has_dir[GEN_DIRS];
	uint32_t walk0[GEN_DIRS]; /* groups a missing flow's packet walks in table 0 */
	uint32_t *probes[GEN_DIRS];
	uint8_t *flags[GEN_DIRS];
	uint64_t *hashes;
	struct sim_arrays *arr; /* the block probes, flags and hashes live in (one reference) */
	bool fallback;
	uint32_t in_hw, not_in_hw;
};

/* A host analysis's arrays (probes and flags for N flows, hashes for its rules) live in one
 * reference-counted block, never written once the scan has filled it: the installed host and
 * the memo's entry (sim_memo.c) share it, so a rule set that comes back is installed by
 * reference instead of copied. */
struct sim_arrays;
/* H's arrays in a fresh zeroed block for N flows and N_RULES rules; -ENOMEM. */
int sim_host_arrays_new(struct sim_host *h, uint32_t n, size_t n_rules);
/* TO's arrays (and the walk figures of the analysis: has_dir, walk0) become FROM's, shared. */
void sim_host_arrays_share(struct sim_host *to, const struct sim_host *from);
/* Drop H's reference to its arrays (NULL-safe); the pointers are cleared. */
void sim_host_arrays_drop(struct sim_host *h);

/* Aggregates of the prepared rule sets under one traffic popularity (cached). */
struct sim_agg {
	bool valid;
	enum gen_popularity pop;
	double zipf_s;
	uint32_t n_flows;
	double probes[GEN_HOSTS][GEN_DIRS]; /* popularity-weighted mean probes */
	double miss[GEN_HOSTS][GEN_DIRS];   /* weight of flows missing a rule */
	double sw_fwd, sw_rev;               /* weight of flows in software: client->server data
					      * path (send/write) and server->client (read) */
};

struct tb_sim;

/* sim_memo.c: analyses of host rule sets kept by content id (gen_rules_host_id). */
struct sim_memo_entry {
	uint64_t id;
	uint32_t n_flows;
	struct sim_host h; /* probes, flags, hashes, has_dir, walk0; n_rules, in_hw */
	size_t bytes;
	uint64_t used;     /* clock of the last get or put */
};
struct sim_memo_diff {
	uint64_t a, b;    /* content ids, a < b (0: empty slot) */
	uint64_t changes; /* size of the symmetric difference of their rule multisets */
};
struct sim_memo_agg {
	uint64_t id[GEN_HOSTS];     /* content ids of the hosts (0: slot empty) */
	uint32_t in_hw[GEN_HOSTS];
	struct sim_agg agg;         /* valid, with its flows and popularity */
};
#define SIM_MEMO_AGG_SLOTS 4096u
struct sim_memo {
	struct sim_memo_agg *agg;   /* SIM_MEMO_AGG_SLOTS, direct mapped (NULL until used) */
	struct sim_memo_entry *e;
	size_t n, cap, bytes, max_bytes;
	uint64_t clock;
	unsigned long hits;
	struct sim_memo_diff *diff; /* open addressing, diff_cap slots (a power of two) */
	size_t diff_n, diff_cap;
};
#define SIM_MEMO_DEFAULT_BYTES ((size_t)128 << 20)
void sim_memo_init(struct sim_memo *m, size_t max_bytes);
void sim_memo_free(struct sim_memo *m);
/* Fill H (arrays for N flows allocated; n_rules and in_hw set) from the analysis kept for
 * content ID; false when none is kept (ID 0: never). */
bool sim_memo_get(struct sim_memo *m, uint64_t id, uint32_t n, struct sim_host *h);
/* Keep a copy of H's analysis (N flows) under ID (0: not kept). */
void sim_memo_put(struct sim_memo *m, uint64_t id, uint32_t n, const struct sim_host *h);
/* The rule diff between the rule sets of content ids A and B, if kept (either 0: never). */
bool sim_memo_diff_get(const struct sim_memo *m, uint64_t a, uint64_t b, uint64_t *changes);
void sim_memo_diff_put(struct sim_memo *m, uint64_t a, uint64_t b, uint64_t changes);
/* The aggregates of S's installed hosts under traffic T (n flows), if kept; and keep them. */
bool sim_memo_agg_get(struct sim_memo *m, const struct tb_sim *s, const struct gen_traffic *t,
		      uint32_t n, struct sim_agg *out);
void sim_memo_agg_put(struct sim_memo *m, const struct tb_sim *s, const struct sim_agg *a);

/* The simulated testbed. Starts with struct tb (the dispatcher's header). */
/* sim_scan_diff's open-addressing table: a slot is in use when its generation is the
 * current call's, so nothing is cleared between calls (sim_scan.c). */
struct sim_diff_table {
	struct sim_diff_slot *slot;
	size_t cap;
	uint32_t gen;
};

struct tb_sim {
	struct tb base;
	struct sim_profile prof;
	char identity[160];
	uint32_t n_flows;                 /* flows of the applied rule sets */
	struct sim_host host[GEN_HOSTS];
	uint64_t host_id[GEN_HOSTS];      /* gen_rules_host_id of what host[] analysed (0: none) */
	bool apply_failed;                /* the NIC refused the last rule set (capacity) */
	uint32_t encap_contexts;
	double pending_cost_s;            /* rule programming not yet reported in a sample */
	struct sim_agg agg;
	struct sim_memo memo;             /* analyses of rule sets seen before, by content id */
	struct sim_diff_table diff;       /* sim_scan_diff's table, kept between applies */
	double *weights;                  /* popularity weights of w_flows flows (NULL: none) */
	uint32_t w_flows;                 /* ... for that many flows, */
	bool w_zipf;                      /* ... Zipf (else uniform) */
	double w_s;                       /* ... with this exponent */
	double pace;                      /* real seconds slept per testbed-second (0 = none) */
	double delay_s;                   /* real seconds slept per trial on top (0 = none) */
};

/* sim_scan.c: fill H's probes, flags, has_dir, walk0 and rule hashes from RS for N flows
 * (H's arrays allocated, n_rules and in_hw set). 0 or -ENOMEM. */
int sim_scan_host(const struct topo_ruleset *rs, uint32_t n, bool shared_tree,
		  struct sim_host *h);
/* Size of the symmetric difference of two multisets of rule hashes; -1 on no memory. T is
 * the table it counts in, kept for the next call (zeroed: empty; sim_diff_table_free). */
int64_t sim_scan_diff(struct sim_diff_table *t, const uint64_t *a, size_t na, const uint64_t *b,
		      size_t nb);
void sim_diff_table_free(struct sim_diff_table *t);

/* sim_rules.c: analyse and install RULES; updates programming cost and fallback state. */
int sim_rules_apply(struct tb_sim *s, const struct gen_rules *rules, struct scn_error *err);
void sim_rules_release(struct tb_sim *s);
/* Compute (or reuse) the aggregates for traffic T. 0 or -ENOMEM. */
int sim_rules_aggregate(struct tb_sim *s, const struct gen_traffic *t);

/* ---- Model (measure) --------------------------------------------------------------------- */

/* What the model predicts for one trial before noise. */
struct sim_perf {
	enum tb_status status;
	double bw_gbps, msg_rate_mpps, lat_median_us, lat_p99_us;
	double traffic_s;          /* time the traffic ran */
	double packets, bytes;     /* data packets / wire bytes moved in the trial */
	double acks;               /* ack / response packets */
	double rx_bound;           /* 0..1: how much the receive pipeline limits the rate */
	double steer_missed;       /* packets that missed every rule on receive */
	double timeouts;           /* local ack timeouts */
	double sw_share;           /* share of traffic forwarded in software */
};

void sim_model_run(const struct tb_sim *s, const struct gen_traffic *t, struct sim_perf *out);

/* sim_sample.c: noise and counters. */
void sim_sample_fill(const struct tb_sim *s, const struct gen_traffic *t, uint64_t seed,
		     const struct sim_perf *perf, struct tb_sample *out);
/* Counter names the simulated NIC exposes, in sample order. */
unsigned sim_counter_names(const char *const **names);

#endif
