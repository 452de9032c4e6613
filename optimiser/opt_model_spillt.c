/* SPDX-License-Identifier: MIT */
/*
 * opt_model_spillt: the spill forms with the table share (spillt, lspillt, spillct,
 * lspillct and their "y" twins; scalacn-opt.h). Past the corner e = x0 - q*d of the
 * spilling input c, the share in the slow path is that of the flows whose rules come after
 * what a table keeps: s = 1 - clip(A (w/c - 1), 0, 1), every flow past w, and the slow
 * path's load s (c/w)^g. The fast path is spill's (a walk in the other input) or spillc's
 * (a walk that misses a steering cache). Evaluated as fitting/fit_spill_path.c fits them.
 */
#include <math.h>

#include "optimiser/opt_model_priv.h"

bool opt_spillt_block_ok(const double *b)
{
	return b[0] > 0.0 && b[1] > 0.0 && b[2] >= 0.0 && b[3] >= 0.0 && b[4] > 0.0;
}

/* The slow path's share (*S) and load at C past the corner, D the other input; B the block
 * [x0, w, q, g, A]. */
static double slow_load(const double *b, double c, double d, double *s)
{
	double e = b[0] - b[2] * d, kept = b[4] * (b[1] / c - 1.0);

	*s = 0.0;
	if (!(c > e) || !(e > 0.0))
		return 0.0;
	*s = kept >= 1.0 ? 0.0 : kept <= 0.0 ? 1.0 : 1.0 - kept;
	return *s * pow(c / b[1], b[3]);
}

/* spillt [L,c,k,S, block] and spillct [L,c,k,u,r,Q,S, block]: bandwidth, flows C, masks D. */
static double rate(bool cached, bool deal, const double *p, double c, double d)
{
	const double *b = p + (cached ? 7 : 4);
	double s, l = slow_load(b, c, d, &s);
	double walk = cached ? opt_cached_walk(c, d, p[3], p[4], p[5], deal) : d;
	double slow = cached ? p[6] : p[3];

	return 1.0 / ((1.0 - s) * opt_smax1(p[1] + p[2] * walk) / p[0] + l / slow);
}

/* lspillt [a,b,D, block] and lspillct [a,b,u,r,Q,D, block]: latency, flows C, masks D. */
static double latency(bool cached, bool deal, const double *p, double c, double d)
{
	double s, walk = cached ? opt_cached_walk(c, d, p[2], p[3], p[4], deal) : d;

	return p[0] + p[1] * walk + (cached ? p[5] : p[2]) * slow_load(p + (cached ? 6 : 3), c,
									 d, &s);
}

double opt_spillt_value(enum opt_form f, const double *p, double x, double y, bool deal)
{
	switch (f) {
	case OPT_FORM_SPILLT: return rate(false, deal, p, x, y);
	case OPT_FORM_SPILLTY: return rate(false, deal, p, y, x);
	case OPT_FORM_LSPILLT: return latency(false, deal, p, x, y);
	case OPT_FORM_LSPILLTY: return latency(false, deal, p, y, x);
	case OPT_FORM_SPILLCT: return rate(true, deal, p, x, y);
	case OPT_FORM_SPILLCTY: return rate(true, deal, p, y, x);
	case OPT_FORM_LSPILLCT: return latency(true, deal, p, x, y);
	case OPT_FORM_LSPILLCTY: return latency(true, deal, p, y, x);
	default: return NAN;
	}
}
