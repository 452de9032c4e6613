/* SPDX-License-Identifier: MIT */
/*
 * hx_fit_layout (internal to harness/fit): a point's value over its rule layouts with the
 * layouts' covariates as control variates (hx_fit_layout.c), and the walk covariate of a stored
 * point's layout, recomputed from its levels and its campaign's seed (hx_fit_layout_cov.c:
 * the rules a campaign built are a pure function of those, gen.h).
 */
#ifndef HX_FIT_LAYOUT_H
#define HX_FIT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "generators/gen.h"
#include "generators/gen_layout_cov.h"

#define HX_LAYOUT_MAX 64 /* the plan's most layouts per point (HX_MAX_LAYOUTS) */

#define HX_LAYOUT_SIDES (GEN_HOSTS * GEN_DIRS)

/* One layout of a point: its value, its walk's deviation from the walk's mean, and each
 * side's (host * GEN_DIRS + direction; 0 for a side without rules). */
struct hx_layout_obs {
	double v, walk;
	double side[HX_LAYOUT_SIDES];
};

/* The point's value over its N layouts; *SE its standard error; *WALKED (may be NULL)
 * whether the value used a walk (the sum over sides, or one side's). NAN when the walk
 * does not vary or N is too small for it: the caller keeps its robust mean. */
double hx_layout_value(const struct hx_layout_obs *o, size_t n, double *se, bool *walked);

/* Median of V[0..N), N > 0; sorts V. */
double hx_layout_median(double *v, size_t n);

/* KEEP[i]: whether V[i] (N <= HX_LAYOUT_MAX values) is no gross outlier, as the harness
 * summarises repeats: with 4 or more values, one farther than 4 MADs and 10% from the median
 * is not (unless that would leave fewer than 3: then all are kept). */
void hx_layout_screen(const double *v, size_t n, bool *keep);

/* Covariates of layouts, remembered by what the rules and traffic depend on. */
struct hx_layout_memo;
/* The process's memo (made on first use, lives until exit; NULL on no memory). */
struct hx_layout_memo *hx_layout_memo_shared(void);

/* The covariates of point L (its layout included) built with SEED, into OUT. 0, or a
 * negative errno when its rules cannot be built (the point is then fitted without them). */
int hx_layout_cov_of(struct hx_layout_memo *m, const struct gen_levels *l, uint64_t seed,
		     struct gen_layout_cov *out);

#endif
