/* SPDX-License-Identifier: MIT */
/*
 * test-results-analysis: unit tests of results/ (res.h) for what a campaign concluded:
 * symptoms and causes (stored, listed, cleared), the model inputs its causes name and the
 * dimension its model phase moved, and the exact CSV export text. The store itself is
 * tested in test-results.c; the fixture is res-test-util.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/res.h"
#include "tests/res-test-util.h"

/* ---- symptoms and causes ---------------------------------------------------------------- */

static int see_symptom(const struct res_symptom *s, void *ctx)
{
	struct res_symptom *out = ctx;

	out[out[0].id == 0 ? 0 : 1] = *s;
	return 0;
}

static int count_cause(const struct res_cause *c, void *ctx)
{
	struct res_cause *last = ctx;

	last->id++;
	last->wall_level = c->wall_level;
	snprintf(last->members, sizeof(last->members), "%s", c->members);
	last->confidence = c->confidence;
	last->symptom = c->symptom;
	return 0;
}

static void test_results_symptoms_causes_clear(void **state)
{
	struct fx *f = opened(state);
	int64_t a = add_campaign(f->db, "a", "t"), b = add_campaign(f->db, "b", "t"), p;
	struct res_symptom s = { .campaign = a, .level = 4096, .last_good = 2048,
				 .effect = -0.47, .p_value = 0.001 }, got[2] = { 0 };
	struct res_cause c = { .campaign = a, .wall_level = 4096, .effect = -0.47,
			       .effect_lo = -0.5, .effect_hi = -0.44, .confidence = 0.8 };
	struct res_cause seen = { 0 };

	assert_int_equal(res_point_upsert(f->db, a, "p", "{}", "", "", &p, &f->err), 0);
	s.point = p;
	snprintf(s.kind, sizeof(s.kind), "bw_drop");
	snprintf(s.class_, sizeof(s.class_), "S6");
	snprintf(s.verb, sizeof(s.verb), "write");
	snprintf(s.dimension, sizeof(s.dimension), "server.decap_masks");
	snprintf(s.detail, sizeof(s.detail), "wall at 4096 masks");
	assert_int_equal(res_symptom_put(f->db, &s, &f->err), 0);
	assert_int_equal(s.id, 1);
	c.symptom = s.id;
	snprintf(c.members, sizeof(c.members), "server.decap_masks,flows");
	snprintf(c.trial_ids, sizeof(c.trial_ids), "3,4,9");
	assert_int_equal(res_cause_put(f->db, &c, &f->err), 0);
	struct res_symptom sb = { .campaign = b };
	snprintf(sb.kind, sizeof(sb.kind), "timeout");
	assert_int_equal(res_symptom_put(f->db, &sb, &f->err), 0);
	struct res_cause cb = { .campaign = b, .symptom = sb.id, .confidence = 1.0 };
	assert_int_equal(res_cause_put(f->db, &cb, &f->err), 0);

	assert_int_equal(res_symptom_each(f->db, a, see_symptom, got, &f->err), 0);
	assert_int_equal(got[0].id, s.id);
	assert_int_equal(got[1].id, 0); /* only one in campaign a */
	assert_int_equal(got[0].campaign, a);
	assert_int_equal(got[0].point, p);
	assert_string_equal(got[0].kind, "bw_drop");
	assert_string_equal(got[0].class_, "S6");
	assert_string_equal(got[0].verb, "write");
	assert_string_equal(got[0].dimension, "server.decap_masks");
	assert_true(got[0].level == 4096 && got[0].last_good == 2048);
	assert_true(got[0].effect == -0.47 && got[0].p_value == 0.001);
	assert_string_equal(got[0].detail, "wall at 4096 masks");

	assert_int_equal(res_cause_each(f->db, a, count_cause, &seen, &f->err), 0);
	assert_int_equal(seen.id, 1);
	assert_int_equal(seen.symptom, s.id);
	assert_string_equal(seen.members, "server.decap_masks,flows");
	assert_true(seen.wall_level == 4096 && seen.confidence == 0.8);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(res_cause_each(f->db, 0, count_cause, &seen, &f->err), 0);
	assert_int_equal(seen.id, 2);

	assert_int_equal(res_analysis_clear(f->db, a, &f->err), 0);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(res_cause_each(f->db, 0, count_cause, &seen, &f->err), 0);
	assert_int_equal(seen.id, 1); /* campaign b's cause stays */
	assert_int_equal(seen.symptom, sb.id);
	memset(got, 0, sizeof(got));
	assert_int_equal(res_symptom_each(f->db, a, see_symptom, got, &f->err), 0);
	assert_int_equal(got[0].id, 0);
	assert_int_equal(res_symptom_each(f->db, b, see_symptom, got, &f->err), 0);
	assert_int_equal(got[0].id, sb.id);
}

/* ---- CSV -------------------------------------------------------------------------------- */

static void test_results_csv_export_exact(void **state)
{
	struct fx *f = opened(state);
	int64_t c = add_campaign(f->db, "a", "t"), other = add_campaign(f->db, "b", "t");
	int64_t p1, p2, p3;
	struct res_trial t;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	assert_int_equal(res_point_upsert(f->db, c, "p1", "{\"flows\": 1024, \"verb\": \"write\"}",
					  "", "", &p1, &f->err), 0);
	assert_int_equal(res_point_upsert(f->db, c, "p2",
					  "{\"flows\": 2048, \"mtu\": 4096, \"note\": \"a,b\"}", "",
					  "", &p2, &f->err), 0);
	assert_int_equal(res_point_upsert(f->db, other, "p3", "{\"qps\": 8}", "", "", &p3,
					  &f->err), 0);
	t = mk_trial(c, p1, "k1", 92.5, 0.5);
	t.sample.msg_rate_mpps = 2.75;
	t.sample.lat_median_us = 1.5;
	t.sample.lat_p99_us = 2.25;
	snprintf(t.sample.counters_json, sizeof(t.sample.counters_json),
		 "{\"rx_steer_missed_packets\":12,\"tx\":\"x\"}");
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	t = mk_trial(other, p3, "z9", 1, 1); /* another campaign: no row, no qps column */
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);
	t = mk_trial(c, p2, "k2", 0.1, 1.25);
	snprintf(t.metric, sizeof(t.metric), "lat");
	snprintf(t.sample.status, sizeof(t.sample.status), "timeout");
	t.repeat = 1;
	t.sample.lat_median_us = 3.125;
	t.sample.lat_p99_us = 10;
	assert_int_equal(res_trial_put(f->db, &t, &f->err), 0);

	mem = open_memstream(&text, &len);
	assert_non_null(mem);
	assert_int_equal(res_export_csv(f->db, c, mem, &f->err), 0);
	fclose(mem);
	assert_string_equal(text,
		"trial_id,campaign,key,verb,metric,repeat,status,bw_gbps,msg_rate_mpps,"
		"lat_median_us,lat_p99_us,cost_s,flows,mtu,note,level.verb,counters\n"
		"1,1,k1,write,bw,0,ok,92.5,2.75,1.5,2.25,0.5,1024,,,write,"
		"\"{\"\"rx_steer_missed_packets\"\":12,\"\"tx\"\":\"\"x\"\"}\"\n"
		"3,1,k2,write,lat,1,timeout,0.1,0,3.125,10,1.25,2048,4096,\"a,b\",,{}\n");
	free(text);

	/* All campaigns: the qps column appears and the other campaign's row is there. */
	mem = open_memstream(&text, &len);
	assert_non_null(mem);
	assert_int_equal(res_export_csv(f->db, 0, mem, &f->err), 0);
	fclose(mem);
	assert_non_null(strstr(text, ",note,qps,level.verb,counters\n"));
	assert_non_null(strstr(text, "\n2,2,z9,write,bw,0,ok,1,0,0,0,1,,,,8,,{}\n"));
	free(text);
}

/* The model inputs a campaign's causes name: strongest first (|effect| x confidence summed
 * over the causes), other verbs and metrics ignored, causes with context members (listed in
 * the detail's "contexts=": they act at another message size than the model's) and causes
 * acting through the flows ("through=flows") left out. */
static void put_cause(struct fx *f, int64_t campaign, const char *members, double effect,
		      const char *detail)
{
	struct res_symptom s = { .campaign = campaign };
	struct res_cause c = { .campaign = campaign, .effect = effect, .confidence = 1.0 };

	snprintf(s.kind, sizeof(s.kind), "bw_drop");
	assert_int_equal(res_symptom_put(f->db, &s, &f->err), 0);
	c.symptom = s.id;
	snprintf(c.members, sizeof(c.members), "%s", members);
	snprintf(c.detail, sizeof(c.detail), "%s", detail);
	assert_int_equal(res_cause_put(f->db, &c, &f->err), 0);
}

static void test_results_cause_dimensions_leave_contexts_out(void **state)
{
	struct fx *f = opened(state);
	int64_t a = add_campaign(f->db, "a", "t");
	char names[4][64];
	unsigned n = 0;

	put_cause(f, a, "qps,cores,msg_size", -0.41,
		  "verb=write; metric=bw; strategy=cct; kind=bw_drop; class=S6; walls=x; "
		  "contexts=msg_size");
	put_cause(f, a, "server.decap_masks", -0.30, "verb=write; metric=bw; strategy=cct");
	put_cause(f, a, "flows", -0.90, "verb=read; metric=bw; strategy=cct");
	put_cause(f, a, "flows,server.decap_masks", -0.20, "verb=write; metric=bw; strategy=cct");
	put_cause(f, a, "encap_contexts", -0.95,
		  "verb=write; metric=bw; strategy=cct; kind=sw_fallback; class=S1; "
		  "walls=encap_contexts@3024(ok 2896); through=flows");
	assert_int_equal(res_cause_dimensions(f->db, a, "write", "bw", 4, names, &n, &f->err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "server.decap_masks"); /* 0.30 + 0.20 */
	assert_string_equal(names[1], "flows");
}

/* The dimensions a model phase's points of one (verb, metric) moved besides the designed
 * one: the flows a repaired point needed for its encap contexts; not the rule layout, not
 * another (verb, metric)'s points, not another phase's. */
static void test_results_model_varied_names_repaired_dimension(void **state)
{
#define PT(key, rest, phase) { key, "{\"verb\":\"send\"," rest "}", phase }
	static const char *const pts[][3] = {
		PT("m1", "\"metric\":\"bw\",\"encap_contexts\":1,\"flows\":256,\"layout\":1", "model"),
		PT("m2", "\"metric\":\"bw\",\"encap_contexts\":147,\"flows\":256,\"layout\":2",
		   "model"),
		PT("m3", "\"metric\":\"bw\",\"encap_contexts\":1024,\"flows\":1024", "model"),
		PT("m4", "\"metric\":\"lat\",\"encap_contexts\":1,\"qps\":4", "model"),
		PT("m5", "\"metric\":\"lat\",\"encap_contexts\":1,\"qps\":8", "model"),
		PT("s1", "\"metric\":\"bw\",\"encap_contexts\":1,\"cores\":8", "sweep"),
	};
#undef PT
	struct fx *f = opened(state);
	int64_t a = add_campaign(f->db, "a", "t"), id;
	char names[4][64];
	unsigned n = 9;

	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++)
		assert_int_equal(res_point_upsert(f->db, a, pts[i][0], pts[i][1], "", pts[i][2], &id,
						  &f->err), 0);
	assert_int_equal(res_model_varied(f->db, a, "send", "bw", "encap_contexts", 4, names, &n,
					  &f->err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "flows");
	assert_int_equal(res_model_varied(f->db, a, "send", "lat", "encap_contexts", 4, names, &n,
					  &f->err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "qps");
	assert_int_equal(res_model_varied(f->db, a, "read", "bw", "encap_contexts", 4, names, &n,
					  &f->err), 0);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_results_symptoms_causes_clear),
		T(test_results_cause_dimensions_leave_contexts_out),
		T(test_results_model_varied_names_repaired_dimension),
		T(test_results_csv_export_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
