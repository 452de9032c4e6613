/* SPDX-License-Identifier: MIT */
/*
 * ag_check: the forwarding check. For the traffic seen (a packet built from each filter that
 * had hits: its own match values, every other field 0), look the packet up in two tables
 * with tc's first-match order (lowest prio, then handle) and compare the actions it is
 * handed (kind and index of every action). Independent of the optimiser: it reads only
 * filters as tc printed them.
 */
#ifndef AG_CHECK_H
#define AG_CHECK_H

#include <stdbool.h>

#include "agent/ag_filter.h"

struct ag_check {
	size_t packets;   /* packets looked up */
	size_t changed;   /* handed to another action list */
	char first[256];  /* the first change, in words */
};

/* The packet filter F's traffic carries as far as F tells: its match values. */
void ag_check_packet(const struct ag_filter *f, struct opt_pkt *pkt);
/* Index of the filter of FS that PKT hits first (lowest (prio, handle) that matches), or
 * -1. FS need not be sorted. */
long ag_check_lookup(const struct ag_filters *fs, const struct opt_pkt *pkt);
/* Compare BEFORE and AFTER for the packets of SEEN's filters (SEEN[i] true: filter i of
 * BEFORE had traffic). Adds to *OUT. */
void ag_check_tables(const struct ag_filters *before, const struct ag_filters *after,
		     const bool *seen, struct ag_check *out);

#endif
