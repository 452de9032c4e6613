/* SPDX-License-Identifier: MIT */
/*
 * hx_model: the model phase (plan section `model:`). After the causal analysis is stored,
 * for each (verb, metric) with a baseline, the inputs are the dimensions its causes name
 * (res_cause_dimensions: strongest first, context members such as the message size left
 * out, at most plan.model_inputs, ordered dimensions the
 * plan explores). Each input gets plan.model_levels levels spread geometrically from its
 * smallest positive level in the plan (neutral included) to its largest, plus the plan's
 * levels on both sides of each cause's wall, so the knee is dense; the phase measures every
 * combination of the inputs' levels (the other dimensions at the baseline) as points of
 * phase "model". A point that cannot be built as asked gets the flows it needs
 * (gen_levels_repair), as in the causal phase; `fit --inputs causes` then models the trials
 * on the same inputs.
 *
 * Rule layouts: which flows' rules land in which mask is a seeded draw (gen_layout.c), and
 * under skewed traffic it moves the response far more than the noise, so one layout cannot
 * tell a model's inputs apart from where the hot flows happen to land. Each design point is
 * measured over layouts 0, 1, 2, ... (spread evenly: a systematic sample), each with
 * one trial (the plan's repeats when model.layouts is 1): 4 layouts, then doubling up to
 * plan.model_layouts while the standard error of their robust mean (each layout's value as
 * one, their spread at least the testbed's trial noise: hx_model_noise_floor) is above
 * MODEL_LAYOUT_SE of it, or while the robust mean screened out one of fewer than 8 (a slow
 * trial cannot be told from the layouts' own spread among so few). On a quiet testbed a
 * point the layout does not move stops at 4; `fit`
 * takes the robust mean over layouts of each layout's median (hx_fit.c).
 *
 * Refinement (plan key model.refine, off by default): after every design's grid, levels
 * are added where neighbouring levels' values differ the most (hx_model_refine.c), so a
 * response that keeps falling between two far-apart levels gets points where it falls.
 * The spare budget (plan key model.max_layouts, off by default): last, the points whose
 * value is not yet known to MODEL_LAYOUT_SE get more layouts, worst first, while the
 * budget allows (hx_model_tighten.c).
 *
 * Order: (verb, metric) pairs whose designs are the same (the same inputs at the same
 * levels: their causes name the same walls) are measured point by point together, so a
 * point's rule sets are programmed once for all of them. Designs go one after the other
 * (the plan's verb and metric order), each one's points coarse to fine (both ends of each
 * axis first, then the middle, the quarters, ...): a budget that runs out in the phase
 * leaves the designs before whole and the one it was in a grid that spans its whole range,
 * not a corner of it. (Interleaving the designs depth by depth, so that every design would
 * get a coarse grid, made every CX-4 model worse when its budget ran out: a model needs the
 * points near its knee more than another (verb, metric) needs any.)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/campaign/hx_model_priv.h"

#define MODEL_MIN_LAYOUTS 4

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void add_level(double *axis, unsigned *n, double v)
{
	for (unsigned i = 0; i < *n; i++)
		if (axis[i] == v)
			return;
	if (*n < MODEL_MAX_AXIS)
		axis[(*n)++] = v;
}

/* The levels of input D: K geometric levels over its range, and the plan's levels either
 * side of each WALLS[0..NW) level. Integers for integer dimensions. */
static unsigned input_axis(const struct hx_plan_dim *d, unsigned k, const double *walls,
			   unsigned nw, double *axis)
{
	double lo = INFINITY, hi = 0;
	unsigned n = 0;

	for (unsigned i = 0; i <= d->n_levels; i++) {
		double v = i < d->n_levels ? d->levels[i] : d->neutral;

		if (v > 0 && v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	for (unsigned i = 0; lo < hi && i < k; i++)
		add_level(axis, &n, round(lo * pow(hi / lo, (double)i / (k - 1))));
	for (unsigned w = 0; w < nw; w++) {
		double below = -INFINITY, above = INFINITY;

		for (unsigned i = 0; i < d->n_levels; i++) {
			if (d->levels[i] < walls[w] && d->levels[i] > below)
				below = d->levels[i];
			if (d->levels[i] >= walls[w] && d->levels[i] < above)
				above = d->levels[i];
		}
		if (isfinite(below))
			add_level(axis, &n, below);
		if (isfinite(above))
			add_level(axis, &n, above);
		add_level(axis, &n, round(walls[w]));
	}
	qsort(axis, n, sizeof(*axis), cmp_double);
	return n;
}

struct wall_ctx {
	const char *dim;
	double levels[8];
	unsigned n;
};

/* Walls of DIM among the stored causes: a cause's wall_level is its first member's. */
static int on_cause(const struct res_cause *c, void *vctx)
{
	struct wall_ctx *w = vctx;
	size_t len = strcspn(c->members, ",");

	if (strlen(w->dim) == len && !strncmp(c->members, w->dim, len) && c->wall_level > 0 &&
	    w->n < 8)
		w->levels[w->n++] = c->wall_level;
	return 0;
}

/* The inputs and their axes for (VERB, METRIC); n_in 0 when its causes name none. */
static int design_for(struct hx_runner *r, const struct hx_plan *p, const char *verb,
		      const char *metric, struct design *dz, struct scn_error *err)
{
	char names[2][64];
	unsigned n = 0;
	int rc = res_cause_dimensions(r->db, r->campaign, verb, metric, p->model_inputs, names,
				      &n, err);

	memset(dz, 0, sizeof(*dz));
	for (unsigned i = 0; rc == 0 && i < n; i++) {
		const struct hx_plan_dim *d = hx_plan_find_dim(p, names[i]);
		struct wall_ctx w = { .dim = names[i] };

		if (!d || d->dim->kind != GEN_DIM_ORDERED)
			continue;
		rc = res_cause_each(r->db, r->campaign, on_cause, &w, err);
		dz->in[dz->n_in] = d;
		dz->n_axis[dz->n_in] = input_axis(d, p->model_levels, w.levels, w.n,
						  dz->axis[dz->n_in]);
		dz->n_in++;
	}
	return rc;
}

/* Trials per layout: the plan's repeats with one layout, else one (the layouts are the
 * repeats: each adds a measurement of the noise as well as a layout). */
static unsigned layout_repeats(const struct hx_plan *p)
{
	return p->model_layouts > 1 ? 1 : p->repeats;
}

unsigned hx_model_layout_trials(const struct hx_plan *p)
{
	return layout_repeats(p);
}

/* The layouts a point starts with: MODEL_MIN_LAYOUTS, at most the plan's. */
static unsigned first_layouts(const struct hx_plan *p)
{
	return p->model_layouts < MODEL_MIN_LAYOUTS ? p->model_layouts : MODEL_MIN_LAYOUTS;
}

static int cmp_value(const void *a, const void *b)
{
	return cmp_double(a, b);
}

/* Median of the usable values of RES (NAN when none). */
static double layout_value(const struct hx_point_result *res)
{
	double v[HX_MAX_REPEATS];
	unsigned n = 0;

	for (unsigned i = 0; i < res->n; i++)
		if (isfinite(res->x[i]))
			v[n++] = res->x[i];
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_value);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

unsigned hx_model_point_trials(const struct hx_plan *p)
{
	return first_layouts(p) * layout_repeats(p);
}

/* The robust summary (hx_summarise_robust: a trial that ran 1.5x slow is left out) of the
 * usable values of V[0..N) into S; how many there were (0: S untouched). */
static unsigned layouts_summary(const double *v, unsigned n, struct hx_summary *s)
{
	double ok[HX_MAX_LAYOUTS];
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		if (isfinite(v[i]))
			ok[k++] = v[i];
	if (k)
		hx_summarise_robust(ok, k, s);
	return k;
}

/* Robust mean of the usable values of V[0..N) (NAN when none): a point's value. */
static double layouts_mean(const double *v, unsigned n)
{
	struct hx_summary s;

	return layouts_summary(v, n, &s) ? s.mean : NAN;
}

double hx_model_layouts_se(const double *v, unsigned n, double floor_cv)
{
	struct hx_summary s;
	unsigned k = layouts_summary(v, n, &s);

	if (k < 2 || !(fabs(s.mean) > 0))
		return NAN;
	return fmax(s.sd, floor_cv * fabs(s.mean)) / sqrt((double)s.n) / fabs(s.mean);
}

bool hx_model_layouts_enough(const double *v, unsigned n, double floor_cv)
{
	struct hx_summary s;
	unsigned k = layouts_summary(v, n, &s);

	if (k < 2)
		return k == 0; /* all failed: more layouts will not give a number */
	if (s.n < k && k < 2 * MODEL_MIN_LAYOUTS)
		return false; /* one screened out of a few: a slow trial, or the layouts' spread? */
	return hx_model_layouts_se(v, n, floor_cv) <= MODEL_LAYOUT_SE;
}

/* Point L over its layouts (see the top of this file) into PT: from the PT->n it has,
 * doubling until known well enough or CAP; its value the robust mean over them. -EDOM: it
 * cannot be built. */
static int measure_layouts(struct hx_runner *r, const struct hx_plan *p, struct gen_levels *l,
			   double floor_cv, unsigned cap, struct model_point *pt,
			   struct scn_error *err)
{
	unsigned want = pt->n ? pt->n : first_layouts(p);

	for (;;) {
		for (; pt->n < want; pt->n++) {
			struct hx_point_result res;
			int rc;

			memset(&res, 0, sizeof(res));
			l->layout = pt->n;
			rc = hx_point_extend(r, l, "model", 0, layout_repeats(p), &res, err);
			if (rc < 0)
				return rc;
			pt->layout[pt->n] = layout_value(&res);
		}
		if (pt->n >= cap || hx_model_layouts_enough(pt->layout, pt->n, floor_cv))
			break;
		want = 2 * pt->n < cap ? 2 * pt->n : cap;
		hx_observe_more(r->observer, (unsigned long)(want - pt->n) * layout_repeats(p));
	}
	pt->value = layouts_mean(pt->layout, pt->n);
	return 0;
}

bool hx_model_same_design(const struct design *a, const struct design *b)
{
	if (a->n_in != b->n_in)
		return false;
	for (unsigned k = 0; k < a->n_in; k++)
		if (a->in[k] != b->in[k] || a->n_axis[k] != b->n_axis[k] ||
		    memcmp(a->axis[k], b->axis[k], sizeof(double) * a->n_axis[k]))
			return false;
	return true;
}

double hx_model_noise_floor(const struct hx_outcome *o, enum gen_metric metric)
{
	double sum = 0;
	unsigned dof = 0;

	for (unsigned b = 0; b < o->n_baselines; b++) {
		const struct hx_point_result *res = &o->baselines[b].r;
		struct hx_summary s;
		unsigned k = 0;
		double ok[HX_MAX_REPEATS];

		if (o->baselines[b].metric != metric)
			continue;
		for (unsigned i = 0; i < res->n && i < HX_MAX_REPEATS; i++)
			if (isfinite(res->x[i]))
				ok[k++] = res->x[i];
		if (k < 2)
			continue;
		hx_summarise_robust(ok, k, &s);
		if (s.n < 2 || !(fabs(s.mean) > 0))
			continue;
		sum += (double)(s.n - 1) * (s.sd / s.mean) * (s.sd / s.mean);
		dof += (unsigned)s.n - 1;
	}
	return dof ? sqrt(sum / dof) : 0;
}

int hx_model_measure_point(struct hx_runner *r, const struct hx_plan *p,
			   const struct hx_outcome *o, unsigned b_index, const struct design *dz,
			   unsigned i, unsigned j, unsigned cap, struct model_point *pt,
			   struct scn_error *err)
{
	const struct hx_baseline *b = &o->baselines[b_index];
	struct gen_levels l;
	int rc;

	if (cap > HX_MAX_LAYOUTS)
		cap = HX_MAX_LAYOUTS;
	hx_levels_base(p, b->verb, b->metric, &l);
	gen_levels_set(&l, dz->in[0]->dim, dz->axis[0][i], NULL);
	if (dz->n_in > 1)
		gen_levels_set(&l, dz->in[1]->dim, dz->axis[1][j], NULL);
	gen_levels_repair(&l);
	rc = measure_layouts(r, p, &l, hx_model_noise_floor(o, b->metric), cap, pt, err);
	if (rc == -EDOM) { /* as if nothing was measured: no value, never tightened */
		scn_error_clear(err);
		pt->value = NAN;
		rc = 0;
	}
	return rc;
}

/* Subdivision depths of the N indices of an axis between LO and HI (exclusive): the middle
 * gets D, the middles of the two halves D + 1, ... */
static void bisect(unsigned *depth, unsigned lo, unsigned hi, unsigned d)
{
	unsigned mid = lo + (hi - lo) / 2;

	if (hi - lo < 2)
		return;
	depth[mid] = d;
	bisect(depth, lo, mid, d + 1);
	bisect(depth, mid, hi, d + 1);
}

/* Depth of each of an axis's N levels, coarse to fine: both ends 0, the middle 1, the
 * quarters 2, ...; the levels of depth <= k span the whole axis for every k. Returns the
 * largest depth. */
static unsigned axis_depths(unsigned n, unsigned *depth)
{
	unsigned most = 0;

	if (!n)
		return 0;
	depth[0] = depth[n - 1] = 0;
	bisect(depth, 0, n - 1, 1);
	for (unsigned i = 0; i < n; i++)
		most = depth[i] > most ? depth[i] : most;
	return most;
}

/* The points of depth D of baseline B0's design (the larger of their levels' axis depths),
 * each measured for B0 and every later baseline with the same design before the next point:
 * a point's rule sets (one per layout) are then programmed, built and analysed once for all
 * of them instead of once per (verb, metric). */
static int measure_depth(struct hx_runner *r, const struct hx_plan *p, const struct hx_outcome *o,
			 const struct design *dz, unsigned b0, unsigned d, struct model_values *mv,
			 struct scn_error *err)
{
	unsigned depth[2][MODEL_MAX_AXIS] = { { 0 } }, ny = dz[b0].n_in > 1 ? dz[b0].n_axis[1] : 1;
	int rc = 0;

	axis_depths(dz[b0].n_axis[0], depth[0]);
	if (dz[b0].n_in > 1)
		axis_depths(ny, depth[1]);
	for (unsigned i = 0; i < dz[b0].n_axis[0] && rc == 0; i++)
		for (unsigned j = 0; j < ny && rc == 0; j++) {
			if ((depth[0][i] > depth[1][j] ? depth[0][i] : depth[1][j]) != d)
				continue;
			for (unsigned b = b0; b < o->n_baselines && rc == 0; b++)
				if (dz[b].n_in && hx_model_same_design(&dz[b], &dz[b0]))
					rc = hx_model_measure_point(r, p, o, b, &dz[b0], i, j,
								    p->model_layouts,
								    &mv->pt[b][i][j], err);
		}
	return rc;
}

/* The first baseline of each distinct design into LEAD; their count. */
static unsigned design_leads(const struct hx_outcome *o, const struct design *dz, unsigned *lead)
{
	unsigned n = 0;

	for (unsigned b = 0; b < o->n_baselines; b++) {
		bool seen = false;

		for (unsigned k = 0; k < n && !seen; k++)
			seen = hx_model_same_design(&dz[b], &dz[lead[k]]);
		if (dz[b].n_in && !seen)
			lead[n++] = b;
	}
	return n;
}

/* The deepest axis level of the designs LEAD[0..N). */
static unsigned deepest(const struct design *dz, const unsigned *lead, unsigned n)
{
	unsigned tmp[MODEL_MAX_AXIS], most = 0;

	for (unsigned g = 0; g < n; g++)
		for (unsigned k = 0; k < dz[lead[g]].n_in; k++) {
			unsigned d = axis_depths(dz[lead[g]].n_axis[k], tmp);

			most = d > most ? d : most;
		}
	return most;
}

/* Points of DZ's grid (its axes' product; 0 without inputs). */
static unsigned grid_points(const struct design *dz)
{
	return dz->n_in ? dz->n_axis[0] * (dz->n_in > 1 ? dz->n_axis[1] : 1) : 0;
}

/* O->model's designs from what DZ[b] planned (LEVELS0[b]: its axes' levels before
 * refinement) and MV measured. */
static void summarise(struct hx_outcome *o, const struct design *dz, const unsigned *levels0,
		      const struct model_values *mv)
{
	for (unsigned b = 0; b < o->n_baselines; b++) {
		struct hx_model_design *s = &o->model.design[b];
		unsigned ny = dz[b].n_in > 1 ? dz[b].n_axis[1] : 1;

		memset(s, 0, sizeof(*s));
		s->n_in = dz[b].n_in;
		for (unsigned k = 0; k < dz[b].n_in; k++)
			snprintf(s->inputs[k], sizeof(s->inputs[k]), "%s", dz[b].in[k]->dim->name);
		s->planned = grid_points(&dz[b]);
		for (unsigned k = 0; k < dz[b].n_in; k++)
			s->refined += dz[b].n_axis[k];
		s->refined -= levels0[b];
		for (unsigned i = 0; dz[b].n_in && i < dz[b].n_axis[0]; i++)
			for (unsigned j = 0; j < ny; j++)
				if (isfinite(mv->pt[b][i][j].value)) {
					s->points++;
					s->layouts += mv->pt[b][i][j].n;
				}
	}
}

int hx_phase_model(struct hx_runner *r, const struct hx_plan *p, struct hx_outcome *o,
		   struct scn_error *err)
{
	struct design dz[HX_MAX_BASELINES];
	unsigned lead[HX_MAX_BASELINES], n_lead, most, levels[HX_MAX_BASELINES] = { 0 };
	unsigned long planned = 0, refine_left;
	struct model_values *mv;
	int rc = 0;

	if (!p->model_levels)
		return 0;
	o->model.ran = true;
	memset(dz, 0, sizeof(dz));
	mv = calloc(1, sizeof(*mv));
	if (!mv)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "model phase: out of memory");
	for (unsigned b = 0; b < HX_MAX_BASELINES; b++)
		for (unsigned i = 0; i < MODEL_MAX_AXIS; i++)
			for (unsigned j = 0; j < MODEL_MAX_AXIS; j++)
				mv->pt[b][i][j] = (struct model_point){ .value = NAN };
	for (unsigned b = 0; b < o->n_baselines && rc == 0; b++) {
		rc = design_for(r, p, topo_verb_name(o->baselines[b].verb),
				hx_metric_name(o->baselines[b].metric), &dz[b], err);
		planned += (unsigned long)grid_points(&dz[b]) * first_layouts(p) *
			   layout_repeats(p);
		for (unsigned k = 0; k < dz[b].n_in; k++)
			levels[b] += dz[b].n_axis[k];
	}
	refine_left = rc ? 0 : hx_model_refine_planned(p, dz, o->n_baselines);
	hx_observe_phase(r->observer, "model", planned + refine_left);
	n_lead = rc ? 0 : design_leads(o, dz, lead);
	for (unsigned g = 0; g < n_lead && rc == 0; g++) {
		most = deepest(dz, &lead[g], 1);
		for (unsigned d = 0; d <= most && rc == 0; d++)
			rc = measure_depth(r, p, o, dz, lead[g], d, mv, err);
	}
	if (rc == 0 && n_lead)
		rc = hx_model_refine(r, p, o, dz, lead, n_lead, mv, &refine_left, err);
	if (rc == 0 && n_lead)
		rc = hx_model_tighten(r, p, o, dz, lead, n_lead, mv, err);
	summarise(o, dz, levels, mv);
	o->model.budget_out = rc == -EDQUOT;
	free(mv);
	return rc;
}
