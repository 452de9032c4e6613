/* SPDX-License-Identifier: MIT */
/*
 * pt_proc: spawn with pipes, poll, deadlines and group kills (pt_proc.h). Assumes Linux
 * (pt_spawn.c: fork, own process group, parent-death signal, execve; O_CLOEXEC pipes).
 * The pipe ends we keep are non-blocking; a stream is closed at EOF, or after the leader
 * exited and its group was killed, once nothing more is readable.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testbeds/perftest/pt_proc.h"
#include "testbeds/perftest/pt_spawn.h"

struct stream {
	int fd;          /* -1 when closed */
	char *buf;
	size_t len, cap, max;
};

/* Invariant: pid > 0 once spawned; status >= 0 iff the leader has been reaped. */
struct pt_proc {
	pid_t pid;
	int status;      /* exit code or 128 + signal; -1 running */
	bool killed;     /* our deadline killed it */
	double t0, t1;
	struct stream out, err;
	int in_fd;
	const char *in_data;
	size_t in_len, in_off;
};

double pt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Read what is there. Returns 1 at EOF or error (stream closed), 0 otherwise. */
static int drain(struct stream *s)
{
	char tmp[16384];

	while (s->fd >= 0) {
		ssize_t n = read(s->fd, tmp, sizeof(tmp));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			close_fd(&s->fd);
			return 1;
		}
		size_t keep = s->len + (size_t)n > s->max ? s->max - s->len : (size_t)n;
		if (s->len + keep + 1 > s->cap) {
			size_t cap = (s->len + keep + 1) * 2;
			char *b = realloc(s->buf, cap);

			if (!b)
				keep = 0;
			else {
				s->buf = b;
				s->cap = cap;
			}
		}
		if (keep) {
			memcpy(s->buf + s->len, tmp, keep);
			s->len += keep;
			s->buf[s->len] = '\0';
		}
	}
	return 1;
}

static void feed(struct pt_proc *p)
{
	while (p->in_fd >= 0 && p->in_off < p->in_len) {
		/* a socket, so that a child that stops reading cannot SIGPIPE us */
		ssize_t n = send(p->in_fd, p->in_data + p->in_off, p->in_len - p->in_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			close_fd(&p->in_fd);
			return;
		}
		p->in_off += (size_t)n;
	}
	close_fd(&p->in_fd);
}

static void reap(struct pt_proc *p, bool block)
{
	int st;
	pid_t r;

	if (p->status >= 0)
		return;
	do
		r = waitpid(p->pid, &st, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r != p->pid)
		return;
	p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	p->t1 = pt_now();
	/* what the leader left behind in its group goes with it */
	kill(-p->pid, SIGKILL);
	drain(&p->out);
	drain(&p->err);
	close_fd(&p->out.fd);
	close_fd(&p->err.fd);
	close_fd(&p->in_fd);
}

static int make_pipe(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	return 0;
}

static int make_stdin(int fds[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return -errno;
	shutdown(fds[0], SHUT_WR);
	return 0;
}

static int do_spawn(const struct pt_spawn *s, struct pt_proc *p, int in[2], int out[2],
		    int err_[2])
{
	return pt_spawn_child(s->argv, in[0], out[1], err_[1], &p->pid);
}

int pt_proc_spawn(const struct pt_spawn *s, struct pt_proc **out, struct scn_error *err)
{
	int in[2] = { -1, -1 }, o[2] = { -1, -1 }, e[2] = { -1, -1 }, rc;
	struct pt_proc *p;

	*out = NULL;
	if (!s || !s->argv || !s->argv[0])
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "spawn: empty command");
	p = calloc(1, sizeof(*p));
	if (!p)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "spawn: out of memory");
	p->status = -1;
	p->out.max = p->err.max = s->max_output ? s->max_output : 4u << 20;
	p->in_fd = -1;
	if ((rc = make_pipe(o)) < 0 || (rc = make_pipe(e)) < 0 ||
	    (s->stdin_data && (rc = make_stdin(in)) < 0))
		goto fail;
	p->t0 = pt_now();
	if ((rc = do_spawn(s, p, in, o, e)) < 0)
		goto fail;
	close_fd(&o[1]);
	close_fd(&e[1]);
	close_fd(&in[0]);
	p->out.fd = o[0];
	p->err.fd = e[0];
	p->in_fd = in[1];
	p->in_data = s->stdin_data;
	p->in_len = s->stdin_len;
	feed(p);
	*out = p;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		close_fd(&in[i]);
		close_fd(&o[i]);
		close_fd(&e[i]);
	}
	free(p);
	return scn_error_set(err, rc == -ENOMEM ? SCN_ERR_INTERNAL : SCN_ERR_CONFIG, rc,
			     "cannot run '%s': %s", s->argv[0], strerror(-rc));
}

size_t pt_proc_poll(struct pt_proc *const *p, size_t n, int timeout_ms)
{
	struct pollfd fds[96];
	size_t nf = 0, running = 0;

	for (size_t i = 0; i < n && nf + 3 <= sizeof(fds) / sizeof(fds[0]); i++) {
		if (!p[i])
			continue;
		if (p[i]->out.fd >= 0)
			fds[nf++] = (struct pollfd){ .fd = p[i]->out.fd, .events = POLLIN };
		if (p[i]->err.fd >= 0)
			fds[nf++] = (struct pollfd){ .fd = p[i]->err.fd, .events = POLLIN };
		if (p[i]->in_fd >= 0)
			fds[nf++] = (struct pollfd){ .fd = p[i]->in_fd, .events = POLLOUT };
	}
	/* a leader may exit while its children keep the pipes open: never sleep long */
	poll(fds, nf, timeout_ms > 20 ? 20 : timeout_ms);
	for (size_t i = 0; i < n; i++) {
		if (!p[i])
			continue;
		drain(&p[i]->out);
		drain(&p[i]->err);
		feed(p[i]);
		reap(p[i], false);
		running += p[i]->status < 0;
	}
	return running;
}

void pt_proc_kill(struct pt_proc *p)
{
	if (!p || p->status >= 0)
		return;
	kill(-p->pid, SIGKILL);
	reap(p, true);
}

int pt_proc_wait(struct pt_proc *p, double deadline)
{
	while (p->status < 0) {
		double left = deadline - pt_now();

		if (left <= 0) {
			p->killed = true;
			pt_proc_kill(p);
			return -ETIMEDOUT;
		}
		pt_proc_poll(&p, 1, (int)(left * 1000.0) + 1);
	}
	return 0;
}

void pt_proc_free(struct pt_proc *p)
{
	if (!p)
		return;
	pt_proc_kill(p);
	close_fd(&p->out.fd);
	close_fd(&p->err.fd);
	close_fd(&p->in_fd);
	free(p->out.buf);
	free(p->err.buf);
	free(p);
}

bool pt_proc_running(const struct pt_proc *p)
{
	return p && p->status < 0;
}

pid_t pt_proc_pid(const struct pt_proc *p)
{
	return p ? p->pid : -1;
}

int pt_proc_exit_code(const struct pt_proc *p)
{
	return p ? p->status : -1;
}

bool pt_proc_deadline_hit(const struct pt_proc *p)
{
	return p && p->killed;
}

double pt_proc_seconds(const struct pt_proc *p)
{
	return p ? (p->status >= 0 ? p->t1 : pt_now()) - p->t0 : 0;
}

const char *pt_proc_out(const struct pt_proc *p, size_t *len)
{
	if (len)
		*len = p->out.len;
	return p->out.buf ? p->out.buf : "";
}

const char *pt_proc_err(const struct pt_proc *p, size_t *len)
{
	if (len)
		*len = p->err.len;
	return p->err.buf ? p->err.buf : "";
}

int pt_proc_run(const struct pt_spawn *s, double timeout_s, struct pt_proc **out,
		struct scn_error *err)
{
	int rc = pt_proc_spawn(s, out, err);

	if (rc < 0)
		return rc;
	if (pt_proc_wait(*out, pt_now() + timeout_s) < 0)
		return scn_error_set(err, SCN_ERR_TIMEOUT, -ETIMEDOUT, "'%s' did not finish within "
				     "%.1f s; its process group was killed", s->argv[0], timeout_s);
	return 0;
}
