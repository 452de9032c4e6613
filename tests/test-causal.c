/* SPDX-License-Identifier: MIT */
/*
 * test-causal: the causal analysis (harness/causal/hx_causal.h) on a fake testbed whose truth is
 * known: bandwidth falls with the receive-side masks (a single-dimension wall at 8 masks),
 * collapses when many QPs meet small pages (an interaction: neither alone), and ignores
 * flows and the traffic class. Every strategy must name exactly those causes; noise must not
 * create causes; the removal orders and the sensitivity analysis behave as documented.
 * The fake measures in microseconds, so these tests are fast (suite 'unit').
 */
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

#include "harness/campaign/hx_campaign.h"
#include "harness/causal/hx_causal.h"
#include "harness/cli/hx_report.h"
#include "harness/plan/hx_plan.h"

struct fake {
	double cv;          /* multiplicative noise */
	double mask_k;      /* bw = 100 / (1 + mask_k * masks) ... */
	bool interaction;   /* qps >= 256 and page 4K halve the bandwidth */
	bool transient;     /* flows >= 1024 halve it, but only in the first trials of a point
			     * (not in a replicate's): a cause whose cure does not replicate */
	bool shared;        /* no mask wall; flows >= 1024 halve it with 8+ masks, and again
			     * with 256+ QPs: two causes sharing flows */
	bool hidden;        /* masks cap it hard (min); 256+ QPs with 4K pages cap it at 50:
			     * a cause the mask wall hides until it is removed */
	bool outlier;       /* the first replicate trial of every point with fewer than 8
			     * masks ran 1.5x slow (a gross outlier) */
	int64_t next_id;
	unsigned long calls;
	unsigned repeats;
};

static double fake_value(const struct fake *f, const struct gen_levels *l, unsigned r)
{
	char text[4096];
	struct gen_rng rng;
	double bw = 100.0 / (1.0 + f->mask_k * l->masks[GEN_SERVER][GEN_DECAP]);

	if (f->interaction && l->qps >= 256 && l->page_size == 4096)
		bw *= 0.5;
	if (f->transient && l->flows >= 1024 && r < HX_REPLICATE_REPEAT)
		bw *= 0.5;
	if (f->shared) {
		bw = 100;
		if (l->flows >= 1024 && l->masks[GEN_SERVER][GEN_DECAP] >= 8)
			bw *= 0.5;
		if (l->flows >= 1024 && l->qps >= 256)
			bw *= 0.5;
	}
	if (f->hidden) {
		bw = 100.0 / (1.0 + 0.06 * l->masks[GEN_SERVER][GEN_DECAP]); /* 32 masks: 34 */
		if (l->qps >= 256 && l->page_size == 4096 && bw > 50)
			bw = 50;
	}
	if (f->outlier && r == HX_REPLICATE_REPEAT && l->masks[GEN_SERVER][GEN_DECAP] < 8)
		bw /= 1.5;
	hx_point_text(l, text, sizeof(text));
	gen_rng_seed(&rng, gen_hash64(text, strlen(text), 1000 + r));
	return bw * (1.0 + f->cv * gen_rng_normal(&rng));
}

static int fake_point(void *ctx, const struct gen_levels *l, const char *phase, int first,
		      unsigned repeats, struct hx_point_result *out, double *cost_s,
		      struct scn_error *err)
{
	struct fake *f = ctx;
	unsigned before = out->n;

	(void)phase;
	(void)err;
	if (!repeats)
		repeats = f->repeats;
	snprintf(out->status, sizeof(out->status), "ok");
	for (unsigned r = out->n; r < repeats; r++) {
		out->x[r] = fake_value(f, l, (unsigned)first + r);
		out->ids[r] = ++f->next_id;
	}
	out->n = repeats;
	hx_summarise(out->x, out->n, &out->s);
	*cost_s = 2.0 * (out->n - before);
	f->calls++;
	return 0;
}

#define PLAN_TEXT \
	"name: fake\nseed: 11\nrepeats: %u\nverbs: [write]\nmetrics: [bw]\n" \
	"dimensions:\n" \
	"  - name: server.decap_masks\n    levels: [1, 2, 4, 8, 16, 32]\n" \
	"  - name: flows\n    levels: [64, 1024, 4096]\n" \
	"  - name: qps\n    levels: [4, 64, 256, 1024]\n" \
	"  - name: page_size\n    levels: [4K, 64K, 2M]\n    neutral: 2M\n    scale: false\n" \
	"  - name: traffic_class\n    levels: [0, 3, 7]\n    scale: false\n" \
	"thresholds: {bw_drop: 10%%, significance: 0.01}\n" \
	"analysis: {removal_orders: 6}\n"

static struct hx_plan *load_plan(unsigned repeats)
{
	char path[] = "/tmp/test-causal-XXXXXX";
	struct hx_plan *p = NULL;
	struct scn_error err;
	char buf[600];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fprintf(f, PLAN_TEXT, repeats);
	fclose(f);
	if (hx_plan_load(path, &p, &err))
		fail_msg("%s", scn_error_format(&err, buf, sizeof(buf)));
	unlink(path);
	return p;
}

struct world {
	struct hx_plan *p;
	struct fake f;
	struct hx_outcome o;
	struct hx_analysis a;
	struct hx_eval *e;
};

static struct world *world_new(double cv, bool interaction, unsigned repeats)
{
	struct world *w = calloc(1, sizeof(*w));
	struct gen_levels base;
	double cost;

	w->p = load_plan(repeats);
	w->f.cv = cv;
	w->f.mask_k = 0.02; /* 8 masks: -13.8%, 4 masks: -7.4% */
	w->f.interaction = interaction;
	w->f.repeats = repeats;
	w->o.n_baselines = 1;
	w->o.baselines[0].verb = TOPO_VERB_WRITE;
	w->o.baselines[0].metric = GEN_METRIC_BW;
	hx_levels_base(w->p, TOPO_VERB_WRITE, GEN_METRIC_BW, &base);
	assert_int_equal(fake_point(&w->f, &base, "baseline", 0, 0, &w->o.baselines[0].r, &cost,
				    NULL), 0);
	assert_int_equal(hx_eval_new(NULL, fake_point, &w->f, &w->e), 0);
	return w;
}

/* Measure the baseline again after the fake's curve was changed. */
static void world_rebase(struct world *w)
{
	struct gen_levels base;
	double cost;

	hx_levels_base(w->p, TOPO_VERB_WRITE, GEN_METRIC_BW, &base);
	memset(&w->o.baselines[0].r, 0, sizeof(w->o.baselines[0].r));
	assert_int_equal(fake_point(&w->f, &base, "baseline", 0, 0, &w->o.baselines[0].r, &cost,
				    NULL), 0);
}

static void world_free(struct world *w)
{
	hx_analysis_release(&w->a);
	hx_eval_free(w->e);
	hx_plan_free(w->p);
	free(w);
}

static const struct hx_cause *find_cause(const struct hx_analysis *a, const char *m1,
					 const char *m2)
{
	for (unsigned i = 0; i < a->n_causes; i++) {
		const struct hx_cause *c = &a->causes[i];
		unsigned want = m2 ? 2 : 1;
		bool ok = c->n_members == want;

		for (unsigned k = 0; ok && k < c->n_members; k++)
			ok = !strcmp(c->members[k]->name, m1) || (m2 && !strcmp(c->members[k]->name, m2));
		if (ok)
			return c;
	}
	return NULL;
}

static bool mentions(const struct hx_analysis *a, const char *dim)
{
	for (unsigned i = 0; i < a->n_causes; i++)
		for (unsigned k = 0; k < a->causes[i].n_members; k++)
			if (!strcmp(a->causes[i].members[k]->name, dim))
				return true;
	return false;
}

static void check_truth(const struct hx_analysis *a, bool interaction)
{
	const struct hx_cause *m = find_cause(a, "server.decap_masks", NULL);
	const struct hx_cause *qp = find_cause(a, "qps", "page_size");

	assert_non_null(m);
	assert_true(m->wall[0] == 8);        /* 4 masks: -7.4% (no), 8 masks: -13.8% */
	assert_true(m->last_good[0] == 4);
	assert_true(m->effect < -0.1);
	assert_false(mentions(a, "flows"));
	assert_false(mentions(a, "traffic_class"));
	if (!interaction) {
		assert_null(qp);
		assert_int_equal(a->n_causes, 1);
		return;
	}
	assert_non_null(qp);
	assert_int_equal(a->n_causes, 2);
	assert_true(qp->n_members == 2);
}

static void test_causal_cct_finds_wall_and_interaction(void **state)
{
	struct world *w = world_new(0.02, true, 5);
	const struct hx_cause *m, *qp;

	(void)state;
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	check_truth(&w->a, true);
	m = find_cause(&w->a, "server.decap_masks", NULL);
	qp = find_cause(&w->a, "qps", "page_size");
	assert_true(m->confidence == 1.0);
	assert_true(qp->confidence == 1.0);
	/* the interaction: -50% with both, interval around it */
	assert_true(qp->effect < -0.4 && qp->effect > -0.6);
	assert_true(qp->effect_lo <= qp->effect && qp->effect <= qp->effect_hi);
	/* walls per member: 256 QPs, 4K pages (page_size's demanding side is down) */
	assert_true(qp->wall[0] == 256 && qp->last_good[0] == 64);
	assert_true(qp->wall[1] == 4096);
	assert_true(m->n_ids >= 5 && qp->n_ids >= 5);
	assert_true(w->a.trials >= 5 * w->a.points && w->a.trials % 5 == 0); /* + replicates */
	assert_true(w->a.cost_s == 2.0 * w->a.trials);
	world_free(w);
}

static void test_causal_cct_no_interaction_one_cause(void **state)
{
	struct world *w = world_new(0.02, false, 5);

	(void)state;
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	check_truth(&w->a, false);
	world_free(w);
}

static void test_causal_strategies_agree(void **state)
{
	for (int s = 0; s < 3; s++) {
		struct world *w = world_new(0.02, true, 5);

		(void)state;
		assert_int_equal(hx_causal_run(w->e, w->p, &w->o, (enum hx_strategy)s, &w->a, NULL), 0);
		if (getenv("CAUSAL_DEBUG"))
			hx_analysis_print(&w->a, stderr);
		if (s == HX_STRATEGY_ANNEAL) { /* black box: may miss the interaction, never lies */
			assert_non_null(find_cause(&w->a, "server.decap_masks", NULL));
			assert_false(mentions(&w->a, "flows"));
			assert_false(mentions(&w->a, "traffic_class"));
			world_free(w);
			continue;
		}
		check_truth(&w->a, true);
		/* brute force: 7 x 4 x 5 x 3 x 3 = 1260 points */
		if (s == HX_STRATEGY_BRUTE)
			assert_int_equal(w->a.points, 1260);
		world_free(w);
	}
}

static void test_causal_cct_cheaper_than_brute(void **state)
{
	struct world *c = world_new(0.02, true, 5), *b = world_new(0.02, true, 5);

	(void)state;
	assert_int_equal(hx_causal_run(c->e, c->p, &c->o, HX_STRATEGY_CCT, &c->a, NULL), 0);
	assert_int_equal(hx_causal_run(b->e, b->p, &b->o, HX_STRATEGY_BRUTE, &b->a, NULL), 0);
	print_message("cct %lu points, brute %lu points: %.1fx\n", c->a.points, b->a.points,
		      (double)b->a.points / (double)c->a.points);
	assert_true(c->a.points * 10 < b->a.points);
	world_free(c);
	world_free(b);
}

static void test_causal_noise_no_false_causes(void **state)
{
	for (unsigned seed = 0; seed < 4; seed++) {
		struct world *w = world_new(0.04, true, 5);

		(void)state;
		w->p->seed = 100 + seed;
		w->f.next_id = seed * 1000000;
		assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
		assert_false(mentions(&w->a, "flows"));
		assert_false(mentions(&w->a, "traffic_class"));
		assert_non_null(find_cause(&w->a, "qps", "page_size"));
		world_free(w);
	}
}

/* A degradation right at the threshold with few repeats: the report says so. */
static void test_causal_reports_too_few_repeats(void **state)
{
	bool said = false;

	(void)state;
	for (unsigned k = 0; k < 6 && !said; k++) {
		struct world *w = world_new(0.08, false, 2);

		w->f.mask_k = 0.0034 + 0.0002 * k; /* 32 masks: ~-10% */
		w->p->seed = 7 + k;
		assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
		if (getenv("CAUSAL_DEBUG"))
			hx_analysis_print(&w->a, stderr);
		for (unsigned i = 0; i < w->a.n_notes; i++)
			said |= strstr(w->a.notes[i], "more repeats needed") != NULL;
		for (unsigned i = 0; i < w->a.n_causes; i++)
			said |= w->a.causes[i].undecided;
		world_free(w);
	}
	assert_true(said);
}

static void test_causal_lsa_categorical_and_ordered(void **state)
{
	struct world *w = world_new(0.02, false, 5);
	struct gen_levels at;
	struct hx_lsa lsa;
	int masks = -1, tc = -1, flows = -1;

	(void)state;
	hx_levels_base(w->p, TOPO_VERB_WRITE, GEN_METRIC_BW, &at);
	gen_levels_set(&at, gen_dimension_find("server.decap_masks"), 16, NULL);
	gen_levels_set(&at, gen_dimension_find("flows"), 1024, NULL);
	gen_levels_set(&at, gen_dimension_find("traffic_class"), 3, NULL);
	assert_int_equal(hx_lsa_run(w->e, w->p, &w->o.baselines[0].r, &at, &lsa, NULL), 0);
	for (unsigned i = 0; i < lsa.n; i++) {
		const char *name = w->p->dims[lsa.d[i].dim].dim->name;

		if (!strcmp(name, "server.decap_masks") && lsa.d[i].to == 8)
			masks = (int)i;
		if (!strcmp(name, "traffic_class") && lsa.d[i].to == 0)
			tc = (int)i;
		if (!strcmp(name, "flows") && lsa.d[i].to == 64)
			flows = (int)i;
	}
	assert_true(masks >= 0 && tc >= 0 && flows >= 0);
	/* bw = 100/(1 + 0.02 m): elasticity at 8..16 = ln(1.16/1.32)/ln 2 = -0.186 */
	assert_true(fabs(lsa.d[masks].sens + 0.186) < 0.03);
	assert_true(lsa.d[masks].candidate);
	assert_true(lsa.d[masks].harm > 0);
	assert_true(lsa.d[tc].categorical && !lsa.d[tc].candidate);
	assert_true(lsa.d[tc].lo < 0 && lsa.d[tc].hi > 0);
	assert_false(lsa.d[flows].candidate);
	/* categorical away move goes to another category (7), never to a rounded number */
	for (unsigned i = 0; i < lsa.n; i++)
		if (lsa.d[i].categorical && lsa.d[i].to != 0)
			assert_true(lsa.d[i].to == 7);
	world_free(w);
}

static void test_causal_removal_orders(void **state)
{
	double sens[HX_PLAN_MAX_DIMS] = { 0.5, 0.1, 0.9, 0.3 };
	unsigned o0[HX_PLAN_MAX_DIMS], o1[HX_PLAN_MAX_DIMS], o2[HX_PLAN_MAX_DIMS];
	unsigned o3[HX_PLAN_MAX_DIMS], n;

	(void)state;
	hx_removal_order(0xf, sens, 0, 1, o0, &n);
	assert_int_equal(n, 4);
	assert_int_equal(o0[0], 1);
	assert_int_equal(o0[1], 3);
	assert_int_equal(o0[2], 0);
	assert_int_equal(o0[3], 2);
	hx_removal_order(0xf, sens, 1, 1, o1, &n);
	assert_int_equal(o1[0], 2);
	assert_int_equal(o1[3], 1);
	hx_removal_order(0xf, sens, 2, 1, o2, &n);
	hx_removal_order(0xf, sens, 2, 1, o3, &n);
	assert_memory_equal(o2, o3, 4 * sizeof(unsigned)); /* seeded: reproducible */
	unsigned seen = 0;
	for (unsigned i = 0; i < 4; i++)
		seen |= 1u << o2[i];
	assert_int_equal(seen, 0xf);                         /* a permutation */
}

static void test_causal_removal_keeps_pair(void **state)
{
	struct world *w = world_new(0.02, true, 5);
	struct gen_levels at;
	struct hx_removal rem;
	double sens[HX_PLAN_MAX_DIMS] = { 0 };

	(void)state;
	hx_levels_base(w->p, TOPO_VERB_WRITE, GEN_METRIC_BW, &at);
	gen_levels_set(&at, gen_dimension_find("qps"), 1024, NULL);
	gen_levels_set(&at, gen_dimension_find("page_size"), 4096, NULL);
	gen_levels_set(&at, gen_dimension_find("flows"), 4096, NULL);
	/* candidates: flows (1), qps (2), page_size (3) */
	assert_int_equal(hx_removal_run(w->e, w->p, &w->o.baselines[0].r, &at, 0xe, sens, 6, 3,
					&rem, NULL), 0);
	assert_int_equal(rem.n_orders, 6);
	assert_int_equal(rem.mode, 0xc);
	assert_int_equal(rem.mode_count, 6);
	assert_true(rem.confidence[2] == 1.0 && rem.confidence[3] == 1.0);
	assert_true(rem.confidence[1] == 0.0);
	hx_removal_release(&rem);
	world_free(w);
}

static void test_causal_axis_and_extreme(void **state)
{
	struct hx_plan *p = load_plan(3);
	double axis[HX_PLAN_MAX_LEVELS + 1];

	(void)state;
	assert_int_equal(hx_causal_axis(hx_plan_find_dim(p, "server.decap_masks"), axis), 7);
	assert_true(axis[0] == 0 && axis[6] == 32);
	assert_int_equal(hx_causal_axis(hx_plan_find_dim(p, "page_size"), axis), 3);
	assert_true(hx_causal_extreme(hx_plan_find_dim(p, "page_size")) == 2097152); /* not scale */
	assert_true(hx_causal_extreme(hx_plan_find_dim(p, "qps")) == 1024);
	assert_true(hx_causal_extreme(hx_plan_find_dim(p, "traffic_class")) == 0);
	hx_plan_free(p);
}

static void test_causal_repair(void **state)
{
	struct gen_levels l;

	(void)state;
	gen_levels_neutral(&l);
	l.masks[GEN_SERVER][GEN_DECAP] = 64;
	l.encap_contexts = 100;
	gen_levels_repair(&l);
	assert_int_equal(l.flows, 100);
	l.encap_contexts = 1;
	l.flows = 16;
	gen_levels_repair(&l);
	assert_int_equal(l.flows, 64);
}

static struct hx_cause a_cause(double effect, double lo, double hi, double conf)
{
	struct hx_cause c;

	memset(&c, 0, sizeof(c));
	c.verb = TOPO_VERB_WRITE;
	c.metric = GEN_METRIC_BW;
	c.n_members = 1;
	c.members[0] = gen_dimension_find("flows");
	c.effect = effect;
	c.effect_lo = lo;
	c.effect_hi = hi;
	c.confidence = conf;
	c.replicated = true;
	c.n_with = c.n_without = 5;
	return c;
}

/* A cause whose isolation point needs flows past a flows cause's wall acts through the
 * flows (4,096 encap contexts on 256 requested flows, the flows' wall at 3,024); one whose
 * point needs fewer (128 masks), or where the flows' wall lies beyond what it needs (7,512),
 * does not; nor does a cause of another (verb, metric). */
static void test_causal_cause_through_flows(void **state)
{
	struct hx_analysis *a = calloc(1, sizeof(*a));
	struct hx_cause *ctx, *masks, *other;

	(void)state;
	assert_non_null(a);
	a->causes[0] = a_cause(-0.89, -0.9, -0.88, 1.0); /* flows */
	a->causes[0].wall[0] = 3024;
	ctx = &a->causes[1];
	*ctx = a_cause(-0.88, -0.9, -0.86, 1.0);
	ctx->members[0] = gen_dimension_find("encap_contexts");
	gen_levels_neutral(&ctx->shown);
	ctx->shown.flows = 256;
	ctx->shown.encap_contexts = 4096;
	masks = &a->causes[2];
	*masks = *ctx;
	masks->members[0] = gen_dimension_find("server.decap_masks");
	masks->shown.encap_contexts = 1;
	gen_levels_set(&masks->shown, masks->members[0], 128, NULL);
	other = &a->causes[3];
	*other = *ctx;
	other->metric = GEN_METRIC_LAT;
	a->n_causes = 4;
	hx_analysis_mark_through(a);
	assert_string_equal(ctx->through, "flows");
	assert_string_equal(masks->through, "");
	assert_string_equal(other->through, ""); /* no flows cause of write latency */
	assert_string_equal(a->causes[0].through, "");
	a->causes[0].wall[0] = 7512;
	hx_analysis_mark_through(a);
	assert_string_equal(ctx->through, "");
	free(a);
}

/* The four rules, each alone, and the reasons a suspect carries. */
static void test_causal_support_rules(void **state)
{
	struct hx_plan *p = load_plan(5);
	struct hx_cause c = a_cause(-0.40, -0.45, -0.35, 1.0);
	char why[192];

	(void)state;
	assert_true(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_string_equal(why, "");
	c = a_cause(0.689, -0.804, 13.538, 0.5); /* the Soft-RoCE row of issue 19 */
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_non_null(strstr(why, "effect opposite to the symptom"));
	assert_non_null(strstr(why, "survives few orders (conf 0.50 < 0.75)"));
	c = a_cause(-0.30, -0.70, 0.20, 1.0);
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_string_equal(why, "interval spans zero [-70.0%, +20.0%]");
	c = a_cause(-0.06, -0.07, -0.05, 1.0);
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_string_equal(why, "effect below threshold (-6.0%, threshold 10%)");
	c = a_cause(-0.40, -0.45, -0.35, 1.0);
	c.replicated = false;
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_string_equal(why, "cure not replicated");
	/* every trial failed: failures speak, one of five is not significant */
	c = a_cause(NAN, NAN, NAN, 1.0);
	c.failed_with = 5;
	assert_true(hx_cause_supported(p, &c, why, sizeof(why)));
	c.failed_with = 1;
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_non_null(strstr(why, "failures not significant (1 of 5 failed"));
	p->min_confidence = 0.9;
	c = a_cause(-0.40, -0.45, -0.35, 0.875);
	assert_false(hx_cause_supported(p, &c, why, sizeof(why)));
	assert_string_equal(why, "survives few orders (conf 0.88 < 0.90)");
	hx_plan_free(p);
}

/* A replicate spoiled by one gross outlier (3 repeats: the interval spans zero) gets a
 * second look with more fresh trials, where the robust summary leaves the outlier out: the
 * cause stays a cause, and its replicate evidence shows the trials it took. */
static void test_causal_replicate_outlier_second_look(void **state)
{
	struct world *w = world_new(0.01, false, 3);
	const struct hx_cause *c;
	struct json_object *rep, *without, *n;

	(void)state;
	w->f.outlier = true;
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	if (getenv("CAUSAL_DEBUG"))
		hx_analysis_print(&w->a, stderr);
	c = find_cause(&w->a, "server.decap_masks", NULL);
	assert_non_null(c);
	assert_true(c->replicated);
	assert_int_equal(w->a.n_suspects, 0);
	assert_non_null(c->evidence);
	assert_true(json_object_object_get_ex(c->evidence, "replicate", &rep));
	assert_true(json_object_object_get_ex(rep, "without", &without));
	assert_true(json_object_object_get_ex(without, "n", &n));
	assert_int_equal(json_object_get_int(n), 6); /* 2 x the plan's 3 repeats */
	world_free(w);
}

/* A slowdown that fresh trials of the same point do not show is a suspect, not a cause; the
 * table, the JSON and the counts keep it apart. */
static void test_causal_unreplicated_cure_is_suspect(void **state)
{
	struct world *w = world_new(0.02, false, 5);
	struct json_object *causes, *suspects;
	char *text = NULL, *sus;
	size_t len = 0;
	FILE *mem;

	(void)state;
	w->f.transient = true;
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	if (getenv("CAUSAL_DEBUG"))
		hx_analysis_print(&w->a, stderr);
	assert_non_null(find_cause(&w->a, "server.decap_masks", NULL));
	assert_false(mentions(&w->a, "flows"));
	assert_int_equal(w->a.n_suspects, 1);
	assert_string_equal(w->a.suspects[0].members[0]->name, "flows");
	assert_string_equal(w->a.suspects[0].why, "cure not replicated");
	mem = open_memstream(&text, &len);
	hx_analysis_print(&w->a, mem);
	fclose(mem);
	sus = strstr(text, "Suspects");
	assert_non_null(sus);
	assert_non_null(strstr(sus, "cure not replicated"));
	assert_non_null(strstr(sus, " flows "));
	*sus = '\0';
	assert_null(strstr(text, " flows ")); /* not in the causes table */
	causes = hx_analysis_json(&w->a);
	suspects = hx_analysis_suspects_json(&w->a);
	assert_int_equal(json_object_array_length(causes), 1);
	assert_int_equal(json_object_array_length(suspects), 1);
	json_object_put(causes);
	json_object_put(suspects);
	free(text);
	world_free(w);
}

/* Noise that three repeats cannot see through: sequential testing (max_repeats) adds repeats
 * to the points it cannot decide, counts them, and the wall's cause comes out. */
static void test_causal_sequential_testing(void **state)
{
	struct world *w = world_new(0.08, false, 3);
	struct gen_levels base;
	double cost;

	hx_levels_base(w->p, TOPO_VERB_WRITE, GEN_METRIC_BW, &base);
	(void)state;
	w->p->max_repeats = 15;
	w->p->thresholds.looks = 5;
	w->p->thresholds.alpha = w->p->thresholds.significance / 5;
	/* the campaign measures the baseline with max_repeats when sequential testing is on */
	assert_int_equal(fake_point(&w->f, &base, "baseline", 0, 15, &w->o.baselines[0].r, &cost,
				    NULL), 0);
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	if (getenv("CAUSAL_DEBUG"))
		hx_analysis_print(&w->a, stderr);
	assert_true(w->a.seq.points > 0);
	assert_true(w->a.seq.trials >= 3 * w->a.seq.points);
	assert_true(w->a.seq.max_n > 3 && w->a.seq.max_n <= 15);
	assert_non_null(find_cause(&w->a, "server.decap_masks", NULL));
	assert_false(mentions(&w->a, "flows"));
	world_free(w);
}

/* A cause of a baseline that drifted by the check after the analysis is a suspect. */
static void test_causal_drifted_baseline_makes_suspects(void **state)
{
	struct world *w = world_new(0.02, false, 5);
	struct hx_drift *d = &w->o.drift[0];

	(void)state;
	assert_int_equal(hx_causal_run(w->e, w->p, &w->o, HX_STRATEGY_CCT, &w->a, NULL), 0);
	assert_int_equal(w->a.n_causes, 1);
	hx_analysis_mark_drift(&w->a, w->p, &w->o); /* no check: nothing moves */
	assert_int_equal(w->a.n_causes, 1);
	memset(d, 0, sizeof(*d));
	snprintf(d->after, sizeof(d->after), "analysis");
	d->check = 3;
	d->change = -0.45;
	d->p_value = 0.001;
	d->drifted = true;
	w->o.n_drift = 1;
	hx_analysis_mark_drift(&w->a, w->p, &w->o);
	assert_int_equal(w->a.n_causes, 0);
	assert_int_equal(w->a.n_suspects, 1);
	assert_non_null(strstr(w->a.suspects[0].why, "baseline drifted during the analysis (-45.0%"));
	world_free(w);
}

static bool has(const struct hx_analysis *a, const char *m1, const char *m2)
{
	return find_cause(a, m1, m2) != NULL;
}

/* {masks, flows} and {qps, flows}: the first cause found is explained away with flows, so
 * the second showed nothing; members are restored one at a time and the second comes out.
 * brute force agrees. */
static void test_causal_causes_sharing_a_member(void **state)
{
	(void)state;
	for (int s = 0; s < 2; s++) {
		struct world *w = world_new(0.02, false, 5);

		w->f.shared = true;
		world_rebase(w);
		assert_int_equal(hx_causal_run(w->e, w->p, &w->o,
					       s ? HX_STRATEGY_BRUTE : HX_STRATEGY_CCT, &w->a, NULL), 0);
		if (getenv("CAUSAL_DEBUG"))
			hx_analysis_print(&w->a, stderr);
		assert_true(has(&w->a, "server.decap_masks", "flows"));
		assert_true(has(&w->a, "qps", "flows"));
		assert_int_equal(w->a.n_causes, 2);
		world_free(w);
	}
}

/* 256 QPs with 4K pages cap the bandwidth at 50, but the mask wall caps it lower at the
 * stress point, so small pages change nothing there: once the mask cause is removed, the
 * context is probed again and the second cause comes out. brute force agrees. */
static void test_causal_cause_hidden_behind_another(void **state)
{
	(void)state;
	for (int s = 0; s < 2; s++) {
		struct world *w = world_new(0.02, false, 5);

		w->f.hidden = true;
		world_rebase(w);
		assert_int_equal(hx_causal_run(w->e, w->p, &w->o,
					       s ? HX_STRATEGY_BRUTE : HX_STRATEGY_CCT, &w->a, NULL), 0);
		if (getenv("CAUSAL_DEBUG"))
			hx_analysis_print(&w->a, stderr);
		assert_true(has(&w->a, "server.decap_masks", NULL));
		assert_true(has(&w->a, "qps", "page_size"));
		assert_false(mentions(&w->a, "flows"));
		assert_int_equal(w->a.n_causes, 2);
		world_free(w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_causal_cct_finds_wall_and_interaction),
		cmocka_unit_test(test_causal_cct_no_interaction_one_cause),
		cmocka_unit_test(test_causal_strategies_agree),
		cmocka_unit_test(test_causal_cct_cheaper_than_brute),
		cmocka_unit_test(test_causal_noise_no_false_causes),
		cmocka_unit_test(test_causal_reports_too_few_repeats),
		cmocka_unit_test(test_causal_lsa_categorical_and_ordered),
		cmocka_unit_test(test_causal_removal_orders),
		cmocka_unit_test(test_causal_removal_keeps_pair),
		cmocka_unit_test(test_causal_axis_and_extreme),
		cmocka_unit_test(test_causal_repair),
		cmocka_unit_test(test_causal_support_rules),
		cmocka_unit_test(test_causal_unreplicated_cure_is_suspect),
		cmocka_unit_test(test_causal_replicate_outlier_second_look),
		cmocka_unit_test(test_causal_sequential_testing),
		cmocka_unit_test(test_causal_drifted_baseline_makes_suspects),
		cmocka_unit_test(test_causal_causes_sharing_a_member),
		cmocka_unit_test(test_causal_cause_hidden_behind_another),
		cmocka_unit_test(test_causal_cause_through_flows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
