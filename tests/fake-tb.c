/* SPDX-License-Identifier: MIT */
/*
 * fake-tb: a testbed whose numbers a test chooses (see fake-tb.h).
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

#include "generators/gen.h"
#include "tests/fake-tb.h"

static int fake_describe(struct tb *tb, struct tb_description *d, struct scn_error *err)
{
	(void)tb;
	(void)err;
	memset(d, 0, sizeof(*d));
	snprintf(d->kind, sizeof(d->kind), "fake");
	snprintf(d->rnic_model, sizeof(d->rnic_model), "fake RNIC");
	snprintf(d->firmware, sizeof(d->firmware), "0");
	snprintf(d->identity, sizeof(d->identity), "fake");
	d->line_rate_gbps = 100;
	return 0;
}

static int fake_apply(struct tb *tb, const struct gen_rules *rules, struct scn_error *err)
{
	(void)tb;
	(void)rules;
	(void)err;
	return 0;
}

static int fake_measure(struct tb *tb, const struct gen_traffic *t, uint64_t seed,
			struct tb_sample *out, struct scn_error *err)
{
	struct fake_tb *f = (struct fake_tb *)tb;
	struct gen_rng rng;
	enum tb_status st = TB_OK;
	double u, z, v;

	(void)err;
	gen_rng_seed(&rng, seed);
	u = gen_rng_uniform(&rng);
	z = gen_rng_normal(&rng);
	v = f->fn(f, t, u, z, &st);
	f->calls++;
	memset(out, 0, sizeof(*out));
	out->status = st;
	out->bw_gbps = out->msg_rate_mpps = out->lat_median_us = out->lat_p99_us = NAN;
	if (t->metric == GEN_METRIC_LAT)
		out->lat_median_us = out->lat_p99_us = v;
	else
		out->bw_gbps = v;
	out->cost_s = 1;
	return 0;
}

static const struct tb_ops fake_ops = {
	.kind = "fake",
	.describe = fake_describe,
	.apply = fake_apply,
	.measure = fake_measure,
};

void fake_tb_init(struct fake_tb *f, fake_tb_fn fn, double cv, int mode)
{
	memset(f, 0, sizeof(*f));
	f->base.ops = &fake_ops;
	f->fn = fn;
	f->cv = cv;
	f->mode = mode;
}

void fake_campaign_open(struct fake_campaign *c, struct fake_tb *f, const char *plan_text)
{
	char plan[128], msg[512];
	struct res_campaign rc = { .seed = 1 };
	struct scn_error err;
	FILE *out;

	memset(c, 0, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "/tmp/scalacn-fake-XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	snprintf(plan, sizeof(plan), "%s/plan.yaml", c->dir);
	out = fopen(plan, "w");
	assert_non_null(out);
	fputs(plan_text, out);
	fclose(out);
	if (hx_plan_load(plan, &c->plan, &err))
		fail_msg("%s", scn_error_format(&err, msg, sizeof(msg)));
	snprintf(c->path, sizeof(c->path), "%s/fake.db", c->dir);
	assert_int_equal(res_open(c->path, true, &c->db, &err), 0);
	assert_int_equal(res_campaign_insert(c->db, &rc, &err), 0);
	hx_runner_init(&c->r);
	c->r.tb = &f->base;
	assert_int_equal(tb_describe(&f->base, &c->r.desc, &err), 0);
	c->r.db = c->db;
	c->r.campaign = rc.id;
	c->r.seed = c->plan->seed;
	c->r.repeats = c->plan->repeats;
	c->r.stop_after_failures = c->plan->stop_after_failures;
	c->o = calloc(1, sizeof(*c->o));
	assert_non_null(c->o);
	c->o->campaign = rc.id;
}

void fake_campaign_walls(struct fake_campaign *c)
{
	struct scn_error err;
	char msg[512];

	scn_error_clear(&err);
	if (hx_phase_baseline(&c->r, c->plan, c->o, &err) ||
	    hx_phase_walls(&c->r, c->plan, c->o, &err))
		fail_msg("%s", scn_error_format(&err, msg, sizeof(msg)));
}

void fake_campaign_drift(struct fake_campaign *c, const char *after)
{
	struct scn_error err;
	char msg[512];

	scn_error_clear(&err);
	if (hx_phase_drift(&c->r, c->plan, c->o, after, &err))
		fail_msg("%s", scn_error_format(&err, msg, sizeof(msg)));
}

void fake_campaign_close(struct fake_campaign *c)
{
	char cmd[128];

	hx_runner_release(&c->r);
	res_close(c->db);
	hx_plan_free(c->plan);
	free(c->o);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", c->dir);
	assert_int_equal(system(cmd), 0);
}
