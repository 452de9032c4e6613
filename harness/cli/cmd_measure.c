/* SPDX-License-Identifier: MIT */
/*
 * cmd_measure: `scalacn measure` runs one trial on a testbed and prints its sample;
 * `scalacn dimensions` lists the dimensions a point is made of (levels, neutral level).
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/cli/hx_cli.h"
#include "harness/plan/hx_plan.h"
#include "testbeds/tb.h"

struct measure_opts {
	const char *testbed;
	struct gen_levels levels;
	uint64_t seed;
	bool json;
	bool no_repair;
};

static void print_sample_text(const struct tb_description *d, const struct gen_levels *l,
			      const struct tb_sample *s)
{
	printf("testbed: %s %s (firmware %s, %.0f Gb/s line)\n", d->kind, d->rnic_model,
	       d->firmware, d->line_rate_gbps);
	printf("verb %s, %s test, %u-byte messages, %u flows, masks client %u/%u server %u/%u (encap/decap)\n",
	       topo_verb_name(l->verb), l->metric == GEN_METRIC_LAT ? "latency" : "bandwidth",
	       l->msg_size, l->flows, l->masks[GEN_CLIENT][GEN_ENCAP], l->masks[GEN_CLIENT][GEN_DECAP],
	       l->masks[GEN_SERVER][GEN_ENCAP], l->masks[GEN_SERVER][GEN_DECAP]);
	printf("status          %s\n", tb_status_name(s->status));
	if (s->evidence[0])
		printf("evidence        %s\n", s->evidence);
	if (isfinite(s->bw_gbps)) /* what the test did not measure is not printed */
		printf("bandwidth       %.3f Gb/s (%.1f MiB/s)\n", s->bw_gbps,
		       s->bw_gbps * 1e9 / 8 / 1048576);
	if (isfinite(s->msg_rate_mpps))
		printf("message rate    %.4f Mpps\n", s->msg_rate_mpps);
	if (isfinite(s->lat_median_us))
		printf("latency median  %.3f us\n", s->lat_median_us);
	if (isfinite(s->lat_p99_us))
		printf("latency p99     %.3f us\n", s->lat_p99_us);
	printf("cost            %.3f testbed-seconds\n", s->cost_s);
	for (unsigned i = 0; i < s->n_counters; i++)
		printf("counter %-28s %.0f\n", s->counters[i].name, s->counters[i].value);
}

/* JSON has no NaN: a number the test did not measure is null. */
static struct json_object *measured(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static void print_sample_json(const struct tb_description *d, const struct gen_levels *l,
			      const struct tb_sample *s)
{
	struct json_object *j = json_object_new_object(), *c = json_object_new_object();
	char buf[4096];

	json_object_object_add(j, "rnic_model", json_object_new_string(d->rnic_model));
	json_object_object_add(j, "firmware", json_object_new_string(d->firmware));
	json_object_object_add(j, "point", json_tokener_parse(hx_point_json(l, buf, sizeof(buf))));
	json_object_object_add(j, "status", json_object_new_string(tb_status_name(s->status)));
	json_object_object_add(j, "evidence", s->evidence[0] ?
			       json_object_new_string(s->evidence) : NULL);
	json_object_object_add(j, "bw_gbps", measured(s->bw_gbps));
	json_object_object_add(j, "bw_mib_s", measured(s->bw_gbps * 1e9 / 8 / 1048576));
	json_object_object_add(j, "msg_rate_mpps", measured(s->msg_rate_mpps));
	json_object_object_add(j, "lat_median_us", measured(s->lat_median_us));
	json_object_object_add(j, "lat_p99_us", measured(s->lat_p99_us));
	json_object_object_add(j, "cost_s", json_object_new_double(s->cost_s));
	for (unsigned i = 0; i < s->n_counters; i++)
		json_object_object_add(c, s->counters[i].name, measured(s->counters[i].value));
	json_object_object_add(j, "counters", c);
	printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
}

/* Raise flows to what the masks and contexts need, as `run` does, or refuse the point naming
 * the fix. Returns 0 or an exit status. */
static int repair_point(struct measure_opts *m)
{
	uint32_t asked = m->levels.flows, need = gen_levels_flows_needed(&m->levels);

	if (asked == 0 || asked >= need)
		return 0;
	if (m->no_repair)
		return hx_usage_error("measure", "the point's masks and encap contexts need at least "
				      "%u flows, but flows = %u: add --set flows=%u", need, asked, need);
	gen_levels_repair(&m->levels);
	fprintf(stderr, "scalacn measure: flows raised from %u to %u, the fewest this point's masks "
		"and encap contexts build with (as 'scalacn run' does; --no-repair refuses)\n",
		asked, need);
	return 0;
}

static int measure_once(const struct measure_opts *m)
{
	struct tb_description d;
	struct gen_rules *rules = NULL;
	struct gen_traffic t;
	struct tb_sample s;
	struct scn_error err;
	struct tb *tb = NULL;
	int rc;

	rc = gen_rules_build(NULL, NULL, &m->levels, m->seed, &rules, &err);
	if (rc == 0)
		rc = tb_open(m->testbed, &tb, &err);
	if (rc == 0)
		rc = tb_describe(tb, &d, &err);
	if (rc == 0)
		rc = tb_apply(tb, rules, &err);
	gen_traffic_from_levels(&m->levels, &t);
	if (rc == 0)
		rc = tb_measure(tb, &t, m->seed, &s, &err);
	if (rc == 0)
		tb_sample_judge(&s, t.metric, NULL); /* as a campaign judges it */
	if (rc == 0) {
		if (m->json)
			print_sample_json(&d, &m->levels, &s);
		else
			print_sample_text(&d, &m->levels, &s);
	}
	tb_close(tb);
	gen_rules_free(rules);
	return rc < 0 ? hx_report_error(&err) : HX_EXIT_OK;
}

static int set_level(struct gen_levels *l, const char *name, const char *value)
{
	char buf[256];
	struct scn_error err;

	snprintf(buf, sizeof(buf), "%s=%s", name, value);
	if (gen_levels_assign(l, buf, &err) < 0) {
		fprintf(stderr, "scalacn measure: %s\n", err.message);
		return -1;
	}
	return 0;
}

int hx_cmd_measure(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "testbed", required_argument, NULL, 't' }, { "verb", required_argument, NULL, 'v' },
		{ "size", required_argument, NULL, 's' },    { "metric", required_argument, NULL, 'm' },
		{ "set", required_argument, NULL, 'S' },     { "seed", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'J' },	      { "no-repair", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct measure_opts m = { .seed = 1 };
	struct scn_error err;
	char *end;
	int c;

	gen_levels_neutral(&m.levels);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:v:s:m:S:e:", opts, NULL)) != -1) {
		switch (c) {
		case 't': m.testbed = optarg; break;
		case 'v': if (set_level(&m.levels, "verb", optarg)) return HX_EXIT_USAGE; break;
		case 's': if (set_level(&m.levels, "msg_size", optarg)) return HX_EXIT_USAGE; break;
		case 'S':
			if (gen_levels_assign(&m.levels, optarg, &err) < 0)
				return hx_usage_error("measure", "--set %s: %s", optarg, err.message);
			break;
		case 'm':
			if (strcmp(optarg, "bw") && strcmp(optarg, "lat"))
				return hx_usage_error("measure", "--metric takes bw or lat, not '%s'", optarg);
			m.levels.metric = strcmp(optarg, "lat") ? GEN_METRIC_BW : GEN_METRIC_LAT;
			break;
		case 'e':
			m.seed = strtoull(optarg, &end, 10);
			if (*end)
				return hx_usage_error("measure", "--seed takes an integer, not '%s'", optarg);
			break;
		case 'J': m.json = true; break;
		case 'R': m.no_repair = true; break;
		default:
			return hx_bad_option("measure", argv);
		}
	}
	if (optind != argc)
		return hx_usage_error("measure", "unexpected argument '%s'", argv[optind]);
	if (!m.testbed)
		return hx_usage_error("measure", "--testbed FILE is required");
	c = repair_point(&m);
	return c ? c : measure_once(&m);
}

int hx_cmd_dimensions(int argc, char **argv)
{
	char lv[32], neutral[32];
	struct tb_description d;
	struct scn_error err;
	struct tb *tb = NULL;

	if (argc == 3 && !strcmp(argv[1], "--testbed")) {
		if (tb_open(argv[2], &tb, &err) < 0 || tb_describe(tb, &d, &err) < 0) {
			tb_close(tb);
			return hx_report_error(&err);
		}
		printf("testbed %s: %s %s, firmware %s\n", argv[2], d.kind, d.rnic_model, d.firmware);
		tb_close(tb);
	} else if (argc != 1) {
		return hx_usage_error("dimensions", "expected no argument or --testbed FILE");
	}
	printf("%-20s %-11s %-8s %-9s %s\n", "dimension", "kind", "unit", "neutral", "levels / help");
	for (unsigned i = 0; i < gen_dimension_count(); i++) {
		const struct gen_dimension *dim = gen_dimension_at(i);

		printf("%-20s %-11s %-8s %-9s ", dim->name,
		       dim->kind == GEN_DIM_CATEGORICAL ? "categorical" : "ordered", dim->unit,
		       hx_level_text(dim, dim->neutral, neutral, sizeof(neutral)));
		for (unsigned k = 0; k < dim->n_levels; k++)
			printf("%s%s", k ? "," : "", hx_level_text(dim, dim->levels[k], lv, sizeof(lv)));
		printf("\n%-52s %s\n", "", dim->help);
	}
	return HX_EXIT_OK;
}
