/* SPDX-License-Identifier: MIT */
/*
 * hx_rep_priv: what the report room's files share (not a door): the campaign as a report
 * sees it, gathered from the store once (hx_rep_data.c and the files it calls), the plots
 * (hx_rep_plot.c) and the writers of each format (hx_rep_html.c, hx_rep_md.c,
 * hx_rep_json.c).
 */
#ifndef HX_REP_PRIV_H
#define HX_REP_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/report/hx_rep.h"
#include "results/res.h"
#include "results/res_models.h"

struct json_object;
struct hx_plan;

#define HX_REP_MAX_LEVELS 64
#define HX_REP_MAX_SERIES 48
#define HX_REP_MAX_WALLS 64
#define HX_REP_MAX_CAUSES 64
#define HX_REP_MAX_CRITERIA 32
#define HX_REP_MAX_MODELS 16
#define HX_REP_MAX_PHASES 16
#define HX_REP_MAX_POINTS 256
#define HX_REP_MAX_NOTES 16

/* Usable values of the trials at one level (or one point): mean and sample sd. */
struct hx_rep_stat {
	double level;
	unsigned n, failed;   /* usable values, trials that measured nothing */
	double sum, sum2;     /* while gathering */
	double mean, sd;      /* NAN when n == 0 (sd: n < 2) */
};

/* One (verb, metric, scale dimension): the levels swept from the baseline with their
 * repeats, the wall found along it (NULL: none). */
struct hx_rep_series {
	char verb[8], metric[8], dim[64];
	unsigned n;
	struct hx_rep_stat lv[HX_REP_MAX_LEVELS]; /* ascending level */
	const struct res_symptom *wall;
	const struct hx_rep_stat *base;
	char image[64];
};

struct hx_rep_base {
	char verb[8], metric[8];
	char levels[2048];        /* the baseline point's levels_json */
	struct hx_rep_stat st;
};

struct hx_rep_cause {
	struct res_cause c;
	char verb[8], metric[8], class_[16];
	struct json_object *ev;   /* the evidence (owned; NULL: none stored) */
	char image[64];           /* sensitivity chart ("" none) */
};

struct hx_rep_model {
	struct res_model m;
	unsigned n;               /* measured data points */
	double x[HX_REP_MAX_POINTS][2], y[HX_REP_MAX_POINTS];
	double pred[HX_REP_MAX_POINTS], base_pred[HX_REP_MAX_POINTS];
	int vary;                 /* the input that varies (0, 1), 2 both, -1 none */
	double r2, rmse, bias_max, bias_mean; /* from quality_json */
	double base_r2, base_rmse;            /* the plane (or line) fitted beside it */
	char reason[256], base_form[16], note[256];
	char image[64], resid_image[64];
};

struct hx_rep_phase {
	char phase[32];
	int64_t trials;
	double cost_s;
};

struct hx_rep {
	struct res_campaign c;
	struct hx_plan *plan;     /* NULL when the plan file cannot be read (plan_note says) */
	char plan_note[320];
	unsigned n_crit, n_walls, n_series, n_causes, n_models, n_phases, n_base, n_notes;
	struct res_criterion crit[HX_REP_MAX_CRITERIA];
	struct res_symptom walls[HX_REP_MAX_WALLS];
	struct hx_rep_series series[HX_REP_MAX_SERIES];
	struct hx_rep_base base[8];
	struct hx_rep_cause causes[HX_REP_MAX_CAUSES];
	struct hx_rep_model models[HX_REP_MAX_MODELS];
	struct hx_rep_phase phases[HX_REP_MAX_PHASES];
	int64_t trials;
	double cost_s;
	double log10_models;      /* brute-force architecture models (NAN: no plan) */
	double factorial_points;  /* full factorial of the plan's dimensions (NAN: no plan) */
	char notes[HX_REP_MAX_NOTES][256]; /* what is missing, said in the summary */
	struct hx_diff *diff;     /* against the baseline campaign (NULL none) */
};

/* Gather campaign ID of DB into R (heap: large). hx_rep_free releases what R owns. */
int hx_rep_load(struct res_db *db, int64_t id, struct hx_rep *r, struct scn_error *err);
void hx_rep_free(struct hx_rep *r);
void hx_rep_note(struct hx_rep *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int hx_rep_series_load(struct res_db *db, struct hx_rep *r, struct scn_error *err);
int hx_rep_models_load(struct res_db *db, struct hx_rep *r, struct scn_error *err);
/* The metric of a trial: bw_gbps or lat_median_us (NAN: not measured, not ok). */
double hx_rep_trial_value(const struct res_trial *t);
void hx_rep_stat_add(struct hx_rep_stat *s, double v);
void hx_rep_stat_end(struct hx_rep_stat *s);
const char *hx_rep_unit(const char *metric); /* "Gb/s", "us" */
/* The metric of a stored symptom ("bw", "lat") from its detail, else its kind. */
void hx_rep_symptom_metric(const struct res_symptom *s, char *out, size_t len);
/* The baseline of (VERB, METRIC) in R, or NULL. */
const struct hx_rep_base *hx_rep_base_of(const struct hx_rep *r, const char *verb,
					 const char *metric);

/* ---- plots (PLplot, svg device): each writes DIR/NAME; 0 or a negative errno ---------- */
struct hx_plot {
	const char *dir, *name, *title, *xlabel, *ylabel;
	bool logx;
	bool bars;               /* categories along x: no numeric x labels */
};
int hx_plot_series(const struct hx_plot *p, const struct hx_rep_series *s);
int hx_plot_sensitivity(const struct hx_plot *p, struct json_object *sens);
int hx_plot_model(const struct hx_plot *p, const struct hx_rep_model *m);
int hx_plot_residuals(const struct hx_plot *p, const struct hx_rep_model *m);
/* Draw every plot of R into DIR (names into R's image fields); counts them. */
int hx_rep_plots(struct hx_rep *r, const char *dir, unsigned *images, struct scn_error *err);

/* ---- writers ---------------------------------------------------------------------------- */
/* The sections of a page (hx_rep_doc*.c) are written once, through an emitter per format
 * (hx_rep_html.c, hx_rep_md.c). Cells are plain text; emitters escape. */
#define HX_REP_COLS 10
struct hx_emit {
	FILE *f;
	void (*section)(struct hx_emit *e, const char *id, const char *title);
	void (*section_end)(struct hx_emit *e);
	void (*heading)(struct hx_emit *e, const char *text);
	void (*para)(struct hx_emit *e, const char *cls, const char *text);
	void (*table)(struct hx_emit *e, unsigned ncols, const char *const *head);
	void (*row)(struct hx_emit *e, unsigned ncols, char (*cells)[192]);
	void (*table_end)(struct hx_emit *e);
	void (*image)(struct hx_emit *e, const char *src, const char *caption);
	unsigned ncols;
};
/* Every section of R through E: summary, walls, causes, models, cost, diff. */
void hx_rep_doc(const struct hx_rep *r, struct hx_emit *e);
void hx_rep_doc_summary(const struct hx_rep *r, struct hx_emit *e);
void hx_rep_doc_walls(const struct hx_rep *r, struct hx_emit *e);
void hx_rep_doc_causes(const struct hx_rep *r, struct hx_emit *e);
void hx_rep_doc_models(const struct hx_rep *r, struct hx_emit *e);
void hx_rep_doc_cost(const struct hx_rep *r, struct hx_emit *e);
void hx_rep_doc_diff(const struct hx_rep *r, struct hx_emit *e);
/* A paragraph from a format. */
void hx_rep_para(struct hx_emit *e, const char *cls, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int hx_rep_html(const struct hx_rep *r, FILE *f);
int hx_rep_md(const struct hx_rep *r, FILE *f);
int hx_rep_json(const struct hx_rep *r, FILE *f);
/* Text for XML/HTML (the five special characters escaped, control characters dropped). */
void hx_rep_xml(FILE *f, const char *s);
/* "2026-12-01 14:23 UTC" or "not yet" */
const char *hx_rep_time(double t, char *buf, size_t len);
/* A level as people read it: "7512", "2M", "0.5". */
const char *hx_rep_num(double v, char *buf, size_t len);

#endif
