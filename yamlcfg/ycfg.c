/* SPDX-License-Identifier: MIT */
/*
 * ycfg: walking a loaded document (see ycfg.h): node kinds and positions, merged mappings,
 * sequences, errors at nodes, allowed-key checks and path resolution.
 *
 * Assumes the document was built by ycfg_load.c: every mapping node has a merged view, and a
 * node (part, id) with id 0 is "absent". Key paths are built here as the caller descends.
 */
#include "yamlcfg/ycfg_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ycfg__path_key(char *out, size_t len, const char *parent, const char *key)
{
	int n = parent && parent[0] ? snprintf(out, len, "%s.%s", parent, key)
				    : snprintf(out, len, "%s", key);

	if (n < 0 && len)
		out[0] = '\0';
}

void ycfg__path_index(char *out, size_t len, const char *parent, size_t i)
{
	int n = snprintf(out, len, "%s[%zu]", parent ? parent : "", i);

	if (n < 0 && len)
		out[0] = '\0';
}

static yaml_node_t *get(const struct ycfg_doc *doc, int part, int id)
{
	if (!doc || part < 0 || part >= doc->n_parts || id <= 0)
		return NULL;
	if (id > doc->parts[part]->n_nodes)
		return NULL;
	return yaml_document_get_node(&doc->parts[part]->doc, id);
}

yaml_node_t *ycfg__node(const struct ycfg_node *n)
{
	return n ? get(n->doc, n->part, n->id) : NULL;
}

const char *ycfg__scalar(const struct ycfg_node *n)
{
	yaml_node_t *y = ycfg__node(n);

	return y && y->type == YAML_SCALAR_NODE ? (const char *)y->data.scalar.value : NULL;
}

const char *ycfg__kind(const struct ycfg_node *n)
{
	yaml_node_t *y = ycfg__node(n);

	if (!y)
		return "nothing";
	if (y->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (y->type == YAML_SEQUENCE_NODE)
		return "a sequence";
	return "a scalar";
}

void ycfg__mark(const struct ycfg_doc *doc, int part, int id, int *line, int *col)
{
	yaml_node_t *y = get(doc, part, id);

	*line = y ? (int)y->start_mark.line + 1 : 0;
	*col = y ? (int)y->start_mark.column + 1 : 0;
}

struct ycfg_node ycfg_root(struct ycfg_doc *doc)
{
	struct ycfg_node n = { .doc = doc, .part = 0, .id = 0 };

	if (doc && doc->n_parts > 0 && doc->parts[0]->n_nodes > 0)
		n.id = 1;
	return n;
}

const char *ycfg_doc_file(const struct ycfg_doc *doc)
{
	return doc && doc->n_parts > 0 ? doc->parts[0]->file : "";
}

bool ycfg_present(const struct ycfg_node *n)
{
	return ycfg__node(n) != NULL;
}

bool ycfg_is_map(const struct ycfg_node *n)
{
	yaml_node_t *y = ycfg__node(n);

	return y && y->type == YAML_MAPPING_NODE;
}

bool ycfg_is_seq(const struct ycfg_node *n)
{
	yaml_node_t *y = ycfg__node(n);

	return y && y->type == YAML_SEQUENCE_NODE;
}

bool ycfg_is_scalar(const struct ycfg_node *n)
{
	yaml_node_t *y = ycfg__node(n);

	return y && y->type == YAML_SCALAR_NODE;
}

const char *ycfg_file(const struct ycfg_node *n)
{
	if (!n || !n->doc || n->part < 0 || n->part >= n->doc->n_parts)
		return n && n->doc ? ycfg_doc_file(n->doc) : "";
	return n->doc->parts[n->part]->file;
}

int ycfg_line(const struct ycfg_node *n)
{
	yaml_node_t *y = ycfg__node(n);

	return y ? (int)y->start_mark.line + 1 : 0;
}

int ycfg_column(const struct ycfg_node *n)
{
	yaml_node_t *y = ycfg__node(n);

	return y ? (int)y->start_mark.column + 1 : 0;
}

int ycfg_error(const struct ycfg_node *n, struct scn_error *err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return scn_error_at(err, ycfg_file(n), ycfg_line(n), ycfg_column(n), n ? n->path : "",
			    -EINVAL, "%s", msg);
}

static const struct ycfg_view *view(const struct ycfg_node *map)
{
	const struct ycfg_part *part;

	if (!ycfg_is_map(map))
		return NULL;
	part = map->doc->parts[map->part];
	return part->views ? part->views[map->id] : NULL;
}

size_t ycfg_map_len(const struct ycfg_node *map)
{
	const struct ycfg_view *v = view(map);

	return v ? v->n : 0;
}

const char *ycfg_map_key(const struct ycfg_node *map, size_t i)
{
	const struct ycfg_view *v = view(map);

	return v && i < v->n ? v->e[i].key : NULL;
}

struct ycfg_node ycfg_map_value(const struct ycfg_node *map, size_t i)
{
	const struct ycfg_view *v = view(map);
	struct ycfg_node c = { .doc = map ? map->doc : NULL };

	if (!v || i >= v->n)
		return c;
	c.part = v->e[i].vpart;
	c.id = v->e[i].vid;
	ycfg__path_key(c.path, sizeof(c.path), map->path, v->e[i].key);
	return c;
}

/* The key node of entry I, with the entry's path (for errors about the key itself). */
static struct ycfg_node map_keynode(const struct ycfg_node *map, size_t i)
{
	const struct ycfg_view *v = view(map);
	struct ycfg_node c = { .doc = map->doc, .part = v->e[i].kpart, .id = v->e[i].kid };

	ycfg__path_key(c.path, sizeof(c.path), map->path, v->e[i].key);
	return c;
}

int ycfg_get(const struct ycfg_node *map, const char *key, struct ycfg_node *child)
{
	const struct ycfg_view *v = view(map);

	for (size_t i = 0; v && i < v->n; i++) {
		if (!strcmp(v->e[i].key, key)) {
			*child = ycfg_map_value(map, i);
			return 0;
		}
	}
	return -ENOENT;
}

static int expect_map(const struct ycfg_node *map, struct scn_error *err)
{
	if (ycfg_is_map(map))
		return 0;
	return ycfg_error(map, err, "expected a mapping, got %s", ycfg__kind(map));
}

int ycfg_require(const struct ycfg_node *map, const char *key, struct ycfg_node *child,
		 struct scn_error *err)
{
	char path[160];
	int rc;

	if ((rc = expect_map(map, err)) < 0)
		return rc;
	if (!ycfg_get(map, key, child))
		return 0;
	ycfg__path_key(path, sizeof(path), map->path, key);
	return scn_error_at(err, ycfg_file(map), ycfg_line(map), ycfg_column(map), path, -EINVAL,
			    "missing key");
}

int ycfg_check_keys(const struct ycfg_node *map, const char *const *allowed,
		    struct scn_error *err)
{
	const struct ycfg_view *v;
	char list[400];
	size_t n = 0;
	int rc;

	if ((rc = expect_map(map, err)) < 0)
		return rc;
	v = view(map);
	for (size_t i = 0; v && i < v->n; i++) {
		size_t k = 0;

		while (allowed[k] && strcmp(allowed[k], v->e[i].key))
			k++;
		if (allowed[k])
			continue;
		list[0] = '\0';
		for (k = 0; allowed[k] && n < sizeof(list); k++) {
			int w = snprintf(list + n, sizeof(list) - n, "%s%s", k ? ", " : "",
					 allowed[k]);

			n += w > 0 ? (size_t)w : 0;
		}
		struct ycfg_node kn = map_keynode(map, i);

		return ycfg_error(&kn, err, "unknown key '%s' (allowed: %s)", v->e[i].key, list);
	}
	return 0;
}

size_t ycfg_seq_len(const struct ycfg_node *seq)
{
	yaml_node_t *y = ycfg__node(seq);

	if (!y || y->type != YAML_SEQUENCE_NODE)
		return 0;
	return (size_t)(y->data.sequence.items.top - y->data.sequence.items.start);
}

struct ycfg_node ycfg_seq_at(const struct ycfg_node *seq, size_t i)
{
	struct ycfg_node c = { .doc = seq ? seq->doc : NULL, .part = seq ? seq->part : 0 };
	yaml_node_t *y = ycfg__node(seq);

	if (!y || i >= ycfg_seq_len(seq))
		return c;
	c.id = y->data.sequence.items.start[i];
	ycfg__path_index(c.path, sizeof(c.path), seq->path, i);
	return c;
}

const char *ycfg_resolve_path(const struct ycfg_node *n, const char *path, char *buf,
			      size_t len)
{
	const char *file = ycfg_file(n);
	const char *slash = strrchr(file, '/');
	int w;

	if (!len)
		return buf;
	if (path[0] == '/' || !slash)
		w = snprintf(buf, len, "%s", path);
	else
		w = snprintf(buf, len, "%.*s/%s", (int)(slash - file), file, path);
	if (w < 0)
		buf[0] = '\0';
	return buf;
}
