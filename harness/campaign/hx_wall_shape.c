/* SPDX-License-Identifier: MIT */
/*
 * hx_wall_shape: is a symptom along one dimension a wall (a knee) or a slope, and the row a
 * wall or slope becomes in the store (see hx_walls.c for the search).
 *
 * Knee: the symptom at the first symptomatic plan level is decided (present, its interval
 * entirely beyond the threshold, or failures significant), and the last clean level below it
 * is decided clean (interval entirely on the good side of the threshold) and flat (within half
 * the threshold of the baseline). A curve already falling below the symptomatic level, or one
 * whose bracket the noise does not decide, has no located knee: bisecting it would put the
 * wall wherever noise first crosses the threshold.
 *
 * Slope: ordinary least squares of ln(y / y0) on ln(level) over every usable trial the search
 * measured (hx_slope_fit), reported as the relative change per doubling of the level with its
 * 95% interval, and where the fitted line reaches the threshold.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/campaign/hx_walls_priv.h"

static const struct hx_sweep_pt *find_pt(const struct hx_sweep *sw, double level)
{
	for (unsigned i = 0; i < sw->n; i++)
		if (sw->pt[i].level == level)
			return &sw->pt[i];
	return NULL;
}

static double signed_threshold(const struct hx_sweep *sw)
{
	return sw->base.metric == GEN_METRIC_BW ? -sw->p->thresholds.bw_drop
						: sw->p->thresholds.lat_rise;
}

bool hx_wall_has_knee(const struct hx_sweep *sw, double good, double bad)
{
	const struct hx_sweep_pt *b = find_pt(sw, bad), *g = find_pt(sw, good);
	double thr = signed_threshold(sw);
	bool bw = sw->base.metric == GEN_METRIC_BW;

	if (!b || !b->s.present || b->s.undecided)
		return false;
	if (!g) /* the neutral level: the baseline itself */
		return true;
	if (g->s.present || g->s.undecided || !isfinite(g->s.effect))
		return false;
	if (bw)
		return g->s.effect_lo > thr && g->s.effect > thr / 2;
	return g->s.effect_hi < thr && g->s.effect < thr / 2;
}

/* The measured point farthest from neutral (the top of the sweep). */
static const struct hx_sweep_pt *top_pt(const struct hx_sweep *sw)
{
	const struct hx_sweep_pt *top = NULL;

	for (unsigned i = 0; i < sw->n; i++)
		if (!top || hx_sweep_farther(sw, sw->pt[i].level, top->level))
			top = &sw->pt[i];
	return top;
}

/* The slope is fitted over u = level (upward sweeps) or 1 / level (downward), so that u
 * grows away from neutral either way and "per doubling" of u is per halving of the level. */
static double sweep_u(const struct hx_sweep *sw, double level)
{
	return sw->dir > 0 ? level : 1.0 / level;
}

static void fit(const struct hx_sweep *sw, struct hx_slope *s)
{
	double *x = calloc(HX_MAX_SLOPE_POINTS, sizeof(*x));
	double *y = calloc(HX_MAX_SLOPE_POINTS, sizeof(*y));
	size_t n = 0;

	s->ok = false;
	for (unsigned i = 0; x && y && i < sw->n; i++)
		for (unsigned k = 0; k < sw->pt[i].nv && n < HX_MAX_SLOPE_POINTS; k++) {
			x[n] = sweep_u(sw, sw->pt[i].level);
			y[n++] = sw->pt[i].v[k];
		}
	if (x && y)
		hx_slope_fit(x, y, n, sw->b->r.s.mean, s);
	free(x);
	free(y);
}

static void record_slope(struct hx_sweep *sw, const struct hx_slope *s, double reach)
{
	const struct hx_sweep_pt *top = top_pt(sw), *low = NULL;
	struct hx_wall *w = sw->w;
	struct hx_symptom at_top;

	for (unsigned i = 0; i < sw->n; i++)
		if (!low || hx_sweep_farther(sw, low->level, sw->pt[i].level))
			low = &sw->pt[i];
	w->slope = true;
	w->slope_per_doubling = exp2(s->b) - 1;
	w->slope_lo = exp2(s->b_lo) - 1;
	w->slope_hi = exp2(s->b_hi) - 1;
	w->crossing = hx_sweep_farther(sw, low->level, reach) ? low->level : round(reach);
	w->level = w->crossing;
	w->slope_points = (unsigned)s->n;
	at_top = top->s;
	if (!at_top.present) { /* the fit reaches the threshold; no single level was decided */
		at_top.present = true;
		snprintf(at_top.kind, sizeof(at_top.kind), "%s",
			 sw->base.metric == GEN_METRIC_BW ? "bw_drop" : "lat_rise");
	}
	hx_wall_record(w, &at_top);
}

int hx_wall_slope(struct hx_sweep *sw, double cand)
{
	const struct hx_sweep_pt *top = top_pt(sw), *c = isnan(cand) ? NULL : find_pt(sw, cand);
	double thr = signed_threshold(sw), reach;
	struct hx_slope s;
	char lv[32];

	if (!top)
		return 0;
	fit(sw, &s);
	reach = sweep_u(sw, hx_slope_reach(&s, thr)); /* back to a level (1/u is its own inverse) */
	if (s.ok && (thr < 0 ? s.b_hi < 0 : s.b_lo > 0) && isfinite(reach) &&
	    !hx_sweep_farther(sw, reach, top->level)) {
		record_slope(sw, &s, reach);
		return 0;
	}
	if (c)
		hx_wall_note(sw->w, "symptom at %s (%+.1f%% [%+.1f%%, %+.1f%%], %u of %u failed) not "
			     "decided at this noise: more repeats needed",
			     hx_level_text(sw->w->dim, c->level, lv, sizeof(lv)),
			     100 * c->s.effect, 100 * c->s.effect_lo, 100 * c->s.effect_hi,
			     c->s.failed, c->s.n);
	return 0;
}

void hx_wall_symptom(const struct hx_wall *w, int64_t campaign, struct res_symptom *s)
{
	memset(s, 0, sizeof(*s));
	s->campaign = campaign;
	snprintf(s->kind, sizeof(s->kind), "%s", w->slope ? "slope" : w->kind);
	snprintf(s->class_, sizeof(s->class_), "%s", w->class_);
	snprintf(s->verb, sizeof(s->verb), "%s", topo_verb_name(w->verb));
	snprintf(s->dimension, sizeof(s->dimension), "%s", w->dim->name);
	s->level = w->level;
	s->last_good = w->last_good;
	/* the store holds numbers only: a wall whose trials all failed has no effect size */
	s->effect = isfinite(w->effect) ? w->effect : 0;
	s->p_value = isfinite(w->p_value) ? w->p_value : 0;
	if (w->slope)
		snprintf(s->detail, sizeof(s->detail),
			 "metric %s, %u trials in the search; slope %+.2f%% per doubling "
			 "[%+.2f%%, %+.2f%%], reaches the threshold near %g",
			 hx_metric_name(w->metric), w->trials, 100 * w->slope_per_doubling,
			 100 * w->slope_lo, 100 * w->slope_hi, w->crossing);
	else
		snprintf(s->detail, sizeof(s->detail), "metric %s, %u trials in the search%s%s",
			 hx_metric_name(w->metric), w->trials,
			 isfinite(w->effect) ? "" : "; effect: trials failed",
			 w->drifted ? "; baseline drifted" : "");
}
