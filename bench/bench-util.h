/* SPDX-License-Identifier: MIT */
/*
 * bench-util: how every benchmark measures, so that both sides of a printed ratio are
 * measured the same way: CPU time of this process (not wall clock: other load on the
 * machine does not move it), repeated runs summarised as median and range (GSL's median),
 * and peak RSS of a child process that runs only the workload (this process's own
 * ru_maxrss would include what ran before it, and under `meson test` the parent's).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>

/* CPU seconds (user + system) this process has used. */
double bench_cpu_s(void);

struct bench_spread {
	double median, min, max;
	size_t n;
};
/* Median and range of V[0..N) (V is reordered). */
void bench_spread_of(double *v, size_t n, struct bench_spread *out);
/* Run FN(CTX) N times (N <= 64), each timed in CPU seconds. */
void bench_repeat(void (*fn)(void *), void *ctx, size_t n, struct bench_spread *out);
/* Peak resident set (KiB) of a forked child that runs FN(CTX) and exits; -1 on error. */
long bench_child_peak_rss_kib(void (*fn)(void *), void *ctx);

/* Run ARGV[0] (a path) with ARGV in a child, with the environment variable assignment ENV
 * ("NAME=value", or NULL) added, stdout written to the file OUT (NULL: /dev/null), stderr to
 * /dev/null; wait for it. Returns the child's CPU seconds (user + system, from wait4) and its
 * exit status in *STATUS, or -1 when it could not be run or did not exit normally. */
double bench_child_cmd_cpu_s(char *const argv[], const char *env, const char *out, int *status);
/* The same, with the child's own peak resident set (KiB) and minor page faults, from the
 * same wait4, in *RSS_KIB and *FAULTS. */
double bench_child_cmd_usage(char *const argv[], const char *env, const char *out, int *status,
			     long *rss_kib, long *faults);

#endif
