/* SPDX-License-Identifier: MIT */
/*
 * bench-agent: scalacn-agent's CPU per tick at 15K rules (docs/agent.md "Cost"). A tick is
 * what ag_tick.c does for one device minus running tc: parse the JSON `tc -s -j filter show`
 * prints (json-c), sort, compare with the mirror, feed the counter deltas, opt_table_tick.
 * Tables as the tests build them (tests/agent-test-util.c): 256 never-matching decap prios
 * of 60 filters each (15,360 rules) plus the hot RoCE prio, and a tenth of it (25 x 60) to
 * show how the cost scales. Also the first tick's plan (mirror build, plan, tc lines, check
 * of every intermediate state). Prints CPU seconds of this process (bench-util), medians of
 * repeated runs, and the ratios between them; tc's own CPU (a separate process dumping the
 * table) is not in it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent-test-util.h"
#include "agent/ag_agent.h"
#include "bench/bench-util.h"

#define REPEATS 15

struct table {
	unsigned masks, per_mask;
	char *json[REPEATS + 1]; /* one per tick: the RoCE counter grows */
	struct ag_agent *a;
	unsigned tick;
	double parse_cpu, tick_mean; /* means over the repeats */
};

static void tick_once(void *ctx)
{
	struct table *w = ctx;
	struct ag_mirror *m = &w->a->dev[0].m;
	const char *json = w->json[w->tick % (REPEATS + 1)];
	struct ag_filters fs = { 0 };
	struct opt_plan *plan = NULL;
	char err[512];
	double c0 = bench_cpu_s();

	if (ag_tc_parse(json, strlen(json), "veth1", &fs, err, sizeof(err)) < 0)
		abort();
	ag_filters_sort(&fs);
	w->parse_cpu += bench_cpu_s() - c0;
	if (!ag_mirror_same(m, &fs))
		abort(); /* the steady state: nobody changed the table */
	ag_mirror_feed(m, &fs, 100 + w->tick);
	if (opt_table_tick(m->t, 100 + w->tick, w->a->model, &plan) < 0 ||
	    opt_plan_count(plan) != 0)
		abort();
	opt_plan_free(plan);
	ag_filters_free(&fs);
	w->tick++;
}

/* Mirror W's table into A and apply the first plan (as ag_tick.c would, tc aside). */
static double first_plan(struct table *w, unsigned *lines)
{
	struct ag_dev *d = &w->a->dev[0];
	struct ag_filters fs = { 0 };
	struct opt_plan *plan = NULL;
	char err[512], *text = NULL;
	size_t len = 0;
	double c0 = bench_cpu_s();
	FILE *mem = open_memstream(&text, &len);

	if (ag_tc_parse(w->json[0], strlen(w->json[0]), "veth1", &fs, err, sizeof(err)) < 0 ||
	    ag_agent_mirror(w->a, d, &fs, 1, err, sizeof(err)) < 0)
		abort();
	ag_mirror_feed(&d->m, &d->m.cur, 1);
	if (opt_table_tick(d->m.t, 1, w->a->model, &plan) < 0 ||
	    ag_mirror_batch(&d->m, plan, mem, lines, err, sizeof(err)) < 0)
		abort();
	fclose(mem);
	if (opt_plan_apply(d->m.t, plan) < 0)
		abort();
	ag_mirror_moved(&d->m, plan);
	c0 = bench_cpu_s() - c0;
	opt_plan_free(plan);
	free(text);
	ag_filters_free(&fs);
	return c0;
}

/* The JSON tc prints after the plan: the same table at the prios the mirror moved it to. */
static char *moved_json(const struct table *w, const struct ag_mirror *m, uint64_t roce)
{
	uint16_t prefs[257];

	for (unsigned k = 0; k <= w->masks; k++)
		prefs[k] = m->cur.v[k * w->per_mask].pref;
	return agt_table_json_at(w->masks, w->per_mask, roce, prefs);
}

static void setup(struct table *w, struct ag_agent *a, const char *model)
{
	char err[512];

	memset(a, 0, sizeof(*a));
	a->log = fopen("/dev/null", "w");
	a->ops_out = a->log;
	a->dry_run = true; /* no state file */
	snprintf(a->cfg.model, sizeof(a->cfg.model), "%s", model);
	snprintf(a->cfg.verb, sizeof(a->cfg.verb), "write");
	snprintf(a->cfg.metric, sizeof(a->cfg.metric), "bw");
	snprintf(a->cfg.side, sizeof(a->cfg.side), "server");
	snprintf(a->cfg.firmware, sizeof(a->cfg.firmware), "0.0.0");
	snprintf(a->cfg.state_dir, sizeof(a->cfg.state_dir), "/nonexistent");
	a->cfg.threshold = 0.05;
	a->cfg.hysteresis = 0.25;
	a->cfg.update_budget = 1000000;
	a->cfg.window_s = 60;
	snprintf(a->dev[0].m.dev, sizeof(a->dev[0].m.dev), "veth1");
	a->n_dev = 1;
	if (ag_agent_load_model(a, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench-agent: %s\n", err);
		exit(1);
	}
	w->a = a;
	w->json[0] = agt_table_json(w->masks, w->per_mask, 1000000);
}

static double run(struct table *w, const char *model, unsigned *rules, unsigned *lines,
		  double *plan_cpu)
{
	static struct ag_agent a;
	struct bench_spread s;

	setup(w, &a, model);
	*plan_cpu = first_plan(w, lines);
	*rules = (unsigned)a.dev[0].m.cur.n;
	free(w->json[0]);
	for (unsigned i = 0; i <= REPEATS; i++) /* the RoCE counter grows every tick */
		w->json[i] = moved_json(w, &a.dev[0].m, 1000000 + 100000ull * (i + 1));
	w->tick = 0;
	tick_once(w); /* the first read after the plan */
	w->parse_cpu = 0;
	w->tick_mean = bench_cpu_s();
	bench_repeat(tick_once, w, REPEATS, &s);
	w->tick_mean = (bench_cpu_s() - w->tick_mean) / REPEATS;
	w->parse_cpu /= REPEATS;
	for (unsigned i = 0; i <= REPEATS; i++)
		free(w->json[i]);
	ag_agent_free(&a);
	fclose(a.log);
	return s.median;
}

int main(void)
{
	char model[] = "/tmp/bench-agent.XXXXXX";
	struct opt_model_row row = { "Soft-RoCE (rxe)", "0.0.0", "write", "bw", OPT_FORM_SERVICE,
				     { 25, 0.05 }, 2, { 0 }, 0, NULL, "server.decap_masks",
				     { 0 } };
	struct table big = { 256, 60, { 0 }, NULL, 0, 0, 0 }, small = { 25, 60, { 0 }, NULL, 0, 0, 0 };
	unsigned rules_big, rules_small, lines_big, lines_small;
	double plan_big, plan_small, tick_big, tick_small, parse_big, parse_small;
	char err[256];
	int fd = mkstemp(model);

	if (fd < 0 || opt_model_write(model, &row, 1, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench-agent: model: %s\n", err);
		return 1;
	}
	tick_big = run(&big, model, &rules_big, &lines_big, &plan_big);
	parse_big = big.parse_cpu;
	tick_small = run(&small, model, &rules_small, &lines_small, &plan_small);
	parse_small = small.parse_cpu;
	printf("bench-agent: CPU per tick (median of %d ticks; tc's own dump not included)\n",
	       REPEATS);
	printf("  %5u rules: %.2f ms per tick (mean %.2f ms, of which parsing tc's JSON %.2f ms = "
	       "%.0f%%), first plan %.1f ms (%u tc lines)\n", rules_big, 1e3 * tick_big,
	       1e3 * big.tick_mean, 1e3 * parse_big, 100 * parse_big / big.tick_mean,
	       1e3 * plan_big, lines_big);
	printf("  %5u rules: %.2f ms per tick (mean %.2f ms, parsing %.2f ms), first plan %.1f ms "
	       "(%u tc lines)\n", rules_small, 1e3 * tick_small, 1e3 * small.tick_mean,
	       1e3 * parse_small, 1e3 * plan_small, lines_small);
	printf("  ratio: %.1fx the CPU for %.1fx the rules (%.2f us per rule per tick at 15K); "
	       "%.2f%% of one core at 1 tick per second\n", tick_big / tick_small,
	       (double)rules_big / rules_small, 1e6 * tick_big / rules_big, 100 * tick_big);
	close(fd);
	unlink(model);
	return 0;
}
