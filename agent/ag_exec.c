/* SPDX-License-Identifier: MIT */
/*
 * ag_exec: fork/exec with stdout and stderr collected through pipes and poll (see ag_exec.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/ag_exec.h"

#define OUT_MAX (64u << 20)

struct sink {
	char *buf;
	size_t len, cap, max;
};

/* Read what FD has; 0 at EOF, 1 more to come, negative errno. */
static int drain(int fd, struct sink *s)
{
	char chunk[65536];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -errno;
	if (n == 0)
		return 0;
	if (s->len + (size_t)n + 1 > s->cap && s->len + (size_t)n < s->max) {
		size_t cap = s->cap ? s->cap : 65536;
		char *b;

		while (cap < s->len + (size_t)n + 1)
			cap *= 2;
		if (!(b = realloc(s->buf, cap)))
			return -ENOMEM;
		s->buf = b;
		s->cap = cap;
	}
	if (s->len + (size_t)n < s->cap) {
		memcpy(s->buf + s->len, chunk, (size_t)n);
		s->len += (size_t)n;
		s->buf[s->len] = '\0';
	}
	return 1;
}

static void child(char *const argv[], int out, int err)
{
	int null = open("/dev/null", O_RDONLY);

	if (null >= 0)
		dup2(null, 0);
	dup2(out, 1);
	dup2(err, 2);
	execvp(argv[0], argv);
	dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int collect(int fo, int fe, struct sink *so, struct sink *se)
{
	struct pollfd p[2] = { { fo, POLLIN, 0 }, { fe, POLLIN, 0 } };
	int open_fds = 2, rc = 0;

	while (open_fds > 0 && rc >= 0) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			rc = drain(p[i].fd, i ? se : so);
			if (rc == 0) {
				p[i].fd = -1;
				open_fds--;
			}
		}
	}
	return rc < 0 ? rc : 0;
}

static int wait_child(pid_t pid, const char *name, const struct sink *se, char *err,
		      size_t errlen)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	snprintf(err, errlen, "%s exited %d: %.*s", name, WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		 se->buf ? (int)strcspn(se->buf, "\n") : 0, se->buf ? se->buf : "");
	return -EIO;
}

int ag_exec_capture(char *const argv[], char **out, size_t *len, char *err, size_t errlen)
{
	struct sink so = { NULL, 0, 0, OUT_MAX }, se = { NULL, 0, 0, 4096 };
	int po[2], pe[2], rc;
	pid_t pid;

	*out = NULL;
	*len = 0;
	if (pipe2(po, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		rc = -errno;
		close(po[0]);
		close(po[1]);
		return rc;
	}
	pid = fork();
	if (pid == 0)
		child(argv, po[1], pe[1]);
	close(po[1]);
	close(pe[1]);
	rc = pid < 0 ? -errno : collect(po[0], pe[0], &so, &se);
	close(po[0]);
	close(pe[0]);
	if (pid > 0) {
		int w = wait_child(pid, argv[0], &se, err, errlen);

		rc = rc < 0 ? rc : w;
	}
	free(se.buf);
	if (rc < 0) {
		free(so.buf);
		return rc;
	}
	*out = so.buf ? so.buf : calloc(1, 1);
	*len = so.len;
	return *out ? 0 : -ENOMEM;
}
