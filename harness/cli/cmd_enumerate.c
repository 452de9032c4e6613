/* SPDX-License-Identifier: MIT */
/*
 * cmd_enumerate: `scalacn enumerate PLAN [--list] [--json] [--limit N]`: the plan's component
 * space, its brute-force size, valid architecture models and pruned counts by reason, and the
 * flow-path growth (k*n^2 valid against (k*n+1)^(k*n) unconstrained). The plan is checked as
 * `run` checks it: hx_plan_load's checks, and the plan's `testbed:` file must open (it is
 * read, nothing is run on it).
 */
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "harness/cli/hx_cli.h"
#include "harness/plan/hx_plan.h"
#include "testbeds/tb.h"
#include "topology/topo_enum.h"

struct list_ctx {
	const struct topo_space *space;
	bool json;
	struct json_object *array;
	unsigned long limit, shown;
};

static int list_model(const struct topo_model *m, void *ctx)
{
	struct list_ctx *l = ctx;
	char buf[1024];

	if (l->limit && l->shown >= l->limit)
		return 0;
	topo_model_format(l->space, m, buf, sizeof(buf));
	if (l->json)
		json_object_array_add(l->array, json_object_new_string(buf));
	else
		printf("model %lu: %s\n", l->shown + 1, buf);
	l->shown++;
	return 0;
}

/* The plan and its testbed file, refused as `run` would refuse them. */
static int load_checked(const char *path, struct hx_plan **plan, struct scn_error *err)
{
	struct tb *tb = NULL;
	int rc = hx_plan_load(path, plan, err);

	if (rc < 0 || !(*plan)->testbed[0])
		return rc;
	rc = tb_open((*plan)->testbed, &tb, err);
	tb_close(tb);
	if (rc < 0) {
		hx_plan_free(*plan);
		*plan = NULL;
	}
	return rc;
}

static void print_text(const struct topo_space *s, const struct topo_enum_stats *st)
{
	double pruned = 0;

	printf("Component space: up to %u tables, %u mask shapes (<= %u per table), %u action lists, %u subnets x %u containers\n",
	       s->max_tables, s->n_shapes, s->max_masks_per_table, s->n_templates, s->subnets,
	       s->containers);
	printf("Brute-force size:   10^%.3f architecture models\n", st->log10_bruteforce);
	printf("Valid models:       %llu\n", (unsigned long long)st->valid);
	printf("Visited (partial + complete): %llu\n", (unsigned long long)st->visited);
	printf("Pruned, by reason (complete models excluded / partial models cut):\n");
	for (int r = 1; r < TOPO_R_COUNT; r++) {
		if (r == TOPO_R_DEAD_RULE)
			continue;
		pruned += st->pruned[r];
		printf("  %-18s %14.6g  %10llu   %s\n", topo_reason_name((enum topo_reason)r),
		       st->pruned[r], (unsigned long long)st->prune_events[r],
		       topo_reason_explain((enum topo_reason)r));
	}
	printf("  %-18s %14.6g\n", "total", pruned);
	printf("Flow paths: valid %.6g (k*n^2 = %u*%u^2) against 10^%.3f for unconstrained table contents ((k*n+1)^(k*n))\n",
	       st->flow_paths_valid, s->subnets, s->containers, st->log10_flow_paths_unconstrained);
}

static void print_json(const struct topo_enum_stats *st, struct json_object *models)
{
	struct json_object *j = hx_json_doc("enumerate"), *pr = json_object_new_object();

	json_object_object_add(j, "log10_bruteforce", json_object_new_double(st->log10_bruteforce));
	json_object_object_add(j, "valid", json_object_new_int64((int64_t)st->valid));
	json_object_object_add(j, "visited", json_object_new_int64((int64_t)st->visited));
	for (int r = 1; r < TOPO_R_COUNT; r++)
		json_object_object_add(pr, topo_reason_name((enum topo_reason)r),
				       json_object_new_double(st->pruned[r]));
	json_object_object_add(j, "pruned", pr);
	json_object_object_add(j, "flow_paths_valid", json_object_new_double(st->flow_paths_valid));
	json_object_object_add(j, "log10_flow_paths_unconstrained",
			       json_object_new_double(st->log10_flow_paths_unconstrained));
	if (models)
		json_object_object_add(j, "models", models);
	hx_json_emit(j, stdout);
}

static const struct hx_opt enumerate_opts[] = {
	{ "list", 'l', NULL, "print every valid model", NULL, 0 },
	{ "limit", 'n', "N", "print the first N valid models (implies --list)", NULL, 0 },
	{ "json", 'J', NULL, "machine-readable output (docs/json.md)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_enumerate = {
	"enumerate", "count (and list) the valid architecture models of a plan", "PLAN",
	enumerate_opts,
	"Prints the brute-force size of the plan's component space, the valid architecture\n"
	"models, the models pruned per reason (loop, unreachable table, black hole, semantics)\n"
	"and the growth of valid flow paths (k*n^2) against unconstrained table contents.\n",
	NULL, hx_cmd_enumerate,
};

int hx_cmd_enumerate(int argc, char **argv)
{
	struct list_ctx l = { 0 };
	struct topo_enum_stats st;
	struct hx_plan *plan = NULL;
	struct scn_error err;
	bool list = false;
	struct hx_args a = HX_ARGS("enumerate", argc, argv);
	char *end;
	int c, rc;

	while ((c = hx_opt_next(&a)) != -1) {
		if (c == 'l')
			list = true;
		else if (c == 'J')
			l.json = true;
		else if (c == 'n' && (l.limit = strtoul(optarg, &end, 10), !*end))
			list = true;
		else if (c == 'n')
			return hx_usage_error("enumerate", "--limit takes a number, not '%s'", optarg);
		else
			return hx_bad_option("enumerate", argv);
	}
	if (optind != argc - 1)
		return hx_usage_error("enumerate", "expected one PLAN file");
	if (load_checked(argv[optind], &plan, &err) < 0)
		return hx_report_error(&err);
	l.space = &plan->space;
	if (list && l.json)
		l.array = json_object_new_array();
	rc = topo_enumerate(&plan->space, list ? list_model : NULL, &l, &st, &err);
	if (rc < 0) {
		json_object_put(l.array);
		hx_plan_free(plan);
		return hx_report_error(&err);
	}
	if (l.json)
		print_json(&st, l.array);
	else
		print_text(&plan->space, &st);
	hx_plan_free(plan);
	return HX_EXIT_OK;
}
