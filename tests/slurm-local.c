/* SPDX-License-Identifier: MIT */
/*
 * slurm-local: start and stop a one-node Slurm cluster for tests (slurm-local.h).
 */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm-local.h"

static const char *const tools[] = { "munged", "slurmctld", "slurmd", "salloc", "srun",
				     "scontrol", "sinfo", NULL };
static const char *const pidfiles[] = { "munged.pid", "slurmctld.pid", "slurmd.pid" };

bool slurm_local_installed(char *which, size_t len)
{
	char cmd[128];

	for (size_t i = 0; tools[i]; i++) {
		snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1 || "
			 "test -x /usr/sbin/%s", tools[i], tools[i]);
		if (system(cmd) != 0) {
			snprintf(which, len, "%s", tools[i]);
			return false;
		}
	}
	return true;
}

static int write_conf(struct slurm_local *s)
{
	unsigned port = 17000u + (unsigned)getpid() % 20000u * 2u % 20000u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const struct passwd *pw = getpwuid(getuid()); /* the daemons run as whoever tests */
	FILE *f = fopen(s->conf, "w");

	if (!f || !pw)
		return -1;
	fprintf(f, "ClusterName=scalacn-test\nSlurmctldHost=%s\nSlurmUser=%s\n"
		"SlurmdUser=%s\nAuthType=auth/munge\nAuthInfo=socket=%s/munge.sock\n"
		"CredType=cred/munge\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
		"SchedulerType=sched/builtin\nSelectType=select/cons_tres\n"
		"SelectTypeParameters=CR_Core\nStateSaveLocation=%s/state\n"
		"SlurmdSpoolDir=%s/spool\nSlurmctldPidFile=%s/slurmctld.pid\n"
		"SlurmdPidFile=%s/slurmd.pid\nSlurmctldLogFile=%s/slurmctld.log\n"
		"SlurmdLogFile=%s/slurmd.log\nSlurmctldPort=%u\nSlurmdPort=%u\n"
		"ReturnToService=2\nMpiDefault=none\nJobCompType=jobcomp/none\n"
		"AccountingStorageType=accounting_storage/none\n"
		"NodeName=%s CPUs=%ld State=UNKNOWN\n"
		"PartitionName=test Nodes=%s Default=YES MaxTime=INFINITE State=UP "
		"OverSubscribe=YES\n", s->node, pw->pw_name, pw->pw_name, s->dir, s->dir, s->dir,
		s->dir, s->dir, s->dir,
		s->dir, port, port + 1, s->node, cpus > 0 ? cpus : 1, s->node);
	return fclose(f);
}

static pid_t read_pid(const struct slurm_local *s, const char *name)
{
	char path[256];
	long pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", s->dir, name);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return (pid_t)pid;
}

/* Run CMD (a shell line, SLURM_CONF set); 0 when it exits 0. */
static int run(const struct slurm_local *s, const char *cmd)
{
	char line[4096];

	snprintf(line, sizeof(line), "SLURM_CONF='%s' %s", s->conf, cmd);
	return system(line) == 0 ? 0 : -1;
}

static int start_daemons(struct slurm_local *s)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/state %s/spool && dd if=/dev/urandom "
		 "of=%s/munge.key bs=1024 count=1 2>/dev/null && chmod 400 %s/munge.key && "
		 "munged -f --key-file=%s/munge.key --socket=%s/munge.sock "
		 "--pid-file=%s/munged.pid --log-file=%s/munged.log --seed-file=%s/munge.seed",
		 s->dir, s->dir, s->dir, s->dir, s->dir, s->dir, s->dir, s->dir, s->dir);
	if (run(s, cmd) < 0)
		return -1;
	for (int i = 0; i < 50 && !(s->pids[0] = read_pid(s, pidfiles[0])); i++)
		usleep(100000);
	snprintf(cmd, sizeof(cmd), "slurmctld -f '%s' && slurmd -f '%s'", s->conf, s->conf);
	if (run(s, cmd) < 0)
		return -1;
	for (int i = 0; i < 100 && !(s->pids[1] && s->pids[2]); i++) {
		s->pids[1] = read_pid(s, pidfiles[1]);
		s->pids[2] = read_pid(s, pidfiles[2]);
		usleep(100000);
	}
	return s->pids[0] && s->pids[1] && s->pids[2] ? 0 : -1;
}

int slurm_local_start(struct slurm_local *s)
{
	char cmd[256];

	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "/tmp/scalacn-slurm-XXXXXX");
	if (!mkdtemp(s->dir) || gethostname(s->node, sizeof(s->node)) < 0)
		return -1;
	s->node[strcspn(s->node, ".")] = '\0';
	snprintf(s->conf, sizeof(s->conf), "%s/slurm.conf", s->dir);
	if (write_conf(s) < 0 || start_daemons(s) < 0) {
		slurm_local_stop(s);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "sinfo -h -o %%t 2>/dev/null | grep -qx idle");
	for (int i = 0; i < 120; i++) {
		if (run(s, cmd) == 0)
			return 0;
		usleep(500000);
	}
	slurm_local_stop(s);
	return -1;
}

static bool alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

bool slurm_local_stop(struct slurm_local *s)
{
	char cmd[256];
	bool gone = true;

	for (int i = 2; i >= 0; i--) /* slurmd, slurmctld, then munged */
		if (alive(s->pids[i]))
			kill(s->pids[i], SIGTERM);
	for (int t = 0; t < 100; t++) {
		bool any = false;

		for (int i = 0; i < 3; i++)
			any |= alive(s->pids[i]);
		if (!any)
			break;
		usleep(100000);
	}
	for (int i = 0; i < 3; i++) {
		if (alive(s->pids[i]))
			kill(s->pids[i], SIGKILL);
		usleep(100000);
		gone &= !alive(s->pids[i]);
	}
	if (s->dir[0] && !strncmp(s->dir, "/tmp/scalacn-slurm-", 19)) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
		if (system(cmd) != 0)
			gone = false;
	}
	return gone;
}
