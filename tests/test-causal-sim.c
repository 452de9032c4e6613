/* SPDX-License-Identifier: MIT */
/*
 * test-causal-sim: the causal analysis against the simulated testbed's ground truth (suite
 * 'slow'). The test may read the profiles (the harness may not): for every shipped profile
 * and both example plans, an oracle measures every single-dimension point of the plan
 * noise-free on the profile and on copies with one mechanism switched off; a mechanism
 * "puts a wall" on (dimension, verb, metric) at the first level where the point is beyond
 * the plan's threshold with the mechanism on and not with it off. Then:
 *  - every clear wall (beyond 1.3x the threshold at the top level) is reported by cct as a
 *    cause with that dimension among its members, its wall within one plan level;
 *  - every cause cct reports is explained by a mechanism the profile turns on (one of its
 *    members carries a wall of an enabled mechanism), so a mechanism turned off yields none;
 *  - a profile variant whose collapse needs many QPs and small pages at once yields one cause
 *    with both members;
 *  - with the noise doubled there are no false causes at the default repeats, and the report
 *    says where repeats were too few to decide;
 *  - `scalacn compare examples/plans/qualify-full.yaml` prints the side-by-side table, cct
 *    finds every cause brute force finds with >= 50x fewer testbed-hours, and fewer than
 *    anneal.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "e2e_util.h"
#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"
#include "harness/cli/hx_report.h"

static const char *const profiles[] = { "cx4", "cx5", "cx6", "cx7", "bf3", "e810" };
static const char *const mechanisms[] = { "steering", "steering_cache", "rule_capacity",
					  "encap_contexts", "qp_cache", "uar", "traffic_class" };
#define N_MECH (sizeof(mechanisms) / sizeof(mechanisms[0]))
#define MAX_TRUTH 256

static char tmpdir[256];

static char *slurp(const char *path)
{
	char *t = e2e_read_file(path);

	if (!t)
		fail_msg("cannot read %s", path);
	return t;
}

/* Copy profile SRC to DST with edits: in section SECTION, key KEY set to VALUE (repeatable,
 * NULL-terminated triples). */
static void write_variant(const char *src, const char *dst, ...)
{
	char *text = slurp(src), *line, *save = NULL, section[64] = "";
	FILE *f = fopen(dst, "w");
	va_list ap;

	assert_non_null(f);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *s, *k, *v;
		bool done = false;

		if (line[0] != ' ' && line[0] != '#' && strchr(line, ':'))
			snprintf(section, sizeof(section), "%.*s", (int)(strchr(line, ':') - line), line);
		va_start(ap, dst);
		while (!done && (s = va_arg(ap, const char *))) {
			k = va_arg(ap, const char *);
			v = va_arg(ap, const char *);
			if (!strcmp(section, s) && !strncmp(line, "  ", 2) &&
			    !strncmp(line + 2, k, strlen(k)) && line[2 + strlen(k)] == ':') {
				fprintf(f, "  %s: %s\n", k, v);
				done = true;
			}
		}
		va_end(ap);
		if (!done)
			fprintf(f, "%s\n", line);
	}
	fclose(f);
	free(text);
}

static bool mech_enabled(const char *profile_path, const char *mech)
{
	char *text = slurp(profile_path), key[80], *p;
	bool on = false;

	snprintf(key, sizeof(key), "\n%s:", mech);
	p = strstr(text, key);
	if (p) {
		p = strstr(p, "enabled:");
		on = p && !strncmp(p + 8 + strspn(p + 8, " "), "true", 4);
	}
	free(text);
	return on;
}

static const char *profile_path(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/testbeds/sim/profiles/%s.yaml", getenv("SCALACN_SOURCE_ROOT"), name);
	return buf;
}

static const char *plan_path(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/examples/plans/%s.yaml", getenv("SCALACN_SOURCE_ROOT"), name);
	return buf;
}

static struct tb *open_tb(const char *profile, const char *tag)
{
	char path[512], text[700];
	struct scn_error err;
	struct tb *tb = NULL;

	snprintf(path, sizeof(path), "%s/tb-%s.yaml", tmpdir, tag);
	snprintf(text, sizeof(text), "kind: sim\nprofile: %s\n", profile);
	e2e_write_file(path, text);
	if (tb_open(path, &tb, &err))
		fail_msg("%s: %s", path, err.message);
	return tb;
}

/* ---- oracle -------------------------------------------------------------------------------- */

struct truth {
	unsigned mech, dim;
	enum topo_verb verb;
	enum gen_metric metric;
	double wall, top_degr;
};

/* Noise-free value of L on TB (NAN when the trial failed). */
static double measure(struct tb *tb, const struct gen_rules *rules, const struct gen_levels *l)
{
	struct gen_traffic t;
	struct tb_sample s;
	struct scn_error err;

	assert_int_equal(tb_apply(tb, rules, &err), 0);
	gen_traffic_from_levels(l, &t);
	assert_int_equal(tb_measure(tb, &t, 1, &s, &err), 0);
	if (s.status != TB_OK)
		return NAN;
	return l->metric == GEN_METRIC_LAT ? s.lat_median_us : s.bw_gbps;
}

static double degradation(enum gen_metric m, double y, double y0)
{
	if (isnan(y))
		return 10;
	return m == GEN_METRIC_BW ? 1 - y / y0 : y / y0 - 1;
}

/* Values of L on every variant (0: all on, 1 + k: mechanism k off). */
static void measure_all(struct tb **v, unsigned nv, const struct gen_levels *l, double *out)
{
	struct gen_levels rl = *l;
	struct gen_rules *rules = NULL;
	struct scn_error err;

	gen_levels_repair(&rl);
	assert_int_equal(gen_rules_build(NULL, NULL, &rl, 7, &rules, &err), 0);
	for (unsigned i = 0; i < nv; i++)
		out[i] = v[i] ? measure(v[i], rules, &rl) : NAN;
	gen_rules_free(rules);
}

/* Variants: 0 as shipped (noise off), 1 every enabled mechanism off, 2 + k mechanism k off. */
#define N_VAR (2 + N_MECH)
#define ANY N_MECH

static void open_variants(const char *profile, struct tb **v)
{
	char path[600], tag[32], *text;
	FILE *f;

	snprintf(path, sizeof(path), "%s/quiet.yaml", tmpdir);
	write_variant(profile, path, "noise", "enabled", "false", NULL);
	v[0] = open_tb(path, "all");
	/* all off: apply the edits one after another */
	snprintf(path, sizeof(path), "%s/none.yaml", tmpdir);
	text = slurp(profile);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	free(text);
	write_variant(path, path, "noise", "enabled", "false", NULL);
	for (unsigned k = 0; k < N_MECH; k++) {
		char one[600];

		v[2 + k] = NULL;
		if (!mech_enabled(profile, mechanisms[k]))
			continue;
		write_variant(path, path, mechanisms[k], "enabled", "false", NULL);
		snprintf(one, sizeof(one), "%s/off-%s.yaml", tmpdir, mechanisms[k]);
		write_variant(profile, one, "noise", "enabled", "false", mechanisms[k], "enabled",
			      "false", NULL);
		snprintf(tag, sizeof(tag), "off-%u", k);
		v[2 + k] = open_tb(one, tag);
	}
	v[1] = open_tb(path, "none");
}

static void add_truth(struct truth *tr, unsigned *n, unsigned mech, unsigned d, enum topo_verb v,
		      enum gen_metric m, double level, double degr)
{
	for (unsigned t = 0; t < *n; t++)
		if (tr[t].mech == mech && tr[t].dim == d && tr[t].verb == v && tr[t].metric == m) {
			tr[t].top_degr = degr; /* ascending levels: the last one is the top */
			return;
		}
	if (*n < MAX_TRUTH)
		tr[(*n)++] = (struct truth){ mech, d, v, m, level, degr };
}

static struct tb *oracle_tb[N_VAR]; /* the oracle's testbeds, open from oracle() to close_oracle() */

static void close_oracle(void)
{
	for (unsigned i = 0; i < N_VAR; i++) {
		tb_close(oracle_tb[i]);
		oracle_tb[i] = NULL;
	}
}

static unsigned oracle(const char *profile, const struct hx_plan *p, struct truth *tr)
{
	unsigned n = 0;

	open_variants(profile, oracle_tb);
	for (unsigned vi = 0; vi < p->n_verbs; vi++)
		for (unsigned mi = 0; mi < p->n_metrics; mi++) {
			enum gen_metric m = p->metrics[mi];
			double thr = m == GEN_METRIC_BW ? p->thresholds.bw_drop : p->thresholds.lat_rise;
			double y0[N_VAR], y[N_VAR];
			struct gen_levels base;

			hx_levels_base(p, p->verbs[vi], m, &base);
			measure_all(oracle_tb, N_VAR, &base, y0);
			for (unsigned d = 0; d < p->n_dims; d++) {
				double axis[HX_PLAN_MAX_LEVELS + 1];
				unsigned na = hx_causal_axis(&p->dims[d], axis);

				if (!p->dims[d].scale)
					continue;
				for (unsigned a = 0; a < na; a++) {
					struct gen_levels l = base;
					double on;

					if (axis[a] <= p->dims[d].neutral)
						continue;
					gen_levels_set(&l, p->dims[d].dim, axis[a], NULL);
					measure_all(oracle_tb, N_VAR, &l, y);
					on = degradation(m, y[0], y0[0]);
					if (on < thr)
						continue;
					if (degradation(m, y[1], y0[1]) < thr)
						add_truth(tr, &n, ANY, d, p->verbs[vi], m, axis[a], on);
					for (unsigned k = 0; k < N_MECH; k++)
						if (oracle_tb[2 + k] && degradation(m, y[2 + k], y0[2 + k]) < thr)
							add_truth(tr, &n, k, d, p->verbs[vi], m, axis[a], on);
				}
			}
		}
	return n;
}

/* A cause with several members: the point with the members where the cause was shown (the
 * rest at base) collapses on the profile as shipped and not with its mechanisms off, against
 * base with the cause's context members (non-scale dimensions: small messages, say, which
 * move the metric by themselves) at the same levels. */
static bool interaction_explained(const struct hx_plan *p, const struct hx_cause *c)
{
	double thr = c->metric == GEN_METRIC_BW ? p->thresholds.bw_drop : p->thresholds.lat_rise;
	double y0[N_VAR], y[N_VAR];
	struct gen_levels base, l;

	hx_levels_base(p, c->verb, c->metric, &base);
	for (unsigned k = 0; k < c->n_members; k++)
		for (unsigned d = 0; d < p->n_dims; d++)
			if (p->dims[d].dim == c->members[k] && !p->dims[d].scale)
				gen_levels_set(&base, c->members[k], c->at[k], NULL);
	l = base;
	for (unsigned k = 0; k < c->n_members; k++)
		gen_levels_set(&l, c->members[k], c->at[k], NULL);
	measure_all(oracle_tb, 2, &base, y0);
	measure_all(oracle_tb, 2, &l, y);
	return degradation(c->metric, y[0], y0[0]) >= 0.8 * thr &&
	       degradation(c->metric, y[1], y0[1]) < thr;
}

/* Mechanisms responsible for (dim, verb, metric) alone, for messages. */
static const char *who(const struct truth *tr, unsigned n, const struct truth *t, char *buf,
		       size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && k < len; i++)
		if (tr[i].mech != ANY && tr[i].dim == t->dim && tr[i].verb == t->verb &&
		    tr[i].metric == t->metric)
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "+" : "",
					      mechanisms[tr[i].mech]);
	if (!buf[0])
		snprintf(buf, len, "several mechanisms (each sufficient)");
	return buf;
}

/* ---- analysis ---------------------------------------------------------------------------- */

struct run {
	struct hx_plan *plan;
	struct hx_outcome *o;
	struct hx_analysis *a;
};

static void analyse(const char *profile, const char *plan, const char *tag, struct run *out)
{
	char db[512];
	struct hx_runner r;
	struct res_db *rdb = NULL;
	struct scn_error err;
	struct hx_eval *e = NULL;
	struct tb *tb = open_tb(profile, tag);

	memset(out, 0, sizeof(*out));
	if (hx_plan_load(plan, &out->plan, &err))
		fail_msg("%s", err.message);
	out->o = calloc(1, sizeof(*out->o));
	out->a = calloc(1, sizeof(*out->a));
	snprintf(db, sizeof(db), "%s/%s.db", tmpdir, tag);
	unlink(db);
	assert_int_equal(res_open(db, true, &rdb, &err), 0);
	hx_runner_init(&r);
	r.tb = tb;
	r.db = rdb;
	r.seed = out->plan->seed;
	r.repeats = out->plan->repeats;
	r.stop_after_failures = out->plan->stop_after_failures;
	assert_int_equal(tb_describe(tb, &r.desc, &err), 0);
	{
		struct res_campaign c;

		memset(&c, 0, sizeof(c));
		snprintf(c.plan_path, sizeof(c.plan_path), "%s", plan);
		snprintf(c.plan_hash, sizeof(c.plan_hash), "%s", out->plan->hash);
		snprintf(c.testbed_identity, sizeof(c.testbed_identity), "%s", r.desc.identity);
		assert_int_equal(res_campaign_insert(rdb, &c, &err), 0);
		r.campaign = c.id;
	}
	if (hx_phase_baseline(&r, out->plan, out->o, &err) || hx_phase_walls(&r, out->plan, out->o, &err))
		fail_msg("%s: %s", tag, err.message);
	assert_int_equal(hx_eval_new(&r, NULL, NULL, &e), 0);
	if (hx_causal_run(e, out->plan, out->o, HX_STRATEGY_CCT, out->a, &err))
		fail_msg("%s: %s", tag, err.message);
	hx_eval_free(e);
	hx_runner_release(&r);
	res_close(rdb);
	tb_close(tb);
}

static void run_free(struct run *r)
{
	hx_analysis_release(r->a);
	hx_plan_free(r->plan);
	free(r->o);
	free(r->a);
}

/* Position of X among the ascending plan levels of DIM (first level >= x). */
static int level_index(const struct hx_plan_dim *d, double x)
{
	double axis[HX_PLAN_MAX_LEVELS + 1];
	unsigned n = hx_causal_axis(d, axis);

	for (unsigned i = 0; i < n; i++)
		if (axis[i] >= x * 0.999)
			return (int)i;
	return (int)n;
}

static const struct hx_cause *cause_with(const struct hx_analysis *a, const struct hx_plan *p,
					 unsigned dim, enum topo_verb v, enum gen_metric m,
					 unsigned *member)
{
	for (unsigned i = 0; i < a->n_causes; i++) {
		const struct hx_cause *c = &a->causes[i];

		if (c->verb != v || c->metric != m)
			continue;
		for (unsigned k = 0; k < c->n_members; k++)
			if (c->members[k] == p->dims[dim].dim) {
				*member = k;
				return c;
			}
	}
	return NULL;
}

static unsigned check_against_truth(const char *label, const struct run *r, const struct truth *tr,
				    unsigned n)
{
	const struct hx_plan *p = r->plan;
	unsigned required = 0;

	for (unsigned t = 0; t < n; t++) {
		double thr = tr[t].metric == GEN_METRIC_BW ? p->thresholds.bw_drop
							   : p->thresholds.lat_rise;
		const struct hx_cause *c;
		unsigned k = 0;
		int di, dt;

		char names[160];

		if (tr[t].mech != ANY || tr[t].top_degr < 1.3 * thr)
			continue;
		required++;
		c = cause_with(r->a, p, tr[t].dim, tr[t].verb, tr[t].metric, &k);
		if (!c) {
			hx_analysis_print(r->a, stderr);
			fail_msg("%s: %s puts a wall on %s (%s %s) at %g: no cause reported", label,
				 who(tr, n, &tr[t], names, sizeof(names)), p->dims[tr[t].dim].dim->name,
				 topo_verb_name(tr[t].verb), hx_metric_name(tr[t].metric), tr[t].wall);
		}
		di = level_index(&p->dims[tr[t].dim], c->wall[k]);
		dt = level_index(&p->dims[tr[t].dim], tr[t].wall);
		if (abs(di - dt) > 1)
			fail_msg("%s: %s on %s: wall %g reported, truth %g", label,
				 who(tr, n, &tr[t], names, sizeof(names)), p->dims[tr[t].dim].dim->name, c->wall[k],
				 tr[t].wall);
	}
	/* every cause is explained by a mechanism that is on */
	for (unsigned i = 0; i < r->a->n_causes; i++) {
		const struct hx_cause *c = &r->a->causes[i];
		bool explained = c->n_members > 1 && interaction_explained(p, c);

		for (unsigned t = 0; t < n && !explained; t++)
			for (unsigned k = 0; k < c->n_members && tr[t].mech == ANY; k++)
				if (c->members[k] == p->dims[tr[t].dim].dim && c->verb == tr[t].verb &&
				    c->metric == tr[t].metric)
					explained = true;
		if (!explained) {
			char m[128];

			hx_analysis_print(r->a, stderr);
			fail_msg("%s: false cause %s (%s %s)", label,
				 hx_cause_members_text(c, m, sizeof(m)), topo_verb_name(c->verb),
				 hx_metric_name(c->metric));
		}
	}
	return required;
}

static void test_causal_sim_profiles_truth(void **state)
{
	static const char *const plans[] = { "quickstart", "qualify-full" };
	struct truth *tr = calloc(MAX_TRUTH, sizeof(*tr));

	(void)state;
	for (unsigned pi = 0; pi < sizeof(profiles) / sizeof(profiles[0]); pi++)
		for (unsigned pl = 0; pl < 2; pl++) {
			char prof[512], plan[512], label[64], tag[64];
			struct run r;
			unsigned n, req;

			profile_path(profiles[pi], prof, sizeof(prof));
			plan_path(plans[pl], plan, sizeof(plan));
			snprintf(label, sizeof(label), "%s/%s", profiles[pi], plans[pl]);
			snprintf(tag, sizeof(tag), "%s-%s", profiles[pi], plans[pl]);
			analyse(prof, plan, tag, &r);
			n = oracle(prof, r.plan, tr);
			req = check_against_truth(label, &r, tr, n);
			close_oracle();
			print_message("%-22s %2u clear walls of enabled mechanisms, all found: %2u "
				      "causes, %2u suspects, %lu trials\n", label, req, r.a->n_causes,
				      r.a->n_suspects, r.a->trials);
			run_free(&r);
		}
	free(tr);
}

/* CX-6 with every other mechanism off and a small QP-context cache: many QPs only hurt with
 * small pages (translation entries), so the collapse needs both. */
static void test_causal_sim_interaction_one_cause(void **state)
{
	char prof[512], var[512], plan[512];
	struct run r;
	const struct hx_cause *c = NULL;

	(void)state;
	profile_path("cx6", prof, sizeof(prof));
	snprintf(var, sizeof(var), "%s/qpc.yaml", tmpdir);
	write_variant(prof, var, "qp_cache", "cache_kib", "300", "qp_cache", "miss_ns", "4000",
		      "steering", "enabled", "false", "steering_cache", "enabled", "false", NULL);
	snprintf(plan, sizeof(plan), "%s/qpc-plan.yaml", tmpdir);
	e2e_write_file(plan, "name: qpc\nseed: 5\nrepeats: 5\nverbs: [write]\nmetrics: [bw]\n"
			     "dimensions:\n"
			     "  - name: qps\n    levels: [64, 1K]\n"
			     "  - name: flows\n    levels: [1K, 4K]\n    neutral: 256\n"
			     "  - name: page_size\n    levels: [4K, 64K, 2M]\n    neutral: 2M\n"
			     "    scale: false\n"
			     "thresholds: {bw_drop: 10%, significance: 0.01}\n");
	analyse(var, plan, "qpc", &r);
	for (unsigned i = 0; i < r.a->n_causes; i++)
		if (r.a->causes[i].n_members == 2)
			c = &r.a->causes[i];
	if (!c || r.a->n_causes != 1) {
		hx_analysis_print(r.a, stderr);
		fail_msg("expected exactly one cause with two members");
	}
	assert_true((!strcmp(c->members[0]->name, "qps") && !strcmp(c->members[1]->name, "page_size")));
	assert_true(c->confidence >= 0.99);
	assert_true(c->effect < -0.3);
	assert_true(c->wall[1] == 4096);
	run_free(&r);
}

static void test_causal_sim_noise_doubled(void **state)
{
	struct truth *tr = calloc(MAX_TRUTH, sizeof(*tr));
	bool said = false;

	(void)state;
	for (unsigned pl = 0; pl < 2; pl++) {
		char prof[512], noisy[512], plan[512];
		struct run r;
		unsigned n;

		profile_path("cx6", prof, sizeof(prof));
		snprintf(noisy, sizeof(noisy), "%s/noisy.yaml", tmpdir);
		write_variant(prof, noisy, "noise", "cv", "0.04", NULL);
		plan_path(pl ? "qualify-full" : "quickstart", plan, sizeof(plan));
		analyse(noisy, plan, "noisy", &r);
		n = oracle(prof, r.plan, tr);
		check_against_truth(pl ? "noisy/qualify-full" : "noisy/quickstart", &r, tr, n);
		close_oracle();
		for (unsigned i = 0; i < r.a->n_notes; i++)
			said |= strstr(r.a->notes[i], "more repeats needed") != NULL;
		for (unsigned i = 0; i < r.a->n_causes; i++)
			said |= r.a->causes[i].undecided;
		said |= r.a->seq.points > 0; /* sequential testing added repeats where needed */
		run_free(&r);
	}
	assert_true(said);
	free(tr);
}

/* compare --json: each strategy's testbed-hours and timeout-hours (index 0 brute, 1 cct,
 * 2 anneal), cct's missed and false causes. */
struct compare_figures {
	double cost[3], timeout[3];
	int missed_cct, false_cct;
};

static double member_double(struct json_object *o, const char *key)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	return json_object_get_double(v);
}

static void compare_json(const char *const *args, struct compare_figures *f)
{
	struct e2e_run r;
	struct json_object *root, *arr;

	assert_int_equal(e2e_scalacn_run(&r, args), 0);
	root = json_tokener_parse(r.out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "strategies", &arr));
	assert_int_equal(json_object_array_length(arr), 3);
	for (int k = 0; k < 3; k++) {
		struct json_object *s = json_object_array_get_idx(arr, (size_t)k), *v;

		f->cost[k] = member_double(s, "testbed_hours");
		f->timeout[k] = member_double(s, "timeout_hours");
		assert_true(f->timeout[k] >= 0 && f->timeout[k] <= f->cost[k]);
		json_object_object_get_ex(s, "strategy", &v);
		if (!strcmp(json_object_get_string(v), "cct")) {
			f->missed_cct = (int)member_double(s, "missed");
			f->false_cct = (int)member_double(s, "false_causes");
		}
	}
	json_object_put(root);
	e2e_run_free(&r);
}

/* Each strategy is charged what its own trials cost alone; a second compare on the same
 * database measures nothing new and charges exactly the same. */
static void test_causal_sim_compare_full_plan(void **state)
{
	char plan[512], db[512];
	struct e2e_run r;
	struct compare_figures f = { .missed_cct = -1, .false_cct = -1 }, again;
	const char *args[] = { "compare", "--db", db, "--json", plan, NULL };
	const char *text_args[] = { "compare", "--db", db, plan, NULL };

	(void)state;
	plan_path("qualify-full", plan, sizeof(plan));
	snprintf(db, sizeof(db), "%s/compare.db", tmpdir);
	compare_json(args, &f);
	print_message("brute %.1f h (%.1f in timeouts), cct %.2f h (%.2f), anneal %.2f h: cct "
		      "%.1fx cheaper than brute, %.1fx than anneal\n", f.cost[0], f.timeout[0],
		      f.cost[1], f.timeout[1], f.cost[2], f.cost[0] / f.cost[1],
		      f.cost[2] / f.cost[1]);
	assert_int_equal(f.missed_cct, 0);
	assert_int_equal(f.false_cct, 0);
	assert_true(f.cost[0] >= 50 * f.cost[1]);
	assert_true(f.cost[2] > f.cost[1]);
	compare_json(args, &again);
	for (int k = 0; k < 3; k++) {
		assert_true(again.cost[k] == f.cost[k]);
		assert_true(again.timeout[k] == f.timeout[k]);
	}
	/* the table, from the same store (nothing new measured) */
	assert_int_equal(e2e_scalacn_run(&r, text_args), 0);
	assert_non_null(strstr(r.out, "each alone"));
	assert_non_null(strstr(r.out, "timeouts"));
	assert_non_null(strstr(r.out, "fewer testbed-hours than brute force"));
	e2e_run_free(&r);
}

/* run -> causes stored; analyze re-runs from the store alone (testbed file gone); causes
 * prints them with their evidence. */
static void test_causal_sim_analyze_from_store(void **state)
{
	char plan[512], tb[512], db[512], text[700], *prof = NULL;
	struct e2e_run r;
	struct json_object *root, *causes, *v;
	const char *run_args[] = { "run", "--testbed", tb, "--db", db, "--quiet", plan, NULL };
	const char *an_args[] = { "analyze", "--db", db, "--json", NULL };
	const char *ca_args[] = { "causes", "--db", db, "--json", NULL };
	const char *ca_text[] = { "causes", "--db", db, NULL };

	(void)state;
	prof = strdup(e2e_src("testbeds/sim/profiles/cx6.yaml"));
	plan_path("quickstart", plan, sizeof(plan));
	snprintf(tb, sizeof(tb), "%s/gone.yaml", tmpdir);
	snprintf(text, sizeof(text), "kind: sim\nprofile: %s\n", prof);
	e2e_write_file(tb, text);
	snprintf(db, sizeof(db), "%s/analyze.db", tmpdir);
	assert_int_equal(e2e_scalacn_run(&r, run_args), 1);
	assert_non_null(strstr(r.out, "Causes (cct"));
	assert_non_null(strstr(r.out, "flows"));
	e2e_run_free(&r);
	unlink(tb);
	assert_int_equal(e2e_scalacn_run(&r, an_args), 0);
	assert_non_null(strstr(r.err, "stored trials only"));
	root = json_tokener_parse(r.out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "measured", &v));
	assert_int_equal(json_object_get_int(v), 0);
	assert_true(json_object_object_get_ex(root, "causes", &causes));
	assert_int_equal(json_object_array_length(causes), 2); /* flows (S1), decap masks (S6) */
	json_object_put(root);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, ca_args), 0);
	root = json_tokener_parse(r.out);
	assert_non_null(root);
	/* an object since schema 3: causes and suspects apart */
	assert_true(json_object_object_get_ex(root, "suspects", &v));
	assert_int_equal(json_object_array_length(v), 0);
	assert_true(json_object_object_get_ex(root, "causes", &causes));
	assert_int_equal(json_object_array_length(causes), 2);
	for (size_t i = 0; i < 2; i++) {
		struct json_object *c = json_object_array_get_idx(causes, i);

		json_object_object_get_ex(c, "trial_ids", &v); /* distinct ids, an array */
		assert_true(json_object_array_length(v) > 0);
		json_object_object_get_ex(c, "confidence", &v);
		assert_true(json_object_get_double(v) > 0.99);
	}
	json_object_put(root);
	e2e_run_free(&r);
	assert_int_equal(e2e_scalacn_run(&r, ca_text), 0);
	assert_non_null(strstr(r.out, "server.decap_masks"));
	assert_non_null(strstr(r.out, "S1"));
	e2e_run_free(&r);
	free(prof);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s", e2e_tmpdir());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	e2e_rmdir(tmpdir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_causal_sim_profiles_truth),
		cmocka_unit_test(test_causal_sim_interaction_one_cause),
		cmocka_unit_test(test_causal_sim_noise_doubled),
		cmocka_unit_test(test_causal_sim_compare_full_plan),
		cmocka_unit_test(test_causal_sim_analyze_from_store),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
