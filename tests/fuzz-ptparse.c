/* SPDX-License-Identifier: MIT */
/*
 * fuzz-ptparse: libFuzzer entry for the perftest output parser. One input is fed to every
 * entry point (text table, --out_json, JSON repair, stderr classification) and the results
 * are checked for the invariants pt_parse.h promises; a violation abort()s so the fuzzer (or
 * the gcc smoke driver, fuzz-ptparse-main.c) reports it. No state survives between calls.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

static bool same(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static void check_result(const struct pt_result *r, bool text)
{
	enum pt_bw_unit u = pt_result_bw_unit(r);
	unsigned last = 0;

	check(pt_result_n_rows(r) >= 1);
	check(pt_result_kind(r) != PT_KIND_UNKNOWN);
	check(pt_result_kind(r) == PT_KIND_BW || u == PT_BW_UNIT_NONE);
	check(pt_result_rtt_kind(r) == pt_rtt_for(pt_result_verb(r), pt_result_kind(r)));
	check(strlen(pt_result_title(r)) < 128);
	for (size_t i = 0; i < pt_result_n_fields(r); i++)
		check(strlen(pt_result_field(r, i)->label) < 64 &&
		      strlen(pt_result_field(r, i)->value) < 128);
	for (size_t i = 0; i < pt_result_n_rows(r); i++) {
		const struct pt_row *row = pt_result_row(r, i);
		if (pt_result_kind(r) == PT_KIND_BW)
			check(same(row->bw_avg_gbps, pt_bw_to_gbps(row->bw_avg, u)));
		else
			check(isnan(row->bw_avg) && isnan(row->bw_avg_gbps));
		check(!text || row->line > last);
		last = row->line;
	}
	check(pt_result_row(r, pt_result_n_rows(r)) == NULL);
}

static void check_error(int rc, const struct scn_error *err)
{
	check(rc == -EINVAL || rc == -ENOMEM);
	check(err->code == rc && err->message[0] && err->file[0]);
	check(err->line >= 0 && err->column >= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct scn_error err;
	struct pt_result *r = NULL;
	struct pt_diag d;
	char *fixed = NULL;
	size_t n = 0;
	enum pt_err e;
	int rc;

	rc = pt_parse_text(text, size, "fuzz.out", &r, &err);
	if (rc == 0)
		check_result(r, true);
	else
		check_error(rc, &err);
	pt_result_free(r);
	rc = pt_parse_json(text, size, PT_BW_UNIT_MIBS, "fuzz.json", &r, &err);
	if (rc == 0)
		check_result(r, false);
	else
		check_error(rc, &err);
	pt_result_free(r);
	rc = pt_json_repair(text, size, &fixed, &n, &err);
	check(rc != 0 || (fixed && strlen(fixed) <= n && n <= 8 * size + 1));
	free(fixed);
	e = pt_classify_stderr(text, size, &d);
	check(e == d.err && (unsigned)e < PT_ERR_COUNT);
	check((e == PT_ERR_NONE) == (d.line == 0));
	check(strlen(d.message) < sizeof(d.message));
	check(strcmp(pt_err_name(e), "?") != 0);
	return 0;
}
