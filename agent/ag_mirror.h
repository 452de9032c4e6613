/* SPDX-License-Identifier: MIT */
/*
 * ag_mirror: one managed device's mirror of its tc ingress table inside an opt_table (the
 * optimiser's view), fed with the filters' counter deltas, and the plans it makes turned
 * into tc -batch lines (make before break: a mask's filters are added at the new prio before
 * its old prios are deleted). One tc prio must hold one mask (the optimiser's model of a
 * cascade, scalacn-opt.h); prios that share a mask are one mask to the optimiser, merged
 * into one prio when it moves (their rules are disjoint: same mask, different keys).
 */
#ifndef AG_MIRROR_H
#define AG_MIRROR_H

#include <stdbool.h>
#include <stdio.h>

#include <scalacn-opt.h>

#include "agent/ag_filter.h"

struct ag_mirror {
	char dev[16];
	struct opt_table *t;
	struct ag_filters cur;   /* the table as last read; filter i is rule id i+1 */
	size_t *order;           /* indexes of cur in tc's lookup order (prio, handle) */
	uint64_t *last_packets;  /* counter at the previous read, per filter */
	uint64_t tick_hits, tick_weighted, tick_hyper; /* last feed: hits, hits x masks probed */
	size_t n_prios;          /* tc prios (flower instances a packet may walk) */
};

/* Build M's table from FS (taken over: FS is emptied) with CFG. A filter's priority (which
 * rule wins where two overlap) is its prio in ORIG, the table before the agent moved
 * anything (its current prio when ORIG lacks it). The model's masks input gets the
 * optimiser's masks (prios sharing a mask count once: the table as the first plan leaves
 * it). -EINVAL (ERR) when a prio holds two masks, or prio 1 (the hyper mask's) is in use.
 * Indexes ORIG. */
int ag_mirror_build(struct ag_mirror *m, const char *dev, const struct opt_config *cfg,
		    struct ag_filters *fs, struct ag_filters *orig, uint64_t now,
		    char *err, size_t errlen);
void ag_mirror_free(struct ag_mirror *m);
/* Whether FS (as read now, sorted) is the table M mirrors: same filters at the same prios. */
bool ag_mirror_same(const struct ag_mirror *m, const struct ag_filters *fs);
/* Prios sharing a mask, merged into the mask's first prio (appended handles), as tc -batch
 * lines on OUT (*LINES; 0 when every mask has one prio) and the table it leaves, *AFTER
 * (sorted; caller frees). Right by first-match semantics when the cascade needs no mask
 * after one it precedes (the caller checks opt_table_stats' flagged_masks). */
int ag_mirror_merge_batch(const struct ag_mirror *m, FILE *out, unsigned *lines,
			  struct ag_filters *after);
/* Record FS's counter deltas (FS must be ag_mirror_same) at second NOW. */
void ag_mirror_feed(struct ag_mirror *m, const struct ag_filters *fs, uint64_t now);
/* Write PLAN's tc -batch lines to OUT; *LINES counts them. -ENOTSUP (ERR) for an operation
 * the agent does not apply (hyper copies, mask deletion: disabled in its config). */
int ag_mirror_batch(const struct ag_mirror *m, const struct opt_plan *plan, FILE *out,
		    unsigned *lines, char *err, size_t errlen);
/* PLAN was applied: its filters are at their new prios (cur and order follow). */
void ag_mirror_moved(struct ag_mirror *m, const struct opt_plan *plan);
/* The filters as they will be once PLAN is applied (prios moved): *AFTER (caller frees). */
int ag_mirror_expect(const struct ag_mirror *m, const struct opt_plan *plan,
		     struct ag_filters *after);

#endif
