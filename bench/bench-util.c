/* SPDX-License-Identifier: MIT */
/*
 * bench-util: CPU time, median and range of repeats, and a child's peak RSS for the
 * benchmarks (see bench-util.h).
 */
#include "bench/bench-util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

double bench_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void bench_spread_of(double *v, size_t n, struct bench_spread *out)
{
	out->n = n;
	if (n == 0) {
		out->median = out->min = out->max = 0;
		return;
	}
	gsl_sort(v, 1, n);
	out->median = gsl_stats_median_from_sorted_data(v, 1, n);
	out->min = v[0];
	out->max = v[n - 1];
}

void bench_repeat(void (*fn)(void *), void *ctx, size_t n, struct bench_spread *out)
{
	double t[64];

	if (n > 64)
		n = 64;
	for (size_t i = 0; i < n; i++) {
		double t0 = bench_cpu_s();

		fn(ctx);
		t[i] = bench_cpu_s() - t0;
	}
	bench_spread_of(t, n, out);
}

long bench_child_peak_rss_kib(void (*fn)(void *), void *ctx)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		fn(ctx);
		_exit(0);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return ru.ru_maxrss;
}

/* In the child: stdout to OUT (or /dev/null), stderr to /dev/null, ENV added, exec. */
static void exec_child(char *const argv[], const char *env, const char *out)
{
	int fo = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int fe = open("/dev/null", O_WRONLY);

	if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
		_exit(127);
	if (env && putenv(strdup(env)) != 0)
		_exit(127);
	execv(argv[0], argv);
	_exit(127);
}

double bench_child_cmd_cpu_s(char *const argv[], const char *env, const char *out, int *status)
{
	long rss, faults;

	return bench_child_cmd_usage(argv, env, out, status, &rss, &faults);
}

double bench_child_cmd_usage(char *const argv[], const char *env, const char *out, int *status,
			     long *rss_kib, long *faults)
{
	struct rusage ru;
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		exec_child(argv, env, out);
	if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st) == 127)
		return -1;
	*status = WEXITSTATUS(st);
	*rss_kib = ru.ru_maxrss;
	*faults = ru.ru_minflt;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}
