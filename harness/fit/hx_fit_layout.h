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

/* The software covariates: each path's (GEN_SW_FWD, GEN_SW_REV), then their sum. */
#define HX_LAYOUT_SW (GEN_SW_PATHS + 1)
/* Every covariate: the walk, each side's walk, the software shares. */
#define HX_LAYOUT_COVS (1 + HX_LAYOUT_SIDES + HX_LAYOUT_SW)
#define HX_LAYOUT_COV_SW (1 + HX_LAYOUT_SIDES) /* the first software covariate */

/* One layout of a point: its value, its walk's deviation from the walk's mean, and each
 * side's (host * GEN_DIRS + direction; 0 for a side without rules); the traffic share with a
 * rule in software on its path less the share of flows with one, per path and summed
 * (gen_layout_sw; 0 when no rule is in software). */
struct hx_layout_obs {
	double v, walk;
	double side[HX_LAYOUT_SIDES];
	double sw[HX_LAYOUT_SW];
};

/* Which walk a point's value used, and its slope (value per group walked). */
struct hx_layout_fit {
	bool walked; /* a walk (false: the plain mean) */
	int cov;     /* 0: the sum over sides, 1 + s: side s's (HX_LAYOUT_SIDES), then the
		      * software shares' (HX_LAYOUT_COV_SW + k) */
	double slope;
};

/* The point's value over its N layouts; *SE its standard error; *FIT (may be NULL) which
 * walk it used (the sum over sides, one side's, or none). NAN when the walk does not vary
 * or N is too small for it: the caller keeps its robust mean. */
double hx_layout_value(const struct hx_layout_obs *o, size_t n, double *se,
		       struct hx_layout_fit *fit);

/* What a point's layouts said about the walk: whether their covariates are known, the walk
 * its value used, and the mean over its layouts of each covariate's deviation from the
 * even walk (the sum, then each side's). */
struct hx_layout_point {
	bool known;
	struct hx_layout_fit fit;
	double dev[HX_LAYOUT_COVS];
};

/* Values Y[i] of a model's N points whose own layouts could not tell the walk's slope
 * (PW[i].known, not PW[i].fit.walked: too few layouts for a fit) are at their layouts' mean
 * walk, not at the even walk the others' are at: each takes the median slope of the points
 * that fitted one, on the covariate most of them used (HX_LAYOUT_POOL_MIN at least), as
 * Y[i] - slope * PW[i].dev[cov]. Unchanged when too few points fitted a slope. */
#define HX_LAYOUT_POOL_MIN 5
void hx_layout_pool(double *y, const struct hx_layout_point *pw, size_t n);

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

/* The covariates of point L (its layout included) built with SEED, into OUT, and into SW
 * its software shares when its trial's hosts kept IN_HW rules in hardware (NAN: not known,
 * none in software). 0, or a negative errno when its rules cannot be built (the point is
 * then fitted without them). */
int hx_layout_cov_of(struct hx_layout_memo *m, const struct gen_levels *l, uint64_t seed,
		     double in_hw, struct gen_layout_cov *out, struct gen_layout_sw *sw);

#endif
