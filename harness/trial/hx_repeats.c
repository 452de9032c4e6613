/* SPDX-License-Identifier: MIT */
/*
 * hx_repeats: the repeats of one point. A point result grows by repeats (the plan's R, then
 * more when sequential testing needs them, a replicate's fresh repeats, a drift check's),
 * each one a trial of hx_trial with its own repeat index (so its own key and noise seed), and
 * is summarised over the repeats that measured something. A trial whose status is "unusable"
 * (the testbed's output could not be used), or an "ok" trial whose number is 0 or not
 * finite, measured nothing about the NIC: it counts in `unusable` and is no symptom. Any
 * other status but "ok" (timeout, completion error, rules refused) failed: it counts in
 * `failed`, evidence of its own kind (a failure rate, never a bandwidth of 0). Neither adds
 * a value.
 *
 * With the plan's stop_after_failures N (0, off, by default), a point whose first N repeats
 * all failed stops there (measured one after the other; a pool's repeats run at once and
 * overlap their timeouts instead): each more repeat would most likely cost a whole timeout
 * for the same verdict. Against a baseline that never failed, 3 failures of 3 are
 * significant at 0.003 (hx_failure_p), under qualify-full's 0.01.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/trial/hx_trial.h"

/* Counter NAME of the parsed counters ROOT (0 when absent). */
static double counter_of(struct json_object *root, const char *name)
{
	struct json_object *v;

	return root && json_object_object_get_ex(root, name, &v) ? json_object_get_double(v) : 0;
}

/* Keep the largest tc_not_in_hw count and share of rules in software seen at a point. */
static void note_software(const struct res_sample *s, struct hx_point_result *out)
{
	struct json_object *root = json_tokener_parse(s->counters_json);
	double sw = counter_of(root, "tc_not_in_hw"), hw = counter_of(root, "tc_in_hw");

	json_object_put(root);
	if (sw > out->counters_not_in_hw)
		out->counters_not_in_hw = sw;
	if (sw + hw > 0 && sw / (sw + hw) > out->sw_share)
		out->sw_share = sw / (sw + hw);
}

/* A value the metric can use: a finite, positive number (0 Gb/s or 0 us is no measurement). */
static bool usable(double v)
{
	return isfinite(v) && v > 0;
}

void hx_point_add(struct hx_point_result *out, const struct gen_levels *l,
		  const struct hx_trial_out *t)
{
	double v = hx_sample_value(l, &t->sample);

	if (out->n >= HX_MAX_REPEATS)
		return;
	if (out->n == 0)
		snprintf(out->status, sizeof(out->status), "ok");
	note_software(&t->sample, out);
	out->ids[out->n] = t->id;
	if (!strcmp(t->sample.status, "unusable") || (!strcmp(t->sample.status, "ok") &&
						       !usable(v))) {
		if (!out->failed) /* a failure is the worse status */
			snprintf(out->status, sizeof(out->status), "unusable");
		out->unusable++;
		v = NAN;
	} else if (strcmp(t->sample.status, "ok")) { /* any other status: a failed trial */
		snprintf(out->status, sizeof(out->status), "%s", t->sample.status);
		out->failed++;
		v = NAN;
	}
	out->x[out->n++] = v;
}

void hx_point_finish(struct hx_point_result *out, enum gen_metric m)
{
	double vals[HX_MAX_REPEATS] = { 0 };
	size_t nv = 0;

	(void)m;
	for (unsigned i = 0; i < out->n; i++)
		if (usable(out->x[i]))
			vals[nv++] = out->x[i];
	if (out->failed || out->unusable) /* a failed point keeps every value it has */
		hx_summarise(vals, nv, &out->s);
	else
		hx_summarise_robust(vals, nv, &out->s);
	if (nv == 0)
		out->s.mean = NAN;
}

/* One repeat of a point, run by its own thread on a pool. */
struct repeat_job {
	struct hx_runner *r;
	const struct gen_levels *l;
	const char *phase;
	int repeat, rc;
	struct hx_trial_out out;
	struct scn_error err;
};

static void *repeat_thread(void *arg)
{
	struct repeat_job *j = arg;

	scn_error_clear(&j->err);
	j->rc = hx_trial(j->r, j->l, j->phase, j->repeat, &j->out, &j->err);
	return NULL;
}

/* Repeats FIRST + OUT->n .. FIRST + N - 1 at once (one thread each; the pool's slots bound
 * how many measure), added in repeat order up to the first that failed. */
static int extend_pooled(struct hx_runner *r, const struct gen_levels *l, const char *phase,
			 int first, unsigned n, struct hx_point_result *out, struct scn_error *err)
{
	unsigned k = n - out->n;
	struct repeat_job *job = calloc(k, sizeof(*job));
	pthread_t th[HX_MAX_REPEATS];
	bool started[HX_MAX_REPEATS];
	int rc = 0;

	if (!job)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "repeats: out of memory");
	for (unsigned i = 0; i < k; i++) {
		job[i] = (struct repeat_job){ .r = r, .l = l, .phase = phase,
					      .repeat = first + (int)(out->n + i) };
		started[i] = pthread_create(&th[i], NULL, repeat_thread, &job[i]) == 0;
		if (!started[i])
			repeat_thread(&job[i]); /* no thread to spare: run it here */
	}
	for (unsigned i = 0; i < k; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	for (unsigned i = 0; i < k && rc == 0; i++) {
		rc = job[i].rc;
		if (rc == 0)
			hx_point_add(out, l, &job[i].out);
		else if (err)
			*err = job[i].err;
	}
	free(job);
	return rc;
}

bool hx_point_failing(const struct hx_runner *r, const struct hx_point_result *out)
{
	return r->stop_after_failures && out->n >= r->stop_after_failures &&
	       out->failed == out->n;
}

int hx_point_extend(struct hx_runner *r, const struct gen_levels *l, const char *phase,
		    int first, unsigned n, struct hx_point_result *out, struct scn_error *err)
{
	if (n > HX_MAX_REPEATS)
		n = HX_MAX_REPEATS;
	if (out->n == 0)
		snprintf(out->status, sizeof(out->status), "ok");
	if (out->n + 1 < n && !r->dry_run && hx_runner_width(r) > 1) {
		int rc = extend_pooled(r, l, phase, first, n, out, err);

		if (rc < 0)
			return rc;
	}
	while (out->n < n && !hx_point_failing(r, out)) {
		struct hx_trial_out t;
		int rc = hx_trial(r, l, phase, first + (int)out->n, &t, err);

		if (rc < 0)
			return rc;
		hx_point_add(out, l, &t);
	}
	hx_point_finish(out, l->metric);
	return 0;
}

unsigned hx_seq_next(const struct hx_plan *p, unsigned n)
{
	unsigned next = n + p->repeats;

	if (p->max_repeats <= p->repeats || n >= p->max_repeats)
		return 0;
	return next > p->max_repeats ? p->max_repeats : next;
}

void hx_seq_count(struct hx_seq *q, const struct hx_plan *p, unsigned n, bool undecided)
{
	if (!q || n <= p->repeats)
		return;
	q->points++;
	q->trials += n - p->repeats;
	q->undecided += undecided;
	if (n > q->max_n)
		q->max_n = n;
}

int hx_point_decide(struct hx_runner *r, const struct hx_plan *p, const struct gen_levels *l,
		    const char *phase, const struct hx_point_result *base,
		    struct hx_point_result *res, struct hx_symptom *s, struct hx_seq *q,
		    struct scn_error *err)
{
	unsigned next;

	hx_symptom_judge(&p->thresholds, l->metric, base, res, s);
	while ((s->undecided || s->straddles) && !hx_point_failing(r, res) &&
	       (next = hx_seq_next(p, res->n))) {
		int rc = hx_point_extend(r, l, phase, 0, next, res, err);

		if (rc < 0)
			return rc;
		hx_symptom_judge(&p->thresholds, l->metric, base, res, s);
	}
	hx_seq_count(q, p, res->n, s->undecided || s->straddles);
	return 0;
}
