/* SPDX-License-Identifier: MIT */
/*
 * bench-harness: what the campaign harness adds to each trial, apart from the testbed's own
 * time. Fills a fresh store with 10,000 trials through hx_trial (the path a campaign takes:
 * key, lookup, point upsert, measure, commit), then times 1,000 more with 10K in the store,
 * and 1,000 bare tb_measure calls of the same traffic on the same simulated testbed. Prints
 * the harness overhead per trial (difference), a cached trial's cost (lookup hit), and the
 * store size per trial, all in CPU time of this process. Figures only; nothing about time is
 * asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench-util.h"
#include "harness/trial/hx_trial.h"

#define N_FILL 10000
#define N_TIMED 1000

/* CPU seconds, not wall clock: the overhead is the harness's own work, and the CPU figure
 * does not swing with other load on the machine (bench-util.h). */
static double now_s(void)
{
	return bench_cpu_s();
}

static void die(const char *what, const struct scn_error *e)
{
	fprintf(stderr, "bench-harness: %s: %s\n", what, e->message);
	exit(1);
}

/* Trial I is point "iterations = 1000 + I" of a small CX-6 rule set (one apply for all). */
static double run_trials(struct hx_runner *r, unsigned from, unsigned n)
{
	struct gen_levels l;
	struct hx_trial_out out;
	struct scn_error err;
	double t0 = now_s();

	gen_levels_neutral(&l);
	l.flows = 256;
	l.masks[GEN_SERVER][GEN_DECAP] = 8;
	for (unsigned i = from; i < from + n; i++) {
		l.iterations = 1000 + i;
		if (hx_trial(r, &l, "bench", 0, &out, &err) < 0)
			die("trial", &err);
	}
	return now_s() - t0;
}

static double bare_measures(struct tb *tb, unsigned n)
{
	struct gen_levels l;
	struct gen_traffic t;
	struct tb_sample s;
	struct scn_error err;
	double t0;

	gen_levels_neutral(&l);
	l.flows = 256;
	l.masks[GEN_SERVER][GEN_DECAP] = 8;
	gen_traffic_from_levels(&l, &t);
	t0 = now_s();
	for (unsigned i = 0; i < n; i++) {
		t.iterations = 1000 + N_FILL + i;
		if (tb_measure(tb, &t, i, &s, &err) < 0)
			die("measure", &err);
	}
	return now_s() - t0;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

int main(void)
{
	char dir[] = "/tmp/scalacn-bench-XXXXXX", db_path[128], wal[140];
	const char *src = getenv("SCALACN_SOURCE_ROOT");
	char tb_path[1024];
	struct res_campaign c = { .seed = 1 };
	struct hx_runner r;
	struct scn_error err;
	struct res_db *db;
	struct tb *tb;
	double fill, timed, bare, cached;

	if (!mkdtemp(dir))
		return 1;
	snprintf(db_path, sizeof(db_path), "%s/bench.db", dir);
	snprintf(tb_path, sizeof(tb_path), "%s/examples/testbeds/sim-cx6.yaml", src ? src : ".");
	hx_runner_init(&r);
	if (tb_open(tb_path, &tb, &err) < 0 || tb_describe(tb, &r.desc, &err) < 0)
		die(tb_path, &err);
	if (res_open(db_path, true, &db, &err) < 0 || res_campaign_insert(db, &c, &err) < 0)
		die(db_path, &err);
	r.tb = tb;
	r.db = db;
	r.campaign = c.id;
	r.seed = 1;
	r.repeats = 1;
	fill = run_trials(&r, 0, N_FILL);
	timed = run_trials(&r, N_FILL, N_TIMED);
	cached = run_trials(&r, 0, N_TIMED);
	bare = bare_measures(tb, N_TIMED);
	printf("harness: %d trials filled in %.2f s (%.1f us per trial incl. testbed)\n", N_FILL,
	       fill, fill / N_FILL * 1e6);
	printf("harness: with %d trials in the store: %.1f us per trial through hx_trial, "
	       "%.1f us per bare tb_measure\n", N_FILL, timed / N_TIMED * 1e6, bare / N_TIMED * 1e6);
	printf("harness: overhead per trial (excluding testbed time): %.1f us = %.3f of the 1 ms target\n",
	       (timed - bare) / N_TIMED * 1e6, (timed - bare) / N_TIMED / 1e-3);
	printf("harness: a trial found in the store costs %.1f us (%.3f of a measured one)\n",
	       cached / N_TIMED * 1e6, cached / timed);
	hx_runner_release(&r);
	res_close(db);
	tb_close(tb);
	snprintf(wal, sizeof(wal), "%s-wal", db_path);
	printf("harness: store size %.0f bytes per trial (%ld bytes db + %ld bytes WAL, %d trials)\n",
	       (double)(file_size(db_path) + file_size(wal)) / (N_FILL + N_TIMED),
	       file_size(db_path), file_size(wal), N_FILL + N_TIMED);
	unlink(db_path);
	unlink(wal);
	rmdir(dir);
	return 0;
}
