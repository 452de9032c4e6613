/* SPDX-License-Identifier: MIT */
/*
 * pt_spawn: fork, the child's set-up (process group, signals, stdio, parent-death signal)
 * and execve (see pt_spawn.h). Assumes Linux (prctl PR_SET_PDEATHSIG, pipe2).
 */
#include "testbeds/perftest/pt_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool runnable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* ARGV0 as execve needs it: as given when it holds a '/', else the first match in PATH. */
static int resolve(const char *argv0, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(argv0, '/')) {
		snprintf(out, len, "%s", argv0);
		return 0;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = strchr(p, ':') + 1) {
		size_t n = strcspn(p, ":");
		int w = snprintf(out, len, "%.*s%s%s", (int)n, n ? p : ".", "/", argv0);

		if (w > 0 && (size_t)w < len && runnable(out))
			return 0;
		if (!p[n])
			return -ENOENT;
	}
}

/* Make FD the child's descriptor TARGET (a descriptor already there keeps no CLOEXEC). */
static int place(int fd, int target)
{
	if (fd == target)
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, target) < 0 ? -1 : 0;
}

static void reset_signals(void)
{
	static const int sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* In the child: only async-signal-safe calls. Never returns. */
static void child(const char *path, char *const *argv, int in_fd, int out_fd, int err_fd,
		  pid_t parent, int report)
{
	int e, null = -1;

	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127); /* the harness is already gone: run nothing */
	reset_signals();
	if (in_fd < 0 && (null = open("/dev/null", O_RDONLY)) >= 0)
		in_fd = null;
	if (in_fd < 0 || place(in_fd, 0) < 0 || place(out_fd, 1) < 0 || place(err_fd, 2) < 0)
		e = errno;
	else {
		execve(path, argv, environ);
		e = errno;
	}
	while (write(report, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(127);
}

int pt_spawn_child(char *const *argv, int in_fd, int out_fd, int err_fd, pid_t *pid)
{
	char path[PATH_MAX];
	pid_t parent = getpid(), p;
	int report[2], e = 0, rc;
	ssize_t n;

	if ((rc = resolve(argv[0], path, sizeof(path))) < 0)
		return rc;
	if (pipe2(report, O_CLOEXEC) < 0)
		return -errno;
	p = fork();
	if (p < 0) {
		rc = -errno;
		close(report[0]);
		close(report[1]);
		return rc;
	}
	if (p == 0)
		child(path, argv, in_fd, out_fd, err_fd, parent, report[1]);
	close(report[1]);
	do
		n = read(report[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == (ssize_t)sizeof(e)) { /* the exec failed: reap the child, report why */
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
			;
		return -(e ? e : EIO);
	}
	*pid = p;
	return 0;
}
