/* SPDX-License-Identifier: MIT */
/*
 * cmd_causal: `scalacn analyze` (re-run the causal analysis of a stored campaign) and
 * `scalacn causes` (print the causes stored for a campaign).
 *
 * analyze rebuilds the campaign's baselines and walls from its stored trials (hx_trial finds
 * them by key, so nothing is measured again), runs the plan's strategy (or --strategy) and
 * replaces the campaign's symptoms and causes. The testbed (--testbed, default the path in
 * the campaign row) is opened when it can be; without it, analysis works as long as every
 * point it needs is stored, and says so plainly when one is not.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"
#include "harness/cli/hx_cli.h"
#include "harness/cli/hx_report.h"
#include "harness/plan/hx_plan.h"

struct causal_opts {
	const char *db, *testbed;
	long long campaign;
	bool json, quiet, has_strategy;
	enum hx_strategy strategy;
};

static int parse_opts(const char *cmd, int argc, char **argv, struct causal_opts *o)
{
	struct hx_args a = HX_ARGS(cmd, argc, argv);
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->db = HX_DEFAULT_DB;
	while ((c = hx_opt_next(&a)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 't': o->testbed = optarg; break;
		case 'J': o->json = true; break;
		case 'q': o->quiet = true; break;
		case 's':
			o->has_strategy = true;
			if (!strcmp(optarg, "cct"))
				o->strategy = HX_STRATEGY_CCT;
			else if (!strcmp(optarg, "brute"))
				o->strategy = HX_STRATEGY_BRUTE;
			else if (!strcmp(optarg, "anneal"))
				o->strategy = HX_STRATEGY_ANNEAL;
			else
				return hx_usage_error(cmd, "--strategy takes cct, brute or anneal, not '%s'",
						      optarg);
			break;
		case 'c':
			if ((rc = hx_parse_id(cmd, "--campaign", "campaign", optarg, &o->campaign)))
				return rc;
			break;
		default:
			return hx_bad_option(cmd, argv);
		}
	}
	return hx_no_operands(cmd, argc, argv);
}

int hx_find_campaign(struct res_db *db, long long id, struct res_campaign *c,
		     struct scn_error *err)
{
	memset(c, 0, sizeof(*c));
	if (id > 0)
		return res_campaign_get(db, id, c, err);
	return res_campaign_default(db, c, err);
}

/* Walls found become symptoms (as `scalacn run` stores them). */
static int store_walls(struct res_db *db, int64_t campaign, const struct hx_outcome *o,
		       struct scn_error *err)
{
	for (unsigned i = 0; i < o->n_walls; i++) {
		const struct hx_wall *w = &o->walls[i];
		struct res_symptom s;
		int rc;

		if (!w->found && !w->slope)
			continue;
		hx_wall_symptom(w, campaign, &s);
		if ((rc = res_symptom_put(db, &s, err)) < 0)
			return rc;
	}
	return 0;
}

struct analyze_env {
	struct hx_plan *plan;
	struct tb *tb;
	struct res_db *db;
	struct res_lock *lock; /* the database's writer lock (analyze replaces causes) */
	struct hx_runner runner;
	struct hx_outcome *outcome;
	struct hx_analysis *a;
	struct res_campaign c;
};

static int analyze_open(struct analyze_env *e, const struct causal_opts *o, struct scn_error *err)
{
	const char *tb_path;
	int rc = access(o->db, F_OK) == 0 ? res_lock_writer(o->db, "analyze", &e->lock, err) : 0;

	if (rc == 0)
		rc = res_open(o->db, false, &e->db, err);
	if (rc < 0)
		return rc;
	if ((rc = hx_find_campaign(e->db, o->campaign, &e->c, err)) < 0)
		return rc;
	hx_provenance_warn("analyze", &e->c);
	if ((rc = hx_plan_load(e->c.plan_path, &e->plan, err)) < 0) {
		if (e->c.plan_path[0] != '/') /* stored by scalacn < 0.2, relative to where it ran */
			scn_error_prefix(err, "campaign %lld recorded its plan relative to the "
					 "directory it ran in (run from there): ", (long long)e->c.id);
		return rc;
	}
	tb_path = o->testbed ? o->testbed : e->c.testbed;
	snprintf(e->runner.desc.identity, sizeof(e->runner.desc.identity), "%s",
		 e->c.testbed_identity);
	rc = tb_open(tb_path, &e->tb, err);
	if (rc == 0)
		rc = tb_describe(e->tb, &e->runner.desc, err);
	if (rc < 0 && o->testbed)
		return rc;
	if (rc < 0) {
		tb_close(e->tb);
		e->tb = NULL;
		fprintf(stderr, "scalacn analyze: testbed %s unavailable: working from stored trials only\n",
			tb_path);
	}
	e->runner.tb = e->tb;
	e->runner.db = e->db;
	e->runner.campaign = e->c.id;
	e->runner.seed = e->plan->seed;
	e->runner.repeats = e->plan->repeats;
	e->runner.stop_after_failures = e->plan->stop_after_failures;
	return 0;
}

/* The drift check after phase AFTER, as `run` made it. Without a testbed a campaign stored
 * before drift checks existed has none: say so and go on. */
static int analyze_drift(struct analyze_env *e, const char *after, struct scn_error *err)
{
	int rc = hx_phase_drift(&e->runner, e->plan, e->outcome, after, err);

	if (rc < 0 && rc != -EINTR && !e->tb) {
		fprintf(stderr, "scalacn analyze: no drift check after the %s in the store "
			"(give --testbed to measure one)\n", after);
		scn_error_clear(err);
		e->outcome->n_checks++;
		return 0;
	}
	return rc;
}

static int analyze_run(struct analyze_env *e, const struct causal_opts *o, struct scn_error *err)
{
	int rc;

	e->outcome = calloc(1, sizeof(*e->outcome));
	e->a = calloc(1, sizeof(*e->a));
	if (!e->outcome || !e->a)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "analyze: out of memory");
	e->outcome->campaign = e->c.id;
	rc = hx_phase_baseline(&e->runner, e->plan, e->outcome, err);
	if (rc == 0)
		rc = hx_phase_walls(&e->runner, e->plan, e->outcome, err);
	if (rc == 0)
		rc = analyze_drift(e, "walls", err);
	if (rc == 0)
		rc = analyze_drift(e, "criteria", err);
	if (rc == 0) {
		struct hx_eval *ev;

		if ((rc = hx_eval_new(&e->runner, NULL, NULL, &ev)) < 0)
			return scn_error_set(err, SCN_ERR_INTERNAL, rc, "analyze: out of memory");
		rc = hx_causal_run(ev, e->plan, e->outcome,
				   o->has_strategy ? o->strategy : e->plan->strategy, e->a, err);
		hx_eval_free(ev);
		if (rc == 0 && (rc = analyze_drift(e, "analysis", err)) == 0)
			hx_analysis_mark_drift(e->a, e->plan, e->outcome);
	}
	if (rc < 0 && rc != -EDQUOT) {
		if (!e->tb)
			scn_error_prefix(err, "a point is not stored and no testbed is open "
					 "(give --testbed): ");
		return rc;
	}
	rc = res_analysis_clear(e->db, e->c.id, err);
	if (rc == 0)
		rc = store_walls(e->db, e->c.id, e->outcome, err);
	if (rc == 0)
		rc = hx_analysis_store(e->db, e->c.id, e->a, err);
	return rc;
}

/* The verdict of the campaign's run, from its stored summary ("qualified: ...",
 * "not qualified: ..."); NULL while it has none (running, interrupted, failed). */
static struct json_object *stored_verdict(const struct res_campaign *c)
{
	if (!strncmp(c->summary, "qualified", 9))
		return json_object_new_string("qualified");
	if (!strncmp(c->summary, "not qualified", 13))
		return json_object_new_string("not qualified");
	return NULL;
}

/* The identity every campaign document carries: campaign, verdict, RNIC, firmware,
 * testbed, plan. */
static void add_campaign_identity(struct json_object *root, const struct res_campaign *c)
{
	json_object_object_add(root, "campaign", json_object_new_int64(c->id));
	json_object_object_add(root, "verdict", stored_verdict(c));
	json_object_object_add(root, "rnic_model", json_object_new_string(c->rnic_model));
	json_object_object_add(root, "firmware", json_object_new_string(c->firmware));
	json_object_object_add(root, "testbed", json_object_new_string(c->testbed));
	json_object_object_add(root, "plan", json_object_new_string(c->plan_path));
}

static void analyze_json(const struct analyze_env *e)
{
	struct json_object *root = hx_json_doc("analyze");

	add_campaign_identity(root, &e->c);
	json_object_object_add(root, "plan_name", json_object_new_string(e->plan->name));
	json_object_object_add(root, "strategy",
			       json_object_new_string(hx_strategy_name(e->a->strategy)));
	json_object_object_add(root, "measured", json_object_new_int64((int64_t)e->runner.measured));
	json_object_object_add(root, "from_store", json_object_new_int64((int64_t)e->runner.cached));
	json_object_object_add(root, "causes", hx_analysis_json(e->a));
	json_object_object_add(root, "suspects", hx_analysis_suspects_json(e->a));
	json_object_object_add(root, "sequential", hx_seq_json(&e->a->seq));
	hx_json_emit(root, stdout);
}

int hx_cmd_analyze(int argc, char **argv)
{
	struct causal_opts o;
	struct analyze_env e;
	struct scn_error err;
	int rc = parse_opts("analyze", argc, argv, &o);

	if (rc)
		return rc;
	memset(&e, 0, sizeof(e));
	scn_error_clear(&err);
	hx_runner_init(&e.runner);
	rc = analyze_open(&e, &o, &err);
	if (rc == 0)
		rc = analyze_run(&e, &o, &err);
	if (rc == 0) {
		if (o.json) {
			analyze_json(&e);
		} else {
			printf("Campaign %lld (%s on %s): %lu new trials measured, %lu from the store\n",
			       (long long)e.c.id, e.plan->name, e.c.rnic_model, e.runner.measured,
			       e.runner.cached);
			hx_analysis_print(e.a, stdout);
		}
	}
	hx_runner_release(&e.runner);
	free(e.outcome);
	if (e.a)
		hx_analysis_release(e.a);
	free(e.a);
	tb_close(e.tb);
	res_close(e.db);
	res_unlock(e.lock);
	hx_plan_free(e.plan);
	return rc < 0 ? hx_report_error(&err) : HX_EXIT_OK;
}

/* ---- causes ----------------------------------------------------------------------------- */

struct causes_ctx {
	struct json_object *causes, *suspects;
	bool suspect_pass; /* false: print the supported rows, true: the suspects */
	unsigned n, index, n_suspects;
	int w_members;     /* the members column, sized to the widest (a first pass) */
};

const char *hx_detail_get(const char *detail, const char *key, char *buf, size_t len)
{
	const char *p = strstr(detail, key);
	size_t n;

	buf[0] = '\0';
	if (!p)
		return buf;
	p += strlen(key);
	n = strcspn(p, ";");
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
	return buf;
}

/* Distinct trial ids in a stored comma-separated list. */
static unsigned distinct_ids(const char *list)
{
	struct json_object *a = hx_json_list(list, true);
	unsigned n = (unsigned)json_object_array_length(a);

	json_object_put(a);
	return n;
}

static struct json_object *cause_row_json(const struct res_cause *c, unsigned index)
{
	struct json_object *o = json_object_new_object();
	char verb[16], metric[16], cls[24], strat[16];

	hx_detail_get(c->detail, "verb=", verb, sizeof(verb));
	hx_detail_get(c->detail, "metric=", metric, sizeof(metric));
	hx_detail_get(c->detail, "class=", cls, sizeof(cls));
	hx_detail_get(c->detail, "strategy=", strat, sizeof(strat));
	json_object_object_add(o, "index", json_object_new_int((int)index));
	json_object_object_add(o, "id", json_object_new_int64(c->id));
	json_object_object_add(o, "campaign", json_object_new_int64(c->campaign));
	json_object_object_add(o, "verb", json_object_new_string(verb));
	json_object_object_add(o, "metric", json_object_new_string(metric));
	json_object_object_add(o, "members", hx_json_list(c->members, false));
	json_object_object_add(o, "wall_level", hx_json_num(c->wall_level));
	json_object_object_add(o, "effect", hx_json_num(c->effect));
	json_object_object_add(o, "effect_lo", hx_json_num(c->effect_lo));
	json_object_object_add(o, "effect_hi", hx_json_num(c->effect_hi));
	json_object_object_add(o, "confidence", hx_json_num(c->confidence));
	json_object_object_add(o, "class", json_object_new_string(cls));
	json_object_object_add(o, "strategy", json_object_new_string(strat));
	json_object_object_add(o, "trial_ids", hx_json_list(c->trial_ids, true));
	json_object_object_add(o, "supported", json_object_new_boolean(c->supported));
	if (!c->supported)
		json_object_object_add(o, "why", json_object_new_string(c->reason));
	if (c->supported && strstr(c->detail, "through=flows"))
		json_object_object_add(o, "through", json_object_new_string("flows"));
	json_object_object_add(o, "detail", json_object_new_string(c->detail));
	return o;
}

static void print_row(const struct res_cause *c, unsigned index, int w_members)
{
	char verb[16], metric[16], cls[24], walls[256], effect[48];
	unsigned ids = distinct_ids(c->trial_ids);

	hx_detail_get(c->detail, "verb=", verb, sizeof(verb));
	hx_detail_get(c->detail, "metric=", metric, sizeof(metric));
	hx_detail_get(c->detail, "class=", cls, sizeof(cls));
	hx_detail_get(c->detail, "walls=", walls, sizeof(walls));
	/* no number to show when every trial at the cause's point failed (timeouts, ...) */
	if (strstr(c->detail, "effect: trials failed"))
		snprintf(effect, sizeof(effect), "%8s %20s", "failed", "");
	else
		snprintf(effect, sizeof(effect), "%+7.1f%% [%+6.1f%%, %+6.1f%%]", 100 * c->effect,
			 100 * c->effect_lo, 100 * c->effect_hi);
	printf("%3u %5lld %-5s %-6s %-*s %10.6g %s %10.2f %-12s %6u  %s%s%s\n", index,
	       (long long)c->id, verb, metric, w_members, c->members, c->wall_level, effect,
	       c->confidence,
	       c->supported ? cls : "", ids, c->supported ? walls : c->reason,
	       c->supported && strstr(c->detail, "through=flows") ? " (through flows)" : "",
	       strstr(c->detail, "undecided") ? " (undecided)" : "");
}

/* Rows in id order: the supported ones first (as stored), then the suspects; INDEX numbers
 * them across both, the number `scalacn explain` takes. */
static int each_row(const struct res_cause *c, void *ctx)
{
	struct causes_ctx *x = ctx;

	x->index++;
	if (c->supported == x->suspect_pass)
		return 0;
	if (x->causes)
		json_object_array_add(c->supported ? x->causes : x->suspects,
				      cause_row_json(c, x->index));
	else
		print_row(c, x->index, x->w_members);
	x->n++;
	return 0;
}

static int count_suspects(const struct res_cause *c, void *ctx)
{
	struct causes_ctx *x = ctx;
	int w = (int)strlen(c->members);

	x->n_suspects += !c->supported;
	x->w_members = w > x->w_members ? w : x->w_members;
	return 0;
}

#define ROW_HEADER "%3s %5s %-5s %-6s %-*s %10s %8s %-18s %10s %-12s %6s  %s\n"

static int print_causes(struct res_db *db, const struct res_campaign *c, bool json,
			struct scn_error *err)
{
	struct causes_ctx x = { .w_members = (int)strlen("members") };
	struct json_object *root = NULL;
	int rc;

	if (json) {
		root = hx_json_doc("causes");
		x.causes = json_object_new_array();
		x.suspects = json_object_new_array();
		add_campaign_identity(root, c);
		json_object_object_add(root, "causes", x.causes);
		json_object_object_add(root, "suspects", x.suspects);
	}
	rc = res_cause_each(db, c->id, count_suspects, &x, err);
	if (rc == 0 && !json)
		printf("Causes of campaign %lld (%s, %s):\n" ROW_HEADER, (long long)c->id,
		       c->plan_path, c->rnic_model, "#", "id", "verb", "metric", x.w_members,
		       "members", "wall at", "effect", "95% interval", "confidence", "class",
		       "trials", "walls (first bad level, last good)");
	if (rc == 0)
		rc = res_cause_each(db, c->id, each_row, &x, err);
	if (rc == 0 && !json && x.n == 0)
		printf(x.n_suspects ? "  none\n" : "  none stored (run 'scalacn analyze' first)\n");
	if (rc == 0 && !json && x.n_suspects)
		printf("Suspects (not supported by the evidence; not causes):\n" ROW_HEADER, "#", "id",
		       "verb", "metric", x.w_members, "members", "wall at", "effect", "95% interval",
		       "confidence", "", "trials", "why not a cause");
	x.suspect_pass = true;
	x.index = 0;
	if (rc == 0)
		rc = res_cause_each(db, c->id, each_row, &x, err);
	if (rc == 0 && json) {
		hx_json_emit(root, stdout);
		root = NULL;
	} else if (rc == 0 && x.n + x.n_suspects) {
		printf("%s\n", HX_CAUSE_LEGEND);
	}
	json_object_put(root);
	return rc;
}

int hx_cmd_causes(int argc, char **argv)
{
	struct causal_opts o;
	struct res_campaign c;
	struct res_db *db = NULL;
	struct scn_error err;
	int rc = parse_opts("causes", argc, argv, &o);

	if (rc)
		return rc;
	scn_error_clear(&err);
	rc = res_open_ro(o.db, &db, &err);
	if (rc == 0)
		rc = hx_find_campaign(db, o.campaign, &c, &err);
	if (rc == 0)
		hx_provenance_warn("causes", &c);
	if (rc == 0)
		rc = print_causes(db, &c, o.json, &err);
	res_close(db);
	return rc < 0 ? hx_report_error(&err) : HX_EXIT_OK;
}

static const struct hx_opt analyze_opts[] = {
	{ "db", 'd', "FILE", "results database (default: scalacn.db)", HX_COMPLETE_FILE, 0 },
	{ "campaign", 'c', "ID", "campaign to analyse (default: the newest done, interrupted or\n"
	  "running one; a failed campaign is never the default)", NULL, 0 },
	{ "testbed", 't', "FILE", "testbed for points not yet measured (default: the campaign's)",
	  HX_COMPLETE_FILE, 0 },
	{ "strategy", 's', "S", "cct (default: the plan's analysis.strategy), brute or anneal",
	  "cct brute anneal", 0 },
	{ "json", 'J', NULL, "print the causes as JSON (docs/json.md)", NULL, 0 },
	{ "quiet", 'q', NULL, "no progress on stderr", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_analyze = {
	"analyze", "re-run the causal analysis on stored trials", NULL, analyze_opts,
	"Rebuilds a campaign's baselines and walls from its stored trials, runs the causal\n"
	"analysis (symptoms -> local sensitivity analysis -> permutation removal -> causes)\n"
	"and replaces the campaign's symptoms and causes in the database. Trials already\n"
	"stored are reused; the testbed is needed only for points not yet measured.\n",
	NULL, hx_cmd_analyze,
};

static const struct hx_opt causes_opts[] = {
	{ "db", 'd', "FILE", "results database (default: scalacn.db)", HX_COMPLETE_FILE, 0 },
	{ "campaign", 'c', "ID", "campaign (default: the newest done, interrupted or running one)",
	  NULL, 0 },
	{ "json", 'J', NULL, "the causes and suspects as JSON (docs/json.md)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_causes = {
	"causes", "print the causes found by the causal analysis", NULL, causes_opts,
	"One line per cause: members (one cause may need several components at once), the\n"
	"level where its wall starts, effect with 95% interval, confidence (share of removal\n"
	"orders that kept it), symptom class (S1..S8 or unclassified), the number of distinct\n"
	"evidence trials and the walls; then the suspects, with why each is not a cause.\n",
	NULL, hx_cmd_causes,
};
