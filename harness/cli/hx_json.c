/* SPDX-License-Identifier: MIT */
/*
 * hx_json: the one JSON contract of every `scalacn ... --json` document (docs/json.md): the
 * top level is an object naming the command and carrying scalacn_version; lists are arrays,
 * numbers keep full precision (json-c's %.17g), a number not measured is null. Commands build
 * their body with json-c and hand it here to print.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/cli/hx_cli.h"

struct json_object *hx_json_doc(const char *command)
{
	struct json_object *doc = json_object_new_object();

	json_object_object_add(doc, "scalacn_version", json_object_new_string(SCALACN_VERSION));
	json_object_object_add(doc, "command", json_object_new_string(command));
	return doc;
}

struct json_object *hx_json_num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

void hx_json_emit(struct json_object *doc, FILE *out)
{
	fprintf(out, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}

/* A stored comma-separated list as a JSON array: of strings, or (IDS) of distinct trial
 * ids in the order stored. */
struct json_object *hx_json_list(const char *list, bool ids)
{
	struct json_object *a = json_object_new_array();
	char item[128];

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		snprintf(item, sizeof(item), "%.*s", (int)(n < sizeof(item) ? n : sizeof(item) - 1), p);
		if (ids) {
			int64_t id = strtoll(item, NULL, 10);
			bool seen = false;

			for (size_t i = 0; i < json_object_array_length(a) && !seen; i++)
				seen = json_object_get_int64(json_object_array_get_idx(a, i)) == id;
			if (!seen)
				json_object_array_add(a, json_object_new_int64(id));
		} else if (item[0]) {
			json_object_array_add(a, json_object_new_string(item));
		}
		p += n + (p[n] == ',');
	}
	return a;
}
