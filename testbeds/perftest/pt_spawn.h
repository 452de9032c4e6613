/* SPDX-License-Identifier: MIT */
/*
 * pt_spawn: starting one child process for pt_proc (private to testbeds/perftest): fork and
 * execve with the child's set-up done between them, so that the child dies with the
 * harness. posix_spawn cannot ask for that: PR_SET_PDEATHSIG is a prctl() only the child
 * itself can make, between fork and exec.
 *
 * The child gets a process group of its own (a deadline kills the whole group), SIGPIPE,
 * SIGINT, SIGTERM and SIGHUP at their defaults, stdin from IN_FD (or /dev/null when -1),
 * stdout and stderr onto OUT_FD and ERR_FD, and SIGKILL as its parent-death signal: when the
 * harness dies, even by kill -9 or the OOM killer, the kernel kills its perftest processes
 * (and ssh or kubectl clients). The race where the harness dies between fork() and prctl()
 * is closed by the child checking getppid() against the pid recorded before fork(). The
 * death signal follows the thread that forked: spawn from the thread that lives as long as
 * the children (the driver spawns from the main thread only).
 *
 * argv[0] is searched in PATH by the parent before fork(), so the child calls only
 * async-signal-safe functions. An exec failure reaches the parent through a close-on-exec
 * pipe: the call returns -errno as posix_spawnp would.
 */
#ifndef PT_SPAWN_H
#define PT_SPAWN_H

#include <sys/types.h>

/* 0 and *PID set, or -errno (-ENOENT: not found in PATH; the exec's errno otherwise). */
int pt_spawn_child(char *const *argv, int in_fd, int out_fd, int err_fd, pid_t *pid);

#endif
