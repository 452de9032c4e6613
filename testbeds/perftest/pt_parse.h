/* SPDX-License-Identifier: MIT */
/*
 * pt_parse: reading what the perftest binaries (ib_{send,write,read,atomic}_{bw,lat}) print.
 *
 * Three inputs, three entry points:
 *   - stdout text  -> pt_parse_text()       (the result table, plus the header block)
 *   - --out_json   -> pt_parse_json()       (6.06's invalid form or the fixed upstream form)
 *   - stderr text  -> pt_classify_stderr()  (an error class and the line that shows it)
 *
 * What the parser assumes (docs/background.md, checked against perftest 6.06 and v4.5-0.17):
 *   - A title line ends in "Test" ("RDMA_Write BW Test", "Send Latency Test",
 *     "Atomic FETCH_AND_ADD BW Test", "RDMA_Write Bidirectional BW Test").
 *   - Header lines are " Label : value", some with two fields separated by tabs; a label may
 *     itself hold a tab (" rdma_cm QPs\t : OFF"). Values are kept as raw text ("1024[B]").
 *   - A table starts at a line whose first token is "#bytes"; a data row is a later line whose
 *     first token is an unsigned integer. Tokens are split on white space (blanks and tabs).
 *     Lines in between that are not rows (histogram "1, 2.3", counters, banners) are skipped.
 *   - BW tables: bytes, iterations, BW peak, BW average, MsgRate[Mpps]; "[MB/sec]" is MiB/s
 *     (2^20 bytes), "[Gb/sec]" is 10^9 bit/s. A QoS table has a "#sl" column after #bytes.
 *     BW peak prints 0.00 when it was not measured (-D, or more than 20000 iterations).
 *   - LAT tables: t_min t_max t_typical(median) t_avg t_stdev p99 p99.9, all usec; with -D:
 *     t_avg and "tps average" only. Latency is what perftest printed: half the round trip for
 *     send/write, the full round trip for read/atomic (see pt_result_rtt_kind()).
 *   - A trailing "CPU_Util[%]" column is read when the header announces it.
 *
 * Ownership: pt_parse_text()/pt_parse_json() allocate a struct pt_result the caller frees
 * with pt_result_free() (NULL accepted). Every pointer a pt_result_* accessor returns points
 * into that result and lives until it is freed. pt_json_repair() returns a malloc'd string
 * the caller free()s. Nothing here prints, exits, or keeps state between calls.
 *
 * Errors: -EINVAL for input the parser cannot use (no table, malformed row, bad JSON), with
 * the caller's name for the input in err->file, the 1-based line (and column when known) in
 * err->line/err->column, and class SCN_ERR_TRANSIENT (unusable output usually means a run that
 * died; pt_classify_stderr() says why). -ENOMEM on allocation failure (SCN_ERR_INTERNAL).
 */
#ifndef PT_PARSE_H
#define PT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/scn_error.h"

enum pt_verb { PT_VERB_UNKNOWN = 0, PT_VERB_SEND, PT_VERB_WRITE, PT_VERB_READ, PT_VERB_ATOMIC };
enum pt_kind { PT_KIND_UNKNOWN = 0, PT_KIND_BW, PT_KIND_LAT };

/* Which latency perftest printed: half the round trip (send, write) or the full round trip
 * (read, atomic). PT_RTT_NA for bandwidth results and unknown verbs. */
enum pt_rtt { PT_RTT_NA = 0, PT_RTT_HALF, PT_RTT_FULL };

/* The unit of the BW peak / BW average columns. */
enum pt_bw_unit {
	PT_BW_UNIT_NONE = 0, /* latency table, or JSON that does not say */
	PT_BW_UNIT_MIBS,     /* "[MB/sec]": 2^20 bytes per second */
	PT_BW_UNIT_GBPS,     /* "[Gb/sec]": 10^9 bits per second (--report_gbits) */
};

/* Which table layout the rows came from. */
enum pt_form {
	PT_FORM_NONE = 0,
	PT_FORM_BW,      /* #bytes #iterations peak average MsgRate */
	PT_FORM_BW_QOS,  /* #bytes #sl #iterations peak average MsgRate */
	PT_FORM_LAT,     /* #bytes #iterations t_min t_max t_typical t_avg t_stdev p99 p99.9 */
	PT_FORM_LAT_DUR, /* -D: #bytes #iterations t_avg tps_average */
};

/* How the JSON text was accepted. */
enum pt_json_form { PT_JSON_NONE = 0, PT_JSON_VALID, PT_JSON_REPAIRED };

/* One header field (" Mtu             : 1024[B]" -> "Mtu", "1024[B]"). Longer text is cut. */
struct pt_field {
	char label[64];
	char value[128];
	unsigned line; /* 1-based line in the text; 0 for JSON */
};

/* One table row. Columns the table form does not have are NAN (sl is -1 then).
 * Invariant: bw_avg_gbps is bw_avg converted to 10^9 bit/s when the unit is known, else NAN. */
struct pt_row {
	uint64_t bytes;
	uint64_t iterations;
	int sl;               /* QoS form only */
	/* bandwidth tables, in the printed unit */
	double bw_peak;
	double bw_avg;
	double bw_avg_gbps;   /* MiB/s * 2^20 * 8 / 1e9, or the printed Gb/s */
	double msg_rate_mpps;
	/* latency tables, usec as printed (see enum pt_rtt) */
	double t_min, t_max;
	double t_typical;     /* the median */
	double t_avg;
	double t_stdev;       /* perftest truncates to integers while summing: unreliable */
	double p99, p999;
	double tps_avg;       /* -D latency form: transactions per second */
	double cpu_util;      /* percent, when the table has CPU_Util[%] */
	unsigned line;        /* 1-based line in the text; 0 for JSON */
};

struct pt_result; /* opaque */

/* Parse perftest stdout. name labels the input in errors (NULL: "perftest output").
 * On success *out is a new result with at least one row. */
int pt_parse_text(const char *text, size_t len, const char *name, struct pt_result **out,
		  struct scn_error *err);

/* Parse an --out_json file. Valid JSON is parsed as is; otherwise the 6.06 form (unquoted
 * keys and values, trailing commas) is repaired first (pt_json_repair) and parsed again with
 * json-c in strict mode. unit says what --report_gbits was (the JSON does not say); it is
 * used for bw_avg_gbps and pt_result_bw_unit(). */
int pt_parse_json(const char *text, size_t len, enum pt_bw_unit unit, const char *name,
		  struct pt_result **out, struct scn_error *err);

/* Turn 6.06-style pseudo-JSON into JSON text: bare keys and bare non-numeric values are
 * quoted, trailing commas before } and ] are dropped, quoted strings are copied as they are.
 * Valid JSON comes out unchanged apart from white space. *out is malloc'd, NUL-terminated;
 * *out_len (may be NULL) is its length. -EINVAL for unbalanced brackets. */
int pt_json_repair(const char *text, size_t len, char **out, size_t *out_len,
		   struct scn_error *err);

void pt_result_free(struct pt_result *r);

const char *pt_result_title(const struct pt_result *r); /* "" when there was none */
enum pt_verb pt_result_verb(const struct pt_result *r);
enum pt_kind pt_result_kind(const struct pt_result *r);
enum pt_rtt pt_result_rtt_kind(const struct pt_result *r);
enum pt_bw_unit pt_result_bw_unit(const struct pt_result *r);
enum pt_form pt_result_form(const struct pt_result *r);
enum pt_json_form pt_result_json_form(const struct pt_result *r); /* NONE for text */
bool pt_result_bidirectional(const struct pt_result *r);

size_t pt_result_n_fields(const struct pt_result *r);
const struct pt_field *pt_result_field(const struct pt_result *r, size_t i); /* NULL if out */
/* Value of the first field whose label equals label (case-sensitive), or NULL. */
const char *pt_result_field_value(const struct pt_result *r, const char *label);

size_t pt_result_n_rows(const struct pt_result *r);
const struct pt_row *pt_result_row(const struct pt_result *r, size_t i); /* NULL if out */
/* The row for a message size, or NULL (the last one when a size repeats). */
const struct pt_row *pt_result_row_for_bytes(const struct pt_result *r, uint64_t bytes);

/* Derived facts of a title ("RDMA_Read Latency Test", or JSON's "RDMA_Read_Latency_Test"). */
enum pt_verb pt_title_verb(const char *title);
enum pt_kind pt_title_kind(const char *title);
enum pt_rtt pt_rtt_for(enum pt_verb verb, enum pt_kind kind);

/* MiB/s -> 10^9 bit/s (x * 2^20 * 8 / 1e9); Gb/s unchanged; NAN for PT_BW_UNIT_NONE. */
double pt_bw_to_gbps(double value, enum pt_bw_unit unit);

/* Stable lower-case names: "send", "bw", "half", "mibs", "lat_dur", "repaired", ... */
const char *pt_verb_name(enum pt_verb v);
const char *pt_kind_name(enum pt_kind k);
const char *pt_rtt_name(enum pt_rtt k);
const char *pt_bw_unit_name(enum pt_bw_unit u);
const char *pt_form_name(enum pt_form f);
const char *pt_json_form_name(enum pt_json_form f);

/* ---- stderr classification ---- */

enum pt_err {
	PT_ERR_NONE = 0,     /* empty, or only known harmless warnings */
	PT_ERR_NO_DEVICE,    /* "Did not detect devices", "Unable to find the Infiniband/RoCE
			      * device", "IB device X not found" */
	PT_ERR_PORT_DOWN,    /* "Port number 1 state is Down" */
	PT_ERR_CONN_REFUSED, /* "Couldn't connect to H:P", "Unable to connect (retries = 10)" */
	PT_ERR_PORT_BUSY,    /* "Couldn't listen to port N" */
	PT_ERR_COMPLETION,   /* "Completion with error at client", "Failed status 12" */
	PT_ERR_PEER_GONE,    /* "Couldn't read remote address", failed exchange */
	PT_ERR_REPORT,       /* "Can't produce a report", "Correlation coefficient r^2 ..." */
	PT_ERR_USAGE,        /* invalid option / value out of range: our command line was wrong */
	PT_ERR_UNKNOWN,      /* some other stderr line that is not a known harmless warning */
	PT_ERR_COUNT
};

/* What pt_classify_stderr found. message is the matched line (trimmed, cut to fit). */
struct pt_diag {
	enum pt_err err;
	unsigned line;     /* 1-based line of message in the stderr text; 0 for NONE */
	int wc_status;     /* "Failed status N" (ibv_wc_status), -1 when not printed */
	char message[256];
};

/* Classify stderr. When several lines match, the most specific class wins, in enum order
 * (a missing device explains a refused connection, a completion error explains a peer that
 * went away). With exit status 0, PT_ERR_UNKNOWN is only an unrecognised warning.
 * Returns d->err; d may be NULL. */
enum pt_err pt_classify_stderr(const char *text, size_t len, struct pt_diag *d);
const char *pt_err_name(enum pt_err e); /* "none", "no_device", "port_down", ... */
/* What a caller should do: device (stop), transient (retry), config (fix the command). */
enum scn_errclass pt_err_class(enum pt_err e);

#endif
