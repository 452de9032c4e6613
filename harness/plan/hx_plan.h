/* SPDX-License-Identifier: MIT */
/*
 * hx_plan: loading and validating a campaign plan (plan.yaml; every key is documented in
 * docs/plan-reference.md).
 *
 * A plan says what to explore (the dimensions and their levels, the component space for the
 * architecture-model enumeration, the levels of the dimensions that are not swept), how to
 * judge it (thresholds for symptoms, qualification criteria), and what it may cost (repeats,
 * testbed-hours budget, analysis strategy). Loading reads the YAML through yamlcfg (so
 * includes are merged and every error is "file:line:column: key.path: message"), rejects
 * unknown keys at every level and checks the semantics (levels valid for their dimension and
 * ascending, sweeps well formed, criteria verbs/metrics among the plan's, ...).
 *
 * The plan is a plain struct with fixed arrays: it holds no pointers into the YAML document
 * (the document is freed before hx_plan_load returns). Dimension pointers point into the
 * generators' static registry (gen_dimension_find) and stay valid for the program's life.
 *
 * Ownership: hx_plan_load() allocates *out; free it with hx_plan_free() (NULL ok).
 */
#ifndef HX_PLAN_H
#define HX_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/scn_error.h"
#include "generators/gen.h"
#include "topology/topo.h"
#include "topology/topo_enum.h"
#include <stddef.h>

#define HX_MAX_LAYOUTS 64 /* model phase: most rule layouts per point (gen_layout.c) */

#define HX_PLAN_MAX_DIMS 32
#define HX_PLAN_MAX_LEVELS 64
#define HX_PLAN_MAX_CRITERIA 32
#define HX_PLAN_MAX_AT 8

enum hx_strategy { HX_STRATEGY_CCT = 0, HX_STRATEGY_BRUTE, HX_STRATEGY_ANNEAL };

/* Where a dimension's levels came from. */
enum hx_levels_from { HX_LEVELS_DEFAULT = 0, HX_LEVELS_EXPLICIT, HX_LEVELS_SWEEP };

/* One explored dimension. Invariants: dim != NULL; 1 <= n_levels <= HX_PLAN_MAX_LEVELS;
 * every level (and neutral) is accepted by gen_levels_set for dim; for ordered dimensions the
 * levels are strictly ascending, for categorical ones they are distinct; scale only for
 * ordered dimensions. */
struct hx_plan_dim {
	const struct gen_dimension *dim;
	unsigned n_levels;
	double levels[HX_PLAN_MAX_LEVELS];
	double neutral;
	bool scale;                   /* swept to find walls */
	enum hx_levels_from from;
	double sweep_from, sweep_to, sweep_ratio; /* when from == HX_LEVELS_SWEEP */
};

/* Symptom thresholds. Invariants: 0 < bw_drop < 1, lat_rise > 0, 0 < significance < 1;
 * looks >= 1 and alpha = significance / looks. */
struct hx_plan_thresholds {
	double bw_drop;      /* relative bandwidth drop vs baseline (0.10 = 10%) */
	double lat_rise;     /* relative latency rise vs baseline */
	double significance; /* p-value bound of Welch's t-test (and the failure test) */
	bool errors;         /* errors and timeouts are symptoms */
	unsigned looks;      /* sequential testing: decisions a point may take (1: off) */
	double alpha;        /* the bound each look decides at: significance / looks */
};

/* A qualification criterion: at the plan's fixed levels overridden by at_*, the measured
 * metric over the baseline must be >= min_ratio (bw) or <= max_ratio (lat). Invariants: verb
 * is one of the plan's verbs and metric one of its metrics; the ratio not used by the metric
 * is NAN. */
struct hx_plan_criterion {
	char name[128];
	enum topo_verb verb;
	enum gen_metric metric;
	unsigned n_at;
	const struct gen_dimension *at_dims[HX_PLAN_MAX_AT];
	double at_levels[HX_PLAN_MAX_AT];
	double min_ratio;
	double max_ratio;
};

/* Invariants: name non-empty; 1 <= repeats <= max_repeats <= 100; budget_hours > 0; 1 <= n_verbs <=
 * TOPO_VERB_COUNT and verbs distinct; 1 <= n_metrics <= 2 and distinct; space passed
 * topo_space_validate; no dimension appears twice in dims[] nor both in dims[] and among the
 * keys of 'fixed'; hash is 16 lower-case hex digits. */
struct hx_plan {
	char path[256];          /* the plan file as given to hx_plan_load */
	char name[64];
	char description[512];
	uint64_t seed;
	char testbed[512];       /* resolved against the plan file's directory; "" if not set */
	double budget_hours;
	unsigned repeats;
	unsigned max_repeats;     /* repeats..100: sequential testing adds repeats up to it */
	unsigned stop_after_failures; /* 0 (off) or 1..100: a point whose first N repeats all
				       * failed is not measured further */
	unsigned n_verbs;
	enum topo_verb verbs[TOPO_VERB_COUNT];
	unsigned n_metrics;
	enum gen_metric metrics[2];
	struct topo_space space;
	struct gen_levels fixed;  /* gen_levels_neutral + the plan's 'fixed' section */
	unsigned n_dims;
	struct hx_plan_dim dims[HX_PLAN_MAX_DIMS];
	struct hx_plan_thresholds thresholds;
	unsigned n_criteria;
	struct hx_plan_criterion criteria[HX_PLAN_MAX_CRITERIA];
	unsigned removal_orders;  /* 1..64 */
	double min_confidence;    /* 0..1: a cause below it is reported as a suspect */
	enum hx_strategy strategy;
	unsigned model_levels;    /* model phase: levels per causal input (0 = no model phase) */
	unsigned model_inputs;    /* causal dimensions per model, 1..2 */
	unsigned model_layouts;   /* most rule layouts per model point, 1..HX_MAX_LAYOUTS */
	unsigned model_refine;    /* most rounds of levels added where neighbours differ, 0..8 */
	unsigned model_max_layouts; /* most layouts a point gets from budget left at the end,
				     * model_layouts..HX_MAX_LAYOUTS (= model_layouts: none) */
	char hash[17];            /* gen_hash64 of the canonical merged content, hex */
};

/* Load, validate and return the plan at PATH (errors: class config, "file:line:column:
 * key.path: message"). On error *out is NULL. */
int hx_plan_load(const char *path, struct hx_plan **out, struct scn_error *err);
void hx_plan_free(struct hx_plan *plan);

/* The explored dimension named NAME, or NULL. */
const struct hx_plan_dim *hx_plan_find_dim(const struct hx_plan *plan, const char *name);

const char *hx_strategy_name(enum hx_strategy s); /* "cct", "brute", "anneal" */
const char *hx_metric_name(enum gen_metric m);    /* "bw", "lat" */

/* ---- Points: keys, text and JSON of levels ----------------------------------------------- */
/*
 * hx_point: a campaign's point (dimension levels of the default architecture model) in the
 * forms the store needs: canonical text, JSON of levels, point and trial keys.
 *
 * Keys are stable across runs and machines: a trial key hashes the canonical point text,
 * the metric, the repeat index and the testbed identity, so a resumed or repeated campaign
 * finds the trials it already has.
 */
/* "client.decap_masks=0;client.encap_masks=0;...;metric=bw" (every dimension, fixed order;
 * then ";layout=K" for a layout K > 0, gen_levels.layout: so layout 0 keeps its old keys). */
const char *hx_point_text(const struct gen_levels *l, char *buf, size_t len);
/* "write bw flows=8192 server.decap_masks=16": verb, metric and every level that is not the
 * generators' neutral one (for messages). */
const char *hx_point_brief(const struct gen_levels *l, char *buf, size_t len);
/* {"client.decap_masks":0,...,"metric":"bw"} with categorical levels by name ("layout":K
 * before "metric" for a layout K > 0). */
const char *hx_point_json(const struct gen_levels *l, char *buf, size_t len);
/* 32 hex digits (two independent 64-bit hashes) of the point text. */
void hx_point_key(const struct gen_levels *l, char out[33]);
void hx_trial_key(const struct gen_levels *l, int repeat, const char *testbed_identity,
		  char out[33]);
/* Format a level of dimension D for people ("8192", "write", "2M"). */
const char *hx_level_text(const struct gen_dimension *d, double level, char *buf, size_t len);

#endif
