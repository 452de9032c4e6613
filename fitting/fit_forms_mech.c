/* SPDX-License-Identifier: MIT */
/*
 * fit_forms_mech: the mechanism-following forms of fit.h (cap, cap2, walk, walk2): values,
 * analytic gradients and heuristic starts. Pure functions; fit_forms.c dispatches here.
 *
 * Both families share the probes of a steering walk over m masks,
 *     v(m) = u(m) + [m > 0],   u(m) = s (1 - exp(-m/s)):
 * a lookup probes masks until it reaches the one holding its flow's rule. With flows spread
 * over the masks the mean walk is (m + 1)/2 probes: it grows linearly with m, plus the hit
 * probe that any lookup into m > 0 masks pays (the indicator is of the input, so the
 * Jacobian in the parameters exists everywhere; the walk's slope absorbs the factor 1/2).
 * It saturates when masks approach the number of flows: masks beyond it hold none and are
 * never reached, and with a few flows per mask the earlier masks hold more of them (the mean walk of F flows dealt over m masks is
 * ~(m + 1)/2 - m^2/(12 F)); s is that saturation scale and u(m) -> m as s -> infinity.
 * Because the hit probe is one mask, these forms take mask counts as they are: fit_nls does
 * not rescale their inputs (fit_form_ext.raw_x).
 *
 * cap2 is a pipeline whose slowest stage sets the rate: the wire (relative time 1), the
 * local walk c + k1 v(x) and the remote walk c + k2 v(y) (c = per-packet time without walk,
 * relative to the wire time, shared by both hosts). The maximum of the three is taken
 * smoothly as a p-norm with FIT_CAP_SHARPNESS, so the Jacobian exists everywhere; its
 * largest overshoot over the hard maximum, where two stages are exactly equal, is
 * 2^(1/32) - 1 = 2.2%, and < 0.1% once one stage is 20% slower than the others. cap (one
 * input) is cap2 with k2 = 0: the idle remote stage keeps its base time c inside the
 * maximum, so lifting cap to cap2 is exact. walk2 is the latency of the two walks:
 * a + b v(x) + c v(y); walk is walk2 with c = 0.
 */
#include <math.h>
#include <stdbool.h>

#include "fitting/fit_internal.h"

/* Probes of a walk over m masks with saturation scale s, and d/ds of it. */
static double sat(double m, double s)
{
	return -s * expm1(-m / s);
}

static double sat_ds(double m, double s)
{
	double z = m / s;
	return -expm1(-z) - z * exp(-z);
}

/* The hit probe: a lookup into m > 0 masks probes at least the one holding its rule. */
static double hit(double m)
{
	return m > 0 ? 1.0 : 0.0;
}

double fit_smax3(double t1, double t2, double *w1, double *w2)
{
	const double n = FIT_CAP_SHARPNESS;
	double a = t1 > 0 ? t1 : 0, b = t2 > 0 ? t2 : 0;
	double top = fmax(1.0, fmax(a, b));
	double sum = pow(1.0 / top, n) + pow(a / top, n) + pow(b / top, n);
	double m = top * pow(sum, 1.0 / n);

	*w1 = a > 0 ? pow(a / m, n - 1) : 0;
	*w2 = b > 0 ? pow(b / m, n - 1) : 0;
	return m;
}

/* cap2 at (x, y) with p = L c k1 k2 s; gradient into g[5] when g != NULL. */
static double cap2(const double *p, double x, double y, double *g)
{
	double ux = sat(x, p[4]) + hit(x), uy = sat(y, p[4]) + hit(y), w1, w2;
	double m = fit_smax3(p[1] + p[2] * ux, p[1] + p[3] * uy, &w1, &w2);
	double d = -p[0] / (m * m);

	if (g) {
		g[0] = 1.0 / m;
		g[1] = d * (w1 + w2);
		g[2] = d * w1 * ux;
		g[3] = d * w2 * uy;
		g[4] = d * (w1 * p[2] * sat_ds(x, p[4]) + w2 * p[3] * sat_ds(y, p[4]));
	}
	return p[0] / m;
}

double fit_mech_eval(enum fit_form form, const double *p, const double in[2])
{
	switch (form) {
	case FIT_CAP: {
		const double q[5] = { p[0], p[1], p[2], 0.0, p[3] };
		return cap2(q, in[0], 0.0, NULL);
	}
	case FIT_CAP2: return cap2(p, in[0], in[1], NULL);
	case FIT_WALK: return p[0] + p[1] * (sat(in[0], p[2]) + hit(in[0]));
	case FIT_WALK2:
		return p[0] + p[1] * (sat(in[0], p[3]) + hit(in[0])) +
		       p[2] * (sat(in[1], p[3]) + hit(in[1]));
	default: break;
	}
	return NAN;
}

void fit_mech_grad(enum fit_form form, const double *p, const double in[2], double *g)
{
	double x = in[0], y = in[1], g5[5];

	switch (form) {
	case FIT_CAP: {
		const double q[5] = { p[0], p[1], p[2], 0.0, p[3] };
		cap2(q, x, 0.0, g5);
		g[0] = g5[0];
		g[1] = g5[1];
		g[2] = g5[2];
		g[3] = g5[4];
		return;
	}
	case FIT_CAP2: cap2(p, x, y, g); return;
	case FIT_WALK:
		g[0] = 1;
		g[1] = sat(x, p[2]) + hit(x);
		g[2] = p[1] * sat_ds(x, p[2]);
		return;
	case FIT_WALK2:
		g[0] = 1;
		g[1] = sat(x, p[3]) + hit(x);
		g[2] = sat(y, p[3]) + hit(y);
		g[3] = p[1] * sat_ds(x, p[3]) + p[2] * sat_ds(y, p[3]);
		return;
	default: break;
	}
}

/* cap start (inputs in masks, response scaled): L = the largest response, c = 0.5, s =
 * twice the largest input, k from the point where input J is largest (its wall just reached
 * there). */
static double cap_k(size_t n, const double (*x)[2], const double *y, size_t j, double L,
		    double s)
{
	size_t hi = 0;
	double k;

	for (size_t i = 1; i < n; i++)
		if (x[i][j] > x[hi][j])
			hi = i;
	k = (y[hi] > 0 && x[hi][j] > 0) ? (L / y[hi] - 0.5) / (sat(x[hi][j], s) + 1) : 1e-2;
	return k > 1e-4 ? k : 1e-4;
}

void fit_mech_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		    double *p)
{
	double lo = y[0], hi = y[0], top = 0, s;
	bool two = form == FIT_CAP2 || form == FIT_WALK2;

	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, y[i]);
		hi = fmax(hi, y[i]);
		top = fmax(top, fmax(x[i][0], two ? x[i][1] : 0));
	}
	s = top > 0 ? 2 * top : 1.0;
	switch (form) {
	case FIT_CAP:
	case FIT_CAP2:
		p[0] = hi > 0 ? hi : 1.0;
		p[1] = 0.5;
		p[2] = cap_k(n, x, y, 0, p[0], s);
		if (form == FIT_CAP) {
			p[3] = s;
			return;
		}
		p[3] = cap_k(n, x, y, 1, p[0], s);
		p[4] = s;
		return;
	case FIT_WALK:
		p[0] = lo;
		p[1] = (hi - lo) / (top + 1);
		p[2] = s;
		return;
	case FIT_WALK2:
		p[0] = lo;
		p[1] = p[2] = 0.5 * (hi - lo) / (top + 1);
		p[3] = s;
		return;
	default: break;
	}
}
