/* SPDX-License-Identifier: MIT */
/*
 * hx_progress: the campaign's progress display (see hx_progress.h). The ETA is the measured
 * pace times the trials still expected; trials the store already held (cached) cost almost
 * no time, so the pace is taken over the measured ones only.
 */
#include <stdarg.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli/hx_cli.h"
#include "harness/cli/hx_progress.h"

double hx_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void hx_progress_init(struct hx_progress *p, FILE *out, bool quiet, double budget_s)
{
	const char *nc = getenv("NO_COLOR");

	memset(p, 0, sizeof(*p));
	p->out = out;
	p->quiet = quiet;
	p->tty = isatty(fileno(out));
	p->color = p->tty && !(nc && nc[0]);
	p->budget_s = budget_s;
	p->started = hx_now();
	p->phase_started = p->started;
	p->last_line = p->started;
}

static void clear_line(struct hx_progress *p)
{
	if (p->tty && !p->quiet)
		fputs("\r\033[K", p->out);
}

/* The trials left of the current phase: its plan, or nothing known when it has none or ran
 * past it (bisection, extra repeats). */
static unsigned long phase_left(const struct hx_progress *p)
{
	return p->phase_planned > p->phase_done ? p->phase_planned - p->phase_done : 0;
}

/* The current phase's trials left at its own pace once it has measured a few (a model
 * point reprograms the rules for every layout: its trials cost more than a wall search's),
 * the phases after it at the run's pace. */
double hx_progress_eta(const struct hx_progress *p)
{
	unsigned long live = p->done - p->cached, left = phase_left(p) + p->expected_after;
	double now = hx_now(), run_pace;

	if (live < 3 || (!left && !p->has_forecast))
		return -1;
	run_pace = (now - p->started) / (double)live;
	if (p->phase_live < 3)
		return run_pace * (double)left;
	return (now - p->phase_started) / (double)p->phase_live * (double)phase_left(p) +
	       run_pace * (double)p->expected_after;
}

static void eta_text(const struct hx_progress *p, char *buf, size_t len)
{
	double eta = hx_progress_eta(p);

	if (eta < 0)
		snprintf(buf, len, "ETA --:--");
	else if (eta >= 3600)
		snprintf(buf, len, "ETA %dh%02dm", (int)(eta / 3600), (int)eta % 3600 / 60);
	else
		snprintf(buf, len, "ETA %02d:%02d", (int)(eta / 60), (int)eta % 60);
}

/* "312/~840 trials, 0.512/12.00 testbed-h, run 1,270 of ~2,800 (4 from the store)": the
 * most wanted first, as a narrow terminal cuts the end */
static void status_text(const struct hx_progress *p, char *buf, size_t len)
{
	char done[32], total[32], planned[40];
	unsigned long run_total = p->done + phase_left(p) + p->expected_after;

	if (p->phase_planned)
		snprintf(planned, sizeof(planned), "%lu/%s%lu", p->phase_done,
			 p->phase_estimated ? "~" : "", p->phase_planned);
	else
		snprintf(planned, sizeof(planned), "%lu", p->phase_done);
	hx_thousands((double)p->done, done, sizeof(done));
	hx_thousands((double)run_total, total, sizeof(total));
	char budget[32] = "";

	if (p->budget_s > 0) /* compare has none */
		snprintf(budget, sizeof(budget), "/%.2f", p->budget_s / 3600.0);
	snprintf(buf, len, "%s trials, %.3f%s testbed-h, run %s of ~%s (%lu from the store)",
		 planned, p->cost_s / 3600.0, budget, done, p->has_forecast ? total : "?",
		 p->cached);
}

/* The terminal's width: the line must not wrap, or "\r" redraws only its last row. */
static int columns(const struct hx_progress *p)
{
	struct winsize ws;

	if (ioctl(fileno(p->out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

static void draw(struct hx_progress *p)
{
	char head[80], status[1024], eta[24];
	int room;

	if (p->quiet || !p->tty)
		return;
	snprintf(head, sizeof(head), "%s%-10s", p->prefix, p->phase);
	status_text(p, status, sizeof(status));
	eta_text(p, eta, sizeof(eta));
	/* what fits between the phase and the ETA, which always shows */
	room = columns(p) - 1 - (int)strlen(head) - 1 - 2 - (int)strlen(eta);
	if (room < 0)
		room = 0;
	if ((int)strlen(status) > room) { /* cut after the last part that fits whole */
		char *cut = NULL;

		status[room] = '\0';
		for (char *c = strstr(status, ", "); c; c = strstr(c + 1, ", "))
			cut = c;
		if (cut)
			*cut = '\0';
	}
	clear_line(p);
	fprintf(p->out, "%s%s%s %.*s  %s", p->color ? "\033[1m" : "", head,
		p->color ? "\033[0m" : "", room, status, eta);
	fflush(p->out);
	p->last_draw = hx_now();
}

/* Without a terminal: one plain line (per phase, and at most one a minute between). */
static void plain_line(struct hx_progress *p, const char *what)
{
	char status[1024], eta[24];

	status_text(p, status, sizeof(status));
	eta_text(p, eta, sizeof(eta));
	fprintf(p->out, "scalacn: %s %s%s: %s, %s\n", what, p->prefix, p->phase, status, eta);
	fflush(p->out);
	p->last_line = hx_now();
}

void hx_progress_phase(struct hx_progress *p, const char *phase, unsigned long planned)
{
	snprintf(p->phase, sizeof(p->phase), "%s", phase);
	p->phase_estimated = p->next_phase > planned;
	p->phase_planned = p->phase_estimated ? p->next_phase : planned;
	p->next_phase = 0;
	p->phase_done = 0;
	p->phase_live = 0;
	p->phase_started = hx_now();
	if (p->quiet)
		return;
	if (p->tty)
		draw(p);
	else
		plain_line(p, "phase");
}

void hx_progress_forecast(struct hx_progress *p, unsigned long phase, unsigned long after)
{
	p->next_phase = phase;
	p->expected_after = after;
	p->has_forecast = true;
}

void hx_progress_prefix(struct hx_progress *p, const char *prefix)
{
	snprintf(p->prefix, sizeof(p->prefix), "%s", prefix);
}

void hx_progress_trial(struct hx_progress *p, double cost_s, bool cached)
{
	double now;

	p->done++;
	p->phase_done++;
	p->phase_live += !cached;
	p->cached += cached;
	p->cost_s += cost_s; /* cached trials count: the campaign spent them */
	if (p->quiet)
		return;
	now = hx_now();
	if (p->tty && now - p->last_draw > 0.1)
		draw(p);
	else if (!p->tty && now - p->last_line >= HX_PROGRESS_LINE_S)
		plain_line(p, "progress");
}

void hx_progress_note(struct hx_progress *p, const char *fmt, ...)
{
	va_list ap;

	if (p->quiet)
		return;
	clear_line(p);
	fputs("scalacn: ", p->out);
	va_start(ap, fmt);
	vfprintf(p->out, fmt, ap);
	va_end(ap);
	fputc('\n', p->out);
	if (p->tty)
		draw(p);
	fflush(p->out);
}

void hx_progress_end(struct hx_progress *p)
{
	clear_line(p);
	fflush(p->out);
}

static void observe_phase(void *ctx, const char *phase, unsigned long planned)
{
	hx_progress_phase(ctx, phase, planned);
}

static void observe_trial(void *ctx, double cost_s, bool cached)
{
	hx_progress_trial(ctx, cost_s, cached);
}

void hx_progress_more(struct hx_progress *p, unsigned long more)
{
	p->phase_planned += more;
}

static void observe_more(void *ctx, unsigned long more)
{
	hx_progress_more(ctx, more);
}

/* Said even with --quiet: the campaign goes on with fewer slots. */
static void observe_slot_lost(void *ctx, unsigned slot, unsigned alive, const char *why)
{
	struct hx_progress *p = ctx;

	clear_line(p);
	fprintf(p->out, "scalacn: testbed slot %u taken out of the pool (%u left): %s\n", slot,
		alive, why);
	if (alive)
		fprintf(p->out, "scalacn: its trial runs again on another slot\n");
	fflush(p->out);
}

void hx_progress_observer(struct hx_progress *p, struct hx_observer *o)
{
	o->ctx = p;
	o->phase = observe_phase;
	o->trial = observe_trial;
	o->more = observe_more;
	o->slot_lost = observe_slot_lost;
}
