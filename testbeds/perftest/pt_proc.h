/* SPDX-License-Identifier: MIT */
/*
 * pt_proc: running the external programs of the perftest driver (perftest, ssh, kubectl, tc,
 * ibv_devinfo) as argv, with pipes, deadlines and process groups.
 *
 * Every process starts in a process group of its own (pt_spawn.h), dies with the harness
 * (PR_SET_PDEATHSIG: SIGKILL when the harness dies, even by kill -9), with stdin from a
 * buffer or /dev/null and stdout/stderr captured through pipes. A deadline
 * kills the whole group with SIGKILL (perftest's server blocks forever on a dead peer, and
 * a shell's children must not outlive it); when the leader exits on its own, whatever else
 * is left in its group is killed too. Output beyond max_output per stream is dropped.
 *
 * Ownership: pt_proc_spawn returns a handle freed by pt_proc_free (NULL ok), which kills the
 * group first when it is still running. Output pointers live as long as the handle.
 * Nothing here prints; no signal handlers are installed; SIGCHLD is left alone (children are
 * reaped with waitpid on their pid only).
 */
#ifndef PT_PROC_H
#define PT_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/scn_error.h"

struct pt_spawn {
	char *const *argv;      /* NULL-terminated; argv[0] is searched in PATH */
	const char *stdin_data; /* NULL: stdin is /dev/null */
	size_t stdin_len;
	size_t max_output;      /* per stream; 0 = 4 MiB */
};

struct pt_proc;

/* CLOCK_MONOTONIC in seconds. */
double pt_now(void);

/* Start a process. A program that cannot be started is -ENOENT/-EACCES, class config. */
int pt_proc_spawn(const struct pt_spawn *s, struct pt_proc **out, struct scn_error *err);
/* Move data through the pipes of N processes for up to TIMEOUT_MS and reap those that
 * exited. Returns how many of them are still running. */
size_t pt_proc_poll(struct pt_proc *const *p, size_t n, int timeout_ms);
/* Wait for P until it exits or DEADLINE (pt_now() scale) passes; then kill its group.
 * 0 when it exited by itself, -ETIMEDOUT when the deadline killed it. */
int pt_proc_wait(struct pt_proc *p, double deadline);
/* SIGKILL the whole group, reap the leader, keep what was read. Idempotent. */
void pt_proc_kill(struct pt_proc *p);
void pt_proc_free(struct pt_proc *p);

bool pt_proc_running(const struct pt_proc *p);
pid_t pt_proc_pid(const struct pt_proc *p);  /* also the process group id */
/* Exit status; 128 + signal when a signal ended it; -1 while running. */
int pt_proc_exit_code(const struct pt_proc *p);
bool pt_proc_deadline_hit(const struct pt_proc *p);
double pt_proc_seconds(const struct pt_proc *p); /* from spawn to exit (or now) */
/* Captured stdout / stderr, NUL-terminated. */
const char *pt_proc_out(const struct pt_proc *p, size_t *len);
const char *pt_proc_err(const struct pt_proc *p, size_t *len);

/* Spawn, then wait at most TIMEOUT_S. *out is set whenever the spawn succeeded (the caller
 * frees it, also after -ETIMEDOUT, which comes with class timeout in err). */
int pt_proc_run(const struct pt_spawn *s, double timeout_s, struct pt_proc **out,
		struct scn_error *err);

#endif
