/* SPDX-License-Identifier: MIT */
/*
 * slurm-local: a real one-node Slurm cluster on this host for tests (test-slurm.c): munged
 * with a fresh key, slurmctld and slurmd (proctrack/linuxproc, task/none, a partition of
 * this host only), configuration, state, sockets and logs in a temporary directory, ports
 * chosen from the test's pid. Started daemons are stopped by the pids in their pid files
 * (SIGTERM, then SIGKILL), never by name, and checked gone.
 */
#ifndef SLURM_LOCAL_H
#define SLURM_LOCAL_H

#include <stdbool.h>
#include <sys/types.h>

struct slurm_local {
	char dir[128], conf[192], node[64];
	pid_t pids[3]; /* munged, slurmctld, slurmd (0: not started) */
};

/* Whether munged, slurmctld, slurmd, salloc, srun, scontrol and sinfo are installed; WHICH
 * receives the first one missing. */
bool slurm_local_installed(char *which, size_t len);
/* Start the cluster in a fresh directory; 0 when `sinfo` shows the node idle within 60 s
 * (then S->conf is the SLURM_CONF to use), -1 otherwise (what was started is stopped). */
int slurm_local_start(struct slurm_local *s);
/* Stop the daemons by pid; true when none of them is left running. Removes the directory. */
bool slurm_local_stop(struct slurm_local *s);

#endif
