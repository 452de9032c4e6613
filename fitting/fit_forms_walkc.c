/* SPDX-License-Identifier: MIT */
/*
 * fit_forms_walkc: the latency of two walks whose probes miss a steering cache on their
 * host (fit.h). walk2 / plane add a cost per mask on each host; past the host's steering
 * cache (r masks) a share m(w) = 1 - r/w of the lookups reads host memory and each probe
 * costs u (relative) more, so the latency grows faster past r:
 *   walkc2   a + b x (1 + u m(x)) + c y (1 + u m(y)),   m(w) = 1 - r/w past r, else 0
 *            [a, b, c, u, r]   (u, r > 0)
 * x's and y's hosts hold caches of one capacity r (the two hosts of a qualification carry
 * the same RNIC model). With u -> 0 or r beyond every input it is the plane. Homogeneous in
 * the inputs: fitted on scaled inputs. The start is the plane's slopes from the response's
 * range with the cache at the middle of the inputs' range.
 */
#include <math.h>

#include "fitting/fit_internal.h"

double fit_cache_missed(double w, double r, double *dr)
{
	*dr = w > r ? -1 / w : 0;
	return w > r ? 1 - r / w : 0;
}

double fit_walkc_eval(enum fit_form f, const double *p, const double in[2])
{
	double d;

	(void)f;
	return p[0] + p[1] * in[0] * (1 + p[3] * fit_cache_missed(in[0], p[4], &d)) +
	       p[2] * in[1] * (1 + p[3] * fit_cache_missed(in[1], p[4], &d));
}

void fit_walkc_grad(enum fit_form f, const double *p, const double in[2], double *g)
{
	double dx, dy, mx = fit_cache_missed(in[0], p[4], &dx);
	double my = fit_cache_missed(in[1], p[4], &dy);

	(void)f;
	g[0] = 1;
	g[1] = in[0] * (1 + p[3] * mx);
	g[2] = in[1] * (1 + p[3] * my);
	g[3] = p[1] * in[0] * mx + p[2] * in[1] * my;
	g[4] = p[3] * (p[1] * in[0] * dx + p[2] * in[1] * dy);
}

void fit_walkc_guess(enum fit_form f, size_t n, const double (*x)[2], const double *y,
		     double *p)
{
	double lo = INFINITY, hi = -INFINITY, top = 0;

	(void)f;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, y[i]);
		hi = fmax(hi, y[i]);
		top = fmax(top, fmax(x[i][0], x[i][1]));
	}
	p[0] = lo;
	p[1] = p[2] = top > 0 ? 0.5 * (hi - lo) / top : 0;
	p[3] = 0.5;
	p[4] = top > 0 ? 0.5 * top : 1;
}
