/* SPDX-License-Identifier: MIT */
/*
 * ycfg: reading YAML configuration files with libyaml, keeping every node's position.
 *
 * Every scalacn input (plans, testbed files, simulator profiles, inventories) is read through
 * this module so that every error has the same shape: "file:line:column: key.path: message".
 * libyaml does the parsing (yaml_parser_load); this module only walks the document tree,
 * converts scalars with range checks, rejects unknown keys and resolves includes.
 *
 * Includes: in any mapping, the key "include" takes a file name (or a list of them), relative
 * to the including file. The included file must hold a mapping; its keys are merged into the
 * including mapping. A key present in both is an error (naming both places). Include cycles,
 * depth > 8 and more than YCFG_MAX_FILES files in one document are errors. Nodes keep the
 * file they came from.
 *
 * Bounded by construction (every input may be hostile): only regular files of at most
 * YCFG_MAX_FILE_BYTES are read (a FIFO, device or directory is refused, naming what it is);
 * a document whose tree, with every alias expanded where it is referenced, holds more than
 * YCFG_MAX_NODES nodes (an alias bomb), nests deeper than YCFG_MAX_NESTING levels, or holds
 * an alias of a node inside that node, is refused at load time with its position. Every walk
 * a reader makes afterwards is therefore bounded too.
 *
 * Ownership: ycfg_load() returns a document the caller frees with ycfg_free() (NULL ok).
 * Nodes are small values that borrow from their document; strings returned by the getters
 * live as long as the document.
 */
#ifndef YCFG_H
#define YCFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/scn_error.h"

#define YCFG_MAX_FILE_BYTES (16u << 20) /* one configuration file */
#define YCFG_MAX_NODES 100000ul         /* nodes of a document, aliases expanded, includes in */
#define YCFG_MAX_NESTING 64             /* levels of mappings and sequences */
#define YCFG_MAX_FILES 64               /* the main file and its includes */

struct ycfg_doc;

/* A position in a document plus the key path that led there ("dimensions[2].levels"). */
struct ycfg_node {
	struct ycfg_doc *doc;
	int part;          /* which loaded file (0 = the main one) */
	int id;            /* libyaml node id within that file; 0 = absent */
	char path[160];
};

/* Read PATH whole into a NUL-terminated malloc'ed *TEXT (*LEN bytes, the NUL not counted)
 * when it is a regular file of at most MAX bytes. Returns 0 or a negative errno (-EISDIR,
 * -EINVAL for FIFOs, devices and sockets, -EFBIG past MAX, open's errno); on error *TEXT is
 * NULL and WHY (WHY_LEN bytes, may be NULL) says what is wrong, e.g. "a FIFO (named pipe),
 * not a regular file". Never blocks on a FIFO. The caller frees *TEXT. */
int ycfg_read_file(const char *path, size_t max, char **text, size_t *len, char *why,
		   size_t why_len);

/* Load and parse PATH. Syntax errors come back with file:line:column. */
int ycfg_load(const char *path, struct ycfg_doc **out, struct scn_error *err);
/* Parse YAML text held in memory; NAME is used as the file name in errors. */
int ycfg_load_string(const char *name, const char *text, struct ycfg_doc **out,
		     struct scn_error *err);
void ycfg_free(struct ycfg_doc *doc);

/* The root node (a mapping for every scalacn file; check with ycfg_is_map). */
struct ycfg_node ycfg_root(struct ycfg_doc *doc);
/* Name of the main file as given to ycfg_load. */
const char *ycfg_doc_file(const struct ycfg_doc *doc);

bool ycfg_present(const struct ycfg_node *n);
bool ycfg_is_map(const struct ycfg_node *n);
bool ycfg_is_seq(const struct ycfg_node *n);
bool ycfg_is_scalar(const struct ycfg_node *n);
/* Position of a node: file it came from, 1-based line and column. */
const char *ycfg_file(const struct ycfg_node *n);
int ycfg_line(const struct ycfg_node *n);
int ycfg_column(const struct ycfg_node *n);

/* Set ERR (class config) at N's position and key path; returns -EINVAL. */
int ycfg_error(const struct ycfg_node *n, struct scn_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Mappings. ycfg_get: 0 and *child set when KEY exists, -ENOENT otherwise (err untouched).
 * ycfg_require: as ycfg_get but a missing key is an error at the mapping ("missing key"). */
int ycfg_get(const struct ycfg_node *map, const char *key, struct ycfg_node *child);
int ycfg_require(const struct ycfg_node *map, const char *key, struct ycfg_node *child,
		 struct scn_error *err);
/* Fails (at the offending key) on the first key not in ALLOWED (NULL-terminated), listing
 * the allowed keys; also fails when N is not a mapping. */
int ycfg_check_keys(const struct ycfg_node *map, const char *const *allowed,
		    struct scn_error *err);
size_t ycfg_map_len(const struct ycfg_node *map);
/* I-th key (string) and value of a mapping, in file order (includes after own keys). */
const char *ycfg_map_key(const struct ycfg_node *map, size_t i);
struct ycfg_node ycfg_map_value(const struct ycfg_node *map, size_t i);

/* Sequences. */
size_t ycfg_seq_len(const struct ycfg_node *seq);
struct ycfg_node ycfg_seq_at(const struct ycfg_node *seq, size_t i);

/* Scalars, with type and range checks; errors name the node. */
int ycfg_str(const struct ycfg_node *n, const char **out, struct scn_error *err);
int ycfg_int(const struct ycfg_node *n, int64_t min, int64_t max, int64_t *out,
	     struct scn_error *err);
int ycfg_double(const struct ycfg_node *n, double min, double max, double *out,
		struct scn_error *err);
int ycfg_bool(const struct ycfg_node *n, bool *out, struct scn_error *err);
/* Index of the scalar in NAMES (NULL-terminated); error lists the choices. */
int ycfg_enum(const struct ycfg_node *n, const char *const *names, int *out,
	      struct scn_error *err);

/* Keyed shorthands: read MAP[KEY]; when absent, *out = def and 0 is returned. */
int ycfg_opt_int(const struct ycfg_node *map, const char *key, int64_t min, int64_t max,
		 int64_t def, int64_t *out, struct scn_error *err);
int ycfg_opt_double(const struct ycfg_node *map, const char *key, double min, double max,
		    double def, double *out, struct scn_error *err);
int ycfg_opt_bool(const struct ycfg_node *map, const char *key, bool def, bool *out,
		  struct scn_error *err);
int ycfg_opt_str(const struct ycfg_node *map, const char *key, const char *def,
		 const char **out, struct scn_error *err);
/* Keyed and required. */
int ycfg_req_int(const struct ycfg_node *map, const char *key, int64_t min, int64_t max,
		 int64_t *out, struct scn_error *err);
int ycfg_req_double(const struct ycfg_node *map, const char *key, double min, double max,
		    double *out, struct scn_error *err);
int ycfg_req_str(const struct ycfg_node *map, const char *key, const char **out,
		 struct scn_error *err);

/* Resolve PATH relative to the directory of the file N came from (absolute paths unchanged).
 * Writes into BUF; returns BUF. */
const char *ycfg_resolve_path(const struct ycfg_node *n, const char *path, char *buf,
			      size_t len);

#endif
