/* SPDX-License-Identifier: MIT */
/*
 * ycfg_load: parsing files with libyaml's document API (yaml_parser_load) and resolving
 * includes into merged mapping views (layout in ycfg_internal.h).
 *
 * Assumes: one YAML document per file (a second one is an error); mapping keys are scalars;
 * the "include" key of a mapping names a file or a list of files relative to the including
 * file. Loading walks the tree from each part's root so every error carries a key path.
 */
#include "yamlcfg/ycfg_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_part(struct ycfg_doc *doc, const char *file, const char *real, int parent,
		    const char *text, size_t len, const char *base, struct scn_error *err);
static int walk(struct ycfg_doc *doc, int p, int id, const char *path, int nest,
		struct scn_error *err);

static int err_node(const struct ycfg_doc *doc, int p, int id, const char *path,
		    struct scn_error *err, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static int err_node(const struct ycfg_doc *doc, int p, int id, const char *path,
		    struct scn_error *err, const char *fmt, ...)
{
	char msg[512];
	int line = 0, col = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ycfg__mark(doc, p, id, &line, &col);
	return scn_error_at(err, doc->parts[p]->file, line, col, path, -EINVAL, "%s", msg);
}

static int view_add(struct ycfg_view *v, const struct ycfg_entry *e)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		struct ycfg_entry *ne = realloc(v->e, cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		v->e = ne;
		v->cap = cap;
	}
	v->e[v->n++] = *e;
	return 0;
}

/* Append E to the view of mapping (P, ID) unless its key is already there. */
static int view_add_unique(struct ycfg_doc *doc, struct ycfg_view *v, const struct ycfg_entry *e,
			   const char *path, struct scn_error *err)
{
	char child[160], where[300];
	int line, col;

	for (size_t i = 0; i < v->n; i++) {
		if (strcmp(v->e[i].key, e->key))
			continue;
		ycfg__mark(doc, v->e[i].kpart, v->e[i].kid, &line, &col);
		snprintf(where, sizeof(where), "%s:%d:%d", doc->parts[v->e[i].kpart]->file, line,
			 col);
		ycfg__path_key(child, sizeof(child), path, e->key);
		return err_node(doc, e->kpart, e->kid, child, err,
				"duplicate key '%s' (also defined at %s)", e->key, where);
	}
	if (view_add(v, e))
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	return 0;
}

/* Resolve NAME relative to the file of part P (the including file). */
static void resolve(const struct ycfg_doc *doc, int p, const char *name, char *buf, size_t len)
{
	struct ycfg_node n = { .doc = (struct ycfg_doc *)doc, .part = p, .id = 1 };

	ycfg_resolve_path(&n, name, buf, len);
}

static int check_cycle(struct ycfg_doc *doc, int p, int id, const char *path, const char *file,
		       const char *real, struct scn_error *err)
{
	char chain[512] = "";
	int at = p, hit = -1;
	size_t n = 0;

	for (at = p; at >= 0; at = doc->parts[at]->parent)
		if (doc->parts[at]->real[0] && !strcmp(doc->parts[at]->real, real))
			hit = at;
	if (hit < 0) {
		if (doc->parts[p]->depth + 1 > YCFG_MAX_DEPTH)
			return err_node(doc, p, id, path, err,
					"includes nested deeper than %d levels (at '%s')", YCFG_MAX_DEPTH,
					file);
		return 0;
	}
	/* Chain from the repeated file down to P, then FILE again. */
	int order[YCFG_MAX_DEPTH + 2], k = 0;

	for (at = p; at >= 0 && k < YCFG_MAX_DEPTH + 1; at = doc->parts[at]->parent) {
		order[k++] = at;
		if (at == hit)
			break;
	}
	while (k-- > 0 && n < sizeof(chain)) {
		int w = snprintf(chain + n, sizeof(chain) - n, "%s -> ", doc->parts[order[k]]->file);

		n += w > 0 ? (size_t)w : 0;
	}
	return err_node(doc, p, id, path, err, "include cycle: %s%s", chain, file);
}

/* Load the include named by scalar node (P, ID) and merge its root mapping into V. */
static int include_one(struct ycfg_doc *doc, int p, int id, const char *path,
		       struct ycfg_view *v, const char *map_path, struct scn_error *err)
{
	char file[PATH_MAX], real[PATH_MAX], why[200];
	const char *name;
	yaml_node_t *node = yaml_document_get_node(&doc->parts[p]->doc, id);
	char *text = NULL;
	size_t len = 0;
	int q, rc;

	if (!node || node->type != YAML_SCALAR_NODE || !node->data.scalar.length)
		return err_node(doc, p, id, path, err, "expected a file name");
	name = (const char *)node->data.scalar.value;
	resolve(doc, p, name, file, sizeof(file));
	if (!realpath(file, real)) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		return err_node(doc, p, id, path, err, "cannot read include '%s': %s", file, why);
	}
	if ((rc = check_cycle(doc, p, id, path, file, real, err)) < 0)
		return rc;
	if (doc->n_parts >= YCFG_MAX_FILES)
		return err_node(doc, p, id, path, err, "more than %d files in one document (the "
				"main file and its includes) at '%s'", YCFG_MAX_FILES, file);
	if (ycfg_read_file(file, YCFG_MAX_FILE_BYTES, &text, &len, why, sizeof(why)) < 0)
		return err_node(doc, p, id, path, err, "cannot read include '%s': %s", file, why);
	rc = add_part(doc, file, real, p, text, len, map_path, err);
	free(text);
	if (rc < 0)
		return rc;
	q = rc;
	yaml_node_t *root = yaml_document_get_root_node(&doc->parts[q]->doc);

	if (!root || root->type != YAML_MAPPING_NODE)
		return err_node(doc, p, id, path, err, "included file '%s' does not hold a mapping",
				file);
	struct ycfg_view *qv = doc->parts[q]->views[1];

	for (size_t i = 0; qv && i < qv->n; i++)
		if ((rc = view_add_unique(doc, v, &qv->e[i], map_path, err)) < 0)
			return rc;
	return 0;
}

static int includes(struct ycfg_doc *doc, int p, int id, const char *map_path,
		    struct ycfg_view *v, struct scn_error *err)
{
	yaml_node_t *node = yaml_document_get_node(&doc->parts[p]->doc, id);
	char path[160], item[160];
	int rc;

	ycfg__path_key(path, sizeof(path), map_path, "include");
	if (node->type == YAML_SCALAR_NODE)
		return include_one(doc, p, id, path, v, map_path, err);
	if (node->type != YAML_SEQUENCE_NODE)
		return err_node(doc, p, id, path, err, "expected a file name or a list of them");
	for (yaml_node_item_t *it = node->data.sequence.items.start;
	     it < node->data.sequence.items.top; it++) {
		ycfg__path_index(item, sizeof(item), path, (size_t)(it - node->data.sequence.items.start));
		if ((rc = include_one(doc, p, *it, item, v, map_path, err)) < 0)
			return rc;
	}
	return 0;
}

static int walk_map(struct ycfg_doc *doc, int p, int id, const char *path, int nest,
		    struct scn_error *err)
{
	struct ycfg_part *part = doc->parts[p];
	yaml_node_t *node = yaml_document_get_node(&part->doc, id);
	struct ycfg_view *v;
	char child[160];
	int inc = 0, inc_key = 0, rc;
	size_t own;

	if (part->views[id])
		return 0; /* an alias of a mapping already walked */
	v = calloc(1, sizeof(*v));
	if (!v)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	part->views[id] = v;
	for (yaml_node_pair_t *pr = node->data.mapping.pairs.start;
	     pr < node->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(&part->doc, pr->key);
		struct ycfg_entry e = { .kpart = p, .kid = pr->key, .vpart = p, .vid = pr->value };

		if (!k || k->type != YAML_SCALAR_NODE)
			return err_node(doc, p, pr->key, path, err, "mapping keys must be scalars");
		e.key = (const char *)k->data.scalar.value;
		if (!strcmp(e.key, "include")) {
			if (inc) {
				struct ycfg_view tmp = { 0 };
				struct ycfg_entry first = e;

				first.kid = inc_key;
				tmp.n = tmp.cap = 1;
				tmp.e = &first;
				return view_add_unique(doc, &tmp, &e, path, err);
			}
			inc = pr->value;
			inc_key = pr->key;
			continue;
		}
		if ((rc = view_add_unique(doc, v, &e, path, err)) < 0)
			return rc;
	}
	own = v->n;
	for (size_t i = 0; i < own; i++) {
		ycfg__path_key(child, sizeof(child), path, v->e[i].key);
		if ((rc = walk(doc, p, v->e[i].vid, child, nest + 1, err)) < 0)
			return rc;
	}
	/* Walk own values first: their errors come before include errors, in file order. */
	return inc ? includes(doc, p, inc, path, v, err) : 0;
}

static int walk(struct ycfg_doc *doc, int p, int id, const char *path, int nest,
		struct scn_error *err)
{
	yaml_node_t *node = yaml_document_get_node(&doc->parts[p]->doc, id);
	char child[160];
	int rc;

	if (!node)
		return 0;
	if (nest > YCFG_MAX_NESTING)
		return err_node(doc, p, id, path, err, "nesting deeper than %d levels",
				YCFG_MAX_NESTING);
	if (node->type == YAML_MAPPING_NODE)
		return walk_map(doc, p, id, path, nest, err);
	if (node->type != YAML_SEQUENCE_NODE)
		return 0;
	for (yaml_node_item_t *it = node->data.sequence.items.start;
	     it < node->data.sequence.items.top; it++) {
		ycfg__path_index(child, sizeof(child), path,
				 (size_t)(it - node->data.sequence.items.start));
		if ((rc = walk(doc, p, *it, child, nest + 1, err)) < 0)
			return rc;
	}
	return 0;
}

static int syntax_error(const char *file, const yaml_parser_t *ps, struct scn_error *err)
{
	const char *problem = ps->problem ? ps->problem : "invalid YAML";
	int line = (int)ps->problem_mark.line + 1, col = (int)ps->problem_mark.column + 1;

	if (ps->error == YAML_READER_ERROR)
		return scn_error_at(err, file, 0, 0, NULL, -EINVAL,
				    "syntax error: %s at byte %zu", problem, ps->problem_offset);
	if (ps->context)
		return scn_error_at(err, file, line, col, NULL, -EINVAL, "syntax error: %s %s",
				    problem, ps->context);
	return scn_error_at(err, file, line, col, NULL, -EINVAL, "syntax error: %s", problem);
}

static int parse(struct ycfg_part *part, const char *text, size_t len, struct scn_error *err)
{
	yaml_parser_t ps;
	yaml_document_t extra;
	int rc = 0;

	if (!yaml_parser_initialize(&ps))
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
	if (!yaml_parser_load(&ps, &part->doc)) {
		rc = syntax_error(part->file, &ps, err);
		yaml_parser_delete(&ps);
		return rc;
	}
	part->n_nodes = (int)(part->doc.nodes.top - part->doc.nodes.start);
	if (!yaml_parser_load(&ps, &extra)) {
		rc = syntax_error(part->file, &ps, err);
	} else {
		yaml_node_t *r = yaml_document_get_root_node(&extra);

		if (r)
			rc = scn_error_at(err, part->file, (int)r->start_mark.line + 1,
					  (int)r->start_mark.column + 1, NULL, -EINVAL,
					  "more than one YAML document in the file");
		yaml_document_delete(&extra);
	}
	yaml_parser_delete(&ps);
	if (rc < 0) {
		yaml_document_delete(&part->doc);
		part->n_nodes = -1;
	}
	return rc;
}

/* Count part IDX's nodes with aliases expanded (ycfg_bound.c) into the document's total. */
static int bound_part(struct ycfg_doc *doc, int idx, const char *base, struct scn_error *err)
{
	unsigned long nodes = 0;
	int rc = ycfg__bound(doc, idx, base, &nodes, err);

	if (rc < 0)
		return rc;
	if (nodes > YCFG_MAX_NODES - doc->nodes)
		return err_node(doc, idx, 1, base, err, "with this file the document holds more "
				"than %lu nodes (aliases expanded), the most a configuration may "
				"hold", YCFG_MAX_NODES);
	doc->nodes += nodes;
	return 0;
}

static int add_part(struct ycfg_doc *doc, const char *file, const char *real, int parent,
		    const char *text, size_t len, const char *base, struct scn_error *err)
{
	struct ycfg_part *part;
	int idx, rc;

	if (doc->n_parts == doc->cap_parts) {
		int cap = doc->cap_parts ? doc->cap_parts * 2 : 4;
		struct ycfg_part **np = realloc(doc->parts, (size_t)cap * sizeof(*np));

		if (!np)
			return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
		doc->parts = np;
		doc->cap_parts = cap;
	}
	part = calloc(1, sizeof(*part));
	if (!part)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	part->n_nodes = -1; /* no libyaml document yet */
	part->file = strdup(file);
	part->real = strdup(real);
	part->parent = parent;
	part->depth = parent < 0 ? 0 : doc->parts[parent]->depth + 1;
	idx = doc->n_parts++;
	doc->parts[idx] = part;
	if (!part->file || !part->real)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	if ((rc = parse(part, text, len, err)) < 0)
		return rc;
	if ((rc = bound_part(doc, idx, base, err)) < 0)
		return rc;
	part->views = calloc((size_t)part->n_nodes + 1, sizeof(*part->views));
	if (!part->views)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	if (part->n_nodes > 0 && (rc = walk(doc, idx, 1, base, 0, err)) < 0)
		return rc;
	return idx;
}

static void free_part(struct ycfg_part *part)
{
	if (!part)
		return;
	if (part->views) {
		for (int i = 0; i <= part->n_nodes; i++) {
			if (part->views[i])
				free(part->views[i]->e);
			free(part->views[i]);
		}
		free(part->views);
	}
	if (part->n_nodes >= 0)
		yaml_document_delete(&part->doc);
	free(part->file);
	free(part->real);
	free(part);
}

void ycfg_free(struct ycfg_doc *doc)
{
	if (!doc)
		return;
	for (int i = 0; i < doc->n_parts; i++)
		free_part(doc->parts[i]);
	free(doc->parts);
	free(doc);
}

static int load_text(const char *name, const char *real, const char *text, size_t len,
		     struct ycfg_doc **out, struct scn_error *err)
{
	struct ycfg_doc *doc = calloc(1, sizeof(*doc));
	int rc;

	*out = NULL;
	if (!doc)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	rc = add_part(doc, name, real, -1, text, len, "", err);
	if (rc < 0) {
		ycfg_free(doc);
		return rc;
	}
	*out = doc;
	return 0;
}

int ycfg_load_string(const char *name, const char *text, struct ycfg_doc **out,
		     struct scn_error *err)
{
	return load_text(name ? name : "<string>", "", text, strlen(text), out, err);
}

int ycfg_load(const char *path, struct ycfg_doc **out, struct scn_error *err)
{
	char real[PATH_MAX], why[200], *text = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if (!realpath(path, real)) {
		rc = -errno;
		snprintf(why, sizeof(why), "%s", strerror(-rc));
	} else {
		rc = ycfg_read_file(path, YCFG_MAX_FILE_BYTES, &text, &len, why, sizeof(why));
	}
	if (rc < 0)
		return scn_error_at(err, path, 0, 0, NULL, rc, "cannot read: %s", why);
	rc = load_text(path, real, text, len, out, err);
	free(text);
	return rc;
}
