/* SPDX-License-Identifier: MIT */
/*
 * ycfg_bound: the size of a parsed document as its readers will see it, counted before
 * anyone walks it, so that every later walk is bounded by construction.
 *
 * libyaml's document API resolves an alias to the node its anchor names: a node referenced
 * from ten places is one node in the file but ten subtrees to whoever walks the tree, and a
 * few hundred bytes of nested aliases ("billion laughs") expand to 10^9 nodes. An anchor may
 * also be referenced from inside its own node, which makes the tree cyclic. This file
 * computes, once per node and memoised (so in time linear in the file's nodes), the expanded
 * size (the node plus the expanded sizes of its children, keys included) and the expanded
 * depth, and refuses the document when a size passes YCFG_MAX_NODES, a depth passes
 * YCFG_MAX_NESTING, or a node contains itself. The error sits at the innermost node that
 * passes the limit (for an alias bomb: the first anchored level too big to expand).
 *
 * Assumes the part is parsed (n_nodes >= 0) and its node ids are 1..n_nodes.
 */
#include "yamlcfg/ycfg_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

enum { UNSEEN = 0, ACTIVE, DONE };

/* Per-node memo of one part. size and depth are valid when state == DONE. */
struct bound {
	struct ycfg_doc *doc;
	int part;
	unsigned long cap;
	unsigned long *size;
	unsigned char *depth, *state;
};

static int bound_error(const struct bound *b, int id, const char *path, struct scn_error *err,
		       const char *what)
{
	struct ycfg_node n = { .doc = b->doc, .part = b->part, .id = id };

	snprintf(n.path, sizeof(n.path), "%s", path ? path : "");
	return ycfg_error(&n, err, "%s", what);
}

static int expand(struct bound *b, int id, int nest, const char *path, unsigned long *size,
		  struct scn_error *err);

/* Add the expansion of child CHILD (at CPATH) to *TOTAL and *DEPTH. */
static int add_child(struct bound *b, int child, int nest, const char *cpath,
		     unsigned long *total, unsigned *depth, struct scn_error *err)
{
	unsigned long s = 0;
	int rc = expand(b, child, nest + 1, cpath, &s, err);

	if (rc < 0)
		return rc;
	*total += s;
	if (child > 0 && child <= b->doc->parts[b->part]->n_nodes && b->depth[child] > *depth)
		*depth = b->depth[child];
	return 0;
}

static int expand_children(struct bound *b, yaml_node_t *node, int nest, const char *path,
			   unsigned long *total, unsigned *depth, struct scn_error *err)
{
	yaml_document_t *d = &b->doc->parts[b->part]->doc;
	char cpath[160];
	int rc;

	if (node->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = node->data.sequence.items.start;
		     it < node->data.sequence.items.top; it++) {
			ycfg__path_index(cpath, sizeof(cpath), path,
					 (size_t)(it - node->data.sequence.items.start));
			if ((rc = add_child(b, *it, nest, cpath, total, depth, err)) < 0)
				return rc;
			if (*total > b->cap)
				return 0;
		}
		return 0;
	}
	for (yaml_node_pair_t *pr = node->data.mapping.pairs.start;
	     pr < node->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(d, pr->key);
		const char *key = k && k->type == YAML_SCALAR_NODE ?
				  (const char *)k->data.scalar.value : "?";

		ycfg__path_key(cpath, sizeof(cpath), path, key);
		if ((rc = add_child(b, pr->key, nest, cpath, total, depth, err)) < 0 ||
		    (rc = add_child(b, pr->value, nest, cpath, total, depth, err)) < 0)
			return rc;
		if (*total > b->cap)
			return 0;
	}
	return 0;
}

static int expand(struct bound *b, int id, int nest, const char *path, unsigned long *size,
		  struct scn_error *err)
{
	yaml_node_t *node = yaml_document_get_node(&b->doc->parts[b->part]->doc, id);
	unsigned long total = 1;
	unsigned depth = 0;
	char msg[200];
	int rc;

	*size = 0;
	if (!node)
		return 0;
	if (b->state[id] == ACTIVE)
		return bound_error(b, id, path, err, "this node contains an alias of itself "
				   "(a recursive alias expands without end)");
	if (b->state[id] == DONE && nest + b->depth[id] <= YCFG_MAX_NESTING + 1) {
		*size = b->size[id];
		return 0;
	}
	if (nest > YCFG_MAX_NESTING) {
		snprintf(msg, sizeof(msg), "nesting deeper than %d levels (aliases included)",
			 YCFG_MAX_NESTING);
		return bound_error(b, id, path, err, msg);
	}
	b->state[id] = ACTIVE;
	if (node->type != YAML_SCALAR_NODE &&
	    (rc = expand_children(b, node, nest, path, &total, &depth, err)) < 0)
		return rc;
	if (total > b->cap) {
		snprintf(msg, sizeof(msg), "aliases expand this node to more than %lu nodes, the "
			 "most a configuration file may hold (an alias bomb?)", b->cap);
		return bound_error(b, id, path, err, msg);
	}
	b->state[id] = DONE;
	b->size[id] = total;
	b->depth[id] = (unsigned char)(depth + 1);
	*size = total;
	return 0;
}

int ycfg__bound(struct ycfg_doc *doc, int p, const char *base, unsigned long *nodes,
		struct scn_error *err)
{
	struct ycfg_part *part = doc->parts[p];
	size_t n = (size_t)part->n_nodes + 1;
	struct bound b = { .doc = doc, .part = p, .cap = YCFG_MAX_NODES };
	int rc;

	*nodes = 0;
	if (part->n_nodes <= 0)
		return 0;
	if ((unsigned long)part->n_nodes > b.cap) {
		char msg[160];

		snprintf(msg, sizeof(msg), "the file holds more than %lu nodes, the most a "
			 "configuration file may hold", b.cap);
		return bound_error(&b, 1, base, err, msg);
	}
	b.size = calloc(n, sizeof(*b.size));
	b.depth = calloc(n, 1);
	b.state = calloc(n, 1);
	rc = b.size && b.depth && b.state ? expand(&b, 1, 0, base, nodes, err)
		: scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	free(b.size);
	free(b.depth);
	free(b.state);
	return rc;
}
