/* SPDX-License-Identifier: MIT */
/*
 * hx_causal_report: the analysis record (notes, causes merged by member set, evidence ids,
 * effect with its interval), causes into the store (one symptom row per cause, the cause
 * linked to it), and the analysis as a table for people and as JSON for programs.
 *
 * The store's columns are NOT NULL reals: a number that is not finite (the latency effect of
 * a point whose trials all failed) is stored as 0 and said in the detail text.
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <json-c/json.h>

#include "harness/hx_causal.h"
#include "harness/hx_point.h"

/* ---- Analysis records ------------------------------------------------------------------- */

void hx_analysis_note(struct hx_analysis *a, const char *fmt, ...)
{
	char buf[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (unsigned i = 0; i < a->n_notes; i++)
		if (!strcmp(a->notes[i], buf))
			return;
	if (a->n_notes < HX_MAX_NOTES)
		snprintf(a->notes[a->n_notes++], sizeof(a->notes[0]), "%s", buf);
}

uint32_t hx_cause_bits(const struct hx_plan *p, const struct hx_cause *c)
{
	uint32_t bits = 0;

	for (unsigned i = 0; i < p->n_dims; i++)
		for (unsigned k = 0; k < c->n_members; k++)
			if (p->dims[i].dim == c->members[k])
				bits |= 1u << i;
	return bits;
}

struct hx_cause *hx_analysis_add(struct hx_analysis *a, const struct hx_plan *p,
				 enum topo_verb v, enum gen_metric m, uint32_t members,
				 const struct gen_levels *at)
{
	struct hx_cause *c;

	for (unsigned i = 0; i < a->n_causes; i++)
		if (a->causes[i].verb == v && a->causes[i].metric == m &&
		    hx_cause_bits(p, &a->causes[i]) == members)
			return &a->causes[i];
	if (a->n_causes >= HX_MAX_CAUSES)
		return NULL;
	c = &a->causes[a->n_causes++];
	memset(c, 0, sizeof(*c));
	c->verb = v;
	c->metric = m;
	c->effect = c->effect_lo = c->effect_hi = NAN;
	for (unsigned i = 0; i < p->n_dims && c->n_members < HX_CAUSE_MAX_MEMBERS; i++) {
		if (!(members & (1u << i)))
			continue;
		c->members[c->n_members] = p->dims[i].dim;
		c->at[c->n_members] = gen_levels_get(at, p->dims[i].dim);
		c->wall[c->n_members] = c->last_good[c->n_members] = NAN;
		c->n_members++;
	}
	assert(c->n_members >= 1 && c->n_members <= HX_CAUSE_MAX_MEMBERS);
	return c;
}

void hx_cause_add_ids(struct hx_cause *c, const struct hx_point_result *r)
{
	for (unsigned i = 0; i < r->n && c->n_ids < HX_CAUSE_MAX_IDS; i++) {
		bool dup = false;

		for (unsigned j = 0; j < c->n_ids && !dup; j++)
			dup = c->ids[j] == r->ids[i];
		if (!dup && r->ids[i] > 0)
			c->ids[c->n_ids++] = r->ids[i];
	}
}

void hx_cause_effect(enum gen_metric m, const struct hx_point_result *with,
		     const struct hx_point_result *without, struct hx_cause *c)
{
	double y = with->s.mean, y0 = without->s.mean, se, t;
	size_t n = with->s.n < without->s.n ? with->s.n : without->s.n;

	if (!(y0 > 0) || !isfinite(y0) || !isfinite(y) || !(y > 0)) {
		c->effect = c->effect_lo = c->effect_hi =
			m == GEN_METRIC_BW && y0 > 0 && isfinite(y) ? y / y0 - 1 : NAN;
		return;
	}
	se = sqrt(with->s.sd * with->s.sd / ((double)with->s.n * y * y) +
		  without->s.sd * without->s.sd / ((double)without->s.n * y0 * y0));
	t = n > 1 ? gsl_cdf_tdist_Qinv(0.025, (double)(n - 1)) : 12.7;
	c->effect = y / y0 - 1;
	c->effect_lo = exp(log(y / y0) - t * se) - 1;
	c->effect_hi = exp(log(y / y0) + t * se) - 1;
}

/* ---- Store and reports ------------------------------------------------------------------ */

static double fin(double x)
{
	return isfinite(x) ? x : 0.0;
}

const char *hx_cause_members_text(const struct hx_cause *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->n_members && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "", c->members[i]->name);
	return buf;
}

static void walls_text(const struct hx_cause *c, char *buf, size_t len)
{
	size_t n = 0;
	char a[32], b[32];

	buf[0] = '\0';
	for (unsigned i = 0; i < c->n_members && n < len; i++) {
		if (isnan(c->wall[i]))
			n += (size_t)snprintf(buf + n, len - n, "%s%s@?", i ? " " : "",
					      c->members[i]->name);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%s@%s(ok %s)", i ? " " : "",
					      c->members[i]->name,
					      hx_level_text(c->members[i], c->wall[i], a, sizeof(a)),
					      hx_level_text(c->members[i], c->last_good[i], b,
							    sizeof(b)));
	}
}

static void ids_text(const struct hx_cause *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->n_ids && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? "," : "", (long long)c->ids[i]);
}

int hx_analysis_store(struct res_db *db, int64_t campaign, const struct hx_analysis *a,
		      struct scn_error *err)
{
	for (unsigned i = 0; i < a->n_causes; i++) {
		const struct hx_cause *c = &a->causes[i];
		struct res_symptom s;
		struct res_cause rc;
		char walls[256];
		int r;

		memset(&s, 0, sizeof(s));
		s.campaign = campaign;
		snprintf(s.kind, sizeof(s.kind), "%s", c->kind);
		snprintf(s.class_, sizeof(s.class_), "%s", c->class_[0] ? c->class_ : "unclassified");
		snprintf(s.verb, sizeof(s.verb), "%s", topo_verb_name(c->verb));
		hx_cause_members_text(c, s.dimension, sizeof(s.dimension));
		s.level = fin(c->wall[0]);
		s.last_good = fin(c->last_good[0]);
		s.effect = fin(c->effect);
		snprintf(s.detail, sizeof(s.detail), "metric=%s; strategy=%s; cause",
			 hx_metric_name(c->metric), hx_strategy_name(a->strategy));
		if ((r = res_symptom_put(db, &s, err)) < 0)
			return r;
		memset(&rc, 0, sizeof(rc));
		rc.campaign = campaign;
		rc.symptom = s.id;
		hx_cause_members_text(c, rc.members, sizeof(rc.members));
		rc.wall_level = fin(c->wall[0]);
		rc.effect = fin(c->effect);
		rc.effect_lo = fin(c->effect_lo);
		rc.effect_hi = fin(c->effect_hi);
		rc.confidence = c->confidence;
		ids_text(c, rc.trial_ids, sizeof(rc.trial_ids));
		walls_text(c, walls, sizeof(walls));
		snprintf(rc.detail, sizeof(rc.detail),
			 "verb=%s; metric=%s; strategy=%s; kind=%s; class=%s; walls=%s%s%s",
			 topo_verb_name(c->verb), hx_metric_name(c->metric),
			 hx_strategy_name(a->strategy), c->kind, s.class_, walls,
			 isfinite(c->effect) ? "" : "; effect: trials failed",
			 c->undecided ? "; undecided: more repeats needed" : "");
		if ((r = res_cause_put(db, &rc, err)) < 0)
			return r;
	}
	return 0;
}

void hx_analysis_print(const struct hx_analysis *a, FILE *out)
{
	fprintf(out, "Causes (%s: %lu points, %lu trials, %.3f testbed-hours):\n",
		hx_strategy_name(a->strategy), a->points, a->trials, a->cost_s / 3600.0);
	if (!a->n_causes)
		fprintf(out, "  none\n");
	else
		fprintf(out, "  %-5s %-3s %-34s %8s %-17s %5s %-12s %s\n", "verb", "met", "members",
			"effect", "95% interval", "conf", "class", "walls");
	for (unsigned i = 0; i < a->n_causes; i++) {
		const struct hx_cause *c = &a->causes[i];
		char members[128], walls[256], ci[40];

		hx_cause_members_text(c, members, sizeof(members));
		walls_text(c, walls, sizeof(walls));
		if (isfinite(c->effect_lo))
			snprintf(ci, sizeof(ci), "[%+.1f%%, %+.1f%%]", 100 * c->effect_lo,
				 100 * c->effect_hi);
		else
			snprintf(ci, sizeof(ci), "-");
		fprintf(out, "  %-5s %-3s %-34s ", topo_verb_name(c->verb), hx_metric_name(c->metric),
			members);
		if (isfinite(c->effect))
			fprintf(out, "%+7.1f%% ", 100 * c->effect);
		else
			fprintf(out, "%8s ", "failed");
		fprintf(out, "%-17s %5.2f %-12s %s%s\n", ci, c->confidence,
			c->class_[0] ? c->class_ : "unclassified", walls,
			c->undecided ? " (undecided: more repeats needed)" : "");
	}
	for (unsigned i = 0; i < a->n_notes; i++)
		fprintf(out, "  note: %s\n", a->notes[i]);
	if (a->budget_exhausted)
		fprintf(out, "  note: the budget ran out before the analysis finished\n");
}

static struct json_object *num(double x)
{
	return isfinite(x) ? json_object_new_double(x) : NULL;
}

struct json_object *hx_analysis_json(const struct hx_analysis *a)
{
	struct json_object *arr = json_object_new_array();

	for (unsigned i = 0; i < a->n_causes; i++) {
		const struct hx_cause *c = &a->causes[i];
		struct json_object *o = json_object_new_object(), *m = json_object_new_array();
		struct json_object *w = json_object_new_array(), *g = json_object_new_array();
		struct json_object *ids = json_object_new_array();

		for (unsigned k = 0; k < c->n_members; k++) {
			json_object_array_add(m, json_object_new_string(c->members[k]->name));
			json_object_array_add(w, num(c->wall[k]));
			json_object_array_add(g, num(c->last_good[k]));
		}
		for (unsigned k = 0; k < c->n_ids; k++)
			json_object_array_add(ids, json_object_new_int64(c->ids[k]));
		json_object_object_add(o, "verb", json_object_new_string(topo_verb_name(c->verb)));
		json_object_object_add(o, "metric", json_object_new_string(hx_metric_name(c->metric)));
		json_object_object_add(o, "members", m);
		json_object_object_add(o, "walls", w);
		json_object_object_add(o, "last_good", g);
		json_object_object_add(o, "effect", num(c->effect));
		json_object_object_add(o, "effect_lo", num(c->effect_lo));
		json_object_object_add(o, "effect_hi", num(c->effect_hi));
		json_object_object_add(o, "confidence", json_object_new_double(c->confidence));
		json_object_object_add(o, "kind", json_object_new_string(c->kind));
		json_object_object_add(o, "class", json_object_new_string(c->class_));
		json_object_object_add(o, "undecided", json_object_new_boolean(c->undecided));
		json_object_object_add(o, "trial_ids", ids);
		json_object_array_add(arr, o);
	}
	return arr;
}
