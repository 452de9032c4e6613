/* SPDX-License-Identifier: MIT */
/*
 * hx_progress: the campaign's progress display (see hx_progress.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
}

static void clear_line(struct hx_progress *p)
{
	if (p->tty && !p->quiet)
		fputs("\r\033[K", p->out);
}

static void draw(struct hx_progress *p)
{
	double elapsed = hx_now() - p->started, eta = 0;
	unsigned long live = p->done - p->cached;

	if (p->quiet || !p->tty)
		return;
	if (live > 0 && p->planned > p->done)
		eta = elapsed / (double)live * (double)(p->planned - p->done);
	clear_line(p);
	fprintf(p->out, "%s%-10s%s trials %lu/%lu (%lu cached)  %.3f/%.2f testbed-h  ETA %02d:%02d",
		p->color ? "\033[1m" : "", p->phase, p->color ? "\033[0m" : "", p->done, p->planned,
		p->cached, p->cost_s / 3600.0, p->budget_s / 3600.0, (int)(eta / 60), (int)eta % 60);
	fflush(p->out);
	p->last_draw = hx_now();
}

void hx_progress_phase(struct hx_progress *p, const char *phase, unsigned long planned_more)
{
	snprintf(p->phase, sizeof(p->phase), "%s", phase);
	p->planned += planned_more;
	if (p->quiet)
		return;
	if (p->tty) {
		draw(p);
		return;
	}
	fprintf(p->out, "scalacn: phase %s: %lu trials done, %lu planned, %.3f testbed-h used\n",
		phase, p->done, p->planned, p->cost_s / 3600.0);
	fflush(p->out);
}

void hx_progress_trial(struct hx_progress *p, double cost_s, bool cached)
{
	p->done++;
	if (p->done > p->planned)
		p->planned = p->done;
	p->cached += cached;
	p->cost_s += cost_s; /* cached trials count: the campaign spent them */
	if (p->tty && hx_now() - p->last_draw > 0.1)
		draw(p);
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

static void observe_phase(void *ctx, const char *phase, unsigned long planned_more)
{
	hx_progress_phase(ctx, phase, planned_more);
}

static void observe_trial(void *ctx, double cost_s, bool cached)
{
	hx_progress_trial(ctx, cost_s, cached);
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
	o->slot_lost = observe_slot_lost;
}
