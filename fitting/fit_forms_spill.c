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
 * spillt2, spillt2y, lspillt2, lspillt2y are the same with the table share (the flows
 * past what a table keeps, fit_spill_path.c): [.., x0, w, q, g, A] in place of
 * [.., x0, p, q, g]; their corner starts in the middle of the gap after that level.
 */
#include <math.h>

#include "fitting/fit_internal.h"

static bool swapped(enum fit_form f)
{
	return f == FIT_SPILL2Y || f == FIT_LSPILL2Y || f == FIT_SPILLT2Y || f == FIT_LSPILLT2Y;
}

static bool latency(enum fit_form f)
{
	return f == FIT_LSPILL2 || f == FIT_LSPILL2Y || f == FIT_LSPILLT2 || f == FIT_LSPILLT2Y;
}

bool fit_spill_table(enum fit_form f)
{
	return f >= FIT_SPILLT2 && f <= FIT_LSPILLCT2Y; /* a range of the enum (fit.h) */
}

/* Inputs of FORM as (spilling input, walk input). */
static void split(enum fit_form f, const double in[2], double *c, double *d)
{
	*c = swapped(f) ? in[1] : in[0];
	*d = swapped(f) ? in[0] : in[1];
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
	struct fit_spill_path sp;
	double c, d, m, dm;

	split(f, in, &c, &d);
	if (latency(f)) {
		fit_spill_path(fit_spill_table(f), c, d, p + 3, &sp);
		return p[0] + p[1] * d + p[2] * sp.l;
	}
	fit_spill_path(fit_spill_table(f), c, d, p + 4, &sp);
	m = fit_smax1(p[1] + p[2] * d, &dm);
	return 1 / ((1 - sp.s) * m / p[0] + sp.l / p[3]);
}

void fit_spill_grad(enum fit_form f, const double *p, const double in[2], double *g)
{
	struct fit_spill_path sp;
	double c, d, dm, m, den, k;

	split(f, in, &c, &d);
	if (latency(f)) {
		fit_spill_path(fit_spill_table(f), c, d, p + 3, &sp);
		g[0] = 1;
		g[1] = d;
		g[2] = sp.l;
		for (size_t j = 0; j < sp.n; j++)
			g[3 + j] = p[2] * sp.gl[j];
		return;
	}
	fit_spill_path(fit_spill_table(f), c, d, p + 4, &sp);
	m = fit_smax1(p[1] + p[2] * d, &dm);
	den = (1 - sp.s) * m / p[0] + sp.l / p[3];
	k = -1 / (den * den); /* d value / d den */
	g[0] = k * -(1 - sp.s) * m / (p[0] * p[0]);
	g[1] = k * (1 - sp.s) * dm / p[0];
	g[2] = g[1] * d;
	g[3] = k * -sp.l / (p[3] * p[3]);
	for (size_t j = 0; j < sp.n; j++)
		g[4 + j] = k * (sp.gl[j] / p[3] - sp.gs[j] * m / p[0]);
}

/* The level of the spilling input before the largest change in the mean response from one
 * of its levels to the next (levels in ascending order), and the level after it (*AFTER,
 * 0 when there is none). */
static double corner_guess(size_t n, const double (*x)[2], const double *y, int ci,
			   double *after)
{
	double prev = -INFINITY, prev_mean = NAN, best = -1, at = 0;

	*after = 0;
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
			*after = lvl;
		}
		prev = lvl;
		prev_mean = sum / cnt;
	}
}

/* The table share's corner starts in the geometric middle of the gap with the largest
 * change (it does not move inside a gap), the power share's at the level before it. */
static double corner_start(enum fit_form f, size_t n, const double (*x)[2], const double *y)
{
	double after, at = corner_guess(n, x, y, swapped(f) ? 1 : 0, &after);

	return fit_spill_table(f) && at > 0 && after > at ? sqrt(at * after) : at;
}

/* The last parameters of a spill block after x0 (at P): the power share's p or the table
 * share's w, then q, g, and the table's A. */
static void block_start(enum fit_form f, double x0, double top, double *p)
{
	bool table = fit_spill_table(f);

	p[0] = table ? FIT_SPILL_TABLE_REACH * x0 : 2;
	p[1] = 1e-3 * x0 / (top > 0 ? top : 1);
	p[2] = FIT_SPILL_GROWTH_START;
	if (table)
		p[3] = 1;
}

void fit_spill_guess(enum fit_form f, size_t n, const double (*x)[2], const double *y,
		     double *p)
{
	int ci = swapped(f) ? 1 : 0;
	double hi = 0, lo = INFINITY, top = 0, x0 = corner_start(f, n, x, y);

	for (size_t i = 0; i < n; i++) {
		hi = fmax(hi, y[i]);
		lo = fmin(lo, y[i]);
		top = fmax(top, x[i][1 - ci]);
	}
	if (latency(f)) {
		p[0] = lo;
		p[1] = 0;
		p[2] = hi > lo ? hi - lo : 1.0;
		p[3] = x0 > 0 ? x0 : 1.0;
		block_start(f, p[3], top, p + 4);
		return;
	}
	p[0] = hi > 0 ? hi : 1.0;
	p[1] = 0.5;
	p[2] = top > 0 ? 1.0 / top : 1.0;
	p[3] = lo > 0 ? lo : 0.1 * p[0];
	p[4] = x0 > 0 ? x0 : 1.0;
	block_start(f, p[4], top, p + 5);
}
