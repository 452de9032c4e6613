/* SPDX-License-Identifier: MIT */
/*
 * hx_progress: progress of a long campaign on stderr. On a terminal: one line redrawn in
 * place: the phase, trials done of the phase's planned (or estimated) total, testbed-hours
 * used of the budget, and the ETA: the trials still expected (what is left of the phase
 * plus the forecast of the phases after it, hx_progress_forecast) at the pace measured so
 * far (wall-clock seconds per trial). Otherwise a plain line per phase and at most one a
 * minute in between. --quiet prints nothing; NO_COLOR turns off colour.
 */
#ifndef HX_PROGRESS_H
#define HX_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "harness/trial/hx_trial.h"

#define HX_PROGRESS_LINE_S 60.0 /* without a terminal: at most a line a minute */

struct hx_progress {
	FILE *out;
	bool tty, quiet, color;
	char prefix[24];             /* "cct: " in compare, "" in run */
	char phase[48];
	unsigned long done, cached;  /* trials of the whole run */
	unsigned long phase_done, phase_planned; /* of the current phase */
	unsigned long phase_live;    /* of those, measured (not from the store) */
	double phase_started;        /* wall clock (s) when the current phase began */
	unsigned long expected_after; /* forecast trials of the phases after this one */
	unsigned long next_phase;    /* forecast trials of the next phase to announce */
	bool has_forecast;           /* a forecast was given: the ETA covers the run */
	bool phase_estimated;        /* phase_planned is the forecast, not the phase's plan */
	double cost_s, budget_s;
	double started;              /* wall clock (s) */
	double last_draw, last_line; /* wall clock of the last redraw / plain line */
};

void hx_progress_init(struct hx_progress *p, FILE *out, bool quiet, double budget_s);
/* Enter a phase of PLANNED trials (0: not known beforehand). */
void hx_progress_phase(struct hx_progress *p, const char *phase, unsigned long planned);
/* A forecast: the next phase is expected to take PHASE trials (used when it announces fewer)
 * and the phases after it AFTER trials. */
void hx_progress_forecast(struct hx_progress *p, unsigned long phase, unsigned long after);
/* The current phase needs MORE trials than it announced. */
void hx_progress_more(struct hx_progress *p, unsigned long more);
/* A label put before the phase ("cct: "), "" for none. */
void hx_progress_prefix(struct hx_progress *p, const char *prefix);
/* One trial finished (CACHED: it came from the store, not the testbed). */
void hx_progress_trial(struct hx_progress *p, double cost_s, bool cached);
/* Seconds left by the measured pace; < 0 when not known yet. */
double hx_progress_eta(const struct hx_progress *p);
/* Print a message line (clears the bar first on a terminal). */
void hx_progress_note(struct hx_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Finish: clear the bar. */
void hx_progress_end(struct hx_progress *p);
double hx_now(void);
/* O tells P of phases and trials (what a struct hx_runner's observer points at). */
void hx_progress_observer(struct hx_progress *p, struct hx_observer *o);

#endif
