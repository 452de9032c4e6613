/* SPDX-License-Identifier: MIT */
/*
 * hx_fit: per-RNIC performance models from stored trials, and their export to agents
 * (DESIGN.md "Fitting"; the `fit`, `models`, `predict` and `export` commands).
 *
 * ---- From trials to data (hx_fit_collect) ----------------------------------------------
 * A model is fitted per (RNIC model, verb, metric). The RNIC model is the campaign's
 * rnic_model; verb and metric are the trial's. Inputs follow the ScalaCN paper and its
 * artifact (docs/background.md: "x = flow groups (masks) on the local host, y = on the
 * remote host"):
 *     x = masks on the local (client) host  = client.encap_masks + client.decap_masks
 *     y = masks on the remote (server) host = server.encap_masks + server.decap_masks
 * (a level missing from a point's levels_json counts as 0, the neutral level). The response
 * is bw_gbps for metric "bw" and lat_median_us for metric "lat". The trials of one (x, y)
 * (repeats, and the same masks split differently between encap and decap) make ONE data
 * point: their median (perftest's t_typical is a median too). A single outlier trial among
 * three repeats cannot move a model; the residual variance, standard errors and prediction
 * intervals are then those of such a median, not of a single trial.
 * Only trials with status "ok" are used. So that flows, message size, QPs, ... do not
 * pollute a masks model, only the trials whose OTHER dimensions (every key of levels_json
 * except the four mask dimensions, "verb" and "metric") and whose campaign firmware equal the
 * group's most common setting are kept: the setting with the most ok trials wins; a tie
 * goes to the setting whose canonical text (keys sorted) sorts first. The rest are counted
 * (n_other) and left out; the kept setting is recorded in the model's domain ("fixed").
 *
 * ---- Fitting (hx_fit_group) --------------------------------------------------------------
 * Candidate forms (fit_select: AICc, cross-validation as tie-breaker), two-input forms only:
 *     bw:  rbf2, service2, plane, cap2, cliff2, cliff2y, spill2, spill2y, spillt2, spillt2y,
 *          pipec2
 *     lat: plane, rbf2, service2, walk2, lspill2, lspill2y, lspillt2, lspillt2y
 *     (and, where an input is flows or both are one host's masks, the spillc / spillct,
 *     walkc2 and capc2 forms: hx_fit_default_forms)
 * (cap2 and walk2 follow the mechanisms: the slowest pipeline stage, steering walks that
 * saturate when masks approach the flows; cliff2 and spill2 a capacity wall in one input;
 * fitting/fit.h.) Beside the selected form, the generic baseline (fit_baseline_poly, a
 * least-squares polynomial in the log inputs) is fitted with the same folds: sel->baseline,
 * stored in quality_json "baseline".
 * other metrics: every two-input form. A caller may force one form (or its own list); with
 * one form it is fitted alone (fit_model_fit), which also works with too few points for
 * AICc (e.g. four points and a plane).
 * When only one input varies (a campaign that swept the server's masks alone), the forms'
 * one-input restrictions (plane -> line, rbf2 -> rbf1, service2 -> service, cap2 -> cap,
 * walk2 -> walk) are fitted in
 * that input and lifted back to the two-input form with the other input's term fixed: zero
 * slope / zero k for the constant input, or the rbf2 centre at its constant value; fixed
 * parameters have standard error 0. The domain then pins the constant input (lo == hi), so
 * predicting elsewhere is flagged as outside the domain.
 *
 * ---- Stored rows (results/res_models.h) --------------------------------------------------
 *   inputs       "client.masks,server.masks" (x, y)
 *   params_json  [p0,p1,...] in fitting/fit.h order, "%.17g" (round-trips every double)
 *   se_json      {"se":[..],"cov":[[..],..],"s2":v,"n_points":n} (null for non-finite)
 *   domain_json  {"x":[lo,hi],"y":[lo,hi],"fixed":{other dimensions},"n_other":k}
 *   quality_json {"n_points" (distinct (x, y)),"n_trials","r2","rmse","aicc","cv_mean_bias",
 *                 "cv_max_bias","sse","cv_folds","cv_rmse","reason","degenerate",
 *                 "baseline":{form,terms,r2,rmse,cv_mean_bias,cv_max_bias} or null,
 *                 "tie_break","candidates":[{form,valid,r2,rmse,aicc,cv_mean_bias,
 *                 cv_max_bias},..]}
 *                 (cv_* biases: held-out |pred - y| / |y|, as fractions)
 *
 * ---- Export to the optimiser (hx_fit_export) ----------------------------------------------
 * The file format and parameter orders are those of optimiser/scalacn-opt.h. They equal
 * fitting's for rbf2, rbf1, plane and line; service [L,k] and service2 [L,k1,k2] both map to
 * the optimiser's "service"; cap [L,c,k,s] and cap2 [L,c,k1,k2,s] map to the optimiser's
 * "cap", walk [a,b,s] and walk2 [a,b,c,s] to its "walk" (same orders). fitting's knee (a smooth logistic drop h,l,x0,w) is not the
 * optimiser's knee (flat then linear, [a,b,k]): knee models are NOT exported (listed as
 * skipped). The export takes, per (verb, metric), the newest valid model of the RNIC model
 * (optionally of one firmware). The export's domain is [xlo,xhi,ylo,yhi]; its quality_json
 * carries the model id, inputs, the fixed setting and the fit quality.
 *
 * Ownership: hx_fit_collect returns a set freed by hx_fit_set_free (NULL ok); data pointers
 * returned by hx_fit_set_at live as long as the set. Everything else is caller-owned values.
 * Library-style: nothing here prints; the cmd_fit.c commands do.
 */
#ifndef HX_FIT_H
#define HX_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/scn_error.h"
#include "fitting/fit.h"
#include "results/res.h"
#include "results/res_models.h"

#define HX_FIT_INPUTS "client.masks,server.masks"
/* A valid model is exported to agents only when it is not degenerate: each input varied,
 * every standard error is finite and its maximum held-out bias is at most this; otherwise
 * quality_json "degenerate" says why (export --force takes it anyway). */
#define HX_FIT_MAX_BIAS 0.10

/*
 * The data of one (RNIC model, verb, metric) group.
 * Invariants: x and y have n entries, distinct (x, y) pairs in ascending order; n <= n_trials;
 * n_trials + n_other == n_ok; campaign is the largest campaign id among the kept trials.
 */
struct hx_fit_data {
	char rnic_model[64], firmware[64], verb[8], metric[8];
	int64_t campaign;
	size_t n;              /* data points: distinct (x, y) */
	size_t n_trials;       /* ok trials summarised into them */
	double (*x)[2];        /* x[i][0] local masks, x[i][1] remote masks */
	double *y;             /* bw_gbps or lat_median_us */
	size_t n_ok;           /* ok trials of the group */
	size_t n_other;        /* ok trials left out: another setting of the other dimensions */
	size_t n_not_ok;       /* trials of the group whose status was not "ok" */
	char fixed_json[1024]; /* the kept setting, a JSON object with sorted keys */
	char inputs[128];      /* "X,Y": the dimension names x and y stand for */
	/* The noise of the points themselves: the relative standard error of a point's value
	 * over its rule layouts (the sd of the layout values kept by the robust mean over the
	 * square root of their number, as if independent, over |value|), the largest and the
	 * median over the points of several layouts; NAN when no point has several. A model
	 * cannot be held out more closely than its points are known. */
	double point_se_max, point_se_median;
};

struct hx_fit_set;

/* Collect every group matching the filters (NULL = any) from all campaigns of DB, in order
 * of (rnic_model, verb, metric). An empty set is not an error (count 0). */
int hx_fit_collect(struct res_db *db, const char *rnic, const char *verb, const char *metric,
		   struct hx_fit_set **out, struct scn_error *err);
/* As hx_fit_collect, keeping only trials whose point satisfies every "dimension=level" of
 * WHERE (NULL-terminated; numbers with K/M suffixes, categorical levels by name): the way
 * to pick one setting, e.g. msg_size=2, when several are equally common. */
int hx_fit_collect_where(struct res_db *db, const char *rnic, const char *verb,
			 const char *metric, const char *const *where, struct hx_fit_set **out,
			 struct scn_error *err);
/* As hx_fit_collect_where with the inputs named by INPUTS, "X" or "X,Y" (NULL =
 * HX_FIT_INPUTS): each a dimension of the points' levels, or "client.masks" /
 * "server.masks" (a host's encap + decap masks). The other dimensions form the setting. */
int hx_fit_collect_inputs(struct res_db *db, const char *rnic, const char *verb,
			  const char *metric, const char *const *where, const char *inputs,
			  struct hx_fit_set **out, struct scn_error *err);
/* "8K" -> 8192, "2M" -> 2097152, "0.5" -> 0.5; NAN when TEXT is not a number. */
double hx_level_number(const char *text);
size_t hx_fit_set_count(const struct hx_fit_set *s);
const struct hx_fit_data *hx_fit_set_at(const struct hx_fit_set *s, size_t i);
void hx_fit_set_free(struct hx_fit_set *s);
/* Mutable access for hx_fit_causal.c; hx_fit_set_steal: group I's arrays now belong to
 * whoever copied them (the set will not free them). */
struct hx_fit_data *hx_fit_set_data(struct hx_fit_set *s, size_t i);
void hx_fit_set_steal(struct hx_fit_set *s, size_t i);
/* As hx_fit_collect_where, each group on the dimensions its newest campaign's causes name
 * (results' res_cause_dimensions, at most two; one: with the one other its model-phase points
 * moved, res_model_varied; none: the default inputs). `fit --inputs causes`, the inputs the
 * model phase designed its points over. */
int hx_fit_collect_causal(struct res_db *db, const char *rnic, const char *verb,
			  const char *metric, const char *const *where, struct hx_fit_set **out,
			  struct scn_error *err);

/* Default candidate forms of METRIC (see above) into FORMS (FIT_FORM_COUNT slots). */
size_t hx_fit_default_forms(const char *metric, enum fit_form *forms);

/* Fit the group: FORMS/N_FORMS NULL/0 = the metric's defaults. OPTS NULL = fit defaults.
 * 0, -EINVAL bad forms (one-input form), -EDOM no usable model (too few points, ...). */
int hx_fit_group(const struct hx_fit_data *d, const enum fit_form *forms, size_t n_forms,
		 const struct fit_opts *opts, struct fit_selection *sel, struct scn_error *err);

/* Render the selected model of SEL for group D as a store row (id 0, not stored). */
int hx_fit_row(const struct hx_fit_data *d, const struct fit_selection *sel,
	       struct res_model *row, struct scn_error *err);

/* A stored row back to a fitted model (form, params, se, cov, s2, n_points, domain, valid).
 * Quality figures are not restored. -EINVAL unknown form or malformed JSON. */
int hx_fit_model_from_row(const struct res_model *row, struct fit_model *m,
			  struct scn_error *err);

struct hx_prediction {
	double value;
	double lo, hi;       /* 95% prediction interval; NaN when not available */
	bool in_domain;
};
/* Predict with a stored model at x local masks, y remote masks. */
int hx_fit_predict(const struct res_model *row, double x, double y, struct hx_prediction *p,
		   struct scn_error *err);

/* ---- Export ------------------------------------------------------------------------------ */
enum hx_export_format { HX_EXPORT_SQLITE = 0, HX_EXPORT_YAML };

struct hx_export_info {
	size_t exported;        /* rows written */
	size_t skipped;         /* models not exportable (knee) */
	char skipped_text[512]; /* "send/bw #12 knee; ..." */
	char setting[256];      /* the models' traffic setting: "MTU 4096, 1 QP" ("; " between
				 * different ones; "" when the store does not say) */
};

/* Write the newest valid model per (verb, metric) of RNIC (FIRMWARE NULL = any) to PATH.
 * -ENOENT no valid model, -EINVAL bad arguments, I/O errors as negative errno. */
/* FORCE: the newest model per (verb, metric) even when it is not valid (degenerate). */
int hx_fit_export(struct res_db *db, const char *rnic, const char *firmware, bool force,
		  const char *path, enum hx_export_format fmt, struct hx_export_info *info,
		  struct scn_error *err);


/* ---- JSON text builder (the fit room's, and the CLI's fit commands') ------------------- */
/*
 * hx_fit_priv: helpers shared by the hx_fit*.c files and cmd_fit.c (not a public API):
 * a bounded text builder for JSON/YAML and a strict number-array reader.
 */
struct json_object;

/* Text builder into a caller's buffer. Invariant: len <= cap, buf[len] == 0 when len < cap;
 * overflow set once anything did not fit (the text is then cut). */
struct hx_sb {
	char *buf;
	size_t cap, len;
	bool overflow;
};

static inline void hx_sb_init(struct hx_sb *s, char *buf, size_t cap)
{
	s->buf = buf;
	s->cap = cap;
	s->len = 0;
	s->overflow = false;
	if (cap)
		buf[0] = '\0';
}

void hx_sb_printf(struct hx_sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "%.17g", or null when not finite. */
void hx_sb_num(struct hx_sb *s, double v);
/* [v0,v1,...] */
void hx_sb_nums(struct hx_sb *s, const double *v, size_t n);
/* A JSON string literal. */
void hx_sb_str(struct hx_sb *s, const char *str);

/* JSON array of exactly N numbers (null -> NaN) into OUT: 0 or -EINVAL. */
int hx_json_nums(struct json_object *a, double *out, size_t n);

#endif
