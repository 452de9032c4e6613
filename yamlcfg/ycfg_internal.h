/* SPDX-License-Identifier: MIT */
/*
 * ycfg_internal: private layout of a loaded configuration document (not installed, not for
 * other modules). Shared by ycfg.c (tree access), ycfg_load.c (parsing, includes) and
 * ycfg_scalar.c (scalar conversion).
 *
 * A document is a list of parts: part 0 is the main file, every include adds one part (a file
 * included twice is loaded twice). Each part owns its libyaml document. Every mapping node of
 * every part has a merged "view": its own key/value pairs in file order (minus "include"),
 * followed by the keys of the files it includes. Views are built at load time, so include
 * errors (missing file, cycle, depth, duplicate keys) surface from ycfg_load().
 */
#ifndef YCFG_INTERNAL_H
#define YCFG_INTERNAL_H

#include <yaml.h>

#include "yamlcfg/ycfg.h"

#define YCFG_MAX_DEPTH 8 /* include levels */

/* One key/value pair of a merged mapping; both nodes may live in different parts. */
struct ycfg_entry {
	const char *key; /* borrowed from the key node's scalar */
	int kpart, kid;
	int vpart, vid;
};

struct ycfg_view {
	size_t n, cap;
	struct ycfg_entry *e;
};

/* Invariants: doc is loaded; views has n_nodes + 1 slots (index = node id), non-NULL only for
 * mapping nodes once the part is built; parent < own index (-1 for part 0); depth of a part
 * is parent's depth + 1 and never exceeds YCFG_MAX_DEPTH. */
struct ycfg_part {
	char *file;  /* as shown in errors: the path used to open it */
	char *real;  /* realpath, "" for in-memory text */
	int parent;
	int depth;
	yaml_document_t doc;
	int n_nodes;
	struct ycfg_view **views;
};

/* Invariant: nodes (the expanded node count of every part's root so far) <= YCFG_MAX_NODES;
 * n_parts <= YCFG_MAX_FILES. */
struct ycfg_doc {
	int n_parts, cap_parts;
	struct ycfg_part **parts;
	unsigned long nodes;
};

/* Node access shared by the .c files. NULL when N is absent or invalid. */
yaml_node_t *ycfg__node(const struct ycfg_node *n);
/* Scalar text of N (NUL-terminated) or NULL when N is not a scalar. */
const char *ycfg__scalar(const struct ycfg_node *n);
/* "a mapping", "a sequence", "a scalar", "nothing": for type errors. */
const char *ycfg__kind(const struct ycfg_node *n);
/* Position of node ID of part PART in 1-based line/column. */
void ycfg__mark(const struct ycfg_doc *doc, int part, int id, int *line, int *col);

/* Check parsed part P against YCFG_MAX_NODES and YCFG_MAX_NESTING with every alias expanded
 * (ycfg_bound.c); BASE is the key path of its root. 0 with *NODES = its expanded size, or
 * -EINVAL with ERR at the offending node. */
int ycfg__bound(struct ycfg_doc *doc, int p, const char *base, unsigned long *nodes,
		struct scn_error *err);

/* Child key paths: "a.b", "a[3]"; truncated (never overflowing) when too long. */
void ycfg__path_key(char *out, size_t len, const char *parent, const char *key);
void ycfg__path_index(char *out, size_t len, const char *parent, size_t i);

#endif
