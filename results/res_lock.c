/* SPDX-License-Identifier: MIT */
/*
 * res_lock: one writer per results database (see res.h, res_lock_writer). The lock is an
 * flock() on a sidecar file "DB.lock": the kernel drops it when the holder's process ends,
 * however it ends (exit, kill -9, OOM), so a stale lock cannot outlive a dead campaign and
 * nothing has to check pids for liveness. The file's text names the holder (pid, host,
 * command, start time) only so that the refused writer can say who holds it; the lock is
 * the flock, never the text. The file is left in place on unlock (removing it would race
 * with a writer that just opened it).
 */
#include "results/res.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

struct res_lock {
	int fd;
};

/* The holder's line as written by take(), or "unknown" when unreadable. */
static void holder(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n <= 0) {
		snprintf(buf, len, "a process that has not written its name yet");
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static void take(int fd, const char *what)
{
	char host[128] = "?", line[400], when[32] = "?";
	time_t now = time(NULL);
	struct tm tm;
	int n;

	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	if (localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	n = snprintf(line, sizeof(line), "scalacn %s, pid %ld on %s, since %s\n",
		     what ? what : "writer", (long)getpid(), host, when);
	if (ftruncate(fd, 0) == 0 && n > 0) /* best effort: only the message needs it */
		(void)!pwrite(fd, line, strlen(line), 0);
}

int res_lock_writer(const char *db_path, const char *what, struct res_lock **out,
		    struct scn_error *err)
{
	char path[300], who[400];
	struct res_lock *l;
	int fd;

	*out = NULL;
	if (!db_path || !db_path[0] || !strcmp(db_path, ":memory:"))
		return 0;
	if (snprintf(path, sizeof(path), "%s.lock", db_path) >= (int)sizeof(path))
		return scn_error_set(err, SCN_ERR_STORE, -ENAMETOOLONG, "%s: path too long",
				     db_path);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
	if (fd < 0)
		return scn_error_set(err, SCN_ERR_STORE, -errno, "%s: cannot open the lock file "
				     "%s: %s", db_path, path, strerror(errno));
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		if (e == EINTR)
			continue;
		if (e == EWOULDBLOCK)
			holder(fd, who, sizeof(who));
		close(fd);
		if (e == EWOULDBLOCK)
			return scn_error_set(err, SCN_ERR_STORE, -EBUSY, "%s is in use by another "
					     "writer (%s): wait for it to end, or give another "
					     "--db", db_path, who);
		return scn_error_set(err, SCN_ERR_STORE, -e, "%s: cannot lock %s: %s", db_path,
				     path, strerror(e));
	}
	if (!(l = calloc(1, sizeof(*l)))) {
		close(fd);
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	}
	take(fd, what);
	l->fd = fd;
	*out = l;
	return 0;
}

void res_unlock(struct res_lock *l)
{
	if (!l)
		return;
	/* clear the holder's line, best effort: the lock itself goes with the descriptor */
	(void)!ftruncate(l->fd, 0);
	close(l->fd);
	free(l);
}
