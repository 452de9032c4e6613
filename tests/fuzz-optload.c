/* SPDX-License-Identifier: MIT */
/*
 * fuzz-optload: libFuzzer entry for the inputs agents and `scalacn replay` read from files:
 * the model loader (opt_model_load: the input is written to a temporary file, SQLite or not),
 * the number-array parser behind it, and the flow-trace reader (hx_trace_parse). A trace
 * that parses and is short (<= 4096 records within 30 s) is also replayed with verification
 * (the optimiser's probes against opt_table_classify). Invariants that break abort() so the
 * fuzzer (or the gcc driver, fuzz-optload-main.c) reports them. Needs a writable $TMPDIR
 * (or /tmp). No state survives between calls.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/replay/hx_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

static void fuzz_trace(const uint8_t *data, size_t size)
{
	struct hx_trace *t = NULL;
	struct hx_replay *r = NULL;
	struct hx_replay_opts o;
	struct scn_error err;
	int rc;

	scn_error_clear(&err);
	rc = hx_trace_parse((const char *)data, size, "fuzz", &t, &err);
	if (rc) {
		check(t == NULL && rc == err.code && err.message[0]);
		check(rc == -EINVAL || rc == -ENOMEM || rc == -E2BIG);
		return;
	}
	for (size_t i = 0; i < hx_trace_count(t); i++) {
		const struct hx_trace_rec *a = hx_trace_at(t, i);

		check(a->mask < HX_TRACE_MAX_MASKS && a->time >= 0 && a->time <= 1e7);
		check(a->packets <= 1000000000000000ULL);
		check(i == 0 || a->time >= hx_trace_at(t, i - 1)->time);
	}
	check(hx_trace_at(t, hx_trace_count(t)) == NULL);
	if (hx_trace_count(t) && hx_trace_count(t) <= 4096 &&
	    hx_trace_at(t, hx_trace_count(t) - 1)->time <= 30) {
		hx_replay_opts_default(&o);
		o.verify = true;
		o.opt.always_optimise = true;
		o.opt.hyper_capacity = 16;
		o.opt.admission_hits = 2;
		o.idle_timeout_s = 2;
		rc = hx_replay_run(t, &o, &r, &err);
		check(rc == 0 || rc == -ENOSPC); /* -EPROTO would be a classify mismatch */
		if (rc == 0) {
			const struct hx_replay_summary *s = hx_replay_summary(r);

			check(s->records == hx_trace_count(t));
			for (int p = 0; p < HX_POL_COUNT; p++)
				check(s->pol[p].p99_probes <= s->masks_seen + 2 &&
				      s->pol[p].mean_probes <= s->pol[p].p99_probes + s->masks_seen);
		}
		hx_replay_free(r);
	}
	hx_trace_free(t);
}

static void fuzz_numbers(const uint8_t *data, size_t size)
{
	double out[8];
	size_t n = 99;
	int rc = opt_parse_number_array((const char *)data, size, out, 8, &n);

	check(rc == 0 || rc == -EINVAL || rc == -E2BIG || rc == -ERANGE);
	check(rc != 0 || n <= 8);
}

static void fuzz_model(const uint8_t *data, size_t size)
{
	const char *dir = getenv("TMPDIR");
	struct opt_model *m = NULL;
	char path[512], msg[256];
	double v;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/fuzz-optload-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return;
	check(write(fd, data, size) == (ssize_t)size);
	close(fd);
	msg[0] = '\0';
	rc = opt_model_load(path, NULL, &m, msg, sizeof(msg));
	check(rc <= 0);
	check(rc == 0 ? m != NULL : (m == NULL && msg[0] != '\0'));
	if (m) {
		rc = opt_model_predict(m, "write", "bw", 10, 10, &v);
		check(rc == 0 || rc == -ENOENT || rc == -EDOM);
		rc = opt_model_in_domain(m, "write", "bw", 10, 10);
		check(rc == 0 || rc == 1 || rc == -ENOENT);
	}
	opt_model_free(m);
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace(data, size);
	fuzz_numbers(data, size);
	fuzz_model(data, size);
	return 0;
}
