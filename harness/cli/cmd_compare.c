/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare: `scalacn compare PLAN`: the three strategies (brute, cct, anneal) on one
 * testbed and one database, side by side: trials, testbed-hours, causes found, false causes
 * and causes missed (brute force's causes are the reference), each one's cost relative to
 * brute force.
 *
 * Each strategy runs alone: its own campaign row (plan hash suffixed ":compare-<strategy>")
 * and its own trial cache (a testbed identity prefixed "compare-<strategy>:", so trial keys
 * differ; like any trial key, not the plan's), starting from a NIC with no rules. It is charged what its own trials
 * cost in its own rule-programming order: every distinct trial it measured once (a resumed
 * compare finds them in the store and charges the same). The share of testbed-hours spent in
 * timeouts is shown beside, since a timeout's cost is a setting, not the NIC's. The plan's
 * budget does not apply here (brute force would not finish within it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"
#include "harness/cli/hx_cli.h"
#include "harness/cli/hx_progress.h"
#include "harness/cli/hx_report.h"

struct cmp_env {
	struct hx_plan *plan;
	struct tb *tb;
	struct res_db *db;
	struct res_lock *lock; /* the database's writer lock */
	const char *plan_path, *tb_path;
	char identity[sizeof(((struct tb_description *)0)->identity)]; /* the testbed's own */
	struct hx_analysis *a[3];
	struct res_cost cost[3]; /* what each strategy's own trials cost */
	unsigned false_causes[3], missed[3];
	struct tb_description desc;
	bool quiet;
	struct hx_progress progress; /* one line per strategy on a terminal */
	struct hx_observer observer;
};

static const enum hx_strategy order[3] = { HX_STRATEGY_BRUTE, HX_STRATEGY_CCT,
					   HX_STRATEGY_ANNEAL };

static int new_campaign(struct cmp_env *e, struct hx_runner *r, enum hx_strategy s,
			struct scn_error *err)
{
	struct res_campaign c;
	int rc;

	memset(&c, 0, sizeof(c));
	hx_provenance_record(&c, e->plan_path, e->tb_path);
	snprintf(c.plan_hash, sizeof(c.plan_hash), "%s:compare-%s", e->plan->hash,
		 hx_strategy_name(s));
	snprintf(c.testbed_identity, sizeof(c.testbed_identity), "%s", r->desc.identity);
	snprintf(c.rnic_model, sizeof(c.rnic_model), "%s", r->desc.rnic_model);
	snprintf(c.firmware, sizeof(c.firmware), "%s", r->desc.firmware);
	snprintf(c.tool_version, sizeof(c.tool_version), "%s", SCALACN_VERSION);
	c.seed = e->plan->seed;
	snprintf(c.rng, sizeof(c.rng), "%s", GEN_RNG_NAME);
	c.status = RES_RUNNING;
	c.started = (double)time(NULL);
	rc = res_campaign_insert(e->db, &c, err);
	r->campaign = c.id;
	return rc;
}

/* Before phase PHASE of strategy S: the progress line's label and forecast (O: the walls
 * found, once cct's wall search is done). */
static void progress_strategy(struct cmp_env *e, enum hx_strategy s, const struct hx_outcome *o,
			      enum hx_forecast_phase phase)
{
	char prefix[24];
	unsigned long analysis = hx_forecast_analysis(e->plan, o, s);

	snprintf(prefix, sizeof(prefix), "%s: ", hx_strategy_name(s));
	hx_progress_prefix(&e->progress, prefix);
	if (phase == HX_FC_BASELINE)
		hx_progress_forecast(&e->progress, hx_forecast_trials(e->plan, o, phase),
				     analysis + (s == HX_STRATEGY_CCT ?
						 hx_forecast_trials(e->plan, o, HX_FC_WALLS) : 0));
	else if (phase == HX_FC_WALLS)
		hx_progress_forecast(&e->progress, hx_forecast_trials(e->plan, o, phase), analysis);
	else
		hx_progress_forecast(&e->progress, analysis, 0);
}

static int run_strategy(struct cmp_env *e, struct hx_runner *r, unsigned k,
			struct scn_error *err)
{
	struct hx_outcome *o = calloc(1, sizeof(*o));
	enum hx_strategy s = order[k];
	struct hx_eval *ev = NULL;
	double before;
	unsigned long requested;
	char summary[128];
	int rc;

	if (!o || hx_eval_new(r, NULL, NULL, &ev) < 0) {
		free(o);
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "compare: out of memory");
	}
	r->cost_s = 0;
	requested = r->measured + r->cached;
	if ((size_t)snprintf(r->desc.identity, sizeof(r->desc.identity), "compare-%s:%s",
			     hx_strategy_name(s), e->identity) >=
	    sizeof(r->desc.identity)) { /* a cut identity could be another strategy's */
		free(o);
		hx_eval_free(ev);
		return scn_error_set(err, SCN_ERR_CONFIG, -ENAMETOOLONG,
				     "compare: the testbed identity is too long: %s", e->identity);
	}
	hx_runner_forget_rules(r); /* alone: the first trial programs its rules on an empty NIC */
	rc = new_campaign(e, r, s, err);
	progress_strategy(e, s, NULL, HX_FC_BASELINE);
	if (rc == 0)
		rc = hx_phase_baseline(r, e->plan, o, err);
	if (s == HX_STRATEGY_CCT)
		progress_strategy(e, s, NULL, HX_FC_WALLS);
	if (rc == 0 && s == HX_STRATEGY_CCT)
		rc = hx_phase_walls(r, e->plan, o, err);
	before = r->cost_s;
	requested = r->measured + r->cached - requested;
	progress_strategy(e, s, s == HX_STRATEGY_CCT ? o : NULL, HX_FC_ANALYSIS);
	hx_progress_phase(&e->progress, "analysis", 0);
	if (rc == 0)
		rc = hx_causal_run(ev, e->plan, o, s, e->a[k], err);
	e->a[k]->cost_s += before;
	e->a[k]->trials += requested;
	if (rc == 0)
		rc = hx_analysis_store(e->db, r->campaign, e->a[k], err);
	if (rc == 0)
		rc = res_identity_cost(e->db, r->desc.identity, &e->cost[k], err);
	snprintf(summary, sizeof(summary), "compare %s: %lu trials, %.3f testbed-hours, %u causes",
		 hx_strategy_name(s), (unsigned long)e->cost[k].trials, e->cost[k].cost_s / 3600,
		 e->a[k]->n_causes);
	if (rc == 0)
		rc = res_campaign_set_status(e->db, r->campaign, RES_DONE, summary, err);
	hx_eval_free(ev);
	free(o);
	return rc;
}

static bool has_cause(const struct hx_plan *p, const struct hx_analysis *a,
		      const struct hx_cause *c)
{
	for (unsigned i = 0; i < a->n_causes; i++)
		if (a->causes[i].verb == c->verb && a->causes[i].metric == c->metric &&
		    hx_cause_bits(p, &a->causes[i]) == hx_cause_bits(p, c))
			return true;
	return false;
}

static void score(struct cmp_env *e)
{
	for (unsigned k = 0; k < 3; k++) {
		for (unsigned i = 0; i < e->a[k]->n_causes; i++)
			e->false_causes[k] += !has_cause(e->plan, e->a[0], &e->a[k]->causes[i]);
		for (unsigned i = 0; i < e->a[0]->n_causes; i++)
			e->missed[k] += !has_cause(e->plan, e->a[k], &e->a[0]->causes[i]);
	}
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static void print_table(const struct cmp_env *e, FILE *out)
{
	const struct res_cost *b = &e->cost[0], *c = &e->cost[1], *an = &e->cost[2];
	char tb[4096];

	fprintf(out, "Strategies on %s (%s), each alone (its own trials, its own order):\n",
		e->plan->name, hx_path_display(e->tb_path, tb, sizeof(tb)));
	fprintf(out, "  %-8s %9s %9s %12s %9s %7s %6s %7s %8s %14s\n", "strategy", "points",
		"trials", "testbed-h", "timeouts", "causes", "false", "missed", "suspects",
		"cost vs brute");
	for (unsigned k = 0; k < 3; k++) {
		const struct hx_analysis *a = e->a[k];
		const struct res_cost *x = &e->cost[k];

		fprintf(out, "  %-8s %9lu %9lld %12.3f %8.1f%% %7u %6u %7u %8u %13.4fx\n",
			hx_strategy_name(order[k]), a->points, (long long)x->trials,
			x->cost_s / 3600, 100 * ratio(x->timeout_s, x->cost_s), a->n_causes,
			e->false_causes[k], e->missed[k], a->n_suspects, ratio(x->cost_s, b->cost_s));
	}
	fprintf(out, "cct: %.1fx fewer trials and %.1fx fewer testbed-hours than brute force "
		"(%.1fx without timeouts), %.1fx fewer testbed-hours than anneal; anneal: %.1fx "
		"fewer testbed-hours than brute force\n",
		ratio((double)b->trials, (double)c->trials), ratio(b->cost_s, c->cost_s),
		ratio(b->cost_s - b->timeout_s, c->cost_s - c->timeout_s),
		ratio(an->cost_s, c->cost_s), ratio(b->cost_s, an->cost_s));
	fprintf(out, "timeouts are %.0f%% of brute force's testbed-hours and %.0f%% of cct's "
		"(a timeout costs the plan's deadline, not the NIC's time).\n",
		100 * ratio(b->timeout_s, b->cost_s), 100 * ratio(c->timeout_s, c->cost_s));
	fprintf(out, "cct found %u of brute force's %u causes; anneal found %u.\n",
		e->a[0]->n_causes - e->missed[1], e->a[0]->n_causes,
		e->a[0]->n_causes - e->missed[2]);
}

static void print_json(const struct cmp_env *e, FILE *out)
{
	struct json_object *root = hx_json_doc("compare"), *arr = json_object_new_array();

	for (unsigned k = 0; k < 3; k++) {
		const struct hx_analysis *a = e->a[k];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "strategy", json_object_new_string(hx_strategy_name(order[k])));
		json_object_object_add(o, "points", json_object_new_int64((int64_t)a->points));
		json_object_object_add(o, "trials", json_object_new_int64(e->cost[k].trials));
		json_object_object_add(o, "trials_requested",
				       json_object_new_int64((int64_t)a->trials));
		json_object_object_add(o, "testbed_hours",
				       json_object_new_double(e->cost[k].cost_s / 3600));
		json_object_object_add(o, "timeout_hours",
				       json_object_new_double(e->cost[k].timeout_s / 3600));
		json_object_object_add(o, "trials_vs_brute",
				       json_object_new_double(ratio((double)e->cost[k].trials,
								    (double)e->cost[0].trials)));
		json_object_object_add(o, "false_causes", json_object_new_int((int)e->false_causes[k]));
		json_object_object_add(o, "missed", json_object_new_int((int)e->missed[k]));
		json_object_object_add(o, "cost_vs_brute",
				       json_object_new_double(ratio(e->cost[k].cost_s,
								    e->cost[0].cost_s)));
		json_object_object_add(o, "causes", hx_analysis_json(a));
		json_object_object_add(o, "suspects", hx_analysis_suspects_json(a));
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "plan", json_object_new_string(e->plan->name));
	char tb[4096];

	json_object_object_add(root, "testbed", json_object_new_string(
				       hx_path_display(e->tb_path, tb, sizeof(tb))));
	json_object_object_add(root, "rnic_model", json_object_new_string(e->desc.rnic_model));
	json_object_object_add(root, "firmware", json_object_new_string(e->desc.firmware));
	json_object_object_add(root, "strategies", arr);
	hx_json_emit(root, out);
}

static int compare(struct cmp_env *e, const char *db_path, struct scn_error *err)
{
	struct hx_runner r;
	int rc = hx_plan_load(e->plan_path, &e->plan, err);

	hx_runner_init(&r);
	if (rc < 0)
		return rc;
	if (!e->tb_path)
		e->tb_path = e->plan->testbed;
	if (!e->tb_path || !e->tb_path[0])
		return scn_error_set(err, SCN_ERR_USAGE, -EINVAL,
				     "%s names no testbed: give --testbed FILE", e->plan_path);
	if ((rc = tb_open(e->tb_path, &e->tb, err)) < 0 ||
	    (rc = tb_describe(e->tb, &r.desc, err)) < 0 ||
	    (rc = tb_describe(e->tb, &e->desc, err)) < 0 ||
	    (rc = res_lock_writer(db_path, "compare", &e->lock, err)) < 0 ||
	    (rc = res_open(db_path, true, &e->db, err)) < 0)
		return rc;
	snprintf(e->identity, sizeof(e->identity), "%s", r.desc.identity);
	r.tb = e->tb;
	r.db = e->db;
	r.seed = e->plan->seed;
	r.repeats = e->plan->repeats;
	r.stop_after_failures = e->plan->stop_after_failures;
	hx_progress_init(&e->progress, stderr, e->quiet, 0);
	hx_progress_observer(&e->progress, &e->observer);
	r.observer = &e->observer;
	for (unsigned k = 0; k < 3 && rc == 0; k++)
		rc = run_strategy(e, &r, k, err);
	hx_progress_end(&e->progress);
	hx_runner_release(&r);
	if (rc == 0)
		score(e);
	return rc;
}

int hx_cmd_compare(int argc, char **argv)
{
	struct hx_args a = HX_ARGS("compare", argc, argv);
	struct cmp_env e;
	const char *db = HX_DEFAULT_DB;
	struct scn_error err;
	bool json = false;
	int c, rc = 0;

	memset(&e, 0, sizeof(e));
	while ((c = hx_opt_next(&a)) != -1) {
		switch (c) {
		case 't': e.tb_path = optarg; break;
		case 'd': db = optarg; break;
		case 'J': json = true; break;
		case 'q': e.quiet = true; break;
		default:
			return hx_bad_option("compare", argv);
		}
	}
	if (optind != argc - 1)
		return hx_usage_error("compare", "expected one PLAN file");
	e.plan_path = argv[optind];
	scn_error_clear(&err);
	for (unsigned k = 0; k < 3; k++)
		if (!(e.a[k] = calloc(1, sizeof(*e.a[k]))))
			rc = scn_error_set(&err, SCN_ERR_INTERNAL, -ENOMEM, "compare: out of memory");
	if (rc == 0)
		rc = compare(&e, db, &err);
	if (rc == 0 && json)
		print_json(&e, stdout);
	else if (rc == 0)
		print_table(&e, stdout);
	for (unsigned k = 0; k < 3; k++) {
		if (e.a[k])
			hx_analysis_release(e.a[k]);
		free(e.a[k]);
	}
	tb_close(e.tb);
	res_close(e.db);
	res_unlock(e.lock);
	hx_plan_free(e.plan);
	return rc < 0 ? hx_report_error(&err) : HX_EXIT_OK;
}

static const struct hx_opt compare_opts[] = {
	{ "testbed", 't', "FILE", "testbed description (default: the plan's 'testbed:')",
	  HX_COMPLETE_FILE, 0 },
	{ "db", 'd', "FILE", "results database (default: scalacn.db)", HX_COMPLETE_FILE, 0 },
	{ "json", 'J', NULL, "the comparison as JSON (docs/json.md)", NULL, 0 },
	{ "quiet", 'q', NULL, "no progress on stderr", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_compare = {
	"compare", "compare the cct, brute and anneal strategies on a plan", "PLAN", compare_opts,
	"Runs brute force (full factorial), cct and simulated annealing on the same testbed,\n"
	"each alone (its own trial cache, starting from a NIC with no rules), and prints side\n"
	"by side: points, trials, testbed-hours, the share spent in timeouts, causes found,\n"
	"false causes and causes missed (brute force's causes are the reference), and each\n"
	"strategy's cost relative to brute force. On a terminal a progress line per strategy\n"
	"shows its phase, trials and testbed-hours.\n",
	NULL, hx_cmd_compare,
};
