/* SPDX-License-Identifier: MIT */
/*
 * pt_tc_show: counting what `tc -s -j filter show dev DEV ingress` reports (pt_tc.h), with
 * json-c. Assumes iproute2's JSON shape: an array of entries; the ones describing a filter
 * have an "options" object holding "in_hw" or "not_in_hw" (true) and "actions" with "stats".
 * Checked against fixtures/rdma/rxe-qemu/loop__tc_show_json.txt.
 */
#include <errno.h>
#include <json-c/json.h>
#include <string.h>

#include "testbeds/perftest/pt_tc.h"

static bool flag(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

static void count_filter(struct json_object *opts, struct pt_tc_count *c)
{
	struct json_object *acts, *a0, *stats, *v;

	c->filters++;
	if (flag(opts, "in_hw"))
		c->in_hw++;
	if (flag(opts, "not_in_hw"))
		c->not_in_hw++;
	if (!json_object_object_get_ex(opts, "actions", &acts) ||
	    !json_object_is_type(acts, json_type_array) || json_object_array_length(acts) == 0)
		return;
	a0 = json_object_array_get_idx(acts, 0);
	if (!json_object_object_get_ex(a0, "stats", &stats))
		return;
	if (json_object_object_get_ex(stats, "packets", &v))
		c->packets += json_object_get_double(v);
	if (json_object_object_get_ex(stats, "bytes", &v))
		c->bytes += json_object_get_double(v);
}

int pt_tc_count_json(const char *json, size_t len, struct pt_tc_count *c, struct scn_error *err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root;
	int rc = 0;

	if (!tok)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "tc: out of memory");
	/* tc prints nothing at all for a device without filters */
	while (len && strchr(" \t\r\n", json[len - 1]))
		len--;
	if (len == 0) {
		json_tokener_free(tok);
		return 0;
	}
	root = json_tokener_parse_ex(tok, json, (int)len);
	if (!root || !json_object_is_type(root, json_type_array))
		rc = scn_error_set(err, SCN_ERR_TRANSIENT, -EINVAL, "tc filter show: not a JSON "
				   "array (%s)", json_tokener_error_desc(json_tokener_get_error(tok)));
	for (size_t i = 0; rc == 0 && i < json_object_array_length(root); i++) {
		struct json_object *e = json_object_array_get_idx(root, i), *opts;

		if (json_object_object_get_ex(e, "options", &opts))
			count_filter(opts, c);
	}
	json_object_put(root);
	json_tokener_free(tok);
	return rc;
}
