/* SPDX-License-Identifier: MIT */
/*
 * fit_forms_spill: capacity walls with a hard corner (fit.h). Past a capacity in one input
 * (offloaded flows past the rule or steering-cache capacity), part of the load spills to a
 * slow path (software). The capacity e = x0 - q*y is shared with the other input (q >= 0:
 * what one unit of y, a mask, costs of the table that holds x's rules). Past e the share
 * that spills is s(x) = 1 - (e/x)^p, else 0: continuous at the corner, growing at a speed p
 * set by the popularity of what spills (a large p: nearly a jump). A spilled share moves at
 * the slow path's rate, the rest at the fast path's, the cap forms' walk bottleneck in the
 * other input; rates mix harmonically (time per bit adds), latencies add. The slow path
 * holds what spilled and its time per packet grows with it: S at the corner, S (e/x)^g past
 * it (g >= 0; a software table that slows as it fills), so the slow load is
 * l(x) = s(x) (x/e)^g:
 *   spill2    1 / ((1 - s(x)) * smax(1, c + k*y) / L + l(x) / S)   [L, c, k, S, x0, p, q, g]
 *   lspill2   a + b*y + D*l(x)                                       [a, b, D, x0, p, q, g]
 * and spill2y / lspill2y with x and y swapped. Unlike cliff2's logistic, the corner is
 * sharp and the fall beyond it need not end on a plateau. The start puts x0 at the level
 * before the largest change of the response along the spilling input.
 */
#include <math.h>

#include "fitting/fit_internal.h"

static bool swapped(enum fit_form f)
{
	return f == FIT_SPILL2Y || f == FIT_LSPILL2Y;
}

/* Inputs of FORM as (spilling input, walk input). */
static void split(enum fit_form f, const double in[2], double *c, double *d)
{
	*c = swapped(f) ? in[1] : in[0];
	*d = swapped(f) ? in[0] : in[1];
}

double fit_spill_share(double c, double d, const double *p, double *g)
{
	double e = p[0] - p[2] * d, r, w;

	g[0] = g[1] = g[2] = 0;
	if (!(c > e) || !(e > 0))
		return 0;
	r = e / c;
	w = pow(r, p[1]);
	g[0] = -p[1] * w / e;
	g[1] = -w * log(r);
	g[2] = -g[0] * d;
	return 1 - w;
}

double fit_spill_load(double c, double d, const double *p, double s, const double *gs,
		      double *gl)
{
	double e = p[0] - p[2] * d, t, lr;

	gl[0] = gl[1] = gl[2] = gl[3] = 0;
	if (!(c > e) || !(e > 0))
		return 0;
	lr = log(c / e);
	t = exp(p[3] * lr);
	gl[0] = gs[0] * t - s * t * p[3] / e;
	gl[1] = gs[1] * t;
	gl[2] = gs[2] * t + s * t * p[3] * d / e;
	gl[3] = s * t * lr;
	return s * t;
}

double fit_smax1(double t, double *dm)
{
	double r, m;

	if (!(t > 0)) {
		*dm = 0;
		return 1;
	}
	r = pow(fmin(t, 1 / t), FIT_CAP_SHARPNESS);
	m = fmax(t, 1) * pow(1 + r, 1 / FIT_CAP_SHARPNESS);
	*dm = pow(t / m, FIT_CAP_SHARPNESS - 1);
	return m;
}

double fit_spill_eval(enum fit_form f, const double *p, const double in[2])
{
	double c, d, g[3], gl[4], m, dm, s;

	split(f, in, &c, &d);
	if (f == FIT_LSPILL2 || f == FIT_LSPILL2Y) {
		s = fit_spill_share(c, d, p + 3, g);
		return p[0] + p[1] * d + p[2] * fit_spill_load(c, d, p + 3, s, g, gl);
	}
	s = fit_spill_share(c, d, p + 4, g);
	m = fit_smax1(p[1] + p[2] * d, &dm);
	return 1 / ((1 - s) * m / p[0] + fit_spill_load(c, d, p + 4, s, g, gl) / p[3]);
}

void fit_spill_grad(enum fit_form f, const double *p, const double in[2], double *g)
{
	double c, d, gs[3], gl[4], dm, m, s, l, den, k;

	split(f, in, &c, &d);
	if (f == FIT_LSPILL2 || f == FIT_LSPILL2Y) {
		s = fit_spill_share(c, d, p + 3, gs);
		g[0] = 1;
		g[1] = d;
		g[2] = fit_spill_load(c, d, p + 3, s, gs, gl);
		for (int j = 0; j < 4; j++)
			g[3 + j] = p[2] * gl[j];
		return;
	}
	s = fit_spill_share(c, d, p + 4, gs);
	l = fit_spill_load(c, d, p + 4, s, gs, gl);
	m = fit_smax1(p[1] + p[2] * d, &dm);
	den = (1 - s) * m / p[0] + l / p[3];
	k = -1 / (den * den); /* d value / d den */
	g[0] = k * -(1 - s) * m / (p[0] * p[0]);
	g[1] = k * (1 - s) * dm / p[0];
	g[2] = g[1] * d;
	g[3] = k * -l / (p[3] * p[3]);
	for (int j = 0; j < 3; j++)
		g[4 + j] = k * (gl[j] / p[3] - gs[j] * m / p[0]);
	g[7] = k * gl[3] / p[3];
}

/* The level of the spilling input before the largest change in the mean response from one
 * of its levels to the next (levels in ascending order). */
static double corner_guess(size_t n, const double (*x)[2], const double *y, int ci)
{
	double prev = -INFINITY, prev_mean = NAN, best = -1, at = 0;

	for (;;) {
		double lvl = INFINITY, sum = 0;
		size_t cnt = 0;

		for (size_t i = 0; i < n; i++)
			if (x[i][ci] > prev && x[i][ci] < lvl)
				lvl = x[i][ci];
		if (!isfinite(lvl))
			return at > 0 ? at : 0.5 * prev;
		for (size_t i = 0; i < n; i++)
			if (x[i][ci] == lvl) {
				sum += y[i];
				cnt++;
			}
		if (isfinite(prev_mean) && fabs(sum / cnt - prev_mean) > best) {
			best = fabs(sum / cnt - prev_mean);
			at = prev;
		}
		prev = lvl;
		prev_mean = sum / cnt;
	}
}

void fit_spill_guess(enum fit_form f, size_t n, const double (*x)[2], const double *y,
		     double *p)
{
	int ci = swapped(f) ? 1 : 0;
	double hi = 0, lo = INFINITY, top = 0, x0 = corner_guess(n, x, y, ci);

	for (size_t i = 0; i < n; i++) {
		hi = fmax(hi, y[i]);
		lo = fmin(lo, y[i]);
		top = fmax(top, x[i][1 - ci]);
	}
	if (f == FIT_LSPILL2 || f == FIT_LSPILL2Y) {
		p[0] = lo;
		p[1] = 0;
		p[2] = hi > lo ? hi - lo : 1.0;
		p[3] = x0 > 0 ? x0 : 1.0;
		p[4] = 2;
		p[5] = 1e-3 * p[3] / (top > 0 ? top : 1);
		p[6] = FIT_SPILL_GROWTH_START;
		return;
	}
	p[0] = hi > 0 ? hi : 1.0;
	p[1] = 0.5;
	p[2] = top > 0 ? 1.0 / top : 1.0;
	p[3] = lo > 0 ? lo : 0.1 * p[0];
	p[4] = x0 > 0 ? x0 : 1.0;
	p[5] = 2;
	p[6] = 1e-3 * p[4] / (top > 0 ? top : 1);
	p[7] = FIT_SPILL_GROWTH_START;
}
