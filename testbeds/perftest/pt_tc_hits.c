/* SPDX-License-Identifier: MIT */
/*
 * pt_tc_hits: the packets each tc filter counted (pt_tc.h), from `tc -s -j filter show dev
 * DEV ingress`, so a trial's evidence shows where its packets went per (chain, prio, handle).
 * Assumes iproute2's JSON shape (pt_tc_show.c): entries with "options" describe a filter, its
 * chain in "chain", its prio in "pref", its handle in options.handle, its hits in the first
 * action's stats.packets. Checked against the JSON fixtures of tc in fixtures/rdma/rxe-qemu.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_tc.h"

static uint32_t u32_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? (uint32_t)json_object_get_int64(v) : 0;
}

static double packets_of(struct json_object *opts)
{
	struct json_object *acts, *stats, *v;

	if (!json_object_object_get_ex(opts, "actions", &acts) ||
	    !json_object_is_type(acts, json_type_array) || json_object_array_length(acts) == 0 ||
	    !json_object_object_get_ex(json_object_array_get_idx(acts, 0), "stats", &stats) ||
	    !json_object_object_get_ex(stats, "packets", &v))
		return 0;
	return json_object_get_double(v);
}

static int push(struct pt_tc_hits *h, const struct pt_tc_hit *hit)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		struct pt_tc_hit *v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	h->v[h->n++] = *hit;
	return 0;
}

int pt_tc_hits_json(const char *json, size_t len, struct pt_tc_hits *h, struct scn_error *err)
{
	struct json_tokener *tok;
	struct json_object *root;
	int rc = 0;

	while (len && strchr(" \t\r\n", json[len - 1]))
		len--;
	if (len == 0) /* tc prints nothing for a device without filters */
		return 0;
	if (!(tok = json_tokener_new()))
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "tc: out of memory");
	root = json_tokener_parse_ex(tok, json, (int)len);
	json_tokener_free(tok);
	if (!root || !json_object_is_type(root, json_type_array)) {
		json_object_put(root);
		return scn_error_set(err, SCN_ERR_TRANSIENT, -EINVAL, "tc -s -j filter show: not "
				     "a JSON array");
	}
	for (size_t i = 0; rc == 0 && i < json_object_array_length(root); i++) {
		struct json_object *e = json_object_array_get_idx(root, i), *opts;
		struct pt_tc_hit hit;

		if (!json_object_object_get_ex(e, "options", &opts))
			continue;
		hit = (struct pt_tc_hit){ .chain = u32_of(e, "chain"), .prio = u32_of(e, "pref"),
					  .handle = u32_of(opts, "handle"),
					  .packets = packets_of(opts) };
		if (push(h, &hit) < 0)
			rc = scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "tc: out of memory");
	}
	json_object_put(root);
	return rc;
}

static const struct pt_tc_hit *find(const struct pt_tc_hits *h, size_t hint,
				    const struct pt_tc_hit *want)
{
	/* tc lists filters in the same order each time: try the same index first */
	if (hint < h->n && h->v[hint].chain == want->chain && h->v[hint].prio == want->prio &&
	    h->v[hint].handle == want->handle)
		return &h->v[hint];
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i].chain == want->chain && h->v[i].prio == want->prio &&
		    h->v[i].handle == want->handle)
			return &h->v[i];
	return NULL;
}

void pt_tc_hits_delta(const struct pt_tc_hits *before, struct pt_tc_hits *after)
{
	for (size_t i = 0; i < after->n; i++) {
		const struct pt_tc_hit *b = find(before, i, &after->v[i]);

		if (b && b->packets <= after->v[i].packets)
			after->v[i].packets -= b->packets;
	}
}

void pt_tc_hits_free(struct pt_tc_hits *h)
{
	free(h->v);
	*h = (struct pt_tc_hits){ 0 };
}
