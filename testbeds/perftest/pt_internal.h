/* SPDX-License-Identifier: MIT */
/*
 * pt_internal: the members of struct pt_result and the helpers the pt_parse*.c files share.
 * Private to testbeds/perftest; callers use pt_parse.h.
 */
#ifndef PT_INTERNAL_H
#define PT_INTERNAL_H

#include "testbeds/perftest/pt_parse.h"

/* Invariants: n_fields <= cap_fields, n_rows <= cap_rows; a result handed to a caller has
 * n_rows >= 1 and kind/form agree (BW forms <-> PT_KIND_BW, LAT forms <-> PT_KIND_LAT). */
struct pt_result {
	char title[128];
	enum pt_verb verb;
	enum pt_kind kind;
	enum pt_bw_unit unit;
	enum pt_form form;
	enum pt_json_form json_form;
	bool bidir;
	struct pt_field *fields;
	size_t n_fields, cap_fields;
	struct pt_row *rows;
	size_t n_rows, cap_rows;
};

struct pt_result *pt_result_new(void);
/* Copy label/value (cut to fit). 0 or -ENOMEM. */
int pt_result_add_field(struct pt_result *r, const char *label, const char *value, unsigned line);
/* Append a copy of row. 0 or -ENOMEM. */
int pt_result_add_row(struct pt_result *r, const struct pt_row *row);
/* Title, verb, kind-from-title and bidirectional flag. */
void pt_result_set_title(struct pt_result *r, const char *title);
/* A row with every optional column NAN and sl = -1. */
void pt_row_init(struct pt_row *row);

/* Fill err: class SCN_ERR_TRANSIENT (SCN_ERR_INTERNAL for -ENOMEM), file = name (or
 * "perftest output"), line, column. Returns code. */
int pt_fail(struct scn_error *err, const char *name, unsigned line, unsigned column, int code,
	    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Check a finished result (kind/form agreement, at least one row). 0 or -EINVAL. */
int pt_result_finish(struct pt_result *r, const char *name, unsigned line, struct scn_error *err);

/* Build a result from a parsed --out_json object (pt_json_fill.c). root stays the caller's. */
struct json_object;
int pt_json_fill(struct json_object *root, enum pt_bw_unit unit, enum pt_json_form form,
		 const char *name, struct pt_result **out, struct scn_error *err);

#endif
