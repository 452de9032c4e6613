/* SPDX-License-Identifier: MIT */
/*
 * hx_walls: baselines and the wall search of a campaign.
 *
 * Baseline: the neutral point per (verb, metric): every plan dimension at its neutral level,
 * the plan's fixed levels for the rest. Wall search: for each scale dimension and each
 * (verb, metric), the dimension's levels are measured in ascending order (a geometric sweep
 * when the plan says so) with every other dimension neutral; a point that cannot be built as
 * asked is repaired exactly as every other phase repairs it (gen_levels_repair: flows raised
 * to fit masks and encap contexts). A symptom (hx_symptom_judge: threshold and Welch's test
 * on the usable values, or significantly more failed trials than at the baseline) at a level
 * makes a wall only when it holds up:
 *  - it persists: the next level up and the top level, measured too, still show it (or
 *    are beyond the threshold); otherwise the level is a blip, noted, and the sweep goes on;
 *  - it has a knee (hx_wall_shape.c): the bracket between the last clean level and the
 *    symptomatic one is decided at this noise, and the metric is flat below it. Then the
 *    bracket is bisected (geometric midpoints, integers) to the knee.
 * A curve without a knee is reported as a slope (effect per doubling of the level, fitted
 * over every measured trial, and where the fit reaches the threshold) when the slope is
 * significant; otherwise the wall search says the symptom is not decided at this noise.
 * A level that is undecided (beyond the threshold but not significant, or failures not yet
 * significant) gets more repeats first, up to the plan's max_repeats (sequential testing).
 * On a runner of several slots the searches of different dimensions and baselines run at
 * once, one thread each; each decides from its own trials only, so the walls are those of
 * one search after another.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/campaign/hx_campaign.h"
#include "harness/campaign/hx_walls_priv.h"
#include "harness/trial/hx_trial.h"

void hx_levels_base(const struct hx_plan *p, enum topo_verb v, enum gen_metric m,
		    struct gen_levels *out)
{
	*out = p->fixed;
	for (unsigned i = 0; i < p->n_dims; i++)
		gen_levels_set(out, p->dims[i].dim, p->dims[i].neutral, NULL);
	out->verb = v;
	out->metric = m;
}

const struct hx_baseline *hx_outcome_baseline(const struct hx_outcome *o, enum topo_verb v,
					      enum gen_metric m)
{
	for (unsigned i = 0; i < o->n_baselines; i++)
		if (o->baselines[i].verb == v && o->baselines[i].metric == m)
			return &o->baselines[i];
	return NULL;
}

int hx_phase_baseline(struct hx_runner *r, const struct hx_plan *p, struct hx_outcome *o,
		      struct scn_error *err)
{
	hx_observe_phase(r->observer, "baseline",
			 (unsigned long)p->n_verbs * p->n_metrics * p->max_repeats);
	for (unsigned v = 0; v < p->n_verbs; v++) {
		for (unsigned m = 0; m < p->n_metrics; m++) {
			struct hx_baseline *b = &o->baselines[o->n_baselines];
			struct gen_levels l;
			int rc;

			hx_levels_base(p, p->verbs[v], p->metrics[m], &l);
			b->verb = p->verbs[v];
			b->metric = p->metrics[m];
			/* the reference of every decision: with sequential testing on, it gets
			 * every repeat a point may get (a 3-repeat baseline would bound them all) */
			memset(&b->r, 0, sizeof(b->r));
			rc = hx_point_extend(r, &l, "baseline", 0, p->max_repeats, &b->r, err);
			if (rc < 0)
				return rc;
			hx_noise_of(p, b, &o->noise[o->n_baselines]);
			o->n_baselines++;
		}
	}
	/* a dry run measures nothing (NAN numbers, status ok): nothing to check */
	return r->dry_run ? 0 : hx_baselines_measured(o, err);
}

/* The point of the search at LEVEL: measured once, judged, kept for the slope fit. */
int hx_sweep_probe(struct hx_sweep *sw, double level, const char *phase,
		   const struct hx_sweep_pt **out, struct scn_error *err)
{
	struct gen_levels l = sw->base;
	struct hx_point_result res;
	struct hx_sweep_pt *pt;
	int rc;

	for (unsigned i = 0; i < sw->n; i++)
		if (sw->pt[i].level == level) {
			*out = &sw->pt[i];
			return 0;
		}
	if (sw->n >= HX_SWEEP_MAX)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOSPC, "wall search: too many points");
	if ((rc = gen_levels_set(&l, sw->w->dim, level, err)) < 0)
		return rc;
	sw->repaired |= gen_levels_repair(&l); /* as every phase does it */
	if ((rc = hx_point_run(sw->r, &l, phase, &res, err)) < 0)
		return rc;
	pt = &sw->pt[sw->n++];
	/* judged, with more repeats while undecided (sequential testing up to max_repeats) */
	if ((rc = hx_point_decide(sw->r, sw->p, &l, phase, &sw->b->r, &res, &pt->s, sw->seq,
				  err)) < 0)
		return rc;
	pt->level = level;
	pt->nv = 0;
	for (unsigned i = 0; i < res.n; i++)
		if (isfinite(res.x[i]))
			pt->v[pt->nv++] = res.x[i];
	sw->w->trials += res.n;
	if (res.n > sw->w->repeats)
		sw->w->repeats = res.n;
	if (res.n && res.unusable == res.n) { /* nothing measured there: said, not a symptom */
		char t[32];

		hx_wall_note(sw->w, "not measured at %s: every trial unusable",
			     hx_level_text(sw->w->dim, level, t, sizeof(t)));
	}
	*out = pt;
	return 0;
}

/* The symptom still shows at the next level up and at the top (present, or beyond the
 * threshold but undecided). *ABOVE receives a level where it does not (NAN: none). */
static int persists(struct hx_sweep *sw, const double *lv, unsigned n, unsigned i, bool *yes,
		    double *above, struct scn_error *err)
{
	unsigned check[2] = { i + 1, n - 1 };

	*yes = true;
	*above = NAN;
	for (unsigned k = 0; k < 2 && *yes; k++) {
		const struct hx_sweep_pt *pt;
		int rc;

		if (check[k] <= i || check[k] >= n)
			continue;
		if ((rc = hx_sweep_probe(sw, lv[check[k]], "sweep", &pt, err)) < 0)
			return rc;
		if (!pt->s.present && !pt->s.undecided) {
			*yes = false;
			*above = lv[check[k]];
		}
	}
	return 0;
}

/* A level between GOOD (nearer neutral) and BAD: geometric, at least one step from GOOD. */
static double midpoint(const struct hx_sweep *sw, double good, double bad)
{
	double mid = good > 0 ? round(sqrt(good * bad)) : round((good + bad) / 2);

	if (!hx_sweep_farther(sw, mid, good))
		mid = good + sw->dir;
	return mid;
}

/* Whether (GOOD, BAD] is still wider than one step and 5%. */
static bool bracket_wide(double good, double bad)
{
	double lo = fmin(good, bad), hi = fmax(good, bad);

	return hi - lo > 1 && hi > 1.05 * lo;
}

/* Narrow (good, bad] to the knee; *BAD ends as the symptom at the wall's level. */
static int bisect(struct hx_sweep *sw, struct hx_symptom *bad, struct scn_error *err)
{
	struct hx_wall *w = sw->w;

	for (int step = 0; step < 12 && bracket_wide(w->last_good, w->level); step++) {
		double mid = midpoint(sw, w->last_good, w->level);
		const struct hx_sweep_pt *pt;
		int rc;

		if (!hx_sweep_farther(sw, w->level, mid))
			break;
		rc = hx_sweep_probe(sw, mid, "bisect", &pt, err);
		if (rc == -EDOM) {
			scn_error_clear(err);
			break;
		}
		if (rc < 0)
			return rc;
		if (pt->s.present) {
			w->level = mid;
			*bad = pt->s;
		} else {
			w->last_good = mid;
		}
	}
	return 0;
}

void hx_wall_record(struct hx_wall *w, const struct hx_symptom *s)
{
	w->effect = s->effect;
	w->p_value = s->p_value;
	w->failed = s->failed;
	w->n = s->n;
	w->fail_lo = s->fail_lo;
	w->fail_hi = s->fail_hi;
	snprintf(w->kind, sizeof(w->kind), "%s", s->kind);
	snprintf(w->class_, sizeof(w->class_), "%s", hx_symptom_class(s, w->dim));
}

void hx_wall_note(struct hx_wall *w, const char *fmt, ...)
{
	size_t n = strlen(w->note);
	va_list ap;

	if (n + 4 >= sizeof(w->note))
		return;
	if (n)
		n += (size_t)snprintf(w->note + n, sizeof(w->note) - n, "; ");
	va_start(ap, fmt);
	vsnprintf(w->note + n, sizeof(w->note) - n, fmt, ap);
	va_end(ap);
}

/* A symptom at plan level I that persisted: a wall at the bisected knee, or a slope. */
static int at_candidate(struct hx_sweep *sw, const double *lv, unsigned i, double good,
			const struct hx_symptom *s, struct scn_error *err)
{
	struct hx_wall *w = sw->w;
	struct hx_symptom bad = *s;
	int rc;

	if (!hx_wall_has_knee(sw, good, lv[i]))
		return hx_wall_slope(sw, lv[i]);
	w->found = true;
	w->level = lv[i];
	w->last_good = good;
	rc = bisect(sw, &bad, err);
	hx_wall_record(w, &bad);
	return rc;
}

static int sweep(struct hx_sweep *sw, const double *lv, unsigned n, struct scn_error *err)
{
	struct hx_wall *w = sw->w;
	double good = w->last_good, above;
	char la[32], lb[32];

	for (unsigned i = 0; i < n; i++) {
		const struct hx_sweep_pt *pt;
		bool yes;
		int rc = hx_sweep_probe(sw, lv[i], "sweep", &pt, err);

		if (rc == -EDOM) {
			snprintf(w->note, sizeof(w->note), "stopped: %.180s", err->message);
			scn_error_clear(err);
			return 0;
		}
		if (rc < 0)
			return rc;
		if (hx_sweep_farther(sw, lv[i], w->max_tried))
			w->max_tried = lv[i];
		if (!pt->s.present) {
			good = lv[i];
			continue;
		}
		if ((rc = persists(sw, lv, n, i, &yes, &above, err)) < 0)
			return rc;
		w->max_tried = lv[n - 1];
		if (yes)
			return at_candidate(sw, lv, i, good, &pt->s, err);
		hx_wall_note(w, "not a wall at %s: the symptom does not persist at %s",
			     hx_level_text(w->dim, lv[i], la, sizeof(la)),
			     hx_level_text(w->dim, above, lb, sizeof(lb)));
	}
	w->last_good = good;
	return hx_wall_slope(sw, NAN);
}

static int search_one(struct hx_runner *r, const struct hx_plan *p, const struct hx_plan_dim *d,
		      const struct hx_baseline *b, struct hx_wall *w, struct hx_seq *seq,
		      struct scn_error *err)
{
	struct hx_sweep *sw = calloc(1, sizeof(*sw));
	double lv[HX_PLAN_MAX_LEVELS];
	unsigned n = 0;
	int rc;

	if (!sw)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "wall search: out of memory");
	memset(w, 0, sizeof(*w));
	w->dim = d->dim;
	w->verb = b->verb;
	w->metric = b->metric;
	w->last_good = d->neutral;
	w->crossing = NAN;
	for (unsigned i = 0; i < d->n_levels; i++)
		if (d->levels[i] > d->neutral)
			lv[n++] = d->levels[i];
	if (!n) /* every level below neutral (mtu, page size): sweep downward, nearest first */
		for (unsigned i = d->n_levels; i-- > 0;)
			if (d->levels[i] < d->neutral)
				lv[n++] = d->levels[i];
	w->descending = n && lv[0] < d->neutral;
	if (w->descending)
		w->max_tried = d->neutral;
	*sw = (struct hx_sweep){ .r = r, .p = p, .b = b, .w = w, .seq = seq,
				 .dir = w->descending ? -1 : 1 };
	hx_levels_base(p, b->verb, b->metric, &sw->base);
	rc = sweep(sw, lv, n, err);
	if (sw->repaired)
		hx_wall_note(w, "flows raised to fit %s (as in every phase)", d->dim->name);
	free(sw);
	return rc;
}

/* One wall search (a scale dimension against one baseline), run by its own thread when
 * the runner has several slots; its sequential-testing counts are merged after. */
struct search_job {
	struct hx_runner *r;
	const struct hx_plan *p;
	const struct hx_plan_dim *d;
	const struct hx_baseline *b;
	struct hx_wall *w;
	struct hx_seq seq;
	struct scn_error err;
	int rc;
};

static void *search_thread(void *arg)
{
	struct search_job *j = arg;

	scn_error_clear(&j->err);
	j->rc = search_one(j->r, j->p, j->d, j->b, j->w, &j->seq, &j->err);
	return NULL;
}

static void seq_merge(struct hx_seq *to, const struct hx_seq *q)
{
	to->points += q->points;
	to->trials += q->trials;
	to->undecided += q->undecided;
	if (q->max_n > to->max_n)
		to->max_n = q->max_n;
}

/* Run the N searches: one after another, or at once on a pool. The first error, in
 * order, is returned; the searches' counts are merged in order. */
static int run_searches(struct hx_runner *r, struct search_job *job, unsigned n,
			struct hx_outcome *o, struct scn_error *err)
{
	pthread_t th[HX_MAX_WALLS];
	bool started[HX_MAX_WALLS] = { false };
	bool pooled = n > 1 && !r->dry_run && hx_runner_width(r) > 1;
	int rc = 0;

	for (unsigned i = 0; i < n; i++) {
		if (pooled)
			started[i] = pthread_create(&th[i], NULL, search_thread, &job[i]) == 0;
		if (started[i])
			continue;
		search_thread(&job[i]);
		if (job[i].rc < 0 && !pooled)
			break; /* one after another: stop at the first error */
	}
	for (unsigned i = 0; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		if (rc == 0 && job[i].rc < 0) {
			rc = job[i].rc;
			*err = job[i].err;
		}
		seq_merge(&o->seq, &job[i].seq);
	}
	return rc;
}

int hx_phase_walls(struct hx_runner *r, const struct hx_plan *p, struct hx_outcome *o,
		   struct scn_error *err)
{
	struct search_job *job = calloc(HX_MAX_WALLS, sizeof(*job));
	unsigned long planned = 0;
	unsigned n = 0;
	int rc;

	if (!job)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "wall search: out of memory");
	for (unsigned i = 0; i < p->n_dims; i++)
		if (p->dims[i].scale)
			planned += p->dims[i].n_levels;
	hx_observe_phase(r->observer, "walls", planned * o->n_baselines * p->repeats);
	for (unsigned i = 0; i < p->n_dims; i++) {
		if (!p->dims[i].scale)
			continue;
		for (unsigned b = 0; b < o->n_baselines && o->n_walls + n < HX_MAX_WALLS; b++, n++)
			job[n] = (struct search_job){ .r = r, .p = p, .d = &p->dims[i],
						      .b = &o->baselines[b],
						      .w = &o->walls[o->n_walls + n], .rc = 1 };
	}
	rc = run_searches(r, job, n, o, err);
	for (unsigned i = 0; i < n && job[i].rc != 1; i++) {
		o->n_walls++; /* the searches that ran, up to the first that failed */
		if (job[i].rc < 0)
			break;
	}
	free(job);
	return rc;
}
