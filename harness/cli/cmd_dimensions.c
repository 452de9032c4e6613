/* SPDX-License-Identifier: MIT */
/*
 * cmd_dimensions: `scalacn dimensions [--testbed FILE] [--json]`: the dimensions a point is
 * made of, their kind, unit, neutral level ("component removed") and default levels, as a
 * table sized to its content or as the JSON document of docs/json.md.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/cli/hx_cli.h"
#include "harness/plan/hx_plan.h"
#include "testbeds/tb.h"

struct dims_opts {
	const char *testbed;
	bool json;
};

static const char *kind_name(const struct gen_dimension *d)
{
	return d->kind == GEN_DIM_CATEGORICAL ? "categorical" : "ordered";
}

static void levels_text(const struct gen_dimension *d, char *buf, size_t len)
{
	char lv[32];
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < d->n_levels && at < len; k++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? "," : "",
				       hx_level_text(d, d->levels[k], lv, sizeof(lv)));
}

static void print_table(void)
{
	int wn = (int)strlen("dimension"), wu = (int)strlen("unit"), wl = (int)strlen("neutral");
	char lv[32], levels[512];

	for (unsigned i = 0; i < gen_dimension_count(); i++) {
		const struct gen_dimension *d = gen_dimension_at(i);
		int n = (int)strlen(d->name), u = (int)strlen(d->unit);
		int l = (int)strlen(hx_level_text(d, d->neutral, lv, sizeof(lv)));

		wn = n > wn ? n : wn;
		wu = u > wu ? u : wu;
		wl = l > wl ? l : wl;
	}
	printf("%-*s  %-11s  %-*s  %-*s  %s\n", wn, "dimension", "kind", wu, "unit", wl, "neutral",
	       "default levels, then what it is");
	for (unsigned i = 0; i < gen_dimension_count(); i++) {
		const struct gen_dimension *d = gen_dimension_at(i);

		levels_text(d, levels, sizeof(levels));
		printf("%-*s  %-11s  %-*s  %-*s  %s\n%*s  %s\n", wn, d->name, kind_name(d), wu,
		       d->unit, wl, hx_level_text(d, d->neutral, lv, sizeof(lv)), levels,
		       wn + wu + wl + 17, "", d->help);
	}
}

static struct json_object *level_json(const struct gen_dimension *d, double v)
{
	char lv[32];

	if (d->names)
		return json_object_new_string(hx_level_text(d, v, lv, sizeof(lv)));
	return json_object_new_double(v);
}

static void print_json(const struct tb_description *tb)
{
	struct json_object *doc = hx_json_doc("dimensions"), *arr = json_object_new_array();

	if (tb) {
		json_object_object_add(doc, "rnic_model", json_object_new_string(tb->rnic_model));
		json_object_object_add(doc, "firmware", json_object_new_string(tb->firmware));
		json_object_object_add(doc, "testbed_kind", json_object_new_string(tb->kind));
	}
	for (unsigned i = 0; i < gen_dimension_count(); i++) {
		const struct gen_dimension *d = gen_dimension_at(i);
		struct json_object *j = json_object_new_object(), *lv = json_object_new_array();

		json_object_object_add(j, "name", json_object_new_string(d->name));
		json_object_object_add(j, "kind", json_object_new_string(kind_name(d)));
		json_object_object_add(j, "unit", json_object_new_string(d->unit));
		json_object_object_add(j, "neutral", level_json(d, d->neutral));
		for (unsigned k = 0; k < d->n_levels; k++)
			json_object_array_add(lv, level_json(d, d->levels[k]));
		json_object_object_add(j, "levels", lv);
		json_object_object_add(j, "help", json_object_new_string(d->help));
		json_object_array_add(arr, j);
	}
	json_object_object_add(doc, "dimensions", arr);
	hx_json_emit(doc, stdout);
}

int hx_cmd_dimensions(int argc, char **argv)
{
	struct hx_args a = HX_ARGS("dimensions", argc, argv);
	struct dims_opts o = { 0 };
	struct tb_description d;
	struct scn_error err;
	struct tb *tb = NULL;
	int c;

	while ((c = hx_opt_next(&a)) != -1) {
		if (c == 't')
			o.testbed = optarg;
		else if (c == 'J')
			o.json = true;
		else
			return hx_bad_option("dimensions", argv);
	}
	if ((c = hx_no_operands("dimensions", argc, argv)))
		return c;
	if (o.testbed) {
		if (tb_open(o.testbed, &tb, &err) < 0 || tb_describe(tb, &d, &err) < 0) {
			tb_close(tb);
			return hx_report_error(&err);
		}
		tb_close(tb);
		if (!o.json)
			printf("testbed %s: %s %s, firmware %s\n", o.testbed, d.kind, d.rnic_model,
			       d.firmware);
	}
	if (o.json)
		print_json(o.testbed ? &d : NULL);
	else
		print_table();
	return HX_EXIT_OK;
}

static const struct hx_opt dimensions_opts[] = {
	{ "testbed", 't', "FILE", "also name the testbed's RNIC model and firmware",
	  HX_COMPLETE_FILE, 0 },
	{ "json", 'J', NULL, "the dimensions as JSON (docs/json.md)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_dimensions = {
	"dimensions", "list the dimensions of a point, their levels and neutral levels", NULL,
	dimensions_opts,
	"A point sets every dimension to a level; the neutral level stands for the component\n"
	"removed. Plans sweep or fix dimensions by these names (docs/plan-reference.md).\n",
	NULL, hx_cmd_dimensions,
};
