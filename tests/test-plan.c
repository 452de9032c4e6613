/* SPDX-License-Identifier: MIT */
/*
 * test-plan: unit tests of the plan loader (harness/plan/hx_plan.h). Good plans are read back
 * value by value (defaults, components merging, sweeps, criteria); a table of bad plans,
 * written to a temp dir, each has its exact formatted error; the shipped example plans load;
 * the plan hash ignores formatting and follows values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/plan/hx_plan.h"
#include "tests/cfg-test-util.h"

static int tmp_setup(void **state)
{
	return cfgt_setup(state, "test-plan");
}

/* Write TEXT as NAME, load it; on error the formatted message (temp dir stripped) is in BUF. */
static int load(const struct cfgt_dir *t, const char *name, const char *text, struct hx_plan **p,
		char *buf, size_t len)
{
	char path[256];
	struct scn_error err;
	int rc;

	if (text)
		cfgt_put(t, name, text);
	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	scn_error_clear(&err);
	rc = hx_plan_load(path, p, &err);
	buf[0] = '\0';
	if (rc) {
		assert_null(*p);
		assert_int_equal(err.cls, SCN_ERR_CONFIG);
		cfgt_error_text(t, &err, buf, len);
	}
	return rc;
}

static const char *const good_plan =
	"name: good\n"
	"testbed: tb/sim.yaml\n"
	"verbs: [write, read]\n"
	"metrics: [bw, lat]\n"
	"components:\n"
	"  max_tables: 2\n"
	"  shapes:\n"
	"    exact5: \"ip_src,ip_dst,ip_proto,l4_src,l4_dst\"\n"
	"    dst24: \"ip_dst/24\"\n"
	"fixed:\n"
	"  msg_size: 4K\n"
	"  popularity: zipf\n"
	"dimensions:\n"
	"  - name: flows\n"
	"    sweep: {from: 1K, to: 16K, ratio: 2}\n"
	"  - name: server.decap_masks\n"
	"    levels: [1, 2, 4, 8]\n"
	"    neutral: 0\n"
	"  - name: qps\n"
	"  - name: traffic_class\n"
	"    levels: [0, 3]\n"
	"thresholds:\n"
	"  bw_drop: 5%\n"
	"criteria:\n"
	"  - name: c1\n"
	"    verb: read\n"
	"    metric: lat\n"
	"    at: {flows: 8K, popularity: uniform}\n"
	"    max_ratio: 1.5\n"
	"analysis:\n"
	"  strategy: anneal\n"
	"  min_confidence: 90%\n";

static void test_plan_good(void **state)
{
	struct cfgt_dir *t = *state;
	struct hx_plan *p = NULL;
	char buf[800], want[300];

	assert_int_equal(load(t, "good.yaml", good_plan, &p, buf, sizeof(buf)), 0);
	assert_string_equal(p->name, "good");
	assert_string_equal(p->description, "");
	snprintf(want, sizeof(want), "%s/tb/sim.yaml", t->dir);
	assert_string_equal(p->testbed, want);
	/* Defaults. */
	assert_int_equal(p->seed, 1);
	assert_true(p->budget_hours == 24);
	assert_int_equal(p->repeats, 3);
	assert_int_equal(p->max_repeats, 9); /* sequential testing on: 3 x repeats */
	assert_int_equal(p->thresholds.looks, 3);
	assert_true(fabs(p->thresholds.alpha - p->thresholds.significance / 3) < 1e-15);
	assert_true(p->thresholds.lat_rise == 0.20);
	assert_true(p->thresholds.significance == 0.05);
	assert_true(p->thresholds.errors);
	assert_int_equal(p->removal_orders, 4);
	/* Given values. */
	assert_true(fabs(p->min_confidence - 0.9) < 1e-12);
	assert_true(fabs(p->thresholds.bw_drop - 0.05) < 1e-12);
	assert_int_equal(p->strategy, HX_STRATEGY_ANNEAL);
	assert_int_equal(p->n_verbs, 2);
	assert_int_equal(p->verbs[0], TOPO_VERB_WRITE);
	assert_int_equal(p->verbs[1], TOPO_VERB_READ);
	assert_int_equal(p->n_metrics, 2);
	assert_int_equal(p->metrics[1], GEN_METRIC_LAT);
	/* Components: given keys override, shapes replace, the rest is the default. */
	struct topo_space def;

	topo_space_default(&def);
	assert_int_equal(p->space.max_tables, 2);
	assert_int_equal(p->space.n_shapes, 2);
	assert_string_equal(p->space.shapes[1].name, "dst24");
	assert_int_equal(p->space.shapes[1].mask.plen[TOPO_F_IP_DST], 24);
	assert_int_equal(p->space.subnets, def.subnets);
	assert_int_equal(p->space.n_templates, def.n_templates);
	assert_string_equal(p->space.templates[0].name, def.templates[0].name);
	/* Fixed levels over neutral. */
	assert_int_equal(p->fixed.msg_size, 4096);
	assert_int_equal(p->fixed.popularity, GEN_POP_ZIPF);
	struct gen_levels neutral;

	gen_levels_neutral(&neutral);
	assert_int_equal(p->fixed.flows, neutral.flows);
	/* Dimensions. */
	assert_int_equal(p->n_dims, 4);
	const struct hx_plan_dim *d = hx_plan_find_dim(p, "flows");

	assert_non_null(d);
	assert_int_equal(d->from, HX_LEVELS_SWEEP);
	assert_int_equal(d->n_levels, 5);
	assert_true(d->levels[0] == 1024 && d->levels[4] == 16384);
	assert_true(d->scale);
	d = &p->dims[1];
	assert_string_equal(d->dim->name, "server.decap_masks");
	assert_int_equal(d->from, HX_LEVELS_EXPLICIT);
	assert_int_equal(d->n_levels, 4);
	assert_true(d->levels[3] == 8 && d->neutral == 0);
	d = &p->dims[2];
	assert_int_equal(d->from, HX_LEVELS_DEFAULT);
	assert_int_equal(d->n_levels, d->dim->n_levels);
	assert_true(d->neutral == d->dim->neutral);
	d = &p->dims[3];
	assert_false(d->scale); /* categorical */
	assert_null(hx_plan_find_dim(p, "mtu"));
	/* Criteria. */
	assert_int_equal(p->n_criteria, 1);
	assert_string_equal(p->criteria[0].name, "c1");
	assert_int_equal(p->criteria[0].verb, TOPO_VERB_READ);
	assert_int_equal(p->criteria[0].metric, GEN_METRIC_LAT);
	assert_int_equal(p->criteria[0].n_at, 2);
	assert_string_equal(p->criteria[0].at_dims[0]->name, "flows");
	assert_true(p->criteria[0].at_levels[0] == 8192);
	assert_true(p->criteria[0].at_levels[1] == GEN_POP_UNIFORM);
	assert_true(p->criteria[0].max_ratio == 1.5);
	assert_true(isnan(p->criteria[0].min_ratio));
	assert_int_equal(strlen(p->hash), 16);
	assert_string_equal(hx_strategy_name(p->strategy), "anneal");
	assert_string_equal(hx_metric_name(GEN_METRIC_LAT), "lat");
	hx_plan_free(p);
	hx_plan_free(NULL);

	/* Minimal plan: everything defaulted, the default component space. */
	assert_int_equal(load(t, "min.yaml", "name: m\n", &p, buf, sizeof(buf)), 0);
	assert_int_equal(p->n_verbs, 1);
	assert_int_equal(p->verbs[0], TOPO_VERB_WRITE);
	assert_int_equal(p->n_metrics, 1);
	assert_int_equal(p->metrics[0], GEN_METRIC_BW);
	assert_int_equal(p->n_dims, 0);
	assert_string_equal(p->testbed, "");
	assert_int_equal(p->space.n_shapes, def.n_shapes);
	assert_int_equal(p->space.max_masks_per_table, def.max_masks_per_table);
	assert_memory_equal(&p->fixed, &neutral, sizeof(neutral));
	hx_plan_free(p);
}

static void test_plan_hash(void **state)
{
	struct cfgt_dir *t = *state;
	struct hx_plan *a = NULL, *b = NULL, *c = NULL;
	char buf[800];

	assert_int_equal(load(t, "h1.yaml", "name: h\nseed: 5\nrepeats: 4\n", &a, buf, sizeof(buf)),
			 0);
	/* Same content: other order, comments, flow style, split into an include. */
	cfgt_put(t, "h-common.yaml", "# shared\nrepeats: 4\n");
	assert_int_equal(load(t, "h2.yaml", "seed: 5   # x\ninclude: h-common.yaml\nname: h\n", &b,
			      buf, sizeof(buf)), 0);
	assert_string_equal(a->hash, b->hash);
	assert_int_equal(load(t, "h3.yaml", "name: h\nseed: 6\nrepeats: 4\n", &c, buf, sizeof(buf)),
			 0);
	assert_string_not_equal(a->hash, c->hash);
	hx_plan_free(a);
	hx_plan_free(b);
	hx_plan_free(c);
}

struct bad {
	const char *text;
	const char *msg;
};

#define HEAD "name: bad\n"

static const struct bad bad_plans[] = {
	{ "description: x\n", "p.yaml:1:1: name: missing key" },
	{ "name: ''\n", "p.yaml:1:7: name: must not be empty" },
	{ HEAD "colour: red\n",
	  "p.yaml:2:1: colour: unknown key 'colour' (allowed: name, description, seed, testbed, "
	  "budget_hours, repeats, max_repeats, stop_after_failures, verbs, metrics, components, fixed, dimensions, thresholds, "
	  "criteria, analysis, model)" },
	{ HEAD "repeats: 0\n", "p.yaml:2:10: repeats: 0 is out of range [1, 100]" },
	{ HEAD "repeats: 101\n", "p.yaml:2:10: repeats: 101 is out of range [1, 100]" },
	{ HEAD "budget_hours: 0\n", "p.yaml:2:15: budget_hours: must be > 0" },
	{ HEAD "budget_hours: -1\n", "p.yaml:2:15: budget_hours: -1 is out of range [0, 8760]" },
	{ HEAD "seed: -1\n", "p.yaml:2:7: seed: -1 must be >= 0" },
	{ HEAD "verbs: [write, fly]\n",
	  "p.yaml:2:16: verbs[1]: unknown value 'fly' (choices: send, write, read)" },
	{ HEAD "verbs: [write, write]\n", "p.yaml:2:16: verbs[1]: 'write' is listed twice" },
	{ HEAD "verbs: []\n", "p.yaml:2:8: verbs: expected a non-empty list" },
	{ HEAD "metrics: [bw, tput]\n",
	  "p.yaml:2:15: metrics[1]: unknown value 'tput' (choices: bw, lat)" },
	{ HEAD "dimensions:\n  - name: flowz\n",
	  "p.yaml:3:11: dimensions[0].name: unknown dimension 'flowz' (known: "
	  "client.encap_masks, client.decap_masks, server.encap_masks, server.decap_masks, "
	  "flows, subnets, encap_contexts, rule_churn, msg_size, qps, tx_depth, mtu, page_size, "
	  "traffic_class, uar_spread, cores, popularity, zipf_s, iterations, duration_s)" },
	{ HEAD "dimensions:\n  - name: flows\n  - name: qps\n  - name: flows\n",
	  "p.yaml:5:11: dimensions[2].name: dimension 'flows' is already listed as "
	  "dimensions[0]" },
	{ HEAD "dimensions:\n  - name: verb\n",
	  "p.yaml:3:11: dimensions[0].name: 'verb' is chosen by the top-level 'verbs' list" },
	{ HEAD "dimensions:\n  - name: flows\n    levls: [1]\n",
	  "p.yaml:4:5: dimensions[0].levls: unknown key 'levls' (allowed: name, levels, sweep, "
	  "neutral, scale)" },
	{ HEAD "dimensions:\n  - name: flows\n    levels: [16, 64, 32]\n",
	  "p.yaml:4:22: dimensions[0].levels[2]: levels must be strictly ascending (32 after 64)" },
	{ HEAD "dimensions:\n  - name: flows\n    levels: [16, 0]\n",
	  "p.yaml:4:18: dimensions[0].levels[1]: 0 is out of range [1, 1048576]" },
	{ HEAD "dimensions:\n  - name: mtu\n    levels: [1000]\n",
	  "p.yaml:4:14: dimensions[0].levels[0]: 1000 is not one of 256, 512, 1024, 2048, 4096" },
	{ HEAD "dimensions:\n  - name: popularity\n    levels: [uniform, pareto]\n",
	  "p.yaml:4:23: dimensions[0].levels[1]: unknown level 'pareto' of popularity (choices: "
	  "uniform, zipf)" },
	{ HEAD "dimensions:\n  - name: popularity\n    levels: [zipf, zipf]\n",
	  "p.yaml:4:20: dimensions[0].levels[1]: level listed twice" },
	{ HEAD "dimensions:\n  - name: flows\n    levels: []\n",
	  "p.yaml:4:13: dimensions[0].levels: expected a non-empty list of levels" },
	{ HEAD "dimensions:\n  - name: flows\n    levels: [16]\n    sweep: {from: 1, to: 2, ratio: 2}\n",
	  "p.yaml:5:12: dimensions[0].sweep: give either 'levels' or 'sweep', not both" },
	{ HEAD "dimensions:\n  - name: flows\n    sweep: {from: 64, to: 16, ratio: 2}\n",
	  "p.yaml:4:27: dimensions[0].sweep.to: must be greater than from (64)" },
	{ HEAD "dimensions:\n  - name: flows\n    sweep: {from: 16, to: 64, ratio: 1}\n",
	  "p.yaml:4:38: dimensions[0].sweep.ratio: must be greater than 1" },
	{ HEAD "dimensions:\n  - name: flows\n    sweep: {from: 0, to: 64, ratio: 2}\n",
	  "p.yaml:4:19: dimensions[0].sweep.from: a geometric sweep starts above 0, not at 0" },
	{ HEAD "dimensions:\n  - name: flows\n    sweep: {from: 1, to: 64}\n",
	  "p.yaml:4:12: dimensions[0].sweep.ratio: missing key" },
	{ HEAD "dimensions:\n  - name: flows\n    sweep: {from: 1, to: 2M, ratio: 2}\n",
	  "p.yaml:4:26: dimensions[0].sweep.to: 2097152 is out of range [1, 1048576]" },
	{ HEAD "dimensions:\n  - name: flows\n    sweep: {from: 1, to: 1M, ratio: 1.1}\n",
	  "p.yaml:4:12: dimensions[0].sweep: the sweep gives 132 levels, at most 64 allowed" },
	{ HEAD "dimensions:\n  - name: popularity\n    sweep: {from: 1, to: 2, ratio: 2}\n",
	  "p.yaml:4:12: dimensions[0].sweep: popularity is categorical: list its levels instead "
	  "of a sweep" },
	{ HEAD "dimensions:\n  - name: popularity\n    scale: true\n",
	  "p.yaml:4:12: dimensions[0].scale: popularity is categorical: it cannot be a scale "
	  "dimension" },
	{ HEAD "dimensions:\n  - name: flows\n    neutral: -4\n",
	  "p.yaml:4:14: dimensions[0].neutral: -4 is out of range [1, 1048576]" },
	{ HEAD "dimensions:\n  - name: flows\n    scale: maybe\n",
	  "p.yaml:4:12: dimensions[0].scale: expected true/false/yes/no, got 'maybe'" },
	{ HEAD "dimensions: {name: flows}\n",
	  "p.yaml:2:13: dimensions: expected a list of dimensions" },
	{ HEAD "fixed:\n  msg_sise: 4K\n",
	  "p.yaml:3:13: fixed.msg_sise: unknown dimension 'msg_sise' (known: "
	  "client.encap_masks, client.decap_masks, server.encap_masks, server.decap_masks, "
	  "flows, subnets, encap_contexts, rule_churn, msg_size, qps, tx_depth, mtu, page_size, "
	  "traffic_class, uar_spread, cores, popularity, zipf_s, iterations, duration_s)" },
	{ HEAD "fixed:\n  page_size: 5000\n",
	  "p.yaml:3:14: fixed.page_size: 5000 is not a power of two in [4096, 1073741824]" },
	{ HEAD "fixed:\n  verb: read\n",
	  "p.yaml:3:9: fixed.verb: 'verb' is chosen by the top-level 'verbs' list" },
	{ HEAD "fixed:\n  flows: 64\ndimensions:\n  - name: flows\n",
	  "p.yaml:3:10: fixed.flows: flows is swept (listed in 'dimensions'): it cannot also be "
	  "fixed" },
	{ HEAD "fixed:\n  msg_size: big\n",
	  "p.yaml:3:13: fixed.msg_size: expected a number, got 'big'" },
	{ HEAD "thresholds:\n  bw_drop: 150%\n",
	  "p.yaml:3:12: thresholds.bw_drop: 150% is out of range [0.001, 0.99]" },
	{ HEAD "thresholds:\n  significance: 0.9\n",
	  "p.yaml:3:17: thresholds.significance: 0.9 is out of range [0.0001, 0.5]" },
	{ HEAD "thresholds:\n  latency: 1\n",
	  "p.yaml:3:3: thresholds.latency: unknown key 'latency' (allowed: bw_drop, lat_rise, "
	  "significance, errors)" },
	{ HEAD "analysis:\n  strategy: genetic\n",
	  "p.yaml:3:13: analysis.strategy: unknown value 'genetic' (choices: cct, brute, anneal)" },
	{ HEAD "analysis:\n  removal_orders: 65\n",
	  "p.yaml:3:19: analysis.removal_orders: 65 is out of range [1, 64]" },
	{ HEAD "repeats: 5\nmax_repeats: 4\n",
	  "p.yaml:3:14: max_repeats: 4 is out of range [5, 100]" },
	{ HEAD "analysis:\n  min_confidence: 1.5\n",
	  "p.yaml:3:19: analysis.min_confidence: 1.5 is out of range [0, 1]" },
	{ HEAD "criteria:\n  - name: c\n    verb: read\n    metric: bw\n    min_ratio: 0.9\n",
	  "p.yaml:4:11: criteria[0].verb: verb 'read' is not among the plan's verbs" },
	{ HEAD "criteria:\n  - name: c\n    verb: write\n    metric: lat\n    max_ratio: 2\n",
	  "p.yaml:5:13: criteria[0].metric: metric 'lat' is not among the plan's metrics" },
	{ HEAD "criteria:\n  - name: c\n    verb: write\n    metric: bw\n    max_ratio: 2\n",
	  "p.yaml:6:16: criteria[0].max_ratio: metric bw is checked with min_ratio, not "
	  "max_ratio" },
	{ HEAD "criteria:\n  - name: c\n    verb: write\n    metric: bw\n",
	  "p.yaml:3:5: criteria[0].min_ratio: missing key" },
	{ HEAD "criteria:\n  - name: c\n    verb: write\n    metric: bw\n    min_ratio: 2\n",
	  "p.yaml:6:16: criteria[0].min_ratio: 2 is out of range [0.01, 1]" },
	{ HEAD "criteria:\n  - name: c\n    verb: write\n    metric: bw\n    at: {flowz: 1}\n"
	  "    min_ratio: 0.9\n",
	  "p.yaml:6:17: criteria[0].at.flowz: unknown dimension 'flowz' (known: "
	  "client.encap_masks, client.decap_masks, server.encap_masks, server.decap_masks, "
	  "flows, subnets, encap_contexts, rule_churn, msg_size, qps, tx_depth, mtu, page_size, "
	  "traffic_class, uar_spread, cores, popularity, zipf_s, iterations, duration_s)" },
	{ HEAD "criteria:\n  - {name: c, verb: write, metric: bw, min_ratio: 0.9}\n"
	  "  - {name: c, verb: write, metric: bw, min_ratio: 0.8}\n",
	  "p.yaml:4:12: criteria[1].name: criteria[0] has the same name" },
	{ HEAD "criteria:\n  - {name: c, verb: write, metric: bw, min_ratio: 0.9, when: x}\n",
	  "p.yaml:3:56: criteria[0].when: unknown key 'when' (allowed: name, verb, metric, at, "
	  "min_ratio, max_ratio)" },
	{ HEAD "components:\n  tables: 2\n",
	  "p.yaml:3:3: components.tables: unknown key 'tables' (allowed: max_tables, "
	  "max_masks_per_table, subnets, containers, shapes, action_lists)" },
	{ HEAD "components:\n  max_tables: 9\n",
	  "p.yaml:3:15: components.max_tables: 9 is out of range [1, 8]" },
	{ HEAD "components:\n  shapes:\n    a: \"ip_dst/24\"\n  max_masks_per_table: 2\n",
	  "p.yaml:5:24: components.max_masks_per_table: 2 is out of range [1, 1]" },
	{ HEAD "components:\n  shapes:\n    a: \"ip_dst/24\"\n    b: \"ip_dst/24\"\n",
	  "p.yaml:5:8: components.shapes.b: same mask as shape 'a'" },
	{ HEAD "components:\n  action_lists:\n    up: [encap, teleport]\n",
	  "p.yaml:4:17: components.action_lists.up[1]: unknown action 'teleport' (choices: "
	  "encap, decap, fwd_vf, fwd_vf_other, fwd_uplink, goto, count, drop)" },
	{ HEAD "components:\n  shapes: {}\n",
	  "p.yaml:3:11: components.shapes: expected a non-empty mapping of name: mask" },
	{ HEAD "include: nope.yaml\n",
	  "p.yaml:2:10: include: cannot read include 'nope.yaml': No such file or directory" },
	{ HEAD "name: again\n", "p.yaml:2:1: name: duplicate key 'name' (also defined at "
				"p.yaml:1:1)" },
	{ HEAD "stop_after_failures: 200\n",
	  "p.yaml:2:22: stop_after_failures: 200 is out of range [0, 100]" },
	{ HEAD "repeats: [3\n",
	  "p.yaml:3:1: syntax error: did not find expected ',' or ']' while parsing a flow "
	  "sequence" },
};

static void test_plan_bad(void **state)
{
	struct cfgt_dir *t = *state;
	struct hx_plan *p = NULL;
	char buf[800];

	unsigned failed = 0;

	for (size_t i = 0; i < sizeof(bad_plans) / sizeof(bad_plans[0]); i++) {
		int rc = load(t, "p.yaml", bad_plans[i].text, &p, buf, sizeof(buf));

		if (rc != -22 || strcmp(buf, bad_plans[i].msg)) {
			print_error("case %zu: rc %d\n got: %s\nwant: %s\n", i, rc, buf,
				    bad_plans[i].msg);
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

static void test_plan_include(void **state)
{
	struct cfgt_dir *t = *state;
	struct hx_plan *p = NULL;
	char buf[800];

	char sub[128];

	snprintf(sub, sizeof(sub), "mkdir -p '%s/common'", t->dir);
	assert_int_equal(system(sub), 0);
	cfgt_put(t, "common/defaults.yaml",
	    "repeats: 5\ntestbed: ../tb.yaml\nthresholds:\n  bw_drop: 20%\n");
	assert_int_equal(load(t, "inc.yaml", "name: inc\ninclude: common/defaults.yaml\n", &p, buf,
			      sizeof(buf)), 0);
	assert_int_equal(p->repeats, 5);
	assert_true(fabs(p->thresholds.bw_drop - 0.2) < 1e-12);
	/* testbed resolves against the file that names it (common/), not the plan. */
	char want[256];

	snprintf(want, sizeof(want), "%s/common/../tb.yaml", t->dir);
	assert_string_equal(p->testbed, want);
	hx_plan_free(p);
	/* A key in both files names both places. */
	assert_int_equal(load(t, "inc2.yaml", "name: inc\nrepeats: 2\ninclude: common/defaults.yaml\n",
			      &p, buf, sizeof(buf)), -22);
	assert_string_equal(buf, "common/defaults.yaml:1:1: repeats: duplicate key 'repeats' "
				 "(also defined at inc2.yaml:2:1)");
}

static void test_plan_examples(void **state)
{
	const char *root = getenv("SCALACN_SOURCE_ROOT");
	struct hx_plan *p = NULL;
	struct scn_error err;
	char path[512], buf[800];
	(void)state;

	if (!root)
		root = ".";
	snprintf(path, sizeof(path), "%s/examples/plans/quickstart.yaml", root);
	if (hx_plan_load(path, &p, &err))
		fail_msg("%s", scn_error_format(&err, buf, sizeof(buf)));
	assert_string_equal(p->name, "quickstart");
	assert_int_equal(p->seed, 42);
	assert_int_equal(p->repeats, 3);
	assert_true(p->budget_hours == 1);
	assert_non_null(strstr(p->testbed, "examples/plans/../testbeds/sim-cx6.yaml"));
	assert_int_equal(p->n_dims, 2);
	assert_int_equal(p->dims[0].n_levels, 5);
	assert_true(p->dims[0].levels[3] == 8192);
	assert_int_equal(p->dims[1].n_levels, 6);
	assert_int_equal(p->fixed.msg_size, 65536);
	assert_int_equal(p->n_criteria, 1);
	assert_true(p->criteria[0].at_levels[0] == 8192);
	assert_true(fabs(p->criteria[0].min_ratio - 0.9) < 1e-12);
	hx_plan_free(p);

	snprintf(path, sizeof(path), "%s/examples/plans/qualify-full.yaml", root);
	if (hx_plan_load(path, &p, &err))
		fail_msg("%s", scn_error_format(&err, buf, sizeof(buf)));
	assert_int_equal(p->n_verbs, 3);
	assert_int_equal(p->n_metrics, 2);
	assert_int_equal(p->n_dims, 12);
	assert_true(p->budget_hours == 12);
	assert_int_equal(p->n_criteria, 4);
	assert_int_equal(p->space.n_shapes, 3);
	assert_int_equal(p->space.n_templates, 4);
	assert_int_equal(p->removal_orders, 8);
	assert_true(p->min_confidence == 0.75); /* the default */
	assert_false(hx_plan_find_dim(p, "page_size")->scale);
	assert_true(hx_plan_find_dim(p, "qps")->scale);
	hx_plan_free(p);
}

/* Point texts and JSON print every level as "%.17g" and "%.10g" would (hx_point.c prints
 * whole numbers through the integer conversion): keys stored by earlier revisions stay. */
static void test_plan_point_text_formats(void **state)
{
	static const double xs[] = { 0, 1, 7, 4096, 65536, 2097152, 123456789, 1e12, 1e15 - 1,
				     1e15, 1e16, 0.5, 1.25, 1.0 / 3, -0.0, 1e-7, 9999999999.0,
				     10000000000.0, 12345678901.0 };
	const struct gen_dimension *d = gen_dimension_find("zipf_s");

	(void)state;
	assert_non_null(d);
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		struct gen_levels l;
		char text[4096], json[4096], want[64], needle[96];

		gen_levels_neutral(&l);
		gen_levels_set(&l, d, xs[i], NULL);
		snprintf(want, sizeof(want), "%.17g", gen_levels_get(&l, d));
		snprintf(needle, sizeof(needle), ";zipf_s=%s;", want);
		hx_point_text(&l, text, sizeof(text));
		assert_non_null(strstr(text, needle));
		hx_level_text(d, xs[i], json, sizeof(json));
		snprintf(want, sizeof(want), "%.10g", xs[i]);
		assert_string_equal(json, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plan_good, tmp_setup, cfgt_teardown),
		cmocka_unit_test_setup_teardown(test_plan_hash, tmp_setup, cfgt_teardown),
		cmocka_unit_test_setup_teardown(test_plan_bad, tmp_setup, cfgt_teardown),
		cmocka_unit_test_setup_teardown(test_plan_include, tmp_setup, cfgt_teardown),
		cmocka_unit_test(test_plan_examples),
		cmocka_unit_test(test_plan_point_text_formats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
