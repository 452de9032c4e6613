/* SPDX-License-Identifier: MIT */
/*
 * fit_forms_cliff: the capacity-cliff forms (fit.h): a pipeline that is flat until a
 * steering walk becomes the bottleneck in one input (each probed mask adds service time,
 * as in cap) times a smooth logistic cliff in the other (flows past the steering cache go
 * to software: the paper's S1).
 *   cliff2   L / smax(1, c + k*y) * (1 - h * sig((x - x0) / w))   cliff in x, walk in y
 *   cliff2y  L / smax(1, c + k*x) * (1 - h * sig((y - x0) / w))   the same, inputs swapped
 * with sig(z) = 1 / (1 + exp(-z)) and smax(1, t) = (1 + t^32)^(1/32) (t < 0 counts as 0),
 * the cap forms' smooth maximum; parameters [L, c, k, h, x0, w], all positive. Which input
 * has the cliff is not known in advance, so both orders are candidates.
 */
#include <math.h>

#include "fitting/fit_internal.h"

static double sig(double z)
{
	if (z >= 0)
		return 1.0 / (1.0 + exp(-z));
	return exp(z) / (1.0 + exp(z));
}

/* Inputs of FORM as (cliff input, walk input). */
static void split(enum fit_form form, const double in[2], double *c, double *d)
{
	*c = form == FIT_CLIFF2 ? in[0] : in[1];
	*d = form == FIT_CLIFF2 ? in[1] : in[0];
}

/* smax(1, t) and its derivative in t. */
static double smax1(double t, double *dm)
{
	double r, m;

	if (!(t > 0)) {
		*dm = 0;
		return 1;
	}
	if (t < 1) {
		r = pow(t, FIT_CAP_SHARPNESS);
		m = pow(1 + r, 1 / FIT_CAP_SHARPNESS);
		*dm = r / t / pow(m, FIT_CAP_SHARPNESS - 1);
		return m;
	}
	r = pow(1 / t, FIT_CAP_SHARPNESS); /* no overflow for large t */
	m = t * pow(1 + r, 1 / FIT_CAP_SHARPNESS);
	*dm = pow(t / m, FIT_CAP_SHARPNESS - 1);
	return m;
}

double fit_cliff_eval(enum fit_form form, const double *p, const double in[2])
{
	double c, d, dm;

	split(form, in, &c, &d);
	return p[0] / smax1(p[1] + p[2] * d, &dm) * (1 - p[3] * sig((c - p[4]) / p[5]));
}

void fit_cliff_grad(enum fit_form form, const double *p, const double in[2], double *g)
{
	double c, d, dm, m, z, s, ds, cl;

	split(form, in, &c, &d);
	m = smax1(p[1] + p[2] * d, &dm);
	z = (c - p[4]) / p[5];
	s = sig(z);
	ds = s * (1 - s);
	cl = 1 - p[3] * s;
	g[0] = cl / m;
	g[1] = -p[0] * cl / (m * m) * dm;
	g[2] = g[1] * d;
	g[3] = -p[0] / m * s;
	g[4] = p[0] / m * p[3] * ds / p[5];
	g[5] = p[0] / m * p[3] * ds * z / p[5];
}

/* Start: L the largest response, the cliff half-way up its input's range, its depth from the
 * spread of the response, the walk becoming the bottleneck half-way up the other input. */
void fit_cliff_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		     double *p)
{
	int ci = form == FIT_CLIFF2 ? 0 : 1;
	double hi = 0, lo = INFINITY, top = 0, cmax = 0;

	for (size_t i = 0; i < n; i++) {
		hi = fmax(hi, y[i]);
		lo = fmin(lo, y[i]);
		top = fmax(top, x[i][1 - ci]);
		cmax = fmax(cmax, x[i][ci]);
	}
	p[0] = hi > 0 ? hi : 1.0;
	p[1] = 0.5;
	p[2] = top > 0 ? 1.0 / top : 1.0;
	p[3] = hi > 0 && lo >= 0 ? fmin(0.9, fmax(0.1, 1 - lo / hi)) : 0.5;
	p[4] = cmax > 0 ? 0.5 * cmax : 1.0;
	p[5] = cmax > 0 ? 0.05 * cmax : 1.0;
}
