/* SPDX-License-Identifier: MIT */
/*
 * pt_result: the parsed perftest result (header fields + table rows), its accessors, and the
 * small facts derived from a test title (verb, kind, which round trip a latency is).
 * Assumes titles as perftest prints them: "<Verb> [<detail>] <BW|Latency> Test", where the
 * verb is Send, RDMA_Write(_imm), RDMA_Read or Atomic; JSON writes '_' for the spaces.
 */
#include "testbeds/perftest/pt_internal.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pt_result *pt_result_new(void)
{
	return calloc(1, sizeof(struct pt_result));
}

void pt_result_free(struct pt_result *r)
{
	if (!r)
		return;
	free(r->fields);
	free(r->rows);
	free(r);
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

int pt_result_add_field(struct pt_result *r, const char *label, const char *value, unsigned line)
{
	struct pt_field *f;

	if (grow((void **)&r->fields, &r->cap_fields, r->n_fields, sizeof(*r->fields)))
		return -ENOMEM;
	f = &r->fields[r->n_fields++];
	snprintf(f->label, sizeof(f->label), "%s", label);
	snprintf(f->value, sizeof(f->value), "%s", value);
	f->line = line;
	assert(r->n_fields <= r->cap_fields);
	return 0;
}

int pt_result_add_row(struct pt_result *r, const struct pt_row *row)
{
	if (grow((void **)&r->rows, &r->cap_rows, r->n_rows, sizeof(*r->rows)))
		return -ENOMEM;
	r->rows[r->n_rows++] = *row;
	assert(r->n_rows <= r->cap_rows);
	return 0;
}

void pt_row_init(struct pt_row *row)
{
	memset(row, 0, sizeof(*row));
	row->sl = -1;
	row->bw_peak = row->bw_avg = row->bw_avg_gbps = row->msg_rate_mpps = NAN;
	row->t_min = row->t_max = row->t_typical = row->t_avg = row->t_stdev = NAN;
	row->p99 = row->p999 = row->tps_avg = row->cpu_util = NAN;
}

void pt_result_set_title(struct pt_result *r, const char *title)
{
	snprintf(r->title, sizeof(r->title), "%s", title);
	r->verb = pt_title_verb(r->title);
	r->bidir = strstr(r->title, "Bidirectional") != NULL;
}

int pt_fail(struct scn_error *err, const char *name, unsigned line, unsigned column, int code,
	    const char *fmt, ...)
{
	char msg[sizeof(err->message)];
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	scn_error_set(err, code == -ENOMEM ? SCN_ERR_INTERNAL : SCN_ERR_TRANSIENT, code, "%s",
		      msg);
	snprintf(err->file, sizeof(err->file), "%s", name ? name : "perftest output");
	err->line = (int)line;
	err->column = (int)column;
	return code;
}

static enum pt_kind form_kind(enum pt_form f)
{
	switch (f) {
	case PT_FORM_BW:
	case PT_FORM_BW_QOS:
		return PT_KIND_BW;
	case PT_FORM_LAT:
	case PT_FORM_LAT_DUR:
		return PT_KIND_LAT;
	default:
		return PT_KIND_UNKNOWN;
	}
}

int pt_result_finish(struct pt_result *r, const char *name, unsigned line, struct scn_error *err)
{
	if (r->n_rows == 0)
		return pt_fail(err, name, line, 0, -EINVAL, "result table has no rows");
	r->kind = form_kind(r->form);
	if (r->kind == PT_KIND_UNKNOWN)
		return pt_fail(err, name, line, 0, -EINVAL, "unknown result table form");
	if (r->kind != PT_KIND_BW)
		r->unit = PT_BW_UNIT_NONE;
	return 0;
}

const char *pt_result_title(const struct pt_result *r) { return r->title; }
enum pt_verb pt_result_verb(const struct pt_result *r) { return r->verb; }
enum pt_kind pt_result_kind(const struct pt_result *r) { return r->kind; }
enum pt_bw_unit pt_result_bw_unit(const struct pt_result *r) { return r->unit; }
enum pt_form pt_result_form(const struct pt_result *r) { return r->form; }
enum pt_json_form pt_result_json_form(const struct pt_result *r) { return r->json_form; }
bool pt_result_bidirectional(const struct pt_result *r) { return r->bidir; }
size_t pt_result_n_fields(const struct pt_result *r) { return r->n_fields; }
size_t pt_result_n_rows(const struct pt_result *r) { return r->n_rows; }

enum pt_rtt pt_result_rtt_kind(const struct pt_result *r)
{
	return pt_rtt_for(r->verb, r->kind);
}

const struct pt_field *pt_result_field(const struct pt_result *r, size_t i)
{
	return i < r->n_fields ? &r->fields[i] : NULL;
}

const char *pt_result_field_value(const struct pt_result *r, const char *label)
{
	for (size_t i = 0; i < r->n_fields; i++)
		if (strcmp(r->fields[i].label, label) == 0)
			return r->fields[i].value;
	return NULL;
}

const struct pt_row *pt_result_row(const struct pt_result *r, size_t i)
{
	return i < r->n_rows ? &r->rows[i] : NULL;
}

const struct pt_row *pt_result_row_for_bytes(const struct pt_result *r, uint64_t bytes)
{
	const struct pt_row *hit = NULL;

	for (size_t i = 0; i < r->n_rows; i++)
		if (r->rows[i].bytes == bytes)
			hit = &r->rows[i];
	return hit;
}

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

enum pt_verb pt_title_verb(const char *title)
{
	while (*title == ' ' || *title == '\t')
		title++;
	if (has_prefix(title, "Send"))
		return PT_VERB_SEND;
	if (has_prefix(title, "RDMA_Write"))
		return PT_VERB_WRITE;
	if (has_prefix(title, "RDMA_Read"))
		return PT_VERB_READ;
	if (has_prefix(title, "Atomic"))
		return PT_VERB_ATOMIC;
	return PT_VERB_UNKNOWN;
}

enum pt_kind pt_title_kind(const char *title)
{
	if (strstr(title, "Latency"))
		return PT_KIND_LAT;
	if (strstr(title, " BW") || strstr(title, "_BW"))
		return PT_KIND_BW;
	return PT_KIND_UNKNOWN;
}

enum pt_rtt pt_rtt_for(enum pt_verb verb, enum pt_kind kind)
{
	if (kind != PT_KIND_LAT)
		return PT_RTT_NA;
	switch (verb) {
	case PT_VERB_SEND:
	case PT_VERB_WRITE:
		return PT_RTT_HALF;
	case PT_VERB_READ:
	case PT_VERB_ATOMIC:
		return PT_RTT_FULL;
	default:
		return PT_RTT_NA;
	}
}

double pt_bw_to_gbps(double value, enum pt_bw_unit unit)
{
	switch (unit) {
	case PT_BW_UNIT_MIBS:
		return value * 1048576.0 * 8.0 / 1e9;
	case PT_BW_UNIT_GBPS:
		return value;
	default:
		return NAN;
	}
}

#define NAME_OF(arr, i) ((size_t)(i) < sizeof(arr) / sizeof((arr)[0]) ? (arr)[i] : "?")

const char *pt_verb_name(enum pt_verb v)
{
	static const char *const n[] = { "unknown", "send", "write", "read", "atomic" };
	return NAME_OF(n, v);
}

const char *pt_kind_name(enum pt_kind k)
{
	static const char *const n[] = { "unknown", "bw", "lat" };
	return NAME_OF(n, k);
}

const char *pt_rtt_name(enum pt_rtt k)
{
	static const char *const n[] = { "na", "half", "full" };
	return NAME_OF(n, k);
}

const char *pt_bw_unit_name(enum pt_bw_unit u)
{
	static const char *const n[] = { "none", "mibs", "gbps" };
	return NAME_OF(n, u);
}

const char *pt_form_name(enum pt_form f)
{
	static const char *const n[] = { "none", "bw", "bw_qos", "lat", "lat_dur" };
	return NAME_OF(n, f);
}

const char *pt_json_form_name(enum pt_json_form f)
{
	static const char *const n[] = { "none", "valid", "repaired" };
	return NAME_OF(n, f);
}
