/* SPDX-License-Identifier: MIT */
/*
 * pt_exec: running (or, in a dry run, printing) commands on the inventory's hosts for the
 * perftest backend (pt_tb.h). Assumes hosts with transport local run commands here, others
 * through pt_host_wrap; a remote command's failure to connect shows as ssh's exit 255.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_tb.h"

void pt_tb_dry(struct tb_perftest *t, unsigned host, char *const *argv, const char *note)
{
	char *line = argv ? pt_sh_join(argv) : NULL;

	fprintf(t->dry, "  [%s] %s%s%s\n", t->inv->hosts[host].name, line ? line : "",
		note && line ? "   # " : "", note ? note : "");
	free(line);
}

static int wrap(struct tb_perftest *t, unsigned h, char *const *cmd, const struct pt_wrap *w,
		struct pt_argv *a, struct scn_error *err)
{
	struct pt_wrap ww = w ? *w : (struct pt_wrap){ 0 };

	ww.connect_s = t->inv->command_s < 10 ? t->inv->command_s : 10;
	pt_argv_init(a);
	if (pt_host_wrap(&t->inv->hosts[h], cmd, &ww, a) < 0) {
		pt_argv_free(a);
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "perftest: out of memory");
	}
	return 0;
}

int pt_tb_spawn(struct tb_perftest *t, unsigned h, char *const *cmd, const struct pt_wrap *w,
		struct pt_proc **out, struct scn_error *err)
{
	struct pt_argv a;
	int rc;

	*out = NULL;
	if ((rc = wrap(t, h, cmd, w, &a, err)) < 0)
		return rc;
	if (t->dry_run)
		pt_tb_dry(t, h, a.v, NULL);
	else
		rc = pt_proc_spawn(&(struct pt_spawn){ .argv = a.v }, out, err);
	pt_argv_free(&a);
	return rc;
}

int pt_tb_exec(struct tb_perftest *t, unsigned h, char *const *cmd, const struct pt_wrap *w,
	       const char *stdin_data, double timeout_s, struct pt_proc **out,
	       struct scn_error *err)
{
	struct pt_argv a;
	int rc;

	*out = NULL;
	if ((rc = wrap(t, h, cmd, w, &a, err)) < 0)
		return rc;
	if (t->dry_run)
		pt_tb_dry(t, h, a.v, stdin_data ? "(batch on stdin)" : NULL);
	else {
		struct pt_spawn s = { .argv = a.v, .stdin_data = stdin_data,
				      .stdin_len = stdin_data ? strlen(stdin_data) : 0 };

		rc = pt_proc_run(&s, timeout_s, out, err);
		if (rc < 0)
			scn_error_prefix(err, "on host %s: ", t->inv->hosts[h].name);
		/* ssh exits 255 when it could not reach the host: not the command's answer */
		if (rc == 0 && t->inv->hosts[h].transport == PT_TR_SSH &&
		    pt_proc_exit_code(*out) == 255) {
			rc = scn_error_set(err, SCN_ERR_TRANSIENT, -EHOSTUNREACH, "cannot reach "
					   "host %s with ssh: %.300s", t->inv->hosts[h].name,
					   pt_proc_err(*out, NULL));
			pt_proc_free(*out);
			*out = NULL;
		}
	}
	pt_argv_free(&a);
	return rc;
}

int pt_tb_tcp_table(struct tb_perftest *t, unsigned h, char **out, struct scn_error *err)
{
	char *const cat[] = { "cat", "/proc/net/tcp", "/proc/net/tcp6", NULL };
	struct pt_proc *p = NULL;
	int rc;

	*out = NULL;
	if (t->dry_run)
		return 0;
	if (t->inv->hosts[h].transport == PT_TR_LOCAL) {
		if ((rc = pt_tcp_table_local(out)) < 0)
			return scn_error_set(err, SCN_ERR_TRANSIENT, rc, "cannot read /proc/net/tcp: "
					     "%s", strerror(-rc));
		return 0;
	}
	if ((rc = pt_tb_exec(t, h, cat, NULL, NULL, t->inv->command_s, &p, err)) == 0) {
		if (pt_proc_exit_code(p) != 0 && pt_proc_exit_code(p) != 1)
			rc = scn_error_set(err, SCN_ERR_TRANSIENT, -EIO, "on host %s: reading "
					   "/proc/net/tcp failed (exit %d): %.200s",
					   t->inv->hosts[h].name, pt_proc_exit_code(p),
					   pt_proc_err(p, NULL));
		else if (!(*out = strdup(pt_proc_out(p, NULL))))
			rc = scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	}
	pt_proc_free(p);
	return rc;
}

void pt_tb_counters(struct tb_perftest *t, unsigned h, struct pt_counters *c)
{
	const struct pt_host *host = &t->inv->hosts[h];
	struct scn_error e;
	struct pt_argv a;
	struct pt_proc *p = NULL;

	memset(c, 0, sizeof(*c));
	if (host->transport == PT_TR_LOCAL && !t->dry_run) {
		pt_counters_read_local(NULL, host->device, host->ib_port, c);
		return;
	}
	pt_argv_init(&a);
	if (pt_counters_argv(host->device, host->ib_port, &a) == 0 &&
	    pt_tb_exec(t, h, a.v, NULL, NULL, t->inv->command_s, &p, &e) == 0 && p)
		pt_counters_parse(pt_proc_out(p, NULL), c);
	pt_proc_free(p);
	pt_argv_free(&a);
}

bool pt_tb_host_used(const struct tb_perftest *t, unsigned h)
{
	return h < t->inv->n_hosts && t->inv->role[h] != PT_ROLE_NONE;
}
