/* SPDX-License-Identifier: MIT */
/*
 * ag_state: the original layout's file (see ag_state.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "agent/ag_state.h"

int ag_state_path(const char *dir, const char *dev, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s.json", dir, dev);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int copy_str(json_object *o, const char *key, char *buf, size_t len)
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v) || !(s = json_object_get_string(v)) ||
	    strlen(s) >= len)
		return -EINVAL;
	snprintf(buf, len, "%s", s);
	return 0;
}

static int load_filter(json_object *o, struct ag_filter *f)
{
	json_object *v;

	memset(f, 0, sizeof(*f));
	if (!json_object_object_get_ex(o, "pref", &v))
		return -EINVAL;
	f->pref = (uint16_t)json_object_get_int(v);
	if (!json_object_object_get_ex(o, "handle", &v))
		return -EINVAL;
	f->handle = (uint32_t)json_object_get_int64(v);
	return copy_str(o, "proto", f->proto, sizeof(f->proto)) ||
	       copy_str(o, "match", f->match, sizeof(f->match)) ||
	       copy_str(o, "actions", f->actions, sizeof(f->actions)) ? -EINVAL : 0;
}

int ag_state_load(const char *path, struct ag_filters *orig, char *err, size_t errlen)
{
	json_object *root, *fs;
	int rc = 0;

	if (access(path, F_OK) < 0)
		return -ENOENT;
	root = json_object_from_file(path);
	if (!root || !json_object_object_get_ex(root, "filters", &fs) ||
	    !json_object_is_type(fs, json_type_array)) {
		snprintf(err, errlen, "%s: not a scalacn-agent state file", path);
		json_object_put(root);
		return -EINVAL;
	}
	for (size_t i = 0; rc == 0 && i < json_object_array_length(fs); i++) {
		struct ag_filter f;

		rc = load_filter(json_object_array_get_idx(fs, i), &f);
		if (rc < 0)
			snprintf(err, errlen, "%s: filter %zu is damaged", path, i + 1);
		else
			rc = ag_filters_push(orig, &f);
	}
	json_object_put(root);
	return rc;
}

static json_object *filter_json(const struct ag_filter *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "pref", json_object_new_int(f->pref));
	json_object_object_add(o, "handle", json_object_new_int64(f->handle));
	json_object_object_add(o, "proto", json_object_new_string(f->proto));
	json_object_object_add(o, "match", json_object_new_string(f->match));
	json_object_object_add(o, "actions", json_object_new_string(f->actions));
	return o;
}

int ag_state_save(const char *path, const char *dev, const struct ag_filters *orig,
		  char *err, size_t errlen)
{
	json_object *root = json_object_new_object(), *fs = json_object_new_array();
	char tmp[4200];
	int rc = 0;

	json_object_object_add(root, "format", json_object_new_string("scalacn-agent-state"));
	json_object_object_add(root, "version", json_object_new_int(1));
	json_object_object_add(root, "device", json_object_new_string(dev));
	for (size_t i = 0; i < orig->n; i++)
		json_object_array_add(fs, filter_json(&orig->v[i]));
	json_object_object_add(root, "filters", fs);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (json_object_to_file_ext(tmp, root, JSON_C_TO_STRING_PRETTY) < 0 ||
	    rename(tmp, path) < 0) {
		rc = errno ? -errno : -EIO;
		snprintf(err, errlen, "writing %s: %s", path, strerror(errno));
		unlink(tmp);
	}
	json_object_put(root);
	return rc;
}

int ag_state_merge(struct ag_filters *orig, const struct ag_filters *cur)
{
	bool *missing = calloc(cur->n + 1, sizeof(*missing));
	int added = 0;

	if (!missing || ag_filters_index(orig) < 0) {
		free(missing);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cur->n; i++)
		missing[i] = ag_filters_find(orig, &cur->v[i]) < 0;
	for (size_t i = 0; i < cur->n && added >= 0; i++)
		if (missing[i])
			added = ag_filters_push(orig, &cur->v[i]) < 0 ? -ENOMEM : added + 1;
	free(missing);
	return added;
}

int ag_state_equal(const struct ag_filters *orig, struct ag_filters *cur, char *err,
		   size_t errlen)
{
	if (ag_filters_index(cur) < 0)
		return 0;
	for (size_t i = 0; i < orig->n; i++) {
		long j = ag_filters_find(cur, &orig->v[i]);

		if (j < 0 || cur->v[j].pref != orig->v[i].pref || cur->v[j].handle != orig->v[i].handle) {
			snprintf(err, errlen, "prio %u handle %u is %s", orig->v[i].pref,
				 orig->v[i].handle, j < 0 ? "missing" : "elsewhere");
			return 0;
		}
	}
	if (cur->n != orig->n) {
		snprintf(err, errlen, "%zu filters now, %zu originally", cur->n, orig->n);
		return 0;
	}
	return 1;
}
