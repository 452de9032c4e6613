/* SPDX-License-Identifier: MIT */
/*
 * pt_evidence: gathering and writing a perftest trial's evidence (pt_evidence.h) with
 * json-c. Counter values are what sysfs shows (raw, as pt_counters.h keeps them); a counter
 * that is not finite is left out (JSON has no inf). Filters are listed per device as
 * [chain, prio, handle, packets] in tc's order.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "testbeds/perftest/pt_evidence.h"

static const struct pt_wrap tc_show_wrap = { .sudo = true, .stdin = true };

void pt_evidence_free(struct pt_evidence *e)
{
	for (unsigned h = 0; h < PT_MAX_HOSTS; h++)
		for (unsigned d = 0; d < PT_TC_MAX_DEVS; d++) {
			pt_tc_hits_free(&e->before[h][d]);
			pt_tc_hits_free(&e->after[h][d]);
		}
}

void pt_evidence_reset(struct pt_evidence *e)
{
	unsigned attempts = e->attempts;

	pt_evidence_free(e);
	memset(e, 0, sizeof(*e));
	e->attempts = attempts;
	e->wc_status = -1;
}

void pt_evidence_line(struct pt_evidence *e, const char *fmt, ...)
{
	va_list ap;

	if (e->n_lines == sizeof(e->lines) / sizeof(e->lines[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(e->lines[e->n_lines++], PT_EVIDENCE_LINE, fmt, ap);
	va_end(ap);
}

bool pt_evidence_tc(struct tb_perftest *t, unsigned h, struct pt_tc_hits *hits)
{
	bool all = true;

	for (unsigned i = 0; i < t->scope[h].n_devs; i++) {
		char *const show[] = { "tc", "-s", "-j", "filter", "show", "dev",
				       t->scope[h].devs[i], "ingress", NULL };
		struct pt_proc *p = NULL;
		struct scn_error err;
		size_t len;

		hits[i].n = 0;
		if (pt_tb_exec(t, h, show, &tc_show_wrap, NULL, t->inv->tc_s, &p, &err) < 0 || !p ||
		    pt_proc_exit_code(p) != 0) {
			all = false;
		} else {
			const char *out = pt_proc_out(p, &len);

			all &= pt_tc_hits_json(out, len, &hits[i], &err) == 0;
		}
		pt_proc_free(p);
	}
	return all;
}

static struct json_object *counters_json(const struct pt_counters *c)
{
	struct json_object *o = json_object_new_object();

	for (unsigned i = 0; i < c->n; i++)
		if (isfinite(c->value[i]))
			json_object_object_add(o, c->name[i], json_object_new_double(c->value[i]));
	return o;
}

static struct json_object *devices_json(const struct tb_perftest *t, const struct pt_evidence *e)
{
	struct json_object *a = json_object_new_array();

	for (unsigned h = 0; h < t->inv->n_hosts; h++) {
		const struct pt_host *host = &t->inv->hosts[h];
		struct json_object *d;

		if (!e->have_dev[h])
			continue;
		d = json_object_new_object();
		json_object_object_add(d, "host", json_object_new_string(host->name));
		json_object_object_add(d, "device", json_object_new_string(host->device));
		json_object_object_add(d, "port", json_object_new_int((int)host->ib_port));
		json_object_object_add(d, "counters", counters_json(&e->dev[h]));
		json_object_array_add(a, d);
	}
	return a;
}

static struct json_object *dev_hits_json(const char *host, const char *dev,
					 const struct pt_tc_hits *hits, bool list)
{
	struct json_object *d = json_object_new_object(), *a = json_object_new_array();
	double total = 0;

	for (size_t i = 0; i < hits->n; i++) {
		struct json_object *row;

		total += hits->v[i].packets;
		if (!list)
			continue;
		row = json_object_new_array();
		json_object_array_add(row, json_object_new_int64(hits->v[i].chain));
		json_object_array_add(row, json_object_new_int64(hits->v[i].prio));
		json_object_array_add(row, json_object_new_int64(hits->v[i].handle));
		json_object_array_add(row, json_object_new_double(hits->v[i].packets));
		json_object_array_add(a, row);
	}
	json_object_object_add(d, "host", json_object_new_string(host));
	json_object_object_add(d, "dev", json_object_new_string(dev));
	json_object_object_add(d, "filters", json_object_new_int64((int64_t)hits->n));
	json_object_object_add(d, "packets", json_object_new_double(total));
	if (list)
		json_object_object_add(d, "hits", a);
	else
		json_object_put(a);
	return d;
}

static struct json_object *tc_json(const struct tb_perftest *t, struct pt_evidence *e, bool list)
{
	struct json_object *a = json_object_new_array();

	for (unsigned h = 0; h < t->inv->n_hosts; h++)
		for (unsigned i = 0; e->have_tc[h] && i < t->scope[h].n_devs; i++)
			json_object_array_add(a, dev_hits_json(t->inv->hosts[h].name,
							       t->scope[h].devs[i],
							       &e->after[h][i], list));
	return a;
}

static struct json_object *build(const struct tb_perftest *t, struct pt_evidence *e, bool list)
{
	struct json_object *o = json_object_new_object(), *lines = json_object_new_array();
	bool tc = false;

	for (unsigned i = 0; i < e->n_lines; i++)
		json_object_array_add(lines, json_object_new_string(e->lines[i]));
	json_object_object_add(o, "attempts", json_object_new_int((int)e->attempts));
	json_object_object_add(o, "lines", lines);
	if (e->completion[0]) {
		struct json_object *c = json_object_new_object();

		json_object_object_add(c, "message", json_object_new_string(e->completion));
		json_object_object_add(c, "wc_status", e->wc_status >= 0 ?
				       json_object_new_int(e->wc_status) : NULL);
		json_object_object_add(o, "completion", c);
	} else {
		json_object_object_add(o, "completion", NULL);
	}
	json_object_object_add(o, "devices", devices_json(t, e));
	for (unsigned h = 0; h < t->inv->n_hosts; h++)
		tc |= e->have_tc[h];
	json_object_object_add(o, "tc", tc ? tc_json(t, e, list) : NULL);
	if (!list)
		json_object_object_add(o, "hits_dropped", json_object_new_boolean(1));
	return o;
}

void pt_evidence_json(const struct tb_perftest *t, struct pt_evidence *e, char *buf, size_t len)
{
	for (int list = 1; list >= 0; list--) {
		struct json_object *o = build(t, e, list);
		const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
		size_t n = strlen(s);

		if (n < len) {
			memcpy(buf, s, n + 1);
			json_object_put(o);
			return;
		}
		json_object_put(o);
	}
	snprintf(buf, len, "{\"attempts\":%u,\"lines\":[],\"completion\":null,\"devices\":[],"
		 "\"tc\":null,\"truncated\":true}", e->attempts);
}
