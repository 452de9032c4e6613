/* SPDX-License-Identifier: MIT */
/*
 * fit_forms_spillc: a capacity spill in flows whose fast path walks masks that miss a
 * steering cache (fit.h). spill2 / lspill2's fast path is a straight walk in the masks; past
 * the steering cache's capacity each probe of the walk reads host memory and the walk grows
 * faster. With f the flows and w the masks (x and y, or y and x in the "y" forms):
 *   probes  P = w                            the even walk (every mask holding as many
 *           flows), the walk `fit` takes each point's value to (harness/fit/hx_fit_layout.c).
 *           A deal of f flows over w masks walks ~ w^2 / (12 f) less on average, and these
 *           forms once followed that with P = 3f (1 - exp(-w / (3f))); on values already at
 *           the even walk it bent the walk in the flows where the points do not (5.8% above a
 *           perturbed CX-6's send bandwidth at 256 flows and 128 masks, in sample)
 *   misses  m = 1 - min(1, r/w) min(1, Q/f)   the cache holds r masks and the rules of Q
 *           flows; a lookup finds both with the product of the shares
 *   walk    T = c + k P (1 + u m)             per-packet time relative to the wire (u: what a
 *           missed probe costs more than a hit, relative)
 *   spill   s(f) = 1 - (e/f)^p past e = x0 - q w, else 0, its slow load l(f) = s(f)
 *           (f/e)^g (as spill2)
 *   spillc2    1 / ((1 - s) smax(1, T) / L + l / S)      [L, c, k, u, r, Q, S, x0, p, q, g]
 *   lspillc2   a + b P (1 + u m) + D l                   [a, b, u, r, Q, D, x0, p, q, g]
 * spillc2y / lspillc2y take the flows as y; spillct2 ... are the same with the table share
 * (fit_spill_path.c: [.., x0, w, q, g, A]). Below both capacities (m = 0) and with no spill
 * they are the cap / walk forms in the masks. T is homogeneous in (f, w): the forms
 * are fitted on scaled inputs like spill2. The start takes spill2's corner and puts the
 * cache's capacities at the middle of the inputs' ranges.
 */
#include <math.h>

#include "fitting/fit_internal.h"

static bool swapped(enum fit_form f)
{
	return f == FIT_SPILLC2Y || f == FIT_LSPILLC2Y || f == FIT_SPILLCT2Y ||
	       f == FIT_LSPILLCT2Y;
}

static bool latency(enum fit_form f)
{
	return f == FIT_LSPILLC2 || f == FIT_LSPILLC2Y || f == FIT_LSPILLCT2 ||
	       f == FIT_LSPILLCT2Y;
}

/* What a walk costs at (flows F, masks W): P (1 + u m) with its derivatives in u, r, Q
 * (G[0..2]) and the probes P = W (*PR; none without flows). p = [u, r, Q]. */
static double walk(double F, double W, const double *p, double *g, double *pr)
{
	double P = F > 0 ? W : 0;
	double hm = W > p[1] ? p[1] / W : 1, hr = F > p[2] ? p[2] / F : 1, m = 1 - hm * hr;

	*pr = P;
	g[0] = P * m;
	g[1] = W > p[1] ? -P * p[0] * hr / W : 0;
	g[2] = F > p[2] ? -P * p[0] * hm / F : 0;
	return P * (1 + p[0] * m);
}

double fit_spillc_eval(enum fit_form f, const double *p, const double in[2])
{
	double F = swapped(f) ? in[1] : in[0], W = swapped(f) ? in[0] : in[1];
	struct fit_spill_path sp;
	double gw[3], pr, m, dm;

	if (latency(f)) {
		fit_spill_path(fit_spill_table(f), F, W, p + 6, &sp);
		return p[0] + p[1] * walk(F, W, p + 2, gw, &pr) + p[5] * sp.l;
	}
	fit_spill_path(fit_spill_table(f), F, W, p + 7, &sp);
	m = fit_smax1(p[1] + p[2] * walk(F, W, p + 3, gw, &pr), &dm);
	return 1 / ((1 - sp.s) * m / p[0] + sp.l / p[6]);
}

void fit_spillc_grad(enum fit_form f, const double *p, const double in[2], double *g)
{
	double F = swapped(f) ? in[1] : in[0], W = swapped(f) ? in[0] : in[1];
	struct fit_spill_path sp;
	double gw[3], pr, wk, m, dm, den, k, dt;

	if (latency(f)) {
		wk = walk(F, W, p + 2, gw, &pr);
		fit_spill_path(fit_spill_table(f), F, W, p + 6, &sp);
		g[0] = 1;
		g[1] = wk;
		g[5] = sp.l;
		for (int j = 0; j < 3; j++)
			g[2 + j] = p[1] * gw[j];
		for (size_t j = 0; j < sp.n; j++)
			g[6 + j] = p[5] * sp.gl[j];
		return;
	}
	wk = walk(F, W, p + 3, gw, &pr);
	fit_spill_path(fit_spill_table(f), F, W, p + 7, &sp);
	m = fit_smax1(p[1] + p[2] * wk, &dm);
	den = (1 - sp.s) * m / p[0] + sp.l / p[6];
	k = -1 / (den * den);             /* d value / d den */
	dt = k * (1 - sp.s) * dm / p[0]; /* d value / d T */
	g[0] = k * -(1 - sp.s) * m / (p[0] * p[0]);
	g[1] = dt;
	g[2] = dt * wk;
	for (int j = 0; j < 3; j++)
		g[3 + j] = dt * p[2] * gw[j];
	g[6] = k * -sp.l / (p[6] * p[6]);
	for (size_t j = 0; j < sp.n; j++)
		g[7 + j] = k * (sp.gl[j] / p[6] - sp.gs[j] * m / p[0]);
}

/* The middle of the levels of input CI: half-way between its smallest and largest. */
static double middle(size_t n, const double (*x)[2], int ci)
{
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, x[i][ci]);
		hi = fmax(hi, x[i][ci]);
	}
	return hi > 0 ? 0.5 * (lo + hi) : 1.0;
}

/* Intercept and slope (*A, *B) of the response in input WI by least squares over the points
 * at the smallest level of input FI (before any spill); 0 slope when there is no spread. */
static void first_line(size_t n, const double (*x)[2], const double *y, int fi, int wi,
		       double *a, double *b)
{
	double lo = INFINITY, sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		lo = fmin(lo, x[i][fi]);
	for (size_t i = 0; i < n; i++)
		if (x[i][fi] == lo) {
			sx += x[i][wi];
			sy += y[i];
			sxx += x[i][wi] * x[i][wi];
			sxy += x[i][wi] * y[i];
			k++;
		}
	*b = k > 1 && sxx * k - sx * sx > 0 ? (sxy * k - sx * sy) / (sxx * k - sx * sx) : 0;
	*a = k > 0 ? (sy - *b * sx) / k : 0;
}

/* The spill form of F's share whose start F's slow path takes. */
static enum fit_form spill_base(enum fit_form f)
{
	static const enum fit_form base[2][2][2] = {
		{ { FIT_SPILL2, FIT_SPILL2Y }, { FIT_LSPILL2, FIT_LSPILL2Y } },
		{ { FIT_SPILLT2, FIT_SPILLT2Y }, { FIT_LSPILLT2, FIT_LSPILLT2Y } },
	};

	return base[fit_spill_table(f)][latency(f)][swapped(f)];
}

void fit_spillc_guess(enum fit_form f, size_t n, const double (*x)[2], const double *y,
		      double *p)
{
	int fi = swapped(f) ? 1 : 0;
	size_t nb = fit_spill_table(f) ? 5 : 4; /* the spill block: x0 p|w q g (A) */
	double sp[FIT_MAX_PARAMS];

	fit_spill_guess(spill_base(f), n, x, y, sp);
	if (latency(f)) { /* lspill2: a b D x0 .. */
		first_line(n, x, y, fi, 1 - fi, &p[0], &p[1]);
		p[1] = fmax(p[1], 1e-6) / 1.5;
		p[2] = 1;
		p[3] = middle(n, x, 1 - fi);
		p[4] = 4 * middle(n, x, fi);
		p[5] = sp[2];
		for (size_t j = 0; j < nb; j++)
			p[6 + j] = sp[3 + j];
		return;
	}
	/* spill2: L c k S x0 .. */
	p[0] = sp[0];
	p[1] = sp[1];
	p[2] = sp[2];
	p[3] = 1;
	p[4] = middle(n, x, 1 - fi);
	p[5] = middle(n, x, fi);
	p[6] = sp[3];
	for (size_t j = 0; j < nb; j++)
		p[7 + j] = sp[4 + j];
}
