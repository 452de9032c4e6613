/* SPDX-License-Identifier: MIT */
/*
 * pt_evidence: what one perftest trial showed, failed or not, gathered by pt_measure.c and
 * written as the JSON object of tb_sample.evidence_json (docs/json.md, "trials"): the raw
 * perftest lines that decided it, the work completion status perftest printed, the counters
 * of each host's RNIC port over the trial (each host apart: which side retransmitted?) and
 * the packets each tc filter on each host's devices counted during it.
 *
 * Ownership: the caller owns the struct (large: allocate it); pt_evidence_free frees the
 * filter lists inside, pt_evidence_reset empties it for the next attempt.
 */
#ifndef PT_EVIDENCE_H
#define PT_EVIDENCE_H

#include "testbeds/perftest/pt_tb.h"

#define PT_EVIDENCE_LINE 240

struct pt_evidence {
	unsigned attempts;
	unsigned n_lines;
	char lines[2 * PT_MAX_PAIRS][PT_EVIDENCE_LINE];
	char completion[256];      /* the stderr line with the completion error, "" when none */
	int wc_status;             /* ibv_wc_status perftest printed, -1 when none */
	bool have_dev[PT_MAX_HOSTS];
	struct pt_counters dev[PT_MAX_HOSTS]; /* per host: after - before */
	bool have_tc[PT_MAX_HOSTS];
	struct pt_tc_hits before[PT_MAX_HOSTS][PT_TC_MAX_DEVS], after[PT_MAX_HOSTS][PT_TC_MAX_DEVS];
};

void pt_evidence_reset(struct pt_evidence *e);
void pt_evidence_free(struct pt_evidence *e);
/* Append a line (cut to PT_EVIDENCE_LINE; ignored when full). */
void pt_evidence_line(struct pt_evidence *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Read the filters of every device host H's rules are on into HITS[0..n_devs-1] (after the
 * first apply; a failed read leaves that device's list empty and returns false). */
bool pt_evidence_tc(struct tb_perftest *t, unsigned h, struct pt_tc_hits *hits);
/* The evidence as a JSON object text into BUF: filter lists are dropped (totals kept,
 * "hits_dropped": true) when the whole does not fit in LEN. */
void pt_evidence_json(const struct tb_perftest *t, struct pt_evidence *e, char *buf, size_t len);

#endif
