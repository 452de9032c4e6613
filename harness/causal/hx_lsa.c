/* SPDX-License-Identifier: MIT */
/*
 * hx_lsa: local sensitivity analysis at a symptomatic point (DESIGN.md "Causal testing" 4).
 *
 * Every plan dimension that is not at its neutral level is moved one level toward neutral
 * and one level away (when the axis has one); a non-scale dimension at neutral is moved one
 * level away on each side and to each end of its axis (a context that aggravates the symptom
 * may sit two levels away: 4 KiB pages beyond 64 KiB ones); each moved point is measured with the plan's
 * repeats through the evaluator. The sensitivity of a move is oriented "away from neutral":
 *   ordered dimension, both levels > 0:  elasticity  ln(y_far / y_near) / ln(x_far / x_near)
 *   categorical, or a level of 0:        relative effect  y_far / y_near - 1  per step
 * with a 95% interval from the delta method on the two means (var ln ybar = s^2 / (n ybar^2),
 * Student's t with the smaller sample's degrees of freedom). A move that changes whether
 * trials fail is maximally sensitive (-1 for bandwidth, +10 for latency); two fully failed
 * points carry no information (sensitivity 0, empty interval). A dimension is a candidate
 * when an interval excludes zero; "undecided" when an estimate is beyond the plan's threshold
 * but its interval still contains zero (more repeats would decide).
 * The moves are listed first and their points measured at once on a pool of slots
 * (hx_eval_prefetch; nothing happens with one slot), then taken in the same order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "harness/causal/hx_causal.h"

static double t975(size_t a, size_t b)
{
	size_t n = a < b ? a : b;

	return n > 1 ? gsl_cdf_tdist_Qinv(0.025, (double)(n - 1)) : 12.7;
}

static bool usable(const struct hx_point_result *r)
{
	return r->failed == 0 && r->s.mean > 0 && isfinite(r->s.mean);
}

/* Sensitivity of moving from NEAR (closer to neutral) to FAR; fills s->sens, lo, hi. */
static void sensitivity(const struct hx_plan *p, enum gen_metric m, double x_near, double x_far,
			const struct hx_point_result *near, const struct hx_point_result *far,
			struct hx_lsa_dim *s)
{
	double dl, se, t, step, thr;

	if (!usable(near) || !usable(far)) {
		if (usable(near) == usable(far) && near->failed == far->failed) {
			s->sens = s->lo = s->hi = 0;
			return;
		}
		s->sens = usable(far) ? (m == GEN_METRIC_BW ? 1.0 : -1.0)
				      : (m == GEN_METRIC_BW ? -1.0 : 10.0);
		s->lo = s->hi = s->sens;
		s->candidate = true;
		return;
	}
	dl = log(far->s.mean / near->s.mean);
	se = sqrt(far->s.sd * far->s.sd / ((double)far->s.n * far->s.mean * far->s.mean) +
		  near->s.sd * near->s.sd / ((double)near->s.n * near->s.mean * near->s.mean));
	t = t975(far->s.n, near->s.n);
	thr = m == GEN_METRIC_BW ? p->thresholds.bw_drop : p->thresholds.lat_rise;
	if (!s->categorical && x_near > 0 && x_far > 0) {
		step = log(x_far / x_near);
		s->sens = dl / step;
		s->lo = (dl - t * se) / step;
		s->hi = (dl + t * se) / step;
		if (s->lo > s->hi) {
			double tmp = s->lo;

			s->lo = s->hi;
			s->hi = tmp;
		}
	} else {
		s->sens = exp(dl) - 1;
		s->lo = exp(dl - t * se) - 1;
		s->hi = exp(dl + t * se) - 1;
	}
	s->candidate = s->lo > 0 || s->hi < 0;
	s->undecided = !s->candidate && fabs(exp(dl) - 1) >= thr;
}

/* Index of LEVEL on AXIS (nearest when absent). */
static unsigned axis_index(const double *axis, unsigned n, double level)
{
	unsigned best = 0;

	for (unsigned i = 1; i < n; i++)
		if (fabs(axis[i] - level) < fabs(axis[best] - level))
			best = i;
	return best;
}

static int one_move(struct hx_eval *e, const struct hx_plan *p, const struct hx_point_result *base,
		    const struct gen_levels *at, const struct hx_point_result *r_at, unsigned i,
		    double to, bool toward, struct hx_lsa *out, struct scn_error *err)
{
	const struct hx_plan_dim *d = &p->dims[i];
	struct hx_lsa_dim *s = &out->d[out->n];
	const struct hx_point_result *r_to;
	struct gen_levels l = *at;
	double from = gen_levels_get(at, d->dim);
	int rc;

	if (gen_levels_set(&l, d->dim, to, NULL) < 0)
		return 0;
	rc = hx_eval_point(e, &l, "lsa", &r_to, err);
	if (rc < 0)
		return rc;
	memset(s, 0, sizeof(*s));
	s->dim = i;
	s->from = from;
	s->to = to;
	s->categorical = d->dim->kind == GEN_DIM_CATEGORICAL;
	s->res = r_to;
	if (toward) {
		sensitivity(p, at->metric, to, from, r_to, r_at, s);
		s->harm = hx_causal_degradation(at->metric, base, r_at) -
			  hx_causal_degradation(at->metric, base, r_to);
	} else {
		sensitivity(p, at->metric, from, to, r_at, r_to, s);
		s->harm = hx_causal_degradation(at->metric, base, r_to) -
			  hx_causal_degradation(at->metric, base, r_at);
	}
	if (s->candidate)
		out->candidates |= 1u << i;
	if (s->undecided)
		out->undecided |= 1u << i;
	if (fabs(s->sens) > out->sens[i])
		out->sens[i] = fabs(s->sens);
	out->n++;
	return 0;
}

/* One step of the analysis: plan dimension DIM moved to TO (toward neutral or away). */
struct lsa_move {
	unsigned dim;
	double to;
	bool toward;
};

/* A dimension at neutral: a non-scale one moves one level away on each side and to each
 * end of its axis (a categorical one to the next category). */
static unsigned moves_from_neutral(const struct hx_plan_dim *d, unsigned i, const double *axis,
				   unsigned n, unsigned k, struct lsa_move *mv)
{
	unsigned m = 0;

	if (d->scale)
		return 0;
	for (unsigned j = 0; j < n; j++)
		if ((d->dim->kind == GEN_DIM_CATEGORICAL && j == (k + 1) % n && j != k) ||
		    (d->dim->kind != GEN_DIM_CATEGORICAL && j != k &&
		     (j + 1 == k || j == k + 1 || j == 0 || j == n - 1)))
			mv[m++] = (struct lsa_move){ i, axis[j], false };
	return m;
}

/* Plan dimension I at AT: its moves into MV, in the order the analysis takes them. */
static unsigned dim_moves(const struct hx_plan *p, const struct gen_levels *at, unsigned i,
			  struct lsa_move *mv)
{
	const struct hx_plan_dim *d = &p->dims[i];
	double axis[HX_PLAN_MAX_LEVELS + 1];
	unsigned n = hx_causal_axis(d, axis), k, kn, m = 0;
	double cur = gen_levels_get(at, d->dim), away = NAN;

	k = axis_index(axis, n, cur);
	if (cur == d->neutral)
		return moves_from_neutral(d, i, axis, n, k, mv);
	kn = axis_index(axis, n, d->neutral);
	if (d->dim->kind == GEN_DIM_CATEGORICAL) {
		mv[m++] = (struct lsa_move){ i, d->neutral, true };
		for (unsigned j = 1; j < n && isnan(away); j++)
			if (axis[(k + j) % n] != d->neutral && (k + j) % n != k)
				away = axis[(k + j) % n];
	} else {
		mv[m++] = (struct lsa_move){ i, axis[kn < k ? k - 1 : k + 1], true };
		if (kn < k && k + 1 < n)
			away = axis[k + 1];
		else if (kn > k && k > 0)
			away = axis[k - 1];
	}
	if (!isnan(away))
		mv[m++] = (struct lsa_move){ i, away, false };
	return m;
}

/* The points of the moves, measured at once on a pool (hx_eval_prefetch). */
static int prefetch_moves(struct hx_eval *e, const struct gen_levels *at,
			  const struct hx_plan *p, const struct lsa_move *mv, unsigned n,
			  struct scn_error *err)
{
	struct gen_levels *pts = calloc(n ? n : 1, sizeof(*pts));
	unsigned np = 0;
	int rc;

	if (!pts)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "analysis: out of memory");
	for (unsigned i = 0; i < n; i++) {
		pts[np] = *at;
		if (gen_levels_set(&pts[np], p->dims[mv[i].dim].dim, mv[i].to, NULL) == 0)
			np++;
	}
	rc = hx_eval_prefetch(e, pts, np, "lsa", err);
	free(pts);
	return rc;
}

int hx_lsa_run(struct hx_eval *e, const struct hx_plan *p, const struct hx_point_result *base,
	       const struct gen_levels *at, struct hx_lsa *out, struct scn_error *err)
{
	const struct hx_point_result *r_at;
	struct lsa_move *mv = calloc(HX_PLAN_MAX_DIMS * (HX_PLAN_MAX_LEVELS + 1), sizeof(*mv));
	unsigned n = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!mv)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "analysis: out of memory");
	rc = hx_eval_point(e, at, "lsa", &r_at, err);
	for (unsigned i = 0; rc == 0 && i < p->n_dims; i++)
		n += dim_moves(p, at, i, mv + n);
	if (rc == 0)
		rc = prefetch_moves(e, at, p, mv, n, err);
	for (unsigned i = 0; rc == 0 && i < n; i++)
		rc = one_move(e, p, base, at, r_at, mv[i].dim, mv[i].to, mv[i].toward, out, err);
	free(mv);
	return rc;
}
