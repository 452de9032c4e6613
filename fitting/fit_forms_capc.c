/* SPDX-License-Identifier: MIT */
/*
 * fit_forms_capc: bandwidth set by one steering walk over both inputs' masks on one host,
 * whose probes miss that host's steering cache (fit.h). With one walk through every group
 * of a table (a shared tree: a lookup of either direction walks them all) the probes grow
 * with both inputs together, k1 per x mask and k2 per y mask; past the cache's r masks (x
 * and y fill it together) a share m = 1 - r/(x + y) of the lookups reads host memory and
 * each probe costs u (relative) more. The rate is set by the slower of the wire and the
 * walk (cap2's pipeline with one walk stage):
 *   capc2   L / smax(1, c + (k1 x + k2 y)(1 + u m)),  m = 1 - r/(x + y) past r, else 0
 *           [L, c, k1, k2, u, r]   (all > 0)
 * Homogeneous in the inputs: fitted on scaled inputs. The start puts the cache at the
 * middle of the inputs' summed range and the walk's slopes where the largest sum of the
 * inputs is twice the wire's time.
 */
#include <math.h>

#include "fitting/fit_internal.h"

double fit_capc_eval(enum fit_form f, const double *p, const double in[2])
{
	double w = in[0] + in[1], m = w > p[5] ? 1 - p[5] / w : 0, dm;

	(void)f;
	return p[0] / fit_smax1(p[1] + (p[2] * in[0] + p[3] * in[1]) * (1 + p[4] * m), &dm);
}

void fit_capc_grad(enum fit_form f, const double *p, const double in[2], double *g)
{
	double w = in[0] + in[1], m = w > p[5] ? 1 - p[5] / w : 0, dmr = w > p[5] ? -1 / w : 0;
	double pr = p[2] * in[0] + p[3] * in[1], dm, s = fit_smax1(p[1] + pr * (1 + p[4] * m), &dm);
	double dt = -p[0] / (s * s) * dm; /* d value / d walk time */

	(void)f;
	g[0] = 1 / s;
	g[1] = dt;
	g[2] = dt * in[0] * (1 + p[4] * m);
	g[3] = dt * in[1] * (1 + p[4] * m);
	g[4] = dt * pr * m;
	g[5] = dt * pr * p[4] * dmr;
}

void fit_capc_guess(enum fit_form f, size_t n, const double (*x)[2], const double *y,
		    double *p)
{
	double hi = 0, top = 0;

	(void)f;
	for (size_t i = 0; i < n; i++) {
		hi = fmax(hi, y[i]);
		top = fmax(top, x[i][0] + x[i][1]);
	}
	p[0] = hi > 0 ? hi : 1;
	p[1] = 0.5;
	p[2] = p[3] = top > 0 ? 1.5 / top : 1;
	p[4] = 1;
	p[5] = top > 0 ? 0.5 * top : 1;
}
