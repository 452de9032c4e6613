/* SPDX-License-Identifier: MIT */
/*
 * fit_forms: the model forms (fit.h table): names, parameter names and units, values,
 * analytic gradients, and heuristic starting points in scaled space. Pure functions.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "fitting/fit_internal.h"

static const struct fit_form_info forms[FIT_FORM_COUNT] = {
	[FIT_RBF2] = { FIT_RBF2, "rbf2", "a*exp(-((x-b)^2+(y-c)^2)/(2 d^2)) + e", 5, 2, false,
		       { "a", "b", "c", "d", "e" } },
	[FIT_RBF1] = { FIT_RBF1, "rbf1", "a*exp(-(x-b)^2/(2 d^2)) + e", 4, 1, false,
		       { "a", "b", "d", "e" } },
	[FIT_PLANE] = { FIT_PLANE, "plane", "a*x + b*y + c", 3, 2, true, { "a", "b", "c" } },
	[FIT_LINE] = { FIT_LINE, "line", "a*x + b", 2, 1, true, { "a", "b" } },
	[FIT_SERVICE] = { FIT_SERVICE, "service", "L / (1 + k*x)", 2, 1, false, { "L", "k" } },
	[FIT_SERVICE2] = { FIT_SERVICE2, "service2", "L / (1 + k1*x + k2*y)", 3, 2, false,
			   { "L", "k1", "k2" } },
	[FIT_KNEE] = { FIT_KNEE, "knee", "l + (h - l) / (1 + exp((x - x0)/w))", 4, 1, false,
		       { "h", "l", "x0", "w" } },
	[FIT_CAP] = { FIT_CAP, "cap", "L / smax(1, c + k*v(x), c)", 4, 1, false,
		      { "L", "c", "k", "s" } },
	[FIT_CAP2] = { FIT_CAP2, "cap2", "L / smax(1, c + k1*v(x), c + k2*v(y))", 5, 2, false,
		       { "L", "c", "k1", "k2", "s" } },
	[FIT_WALK] = { FIT_WALK, "walk", "a + b*v(x)", 3, 1, false, { "a", "b", "s" } },
	[FIT_WALK2] = { FIT_WALK2, "walk2", "a + b*v(x) + c*v(y)", 4, 2, false,
			{ "a", "b", "c", "s" } },
	[FIT_CLIFF2] = { FIT_CLIFF2, "cliff2", "L / smax(1, c + k*y) * (1 - h*sig((x - x0)/w))",
			 6, 2, false, { "L", "c", "k", "h", "x0", "w" } },
	[FIT_CLIFF2Y] = { FIT_CLIFF2Y, "cliff2y",
			  "L / smax(1, c + k*x) * (1 - h*sig((y - x0)/w))", 6, 2, false,
			  { "L", "c", "k", "h", "x0", "w" } },
	[FIT_SPILL2] = { FIT_SPILL2, "spill2", "1 / ((1-s(x)) smax(1, c + k*y) / L + l(x) / S)",
			 8, 2, false, { "L", "c", "k", "S", "x0", "p", "q", "g" } },
	[FIT_SPILL2Y] = { FIT_SPILL2Y, "spill2y", "1 / ((1-s(y)) smax(1, c + k*x) / L + l(y) / S)",
			  8, 2, false, { "L", "c", "k", "S", "x0", "p", "q", "g" } },
	[FIT_LSPILL2] = { FIT_LSPILL2, "lspill2", "a + b*y + D*l(x)", 7, 2, false,
			  { "a", "b", "D", "x0", "p", "q", "g" } },
	[FIT_LSPILL2Y] = { FIT_LSPILL2Y, "lspill2y", "a + b*x + D*l(y)", 7, 2, false,
			   { "a", "b", "D", "x0", "p", "q", "g" } },
	[FIT_CACHE2] = { FIT_CACHE2, "cache2",
			 "L / smax(1, c + v(x) (k1 + u*m), c + v(y) (k2 + u*m)), m = 1 - 1/(a*x + b*y)",
			 8, 2, false, { "L", "c", "k1", "k2", "u", "a", "b", "s" } },
	[FIT_SPILLC2] = { FIT_SPILLC2, "spillc2",
			  "1 / ((1-s(x)) smax(1, c + k*y*(1 + u*m)) / L + l(x) / S), "
			  "m = 1 - min(1, r/y) min(1, Q/x)", 11, 2, false,
			  { "L", "c", "k", "u", "r", "Q", "S", "x0", "p", "q", "g" } },
	[FIT_SPILLC2Y] = { FIT_SPILLC2Y, "spillc2y",
			   "1 / ((1-s(y)) smax(1, c + k*x*(1 + u*m)) / L + l(y) / S), "
			   "m = 1 - min(1, r/x) min(1, Q/y)", 11, 2,
			   false,
			   { "L", "c", "k", "u", "r", "Q", "S", "x0", "p", "q", "g" } },
	[FIT_LSPILLC2] = { FIT_LSPILLC2, "lspillc2",
			   "a + b*y*(1 + u*m) + D*l(x), "
			   "m = 1 - min(1, r/y) min(1, Q/x)", 10, 2, false,
			   { "a", "b", "u", "r", "Q", "D", "x0", "p", "q", "g" } },
	[FIT_LSPILLC2Y] = { FIT_LSPILLC2Y, "lspillc2y",
			    "a + b*x*(1 + u*m) + D*l(y), "
			    "m = 1 - min(1, r/x) min(1, Q/y)", 10, 2, false,
			    { "a", "b", "u", "r", "Q", "D", "x0", "p", "q", "g" } },
	[FIT_WALKC2] = { FIT_WALKC2, "walkc2",
			 "a + b*x*(1 + u*m(x)) + c*y*(1 + u*m(y)), m(w) = 1 - r/w past r", 5, 2,
			 false, { "a", "b", "c", "u", "r" } },
	[FIT_CAPC2] = { FIT_CAPC2, "capc2",
			"L / smax(1, c + (k1*x + k2*y)*(1 + u*m)), m = 1 - r/(x + y) past r", 6, 2,
			false, { "L", "c", "k1", "k2", "u", "r" } },
	[FIT_SPILLT2] = { FIT_SPILLT2, "spillt2", "1 / ((1-s(x)) smax(1, c + k*y) / L + l(x) / S)",
			  9, 2, false, { "L", "c", "k", "S", "x0", "w", "q", "g", "A" } },
	[FIT_SPILLT2Y] = { FIT_SPILLT2Y, "spillt2y",
			   "1 / ((1-s(y)) smax(1, c + k*x) / L + l(y) / S)", 9, 2, false,
			   { "L", "c", "k", "S", "x0", "w", "q", "g", "A" } },
	[FIT_LSPILLT2] = { FIT_LSPILLT2, "lspillt2", "a + b*y + D*l(x)", 8, 2, false,
			   { "a", "b", "D", "x0", "w", "q", "g", "A" } },
	[FIT_LSPILLT2Y] = { FIT_LSPILLT2Y, "lspillt2y", "a + b*x + D*l(y)", 8, 2, false,
			    { "a", "b", "D", "x0", "w", "q", "g", "A" } },
	[FIT_SPILLCT2] = { FIT_SPILLCT2, "spillct2",
			   "1 / ((1-s(x)) smax(1, c + k*y*(1 + u*m)) / L + l(x) / S), "
			   "m = 1 - min(1, r/y) min(1, Q/x)", 12, 2,
			   false, { "L", "c", "k", "u", "r", "Q", "S", "x0", "w", "q", "g", "A" } },
	[FIT_SPILLCT2Y] = { FIT_SPILLCT2Y, "spillct2y",
			    "1 / ((1-s(y)) smax(1, c + k*x*(1 + u*m)) / L + l(y) / S), "
			    "m = 1 - min(1, r/x) min(1, Q/y)", 12, 2,
			    false, { "L", "c", "k", "u", "r", "Q", "S", "x0", "w", "q", "g", "A" } },
	[FIT_LSPILLCT2] = { FIT_LSPILLCT2, "lspillct2",
			    "a + b*y*(1 + u*m) + D*l(x), "
			    "m = 1 - min(1, r/y) min(1, Q/x)", 11, 2, false,
			    { "a", "b", "u", "r", "Q", "D", "x0", "w", "q", "g", "A" } },
	[FIT_LSPILLCT2Y] = { FIT_LSPILLCT2Y, "lspillct2y",
			     "a + b*x*(1 + u*m) + D*l(y), "
			     "m = 1 - min(1, r/x) min(1, Q/y)", 11, 2, false,
			     { "a", "b", "u", "r", "Q", "D", "x0", "w", "q", "g", "A" } },
	[FIT_PIPEC2] = { FIT_PIPEC2, "pipec2",
			 "L / smax(1, c + k1*x*(1 + u*m(x)), c + k2*y*(1 + u*m(y))), "
			 "m(w) = 1 - r/w past r", 6, 2, false, { "L", "c", "k1", "k2", "u", "r" } },
};

static const struct fit_form_ext exts[FIT_FORM_COUNT] = {
	[FIT_RBF2] = { { FIT_U_Y, FIT_U_X, FIT_U_X, FIT_U_X, FIT_U_Y },
		       { false, false, false, true, false }, false },
	[FIT_RBF1] = { { FIT_U_Y, FIT_U_X, FIT_U_X, FIT_U_Y }, { false, false, true, false },
		       false },
	[FIT_PLANE] = { { FIT_U_YPERX, FIT_U_YPERX, FIT_U_Y }, { false, false, false }, false },
	[FIT_LINE] = { { FIT_U_YPERX, FIT_U_Y }, { false, false }, false },
	[FIT_SERVICE] = { { FIT_U_Y, FIT_U_INVX }, { true, true }, false },
	[FIT_SERVICE2] = { { FIT_U_Y, FIT_U_INVX, FIT_U_INVX }, { true, true, true },
			   false },
	[FIT_KNEE] = { { FIT_U_Y, FIT_U_Y, FIT_U_X, FIT_U_X }, { false, false, false, true },
		       false },
	[FIT_CAP] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_X }, { true, true, true, true },
		      true },
	[FIT_CAP2] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_INVX, FIT_U_X },
		       { true, true, true, true, true }, true },
	[FIT_WALK] = { { FIT_U_Y, FIT_U_YPERX, FIT_U_X }, { false, false, true }, true },
	[FIT_WALK2] = { { FIT_U_Y, FIT_U_YPERX, FIT_U_YPERX, FIT_U_X },
			{ false, false, false, true }, true },
	[FIT_CLIFF2] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_ONE, FIT_U_X, FIT_U_X },
			 { true, true, true, true, true, true }, false },
	[FIT_CLIFF2Y] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_ONE, FIT_U_X, FIT_U_X },
			  { true, true, true, true, true, true }, false },
	[FIT_SPILL2] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_Y, FIT_U_X, FIT_U_ONE,
			   FIT_U_ONE, FIT_U_ONE },
			 { true, true, true, true, true, true, true, true }, false },
	[FIT_SPILL2Y] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_Y, FIT_U_X, FIT_U_ONE,
			    FIT_U_ONE, FIT_U_ONE },
			  { true, true, true, true, true, true, true, true }, false },
	[FIT_LSPILL2] = { { FIT_U_Y, FIT_U_YPERX, FIT_U_Y, FIT_U_X, FIT_U_ONE, FIT_U_ONE,
			    FIT_U_ONE },
			  { false, false, true, true, true, true, true }, false },
	[FIT_LSPILL2Y] = { { FIT_U_Y, FIT_U_YPERX, FIT_U_Y, FIT_U_X, FIT_U_ONE, FIT_U_ONE,
			     FIT_U_ONE },
			   { false, false, true, true, true, true, true }, false },
	[FIT_CACHE2] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_INVX, FIT_U_INVX, FIT_U_INVX,
			   FIT_U_INVX, FIT_U_X }, { true, true, true, true, true, true, true, true },
			 true },
	[FIT_SPILLC2] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_ONE, FIT_U_X, FIT_U_X, FIT_U_Y,
			    FIT_U_X, FIT_U_ONE, FIT_U_ONE, FIT_U_ONE },
			  { true, true, true, true, true, true, true, true, true, true, true },
			  false },
	[FIT_SPILLC2Y] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_ONE, FIT_U_X, FIT_U_X, FIT_U_Y,
			     FIT_U_X, FIT_U_ONE, FIT_U_ONE, FIT_U_ONE },
			   { true, true, true, true, true, true, true, true, true, true, true },
			   false },
	[FIT_LSPILLC2] = { { FIT_U_Y, FIT_U_YPERX, FIT_U_ONE, FIT_U_X, FIT_U_X, FIT_U_Y, FIT_U_X,
			     FIT_U_ONE, FIT_U_ONE, FIT_U_ONE },
			   { false, false, true, true, true, true, true, true, true, true },
			   false },
	[FIT_LSPILLC2Y] = { { FIT_U_Y, FIT_U_YPERX, FIT_U_ONE, FIT_U_X, FIT_U_X, FIT_U_Y, FIT_U_X,
			      FIT_U_ONE, FIT_U_ONE, FIT_U_ONE },
			    { false, false, true, true, true, true, true, true, true, true }, false },
	[FIT_WALKC2] = { { FIT_U_Y, FIT_U_YPERX, FIT_U_YPERX, FIT_U_ONE, FIT_U_X },
			 { false, false, false, true, true }, false },
	[FIT_CAPC2] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_INVX, FIT_U_ONE, FIT_U_X },
			{ true, true, true, true, true, true }, false },
	/* the table share's block: x0 w q g A (w where every flow has spilled) */
	[FIT_SPILLT2] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_Y, FIT_U_X, FIT_U_X, FIT_U_ONE,
			    FIT_U_ONE, FIT_U_ONE },
			  { true, true, true, true, true, true, true, true, true }, false },
	[FIT_SPILLT2Y] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_Y, FIT_U_X, FIT_U_X,
			     FIT_U_ONE, FIT_U_ONE, FIT_U_ONE },
			   { true, true, true, true, true, true, true, true, true }, false },
	[FIT_LSPILLT2] = { { FIT_U_Y, FIT_U_YPERX, FIT_U_Y, FIT_U_X, FIT_U_X, FIT_U_ONE,
			     FIT_U_ONE, FIT_U_ONE },
			   { false, false, true, true, true, true, true, true }, false },
	[FIT_LSPILLT2Y] = { { FIT_U_Y, FIT_U_YPERX, FIT_U_Y, FIT_U_X, FIT_U_X, FIT_U_ONE,
			      FIT_U_ONE, FIT_U_ONE },
			    { false, false, true, true, true, true, true, true }, false },
	[FIT_SPILLCT2] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_ONE, FIT_U_X, FIT_U_X,
			     FIT_U_Y, FIT_U_X, FIT_U_X, FIT_U_ONE, FIT_U_ONE, FIT_U_ONE },
			   { true, true, true, true, true, true, true, true, true, true, true,
			     true }, false },
	[FIT_SPILLCT2Y] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_ONE, FIT_U_X, FIT_U_X,
			      FIT_U_Y, FIT_U_X, FIT_U_X, FIT_U_ONE, FIT_U_ONE, FIT_U_ONE },
			    { true, true, true, true, true, true, true, true, true, true, true,
			      true }, false },
	[FIT_LSPILLCT2] = { { FIT_U_Y, FIT_U_YPERX, FIT_U_ONE, FIT_U_X, FIT_U_X, FIT_U_Y,
			      FIT_U_X, FIT_U_X, FIT_U_ONE, FIT_U_ONE, FIT_U_ONE },
			    { false, false, true, true, true, true, true, true, true, true, true },
			    false },
	[FIT_LSPILLCT2Y] = { { FIT_U_Y, FIT_U_YPERX, FIT_U_ONE, FIT_U_X, FIT_U_X, FIT_U_Y,
			       FIT_U_X, FIT_U_X, FIT_U_ONE, FIT_U_ONE, FIT_U_ONE },
			     { false, false, true, true, true, true, true, true, true, true,
			       true }, false },
	[FIT_PIPEC2] = { { FIT_U_Y, FIT_U_ONE, FIT_U_INVX, FIT_U_INVX, FIT_U_ONE, FIT_U_X },
			 { true, true, true, true, true, true }, false },
};

const struct fit_form_info *fit_form_get(enum fit_form form)
{
	if ((unsigned)form >= FIT_FORM_COUNT)
		return NULL;
	return &forms[form];
}

const struct fit_form_ext *fit_form_ext_get(enum fit_form form)
{
	if ((unsigned)form >= FIT_FORM_COUNT)
		return NULL;
	return &exts[form];
}

const char *fit_form_name(enum fit_form form)
{
	const struct fit_form_info *fi = fit_form_get(form);
	return fi ? fi->name : "?";
}

int fit_form_parse(const char *name, enum fit_form *out)
{
	if (!name || !out)
		return -EINVAL;
	for (unsigned i = 0; i < FIT_FORM_COUNT; i++) {
		if (strcmp(name, forms[i].name) == 0) {
			*out = (enum fit_form)i;
			return 0;
		}
	}
	return -EINVAL;
}

double fit_unit_factor(enum fit_unit u, double sx, double sy)
{
	switch (u) {
	case FIT_U_Y: return sy;
	case FIT_U_X: return sx;
	case FIT_U_INVX: return 1.0 / sx;
	case FIT_U_YPERX: return sy / sx;
	case FIT_U_ONE: return 1.0;
	}
	return 1.0;
}

/* Logistic 1/(1+e^z) without overflow. */
static double logistic_down(double z)
{
	if (z > 0) {
		double e = exp(-z);
		return e / (1.0 + e);
	}
	return 1.0 / (1.0 + exp(z));
}

double fit_form_eval(enum fit_form form, const double *p, const double in[2])
{
	double x = in[0], y = in[1];

	switch (form) {
	case FIT_RBF2: {
		double r2 = (x - p[1]) * (x - p[1]) + (y - p[2]) * (y - p[2]);
		return p[0] * exp(-r2 / (2 * p[3] * p[3])) + p[4];
	}
	case FIT_RBF1: {
		double r2 = (x - p[1]) * (x - p[1]);
		return p[0] * exp(-r2 / (2 * p[2] * p[2])) + p[3];
	}
	case FIT_PLANE: return p[0] * x + p[1] * y + p[2];
	case FIT_LINE: return p[0] * x + p[1];
	case FIT_SERVICE: return p[0] / (1 + p[1] * x);
	case FIT_SERVICE2: return p[0] / (1 + p[1] * x + p[2] * y);
	case FIT_KNEE: return p[1] + (p[0] - p[1]) * logistic_down((x - p[2]) / p[3]);
	case FIT_CAP:
	case FIT_CAP2:
	case FIT_WALK:
	case FIT_WALK2: return fit_mech_eval(form, p, in);
	case FIT_CLIFF2:
	case FIT_CLIFF2Y: return fit_cliff_eval(form, p, in);
	case FIT_SPILL2:
	case FIT_SPILL2Y:
	case FIT_LSPILL2:
	case FIT_LSPILL2Y:
	case FIT_SPILLT2:
	case FIT_SPILLT2Y:
	case FIT_LSPILLT2:
	case FIT_LSPILLT2Y: return fit_spill_eval(form, p, in);
	case FIT_CACHE2: return fit_cache_eval(form, p, in);
	case FIT_SPILLC2:
	case FIT_SPILLC2Y:
	case FIT_LSPILLC2:
	case FIT_LSPILLC2Y:
	case FIT_SPILLCT2:
	case FIT_SPILLCT2Y:
	case FIT_LSPILLCT2:
	case FIT_LSPILLCT2Y: return fit_spillc_eval(form, p, in);
	case FIT_WALKC2: return fit_walkc_eval(form, p, in);
	case FIT_CAPC2: return fit_capc_eval(form, p, in);
	case FIT_PIPEC2: return fit_pipec_eval(form, p, in);
	case FIT_FORM_COUNT: break;
	}
	return NAN;
}

static void grad_rbf(const double *p, double dx, double dy, double d, double *ga, double *gb,
		     double *gc, double *gd)
{
	double r2 = dx * dx + dy * dy;
	double g = exp(-r2 / (2 * d * d));
	*ga = g;
	*gb = p[0] * g * dx / (d * d);
	if (gc)
		*gc = p[0] * g * dy / (d * d);
	*gd = p[0] * g * r2 / (d * d * d);
}

void fit_form_grad(enum fit_form form, const double *p, const double in[2], double *g)
{
	double x = in[0], y = in[1];

	switch (form) {
	case FIT_RBF2:
		grad_rbf(p, x - p[1], y - p[2], p[3], &g[0], &g[1], &g[2], &g[3]);
		g[4] = 1;
		return;
	case FIT_RBF1:
		grad_rbf(p, x - p[1], 0, p[2], &g[0], &g[1], NULL, &g[2]);
		g[3] = 1;
		return;
	case FIT_PLANE: g[0] = x; g[1] = y; g[2] = 1; return;
	case FIT_LINE: g[0] = x; g[1] = 1; return;
	case FIT_SERVICE: {
		double den = 1 + p[1] * x;
		g[0] = 1 / den;
		g[1] = -p[0] * x / (den * den);
		return;
	}
	case FIT_SERVICE2: {
		double den = 1 + p[1] * x + p[2] * y;
		g[0] = 1 / den;
		g[1] = -p[0] * x / (den * den);
		g[2] = -p[0] * y / (den * den);
		return;
	}
	case FIT_KNEE: {
		double z = (x - p[2]) / p[3];
		double s = logistic_down(z), ds = s * (1 - s);
		g[0] = s;
		g[1] = 1 - s;
		g[2] = (p[0] - p[1]) * ds / p[3];
		g[3] = (p[0] - p[1]) * ds * z / p[3];
		return;
	}
	case FIT_CAP:
	case FIT_CAP2:
	case FIT_WALK:
	case FIT_WALK2: fit_mech_grad(form, p, in, g); return;
	case FIT_CLIFF2:
	case FIT_CLIFF2Y: fit_cliff_grad(form, p, in, g); return;
	case FIT_SPILL2:
	case FIT_SPILL2Y:
	case FIT_LSPILL2:
	case FIT_LSPILL2Y:
	case FIT_SPILLT2:
	case FIT_SPILLT2Y:
	case FIT_LSPILLT2:
	case FIT_LSPILLT2Y: fit_spill_grad(form, p, in, g); return;
	case FIT_CACHE2: fit_cache_grad(form, p, in, g); return;
	case FIT_SPILLC2:
	case FIT_SPILLC2Y:
	case FIT_LSPILLC2:
	case FIT_LSPILLC2Y:
	case FIT_SPILLCT2:
	case FIT_SPILLCT2Y:
	case FIT_LSPILLCT2:
	case FIT_LSPILLCT2Y: fit_spillc_grad(form, p, in, g); return;
	case FIT_WALKC2: fit_walkc_grad(form, p, in, g); return;
	case FIT_CAPC2: fit_capc_grad(form, p, in, g); return;
	case FIT_PIPEC2: fit_pipec_grad(form, p, in, g); return;
	case FIT_FORM_COUNT: break;
	}
}

/* Index of the largest and smallest response. */
static void extremes(size_t n, const double *y, size_t *imax, size_t *imin)
{
	*imax = *imin = 0;
	for (size_t i = 1; i < n; i++) {
		if (y[i] > y[*imax])
			*imax = i;
		if (y[i] < y[*imin])
			*imin = i;
	}
}

/* Response at the smallest and largest first input (sum of inputs for two-input forms). */
static void ends(size_t n, const double (*x)[2], const double *y, bool two, double *y0,
		 double *y1, double *s1)
{
	size_t lo = 0, hi = 0;
	for (size_t i = 1; i < n; i++) {
		double si = x[i][0] + (two ? x[i][1] : 0);
		if (si < x[lo][0] + (two ? x[lo][1] : 0))
			lo = i;
		if (si > x[hi][0] + (two ? x[hi][1] : 0))
			hi = i;
	}
	*y0 = y[lo];
	*y1 = y[hi];
	*s1 = x[hi][0] + (two ? x[hi][1] : 0);
}

static void guess_knee(size_t n, const double (*x)[2], const double *y, double *p)
{
	double y0, y1, s1, mid, best = INFINITY;
	ends(n, x, y, false, &y0, &y1, &s1);
	p[0] = y0;
	p[1] = y1;
	mid = 0.5 * (y0 + y1);
	p[2] = 0.5 * s1;
	for (size_t i = 0; i < n; i++) {
		if (fabs(y[i] - mid) < best) {
			best = fabs(y[i] - mid);
			p[2] = x[i][0];
		}
	}
	p[3] = 0.05;
}

void fit_form_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		    double *p)
{
	size_t imax, imin;
	double y0, y1, s1, k;

	extremes(n, y, &imax, &imin);
	switch (form) {
	case FIT_RBF2:
		p[0] = y[imax] - y[imin];
		p[1] = x[imax][0];
		p[2] = x[imax][1];
		p[3] = 0.5;
		p[4] = y[imin];
		return;
	case FIT_RBF1:
		p[0] = y[imax] - y[imin];
		p[1] = x[imax][0];
		p[2] = 0.5;
		p[3] = y[imin];
		return;
	case FIT_SERVICE:
	case FIT_SERVICE2:
		ends(n, x, y, form == FIT_SERVICE2, &y0, &y1, &s1);
		p[0] = y0 > 0 ? y0 : 1.0;
		k = (y1 > 0 && s1 > 0) ? (p[0] / y1 - 1) / s1 : 1.0;
		if (!(k > 1e-3))
			k = 1e-3;
		p[1] = k;
		if (form == FIT_SERVICE2)
			p[2] = k;
		return;
	case FIT_KNEE:
		guess_knee(n, x, y, p);
		return;
	case FIT_CAP:
	case FIT_CAP2:
	case FIT_WALK:
	case FIT_WALK2:
		fit_mech_guess(form, n, x, y, p);
		return;
	case FIT_CLIFF2:
	case FIT_CLIFF2Y:
		fit_cliff_guess(form, n, x, y, p);
		return;
	case FIT_SPILL2:
	case FIT_SPILL2Y:
	case FIT_LSPILL2:
	case FIT_LSPILL2Y:
	case FIT_SPILLT2:
	case FIT_SPILLT2Y:
	case FIT_LSPILLT2:
	case FIT_LSPILLT2Y:
		fit_spill_guess(form, n, x, y, p);
		return;
	case FIT_CACHE2:
		fit_cache_guess(form, n, x, y, p);
		return;
	case FIT_SPILLC2:
	case FIT_SPILLC2Y:
	case FIT_LSPILLC2:
	case FIT_LSPILLC2Y:
	case FIT_SPILLCT2:
	case FIT_SPILLCT2Y:
	case FIT_LSPILLCT2:
	case FIT_LSPILLCT2Y:
		fit_spillc_guess(form, n, x, y, p);
		return;
	case FIT_WALKC2:
		fit_walkc_guess(form, n, x, y, p);
		return;
	case FIT_CAPC2:
		fit_capc_guess(form, n, x, y, p);
		return;
	case FIT_PIPEC2:
		fit_pipec_guess(form, n, x, y, p);
		return;
	case FIT_PLANE:
	case FIT_LINE:
	case FIT_FORM_COUNT:
		break;
	}
	for (size_t j = 0; j < FIT_MAX_PARAMS; j++)
		p[j] = 0;
}
