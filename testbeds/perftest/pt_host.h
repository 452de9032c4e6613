/* SPDX-License-Identifier: MIT */
/*
 * pt_host: turning "run this argv on that host" into the argv we actually execute.
 *
 *   local:   [sudo -n] CMD...
 *   ssh:     ssh -o BatchMode=yes -o ConnectTimeout=N [-p P] [-l U] [-i ID] [-J JUMP] -- HOST
 *                'REMOTE'   where REMOTE = [timeout -s KILL T] [sudo -n] CMD..., every word
 *                quoted for the remote shell (pt_sh_quote): the only shell on the way.
 *   kubectl: kubectl [--context C] exec [-i] [-n NS] POD [-c CONT] -- [timeout ...] CMD...
 *                (argv is passed as is, no shell).
 *   srun:    srun --nodes=1 --ntasks=1 --overlap --quiet --kill-on-bad-exit=1
 *                --nodelist NODE -- [timeout ...] [sudo -n] CMD...  (a job step in the
 *                allocation scalacn runs in; argv as is, no shell).
 * Killing our local ssh, kubectl or srun does not kill the remote process, so long-running remote
 * commands get `timeout -s KILL T` (coreutils) in front.
 *
 * Ownership: the caller initialises and frees OUT (pt_argv_free).
 */
#ifndef PT_HOST_H
#define PT_HOST_H

#include <stdbool.h>

#include "testbeds/perftest/pt_argv.h"
#include "testbeds/perftest/pt_inventory.h"

struct pt_wrap {
	bool sudo;          /* run with `sudo -n` when the host says sudo: true */
	bool stdin;         /* the command reads stdin (kubectl needs -i) */
	double kill_after_s;/* > 0: remote commands die after this many seconds */
	double connect_s;   /* ssh ConnectTimeout (0: 10) */
};

/* Append to OUT the argv that runs CMD on H. 0 or -ENOMEM. */
int pt_host_wrap(const struct pt_host *h, char *const *cmd, const struct pt_wrap *w,
		 struct pt_argv *out);

#endif
