/* SPDX-License-Identifier: MIT */
/*
 * ag_metrics: the agent's metrics in Prometheus text format (exposition format 0.0.4), for
 * node-exporter's textfile collector: written to a temporary file and renamed into
 * METRICS_DIR/scalacn_agent.prom, so a scrape never reads half a file (see ag_agent.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/ag_agent.h"

struct metric {
	const char *name, *type, *help;
};

static const struct metric metrics[] = {
	{ "scalacn_agent_predicted_degradation", "gauge",
	  "Degradation the model predicts for the table as it is (1 - bw(table)/bw(0))" },
	{ "scalacn_agent_masks_probed_per_packet", "gauge",
	  "Masks (tc prios) probed per packet that hit, estimated from the last tick's counters" },
	{ "scalacn_agent_hyper_hit_rate", "gauge",
	  "Share of the last tick's hits in the hyper prio (1); the agent makes no hyper copies" },
	{ "scalacn_agent_rule_operations_total", "counter",
	  "tc filter additions and deletions applied" },
	{ "scalacn_agent_plans_applied_total", "counter", "Plans applied and verified" },
	{ "scalacn_agent_forwarding_checked_total", "counter",
	  "Packets of the traffic seen looked up before and after each applied plan" },
	{ "scalacn_agent_forwarding_changed_total", "counter",
	  "Of those, packets handed to another action (must stay 0)" },
	{ "scalacn_agent_mirror_rebuilds_total", "counter",
	  "Times the table changed outside the agent (or the model was reloaded)" },
};

static double value(const struct ag_dev_stats *s, size_t i)
{
	const double v[] = { s->degradation, s->probes_per_packet, s->hyper_hit_rate,
			     (double)s->rule_ops, (double)s->plans, (double)s->checked,
			     (double)s->changed, (double)s->rebuilds };

	return v[i];
}

static int write_all(const struct ag_agent *a, FILE *f)
{
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", metrics[i].name, metrics[i].help,
			metrics[i].name, metrics[i].type);
		for (unsigned d = 0; d < a->n_dev; d++)
			fprintf(f, "%s{device=\"%s\"} %.17g\n", metrics[i].name, a->dev[d].m.dev,
				value(&a->dev[d].st, i));
	}
	fprintf(f, "# HELP scalacn_agent_tick_cpu_seconds CPU time of the last tick\n"
		"# TYPE scalacn_agent_tick_cpu_seconds gauge\nscalacn_agent_tick_cpu_seconds %.9f\n",
		a->tick_cpu_s);
	return ferror(f) ? -EIO : 0;
}

int ag_agent_metrics(const struct ag_agent *a, FILE *out, char *err, size_t errlen)
{
	char path[4200], tmp[4300];
	FILE *f;
	int rc;

	if (out && write_all(a, out) < 0)
		return -EIO;
	if (!*a->cfg.metrics_dir)
		return 0;
	snprintf(path, sizeof(path), "%s/scalacn_agent.prom", a->cfg.metrics_dir);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	if (!(f = fopen(tmp, "w"))) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -errno;
	}
	rc = write_all(a, f);
	if (fclose(f) != 0 || rc < 0 || rename(tmp, path) < 0) {
		snprintf(err, errlen, "writing %s: %s", path, strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	return 0;
}
