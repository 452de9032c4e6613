/* SPDX-License-Identifier: MIT */
/*
 * hx_provenance: absolute paths and content hashes of a campaign's plan and testbed files
 * (see hx_provenance.h). The hash is gen_hash64 of the file's bytes: a change detector, not
 * a signature.
 */
#include "harness/campaign/hx_campaign.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/gen.h"

int hx_file_hash(const char *path, char out[17])
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;
	int rc = 0;

	out[0] = '\0';
	if (!f)
		return -errno;
	do {
		char *grown;

		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			grown = realloc(buf, cap);
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			buf = grown;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (rc == 0 && ferror(f))
		rc = -EIO;
	fclose(f);
	if (rc == 0)
		snprintf(out, 17, "%016" PRIx64, gen_hash64(buf, n, 0));
	free(buf);
	return rc;
}

/* PATH made absolute (symlinks resolved) when it exists and fits in LEN, else as given. */
static void absolute(const char *path, char *out, size_t len)
{
	char real[PATH_MAX];
	const char *use = realpath(path, real) && strlen(real) < len ? real : path;
	size_t n = strnlen(use, len - 1);

	memcpy(out, use, n);
	out[n] = '\0';
}

void hx_provenance_record(struct res_campaign *c, const char *plan_path,
			  const char *testbed_path)
{
	absolute(plan_path, c->plan_path, sizeof(c->plan_path));
	absolute(testbed_path, c->testbed, sizeof(c->testbed));
	hx_file_hash(c->plan_path, c->plan_file_hash);
	hx_file_hash(c->testbed, c->testbed_file_hash);
}

bool hx_provenance_changed(const struct res_campaign *c, bool testbed, char *why, size_t len)
{
	const char *path = testbed ? c->testbed : c->plan_path;
	const char *was = testbed ? c->testbed_file_hash : c->plan_file_hash;
	char now[17];
	int rc;

	if (!was[0])
		return false;
	rc = hx_file_hash(path, now);
	if (rc < 0)
		snprintf(why, len, "%s %s of campaign %lld cannot be read now: %s",
			 testbed ? "testbed" : "plan", path, (long long)c->id, strerror(-rc));
	else if (strcmp(now, was))
		snprintf(why, len, "%s %s changed since campaign %lld ran (content hash %s, "
			 "was %s)", testbed ? "testbed" : "plan", path,
			 (long long)c->id, now, was);
	return rc < 0 || strcmp(now, was) != 0;
}
