/* SPDX-License-Identifier: MIT */
/*
 * hx_walls: baselines and the wall search of a campaign.
 *
 * Baseline: the neutral point per (verb, metric): every plan dimension at its neutral level,
 * the plan's fixed levels for the rest. Wall search: for each scale dimension and each
 * (verb, metric), the dimension's levels are measured in ascending order (a geometric sweep
 * when the plan says so) with every other dimension neutral, until a symptom appears; then
 * the interval between the last good level and the first bad one is bisected (geometric
 * midpoints, integers) to the knee. A symptom needs both the plan's threshold and Welch's
 * t-test at the plan's significance, or failed trials (timeouts, errors) when the plan counts
 * errors, or software fallback seen in the tc_not_in_hw counter.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/campaign/hx_campaign.h"
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
			 (unsigned long)p->n_verbs * p->n_metrics * p->repeats);
	for (unsigned v = 0; v < p->n_verbs; v++) {
		for (unsigned m = 0; m < p->n_metrics; m++) {
			struct hx_baseline *b = &o->baselines[o->n_baselines];
			struct gen_levels l;
			int rc;

			hx_levels_base(p, p->verbs[v], p->metrics[m], &l);
			b->verb = p->verbs[v];
			b->metric = p->metrics[m];
			rc = hx_point_run(r, &l, "baseline", &b->r, err);
			if (rc < 0)
				return rc;
			o->n_baselines++;
		}
	}
	return 0;
}

/* Measure DIM at LEVEL on top of BASE and judge it against the baseline. */
static int probe(struct hx_runner *r, const struct hx_plan *p, const struct gen_levels *base,
		 const struct hx_baseline *b, const struct gen_dimension *dim, double level,
		 const char *phase, struct hx_symptom *sym, unsigned *trials, struct scn_error *err)
{
	struct gen_levels l = *base;
	struct hx_point_result res;
	int rc;

	rc = gen_levels_set(&l, dim, level, err);
	if (rc < 0)
		return rc;
	gen_levels_repair(&l); /* as every phase does: flows raised to fit masks and contexts */
	rc = hx_point_run(r, &l, phase, &res, err);
	if (rc < 0)
		return rc;
	*trials += res.n;
	hx_symptom_judge(&p->thresholds, base->metric, &b->r, &res, sym);
	return 0;
}

static double midpoint(double lo, double hi)
{
	double mid = lo > 0 ? round(sqrt(lo * hi)) : round((lo + hi) / 2);

	if (mid <= lo)
		mid = lo + 1;
	return mid;
}

/* Narrow (good, bad] to the knee. */
static int bisect(struct hx_runner *r, const struct hx_plan *p, const struct gen_levels *base,
		  const struct hx_baseline *b, struct hx_wall *w, struct hx_symptom *bad,
		  struct scn_error *err)
{
	for (int step = 0; step < 12 && w->level - w->last_good > 1 &&
			   w->level > 1.05 * w->last_good; step++) {
		double mid = midpoint(w->last_good, w->level);
		struct hx_symptom s;
		int rc;

		if (mid >= w->level)
			break;
		rc = probe(r, p, base, b, w->dim, mid, "bisect", &s, &w->trials, err);
		if (rc == -EDOM) {
			scn_error_clear(err);
			break;
		}
		if (rc < 0)
			return rc;
		if (s.present) {
			w->level = mid;
			*bad = s;
		} else {
			w->last_good = mid;
		}
	}
	return 0;
}

static void wall_record(struct hx_wall *w, const struct hx_symptom *s)
{
	w->found = true;
	w->effect = s->effect;
	w->p_value = s->p_value;
	snprintf(w->kind, sizeof(w->kind), "%s", s->kind);
	snprintf(w->class_, sizeof(w->class_), "%s", hx_symptom_class(s, w->dim));
}

static int search_one(struct hx_runner *r, const struct hx_plan *p, const struct hx_plan_dim *d,
		      const struct hx_baseline *b, struct hx_wall *w, struct scn_error *err)
{
	struct gen_levels base;

	hx_levels_base(p, b->verb, b->metric, &base);
	memset(w, 0, sizeof(*w));
	w->dim = d->dim;
	w->verb = b->verb;
	w->metric = b->metric;
	w->last_good = d->neutral;
	for (unsigned i = 0; i < d->n_levels; i++) {
		struct hx_symptom s;
		double level = d->levels[i];
		int rc;

		if (level <= d->neutral)
			continue;
		rc = probe(r, p, &base, b, d->dim, level, "sweep", &s, &w->trials, err);
		if (rc == -EDOM) {
			snprintf(w->note, sizeof(w->note), "stopped: %.180s", err->message);
			scn_error_clear(err);
			return 0;
		}
		if (rc < 0)
			return rc;
		w->max_tried = level;
		if (!s.present) {
			w->last_good = level;
			continue;
		}
		w->level = level;
		rc = bisect(r, p, &base, b, w, &s, err);
		wall_record(w, &s);
		return rc;
	}
	return 0;
}

int hx_phase_walls(struct hx_runner *r, const struct hx_plan *p, struct hx_outcome *o,
		   struct scn_error *err)
{
	unsigned long planned = 0;

	for (unsigned i = 0; i < p->n_dims; i++)
		if (p->dims[i].scale)
			planned += p->dims[i].n_levels;
	hx_observe_phase(r->observer, "walls", planned * o->n_baselines * p->repeats);
	for (unsigned i = 0; i < p->n_dims; i++) {
		if (!p->dims[i].scale)
			continue;
		for (unsigned b = 0; b < o->n_baselines && o->n_walls < HX_MAX_WALLS; b++) {
			int rc = search_one(r, p, &p->dims[i], &o->baselines[b],
					    &o->walls[o->n_walls], err);

			o->n_walls++;
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

void hx_wall_symptom(const struct hx_wall *w, int64_t campaign, struct res_symptom *s)
{
	memset(s, 0, sizeof(*s));
	s->campaign = campaign;
	snprintf(s->kind, sizeof(s->kind), "%s", w->kind);
	snprintf(s->class_, sizeof(s->class_), "%s", w->class_);
	snprintf(s->verb, sizeof(s->verb), "%s", topo_verb_name(w->verb));
	snprintf(s->dimension, sizeof(s->dimension), "%s", w->dim->name);
	s->level = w->level;
	s->last_good = w->last_good;
	/* the store holds numbers only: a wall whose trials all failed has no effect size */
	s->effect = isfinite(w->effect) ? w->effect : 0;
	s->p_value = isfinite(w->p_value) ? w->p_value : 0;
	snprintf(s->detail, sizeof(s->detail), "metric %s, %u trials in the search%s",
		 hx_metric_name(w->metric), w->trials,
		 isfinite(w->effect) ? "" : "; effect: trials failed");
}
