/* SPDX-License-Identifier: MIT */
/*
 * opt_sign: signed model files (see scalacn-opt.h, "Signed model files"). The checksum in a
 * model file catches accidents; a signature catches intent: Ed25519 (libsodium) over every
 * byte of the file, detached in FILE.sig, made with a secret key only the exporter holds.
 *
 * Verification reads the file once, bounded, checks the signature over exactly those bytes,
 * then loads the model from a private copy of them (a fresh mode-0700 directory, removed
 * after the load), so the file cannot be swapped between the check and the load. Key files
 * are hex text on one line (64 bytes secret, 32 bytes public); a secret key readable by
 * group or others is refused, as ssh refuses one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "optimiser/opt_model_priv.h"

#define SIGN_MAX_FILE (64 << 20)
#define SIG_MAGIC "scalacn-model-signature 1"

/* Read PATH whole (a regular file of at most MAX bytes) into *BUF. 0 or -errno. */
static int slurp(const char *path, size_t max, unsigned char **buf, size_t *len)
{
	struct stat st;
	unsigned char *b;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), e;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		e = fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : -EFBIG;
		close(fd);
		return e;
	}
	if (!(b = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return -ENOMEM;
	}
	while (n < (size_t)st.st_size) {
		ssize_t got = read(fd, b + n, (size_t)st.st_size - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* Hex text (N bytes, surrounding blanks allowed) into OUT. */
static int unhex(const char *text, unsigned char *out, size_t n)
{
	size_t bin = 0;
	const char *end = NULL;

	while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
		text++;
	if (sodium_hex2bin(out, n, text, strlen(text), " \t\r\n", &bin, &end) != 0 || bin != n)
		return -EINVAL;
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	return *end ? -EINVAL : 0;
}

static int read_key(const char *path, unsigned char *key, size_t n, bool secret, char *err,
		    size_t errlen)
{
	unsigned char *text = NULL;
	struct stat st;
	size_t len = 0;
	int rc;

	if (secret && stat(path, &st) == 0 && (st.st_mode & 077)) {
		opt_seterr(err, errlen, "secret key %s is readable by others (mode %04o): chmod "
			   "600 it", path, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	if ((rc = slurp(path, 4096, &text, &len)) < 0) {
		opt_seterr(err, errlen, "key file %s: %s", path, strerror(-rc));
		return rc;
	}
	rc = unhex((const char *)text, key, n);
	sodium_memzero(text, len);
	free(text);
	if (rc < 0)
		opt_seterr(err, errlen, "key file %s: not %zu bytes of hex (an Ed25519 %s key from "
			   "`scalacn keygen`)", path, n, secret ? "secret" : "public");
	return rc;
}

/* Write BYTES as one line of hex to a new file PATH with MODE (never over an existing one). */
static int write_hex(const char *path, const unsigned char *bytes, size_t n, mode_t mode)
{
	char hex[2 * crypto_sign_SECRETKEYBYTES + 2];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode), rc = 0;
	size_t len;

	if (fd < 0)
		return -errno;
	sodium_bin2hex(hex, sizeof(hex) - 1, bytes, n);
	len = strlen(hex);
	hex[len++] = '\n';
	if (write(fd, hex, len) != (ssize_t)len)
		rc = -EIO;
	if (close(fd) != 0 && rc == 0)
		rc = -EIO;
	sodium_memzero(hex, sizeof(hex));
	return rc;
}

int opt_key_generate(const char *secret_path, const char *public_path, char *err,
		     size_t errlen)
{
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	const char *failed = secret_path;
	int rc;

	if (!secret_path || !public_path) {
		opt_seterr(err, errlen, "keygen: bad arguments");
		return -EINVAL;
	}
	if (sodium_init() < 0 || crypto_sign_keypair(pk, sk) != 0) {
		opt_seterr(err, errlen, "keygen: libsodium failed to initialise");
		return -EIO;
	}
	rc = write_hex(secret_path, sk, sizeof(sk), 0600);
	sodium_memzero(sk, sizeof(sk));
	if (rc == 0) {
		failed = public_path;
		rc = write_hex(public_path, pk, sizeof(pk), 0644);
		if (rc < 0)
			unlink(secret_path); /* no half key pair */
	}
	if (rc < 0)
		opt_seterr(err, errlen, "keygen: %s: %s", failed, strerror(-rc));
	return rc;
}

int opt_model_sign(const char *path, const char *secret_key_path, char *err, size_t errlen)
{
	unsigned char sk[crypto_sign_SECRETKEYBYTES], sig[crypto_sign_BYTES], *data = NULL;
	char sigpath[4096], pkhex[65], sighex[2 * crypto_sign_BYTES + 1];
	size_t len = 0;
	FILE *f;
	int rc;

	if (sodium_init() < 0) {
		opt_seterr(err, errlen, "sign: libsodium failed to initialise");
		return -EIO;
	}
	if ((rc = read_key(secret_key_path, sk, sizeof(sk), true, err, errlen)) < 0)
		return rc;
	if ((rc = slurp(path, SIGN_MAX_FILE, &data, &len)) < 0) {
		sodium_memzero(sk, sizeof(sk));
		opt_seterr(err, errlen, "model file %s: %s", path, strerror(-rc));
		return rc;
	}
	crypto_sign_detached(sig, NULL, data, len, sk);
	sodium_bin2hex(pkhex, sizeof(pkhex), sk + crypto_sign_SECRETKEYBYTES -
		       crypto_sign_PUBLICKEYBYTES, crypto_sign_PUBLICKEYBYTES);
	sodium_memzero(sk, sizeof(sk));
	free(data);
	sodium_bin2hex(sighex, sizeof(sighex), sig, sizeof(sig));
	snprintf(sigpath, sizeof(sigpath), "%s.sig", path);
	if (!(f = fopen(sigpath, "w"))) {
		opt_seterr(err, errlen, "signature %s: %s", sigpath, strerror(errno));
		return -errno;
	}
	fprintf(f, "%s\ned25519 %s\n%s\n", SIG_MAGIC, pkhex, sighex);
	if (fclose(f) != 0) {
		opt_seterr(err, errlen, "signature %s: write failed", sigpath);
		return -EIO;
	}
	return 0;
}

/* Parse PATH.sig: its key and signature. */
static int read_sig(const char *path, unsigned char pk[crypto_sign_PUBLICKEYBYTES],
		    unsigned char sig[crypto_sign_BYTES], char *err, size_t errlen)
{
	char sigpath[4096], pkhex[80], sighex[160], magic[40];
	unsigned char *text = NULL;
	size_t len = 0;
	int rc;

	snprintf(sigpath, sizeof(sigpath), "%s.sig", path);
	if ((rc = slurp(sigpath, 4096, &text, &len)) < 0) {
		opt_seterr(err, errlen, "model file %s is not signed (%s: %s) and a public key was "
			   "given: refusing it", path, sigpath, strerror(-rc));
		return -EPERM;
	}
	rc = sscanf((const char *)text, "%39[^\n]\ned25519 %79s %159s", magic, pkhex, sighex) == 3 &&
	     !strcmp(magic, SIG_MAGIC) && unhex(pkhex, pk, crypto_sign_PUBLICKEYBYTES) == 0 &&
	     unhex(sighex, sig, crypto_sign_BYTES) == 0 ? 0 : -EINVAL;
	free(text);
	if (rc < 0)
		opt_seterr(err, errlen, "signature %s: not a scalacn model signature", sigpath);
	return rc;
}

/* DATA as a file only we can touch: DIR (a fresh mode-0700 directory under $TMPDIR or
 * /tmp) holding DIR/model, mode 0400. SQLite opens files by name (and resolves symlinks, so
 * /proc/self/fd of a memfd will not do). */
static int private_copy(const unsigned char *data, size_t len, char *dir, size_t dlen,
			char *file, size_t flen)
{
	const char *tmp = getenv("TMPDIR");
	size_t n = 0;
	int fd, rc = 0;

	snprintf(dir, dlen, "%s/scalacn-model-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -errno;
	snprintf(file, flen, "%s/model", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0400);
	if (fd < 0) {
		rc = -errno;
		rmdir(dir);
		return rc;
	}
	while (n < len && rc == 0) {
		ssize_t w = write(fd, data + n, len - n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = -EIO;
		else
			n += (size_t)w;
	}
	if (close(fd) != 0 && rc == 0)
		rc = -EIO;
	if (rc < 0) {
		unlink(file);
		rmdir(dir);
	}
	return rc;
}

/* ERR says COPY where the caller's PATH belongs. */
static void name_path(char *err, size_t errlen, const char *copy, const char *path)
{
	char *at, tmp[1024];

	if (!err || !(at = strstr(err, copy)))
		return;
	snprintf(tmp, sizeof(tmp), "%.*s%s%s", (int)(at - err), err, path, at + strlen(copy));
	snprintf(err, errlen, "%s", tmp);
}

static int verify(const char *path, const unsigned char *data, size_t len,
		  const char *public_key_path, char *err, size_t errlen)
{
	unsigned char want[crypto_sign_PUBLICKEYBYTES], pk[crypto_sign_PUBLICKEYBYTES];
	unsigned char sig[crypto_sign_BYTES];
	int rc;

	if ((rc = read_key(public_key_path, want, sizeof(want), false, err, errlen)) < 0 ||
	    (rc = read_sig(path, pk, sig, err, errlen)) < 0)
		return rc;
	if (sodium_memcmp(pk, want, sizeof(pk)) != 0) {
		opt_seterr(err, errlen, "model file %s is signed by another key than %s: refusing "
			   "it", path, public_key_path);
		return -EBADMSG;
	}
	if (crypto_sign_verify_detached(sig, data, len, want) != 0) {
		opt_seterr(err, errlen, "model file %s does not match its signature (altered "
			   "after it was signed): refusing it", path);
		return -EBADMSG;
	}
	return 0;
}

int opt_model_load_signed(const char *path, const char *rnic, const char *public_key_path,
			  struct opt_model **out, char *err, size_t errlen)
{
	char dir[512], copy[600];
	unsigned char *data = NULL;
	size_t len = 0;
	int rc;

	if (!path || !out || !public_key_path) {
		opt_seterr(err, errlen, "model file: bad arguments");
		return -EINVAL;
	}
	*out = NULL;
	if (sodium_init() < 0) {
		opt_seterr(err, errlen, "model file %s: libsodium failed to initialise", path);
		return -EIO;
	}
	if ((rc = slurp(path, SIGN_MAX_FILE, &data, &len)) < 0) {
		opt_seterr(err, errlen, "model file %s: %s", path, strerror(-rc));
		return rc;
	}
	rc = verify(path, data, len, public_key_path, err, errlen);
	if (rc == 0 && (rc = private_copy(data, len, dir, sizeof(dir), copy, sizeof(copy))) < 0)
		opt_seterr(err, errlen, "model file %s: no private copy: %s", path, strerror(-rc));
	free(data);
	if (rc < 0)
		return rc;
	rc = opt_model_load(copy, rnic, out, err, errlen);
	unlink(copy);
	rmdir(dir);
	if (rc < 0)
		name_path(err, errlen, copy, path);
	return rc;
}
