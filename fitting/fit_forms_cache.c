/* SPDX-License-Identifier: MIT */
/*
 * fit_forms_cache: steering walks whose probes miss a shared cache (fit.h). A host's
 * steering cache holds a number of masks; past them a share of the lookups goes to host
 * memory. With M = a*x + b*y the load on the cache in units of its capacity (a = 1/r when
 * the r-mask cache holds x's masks, b = 1/r when y's compete for the same cache, b -> 0
 * when they are on another host), the missed share is m = 1 - 1/M past M = 1, else 0
 * (continuous at the corner). Each probe of a walk costs k, a missed one u more, so a walk
 * grows faster once past the cache (the cap forms' 1/(c + k*w) undershoots there), and the
 * rate is set by the slowest of the wire and the two walks (cap2's pipeline):
 *   cache2    L / smax(1, c + P(x)*(k1 + u*m), c + P(y)*(k2 + u*m))  [L, c, k1, k2, u, a, b, s]
 * with P(w) = v(w) = s*(1 - exp(-w/s)) + [w > 0] the probes (the hit probe, then a walk
 * that saturates at scale s, as the cap forms'). Symmetric in the inputs: which of them share a cache is fitted (a, b).
 * Inputs are mask counts: fitted unscaled (raw_x). The start puts the corner at the sum of
 * the inputs before the largest fall of the response along it.
 */
#include <math.h>

#include "fitting/fit_internal.h"

/* v(w) and its derivative in s (*DS). */
static double probes(double w, double s, double *ds)
{
	double e = exp(-w / s);

	*ds = w > 0 ? 1 - e - w / s * e : 0;
	return w > 0 ? s * (1 - e) + 1 : 0;
}

/* The missed share at IN and its derivatives in a and b (G[0], G[1]). */
static double miss(const double *p, const double in[2], double *g)
{
	double m = p[5] * in[0] + p[6] * in[1];

	g[0] = g[1] = 0;
	if (!(m > 1))
		return 0;
	g[0] = in[0] / (m * m);
	g[1] = in[1] / (m * m);
	return 1 - 1 / m;
}

double fit_cache_eval(enum fit_form f, const double *p, const double in[2])
{
	double g[2], d1, d2, ms = miss(p, in, g), s1, s2;

	(void)f;
	return p[0] / fit_smax3(p[1] + probes(in[0], p[7], &s1) * (p[2] + p[4] * ms),
			    p[1] + probes(in[1], p[7], &s2) * (p[3] + p[4] * ms), &d1, &d2);
}

void fit_cache_grad(enum fit_form f, const double *p, const double in[2], double *g)
{
	double gm[2], d1, d2, ms = miss(p, in, gm), s1, s2;
	double px = probes(in[0], p[7], &s1), py = probes(in[1], p[7], &s2);
	double m = fit_smax3(p[1] + px * (p[2] + p[4] * ms), p[1] + py * (p[3] + p[4] * ms), &d1,
			 &d2);
	double dv = -p[0] / (m * m); /* d value / d smax */

	(void)f;
	g[0] = 1 / m;
	g[1] = dv * (d1 + d2);
	g[2] = dv * d1 * px;
	g[3] = dv * d2 * py;
	g[4] = dv * (d1 * px + d2 * py) * ms;
	g[5] = dv * (d1 * px + d2 * py) * p[4] * gm[0];
	g[6] = dv * (d1 * px + d2 * py) * p[4] * gm[1];
	g[7] = dv * (d1 * s1 * (p[2] + p[4] * ms) + d2 * s2 * (p[3] + p[4] * ms));
}

/* The sum of the inputs before the largest fall of the mean response from one of its
 * values to the next (values in ascending order); 0 when there is none. */
static double corner_guess(size_t n, const double (*x)[2], const double *y)
{
	double prev = -INFINITY, prev_mean = NAN, best = 0, at = 0;

	for (;;) {
		double lvl = INFINITY, sum = 0;
		size_t cnt = 0;

		for (size_t i = 0; i < n; i++)
			if (x[i][0] + x[i][1] > prev && x[i][0] + x[i][1] < lvl)
				lvl = x[i][0] + x[i][1];
		if (!isfinite(lvl))
			return at;
		for (size_t i = 0; i < n; i++)
			if (x[i][0] + x[i][1] == lvl) {
				sum += y[i];
				cnt++;
			}
		if (isfinite(prev_mean) && prev_mean - sum / cnt > best) {
			best = prev_mean - sum / cnt;
			at = prev;
		}
		prev = lvl;
		prev_mean = sum / cnt;
	}
}

void fit_cache_guess(enum fit_form f, size_t n, const double (*x)[2], const double *y,
		     double *p)
{
	double hi = 0, lo = INFINITY, top = 0, r = corner_guess(n, x, y);

	(void)f;
	for (size_t i = 0; i < n; i++) {
		hi = fmax(hi, y[i]);
		lo = fmin(lo, y[i]);
		top = fmax(top, fmax(x[i][0], x[i][1]));
	}
	p[0] = hi > 0 ? hi : 1.0;
	p[1] = 0.5;
	p[2] = p[3] = top > 0 ? 0.5 / top : 0.01;
	p[4] = top > 0 && lo > 0 ? fmax(0.01, (hi / lo - 1) / top) : 0.1;
	p[5] = p[6] = r > 0 ? 1 / r : 0.01;
	p[7] = top > 0 ? 4 * top : 100;
}
