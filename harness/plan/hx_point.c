/* SPDX-License-Identifier: MIT */
/*
 * hx_point: canonical text, JSON and keys of points and trials (see hx_point.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness/plan/hx_plan.h"

/* Append "NAME=VALUE;" (or "\"NAME\":VALUE," for JSON) at offset N; returns the new offset. */
static size_t append_pair(char *buf, size_t len, size_t n, bool json, const char *name,
			  const char *value)
{
	if (n >= len)
		return n;
	if (json)
		return n + (size_t)snprintf(buf + n, len - n, "\"%s\":%s,", name, value);
	return n + (size_t)snprintf(buf + n, len - n, "%s=%s;", name, value);
}

const char *hx_level_text(const struct gen_dimension *d, double level, char *buf, size_t len)
{
	if (d->kind == GEN_DIM_CATEGORICAL && d->names && level >= 0 && level < d->n_levels)
		snprintf(buf, len, "%s", d->names[(unsigned)level]);
	else if (level == trunc(level) && fabs(level) < 1e10 && !(level == 0 && signbit(level)))
		snprintf(buf, len, "%" PRId64, (int64_t)level); /* what %.10g prints, faster */
	else
		snprintf(buf, len, "%.10g", level);
	return buf;
}

static const char *metric_name(const struct gen_levels *l)
{
	return l->metric == GEN_METRIC_LAT ? "lat" : "bw";
}

/* X as "%.17g" prints it; whole numbers (nearly every level) through the integer
 * conversion, which prints the same digits at a fraction of the cost (keys are made for
 * every trial). */
static void exact_text(double x, char *v, size_t len)
{
	if (x == trunc(x) && fabs(x) < 1e15 && !(x == 0 && signbit(x)))
		snprintf(v, len, "%" PRId64, (int64_t)x);
	else
		snprintf(v, len, "%.17g", x);
}

const char *hx_point_text(const struct gen_levels *l, char *buf, size_t len)
{
	size_t n = 0;
	char v[64];

	buf[0] = '\0';
	for (unsigned i = 0; i < gen_dimension_count(); i++) {
		const struct gen_dimension *d = gen_dimension_at(i);

		exact_text(gen_levels_get(l, d), v, sizeof(v));
		n = append_pair(buf, len, n, false, d->name, v);
	}
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, "metric=%s", metric_name(l));
	if (l->layout && n < len) /* layout 0 adds nothing: the keys stored before layouts */
		snprintf(buf + n, len - n, ";layout=%u", l->layout);
	return buf;
}

const char *hx_point_brief(const struct gen_levels *l, char *buf, size_t len)
{
	struct gen_levels neutral;
	size_t n;
	char v[64];

	gen_levels_neutral(&neutral);
	n = (size_t)snprintf(buf, len, "%s %s", topo_verb_name(l->verb), metric_name(l));
	for (unsigned i = 0; i < gen_dimension_count() && n < len; i++) {
		const struct gen_dimension *d = gen_dimension_at(i);
		double x = gen_levels_get(l, d);

		if (!strcmp(d->name, "verb") || x == gen_levels_get(&neutral, d))
			continue;
		hx_level_text(d, x, v, sizeof(v));
		n += (size_t)snprintf(buf + n, len - n, " %s=%s", d->name, v);
	}
	if (l->layout && n < len)
		snprintf(buf + n, len - n, " layout=%u", l->layout);
	return buf;
}

const char *hx_point_json(const struct gen_levels *l, char *buf, size_t len)
{
	size_t n = 0;
	char v[64], q[72];

	n = (size_t)snprintf(buf, len, "{");
	for (unsigned i = 0; i < gen_dimension_count(); i++) {
		const struct gen_dimension *d = gen_dimension_at(i);

		hx_level_text(d, gen_levels_get(l, d), v, sizeof(v));
		if (d->kind == GEN_DIM_CATEGORICAL && d->names)
			snprintf(q, sizeof(q), "\"%s\"", v);
		else
			snprintf(q, sizeof(q), "%s", v);
		n = append_pair(buf, len, n, true, d->name, q);
	}
	if (l->layout && n < len)
		n += (size_t)snprintf(buf + n, len - n, "\"layout\":%u,", l->layout);
	if (n < len)
		snprintf(buf + n, len - n, "\"metric\":\"%s\"}", metric_name(l));
	return buf;
}

static void key_of(const char *text, char out[33])
{
	size_t len = strlen(text);

	snprintf(out, 33, "%016" PRIx64 "%016" PRIx64, gen_hash64(text, len, 0x5ca1ab1eULL),
		 gen_hash64(text, len, 0xc0ffee11ULL));
}

void hx_point_key(const struct gen_levels *l, char out[33])
{
	char text[4096];

	key_of(hx_point_text(l, text, sizeof(text)), out);
}

void hx_trial_key(const struct gen_levels *l, int repeat, const char *testbed_identity,
		  char out[33])
{
	char text[4096];
	size_t n;

	hx_point_text(l, text, sizeof(text));
	n = strlen(text);
	snprintf(text + n, sizeof(text) - n, ";repeat=%d;testbed=%s", repeat, testbed_identity);
	key_of(text, out);
}
