/* SPDX-License-Identifier: MIT */
/*
 * cmd_measure: `scalacn measure` runs one trial on a testbed and prints its sample;
 * `scalacn dimensions` lists the dimensions a point is made of (levels, neutral level).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
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
	struct json_object *j = hx_json_doc("measure"), *c = json_object_new_object();
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
	hx_json_emit(j, stdout);
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

static const struct hx_opt measure_opts[] = {
	{ "testbed", 't', "FILE", "testbed description (required)", HX_COMPLETE_FILE, 0 },
	{ "verb", 'v', "VERB", "send, write or read (default: the neutral verb)", "send write read", 0 },
	{ "size", 's', "BYTES", "message size (K and M suffixes)", NULL, 0 },
	{ "metric", 'm', "METRIC", "bw (bandwidth test) or lat (latency test)", "bw lat", 0 },
	{ "set", 'S', "DIM=LEVEL", "set a dimension (repeatable; see 'scalacn dimensions')", NULL, 0 },
	{ "seed", 'e', "N", "seed of the trial (default 1)", NULL, 0 },
	{ "layout", 'L', "N", "rule layout to build (default 0; the model phase measures 0, 1, ...)",
	  NULL, 0 },
	{ "json", 'J', NULL, "print the sample as JSON (docs/json.md)", NULL, 0 },
	{ "no-repair", 'R', NULL, "refuse a point with fewer flows than its masks need", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_measure = {
	"measure", "run one trial on a testbed and print its sample", NULL, measure_opts,
	"Every dimension not set is at its neutral level (see 'scalacn dimensions').\n"
	"A point with more masks or encap contexts than flows gets the flows it needs, as in\n"
	"'scalacn run' (a note on stderr says so); --no-repair refuses such a point instead.\n"
	"Levels take K and M suffixes (8K = 8192).\n",
	"Example:\n"
	"  scalacn measure --testbed examples/testbeds/sim-cx7.yaml --verb send --size 8M \\\n"
	"      --set server.decap_masks=20 --json\n",
	hx_cmd_measure,
};

int hx_cmd_measure(int argc, char **argv)
{
	struct measure_opts m = { .seed = 1 };
	struct scn_error err;
	struct hx_args a = HX_ARGS("measure", argc, argv);
	char *end;
	int c;

	gen_levels_neutral(&m.levels);
	while ((c = hx_opt_next(&a)) != -1) {
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
		case 'L': {
			unsigned long k = strtoul(optarg, &end, 10);

			if (*end || *optarg == '-' || !*optarg || k > UINT32_MAX)
				return hx_usage_error("measure", "--layout takes an integer 0..%u, not '%s'",
						      UINT32_MAX, optarg);
			m.levels.layout = (uint32_t)k;
			break;
		}
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
