/* SPDX-License-Identifier: MIT */
/*
 * fit_forms_pipec: bandwidth set by the slower of the wire and two hosts' steering walks,
 * each of whose probes miss its host's steering cache past r masks (fit.h). cap2's pipeline
 * (the wire, the local walk, the remote walk; the slowest stage sets the rate) with walkc2's
 * walks: a walk over w masks costs k w, and past the cache's r masks a share
 * m(w) = 1 - r/w of the lookups reads host memory, each probe then costing u (relative) more:
 *   pipec2   L / smax(1, c + k1 x (1 + u m(x)), c + k2 y (1 + u m(y)))
 *            [L, c, k1, k2, u, r]   (all > 0)
 * x's and y's hosts hold caches of one capacity r (the two hosts of a qualification carry
 * the same RNIC model). With u -> 0 or r beyond every input it is cap2 with straight walks.
 * Homogeneous in the inputs: fitted on scaled inputs. The start puts the cache at the middle
 * of the inputs' range and each walk's slope where its largest input is twice the wire's
 * time.
 */
#include <math.h>

#include "fitting/fit_internal.h"

/* The two walk stages' times at IN; their misses and d miss / d r into M and DM. */
static void stages(const double *p, const double in[2], double t[2], double m[2],
		   double dm[2])
{
	for (int j = 0; j < 2; j++) {
		m[j] = fit_cache_missed(in[j], p[5], &dm[j]);
		t[j] = p[1] + p[2 + j] * in[j] * (1 + p[4] * m[j]);
	}
}

double fit_pipec_eval(enum fit_form f, const double *p, const double in[2])
{
	double t[2], m[2], dm[2], w1, w2;

	(void)f;
	stages(p, in, t, m, dm);
	return p[0] / fit_smax3(t[0], t[1], &w1, &w2);
}

void fit_pipec_grad(enum fit_form f, const double *p, const double in[2], double *g)
{
	double t[2], m[2], dm[2], w[2];
	double s, d;

	(void)f;
	stages(p, in, t, m, dm);
	s = fit_smax3(t[0], t[1], &w[0], &w[1]);
	d = -p[0] / (s * s); /* d value / d smax */
	g[0] = 1 / s;
	g[1] = d * (w[0] + w[1]);
	g[4] = g[5] = 0;
	for (int j = 0; j < 2; j++) {
		g[2 + j] = d * w[j] * in[j] * (1 + p[4] * m[j]);
		g[4] += d * w[j] * p[2 + j] * in[j] * m[j];
		g[5] += d * w[j] * p[2 + j] * in[j] * p[4] * dm[j];
	}
}

void fit_pipec_guess(enum fit_form f, size_t n, const double (*x)[2], const double *y,
		     double *p)
{
	double hi = 0, top[2] = { 0, 0 }, mid;

	(void)f;
	for (size_t i = 0; i < n; i++) {
		hi = fmax(hi, y[i]);
		top[0] = fmax(top[0], x[i][0]);
		top[1] = fmax(top[1], x[i][1]);
	}
	p[0] = hi > 0 ? hi : 1;
	p[1] = 0.5;
	p[2] = top[0] > 0 ? 1.5 / top[0] : 1;
	p[3] = top[1] > 0 ? 1.5 / top[1] : 1;
	p[4] = 1;
	mid = 0.5 * fmax(top[0], top[1]);
	p[5] = mid > 0 ? mid : 1;
}
