/* SPDX-License-Identifier: MIT */
/*
 * ag_agent: the daemon's state and its steps (model loading, reading tc, one tick per
 * device, applying and checking a plan, restoring), shared by ag_main.c and the tests.
 * Nothing here prints to stdout except the dry run's operations; logs go to the agent's
 * log stream (stderr: journald under systemd).
 */
#ifndef AG_AGENT_H
#define AG_AGENT_H

#include <stdbool.h>
#include <stdio.h>

#include <scalacn-opt.h>

#include "agent/ag_check.h"
#include "agent/ag_config.h"
#include "agent/ag_mirror.h"

struct ag_dev_stats {
	double degradation;       /* predicted at the last tick */
	double probes_per_packet; /* masks probed per packet, from the last tick's counters */
	double hyper_hit_rate;    /* share of the last tick's hits in the hyper prio (1) */
	uint64_t rule_ops;        /* tc filter adds and deletes applied */
	uint64_t plans;           /* plans applied */
	uint64_t checked, changed;/* forwarding check: packets looked up, actions changed */
	uint64_t rebuilds;        /* the table changed outside the agent */
};

struct ag_dev {
	struct ag_mirror m;
	struct ag_filters orig;   /* the original layout (state file) */
	char state_path[4200];
	struct ag_dev_stats st;
};

struct ag_agent {
	struct ag_config cfg;
	bool dry_run, allow_mismatch;
	struct opt_model *model;
	struct opt_config oc;
	struct ag_dev dev[AG_MAX_DEVICES];
	unsigned n_dev;
	FILE *log, *ops_out;      /* logs; the dry run's operations */
	bool rebuild;             /* the model was reloaded: mirror again at the next tick */
	uint64_t ticks;
	double tick_cpu_s;        /* CPU of the last tick (process time) */
};

/* Load (or reload) the model of A->cfg, check the firmware, configure the optimiser.
 * -EINVAL / -ENOENT / -EPERM ... with ERR: a configuration problem (exit 2). */
int ag_agent_load_model(struct ag_agent *a, char *err, size_t errlen);
/* Read DEV's filters with `tc -s -j filter show dev DEV ingress`. */
int ag_agent_read(const struct ag_agent *a, const char *dev, struct ag_filters *out, char *err,
		  size_t errlen);
/* (Re)build D's mirror from FS (taken over), keeping its original layout up to date. */
int ag_agent_mirror(struct ag_agent *a, struct ag_dev *d, struct ag_filters *fs, uint64_t now,
		    char *err, size_t errlen);
/* After a batch: tc must show EXPECT (sorted) on D, and the packets of SEEN's filters of
 * D's mirror must keep their actions (ag_check.h). -EPROTO (ERR) otherwise. */
int ag_agent_verify(struct ag_agent *a, struct ag_dev *d, const struct ag_filters *expect,
		    const bool *seen, char *err, size_t errlen);
/* D's prios that share a mask merged into one per mask (before the first plan that acts:
 * a plan may only move masks that own one prio), verified; D's mirror rebuilt. In a dry
 * run the lines are printed. -EPROTO (ERR) when no single prio per mask keeps the order. */
int ag_agent_merge(struct ag_agent *a, struct ag_dev *d, uint64_t now, char *err,
		   size_t errlen);
/* Read every device, keep its original layout (state file), mirror it. */
int ag_agent_start(struct ag_agent *a, uint64_t now, char *err, size_t errlen);
/* One tick of every device at second NOW: read, feed, plan, apply (or print), check.
 * -EIO / -EPROTO (ERR) a fatal error: the caller restores and stops. */
int ag_agent_tick(struct ag_agent *a, uint64_t now, char *err, size_t errlen);
/* Put every device's filters back at their original prios and compare. */
int ag_agent_restore(struct ag_agent *a, char *err, size_t errlen);
/* Run a tc batch (LINES lines in TEXT); -EIO with tc's message. */
int ag_agent_batch(const struct ag_agent *a, const char *text, char *err, size_t errlen);
/* Prometheus text format for every device, into A->cfg.metrics_dir/scalacn_agent.prom
 * (written atomically; a no-op without metrics_dir) and to OUT when not NULL. */
int ag_agent_metrics(const struct ag_agent *a, FILE *out, char *err, size_t errlen);
void ag_agent_free(struct ag_agent *a);

#endif
