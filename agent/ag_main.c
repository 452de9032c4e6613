/* SPDX-License-Identifier: MIT */
/*
 * scalacn-agent: the runtime agent. Mirrors the tc flower tables of the configured devices
 * into libscalacn-opt every tick, feeds it the filters' counters and the RNIC's model, and
 * applies its plans as tc operations (make before break, checked), or prints them (--dry-run).
 * SIGHUP reloads the model, SIGTERM/SIGINT stop cleanly (the table stays optimised; --restore
 * puts it back), a fatal error restores the original order and exits 3. docs/agent.md.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/ag_agent.h"

static volatile sig_atomic_t stop_flag, reload_flag;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_flag = 1;
	else
		stop_flag = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: scalacn-agent --config FILE [--dry-run] [--once | --ticks N] "
		"[--restore]\n"
		"                     [--allow-firmware-mismatch] [--metrics-stdout]\n\n"
		"  --config FILE   the agent's YAML configuration (docs/agent.md)\n"
		"  --dry-run       change nothing: print the tc operations each plan would apply\n"
		"  --once          one tick, then exit (--ticks N: N ticks)\n"
		"  --restore       put every filter back at its original prio (the state file), "
		"compare, exit\n"
		"  --allow-firmware-mismatch  use a model fitted on other firmware\n"
		"  --metrics-stdout  also print the metrics after the last tick\n"
		"Exit: 0 done or stopped by a signal, 2 configuration or model error, 3 tc or "
		"device error (the original order restored first).\n");
}

struct args {
	const char *config;
	bool restore, metrics_stdout;
	long ticks; /* 0 = until a signal */
};

static int parse_args(int argc, char **argv, struct args *x, struct ag_agent *a)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' }, { "dry-run", no_argument, NULL, 'n' },
		{ "once", no_argument, NULL, '1' },         { "ticks", required_argument, NULL, 't' },
		{ "restore", no_argument, NULL, 'r' },      { "help", no_argument, NULL, 'h' },
		{ "allow-firmware-mismatch", no_argument, NULL, 'f' },
		{ "metrics-stdout", no_argument, NULL, 'm' }, { NULL, 0, NULL, 0 } };
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "c:n1t:rhfm", opts, NULL)) != -1) {
		switch (c) {
		case 'c': x->config = optarg; break;
		case 'n': a->dry_run = true; break;
		case '1': x->ticks = 1; break;
		case 't':
			x->ticks = strtol(optarg, &end, 10);
			if (*end || x->ticks < 1) {
				fprintf(stderr, "scalacn-agent: --ticks: \"%s\" is not a count\n", optarg);
				return 2;
			}
			break;
		case 'r': x->restore = true; break;
		case 'f': a->allow_mismatch = true; break;
		case 'm': x->metrics_stdout = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!x->config || optind != argc) {
		usage(stderr);
		return 2;
	}
	return -1;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	if (!stop_flag && !reload_flag)
		nanosleep(&ts, NULL); /* a signal ends it early */
}

static void reload(struct ag_agent *a)
{
	char err[1024] = "";

	reload_flag = 0;
	if (ag_agent_load_model(a, err, sizeof(err)) < 0) {
		fprintf(a->log, "scalacn-agent: SIGHUP: model not reloaded, the old one stays: %s\n",
			err);
		return;
	}
	fprintf(a->log, "scalacn-agent: SIGHUP: model %s reloaded\n", a->cfg.model);
	a->rebuild = true;
}

static int fatal(struct ag_agent *a, const char *what)
{
	char err[1024] = "";

	fprintf(a->log, "scalacn-agent: fatal: %s; restoring the original order\n", what);
	a->dry_run = false;
	if (ag_agent_restore(a, err, sizeof(err)) < 0)
		fprintf(a->log, "scalacn-agent: restore failed: %s\n", err);
	return 3;
}

static int loop(struct ag_agent *a, const struct args *x)
{
	double start = clock_s(CLOCK_MONOTONIC);
	char err[1024] = "";

	for (long n = 0; !stop_flag && (x->ticks == 0 || n < x->ticks); n++) {
		double cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), t0 = clock_s(CLOCK_MONOTONIC);
		uint64_t now = (uint64_t)(t0 - start) + 1;

		if (reload_flag)
			reload(a);
		if (ag_agent_tick(a, now, err, sizeof(err)) < 0)
			return fatal(a, err);
		a->tick_cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
		if (!a->dry_run && ag_agent_metrics(a, NULL, err, sizeof(err)) < 0)
			fprintf(a->log, "scalacn-agent: metrics: %s\n", err);
		if (x->ticks == 0 || n + 1 < x->ticks)
			sleep_s(a->cfg.tick_s - (clock_s(CLOCK_MONOTONIC) - t0));
	}
	if (stop_flag)
		fprintf(a->log, "scalacn-agent: stopping (signal); the table stays as it is, "
			"--restore puts it back\n");
	if (x->metrics_stdout)
		ag_agent_metrics(a, stdout, err, sizeof(err));
	return 0;
}

static int run(struct ag_agent *a, const struct args *x)
{
	struct scn_error e;
	char err[1024] = "", buf[1200];

	scn_error_clear(&e);
	if (ag_config_load(x->config, &a->cfg, &e) < 0) {
		fprintf(stderr, "scalacn-agent: %s\n", scn_error_format(&e, buf, sizeof(buf)));
		return 2;
	}
	if (x->restore) {
		if (ag_agent_restore(a, err, sizeof(err)) == 0)
			return 0;
		fprintf(stderr, "scalacn-agent: restore: %s\n", err);
		return 3;
	}
	if (ag_agent_load_model(a, err, sizeof(err)) < 0) {
		fprintf(stderr, "scalacn-agent: %s\n", err);
		return 2;
	}
	if (ag_agent_start(a, 1, err, sizeof(err)) < 0)
		return a->dry_run ? (fprintf(stderr, "scalacn-agent: %s\n", err), 3) : fatal(a, err);
	return loop(a, x);
}

int main(int argc, char **argv)
{
	static struct ag_agent agent; /* large: not on the stack */
	struct args x = { 0 };
	struct sigaction sa;
	int rc;

	agent.log = stderr;
	agent.ops_out = stdout;
	rc = parse_args(argc, argv, &x, &agent);
	if (rc >= 0)
		return rc;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stderr, NULL, _IOLBF, 0);
	rc = run(&agent, &x);
	ag_agent_free(&agent);
	return rc;
}
