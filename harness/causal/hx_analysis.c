/* SPDX-License-Identifier: MIT */
/*
 * hx_analysis: the analysis record (notes, causes merged by member set, evidence ids,
 * effect with its interval), its texts (members, walls, evidence ids) and the causes into
 * the store (one symptom row per cause, the cause linked to it). The table for people and
 * the JSON for programs are the CLI's (cli/hx_causal_print.c).
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

#include "harness/causal/hx_causal.h"
#include "harness/plan/hx_plan.h"

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
	c->shown = *at;
	for (unsigned i = 0; i < p->n_dims && c->n_members < HX_CAUSE_MAX_MEMBERS; i++) {
		if (!(members & (1u << i)))
			continue;
		c->members[c->n_members] = p->dims[i].dim;
		c->at[c->n_members] = gen_levels_get(at, p->dims[i].dim);
		c->context[c->n_members] = !p->dims[i].scale;
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

	c->failed_with = with->failed;
	c->n_with = with->n;
	c->failed_without = without->failed;
	c->n_without = without->n;

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

/* ---- Texts and the store ------------------------------------------------------------------- */

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

void hx_cause_walls_text(const struct hx_cause *c, char *buf, size_t len)
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

/* "; contexts=msg_size,..." for C's non-scale members (res_cause_dims leaves them out of
 * the model inputs), or "". */
static void contexts_text(const struct hx_cause *c, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->n_members && k < len; i++)
		if (c->context[i])
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "," : "; contexts=",
					      c->members[i]->name);
}

static void ids_text(const struct hx_cause *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->n_ids && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? "," : "", (long long)c->ids[i]);
}

/* One cause (or suspect) of A: its symptom row, then the cause row linked to it. */
static int store_one(struct res_db *db, int64_t campaign, const struct hx_analysis *a,
		     const struct hx_cause *c, bool supported, struct scn_error *err)
{
	struct res_symptom s;
	struct res_cause rc;
	char walls[256], contexts[160];
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
	snprintf(s.detail, sizeof(s.detail), "metric=%s; strategy=%s; %s",
		 hx_metric_name(c->metric), hx_strategy_name(a->strategy),
		 supported ? "cause" : "suspect");
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
	rc.supported = supported;
	rc.evidence_json = c->evidence ? json_object_to_json_string_ext(c->evidence,
									JSON_C_TO_STRING_PLAIN) : NULL;
	snprintf(rc.reason, sizeof(rc.reason), "%s", supported ? "" : c->why);
	ids_text(c, rc.trial_ids, sizeof(rc.trial_ids));
	hx_cause_walls_text(c, walls, sizeof(walls));
	contexts_text(c, contexts, sizeof(contexts));
	snprintf(rc.detail, sizeof(rc.detail),
		 "verb=%s; metric=%s; strategy=%s; kind=%s; class=%s; walls=%s%s%s%s%s%s",
		 topo_verb_name(c->verb), hx_metric_name(c->metric),
		 hx_strategy_name(a->strategy), c->kind, s.class_, walls, contexts,
		 c->through[0] ? "; through=" : "", c->through,
		 isfinite(c->effect) ? "" : "; effect: trials failed",
		 c->undecided ? "; undecided: more repeats needed" : "");
	return res_cause_put(db, &rc, err);
}

int hx_analysis_store(struct res_db *db, int64_t campaign, const struct hx_analysis *a,
		      struct scn_error *err)
{
	int r = 0;

	for (unsigned i = 0; r == 0 && i < a->n_causes; i++)
		r = store_one(db, campaign, a, &a->causes[i], true, err);
	for (unsigned i = 0; r == 0 && i < a->n_suspects; i++)
		r = store_one(db, campaign, a, &a->suspects[i], false, err);
	return r;
}
