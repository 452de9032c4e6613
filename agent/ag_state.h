/* SPDX-License-Identifier: MIT */
/*
 * ag_state: the original layout of a device's table (every filter's prio before the agent
 * moved anything), kept in STATE_DIR/DEV.json (json-c) so that `--restore` works after a
 * restart or a crash, and the restore itself: tc -batch lines that put every filter back at
 * its original prio, make before break, never two masks in one prio.
 */
#ifndef AG_STATE_H
#define AG_STATE_H

#include <stdio.h>

#include "agent/ag_filter.h"

/* The state file's path for DEV under DIR. */
int ag_state_path(const char *dir, const char *dev, char *buf, size_t len);
/* Load PATH into ORIG (appended). -ENOENT no state yet; -EINVAL (ERR) a damaged file. */
int ag_state_load(const char *path, struct ag_filters *orig, char *err, size_t errlen);
/* Write ORIG to PATH atomically (temporary file, then rename). */
int ag_state_save(const char *path, const char *dev, const struct ag_filters *orig,
		  char *err, size_t errlen);
/* Filters of CUR that ORIG does not know are in their original place: add them to ORIG.
 * Returns how many were added (or -ENOMEM). */
int ag_state_merge(struct ag_filters *orig, const struct ag_filters *cur);
/* (ORIG is indexed by ag_state_merge and ag_state_restore_batch.) */
/* The restore of CUR to ORIG as tc -batch lines on OUT (*LINES counted, *MOVED filters).
 * Filters not in ORIG stay where they are. */
int ag_state_restore_batch(struct ag_filters *orig, const struct ag_filters *cur,
			   const char *dev, FILE *out, unsigned *lines, unsigned *moved);
/* Whether CUR holds exactly ORIG's filters, each at its original prio and handle; else ERR says which
 * one differs. Indexes CUR. */
int ag_state_equal(const struct ag_filters *orig, struct ag_filters *cur, char *err,
		   size_t errlen);

#endif
