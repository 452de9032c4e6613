/* SPDX-License-Identifier: MIT */
/*
 * hx_walls_priv: the wall search's working state, shared by hx_walls.c (sweep, persistence,
 * bisection) and hx_wall_shape.c (knee or slope, the wall's symptom row). Not a door: only
 * campaign/ includes it.
 */
#ifndef HX_WALLS_PRIV_H
#define HX_WALLS_PRIV_H

#include "harness/campaign/hx_campaign.h"

#define HX_SWEEP_MAX (HX_PLAN_MAX_LEVELS + 16)

/* One measured level of the search: its symptom and its usable values (for the slope). */
struct hx_sweep_pt {
	double level;
	struct hx_symptom s;
	unsigned nv;
	double v[HX_MAX_REPEATS];
};

/* Invariants: every pt[i].level is distinct; w points at the wall being searched. */
struct hx_sweep {
	struct hx_runner *r;
	const struct hx_plan *p;
	const struct hx_baseline *b;
	struct hx_wall *w;
	struct gen_levels base;   /* the search's point with the dimension at neutral */
	bool repaired;            /* some level needed more flows to build */
	int dir;                  /* +1: levels above neutral, swept upward; -1: below, downward */
	struct hx_seq *seq;       /* sequential testing counts (the outcome's) */
	unsigned n;
	struct hx_sweep_pt pt[HX_SWEEP_MAX];
};

/* Whether level A lies farther from neutral than B in the sweep's direction. */
static inline bool hx_sweep_farther(const struct hx_sweep *sw, double a, double b)
{
	return sw->dir > 0 ? a > b : a < b;
}

/* The search's point at LEVEL, measured once (memoised in SW) and judged. */
int hx_sweep_probe(struct hx_sweep *sw, double level, const char *phase,
		   const struct hx_sweep_pt **out, struct scn_error *err);
/* Whether the bracket (GOOD, BAD] holds a knee: the symptom at BAD decided, GOOD (neutral or
 * a measured level) decided clean and flat (within half the threshold of the baseline). */
bool hx_wall_has_knee(const struct hx_sweep *sw, double good, double bad);
/* No knee: fit the slope over every measured trial and report it when it is significant and
 * reaches the threshold within the measured range; otherwise, when CAND is a level (not NAN)
 * where the symptom showed, say it is not decided at this noise. */
int hx_wall_slope(struct hx_sweep *sw, double cand);
/* Copy the symptom S at the wall's level into W. */
void hx_wall_record(struct hx_wall *w, const struct hx_symptom *s);
/* Append "; FMT..." to W's note. */
void hx_wall_note(struct hx_wall *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
