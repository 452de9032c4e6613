/* SPDX-License-Identifier: MIT */
/*
 * cmd_trials_evidence: `scalacn trials --evidence ID`, one trial's evidence as text (the
 * JSON members of docs/json.md "trials"): the raw lines that decided it, the completion
 * status, the counters of each host's device side by side (a counter that moved on one
 * side only is the answer to "which side retransmitted?") and, per device, the tc filters
 * that counted packets during the trial (the ones that counted none are summed up).
 */
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "harness/cli/cmd_trials_priv.h"

#define MAX_DEVS 16

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v ? json_object_get_string(v) : "";
}

static void print_lines(FILE *out, struct json_object *ev)
{
	struct json_object *lines = get(ev, "lines"), *c = get(ev, "completion");
	size_t n = lines ? json_object_array_length(lines) : 0;

	fprintf(out, "Raw lines that decided it:%s\n", n ? "" : " none");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %s\n", json_object_get_string(json_object_array_get_idx(lines, i)));
	if (c && get(c, "wc_status"))
		fprintf(out, "Completion: %s (work completion status %d)\n", str(c, "message"),
			json_object_get_int(get(c, "wc_status")));
	else if (c)
		fprintf(out, "Completion: %s\n", str(c, "message"));
	else
		fprintf(out, "Completion: no error reported\n");
}

/* Every counter name of any device, once, in the order first seen. */
static size_t counter_names(struct json_object **dev, size_t nd, const char **names, size_t max)
{
	size_t n = 0;

	for (size_t d = 0; d < nd; d++) {
		json_object_object_foreach(get(dev[d], "counters"), key, val) {
			size_t k = 0;

			(void)val;
			while (k < n && strcmp(names[k], key))
				k++;
			if (k == n && n < max)
				names[n++] = key;
		}
	}
	return n;
}

static void print_devices(FILE *out, struct json_object *ev)
{
	struct json_object *devs = get(ev, "devices"), *dev[MAX_DEVS];
	size_t nd = devs ? json_object_array_length(devs) : 0, nn;
	const char *names[256];
	char head[96];

	if (nd > MAX_DEVS)
		nd = MAX_DEVS;
	if (!nd) {
		fprintf(out, "Counters: none read\n");
		return;
	}
	for (size_t d = 0; d < nd; d++)
		dev[d] = json_object_array_get_idx(devs, d);
	nn = counter_names(dev, nd, names, sizeof(names) / sizeof(names[0]));
	fprintf(out, "Counters over the trial, each device apart:\n  %-28s", "counter");
	for (size_t d = 0; d < nd; d++) {
		snprintf(head, sizeof(head), "%s/%s", str(dev[d], "host"), str(dev[d], "device"));
		fprintf(out, " %16s", head);
	}
	fputc('\n', out);
	for (size_t k = 0; k < nn; k++) {
		fprintf(out, "  %-28s", names[k]);
		for (size_t d = 0; d < nd; d++) {
			struct json_object *v = get(get(dev[d], "counters"), names[k]);

			if (v)
				fprintf(out, " %16.0f", json_object_get_double(v));
			else
				fprintf(out, " %16s", "-");
		}
		fputc('\n', out);
	}
}

static void print_hits(FILE *out, struct json_object *d)
{
	struct json_object *hits = get(d, "hits");
	size_t n = hits ? json_object_array_length(hits) : 0, zero = 0;

	fprintf(out, "  %s %s: %d filters, %.0f packets\n", str(d, "host"), str(d, "dev"),
		json_object_get_int(get(d, "filters")), json_object_get_double(get(d, "packets")));
	for (size_t i = 0; i < n; i++) {
		struct json_object *h = json_object_array_get_idx(hits, i);
		double p = json_object_get_double(json_object_array_get_idx(h, 3));

		if (p <= 0) {
			zero++;
			continue;
		}
		fprintf(out, "    chain %u prio %u handle %u: %.0f packets\n",
			(unsigned)json_object_get_int64(json_object_array_get_idx(h, 0)),
			(unsigned)json_object_get_int64(json_object_array_get_idx(h, 1)),
			(unsigned)json_object_get_int64(json_object_array_get_idx(h, 2)), p);
	}
	if (zero)
		fprintf(out, "    %zu filter%s counted no packet\n", zero, zero == 1 ? "" : "s");
}

static void print_tc(FILE *out, struct json_object *ev)
{
	struct json_object *tc = get(ev, "tc");
	size_t n = tc ? json_object_array_length(tc) : 0;

	if (!tc) {
		fprintf(out, "tc filters: not read (no eSwitch rules on this testbed)\n");
		return;
	}
	fprintf(out, "tc filters, packets counted during the trial%s:\n",
		get(ev, "hits_dropped") ? " (per-filter lists too large to keep: totals only)" : "");
	for (size_t i = 0; i < n; i++)
		print_hits(out, json_object_array_get_idx(tc, i));
}

void hx_trials_print_evidence(FILE *out, const struct res_trial *t, const char *changed,
			      const char *evidence)
{
	struct json_object *ev = evidence ? json_tokener_parse(evidence) : NULL;

	fprintf(out, "Trial %lld (campaign %lld, %s, %s %s, repeat %d, %s): %s", (long long)t->id,
		(long long)t->campaign, t->phase[0] ? t->phase : "no phase", t->verb, t->metric,
		t->repeat, changed[0] ? changed : "baseline", t->sample.status);
	if (isfinite(t->sample.bw_gbps))
		fprintf(out, ", %.3f Gb/s", t->sample.bw_gbps);
	if (isfinite(t->sample.lat_median_us))
		fprintf(out, ", %.3f us", t->sample.lat_median_us);
	if (!ev) {
		fprintf(out, "\nNo evidence recorded: the testbed showed none (the simulator), or "
			"the trial was stored before store schema 6.\n");
		return;
	}
	fprintf(out, ", %d attempt%s\n", json_object_get_int(get(ev, "attempts")),
		json_object_get_int(get(ev, "attempts")) == 1 ? "" : "s");
	print_lines(out, ev);
	print_devices(out, ev);
	print_tc(out, ev);
	json_object_put(ev);
}
