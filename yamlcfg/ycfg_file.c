/* SPDX-License-Identifier: MIT */
/*
 * ycfg_file: reading a configuration file whole, bounded by construction (see ycfg.h,
 * ycfg_read_file). Only a regular file is read, and only up to a size cap: a FIFO would block
 * forever, a device such as /dev/zero would grow the buffer until the kernel kills the
 * process, and a directory reads as an I/O error. The file is opened with O_NONBLOCK so that
 * opening a FIFO does not wait for a writer, then fstat() decides before any byte is read;
 * the read itself stops one byte past the cap, so a file that grows after fstat() is still
 * refused rather than read without bound.
 */
#include "yamlcfg/ycfg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not a regular one is, for the message. */
static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory, not a regular file";
	if (S_ISFIFO(m))
		return "a FIFO (named pipe), not a regular file";
	if (S_ISCHR(m))
		return "a character device, not a regular file";
	if (S_ISBLK(m))
		return "a block device, not a regular file";
	if (S_ISSOCK(m))
		return "a socket, not a regular file";
	return "not a regular file";
}

static int refuse(int code, char *why, size_t why_len, const char *what, const char *tail)
{
	if (why && why_len)
		snprintf(why, why_len, "%s%s", what, tail);
	return code;
}

static int too_big(size_t max, char *why, size_t why_len)
{
	char what[64];

	if (max >= (1u << 20) && max % (1u << 20) == 0)
		snprintf(what, sizeof(what), "larger than %zu MiB", max >> 20);
	else
		snprintf(what, sizeof(what), "larger than %zu bytes", max);
	return refuse(-EFBIG, why, why_len, what, ", the most a configuration file may hold");
}

/* Read at most MAX + 1 bytes of FD into a NUL-terminated buffer (HINT: the expected size). */
static int read_fd(int fd, size_t hint, size_t max, char **text, size_t *len)
{
	size_t cap = (hint < max ? hint : max) + 2, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		ssize_t got = read(fd, buf + n, cap - 1 - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = -errno;

			free(buf);
			return e;
		}
		n += (size_t)got;
		if (got == 0 || n > max)
			break;
		if (n + 1 == cap) {
			size_t ncap = cap * 2 > max + 2 ? max + 2 : cap * 2;
			char *nb = ncap > cap ? realloc(buf, ncap) : buf;

			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap = ncap;
		}
	}
	if (!buf)
		return -ENOMEM;
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int ycfg_read_file(const char *path, size_t max, char **text, size_t *len, char *why,
		   size_t why_len)
{
	struct stat st;
	int fd, rc;

	*text = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return refuse(-errno, why, why_len, strerror(errno), "");
	if (fstat(fd, &st) < 0) {
		rc = refuse(-errno, why, why_len, strerror(errno), "");
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL, why, why_len,
			      kind_of(st.st_mode), "");
	}
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return too_big(max, why, why_len);
	}
	rc = read_fd(fd, (size_t)st.st_size, max, text, len);
	close(fd);
	if (rc < 0)
		return refuse(rc, why, why_len, strerror(-rc), "");
	if (*len > max) {
		free(*text);
		*text = NULL;
		*len = 0;
		return too_big(max, why, why_len);
	}
	return 0;
}
