/* SPDX-License-Identifier: MIT */
/*
 * bench-pool: what a pool of testbed slots buys. Runs one campaign (bench/pool-plan.yaml)
 * through the real `scalacn run --jobs K` on a simulated testbed of K slots, for K = 1, 2,
 * 4 and 8, with a fixed real delay per trial (`delay_s` in the sim testbed file: the time a
 * real testbed spends per trial, which is what pooling overlaps). Prints each campaign's
 * wall-clock time, the speed-up over K = 1 and its ratio to K (goal: >= 0.8), and checks
 * that every K found the same causes and walls as K = 1 (`scalacn causes` output, byte for
 * byte): a pooled campaign must decide what a serial one does. Wall clock, not CPU time,
 * because the delay is sleeping by design; all four runs are measured in the same run. The
 * CPU time scalacn used is printed beside it: the simulated NICs' own work (each slot
 * programs its own rules), which on a loaded machine is what keeps the ratio below K.
 * Exits 1 only when the causes differ or a campaign fails to run.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "tests/e2e_util.h"

#define DELAY_S "0.2"

/* CPU seconds (user + system) of the children waited for so far. */
static double children_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run the campaign on K slots in DIR; *SECONDS its wall time, *CPU the CPU time scalacn
 * used (the simulator's work: each slot programs its own rules), CAUSES its causes (owned). */
static int campaign(const char *dir, unsigned k, double *seconds, double *cpu, char **causes)
{
	char tb[512], db[512], text[512], jobs[16];
	const char *run[] = { "run", e2e_src("bench/pool-plan.yaml"), "--testbed", tb, "--db", db,
			      "--jobs", jobs, "--quiet", NULL };
	const char *show[] = { "causes", "--db", db, NULL };
	struct e2e_run r;
	double t0, c0;

	snprintf(tb, sizeof(tb), "%s/sim-%u.yaml", dir, k);
	snprintf(db, sizeof(db), "%s/pool-%u.db", dir, k);
	snprintf(jobs, sizeof(jobs), "%u", k);
	snprintf(text, sizeof(text), "kind: sim\nprofile: cx6\nname: sim-cx6\nslots: %u\n"
		 "delay_s: " DELAY_S "\n", k);
	if (e2e_write_file(tb, text) < 0)
		return -1;
	t0 = wall_s();
	c0 = children_cpu_s();
	if (e2e_scalacn_run(&r, run) < 0 || (r.status != 0 && r.status != 1)) {
		fprintf(stderr, "bench-pool: K=%u: scalacn run exited %d:\n%s\n", k, r.status,
			r.err ? r.err : "");
		return -1;
	}
	*seconds = wall_s() - t0;
	*cpu = children_cpu_s() - c0;
	e2e_run_free(&r);
	if (e2e_scalacn_run(&r, show) < 0 || r.status != 0)
		return -1;
	*causes = r.out;
	r.out = NULL;
	e2e_run_free(&r);
	return 0;
}

int main(void)
{
	static const unsigned ks[] = { 1, 2, 4, 8 };
	const char *dir = e2e_tmpdir();
	char *causes[4] = { NULL };
	double t[4], cpu[4];
	bool same = true;

	for (unsigned i = 0; i < 4; i++)
		if (campaign(dir, ks[i], &t[i], &cpu[i], &causes[i]) < 0)
			return 1;
	printf("pool: campaign %s, %s s delay per trial, one run each:\n",
	       "bench/pool-plan.yaml", DELAY_S);
	for (unsigned i = 0; i < 4; i++) {
		bool eq = strcmp(causes[i], causes[0]) == 0;

		same &= eq;
		printf("pool: K=%u slots: %6.2f s wall, speed-up %.2f = %.2f K, %.2f s CPU, causes %s\n",
		       ks[i], t[i], t[0] / t[i], t[0] / t[i] / ks[i], cpu[i],
		       eq ? "identical" : "DIFFERENT");
	}
	printf("pool: causes of K=1:\n%s", causes[0]);
	for (unsigned i = 0; i < 4; i++)
		free(causes[i]);
	e2e_rmdir(dir);
	return same ? 0 : 1;
}
