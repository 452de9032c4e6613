/* SPDX-License-Identifier: MIT */
/*
 * hx_progress: progress of a long campaign on stderr. On a terminal: one line redrawn in
 * place (phase, trials done / planned, testbed-hours used / budget, ETA). Otherwise: one
 * plain line per phase. --quiet prints nothing; NO_COLOR turns off colour.
 */
#ifndef HX_PROGRESS_H
#define HX_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "harness/trial/hx_trial.h"

struct hx_progress {
	FILE *out;
	bool tty, quiet, color;
	char phase[48];
	unsigned long done, planned, cached;
	double cost_s, budget_s;
	double started;      /* wall clock (s) */
	double last_draw;    /* wall clock of the last redraw */
};

void hx_progress_init(struct hx_progress *p, FILE *out, bool quiet, double budget_s);
/* Enter a phase; PLANNED_MORE trials are added to the plan. */
void hx_progress_phase(struct hx_progress *p, const char *phase, unsigned long planned_more);
/* One trial finished (CACHED: it came from the store, not the testbed). */
void hx_progress_trial(struct hx_progress *p, double cost_s, bool cached);
/* Print a message line (clears the bar first on a terminal). */
void hx_progress_note(struct hx_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Finish: clear the bar. */
void hx_progress_end(struct hx_progress *p);
double hx_now(void);
/* O tells P of phases and trials (what a struct hx_runner's observer points at). */
void hx_progress_observer(struct hx_progress *p, struct hx_observer *o);

#endif
