/* SPDX-License-Identifier: MIT */
/*
 * test-walls: walls that hold up (harness/campaign/hx_walls.c, hx_wall_shape.c) on a fake
 * testbed whose curve the test chooses: a knee is a wall, bisected; a symptom that does not
 * persist at the levels above is a blip, not a wall; a curve falling from the first level is
 * a slope (effect per doubling), not a wall at its first crossing; one failed trial of three
 * is no wall; trials that all failed are a failure rate, never -100%; a 0 Gb/s trial is
 * unusable, not ok. Also the noise decisions (a testbed too noisy for the plan, sequential
 * testing) and drift (the baseline measured again after a phase).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/fake-tb.h"

enum mode { KNEE, BLIP, SLOPE, ONE_FAIL, ALL_FAIL, ZERO, KNEE20, DRIFT };

static double curve(const struct fake_tb *f, const struct gen_traffic *t, double u, double z,
		    enum tb_status *status)
{
	double q = t->qps, bw = 100;

	switch (f->mode) {
	case KNEE: bw = q > 300 ? 50 : 100; break;
	case BLIP: bw = q == 64 ? 80 : 100; break;
	case SLOPE: bw = 100 * pow(q, -0.1); break;  /* -6.7% per doubling from the start */
	case ONE_FAIL:
		if (q >= 256 && u < 0.34)
			*status = TB_TIMEOUT;
		break;
	case ALL_FAIL:
		if (q >= 256)
			*status = TB_TIMEOUT;
		break;
	case ZERO: bw = q >= 256 ? 0 : 100; break;
	case KNEE20: bw = q > 300 ? 80 : 100; break;
	case DRIFT: bw = f->calls < 6 ? 100 : 50; break; /* halves for good after 6 trials */
	}
	return bw * (1 + f->cv * z);
}

#define PLAN(levels) \
	"name: walls\nseed: 5\nrepeats: 3\nverbs: [write]\nmetrics: [bw]\n" \
	"dimensions:\n  - name: qps\n    levels: " levels "\n"

static const struct hx_wall *walls_of(struct fake_campaign *c, struct fake_tb *f, int mode,
				      double cv, const char *plan)
{
	fake_tb_init(f, curve, cv, mode);
	fake_campaign_open(c, f, plan);
	fake_campaign_walls(c);
	assert_int_equal(c->o->n_walls, 1);
	return &c->o->walls[0];
}

static void test_walls_knee_is_bisected(void **state)
{
	struct fake_campaign c;
	struct fake_tb f;
	const struct hx_wall *w = walls_of(&c, &f, KNEE, 0.005, PLAN("[16, 64, 256, 1024]"));

	(void)state;
	assert_true(w->found && !w->slope);
	assert_true(w->last_good <= 300 && w->level > 300 && w->level <= 1.05 * w->last_good + 1);
	assert_true(w->effect < -0.45);
	fake_campaign_close(&c);
}

/* A "wall" at 64 where 256 and 1024 measure the baseline is not a wall. */
static void test_walls_blip_does_not_persist(void **state)
{
	struct fake_campaign c;
	struct fake_tb f;
	const struct hx_wall *w = walls_of(&c, &f, BLIP, 0.005, PLAN("[16, 64, 256, 1024]"));

	(void)state;
	assert_false(w->found);
	assert_false(w->slope);
	assert_true(w->max_tried == 1024);
	assert_non_null(strstr(w->note, "not a wall at 64: the symptom does not persist at 256"));
	fake_campaign_close(&c);
}

/* -6.7% per doubling from the first level: a slope with its effect per doubling, not a wall
 * at the first level where the drop passes 10%. */
static void test_walls_slope_without_knee(void **state)
{
	struct fake_campaign c;
	struct fake_tb f;
	const struct hx_wall *w = walls_of(&c, &f, SLOPE, 0.01,
					   PLAN("[2, 4, 8, 16, 32, 64, 128, 256]"));

	(void)state;
	assert_false(w->found);
	assert_true(w->slope);
	assert_true(fabs(w->slope_per_doubling - (pow(2, -0.1) - 1)) < 0.01);
	assert_true(w->slope_lo <= w->slope_per_doubling && w->slope_per_doubling <= w->slope_hi);
	assert_true(w->crossing > 2 && w->crossing < 4); /* 100 x^-0.1 = 90 at x = 2.87 */
	assert_string_equal(w->kind, "bw_drop");
	fake_campaign_close(&c);
}

/* One timeout in three at the top levels, not significant (sequential testing off): no wall,
 * and the note says so. */
static void test_walls_one_failure_is_no_wall(void **state)
{
	struct fake_campaign c;
	struct fake_tb f;
	const struct hx_wall *w = walls_of(&c, &f, ONE_FAIL, 0.005,
					   PLAN("[16, 256, 1024]") "max_repeats: 3\n");

	(void)state;
	assert_false(w->found);
	assert_false(w->slope);
	fake_campaign_close(&c);
}

/* Every trial timed out: a wall of failures with its rate, no effect size. */
static void test_walls_failures_are_a_rate(void **state)
{
	struct fake_campaign c;
	struct fake_tb f;
	const struct hx_wall *w = walls_of(&c, &f, ALL_FAIL, 0.005, PLAN("[16, 256, 1024]"));

	(void)state;
	assert_true(w->found);
	assert_string_equal(w->kind, "timeout");
	assert_string_equal(w->class_, "S8");
	assert_true(isnan(w->effect)); /* not -100% */
	assert_int_equal(w->failed, w->n);
	assert_true(w->fail_hi == 1 && w->fail_lo > 0.29);
	assert_true(w->p_value < 0.05);
	fake_campaign_close(&c);
}

#define FAIL_PLAN(stop) \
	"name: walls\nseed: 5\nrepeats: 5\nverbs: [write]\nmetrics: [bw]\n" stop \
	"dimensions:\n  - name: qps\n    levels: [16, 256, 1024]\n"

/* Repeats of a point at qps Q asked for 5 on C's runner: the trials it took. */
static unsigned repeats_at(struct fake_campaign *c, struct fake_tb *f, uint32_t q)
{
	struct hx_point_result res;
	struct gen_levels l;
	struct scn_error err;
	unsigned long before = f->calls;

	gen_levels_neutral(&l);
	l.qps = q;
	l.metric = GEN_METRIC_BW;
	memset(&res, 0, sizeof(res));
	assert_int_equal(hx_point_extend(&c->r, &l, "test", 0, 5, &res, &err), 0);
	assert_int_equal(f->calls - before, res.n);
	assert_int_equal(hx_point_failing(&c->r, &res), res.n < 5);
	return res.n;
}

/* stop_after_failures: 3: a point whose first 3 repeats all timed out stops there, of the
 * plan's 5 (each more repeat would cost a whole timeout for the same verdict), and the wall
 * of failures is still found; a point with a success among them measures all 5. Without
 * the key (the default) a failing point measures all 5 too. */
static void test_failing_point_stops_early(void **state)
{
	struct fake_campaign c;
	struct fake_tb f;
	const struct hx_wall *w = walls_of(&c, &f, ALL_FAIL, 0.005,
					   FAIL_PLAN("stop_after_failures: 3\n"));

	(void)state;
	assert_int_equal(c.plan->stop_after_failures, 3);
	assert_true(w->found);
	assert_string_equal(w->kind, "timeout");
	assert_int_equal(w->n, 3);
	assert_int_equal(w->failed, 3);
	assert_int_equal(repeats_at(&c, &f, 2048), 3);
	assert_int_equal(repeats_at(&c, &f, 32), 5); /* never fails */
	fake_campaign_close(&c);
	w = walls_of(&c, &f, ALL_FAIL, 0.005, FAIL_PLAN(""));
	assert_int_equal(c.plan->stop_after_failures, 0);
	assert_true(w->found);
	assert_true(w->n >= 5);
	assert_int_equal(repeats_at(&c, &f, 2048), 5);
	fake_campaign_close(&c);
}

/* 0 Gb/s with status ok is unusable: nothing was measured there, so no wall (and no -100%
 * bandwidth); the wall's note says which levels could not be measured. */
static void test_walls_zero_is_unusable(void **state)
{
	struct fake_campaign c;
	struct fake_tb f;
	const struct hx_wall *w = walls_of(&c, &f, ZERO, 0.005, PLAN("[16, 256, 1024]"));

	(void)state;
	assert_false(w->found);
	assert_non_null(strstr(w->note, "every trial unusable"));
	assert_int_equal(w->failed, 0);
	fake_campaign_close(&c);
}

/* cv 50% between repeats against a 10% threshold: the campaign says the plan cannot decide
 * its own threshold, and how many repeats it would need. */
static void test_walls_noise_too_high_is_said(void **state)
{
	struct fake_campaign c;
	struct fake_tb f;

	(void)state;
	walls_of(&c, &f, KNEE, 0.5, PLAN("[16, 256, 1024]"));
	assert_true(c.o->noise[0].cv > 0.15);
	assert_true(c.o->noise[0].too_noisy);
	assert_true(c.o->noise[0].mde > 0.10);
	assert_true(c.o->noise[0].repeats_needed > 20);
	fake_campaign_close(&c);
	walls_of(&c, &f, KNEE, 0.005, PLAN("[16, 256, 1024]"));
	assert_false(c.o->noise[0].too_noisy);
	assert_true(c.o->noise[0].repeats_needed <= 3);
	fake_campaign_close(&c);
}

/* A -20% knee at cv 6%: three repeats cannot decide it (the interval straddles the 10%
 * threshold), so with sequential testing off there is no wall; with max_repeats the search
 * adds repeats until it can, and says how many it needed. */
static void test_walls_sequential_testing_decides(void **state)
{
	struct fake_campaign c;
	struct fake_tb f;
	const struct hx_wall *w;

	(void)state;
	w = walls_of(&c, &f, KNEE20, 0.06, PLAN("[16, 256, 1024]") "max_repeats: 3\n");
	assert_false(w->found);
	assert_non_null(strstr(w->note, "not decided at this noise: more repeats needed"));
	assert_int_equal(c.o->seq.points, 0);
	fake_campaign_close(&c);
	w = walls_of(&c, &f, KNEE20, 0.06, PLAN("[16, 256, 1024]") "max_repeats: 15\n");
	if (getenv("WALLS_DEBUG"))
		for (unsigned i = 0; i < c.o->n_walls; i++)
			fprintf(stderr, "found %d slope %d level %g good %g rep %u note %s\n",
				w->found, w->slope, w->level, w->last_good, w->repeats, w->note);
	assert_int_equal(c.plan->thresholds.looks, 5);
	assert_true(fabs(c.plan->thresholds.alpha - 0.01) < 1e-12); /* 0.05 over 5 looks */
	assert_true(w->found);
	assert_true(w->last_good <= 300 && w->level > 300);
	assert_true(w->repeats > 3 && w->repeats <= 15);
	assert_true(c.o->seq.points > 0 && c.o->seq.trials > 0);
	assert_true(c.o->seq.max_n == w->repeats);
	fake_campaign_close(&c);
}

/* The testbed halves its bandwidth for reasons of its own half-way through the sweep: the
 * sweep sees a "wall"; the baseline measured again after the wall search shows the drift, and
 * the wall is marked as judged against a drifted baseline. A steady testbed shows none. */
static void test_walls_drift_is_seen_and_marked(void **state)
{
	struct fake_campaign c;
	struct fake_tb f;
	const struct hx_wall *w;

	(void)state;
	w = walls_of(&c, &f, DRIFT, 0.005, PLAN("[16, 256]") "max_repeats: 3\n");
	assert_true(w->found); /* what drift alone makes of a sweep */
	assert_false(w->drifted);
	fake_campaign_drift(&c, "walls");
	assert_int_equal(c.o->n_drift, 1);
	assert_true(c.o->drift[0].drifted);
	assert_true(c.o->drift[0].change < -0.45);
	assert_string_equal(c.o->drift[0].after, "walls");
	assert_true(w->drifted);
	assert_true(hx_outcome_drift(c.o, 0, "walls") == &c.o->drift[0]);
	fake_campaign_close(&c);
	w = walls_of(&c, &f, KNEE, 0.005, PLAN("[16, 256, 1024]"));
	fake_campaign_drift(&c, "walls");
	fake_campaign_drift(&c, "criteria");
	assert_int_equal(c.o->n_drift, 2);
	assert_false(c.o->drift[0].drifted || c.o->drift[1].drifted);
	assert_int_equal(c.o->drift[1].check, 2);
	assert_false(w->drifted);
	fake_campaign_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walls_knee_is_bisected),
		cmocka_unit_test(test_walls_blip_does_not_persist),
		cmocka_unit_test(test_walls_slope_without_knee),
		cmocka_unit_test(test_failing_point_stops_early),
		cmocka_unit_test(test_walls_one_failure_is_no_wall),
		cmocka_unit_test(test_walls_failures_are_a_rate),
		cmocka_unit_test(test_walls_zero_is_unusable),
		cmocka_unit_test(test_walls_noise_too_high_is_said),
		cmocka_unit_test(test_walls_sequential_testing_decides),
		cmocka_unit_test(test_walls_drift_is_seen_and_marked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
