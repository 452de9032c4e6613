/* SPDX-License-Identifier: MIT */
/*
 * pt_host: transport wrapping of commands (pt_host.h). Assumes names in struct pt_host were
 * validated by pt_inventory (no leading '-', no blanks), and OpenSSH / kubectl option syntax.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testbeds/perftest/pt_host.h"

/* [timeout -s KILL T] [sudo -n] CMD... */
static int inner(const struct pt_host *h, char *const *cmd, const struct pt_wrap *w,
		 bool remote, struct pt_argv *a)
{
	char t[32];
	int rc = 0;

	snprintf(t, sizeof(t), "%.0f", ceil(w->kill_after_s));
	if (remote && w->kill_after_s > 0)
		rc = pt_argv_addl(a, "timeout", "-s", "KILL", t, NULL);
	if (!rc && w->sudo && h->sudo)
		rc = pt_argv_addl(a, "sudo", "-n", NULL);
	if (!rc)
		rc = pt_argv_addv(a, cmd);
	return rc;
}

static int wrap_ssh(const struct pt_host *h, char *const *cmd, const struct pt_wrap *w,
		    struct pt_argv *out)
{
	struct pt_argv rem;
	char ct[48], port[16], *line = NULL;
	int rc;

	pt_argv_init(&rem);
	snprintf(ct, sizeof(ct), "ConnectTimeout=%.0f", w->connect_s > 0 ? w->connect_s : 10);
	snprintf(port, sizeof(port), "%u", h->ssh_port);
	rc = pt_argv_addl(out, "ssh", "-o", "BatchMode=yes", "-o", ct, NULL);
	if (!rc && h->ssh_port)
		rc = pt_argv_addl(out, "-p", port, NULL);
	if (!rc && h->ssh_user[0])
		rc = pt_argv_addl(out, "-l", h->ssh_user, NULL);
	if (!rc && h->ssh_identity[0])
		rc = pt_argv_addl(out, "-i", h->ssh_identity, NULL);
	if (!rc && h->ssh_jump[0])
		rc = pt_argv_addl(out, "-J", h->ssh_jump, NULL);
	if (!rc)
		rc = pt_argv_addl(out, "--", h->ssh_host, NULL);
	if (!rc)
		rc = inner(h, cmd, w, true, &rem);
	if (!rc && !(line = pt_sh_join(rem.v)))
		rc = -ENOMEM;
	if (!rc)
		rc = pt_argv_add(out, line);
	free(line);
	pt_argv_free(&rem);
	return rc;
}

static int wrap_kubectl(const struct pt_host *h, char *const *cmd, const struct pt_wrap *w,
			struct pt_argv *out)
{
	int rc = pt_argv_add(out, "kubectl");

	if (!rc && h->kcontext[0])
		rc = pt_argv_addl(out, "--context", h->kcontext, NULL);
	if (!rc)
		rc = pt_argv_add(out, "exec");
	if (!rc && w->stdin)
		rc = pt_argv_add(out, "-i");
	if (!rc && h->ns[0])
		rc = pt_argv_addl(out, "-n", h->ns, NULL);
	if (!rc)
		rc = pt_argv_add(out, h->pod);
	if (!rc && h->container[0])
		rc = pt_argv_addl(out, "-c", h->container, NULL);
	if (!rc)
		rc = pt_argv_add(out, "--");
	if (!rc)
		rc = inner(h, cmd, w, true, out);
	return rc;
}

/* One job step on the host's node in the current allocation. --overlap: the steps of one
 * trial (server, client, tc, counters) and of other slots share the allocation's CPUs
 * instead of waiting for each other; --kill-on-bad-exit ends the step with its task. */
static int wrap_srun(const struct pt_host *h, char *const *cmd, const struct pt_wrap *w,
		     struct pt_argv *out)
{
	int rc = pt_argv_addl(out, "srun", "--nodes=1", "--ntasks=1", "--overlap", "--quiet",
			      "--kill-on-bad-exit=1", "--nodelist", h->node, "--", NULL);

	if (!rc)
		rc = inner(h, cmd, w, true, out);
	return rc;
}

int pt_host_wrap(const struct pt_host *h, char *const *cmd, const struct pt_wrap *w,
		 struct pt_argv *out)
{
	static const struct pt_wrap none;

	if (!w)
		w = &none;
	switch (h->transport) {
	case PT_TR_SSH:
		return wrap_ssh(h, cmd, w, out);
	case PT_TR_KUBECTL:
		return wrap_kubectl(h, cmd, w, out);
	case PT_TR_SRUN:
		return wrap_srun(h, cmd, w, out);
	case PT_TR_LOCAL:
	default:
		return inner(h, cmd, w, false, out);
	}
}
