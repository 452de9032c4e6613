/* SPDX-License-Identifier: MIT */
/*
 * testbeds: the interface every backend implements (rdma-core provider style ops table).
 *
 *   open(description file) -> describe -> apply(rule sets) -> measure(traffic) -> close
 *
 * A backend reports only what a real testbed shows: bandwidth, message rate, latency, status,
 * the counters a real NIC/driver exposes, and cost in testbed-seconds. It never says why a
 * number is low; the simulator's profile parameters stay private to testbeds/sim.
 *
 * Errors carry a class (scn_error.cls): config (bad description or rule set: skip/stop),
 * transient (retry), device (stop), timeout (the trial is a timeout; go on).
 */
#ifndef TB_H
#define TB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/scn_error.h"
#include "generators/gen.h"

#define TB_MAX_COUNTERS 48
#define TB_EVIDENCE_JSON_MAX 24576

/* The documented set of trial outcomes: every trial ends in exactly one. A status other
 * than ok is a result, not an error of the call; errors (scn_error) are for a testbed that
 * cannot run trials at all (gone, misconfigured). */
enum tb_status {
	TB_OK = 0,
	TB_TIMEOUT,       /* traffic stopped: no completion before the deadline */
	TB_COMPLETION_ERR,/* work completion with error (retry exceeded, ...) */
	TB_APPLY_FAILED,  /* the NIC refused rules (ENOSPC, ...) */
	TB_UNUSABLE,      /* the test ran but its numbers cannot be used: bandwidth or latency
			   * 0, negative or not finite (perftest's "inf"), or output that does
			   * not parse; the raw line is in tb_sample.evidence */
	TB_STATUS_COUNT
};
/* "ok", "timeout", "completion_error", "apply_failed", "unusable" */
const char *tb_status_name(enum tb_status s);
int tb_status_parse(const char *s, enum tb_status *out);

struct tb_counter {
	char name[48];  /* as the real NIC/driver names it: "rx_steer_missed_packets", ... */
	double value;   /* delta over the trial (or a level for gauges such as tc_not_in_hw) */
};

struct tb_sample {
	enum tb_status status;
	/* A number the test does not measure is NAN: bandwidth in latency tests, whatever a
	 * backend's bandwidth test does not report (perftest: latency), every number of a
	 * trial that did not end ok. */
	double bw_gbps;        /* 10^9 bit/s */
	double msg_rate_mpps;
	double lat_median_us;  /* one-way (half RTT) for send/write, full RTT for read */
	double lat_p99_us;
	double cost_s;         /* testbed-seconds: rule programming + traffic + settle */
	unsigned n_counters;
	struct tb_counter counters[TB_MAX_COUNTERS];
	/* The raw line that decided a status other than ok (perftest's result row with "inf",
	 * a parse error), "" when there is none. For messages and `scalacn measure`; the
	 * store keeps the lines in evidence_json. */
	char evidence[256];
	/* What the testbed showed of the trial, failed or not, as a JSON object text (the
	 * store's trials.evidence_json, docs/json.md "trials"): the raw tool lines that decided
	 * it, the completion status, counters per host and device (not summed) and packets per
	 * tc filter. "" when the backend shows none (the simulator). */
	char evidence_json[TB_EVIDENCE_JSON_MAX];
};
/* Value of counter NAME, or NAN when absent. */
double tb_sample_counter(const struct tb_sample *s, const char *name);
int tb_sample_add_counter(struct tb_sample *s, const char *name, double value);
/* Judge the numbers of an ok sample for a test of METRIC: the number the test measures
 * (bandwidth for bw, median latency for lat) must be finite and above 0, and every other
 * number is NAN (not reported) or finite and >= 0. Otherwise S becomes TB_UNUSABLE with
 * every number NAN and EVIDENCE (may be NULL: kept as it was) in s->evidence. Returns true
 * when S was changed. Samples that are not ok are left alone. */
bool tb_sample_judge(struct tb_sample *s, enum gen_metric metric, const char *evidence);

struct tb_description {
	char kind[16];         /* "sim", "perftest" */
	char rnic_model[64];   /* as the device reports it */
	char firmware[64];
	char identity[160];    /* stable identity of the testbed for trial keys */
	double line_rate_gbps;
	unsigned n_counter_names;
	char counter_names[TB_MAX_COUNTERS][48];
};

/* Options of tb_open_opts. dry_run: print every command the testbed would run to
 * dry_run_out (stdout when NULL) instead of running it; measure then returns status ok,
 * every number NAN and cost 0. Backends without open_opts refuse a dry run (config error). */
struct tb_open_opts {
	bool dry_run;
	FILE *dry_run_out;
};

struct tb;
struct tb_ops {
	const char *kind;
	int (*open)(const char *path, struct tb **out, struct scn_error *err);
	int (*describe)(struct tb *tb, struct tb_description *d, struct scn_error *err);
	/* Program both hosts' rule sets (replacing what was there). A rule the NIC refuses is
	 * not an error of the call: the next measure reports TB_APPLY_FAILED. */
	int (*apply)(struct tb *tb, const struct gen_rules *rules, struct scn_error *err);
	int (*measure)(struct tb *tb, const struct gen_traffic *t, uint64_t seed,
		       struct tb_sample *out, struct scn_error *err);
	void (*close)(struct tb *tb);
	/* Optional (NULL: only open): open with struct tb_open_opts. */
	int (*open_opts)(const char *path, const struct tb_open_opts *o, struct tb **out,
			 struct scn_error *err);
	/* Optional (NULL: the file is one slot): open every slot (independent client/server
	 * pair) the file declares, at most MAX, into OUT[0..*N-1]. Each is a struct tb of
	 * this backend; tb_pool_open checks they are alike. */
	int (*open_slots)(const char *path, const struct tb_open_opts *o, struct tb **out,
			  unsigned max, unsigned *n, struct scn_error *err);
};

/* Open a testbed from its YAML file: reads "kind:" and dispatches to the backend. Bad files
 * are config errors with file:line:column. Close with tb_close (NULL ok). */
int tb_open(const char *path, struct tb **out, struct scn_error *err);
/* tb_open with options (O NULL: same as tb_open). */
int tb_open_opts(const char *path, const struct tb_open_opts *o, struct tb **out,
		 struct scn_error *err);
/* The backend of the testbed file PATH (its `kind:`), without opening it. */
int tb_kind_ops(const char *path, const struct tb_ops **ops, struct scn_error *err);
int tb_describe(struct tb *tb, struct tb_description *d, struct scn_error *err);
int tb_apply(struct tb *tb, const struct gen_rules *rules, struct scn_error *err);
int tb_measure(struct tb *tb, const struct gen_traffic *t, uint64_t seed, struct tb_sample *out,
	       struct scn_error *err);
void tb_close(struct tb *tb);

/* Every backend's struct tb starts with this header so the dispatcher can find its ops. */
struct tb {
	const struct tb_ops *ops;
};

#endif
