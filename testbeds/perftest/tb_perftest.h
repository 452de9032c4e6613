/* SPDX-License-Identifier: MIT */
/*
 * tb_perftest: the real-host testbed backend (testbeds/perftest). The dispatcher uses
 * tb_perftest_ops; the testbed file format is described in pt_inventory.h.
 *
 * open_opts may ask for a dry run: every command the backend would run (tc batches, counter
 * reads, perftest servers and clients, discovery) is printed, shell-quoted for display, to
 * the given stream (stdout when NULL) and none is run; measure then returns status ok with
 * every number NAN and cost 0, so nothing is invented. `dry_run: true` in the file does the
 * same.
 */
#ifndef TB_PERFTEST_H
#define TB_PERFTEST_H

#include "testbeds/tb.h"

extern const struct tb_ops tb_perftest_ops;
/* kind slurm: perftest on the nodes of the current Slurm allocation, one slot per pair of
 * nodes (pt_inventory.h for the file, pt_slots.h for the pairing). */
extern const struct tb_ops tb_slurm_ops;
/* kind kubernetes: perftest in the pods a label selects, one slot per two pods on different
 * nodes (pt_kube.c). */
extern const struct tb_ops tb_kube_ops;

#endif
