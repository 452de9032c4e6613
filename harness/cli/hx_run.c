/* SPDX-License-Identifier: MIT */
/*
 * hx_campaign: the `scalacn run` state machine: load, open, (re)start the campaign row,
 * phases (baseline, enumeration, walls, criteria), record symptoms, report, exit code.
 * SIGINT, SIGTERM and SIGHUP stop between trials: what was measured is already committed,
 * and the message says how to resume.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "generators/gen.h"
#include "harness/campaign/hx_campaign.h"
#include "harness/cli/hx_cli.h"
#include "harness/cli/hx_progress.h"
#include "harness/cli/hx_report.h"
#include "harness/plan/hx_plan.h"
#include "testbeds/tb_pool.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* a closed terminal or ssh session: stop cleanly too */
}

static double unix_now(void)
{
	return (double)time(NULL);
}

struct campaign_env {
	struct hx_plan *plan;
	struct tb_pool *pool;         /* the testbed's slots; --jobs of them are used */
	struct tb *tb;                /* slot 0 */
	struct res_db *db;
	struct res_lock *lock;        /* the database's writer lock, held while the campaign runs */
	struct hx_runner runner;
	struct hx_progress progress;
	struct hx_observer observer;  /* the progress line, as the runner sees it */
	struct hx_outcome outcome;
	struct hx_analysis analysis;  /* the causes: outcome.analysis points here */
	const char *testbed_path;
	double started;               /* monotonic clock at the start (hx_now) */
	struct hx_junit_run junit;    /* properties and wall-clock times for --junit */
};

static int open_campaign(struct campaign_env *e, const struct hx_run_opts *o,
			 struct scn_error *err)
{
	struct res_campaign c;
	int rc;

	if (o->resume) {
		rc = res_campaign_find(e->db, e->plan->hash, e->runner.desc.identity, &c, err);
		if (rc == -ENOENT)
			return scn_error_set(err, SCN_ERR_USAGE, -ENOENT,
					     "nothing to resume: %s holds no campaign of plan %s on testbed %s",
					     o->db_path, e->plan->name, e->runner.desc.identity);
		if (rc < 0)
			return rc;
		if (strcmp(c.rng, GEN_RNG_NAME))
			return scn_error_set(err, SCN_ERR_USAGE, -EINVAL,
					     "cannot resume campaign %lld in %s: it drew its rule "
					     "layouts with the %s generator of an earlier scalacn, "
					     "and this one draws with %s, so the rest would be other "
					     "layouts; run it again with a new --db (its trials stay "
					     "readable)", (long long)c.id, o->db_path, c.rng,
					     GEN_RNG_NAME);
		e->runner.campaign = c.id;
		return res_campaign_set_status(e->db, c.id, RES_RUNNING, "", err);
	}
	memset(&c, 0, sizeof(c));
	hx_provenance_record(&c, o->plan_path, e->testbed_path);
	snprintf(c.plan_hash, sizeof(c.plan_hash), "%s", e->plan->hash);
	snprintf(c.testbed_identity, sizeof(c.testbed_identity), "%s", e->runner.desc.identity);
	snprintf(c.rnic_model, sizeof(c.rnic_model), "%s", e->runner.desc.rnic_model);
	snprintf(c.firmware, sizeof(c.firmware), "%s", e->runner.desc.firmware);
	snprintf(c.tool_version, sizeof(c.tool_version), "%s", SCALACN_VERSION);
	c.seed = e->plan->seed;
	snprintf(c.rng, sizeof(c.rng), "%s", GEN_RNG_NAME);
	c.status = RES_RUNNING;
	c.started = unix_now();
	rc = res_campaign_insert(e->db, &c, err);
	e->runner.campaign = c.id;
	return rc;
}

/* The testbed as a pool; the runner gets min(--jobs, slots) of them. */
static int open_slots(struct campaign_env *e, const struct hx_run_opts *o, struct scn_error *err)
{
	struct tb_open_opts oo = { .dry_run = true, .dry_run_out = stdout };
	struct tb *slots[TB_POOL_MAX];
	unsigned n;
	int rc = tb_pool_open(e->testbed_path, o->dry_run ? &oo : NULL, &e->pool, err);

	if (rc < 0)
		return rc;
	n = tb_pool_size(e->pool) < o->jobs ? tb_pool_size(e->pool) : o->jobs;
	for (unsigned i = 0; i < n; i++)
		slots[i] = tb_pool_slot(e->pool, i);
	e->runner.desc = *tb_pool_description(e->pool);
	e->tb = slots[0];
	if (hx_runner_slots(&e->runner, slots, n) < 0)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "run: out of memory");
	return 0;
}

static int open_all(struct campaign_env *e, const struct hx_run_opts *o, struct scn_error *err)
{
	int rc = hx_plan_load(o->plan_path, &e->plan, err);

	if (rc < 0)
		return rc;
	e->testbed_path = o->testbed_path ? o->testbed_path : e->plan->testbed;
	if (!e->testbed_path || !e->testbed_path[0])
		return scn_error_set(err, SCN_ERR_USAGE, -EINVAL,
				     "%s names no testbed: give --testbed FILE or set 'testbed:' in the plan",
				     o->plan_path);
	if ((rc = open_slots(e, o, err)) < 0)
		return rc;
	e->runner.seed = e->plan->seed;
	e->runner.repeats = e->plan->repeats;
	e->runner.stop_after_failures = e->plan->stop_after_failures;
	e->runner.stop = &stop_requested;
	e->runner.dry_run = o->dry_run;
	if (o->dry_run)
		return 0;
	rc = res_lock_writer(o->db_path, "run", &e->lock, err);
	if (rc == 0)
		rc = res_open(o->db_path, true, &e->db, err);
	if (rc < 0)
		return rc;
	e->runner.db = e->db;
	e->runner.budget_s = e->plan->budget_hours * 3600.0;
	return open_campaign(e, o, err);
}

/* Add the wall-clock seconds since *T0 to JUnit's phase SLOT of E; *T0 becomes now. */
static void charge_phase(struct campaign_env *e, enum hx_junit_phase slot, double *t0)
{
	double now = hx_now();

	e->junit.phase_s[slot] += now - *t0;
	*t0 = now;
}

/* The phases of a run, in order, as the forecast names them (hx_forecast.c). */
static const enum hx_forecast_phase run_sequence[] = {
	HX_FC_BASELINE, HX_FC_WALLS, HX_FC_DRIFT, HX_FC_CRITERIA, HX_FC_DRIFT, HX_FC_ANALYSIS,
	HX_FC_DRIFT, HX_FC_MODEL,
};
#define RUN_STEPS (sizeof(run_sequence) / sizeof(run_sequence[0]))

/* Before step STEP of the run: tell the progress line what it and the steps after it are
 * expected to take (the walls are known once the wall search, step 1, is done). */
static void forecast(struct campaign_env *e, unsigned step)
{
	const struct hx_outcome *known = step > 1 ? &e->outcome : NULL;
	unsigned long after = 0;

	for (unsigned i = step + 1; i < RUN_STEPS; i++)
		after += hx_forecast_trials(e->plan, known, run_sequence[i]);
	hx_progress_forecast(&e->progress, hx_forecast_trials(e->plan, known, run_sequence[step]),
			     after);
}

static int run_phases(struct campaign_env *e, struct scn_error *err)
{
	struct hx_outcome *out = &e->outcome;
	double t0;
	int rc;

	rc = topo_enumerate(&e->plan->space, NULL, NULL, &out->enum_stats, err);
	if (rc < 0)
		return rc;
	forecast(e, 0);
	rc = hx_phase_baseline(&e->runner, e->plan, out, err);
	forecast(e, 1);
	t0 = hx_now();
	if (rc == 0)
		rc = hx_phase_walls(&e->runner, e->plan, out, err);
	charge_phase(e, HX_JU_WALLS, &t0);
	forecast(e, 2);
	if (rc == 0) /* the baseline again after each phase: drift marks its decisions */
		rc = hx_phase_drift(&e->runner, e->plan, out, "walls", err);
	forecast(e, 3);
	t0 = hx_now();
	if (rc == 0)
		rc = hx_phase_criteria(&e->runner, e->plan, out, err);
	charge_phase(e, HX_JU_CRITERIA, &t0);
	forecast(e, 4);
	if (rc == 0)
		rc = hx_phase_drift(&e->runner, e->plan, out, "criteria", err);
	forecast(e, 5);
	t0 = hx_now();
	if (rc == 0)
		rc = hx_analysis_phase(&e->runner, e->plan, out, out->analysis, err);
	charge_phase(e, HX_JU_ANALYSIS, &t0);
	forecast(e, 6);
	if (rc == 0)
		rc = hx_phase_drift(&e->runner, e->plan, out, "analysis", err);
	if (rc == 0)
		hx_analysis_mark_drift(out->analysis, e->plan, out);
	return rc;
}

/* Walls found become symptoms in the store (replacing an earlier analysis). */
static int store_symptoms(struct campaign_env *e, struct scn_error *err)
{
	const struct hx_outcome *out = &e->outcome;
	int rc = res_analysis_clear(e->db, e->runner.campaign, err);

	for (unsigned i = 0; rc == 0 && i < out->n_walls; i++) {
		const struct hx_wall *w = &out->walls[i];
		struct res_symptom s;
		struct gen_levels l;
		char key[33], json[4096];

		if (!w->found && !w->slope)
			continue;
		hx_levels_base(e->plan, w->verb, w->metric, &l);
		gen_levels_set(&l, w->dim, w->level, NULL);
		hx_point_key(&l, key);
		hx_wall_symptom(w, e->runner.campaign, &s);
		rc = res_point_upsert(e->db, s.campaign, key, hx_point_json(&l, json, sizeof(json)),
				      "default", "wall", &s.point, err);
		if (rc == 0)
			rc = res_symptom_put(e->db, &s, err);
	}
	return rc;
}

/* The criteria's verdicts, for reports and `scalacn diff` (only those judged). */
static int store_criteria(struct campaign_env *e, struct scn_error *err)
{
	int rc = 0;

	for (unsigned i = 0; rc == 0 && i < e->plan->n_criteria; i++) {
		struct res_criterion row;

		if (!e->outcome.criteria[i].measured)
			continue;
		hx_criterion_row(e->plan, &e->outcome, i, &row);
		rc = res_criterion_put(e->db, &row, err);
	}
	return rc;
}

static int finish_dry_run(struct campaign_env *e)
{
	printf("# dry run: %lu trials printed above; nothing was measured or stored.\n"
	       "# Bisection and criteria that depend on measured numbers are not shown.\n",
	       e->runner.measured);
	return HX_EXIT_OK;
}

/* Store the walls and causes, then (plan section `model:`) measure the model phase over the
 * stored causes' dimensions. RC is run_phases' (0, or -EDQUOT: the budget ran out, nothing
 * more is measured). Returns 0, -EDQUOT, -EINTR or an error. */
static int store_and_model(struct campaign_env *e, int rc, struct scn_error *err)
{
	int r = store_symptoms(e, err);

	if (r == 0)
		r = store_criteria(e, err);
	if (r == 0)
		r = hx_analysis_store(e->db, e->runner.campaign, e->outcome.analysis, err);
	/* the model phase announces its exact count when it starts: no forecast to outbid it */
	hx_progress_forecast(&e->progress, 0, 0);
	if (r == 0 && rc == 0)
		r = hx_phase_model(&e->runner, e->plan, &e->outcome, err);
	return r ? r : rc;
}

/* The JUnit file's properties and whole wall-clock time, from what opened. */
static void junit_describe(struct campaign_env *e, const struct hx_run_opts *o)
{
	struct hx_junit_run *j = &e->junit;

	j->suite = e->plan ? e->plan->name : o->plan_path;
	j->plan_path = o->plan_path;
	j->testbed_path = e->testbed_path ? e->testbed_path : o->testbed_path;
	j->rnic_model = e->tb ? e->runner.desc.rnic_model : NULL;
	j->firmware = e->tb ? e->runner.desc.firmware : NULL;
	j->wall_s = hx_now() - e->started;
}

static int finish(struct campaign_env *e, const struct hx_run_opts *o, struct scn_error *err)
{
	if (o->dry_run)
		return finish_dry_run(e);
	struct hx_outcome *out = &e->outcome;
	char summary[256], tb_shown[4096];
	int code = hx_verdict_exit(e->plan, out);
	int rc;

	snprintf(summary, sizeof(summary), "%s: %lu trials, %.3f testbed-hours",
		 code ? "not qualified" : "qualified", out->trials, out->cost_s / 3600.0);
	rc = res_campaign_set_status(e->db, e->runner.campaign, RES_DONE, summary, err);
	if (rc < 0)
		return rc;
	if (o->json)
		hx_outcome_json(e->plan, out, &e->runner.desc,
				hx_path_display(e->testbed_path, tb_shown, sizeof(tb_shown)), stdout);
	else
		hx_outcome_print(e->plan, out, stdout);
	if (o->junit_path) {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);

		if (m) {
			hx_outcome_print(e->plan, out, m);
			fclose(m);
		}
		e->junit.summary = text;
		junit_describe(e, o);
		rc = hx_outcome_junit(e->plan, out, &e->junit, o->junit_path, err);
		free(text);
		e->junit.summary = NULL;
		if (rc < 0)
			return rc;
	}
	return code;
}

/* --junit after an error (configuration 2, testbed 3): one <error> testcase, same exit. */
static void junit_error(struct campaign_env *e, const struct hx_run_opts *o,
			const struct scn_error *failure, int code)
{
	struct scn_error err;

	if (!o->junit_path || o->dry_run)
		return;
	junit_describe(e, o);
	if (hx_error_junit(&e->junit, failure, code, o->junit_path, &err) < 0)
		hx_report_error(&err);
}

static void close_all(struct campaign_env *e)
{
	hx_analysis_release(&e->analysis);
	hx_runner_release(&e->runner);
	res_close(e->db);
	res_unlock(e->lock);
	tb_pool_close(e->pool);
	hx_plan_free(e->plan);
}

static int interrupted(struct campaign_env *e, const struct hx_run_opts *o)
{
	struct scn_error err;

	res_campaign_set_status(e->db, e->runner.campaign, RES_INTERRUPTED, "interrupted", &err);
	fprintf(stderr,
		"scalacn: interrupted after %lu trials (all committed to %s).\n"
		"scalacn: resume with: scalacn run %s%s%s --db %s --resume\n",
		e->runner.measured + e->runner.cached, o->db_path, o->plan_path,
		o->testbed_path ? " --testbed " : "", o->testbed_path ? o->testbed_path : "",
		o->db_path);
	return HX_EXIT_INTERRUPTED;
}

int hx_campaign_run(const struct hx_run_opts *o)
{
	struct campaign_env e;
	struct scn_error err;
	int rc, code;

	memset(&e, 0, sizeof(e));
	e.started = hx_now();
	e.junit.started_unix = (double)time(NULL);
	e.outcome.analysis = &e.analysis;
	scn_error_clear(&err);
	hx_runner_init(&e.runner);
	/* SCALACN_RULES_CACHE=off: every rule set built from scratch, the reference that
	 * bench-campaign times the rule-set cache against (same results, more CPU). */
	e.runner.no_rules_cache = getenv("SCALACN_RULES_CACHE") &&
				  !strcmp(getenv("SCALACN_RULES_CACHE"), "off");
	stop_requested = 0;
	install_signals();
	rc = open_all(&e, o, &err);
	if (rc == 0) {
		hx_progress_init(&e.progress, stderr, o->quiet, e.runner.budget_s);
		hx_progress_observer(&e.progress, &e.observer);
		e.runner.observer = &e.observer;
		e.outcome.campaign = e.runner.campaign;
		char tb_shown[4096];

		hx_progress_note(&e.progress, "campaign %lld: plan %s on %s (%s, firmware %s), db %s",
				 (long long)e.runner.campaign, e.plan->name,
				 hx_path_display(e.testbed_path, tb_shown, sizeof(tb_shown)),
				 e.runner.desc.rnic_model, e.runner.desc.firmware,
				 o->dry_run ? "none (dry run)" : o->db_path);
		if (o->jobs > 1)
			hx_progress_note(&e.progress, "--jobs %u: %u trials at once (the testbed has %u "
					 "slot%s)", o->jobs, hx_runner_width(&e.runner),
					 tb_pool_size(e.pool), tb_pool_size(e.pool) == 1 ? "" : "s");
		rc = run_phases(&e, &err);
		if ((rc == 0 || rc == -EDQUOT) && !o->dry_run)
			rc = store_and_model(&e, rc, &err);
		hx_progress_end(&e.progress);
		e.outcome.trials = e.runner.measured + e.runner.cached;
		e.outcome.measured = e.runner.measured;
		e.outcome.cached = e.runner.cached;
		e.outcome.cost_s = e.runner.cost_s;
	}
	if (rc == -EINTR) {
		code = interrupted(&e, o);
	} else if (rc == 0 || rc == -EDQUOT) {
		e.outcome.budget_exhausted = rc == -EDQUOT;
		code = finish(&e, o, &err);
		if (code < 0)
			code = hx_report_error(&err);
	} else {
		if (e.db && e.runner.campaign)
			res_campaign_set_status(e.db, e.runner.campaign, RES_FAILED, err.message, NULL);
		code = hx_report_error(&err);
		junit_error(&e, o, &err, code);
	}
	close_all(&e);
	return code;
}
