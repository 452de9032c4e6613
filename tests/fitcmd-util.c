/* SPDX-License-Identifier: MIT */
/*
 * fitcmd-util: shared helpers of the test-fitcmd*.c tests (see fitcmd-util.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <sqlite3.h>

#include "generators/gen.h"
#include "harness/fit/hx_fit.h"
#include "optimiser/scalacn-opt.h"
#include "results/res.h"
#include "results/res_models.h"

#include "tests/fitcmd-util.h"


int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "%s/scn-fitcmd-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->db_path, sizeof(f->db_path), "%s/results.db", f->dir);
	snprintf(f->out, sizeof(f->out), "%s/model.db", f->dir);
	assert_int_equal(res_open(f->db_path, true, &f->db, &f->err), 0);
	*state = f;
	return 0;
}

int fx_teardown(void **state)
{
	struct fx *f = *state;
	char cmd[400];

	res_close(f->db);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* ---- Building stores ------------------------------------------------------------------ */

int64_t add_campaign(struct fx *f, const char *rnic, const char *fw)
{
	struct res_campaign c;

	memset(&c, 0, sizeof(c));
	snprintf(c.rnic_model, sizeof(c.rnic_model), "%s", rnic);
	snprintf(c.firmware, sizeof(c.firmware), "%s", fw);
	snprintf(c.plan_path, sizeof(c.plan_path), "test-fitcmd");
	assert_int_equal(res_campaign_insert(f->db, &c, &f->err), 0);
	return c.id;
}


void put_trial(struct fx *f, int64_t camp, const struct trial_spec *s)
{
	put_trial_layout(f, camp, s, 0);
}

void put_trial_layout(struct fx *f, int64_t camp, const struct trial_spec *s, unsigned lay)
{
	char levels[512], pkey[64], layout[32] = "";
	struct res_trial t;
	int64_t point;

	if (lay) /* as hx_point_json writes it: only when not 0 */
		snprintf(layout, sizeof(layout), "\"layout\":%u,", lay);
	snprintf(levels, sizeof(levels),
		 "{\"client.encap_masks\":%u,\"client.decap_masks\":%u,\"server.encap_masks\":%u,"
		 "\"server.decap_masks\":%u,\"flows\":%u,\"msg_size\":%u,\"qps\":1,"
		 "\"verb\":\"%s\",%s\"metric\":\"%s\"}", s->cen, s->cde, s->sen, s->sde, s->flows,
		 s->msg_size, s->verb, layout, s->metric);
	snprintf(pkey, sizeof(pkey), "%016" PRIx64, gen_hash64(levels, strlen(levels), 7));
	assert_int_equal(res_point_upsert(f->db, camp, pkey, levels, "", "test", &point, &f->err), 0);
	memset(&t, 0, sizeof(t));
	t.campaign = camp;
	t.point = point;
	snprintf(t.key, sizeof(t.key), "k%08u", f->n_trials++);
	snprintf(t.verb, sizeof(t.verb), "%s", s->verb);
	snprintf(t.metric, sizeof(t.metric), "%s", s->metric);
	snprintf(t.sample.status, sizeof(t.sample.status), "%s", s->status);
	if (!strcmp(s->metric, "bw"))
		t.sample.bw_gbps = s->value;
	else
		t.sample.lat_median_us = s->value;
	snprintf(t.sample.counters_json, sizeof(t.sample.counters_json), "{}");
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
}

const unsigned grid_x[NX] = { 0, 5, 10, 20, 40 };
const unsigned grid_y[NY] = { 0, 5, 10, 20, 40, 80 };

double syn_bw(double x, double y)
{
	return 120.0 * exp(-(x * x + y * y) / (2 * 30.0 * 30.0)) + 40.0;
}

double syn_lat(double x, double y)
{
	return 2.7 + 0.04 * x + 0.09 * y;
}

/* The synthetic store: SYN-1 (known curves + pollution) and OTHER (junk). */
int64_t build_synthetic(struct fx *f)
{
	int64_t c = add_campaign(f, "SYN-1", "1.0"), o = add_campaign(f, "OTHER", "9.9");
	struct gen_rng rng;

	gen_rng_seed(&rng, 42);
	for (size_t i = 0; i < NX; i++)
		for (size_t j = 0; j < NY; j++)
			for (int r = 0; r < 3; r++) {
				/* x split over client encap/decap, y over server ones. */
				unsigned x = grid_x[i], y = grid_y[j];
				struct trial_spec b = { "send", "bw", "ok", x / 2, x - x / 2, y / 4,
							y - y / 4, 128, 8388608,
							syn_bw(x, y) * (1 + 0.01 * gen_rng_normal(&rng)) };
				struct trial_spec l = { "send", "lat", "ok", x, 0, 0, y, 128, 2,
							syn_lat(x, y) + 0.02 * gen_rng_normal(&rng) };

				put_trial(f, c, &b);
				put_trial(f, c, &l);
			}
	/* Pollution: another flows setting (4 ok trials), failures, another RNIC. */
	for (unsigned k = 0; k < 4; k++) {
		struct trial_spec p = { "send", "bw", "ok", 5 * k, 0, 0, 0, 64, 8388608, 5.0 };
		struct trial_spec t = { "send", "bw", "timeout", 5 * k, 0, 0, 40, 128, 8388608, 0 };
		struct trial_spec j = { "send", "bw", "ok", k, 0, 0, k, 128, 8388608, 999.0 };

		put_trial(f, c, &p);
		if (k < 3)
			put_trial(f, c, &t);
		put_trial(f, o, &j);
	}
	return c;
}

const struct hx_fit_data *find_group(const struct hx_fit_set *s, const char *rnic,
					    const char *verb, const char *metric)
{
	for (size_t i = 0; i < hx_fit_set_count(s); i++) {
		const struct hx_fit_data *d = hx_fit_set_at(s, i);

		if (!strcmp(d->rnic_model, rnic) && !strcmp(d->verb, verb) &&
		    !strcmp(d->metric, metric))
			return d;
	}
	return NULL;
}


int collect_model(const struct res_model *m, void *ctx)
{
	struct found *fd = ctx;

	if (fd->n < 16)
		fd->m[fd->n++] = *m;
	return 0;
}

const struct res_model *model_of(const struct found *fd, const char *verb,
					const char *metric)
{
	for (size_t i = fd->n; i-- > 0;)
		if (!strcmp(fd->m[i].verb, verb) && !strcmp(fd->m[i].metric, metric))
			return &fd->m[i];
	return NULL;
}

void params_of(const struct res_model *m, double *p, size_t n)
{
	struct json_object *a = json_tokener_parse(m->params_json);

	assert_non_null(a);
	assert_int_equal(json_object_array_length(a), n);
	for (size_t i = 0; i < n; i++)
		p[i] = json_object_get_double(json_object_array_get_idx(a, i));
	json_object_put(a);
}

double quality_of(const struct res_model *m, const char *key)
{
	struct json_object *q = json_tokener_parse(m->quality_json), *v = NULL;
	double r;

	assert_non_null(q);
	assert_true(json_object_object_get_ex(q, key, &v));
	r = json_object_get_double(v);
	json_object_put(q);
	return r;
}

int run(int (*cmd)(int, char **), char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	fflush(stdout);
	return cmd(argc, argv);
}

