/* SPDX-License-Identifier: MIT */
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
#ifndef HX_TRACE_H
#define HX_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/scn_error.h"

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

#endif
