/* SPDX-License-Identifier: MIT */
/*
 * hx_rep: reports people read and comparisons CI gates on (the `report` and `diff`
 * commands): the door of harness/report/.
 *
 * hx_rep_write reads one campaign from the store (results/, the fit room's models) and
 * writes a self-contained folder: index.html (or report.md, or report.json) and the SVG
 * plots it shows, drawn by PLplot's svg device. The page needs no network: no script, no
 * remote font or style, every image a file of the folder. A campaign that did not finish
 * still renders: what is missing is said where it would have been.
 *
 * hx_diff_compute compares two campaigns (in one database or two): walls that moved (level
 * or effect), walls and causes gained or lost, criteria whose verdict changed, and the
 * predictions of their models at the same points. Nothing here prints to a terminal: the
 * CLI prints the diff (hx_diff_text writes to a stream it gives) and chooses the exit code.
 *
 * Ownership: every struct is the caller's value; hx_diff_free releases a diff's rows.
 */
#ifndef HX_REP_H
#define HX_REP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/scn_error.h"

struct res_db;

enum hx_rep_format { HX_REP_HTML = 0, HX_REP_MD, HX_REP_JSON };
/* "html", "md", "json" -> format; -1 otherwise. */
int hx_rep_format_parse(const char *name);

struct hx_rep_opts {
	struct res_db *db;
	int64_t campaign;         /* >= 1 */
	const char *dir;          /* created when missing */
	enum hx_rep_format format;
	struct res_db *base_db;   /* NULL: no diff section; else the baseline campaign's store */
	int64_t base_campaign;
};

struct hx_rep_info {
	char page[512];           /* the page written (DIR/index.html, ...) */
	unsigned images;          /* plots written */
	unsigned missing;         /* sections the campaign could not fill */
};

/* Write the report of O->campaign into O->dir. 0, or a negative errno with ERR (class usage
 * for a folder that cannot be written, store errors as the store says). */
int hx_rep_write(const struct hx_rep_opts *o, struct hx_rep_info *info, struct scn_error *err);

/* ---- diff ------------------------------------------------------------------------------- */
enum hx_diff_kind {
	HX_DIFF_WALL_MOVED = 0, /* same wall, another level or an effect beyond both noises */
	HX_DIFF_WALL_GAINED,    /* a wall in B only */
	HX_DIFF_WALL_LOST,      /* a wall in A only */
	HX_DIFF_CAUSE_GAINED,   /* a supported cause in B only (members, verb, metric) */
	HX_DIFF_CAUSE_LOST,
	HX_DIFF_CRITERION,      /* a criterion's verdict changed (or it is judged in one only) */
	HX_DIFF_MODEL,          /* a model's prediction moved beyond its interval */
	HX_DIFF_KIND_COUNT
};
const char *hx_diff_kind_name(enum hx_diff_kind k); /* "wall-moved", ... */

struct hx_diff_row {
	enum hx_diff_kind kind;
	char what[192];           /* "write bw wall along flows", "cause flows (write bw)" */
	char a[192], b[192];      /* each side's numbers, "" when absent */
	bool gate;                /* counts as a change (a model row within noise does not) */
};

struct hx_diff {
	int64_t a, b;             /* campaign ids */
	char a_name[160], b_name[160]; /* "campaign 3 (ConnectX-6 Dx, fw ...)" */
	unsigned n, cap;
	struct hx_diff_row *rows;
	unsigned walls, causes, criteria, models; /* compared (matched or not) */
};

int hx_diff_compute(struct res_db *da, int64_t a, struct res_db *db, int64_t b,
		    struct hx_diff *out, struct scn_error *err);
void hx_diff_free(struct hx_diff *d);
/* Changes of kind K that gate (row.gate). */
unsigned hx_diff_count(const struct hx_diff *d, enum hx_diff_kind k);
/* "wall-moved,new-cause,criterion" -> bit (1 << kind) per gate; "new-cause" means
 * cause-gained, "wall-moved" also counts walls gained or lost. -1 with ERR naming the bad
 * word. */
int hx_diff_gates_parse(const char *text, unsigned *bits, struct scn_error *err);
/* Whether a change of a kind in BITS is in D. */
bool hx_diff_fails(const struct hx_diff *d, unsigned bits);
/* The diff as text rows to OUT, as a json-c object {a, b, changes: [{kind, what, a, b,
 * gate}]} (the CLI puts it in a document of its JSON contract), as JUnit XML at PATH (one
 * testcase per gate kind asked for, failing with the rows of that kind). */
void hx_diff_text(const struct hx_diff *d, FILE *out);
struct json_object;
struct json_object *hx_diff_json_object(const struct hx_diff *d);
int hx_diff_junit(const struct hx_diff *d, unsigned bits, const char *path,
		  struct scn_error *err);

#endif
