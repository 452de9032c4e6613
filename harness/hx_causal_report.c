/* SPDX-License-Identifier: MIT */
/*
 * hx_causal_report: causes into the store (one symptom row per cause, the cause linked to
 * it), and the analysis as a table for people and as JSON for programs.
 *
 * The store's columns are NOT NULL reals: a number that is not finite (the latency effect of
 * a point whose trials all failed) is stored as 0 and said in the detail text.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/hx_causal.h"
#include "harness/hx_point.h"

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
