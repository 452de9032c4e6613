/* SPDX-License-Identifier: MIT */
/*
 * fit: per-RNIC performance models of the causal dimensions (DESIGN.md "Fitting").
 *
 * A model is one of a few closed forms of one or two inputs (x = local flow groups / masks,
 * y = remote ones, or whatever two causal dimensions the harness picked), fitted by least
 * squares to measured responses (bandwidth, latency, ...):
 *
 *   form      inputs  response                                         parameters
 *   rbf2      2       a*exp(-((x-b)^2 + (y-c)^2) / (2 d^2)) + e        a b c d e   (d > 0)
 *   rbf1      1       a*exp(-(x-b)^2 / (2 d^2)) + e                    a b d e     (d > 0)
 *   plane     2       a*x + b*y + c                                    a b c
 *   line      1       a*x + b                                          a b
 *   service   1       L / (1 + k*x)                                    L k         (L, k > 0)
 *   service2  2       L / (1 + k1*x + k2*y)                            L k1 k2     (all > 0)
 *   knee      1       l + (h - l) / (1 + exp((x - x0) / w))            h l x0 w    (w > 0)
 *   cap       1       L / smax(1, c + k*v(x), c)                       L c k s     (all > 0)
 *   cap2      2       L / smax(1, c + k1*v(x), c + k2*v(y))            L c k1 k2 s (all > 0)
 *   walk      1       a + b*v(x)                                       a b s       (s > 0)
 *   walk2     2       a + b*v(x) + c*v(y)                              a b c s     (s > 0)
 *   cliff2    2       L / smax(1, c + k*y) * (1 - h*sig((x - x0)/w))   L c k h x0 w (> 0)
 *   cliff2y   2       L / smax(1, c + k*x) * (1 - h*sig((y - x0)/w))   L c k h x0 w (> 0)
 *   (sig(z) = 1/(1 + exp(-z)): a capacity cliff in one input times the cap forms' walk
 *   bottleneck in the other; fit_forms_cliff.c)
 *   spill2    2       1 / ((1-s(x)) smax(1, c + k*y) / L + s(x) / S)   L c k S x0 p q
 *   lspill2   2       a + b*y + D*s(x)                                 a b D x0 p q
 *   spill2y, lspill2y: the same with x and y swapped (all > 0 but a, b)
 *   (s(x) = 1 - (e/x)^p past the corner e = x0 - q*y, else 0: the share spilled to a slow
 *   path past a capacity the other input shares, a hard corner; rates mix harmonically,
 *   latencies add; fit_forms_spill.c)
 *   spillt2, spillt2y, lspillt2, lspillt2y; spillct2, spillct2y, lspillct2, lspillct2y:
 *   the spill and spillc forms with the table share s(x) = 1 - clip(A (w/x - 1), 0, 1)
 *   past e (the flows whose rules come after what the table keeps: complete at w, a jump
 *   at the corner when A (w/e - 1) < 1), the slow load s (x/w)^g; parameters x0 w q g A in
 *   place of x0 p q g (fit_spill_path.c)
 *
 *   cache2    2       L / smax(1, c + v(x)(k1 + u*m), c + v(y)(k2 + u*m))  L c k1 k2 u a b s
 *   (all > 0; v as below: the probes; m = 1 - 1/(a*x + b*y) past a*x + b*y = 1, else
 *   0: the walks' probes miss a steering cache that x's masks (a = 1/capacity) and y's (b)
 *   fill, each miss costing u more than a hit's k; fit_forms_cache.c)
 *
 *   spillc2   2       1 / ((1-s(x)) smax(1, c + k P (1 + u m)) / L + s(x) / S)
 *                                             [L, c, k, u, r, Q, S, x0, p, q]
 *   lspillc2  2       a + b P (1 + u m) + D s(x)     [a, b, u, r, Q, D, x0, p, q]
 *   spillc2y, lspillc2y: the same with x and y swapped (all > 0 but a, b)
 *   (spill2 / lspill2 in flows x whose fast path walks y masks that miss a steering cache:
 *   P = y the even walk, m = 1 - min(1, r/y) min(1, Q/x) the lookups
 *   that miss a cache of r masks and Q flows' rules, u a miss's extra cost per probe;
 *   fit_forms_spillc.c)
 *
 *   walkc2    2       a + b x (1 + u m(x)) + c y (1 + u m(y))   [a, b, c, u, r] (u, r > 0)
 *   (the latency of two walks whose probes miss a steering cache of r masks on each host:
 *   m(w) = 1 - r/w past r, else 0; fit_forms_walkc.c)
 *
 *   capc2     2       L / smax(1, c + (k1 x + k2 y)(1 + u m))   [L, c, k1, k2, u, r] (> 0)
 *   (one walk over both inputs' masks on one host, missing its steering cache of r masks
 *   past m = 1 - r/(x + y); fit_forms_capc.c)
 *
 *   pipec2    2       L / smax(1, c + k1 x (1 + u m(x)), c + k2 y (1 + u m(y)))
 *                                             [L, c, k1, k2, u, r] (> 0)
 *   (cap2's pipeline of the wire and two hosts' walks, each walk missing its host's
 *   steering cache of r masks past m(w) = 1 - r/w, as walkc2's; fit_forms_pipec.c)
 *
 *   v(m) = s * (1 - exp(-m/s)) + [m > 0]   (twice) the probes of a steering walk over m
 *          masks: the hit probe (one mask), then a walk that saturates at scale s
 *          (fit_forms_mech.c). Inputs are mask counts: these forms are fitted unscaled.
 *   smax(t0, t1, t2) = (t0^32 + t1^32 + t2^32)^(1/32), negative t clamped to 0: a smooth max
 *
 * rbf2 and plane are the ScalaCN paper's bandwidth and latency forms. service follows the
 * steering walk (each probed mask adds service time). knee is a capacity cliff; of the two
 * usual shapes (hard corner with power-law decay, smooth logistic drop) it is the smooth
 * logistic: flat at h well before x0, flat at l well after, half-way at x0, 10-90% width
 * ~4.4 w. It is differentiable everywhere, which keeps the least squares well behaved.
 * cap2 and walk2 follow the simulator's and the RNIC's mechanisms more closely
 * (fit_forms_mech.c): the message rate is set by the slowest pipeline stage, the wire (1) or
 * a steering walk (c = the per-packet time without walk relative to the wire's, k per probe),
 * so bandwidth is flat at L until a walk becomes the bottleneck and then falls as a service
 * time; latency adds each walk's probes. v(m) makes the walk saturate when masks approach
 * the number of flows (masks beyond it are never probed) and counts the hit probe; as
 * s -> infinity and h -> 0 walk2 is the plane. cap and walk are their one-input
 * restrictions (k2 = 0, c = 0): lifting them is exact.
 *
 * How a fit is done (fit_model_fit):
 *  - Inputs and response are scaled to unit size before fitting: every input is divided by
 *    one common scale sx = max |input| over both inputs (one scale keeps rbf2 isotropic) and
 *    the response by sy = max |y|; parameters are mapped back afterwards (each parameter has a
 *    unit: response, input, 1/input, response/input or none). The mechanism forms (cap, cap2,
 *    walk, walk2) keep their inputs unscaled (sx = 1): their hit probe is one mask.
 *  - plane and line: ordinary linear least squares (gsl_multifit_linear).
 *  - the others: gsl_multifit_nlinear, trust region, Levenberg-Marquardt with geodesic
 *    acceleration, analytic Jacobians (second directional derivative by GSL's finite
 *    differences). Bounds are enforced by reparametrisation: a positive parameter p is
 *    fitted as p = softplus(u) = log(1 + e^u), so the solver works unconstrained in u.
 *    A heuristic start plus (n_starts - 1) starts drawn from a generator seeded with
 *    opts.seed; the converged start with the lowest residual sum of squares wins.
 *  - Standard errors: cov = s^2 (J^T J)^-1 with J the Jacobian in the natural (not
 *    reparametrised) parameters at the solution, s^2 = SSE / (n - p)
 *    (gsl_multifit_nlinear_covar); mapped back to the original units.
 *  - Quality: R^2, RMSE = sqrt(SSE/n), AICc (see struct fit_quality) and k-fold
 *    cross-validation with a seeded fold assignment.
 *  - A fit whose starts all fail to converge returns 0 with valid = false and the reason in
 *    message. Bad input (too few points, non-finite values) returns -EINVAL.
 *
 * Prediction interval (fit_predict_interval): delta method. With g the gradient of the form
 * in the parameters at x, var = g^T cov g + s^2 (the fitted curve's uncertainty plus one new
 * observation's noise); half-width = t_{n-p}((1+level)/2) * sqrt(var).
 *
 * GSL's default error handler aborts the process; while a fit_ function runs it is switched
 * off and restored afterwards. Do not call fit_ functions concurrently with other threads that
 * change the GSL error handler. Everything else is reentrant: no globals, randomness only
 * from opts.seed.
 *
 * Ownership: all structs here are plain values owned by the caller; nothing is allocated
 * that outlives a call. struct fit_data points at caller-owned arrays.
 */
#ifndef SCN_FIT_H
#define SCN_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/scn_error.h"

#define FIT_MAX_PARAMS 12
#define FIT_MAX_INPUTS 2

enum fit_form {
	FIT_RBF2 = 0,
	FIT_RBF1,
	FIT_PLANE,
	FIT_LINE,
	FIT_SERVICE,
	FIT_SERVICE2,
	FIT_KNEE,
	FIT_CAP,
	FIT_CAP2,
	FIT_WALK,
	FIT_WALK2,
	FIT_CLIFF2,
	FIT_CLIFF2Y,
	FIT_SPILL2,
	FIT_SPILL2Y,
	FIT_LSPILL2,
	FIT_LSPILL2Y,
	FIT_CACHE2,
	FIT_SPILLC2,
	FIT_SPILLC2Y,
	FIT_LSPILLC2,
	FIT_LSPILLC2Y,
	FIT_WALKC2,
	FIT_CAPC2,
	/* the table-share spill forms, together and in this order (fit_spill_table) */
	FIT_SPILLT2,
	FIT_SPILLT2Y,
	FIT_LSPILLT2,
	FIT_LSPILLT2Y,
	FIT_SPILLCT2,
	FIT_SPILLCT2Y,
	FIT_LSPILLCT2,
	FIT_LSPILLCT2Y,
	FIT_PIPEC2,
	FIT_FORM_COUNT
};

/* Static description of a form. Returned pointers refer to constant tables (never free). */
struct fit_form_info {
	enum fit_form form;
	const char *name;                          /* "rbf2", ... */
	const char *expr;                          /* human-readable formula */
	size_t n_params;                           /* <= FIT_MAX_PARAMS */
	size_t n_inputs;                           /* 1 or 2 */
	bool linear;                               /* fitted by linear least squares */
	const char *param_names[FIT_MAX_PARAMS];
};

/* NULL when form is out of range. */
const struct fit_form_info *fit_form_get(enum fit_form form);
/* "rbf2", ...; "?" when out of range. */
const char *fit_form_name(enum fit_form form);
/* Exact lower-case name -> form. 0 or -EINVAL (unknown name, *out untouched). */
int fit_form_parse(const char *name, enum fit_form *out);

/* Value of a form at input in[0..1] (in[1] ignored by one-input forms). */
double fit_form_eval(enum fit_form form, const double *params, const double in[2]);
/* Analytic gradient of the value in the parameters: grad[0..n_params-1]. */
void fit_form_grad(enum fit_form form, const double *params, const double in[2], double *grad);

/* Data: n points; x[i][0] is the first input, x[i][1] the second (ignored by one-input
 * forms); y[i] the response. Arrays owned by the caller. */
struct fit_data {
	size_t n;
	const double (*x)[2];
	const double *y;
};

struct fit_opts {
	uint64_t seed;       /* starts and fold assignment; same seed, same numbers */
	unsigned n_starts;   /* >= 1; default 16 */
	unsigned max_iter;   /* per start; default 200 */
	unsigned k_folds;    /* cross-validation folds; 0 = no CV; clipped to n; default 5 */
	double xtol, gtol, ftol; /* GSL convergence tests; defaults 1e-10, 1e-10, 0 */
};

/* Fill *o with the defaults above (seed 1). */
void fit_opts_default(struct fit_opts *o);

/* A held-out point: its inputs, its value, what the model fitted without its fold predicted
 * there, and |pred - y| / |y|. */
struct fit_cv_point {
	double x[2], y, pred, bias;
};
#define FIT_CV_WORST 3

struct fit_quality {
	double sse;          /* residual sum of squares */
	double r2;           /* 1 - SSE/SST (1 when SST == 0 and SSE == 0, else 0 if SST == 0) */
	double rmse;         /* sqrt(SSE / n) */
	double aicc;         /* n ln(SSE/n) + 2k + 2k(k+1)/(n-k-1), k = n_params + 1 (the noise
			      * variance counts); +INFINITY when n <= k + 1. SSE/n is floored
			      * at (1e-12 * max|y|)^2 so exact fits stay finite. */
	unsigned cv_folds;   /* folds actually used; 0 = no CV (then the cv_ fields are NaN) */
	double cv_rmse;      /* held-out RMSE over all points */
	double cv_mean_bias; /* mean over held-out points of |pred - y| / |y| */
	double cv_max_bias;  /* max of the same */
	/* The held-out points of the largest |pred - y| / |y|, largest first (cv_worst[0]'s is
	 * cv_max_bias): where the model misses, what `fit` prints. cv_n_worst of them. */
	struct fit_cv_point cv_worst[FIT_CV_WORST];
	unsigned cv_n_worst;
};

struct fit_conv {
	int status;          /* GSL status of the winning start (0 = GSL_SUCCESS) */
	size_t iterations;   /* iterations of the winning start (0 for linear forms) */
	int reason;          /* 1 = small step (xtol), 2 = small gradient (gtol), 0 = n/a */
	unsigned starts;     /* starts tried */
	unsigned converged;  /* starts that converged */
};

/*
 * A fitted model.
 * Invariants (valid == true): n_params == fit_form_get(form)->n_params; n_inputs likewise;
 * params finite; dom_min[i] <= dom_max[i] for i < n_inputs; n_points >= n_params.
 * stderr_ / cov may be NaN when the parameters are not identifiable or n == n_params.
 */
struct fit_model {
	enum fit_form form;
	size_t n_params, n_inputs, n_points;
	double params[FIT_MAX_PARAMS];
	double se[FIT_MAX_PARAMS];                     /* standard errors */
	double cov[FIT_MAX_PARAMS][FIT_MAX_PARAMS];    /* s^2 (J^T J)^-1, original units */
	double s2;                                     /* residual variance SSE / (n - p) */
	double dom_min[FIT_MAX_INPUTS], dom_max[FIT_MAX_INPUTS]; /* inputs seen */
	struct fit_quality q;
	struct fit_conv conv;
	bool valid;
	char message[256];   /* why invalid, or notes ("converged in 12 iterations") */
};

/*
 * Fit one form. Returns 0 when a model was produced (check out->valid: false when no start
 * converged, with the reason in out->message), -EINVAL on bad input (unknown form, n <
 * n_params, non-finite values, NULL arrays) with err and out->message set, -ENOMEM.
 * opts may be NULL (defaults). err may be NULL; it is filled only when the return is negative.
 */
int fit_model_fit(enum fit_form form, const struct fit_data *d, const struct fit_opts *opts,
		  struct fit_model *out, struct scn_error *err);

/* Model value at (x, y); *in_domain (may be NULL) says whether every input lies within the
 * fitted domain. Returns 0, or -EINVAL when the model is not valid. */
int fit_predict(const struct fit_model *m, double x, double y, double *value, bool *in_domain);

/* Prediction interval at (x, y) for a new observation, level in (0,1) (e.g. 0.95), by the
 * delta method (header comment). Returns 0, -EINVAL (invalid model or level) or -EDOM (no
 * residual degrees of freedom or covariance not available: n == n_params). */
int fit_predict_interval(const struct fit_model *m, double x, double y, double level,
			 double *lo, double *hi);

/* resid[i] = y[i] - prediction at x[i] for the caller's data (resid has d->n entries). */
int fit_residuals(const struct fit_model *m, const struct fit_data *d, double *resid);

/*
 * The generic regression baseline (fit_baseline.c): least squares of a full polynomial of
 * degree <= 3 in u_j = log(1 + x_j) (each mapped to [0, 1] over the data), the degree the
 * largest whose terms are at most a third of the points; cross-validated with the same
 * seeded folds as fit_model_fit. A form is worth its name when it beats this.
 */
struct fit_baseline {
	bool valid;          /* false: too few points for even a plane in the inputs */
	unsigned degree, n_terms;
	double r2, rmse;     /* in sample */
	unsigned cv_folds;   /* 0: no CV (cv_ fields NaN) */
	double cv_mean_bias, cv_max_bias; /* held-out |pred - y| / |y| */
};

/* 0 (check out->valid), -EINVAL bad arguments, -ENOMEM. opts may be NULL (defaults). */
int fit_baseline_poly(const struct fit_data *d, size_t n_inputs, const struct fit_opts *opts,
		      struct fit_baseline *out);

/* Selection among candidate forms. */
struct fit_selection {
	size_t n_models;                     /* candidates fitted */
	struct fit_model models[FIT_FORM_COUNT];
	size_t best;                         /* index into models */
	bool tie_break;                      /* chosen by CV among forms within 2 AICc */
	char reason[256];                    /* "rbf2 won: AICc 12.3 vs plane 45.6 (delta 33.3)" */
	struct fit_baseline baseline;        /* filled by the caller (hx_fit_group), not fit_select */
};

/*
 * Fit every candidate form and pick one: lowest AICc; when another valid form lies within 2
 * AICc units of the lowest, the one with the lowest cross-validated mean relative bias among
 * them wins (tie_break = true), provided its CV error is more than 1% (relative) below the
 * AICc winner's: CV errors closer than that are noise and the AICc winner stays (this keeps
 * plane data from going to rbf2, which contains a plane as a limit, on a 2.07% vs 2.08%
 * coin toss). A model without CV figures counts as having infinite CV error. forms/n_forms list candidates; forms == NULL means every form
 * with n_inputs inputs but cache2, the spillc forms (their x, or y, must be flows: the
 * harness lists them when an input is), walkc2, capc2 and pipec2, which are fitted only when listed (8 parameters: on 30
 * points AICc preferred it to cap2 at a worse held-out bias) (at most FIT_FORM_COUNT; each
 * must take n_inputs inputs). Each
 * candidate gets the same opts (same seed). Returns 0, -EINVAL (bad input), -EDOM (no candidate produced a valid
 * model with a finite AICc; reason and err say why).
 */
int fit_select(const struct fit_data *d, size_t n_inputs, const enum fit_form *forms,
	       size_t n_forms, const struct fit_opts *opts, struct fit_selection *out,
	       struct scn_error *err);

#endif
