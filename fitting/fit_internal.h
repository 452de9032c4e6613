/* SPDX-License-Identifier: MIT */
/*
 * fit_internal: what the fitting/ sources share and nobody else sees: per-parameter units
 * (for mapping scaled-space parameters back), bounds (positive parameters are fitted through
 * softplus), and the single-form fitting core used by fit_model_fit and cross-validation.
 */
#ifndef SCN_FIT_INTERNAL_H
#define SCN_FIT_INTERNAL_H

#include <gsl/gsl_rng.h>

#include "fitting/fit.h"

/* Unit of a parameter: how it changes when inputs are divided by sx and response by sy. */
enum fit_unit { FIT_U_Y, FIT_U_X, FIT_U_INVX, FIT_U_YPERX, FIT_U_ONE };

struct fit_form_ext {
	enum fit_unit unit[FIT_MAX_PARAMS];
	bool positive[FIT_MAX_PARAMS];
	bool raw_x; /* inputs are fitted unscaled (sx = 1): the form holds a constant in input
		     * units (the mechanism forms' hit probe: one mask) */
};

const struct fit_form_ext *fit_form_ext_get(enum fit_form form);

/* Factor f such that p_original = f * p_scaled. */
double fit_unit_factor(enum fit_unit u, double sx, double sy);

/* Exponent of the p-norm that takes the smooth maximum of the cap forms' stages (fit.h). */
#define FIT_CAP_SHARPNESS 32.0

/* The mechanism forms (cap, cap2, walk, walk2; fit_forms_mech.c): value, gradient, start.
 * Called by fit_form_eval / fit_form_grad / fit_form_guess for those forms only. */
double fit_mech_eval(enum fit_form form, const double *params, const double in[2]);
void fit_mech_grad(enum fit_form form, const double *params, const double in[2], double *g);
void fit_mech_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		    double *p);

/* The capacity-cliff forms (cliff2, cliff2y; fit_forms_cliff.c). */
double fit_cliff_eval(enum fit_form form, const double *params, const double in[2]);
void fit_cliff_grad(enum fit_form form, const double *params, const double in[2], double *g);
void fit_cliff_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		     double *p);

/* The hard-corner spill forms (spill2, spill2y, lspill2, lspill2y and their table-share
 * twins spillt2 ...; fit_forms_spill.c). */
double fit_spill_eval(enum fit_form form, const double *params, const double in[2]);
/* smax(1, t) and its derivative in t: the cap forms' smooth maximum (fit_forms_spill.c). */
double fit_smax1(double t, double *dm);
/* smax(1, t1, t2) (p-norm, FIT_CAP_SHARPNESS; a stage t <= 0 counts as 0) and its
 * derivatives in t1, t2 (fit_forms_mech.c). */
double fit_smax3(double t1, double t2, double *w1, double *w2);
/* The slow path of a spill (fit_spill_path.c): the share S of the load past the corner
 * and the load L it puts on the slow path at C (the spilling input) and D (the other), for
 * the parameter block P: [x0, p, q, g] with the power share (TABLE false), [x0, w, q, g, A]
 * with the table share; GS and GL their derivatives in the block's N parameters. */
struct fit_spill_path {
	double s, l, gs[5], gl[5];
	size_t n;
};
void fit_spill_path(bool table, double c, double d, const double *p, struct fit_spill_path *o);
/* Is F one of the spill forms with the table share (spillt2 ..., spillct2 ...)? */
bool fit_spill_table(enum fit_form f);
/* Where the slow path's growth exponent g starts: a moderate growth (0.05 left the
 * softplus gradient too flat to move from), which the data take toward 0 where the slow
 * path's cost does not change with what it holds. */
#define FIT_SPILL_GROWTH_START 0.25
/* The table share's start: complete at twice the corner, no jump (A = 1). */
#define FIT_SPILL_TABLE_REACH 2.0
void fit_spill_grad(enum fit_form form, const double *params, const double in[2], double *g);
void fit_spill_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		     double *p);

/* The shared-cache walk form (cache2; fit_forms_cache.c). */
double fit_cache_eval(enum fit_form form, const double *params, const double in[2]);
void fit_cache_grad(enum fit_form form, const double *params, const double in[2], double *g);
void fit_cache_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		     double *p);

/* The spill forms whose walk misses a steering cache (spillc2, spillc2y, lspillc2,
 * lspillc2y; fit_forms_spillc.c). */
double fit_spillc_eval(enum fit_form form, const double *params, const double in[2]);
void fit_spillc_grad(enum fit_form form, const double *params, const double in[2], double *g);
void fit_spillc_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		      double *p);

/* The latency of walks that miss a steering cache (walkc2; fit_forms_walkc.c). */
double fit_walkc_eval(enum fit_form form, const double *params, const double in[2]);
void fit_walkc_grad(enum fit_form form, const double *params, const double in[2], double *g);
void fit_walkc_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		     double *p);

/* The share m(w) = 1 - r/w of a walk over W masks that misses a steering cache of R masks
 * (0 within it), and its derivative in R (*DR); walkc2's and pipec2's (fit_forms_walkc.c). */
double fit_cache_missed(double w, double r, double *dr);
/* The wire and two hosts' walks past their caches (pipec2; fit_forms_pipec.c). */
double fit_pipec_eval(enum fit_form form, const double *params, const double in[2]);
void fit_pipec_grad(enum fit_form form, const double *params, const double in[2], double *g);
void fit_pipec_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		     double *p);
/* One walk over both inputs past a shared steering cache (capc2; fit_forms_capc.c). */
double fit_capc_eval(enum fit_form form, const double *params, const double in[2]);
void fit_capc_grad(enum fit_form form, const double *params, const double in[2], double *g);
void fit_capc_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		    double *p);

/* Heuristic start for a form in scaled space (data already scaled). */
void fit_form_guess(enum fit_form form, size_t n, const double (*x)[2], const double *y,
		    double *p);

/*
 * Core fit in scaled space without quality figures or CV: fills m->params (original units),
 * m->se, m->cov, m->s2, m->q.sse, m->conv, m->valid, m->message. Input validated by caller.
 */
int fit_core(enum fit_form form, const struct fit_data *d, const struct fit_opts *o,
	     struct fit_model *m);

/* Cross-validation folds: fold[i] in [0, k), a seeded shuffle dealt round-robin (perm is
 * scratch of n entries). The forms and the baseline use the same folds for the same seed.
 * 0 or -ENOMEM. */
int fit_assign_folds(size_t n, unsigned k, uint64_t seed, unsigned *fold, size_t *perm);

/* GSL's taus2 generator seeded from SEED's low 32 bits (taus2's seed) XOR SALT: the seeded
 * generator of the starts (SALT FIT_SALT_STARTS) and the folds (FIT_SALT_FOLDS). NULL: out
 * of memory. The caller frees it with gsl_rng_free. */
#define FIT_SALT_STARTS 0x5EEDF17u
#define FIT_SALT_FOLDS 0xF01D5u
gsl_rng *fit_rng_alloc(uint64_t seed, uint32_t salt);

#endif
