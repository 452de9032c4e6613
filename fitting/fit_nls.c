/* SPDX-License-Identifier: MIT */
/*
 * fit_nls: the fitting core. Scales the data to unit size, solves linear forms with
 * gsl_multifit_linear and the others with gsl_multifit_nlinear (trust region, LM + geodesic
 * acceleration) from several seeded starts, with positive parameters reparametrised through
 * softplus, then computes the covariance in natural parameters and maps everything back to
 * the original units. Assumes the caller validated the data (n >= n_params, finite values).
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multifit_nlinear.h>

#include "fitting/fit_internal.h"

/* Scaled copy of the data plus the form being fitted (the GSL callbacks' params). */
struct fit_ctx {
	enum fit_form form;
	size_t n, p;
	double (*x)[2];
	double *y;
	double sx, sy;
	const struct fit_form_ext *ext;
};

gsl_rng *fit_rng_alloc(uint64_t seed, uint32_t salt)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);

	if (r)
		gsl_rng_set(r, (unsigned long)(((uint32_t)seed) ^ salt));
	return r;
}

static double softplus(double u)
{
	return u > 30 ? u : log1p(exp(u));
}

static double softplus_deriv(double u)
{
	return 1.0 / (1.0 + exp(-u));
}

static double softplus_inv(double p)
{
	if (!(p > 1e-8))
		p = 1e-8;
	return p > 30 ? p : log(expm1(p));
}

static void to_natural(const struct fit_ctx *c, const double *u, double *p)
{
	for (size_t j = 0; j < c->p; j++)
		p[j] = c->ext->positive[j] ? softplus(u[j]) : u[j];
}

static int cb_f(const gsl_vector *u, void *arg, gsl_vector *f)
{
	const struct fit_ctx *c = arg;
	double p[FIT_MAX_PARAMS];

	to_natural(c, u->data, p);
	for (size_t i = 0; i < c->n; i++)
		gsl_vector_set(f, i, fit_form_eval(c->form, p, c->x[i]) - c->y[i]);
	return GSL_SUCCESS;
}

static int cb_df(const gsl_vector *u, void *arg, gsl_matrix *J)
{
	const struct fit_ctx *c = arg;
	double p[FIT_MAX_PARAMS], g[FIT_MAX_PARAMS], dp[FIT_MAX_PARAMS];

	to_natural(c, u->data, p);
	for (size_t j = 0; j < c->p; j++)
		dp[j] = c->ext->positive[j] ? softplus_deriv(gsl_vector_get(u, j)) : 1.0;
	for (size_t i = 0; i < c->n; i++) {
		fit_form_grad(c->form, p, c->x[i], g);
		for (size_t j = 0; j < c->p; j++)
			gsl_matrix_set(J, i, j, g[j] * dp[j]);
	}
	return GSL_SUCCESS;
}

static double sse_of(const struct fit_ctx *c, const double *p)
{
	double s = 0;
	for (size_t i = 0; i < c->n; i++) {
		double r = fit_form_eval(c->form, p, c->x[i]) - c->y[i];
		s += r * r;
	}
	return s;
}

/* Start number k (k >= 1) drawn around the heuristic guess g, in scaled space. */
static void random_start(const struct fit_ctx *c, const double *g, gsl_rng *rng, double *p)
{
	for (size_t j = 0; j < c->p; j++) {
		double r = gsl_rng_uniform(rng);
		if (c->ext->positive[j])
			p[j] = g[j] * pow(10.0, 2 * r - 1);  /* within a factor 10 */
		else if (c->ext->unit[j] == FIT_U_X)
			p[j] = -0.5 + 2.0 * r;               /* anywhere near the data */
		else
			p[j] = g[j] + (2 * r - 1) * fmax(fabs(g[j]), 0.5);
	}
}

/* Best start: natural params in scaled space, status, iterations, reason. */
struct fit_best {
	double p[FIT_MAX_PARAMS];
	double sse;
	int status, info;
	size_t iter;
	bool have;
};

static void run_start(const struct fit_ctx *c, gsl_multifit_nlinear_workspace *w,
		      gsl_multifit_nlinear_fdf *fdf, const struct fit_opts *o, const double *p0,
		      struct fit_best *ok, struct fit_best *any, unsigned *nconv)
{
	double u0[FIT_MAX_PARAMS], p[FIT_MAX_PARAMS];
	gsl_vector_view uv = gsl_vector_view_array(u0, c->p);
	int info = 0, status;

	for (size_t j = 0; j < c->p; j++)
		u0[j] = c->ext->positive[j] ? softplus_inv(p0[j]) : p0[j];
	status = gsl_multifit_nlinear_init(&uv.vector, fdf, w);
	if (status == GSL_SUCCESS)
		status = gsl_multifit_nlinear_driver(o->max_iter, o->xtol, o->gtol, o->ftol, NULL,
						     NULL, &info, w);
	to_natural(c, gsl_multifit_nlinear_position(w)->data, p);
	double sse = sse_of(c, p);
	bool finite = isfinite(sse);
	for (size_t j = 0; j < c->p; j++)
		finite = finite && isfinite(p[j]);
	struct fit_best cand = { .sse = finite ? sse : INFINITY, .status = status, .info = info,
				 .iter = gsl_multifit_nlinear_niter(w), .have = true };
	memcpy(cand.p, p, sizeof(p));
	if (!any->have || cand.sse < any->sse)
		*any = cand;
	if (status == GSL_SUCCESS && finite) {
		(*nconv)++;
		if (!ok->have || cand.sse < ok->sse)
			*ok = cand;
	}
}

/* The best start again with one place (a parameter in input units: a corner, a cache's
 * capacity) put back at the guess's (G), for each place in turn. Starts drawn at random
 * each find a feature of the data or another, and a place can sit where no gradient moves
 * it: a table share's corner takes no part in its shape, a cache beyond every level takes
 * no part in the walk. */
static void place_starts(const struct fit_ctx *c, gsl_multifit_nlinear_workspace *w,
			 gsl_multifit_nlinear_fdf *fdf, const struct fit_opts *o, const double *g,
			 struct fit_best *ok, struct fit_best *any, unsigned *nconv)
{
	for (size_t j = 0; j < c->p; j++) {
		const struct fit_best *b = ok->have ? ok : any;
		double p0[FIT_MAX_PARAMS];

		if (c->ext->unit[j] != FIT_U_X || !b->have || b->p[j] == g[j])
			continue;
		memcpy(p0, b->p, sizeof(p0));
		p0[j] = g[j];
		run_start(c, w, fdf, o, p0, ok, any, nconv);
	}
}

#define PLACE_GRID 4
#define PLACE_ROUNDS 2

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Up to PLACE_GRID places spread over the data (scaled space): the geometric middles of
 * consecutive distinct input levels (of either input), taken evenly by rank. Their count. */
static size_t place_grid(const struct fit_ctx *c, double *out)
{
	double *v = malloc(2 * c->n * sizeof(*v));
	size_t n = 0, m = 0, ni = fit_form_get(c->form)->n_inputs;

	if (!v)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		for (size_t j = 0; j < ni; j++)
			if (c->x[i][j] > 0)
				v[n++] = c->x[i][j];
	qsort(v, n, sizeof(*v), cmp_double);
	for (size_t i = 1; i < n; i++)
		if (v[i] > v[m])
			v[++m] = v[i];
	/* v[0..m]: the distinct levels; m middles between them */
	for (size_t k = 0; m > 0 && k < PLACE_GRID && k < m; k++) {
		size_t i = m <= PLACE_GRID ? k : (k * (m - 1)) / (PLACE_GRID - 1);

		out[k] = sqrt(v[i] * v[i + 1]);
	}
	free(v);
	return m < PLACE_GRID ? m : PLACE_GRID;
}

/* The best start again with one place moved to each of a few places over the data's levels
 * (place_grid), for each place in turn: a capacity the starts left beyond the knee it
 * should explain (a cache of 8,320 flows' rules where the data's knee is at 1,000) sits
 * where its gradient is flat, and neither the random starts nor the guess move it there. */
static void grid_starts(const struct fit_ctx *c, gsl_multifit_nlinear_workspace *w,
			gsl_multifit_nlinear_fdf *fdf, const struct fit_opts *o,
			struct fit_best *ok, struct fit_best *any, unsigned *nconv)
{
	double grid[PLACE_GRID];
	size_t ng = place_grid(c, grid);

	for (size_t j = 0; j < c->p; j++)
		for (size_t k = 0; k < ng && c->ext->unit[j] == FIT_U_X; k++) {
			const struct fit_best *b = ok->have ? ok : any;
			double p0[FIT_MAX_PARAMS];

			if (!b->have)
				return;
			memcpy(p0, b->p, sizeof(p0));
			p0[j] = grid[k];
			run_start(c, w, fdf, o, p0, ok, any, nconv);
		}
}

static int solve_nonlinear(const struct fit_ctx *c, const struct fit_opts *o,
			   struct fit_model *m, double *ps)
{
	gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_fdf fdf = { .f = cb_f, .df = cb_df, .fvv = NULL, .n = c->n,
					 .p = c->p, .params = (void *)c };
	struct fit_best ok = { .have = false }, any = { .have = false };
	double g[FIT_MAX_PARAMS], p0[FIT_MAX_PARAMS];
	gsl_rng *rng = fit_rng_alloc(o->seed, FIT_SALT_STARTS);
	unsigned nconv = 0;

	fp.trs = gsl_multifit_nlinear_trs_lmaccel;
	gsl_multifit_nlinear_workspace *w =
		gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, c->n, c->p);
	if (!w || !rng) {
		gsl_multifit_nlinear_free(w);
		gsl_rng_free(rng);
		return -ENOMEM;
	}
	fit_form_guess(c->form, c->n, (const double (*)[2])c->x, c->y, g);
	for (unsigned s = 0; s < o->n_starts; s++) {
		if (s == 0)
			memcpy(p0, g, sizeof(g));
		else
			random_start(c, g, rng, p0);
		run_start(c, w, &fdf, o, p0, &ok, &any, &nconv);
	}
	place_starts(c, w, &fdf, o, g, &ok, &any, &nconv);
	/* A second round when the first moved a place: two places can each sit where the
	 * other's move does not pay (a cache's masks beyond the data while its flows' rules
	 * were found, in test-fit-starts). */
	for (int r = 0; r < PLACE_ROUNDS; r++) {
		double before = ok.have ? ok.sse : INFINITY;

		grid_starts(c, w, &fdf, o, &ok, &any, &nconv);
		if (!(ok.have && ok.sse < before * (1 - 1e-6)))
			break;
	}
	/* A start that ran out of iterations below every converged one's residual is carried
	 * on from where it stopped (twice at most; still one start): it is the better fit,
	 * only slower to converge (on a ridge of the form; without this, a converged worse
	 * minimum won). */
	for (int k = 0; k < 2 && any.have && isfinite(any.sse) && (!ok.have || any.sse < ok.sse);
	     k++) {
		memcpy(p0, any.p, sizeof(p0));
		run_start(c, w, &fdf, o, p0, &ok, &any, &nconv);
	}
	gsl_multifit_nlinear_free(w);
	gsl_rng_free(rng);

	const struct fit_best *b = ok.have ? &ok : &any;
	memcpy(ps, b->p, sizeof(b->p));
	m->conv = (struct fit_conv){ .status = b->status, .iterations = b->iter,
				     .reason = b->status == GSL_SUCCESS ? b->info : 0,
				     .starts = o->n_starts, .converged = nconv };
	m->valid = ok.have;
	if (!ok.have)
		snprintf(m->message, sizeof(m->message),
			 "%s did not converge: 0 of %u starts converged (best start: %s after "
			 "%zu iterations)", fit_form_name(c->form), o->n_starts,
			 gsl_strerror(b->status), b->iter);
	else
		snprintf(m->message, sizeof(m->message),
			 "%u of %u starts converged; best in %zu iterations (%s)", nconv,
			 o->n_starts, b->iter, b->info == 1 ? "small step" : "small gradient");
	return 0;
}

static int solve_linear(const struct fit_ctx *c, struct fit_model *m, double *ps)
{
	gsl_matrix *X = gsl_matrix_alloc(c->n, c->p), *cov = gsl_matrix_alloc(c->p, c->p);
	gsl_vector *cv = gsl_vector_alloc(c->p);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(c->n, c->p);
	gsl_vector_view yv = gsl_vector_view_array(c->y, c->n);
	double chisq, g[FIT_MAX_PARAMS], zero[FIT_MAX_PARAMS] = { 0 };
	int rc = -ENOMEM;

	if (!X || !cov || !cv || !w)
		goto out;
	for (size_t i = 0; i < c->n; i++) {
		fit_form_grad(c->form, zero, c->x[i], g);
		for (size_t j = 0; j < c->p; j++)
			gsl_matrix_set(X, i, j, g[j]);
	}
	int st = gsl_multifit_linear(X, &yv.vector, cv, cov, &chisq, w);
	for (size_t j = 0; j < c->p; j++)
		ps[j] = gsl_vector_get(cv, j);
	m->conv = (struct fit_conv){ .status = st, .starts = 1, .converged = st == 0 };
	m->valid = st == GSL_SUCCESS;
	snprintf(m->message, sizeof(m->message), "%s", st == GSL_SUCCESS ?
		 "linear least squares" : gsl_strerror(st));
	rc = 0;
out:
	gsl_multifit_linear_free(w);
	gsl_vector_free(cv);
	gsl_matrix_free(cov);
	gsl_matrix_free(X);
	return rc;
}

/* Parameters no observation is sensitive to: |df/dp_j| * |p_j| (the effect of a relative
 * change) below 1e-7 of the largest parameter's, at every point. Such a parameter has run
 * off to where the form no longer depends on it (a walk scale s far beyond every mask
 * count: v(m) = m + 1 over the data), so the data cannot bound it; it is kept at its value,
 * as fixed (standard error 0), and the covariance is that of the others. */
static unsigned insensitive(const gsl_matrix *J, const double *ps, size_t p, bool *fixed)
{
	double col[FIT_MAX_PARAMS] = { 0 }, top = 0;
	unsigned n = 0;

	for (size_t j = 0; j < p; j++) {
		for (size_t i = 0; i < J->size1; i++)
			col[j] = fmax(col[j], fabs(gsl_matrix_get(J, i, j) * ps[j]));
		top = fmax(top, col[j]);
	}
	for (size_t j = 0; j < p; j++) {
		fixed[j] = top > 0 && col[j] <= 1e-7 * top;
		n += fixed[j];
	}
	return n;
}

/* (Jr^T Jr)^-1 into C over the columns KEEP[0..NK) of J; GSL's rank-revealing QR drops a
 * column the others determine (|R_kk| <= 1e-12 |R_11|) and gives it variance 0. */
static int reduced_covar(const gsl_matrix *J, const size_t *keep, size_t nk, gsl_matrix **C)
{
	gsl_matrix *Jr = gsl_matrix_alloc(J->size1, nk);
	int st;

	*C = gsl_matrix_alloc(nk, nk);
	if (!Jr || !*C) {
		gsl_matrix_free(Jr);
		gsl_matrix_free(*C);
		*C = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < J->size1; i++)
		for (size_t k = 0; k < nk; k++)
			gsl_matrix_set(Jr, i, k, gsl_matrix_get(J, i, keep[k]));
	st = gsl_multifit_nlinear_covar(Jr, 1e-12, *C);
	gsl_matrix_free(Jr);
	return st == GSL_SUCCESS ? 0 : -EDOM;
}

#define GRID_MAX_ROWS 4096

/* The distinct values of input K of C into V (sorted order not needed); their count. */
static size_t levels_of(const struct fit_ctx *c, int k, double *v, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++) {
		size_t j = 0;

		while (j < n && v[j] != c->x[i][k])
			j++;
		if (j == n && n < max)
			v[n++] = c->x[i][k];
	}
	return n;
}

/* The Jacobian at PS over every combination of the inputs' observed levels (the factorial
 * the data span); NULL when that is over GRID_MAX_ROWS points or out of memory. */
static gsl_matrix *grid_jacobian(const struct fit_ctx *c, const double *ps)
{
	double *lv[2] = { malloc(c->n * sizeof(double)), malloc(c->n * sizeof(double)) };
	gsl_matrix *G = NULL;
	size_t n0 = 0, n1 = 0;

	if (lv[0] && lv[1]) {
		n0 = levels_of(c, 0, lv[0], c->n);
		n1 = levels_of(c, 1, lv[1], c->n);
	}
	if (n0 && n1 && n0 * n1 <= GRID_MAX_ROWS && (G = gsl_matrix_alloc(n0 * n1, c->p)))
		for (size_t a = 0; a < n0; a++)
			for (size_t b = 0; b < n1; b++) {
				const double in[2] = { lv[0][a], lv[1][b] };
				double g[FIT_MAX_PARAMS];

				fit_form_grad(c->form, ps, in, g);
				for (size_t j = 0; j < c->p; j++)
					gsl_matrix_set(G, a * n1 + b, j, g[j]);
			}
	free(lv[0]);
	free(lv[1]);
	return G;
}

/* The parameters not yet FIXED that the others determine over the rows of J (a ridge:
 * moving along it changes no value there): marked fixed, one pass of GSL's rank-revealing
 * QR at a time until none is dropped. -ENOMEM or 0. */
static int hold_ridge(const gsl_matrix *J, size_t p, bool *fixed)
{
	bool dropped = true;
	int rc = 0;

	while (dropped && rc == 0) {
		size_t keep[FIT_MAX_PARAMS], nk = 0;
		gsl_matrix *C = NULL;

		for (size_t j = 0; j < p; j++)
			if (!fixed[j])
				keep[nk++] = j;
		dropped = false;
		if (nk == 0)
			break;
		rc = reduced_covar(J, keep, nk, &C);
		for (size_t k = 0; rc == 0 && k < nk; k++)
			if (!(gsl_matrix_get(C, k, k) > 0)) {
				fixed[keep[k]] = true;
				dropped = true;
			}
		gsl_matrix_free(C);
	}
	return rc == -ENOMEM ? rc : 0;
}

/* cov (scaled space) = s2 (J^T J)^-1 in natural params over the parameters the data can
 * tell apart; the others are held at their value (fixed: rows and columns 0): those no
 * observation is sensitive to (insensitive), and those the rest determine over the whole
 * factorial of the observed levels (a ridge of the form: L and c of L / smax(1, c + k*y)
 * when c + k*y > 1 everywhere, the wire never binding, only L/c is known). Such a parameter
 * moves along the ridge without changing any prediction over that region, so holding it
 * changes neither the curve nor the held-out bias; the standard errors are those of the
 * others, given it. A parameter only the data's own points cannot tell apart (two inputs
 * that always moved together) is not held: NaN, the model degenerate. */
static int covariance(const struct fit_ctx *c, const double *ps, double s2,
		      double cs[FIT_MAX_PARAMS][FIT_MAX_PARAMS], bool *identifiable)
{
	gsl_matrix *J = gsl_matrix_alloc(c->n, c->p), *G, *C = NULL;
	bool fixed[FIT_MAX_PARAMS];
	size_t keep[FIT_MAX_PARAMS], nk = 0;
	double g[FIT_MAX_PARAMS];
	int rc = 0;

	*identifiable = false;
	if (!J)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		fit_form_grad(c->form, ps, c->x[i], g);
		for (size_t j = 0; j < c->p; j++)
			gsl_matrix_set(J, i, j, g[j]);
	}
	insensitive(J, ps, c->p, fixed);
	G = grid_jacobian(c, ps);
	if (G)
		rc = hold_ridge(G, c->p, fixed);
	gsl_matrix_free(G);
	for (size_t j = 0; j < c->p; j++)
		if (!fixed[j])
			keep[nk++] = j;
	if (rc == 0 && nk > 0)
		rc = reduced_covar(J, keep, nk, &C);
	*identifiable = rc == 0 && nk > 0;
	for (size_t k = 0; *identifiable && k < nk; k++)
		if (!(gsl_matrix_get(C, k, k) > 0))
			*identifiable = false;
	for (size_t j = 0; j < c->p; j++)
		for (size_t k = 0; k < c->p; k++)
			cs[j][k] = *identifiable ? 0.0 : NAN;
	for (size_t a = 0; *identifiable && a < nk; a++)
		for (size_t b = 0; b < nk; b++)
			cs[keep[a]][keep[b]] = s2 * gsl_matrix_get(C, a, b);
	gsl_matrix_free(J);
	gsl_matrix_free(C);
	return rc == -ENOMEM ? rc : 0;
}

static int make_ctx(enum fit_form form, const struct fit_data *d, struct fit_ctx *c)
{
	const struct fit_form_info *fi = fit_form_get(form);

	*c = (struct fit_ctx){ .form = form, .n = d->n, .p = fi->n_params, .sx = 0, .sy = 0,
			       .ext = fit_form_ext_get(form) };
	c->x = calloc(d->n, sizeof(*c->x));
	c->y = calloc(d->n, sizeof(*c->y));
	if (!c->x || !c->y)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++) {
		for (size_t j = 0; j < fi->n_inputs; j++)
			c->sx = fmax(c->sx, fabs(d->x[i][j]));
		c->sy = fmax(c->sy, fabs(d->y[i]));
	}
	if (!(c->sx > 0) || c->ext->raw_x)
		c->sx = 1;
	if (!(c->sy > 0))
		c->sy = 1;
	for (size_t i = 0; i < d->n; i++) {
		for (size_t j = 0; j < fi->n_inputs; j++)
			c->x[i][j] = d->x[i][j] / c->sx;
		c->y[i] = d->y[i] / c->sy;
	}
	return 0;
}

static void map_back(const struct fit_ctx *c, const double *ps, double s2s, double sse_s,
		     double cs[FIT_MAX_PARAMS][FIT_MAX_PARAMS], struct fit_model *m)
{
	double f[FIT_MAX_PARAMS];

	for (size_t j = 0; j < c->p; j++) {
		f[j] = fit_unit_factor(c->ext->unit[j], c->sx, c->sy);
		m->params[j] = f[j] * ps[j];
	}
	for (size_t j = 0; j < c->p; j++) {
		for (size_t k = 0; k < c->p; k++)
			m->cov[j][k] = f[j] * f[k] * cs[j][k];
		m->se[j] = sqrt(m->cov[j][j]);
	}
	m->s2 = s2s * c->sy * c->sy;
	m->q.sse = sse_s * c->sy * c->sy;
}

int fit_core(enum fit_form form, const struct fit_data *d, const struct fit_opts *o,
	     struct fit_model *m)
{
	double ps[FIT_MAX_PARAMS] = { 0 }, cs[FIT_MAX_PARAMS][FIT_MAX_PARAMS];
	struct fit_ctx c;
	bool ident = true;
	int rc;

	assert(d->n >= fit_form_get(form)->n_params);
	rc = make_ctx(form, d, &c);
	if (rc == 0)
		rc = fit_form_get(form)->linear ? solve_linear(&c, m, ps)
						 : solve_nonlinear(&c, o, m, ps);
	if (rc == 0) {
		double sse_s = sse_of(&c, ps);
		double s2s = c.n > c.p ? sse_s / (double)(c.n - c.p) : NAN;
		rc = covariance(&c, ps, s2s, cs, &ident);
		if (rc == 0)
			map_back(&c, ps, s2s, sse_s, cs, m);
		if (rc == 0 && m->valid && !ident) {
			size_t l = strlen(m->message);
			snprintf(m->message + l, sizeof(m->message) - l,
				 "; parameters not identifiable (singular Jacobian)");
		}
	}
	free(c.x);
	free(c.y);
	return rc;
}
