/* SPDX-License-Identifier: MIT */
/*
 * libscalacn-opt: the runtime optimiser that production agents link (DESIGN.md "Runtime
 * optimiser"). It depends only on libc, libm, SQLite and libsodium (signed model files),
 * includes no other scalacn header, never prints, never exits, never touches a NIC: it plans
 * rule operations an agent applies.
 *
 * ---- The lookup model ------------------------------------------------------------------
 * An RNIC eSwitch table is a cascade of masks (mlx5 matchers, tc flower prios, OVS dpcls
 * subtables). A packet is looked up mask by mask, in order, until a hit; every mask probed
 * costs time (empty masks are probed too, as mlx5 does). In front of the cascade sits the
 * hyper mask: one matcher exact on ALL header fields holding copies of hot exact rules,
 * bounded, LRU-replaced, with admission by a hit threshold (the OVS EMC lesson: inserting
 * every flow thrashes it). A hyper entry is an exact COPY of one microflow (a full header)
 * carrying its rule's action; the rule stays in its own mask. A rule is an "exact flow",
 * eligible for the hyper mask, when all its traffic is one microflow: always for a rule with
 * the full mask (every field, IP /32); for a wildcarded rule when the agent reports its
 * counters with opt_table_record_flow and every report in the window carried the same
 * header (a second header makes its copy dead: it would miss that traffic).
 *
 * ---- Priorities across masks (our choice, documented) ----------------------------------
 * Rules carry a priority (lower value = preferred; ties broken by lower rule id, so rules
 * are totally ordered). Two rules of different masks overlap when some packet matches both.
 * If rule a (mask A) overlaps rule b (mask B) and a is preferred, A must be probed before B
 * for a first-match NIC (tc) to be right. We keep correctness in two layers:
 *  1. By construction: the planner orders masks by locality subject to these precedence
 *     edges (a topological order). A tc rendering of a planned layout is correct with plain
 *     first-match semantics whenever the precedence graph has no cycle. (A plan cut short
 *     by the update budget applies a prefix of its moves; until the rest lands, a mask may
 *     sit before one it must follow, which layer 2 covers.)
 *  2. By verification (as mlx5 does with per-rule priority): a mask that comes before a mask
 *     it must follow (a static insertion order, or a cycle) is flagged; a first hit in a
 *     flagged mask makes opt_table_classify keep probing the later masks and return the
 *     preferred match. The hyper mask never holds a copy of a microflow that a preferred
 *     rule also matches (checked on admission; a later add of such a rule marks the copy
 *     dead, classify skips it and the next tick evicts it).
 * The precedence between masks is recomputed lazily for the masks whose rules changed, per
 * pair of masks in O(rules of both) by hashing rules on the fields both masks match.
 * Idle masks are removed only when none of their rules is preferred over an overlapping rule
 * of another mask (removing them would hand those packets to a worse rule).
 *
 * ---- Errors and ownership ---------------------------------------------------------------
 * Functions return 0 or a negative errno. Functions that can fail for reasons a user must
 * read take (char *err, size_t errlen): when ERR is not NULL a NUL-terminated message is
 * written there (truncated to ERRLEN). Every object returned through a pointer is owned by
 * the caller and freed by its *_free function; all *_free functions accept NULL.
 * Objects are not thread-safe: one table per agent thread, or external locking.
 */
#ifndef SCALACN_OPT_H
#define SCALACN_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define OPT_API __attribute__((visibility("default")))
#else
#define OPT_API
#endif

/* ---- Header fields and masks ---------------------------------------------------------- */
/* IP fields (ip_src, ip_dst, tun_src, tun_dst) hold IPv4 addresses in host byte order in the
 * low 32 bits and are matched by prefix; every other field is matched exactly or not at all.
 * MAC addresses are the 48-bit value; every other field (ports, VNI, ethertype, protocol,
 * in_port) holds at most 32 bits: a rule or a recorded microflow header with a wider value
 * is refused (-EINVAL), and a packet carrying one matches no rule that matches the field. */
enum opt_field {
	OPT_F_IN_PORT = 0, OPT_F_ETH_SRC, OPT_F_ETH_DST, OPT_F_ETH_TYPE, OPT_F_IP_SRC,
	OPT_F_IP_DST, OPT_F_IP_PROTO, OPT_F_L4_SRC, OPT_F_L4_DST, OPT_F_TUN_ID, OPT_F_TUN_SRC,
	OPT_F_TUN_DST, OPT_F_TUN_DPORT,
	OPT_F_COUNT
};
#define OPT_F_ALL ((1u << OPT_F_COUNT) - 1u)

/* True for the four prefix-matched IPv4 fields. */
OPT_API bool opt_field_is_ip(enum opt_field f);
OPT_API const char *opt_field_name(enum opt_field f);

/* A mask: FIELDS is a bitset (1u << OPT_F_x); PLEN[f] is the prefix length (1..32) of an IP
 * field present in FIELDS (ignored otherwise; 0 on a present IP field removes it). */
struct opt_mask {
	uint32_t fields;
	uint8_t plen[OPT_F_COUNT];
};

/* A rule. ID must be non-zero (it is also the tc filter handle); PRIORITY lower = preferred;
 * ACTION is opaque to the library (rendered as the tc action cookie). Bits of V outside the
 * mask are ignored (the table stores V & mask). */
struct opt_rule {
	uint32_t id;
	struct opt_mask mask;
	uint64_t v[OPT_F_COUNT];
	uint32_t priority;
	uint32_t action;
};

/* A packet header: one value per field. */
struct opt_pkt {
	uint64_t v[OPT_F_COUNT];
};

/* The full mask (every field, IP prefixes /32): the hyper mask's shape. */
OPT_API void opt_mask_full(struct opt_mask *m);

/* ---- Number-array parser (exposed for tests and fuzzing) ------------------------------ */
/* Parse a JSON array of numbers ONLY ("[1, -2.5e3]", "[]"; surrounding whitespace allowed)
 * from S (LEN bytes, need not be NUL-terminated) into OUT (CAP slots); *N = count.
 * Strict JSON number grammar; no other value types; at most 4096 bytes. Locale independent.
 * -EINVAL malformed, -E2BIG more than CAP numbers or input too long, -ERANGE non-finite. */
OPT_API int opt_parse_number_array(const char *s, size_t len, double *out, size_t cap,
				   size_t *n);

/* ---- Degradation models ---------------------------------------------------------------- */
/* Model file (written by `scalacn export` through opt_model_write): an SQLite database with
 *   meta(key TEXT PRIMARY KEY, value TEXT): format='scalacn-model', version='1',
 *        checksum = 16 lowercase hex digits of the 64-bit FNV-1a (offset 0xcbf29ce484222325,
 *        prime 0x100000001b3) over the canonical concatenation of the models rows;
 *   models(rnic_model, firmware, verb, metric, form, params_json, domain_json, quality_json),
 *        all TEXT NOT NULL.
 * Canonical concatenation: rows in ascending byte order of (rnic_model, firmware, verb,
 * metric, form, params_json, domain_json, quality_json); each of the 8 values' bytes followed
 * by 0x1f; each row followed by 0x1e.
 * params_json: JSON array of numbers in this order (x = masks on the local host, y = masks on
 * the remote host):
 *   rbf2    [a,b,c,d,e]  a*exp(-((x-b)^2 + (y-c)^2) / (2 d^2)) + e     (d != 0)
 *   plane   [a,b,c]      a*x + b*y + c
 *   line    [a,b]        a*x + b
 *   rbf1    [a,b,d,e]    a*exp(-(x-b)^2 / (2 d^2)) + e                   (d != 0)
 *   service [L,k1] or [L,k1,k2]   L / (1 + k1*x + k2*y)   (k2 = 0 when absent)
 *   knee    [a,b,k]      a when x <= k, else a + b*(x - k)   (flat, then linear: a cliff)
 *   cap     [L,c,k1,s] or [L,c,k1,k2,s]   L / smax(1, c + k1*v(x), c + k2*v(y))
 *                        (k2 = 0 when absent; s > 0): bandwidth set by the slowest stage
 *   walk    [a,b,s] or [a,b,c,s]          a + b*v(x) + c*v(y)   (c = 0 when absent; s > 0)
 *   cliff   [L,c,k,h,x0,w]  L / smax(1, c + k*y) * (1 - h / (1 + exp(-(x - x0)/w)))
 *                        (w > 0): a capacity cliff in x (flows past the steering cache)
 *                        times a walk bottleneck in y (smax(1, t) as cap's, t < 0 as 0)
 *   cliffy  [L,c,k,h,x0,w]  the same with x and y swapped
 *   spill   [L,c,k,S,x0,p,q] or [L,c,k,S,x0,p,q,g]  1 / ((1 - s(x)) * smax(1, c + k*y) / L
 *                        + l(x) / S) with s(x) = 1 - (e/x)^p for x > e = x0 - q*y, else 0
 *                        (S, x0, p > 0, q >= 0) and l(x) = s(x) * (x/e)^g (g >= 0; 0 when
 *                        absent): past a capacity e, shared with y, a share spills to a slow
 *                        path of rate S at the corner, slowing as it holds more (a hard corner)
 *   lspill  [a,b,D,x0,p,q] or [a,b,D,x0,p,q,g]  a + b*y + D*l(x): its latency (D: the slow
 *                        path's added latency)
 *   spilly, lspilly         the same with x and y swapped
 *   cache   [L,c,k1,k2,u,a,b,s]  L / smax(1, c + v(x)*(k1 + u*m), c + v(y)*(k2 + u*m)) with
 *                        v as below (s > 0) and m = 1 - 1/(a*x + b*y) when
 *                        a*x + b*y > 1, else 0 (a, b >= 0): the two walks' probes miss a
 *                        steering cache x's and y's masks fill (a, b: one over its capacity),
 *                        a miss costing u more than a probe's k
 *   spillc  [L,c,k,u,r,Q,S,x0,p,q] or [...,q,g]  spill whose walk misses a steering cache:
 *                        1 / ((1 - s(x)) * smax(1, c + k*P*(1 + u*m)) / L + l(x) / S) with
 *                        s(x) and l(x) as spill's
 *                        (x0, p, S > 0, q >= 0), P = y the even walk over y
 *                        masks (0 without flows; version 4, below), m = 1 - min(1, r/y) *
 *                        min(1, Q/x) the lookups that miss a cache of r masks and Q flows'
 *                        rules (r, Q > 0)
 *   lspillc [a,b,u,r,Q,D,x0,p,q] or [...,q,g]  a + b*P*(1 + u*m) + D*l(x): its latency
 *   spillcy, lspillcy       the same with x and y swapped
 *   walkc   [a,b,c,u,r]  a + b*x*(1 + u*m(x)) + c*y*(1 + u*m(y)) with m(w) = 1 - r/w for
 *                        w > r, else 0 (u >= 0, r > 0): latency of walks whose probes miss a
 *                        steering cache of r masks on each host
 *   capc    [L,c,k1,k2,u,r]  L / smax(1, c + (k1*x + k2*y)*(1 + u*m)) with m = 1 - r/(x + y)
 *                        for x + y > r, else 0 (u >= 0, r > 0): one walk over both inputs'
 *                        masks on one host, missing its steering cache of r masks
 *   pipec   [L,c,k1,k2,u,r]  L / smax(1, c + k1*x*(1 + u*m(x)), c + k2*y*(1 + u*m(y))) with
 *                        m(w) = 1 - r/w for w > r, else 0 (u >= 0, r > 0): the wire and two
 *                        hosts' walks, each missing its host's steering cache of r masks
 *   spillt  [L,c,k,S,x0,w,q,g,A]  spill with the table share: s(x) = 1 - clip(A*(w/x - 1),
 *                        0, 1) for x > e = x0 - q*y, else 0 (x0, w, A > 0, q, g >= 0), and
 *                        l(x) = s(x) * (x/w)^g: the flows whose rules come after what a table
 *                        keeps, every one past w; a jump at e when A*(w/e - 1) < 1
 *   lspillt [a,b,D,x0,w,q,g,A]  a + b*y + D*l(x): its latency
 *   spillct [L,c,k,u,r,Q,S,x0,w,q,g,A]  spillc with the table share
 *   lspillct [a,b,u,r,Q,D,x0,w,q,g,A]   lspillc with the table share
 *   spillty, lspillty, spillcty, lspillcty  the same with x and y swapped
 *   (a file with a form this library does not know, e.g. cache in a file read by a library
 *   from before it, is refused as "bad form": the format's version is unchanged, since every
 *   older file still loads and means the same)
 *   with v(m) = s*(1 - exp(-m/s)) + (m > 0 ? 1 : 0) (probes of a steering walk: the hit
 *   probe, then a saturating walk) and smax(t0,t1,t2) = (t0^32 + t1^32 + t2^32)^(1/32),
 *   negative t counted as 0 (fitting/fit.h)
 * domain_json: [] (unknown), [xlo,xhi] or [xlo,xhi,ylo,yhi]. quality_json: opaque text.
 * Version 2 (written since scalacn 0.2; version 1 files still load) adds a column
 *   inputs   "X" or "X,Y": the dimension names x and y stand for, e.g. "server.decap_masks,
 *            flows" ("client.masks" = client.encap_masks + client.decap_masks, likewise
 *            "server.masks"); version 1 files mean "client.masks,server.masks";
 * and its checksum covers the 9 columns (inputs last) in the same way.
 * Version 3 (versions 1 and 2 still load) adds a column
 *   flow_rules  "[]" (unknown) or "[c,s]": the rules one flow put on the client host (c) and
 *            on the server host (s) where the model was measured (a campaign offloads one
 *            rule per flow for each direction with masks, so 2 when both directions are),
 *            each 0 (unknown) or in 1..16;
 * and its checksum covers the 10 columns (flow_rules last). A table fed by name
 * (struct opt_config) feeds a flows input the rules on its host over that host's rules per
 * flow: what the model's flows stood for is the rules they put there.
 * Version 4 (what opt_model_write writes; versions 1 to 3 still load) has version 3's
 *   columns and checksum; it changes what the cached-walk forms (spillc, lspillc, spillct,
 *   lspillct and their "y" twins) mean by the walk: P = y, the even walk, where a file of
 *   version 3 or before means the mean walk of x flows dealt over y masks,
 *   P = 3x (1 - exp(-y/(3x))), and is still evaluated so. */
enum opt_form { OPT_FORM_RBF2 = 0, OPT_FORM_PLANE, OPT_FORM_LINE, OPT_FORM_RBF1,
		OPT_FORM_SERVICE, OPT_FORM_KNEE, OPT_FORM_CAP, OPT_FORM_WALK, OPT_FORM_CLIFF,
		OPT_FORM_CLIFFY, OPT_FORM_SPILL, OPT_FORM_SPILLY, OPT_FORM_LSPILL,
		OPT_FORM_LSPILLY, OPT_FORM_CACHE, OPT_FORM_SPILLC, OPT_FORM_SPILLCY,
		OPT_FORM_LSPILLC, OPT_FORM_LSPILLCY, OPT_FORM_WALKC, OPT_FORM_CAPC,
		OPT_FORM_SPILLT, OPT_FORM_SPILLTY, OPT_FORM_LSPILLT, OPT_FORM_LSPILLTY,
		OPT_FORM_SPILLCT, OPT_FORM_SPILLCTY, OPT_FORM_LSPILLCT, OPT_FORM_LSPILLCTY,
		OPT_FORM_PIPEC };
#define OPT_MODEL_MAX_PARAMS 12 /* 7 before cache, 8 before spillc, 10 before the spill
				 * forms' growth g, 11 before spillct: the row struct grew */

/* One row, as given to opt_model_write. Strings are copied. */
struct opt_model_row {
	const char *rnic_model, *firmware, *verb, *metric;
	enum opt_form form;
	double params[OPT_MODEL_MAX_PARAMS];
	size_t n_params;
	double domain[4];
	size_t n_domain;          /* 0, 2 or 4 */
	const char *quality_json; /* NULL = "{}" */
	const char *inputs;       /* "X,Y" dimension names; NULL = "client.masks,server.masks" */
	double flow_rules[2];     /* rules per flow on the client and server hosts; 0 unknown */
};

struct opt_model;

OPT_API const char *opt_form_name(enum opt_form f);
/* Write (replacing any existing file at PATH) a model file holding ROWS. */
OPT_API int opt_model_write(const char *path, const struct opt_model_row *rows, size_t n,
			    char *err, size_t errlen);
/* Load a model file. RNIC selects the rows of one RNIC model; NULL accepts a file holding
 * exactly one RNIC model. Refuses with a message: missing file (-ENOENT), non-SQLite or
 * missing tables (-EINVAL), wrong format or version (-EPROTO), checksum mismatch (-EBADMSG),
 * bad params/domain/form (-EINVAL), no rows for RNIC (-ENOENT). Limits: 4096 rows, names of
 * 63 bytes. *OUT is freed with opt_model_free. */
OPT_API int opt_model_load(const char *path, const char *rnic, struct opt_model **out,
			   char *err, size_t errlen);
OPT_API void opt_model_free(struct opt_model *m);
/* Evaluate the (VERB, METRIC) model at (X, Y). -ENOENT no such model, -EDOM result is not
 * finite (service denominator <= 0, ...). Outside the recorded domain still predicts;
 * opt_model_in_domain tells (1 inside or unknown domain, 0 outside, -ENOENT). */
OPT_API int opt_model_predict(const struct opt_model *m, const char *verb, const char *metric,
			      double x, double y, double *value);
OPT_API int opt_model_in_domain(const struct opt_model *m, const char *verb,
				const char *metric, double x, double y);
/* The dimension names the (VERB, METRIC) model's x and y stand for (*Y is "" for a one-input
 * model); pointers live as long as M. -ENOENT no such model. */
OPT_API int opt_model_inputs(const struct opt_model *m, const char *verb, const char *metric,
			     const char **x, const char **y);
/* "send/bw write/bw write/lat": the (verb, metric) pairs M holds, into BUF (truncated). */
OPT_API const char *opt_model_list(const struct opt_model *m, char *buf, size_t len);

/* ---- Signed model files ---------------------------------------------------------------- */
/* The checksum catches accidents, not intent: anyone who can write the file can recompute
 * it. A signed model file has a detached Ed25519 signature (libsodium) over every byte of
 * the file in FILE.sig ("scalacn-model-signature 1", "ed25519 <public key hex>", "<signature
 * hex>"). Key files hold one line of hex: 64 bytes (secret, mode 0600, refused when group or
 * others may read it) or 32 bytes (public). An agent given a public key loads only files
 * signed with its secret key: opt_model_load_signed checks the signature over the bytes it
 * read, then loads those very bytes (a private copy in a fresh mode-0700 directory under
 * $TMPDIR or /tmp, removed after the load), so the file cannot change in between. */
/* A new key pair; neither file may exist yet. */
OPT_API int opt_key_generate(const char *secret_path, const char *public_path, char *err,
			     size_t errlen);
/* Sign the model file at PATH: writes PATH.sig. */
OPT_API int opt_model_sign(const char *path, const char *secret_key_path, char *err,
			   size_t errlen);
/* opt_model_load, for a file signed with the secret key of PUBLIC_KEY_PATH. Refuses, with a
 * message: an unsigned file (no PATH.sig: -EPERM), a file signed by another key or altered
 * after signing (-EBADMSG), a bad key or signature file (-EINVAL); then as opt_model_load. */
OPT_API int opt_model_load_signed(const char *path, const char *rnic,
				  const char *public_key_path, struct opt_model **out,
				  char *err, size_t errlen);

/* ---- The table ------------------------------------------------------------------------- */
struct opt_config {
	double degradation_threshold; /* plan when predicted degradation > this (0.05) */
	uint32_t hyper_capacity;      /* hyper mask entries (1024) */
	uint64_t admission_hits;      /* window hits a rule needs to enter the hyper mask (64) */
	uint32_t window_s;            /* sliding hit window in seconds (60; 1..3600), counted in
				       * at most 16 buckets: per second up to 16 s, else of
				       * ceil(window_s / 16) s (60: 15 of 4 s), so the window
				       * slides by whole buckets and holds the last window_s
				       * seconds less at most one bucket's worth */
	uint32_t idle_mask_s;         /* remove a cascading mask after this long without hits (600) */
	uint32_t update_budget;       /* rule updates per second (2000); a token bucket */
	uint32_t max_masks;           /* distinct cascading masks accepted (1024; <= 4096) */
	double specificity_weight;    /* locality = hits * (1 - w + w * specificity) (0.25) */
	double reorder_hysteresis;    /* a mask overtakes another when its locality is this much
				       * larger (0.25 = 25%), so noise does not churn the NIC */
	bool always_optimise;         /* with no model, plan on every tick (false) */
	char verb[32], metric[32];    /* model consulted by tick ("write", "bw") */
	double remote_masks;          /* version-1 feeding: y when masks_input is "" (0) */
	/* Feeding the model's inputs by name (opt_table_check_model): the input named
	 * MASKS_INPUT gets the table's cascading masks (+1 while the hyper mask is in use) plus
	 * its value in FIXED (0 when absent: a sum such as "server.masks" adds the other
	 * direction's masks there); FLOWS_INPUT gets the table's rule count plus its value in
	 * FIXED (the host's other rules), over the model's rules per flow on the table's host
	 * (the host MASKS_INPUT names: "client." or else the server; 1 when the file does not
	 * say); any other input its value in FIXED. MASKS_INPUT "" = version-1 feeding:
	 * x = masks, y = remote_masks. */
	char masks_input[64];         /* e.g. "server.decap_masks" ("") */
	char flows_input[64];         /* e.g. "flows" ("": no input fed with the rule count) */
	struct opt_input { char name[64]; double value; } fixed[8];
	unsigned n_fixed;
	uint64_t hash_seed;           /* seeds the table's hashes against flooding (any value) */
};
OPT_API void opt_config_default(struct opt_config *cfg);

struct opt_table;

/* Set input NAME to VALUE in CFG->fixed (replacing an earlier value). -ENOSPC when full,
 * -EINVAL bad name. */
OPT_API int opt_config_set_input(struct opt_config *cfg, const char *name, double value);

/* NULL CFG means defaults. -EINVAL on out-of-range config values. */
OPT_API int opt_table_new(const struct opt_config *cfg, struct opt_table **out);
OPT_API void opt_table_free(struct opt_table *t);
/* Add a rule: its mask is appended to the end of the cascade when new. NOW (seconds, any
 * monotonic clock) starts the mask's idle timer. -EINVAL bad rule (id 0, a value wider than its field),
 * -EEXIST id in use, -ENOSPC too many masks, -ENOMEM. */
OPT_API int opt_table_add_rule(struct opt_table *t, const struct opt_rule *r, uint64_t now);
/* Delete a rule and its hyper copy (the agent deletes both from the NIC). -ENOENT. An empty
 * mask stays in the cascade (it still costs a probe) until idle removal. */
OPT_API int opt_table_del_rule(struct opt_table *t, uint32_t id);
/* Count PACKETS hits for rule ID at second NOW (counter deltas the agent read). Time that
 * goes backwards is clamped to the latest time seen. -ENOENT unknown rule. */
OPT_API int opt_table_record_hits(struct opt_table *t, uint32_t id, uint64_t packets,
				  uint64_t now);
/* As opt_table_record_hits, also telling the microflow header PKT that carried the packets
 * (it must match the rule and fit its fields: -EINVAL). Makes wildcarded single-microflow rules hyper-eligible.
 * opt_table_get_flow returns that header (-ENODATA when unknown or not a single flow). */
OPT_API int opt_table_record_flow(struct opt_table *t, uint32_t id, const struct opt_pkt *pkt,
				  uint64_t packets, uint64_t now);
OPT_API int opt_table_get_flow(const struct opt_table *t, uint32_t id, struct opt_pkt *out);
/* One rule's counters in a poll: PACKETS hits of rule ID, carried by microflow PKT (NULL when
 * the agent does not know it: then as opt_table_record_hits). */
struct opt_count {
	uint32_t id;
	uint64_t packets;
	const struct opt_pkt *pkt;
};
/* Record a whole poll of counters (tc -s filter show, mlx5 flow counters) read at second
 * NOW: the same as opt_table_record_flow (or _hits) for C[0..N) in order, one call and one
 * time for all, and faster on large tables (later rules are fetched into the CPU cache while
 * earlier ones are counted). Returns how many counters were refused (unknown id, or a header
 * that does not match its rule: those change nothing), or -EINVAL. */
OPT_API long opt_table_record_batch(struct opt_table *t, const struct opt_count *c, size_t n,
				    uint64_t now);
/* Look PKT up in the current layout: hyper mask first (when not empty), then the cascade in
 * order, priorities respected (see the essay above). *RULE_ID = the matched rule, *PROBES =
 * masks probed (either may be NULL). -ENOENT no rule matches (*PROBES still set).
 * Not const: refreshes cached overlap data lazily after rule changes. */
OPT_API int opt_table_classify(struct opt_table *t, const struct opt_pkt *pkt,
			       uint32_t *rule_id, uint32_t *probes);

/* Introspection (for agents, renderers and tests). */
struct opt_table_stats {
	uint32_t rules, masks, hyper_entries;
	uint32_t flagged_masks; /* masks placed before a mask they must follow */
	uint64_t bytes;         /* heap bytes held by the table */
};
OPT_API void opt_table_stats(const struct opt_table *t, struct opt_table_stats *s);
/* Cascade order: mask ids in lookup order (N = stats.masks entries written, up to CAP). */
OPT_API size_t opt_table_mask_order(const struct opt_table *t, uint32_t *ids, size_t cap);
/* Mask by id: its shape, tc prio and rule count. -ENOENT. */
OPT_API int opt_table_mask_info(const struct opt_table *t, uint32_t mask_id,
				struct opt_mask *shape, uint16_t *prio, uint32_t *n_rules);
OPT_API int opt_table_get_rule(const struct opt_table *t, uint32_t id, struct opt_rule *out,
			       uint32_t *mask_id);
OPT_API bool opt_table_in_hyper(const struct opt_table *t, uint32_t id);
/* Hits of rule ID in the window ending at the table's latest second (the latest time any
 * call gave it). -ENOENT. */
OPT_API int opt_table_window_hits(const struct opt_table *t, uint32_t id, uint64_t *hits);

/* ---- Plans ----------------------------------------------------------------------------- */
/* Operations, in the order an agent must apply them:
 *  HYPER_EVICT   rules[0]: drop the rule's hyper copy.
 *  MASK_DELETE   mask_id, rules[]: delete the idle mask and all its rules (back to software).
 *  HYPER_ADD     rules[0]: copy the rule's microflow (opt_table_get_flow) into the hyper
 *                mask, with the rule's action.
 *  MASK_MOVE     mask_id gets tc prio PRIO (was OLD_PRIO), which moves it in the cascade
 *                (the cascade is ordered by prio); POSITION is its index in the target order;
 *                rules[] are re-programmed at the new prio.
 *  REPRIORITISE  as MASK_MOVE for a mask whose place in the order does not change (prios
 *                re-spread when a gap or the prio space runs out).
 * New prios never equal a prio any mask holds when the plan is made, so a partially applied
 * plan never puts two masks in one tc prio. Masks keeping their prio are a longest run of
 * the target order that is already in order (the fewest moves).
 * Cost against the update budget: 1 per hyper op, max(1, rules) for the others. */
enum opt_op_kind { OPT_OP_HYPER_ADD = 0, OPT_OP_HYPER_EVICT, OPT_OP_MASK_MOVE,
		   OPT_OP_REPRIORITISE, OPT_OP_MASK_DELETE };

struct opt_op {
	enum opt_op_kind kind;
	uint32_t mask_id;      /* 0 for hyper ops */
	uint32_t position;     /* MASK_MOVE */
	uint16_t prio, old_prio;
	uint32_t n_rules;
	const uint32_t *rules; /* owned by the plan */
};

struct opt_plan_info {
	bool triggered;        /* the model (or always_optimise) asked for optimisation */
	double degradation;    /* predicted 1 - bw(x)/bw(0), 0 without a model */
	uint32_t masks;        /* x used for the prediction */
	uint32_t cost;         /* rule updates this plan spends */
	uint32_t deferred;     /* ops wanted but left for later ticks (budget) */
};

struct opt_plan;

/* Advance the window to NOW, predict with the model's inputs fed as struct opt_config says
 * (version-1 feeding: x = masks, +1 when the hyper mask is in use), and plan
 * (see the file's essay and DESIGN.md). Dead hyper copies are evicted and a nearly exhausted
 * prio space is re-spread on every tick; the rest only when triggered. MODEL may be NULL.
 * *PLAN is always set on success (possibly with no ops); free it with opt_plan_free. Plans
 * must be applied (or dropped) before the table changes: opt_plan_apply refuses a stale plan.
 * -ENOENT the model lacks cfg.verb/cfg.metric, -EINVAL an input is not fed (see
 * opt_table_check_model for the message), -EDOM bw(0) is not positive, -ENOMEM. */
OPT_API int opt_table_tick(struct opt_table *t, uint64_t now, const struct opt_model *model,
			   struct opt_plan **plan);
/* Whether tick can consult MODEL with T's config: the (verb, metric) exists and each of its
 * inputs is fed (see struct opt_config). 0, or -ENOENT (ERR says which verbs/metrics the
 * file holds) / -EINVAL (ERR names the input nothing feeds). */
OPT_API int opt_table_check_model(const struct opt_table *t, const struct opt_model *model,
				  char *err, size_t errlen);

/* Apply PLAN to the table's layout. -ESTALE the table changed since the plan was made. */
OPT_API int opt_plan_apply(struct opt_table *t, const struct opt_plan *plan);
OPT_API void opt_plan_free(struct opt_plan *p);
OPT_API size_t opt_plan_count(const struct opt_plan *p);
/* Op I (0-based; -ERANGE past the end). OUT->rules points into the plan. */
OPT_API int opt_plan_op(const struct opt_plan *p, size_t i, struct opt_op *out);
OPT_API void opt_plan_info(const struct opt_plan *p, struct opt_plan_info *out);
OPT_API const char *opt_op_name(enum opt_op_kind k);

/* JSON: {"triggered":..,"degradation":..,"cost":..,"deferred":..,"ops":[{"op":"mask_move",
 * "mask":3,"position":0,"prio":40,"old_prio":200,"rules":[..]},..]}. -EIO on write error. */
OPT_API int opt_plan_render_json(const struct opt_plan *p, FILE *out);
/* tc -batch lines for representor DEV (call BEFORE opt_plan_apply: it reads rule fields and
 * microflow headers from TABLE). Mapping: everything in chain 0 of DEV's ingress block; the
 * hyper mask is prio 1 (a copy matches every field of its microflow); each cascading mask
 * owns one tc prio (cascade order = prio order, 2..65535); the rule id is the flower handle;
 * action = "action gact pass cookie <action id as 8 hex>" (agents resolve the cookie to
 * their action list). Fields: eth_type -> protocol (else "ip" when an IP or L4 field is
 * matched, else "all"), eth_src/dst -> src_mac/dst_mac, ip_src/dst -> src_ip/dst_ip A/len,
 * ip_proto -> ip_proto, l4_src/dst -> src_port/dst_port, tun_id -> enc_key_id, tun_src/dst ->
 * enc_src_ip/enc_dst_ip, tun_dport -> enc_dst_port; in_port is not rendered (DEV is the
 * in_port's representor). Moves and reprioritisations are add-at-new-prio, then
 * delete-at-old-prio (make before break). Limitation: tc wants one protocol per prio, so a
 * mask matching eth_type with several values (or the hyper mask holding IPv4 and other
 * flows) needs the agent to split prios. -EIO on write error, -ESTALE stale plan. */
OPT_API int opt_plan_render_tc(const struct opt_plan *p, const struct opt_table *t,
			       const char *dev, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
