/* SPDX-License-Identifier: MIT */
/*
 * causal-fake-util: the fake testbed and helpers of the causal-analysis tests
 * (causal-fake-util.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/causal-fake-util.h"

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
	gen_rng_seed(&rng, gen_hash64(text, strlen(text), 1000 + r + 1000003ull * f->noise_seed));
	return bw * (1.0 + f->cv * gen_rng_normal(&rng));
}

int fake_point(void *ctx, const struct gen_levels *l, const char *phase, int first,
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

struct hx_plan *load_plan(unsigned repeats)
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

struct world *world_new(double cv, bool interaction, unsigned repeats)
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
void world_rebase(struct world *w)
{
	struct gen_levels base;
	double cost;

	hx_levels_base(w->p, TOPO_VERB_WRITE, GEN_METRIC_BW, &base);
	memset(&w->o.baselines[0].r, 0, sizeof(w->o.baselines[0].r));
	assert_int_equal(fake_point(&w->f, &base, "baseline", 0, 0, &w->o.baselines[0].r, &cost,
				    NULL), 0);
}

void world_free(struct world *w)
{
	hx_analysis_release(&w->a);
	hx_eval_free(w->e);
	hx_plan_free(w->p);
	free(w);
}

const struct hx_cause *find_cause(const struct hx_analysis *a, const char *m1,
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

bool mentions(const struct hx_analysis *a, const char *dim)
{
	for (unsigned i = 0; i < a->n_causes; i++)
		for (unsigned k = 0; k < a->causes[i].n_members; k++)
			if (!strcmp(a->causes[i].members[k]->name, dim))
				return true;
	return false;
}

void check_truth(const struct hx_analysis *a, bool interaction)
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

struct hx_cause a_cause(double effect, double lo, double hi, double conf)
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

bool has(const struct hx_analysis *a, const char *m1, const char *m2)
{
	return find_cause(a, m1, m2) != NULL;
}
