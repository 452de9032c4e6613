/* SPDX-License-Identifier: MIT */
/*
 * hx_diff: two campaigns compared from their stores (each gathered as its report sees it,
 * hx_rep_load): walls matched by (verb, metric, dimension) that moved, appeared or went;
 * supported causes matched by (members, verb, metric) gained or lost; criteria matched by
 * name whose verdict changed; models matched by (verb, metric) whose predictions at A's
 * measured points left A's 95% prediction interval (B's inputs taken by name from A's point,
 * or from the setting A's model was fitted at; a change when A has neither).
 *
 * A wall moved when its level differs, its class differs, or its effect changed by more than
 * the noise of the two baselines allows: |effect B - effect A| > max(HX_DIFF_MIN_EFFECT,
 * 3 sqrt(cv_A^2 + cv_B^2)) with cv the baselines' sd / mean (the effect is relative to the
 * baseline, so its noise is about the baselines' cv).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/fit/hx_fit.h"
#include "harness/report/hx_rep_priv.h"

#define HX_DIFF_MIN_EFFECT 0.05

static const char *const kind_names[HX_DIFF_KIND_COUNT] = {
	"wall-moved", "wall-gained", "wall-lost", "cause-gained", "cause-lost", "criterion",
	"model",
};

const char *hx_diff_kind_name(enum hx_diff_kind k)
{
	return k < HX_DIFF_KIND_COUNT ? kind_names[k] : "?";
}

static struct hx_diff_row *add(struct hx_diff *d, enum hx_diff_kind k, bool gate,
			       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static struct hx_diff_row *add(struct hx_diff *d, enum hx_diff_kind k, bool gate,
			       const char *fmt, ...)
{
	struct hx_diff_row *row;
	va_list ap;

	if (d->n == d->cap) {
		unsigned cap = d->cap ? 2 * d->cap : 16;
		struct hx_diff_row *rows = realloc(d->rows, cap * sizeof(*rows));

		if (!rows)
			return NULL;
		d->rows = rows, d->cap = cap;
	}
	row = &d->rows[d->n++];
	memset(row, 0, sizeof(*row));
	row->kind = k;
	row->gate = gate;
	va_start(ap, fmt);
	vsnprintf(row->what, sizeof(row->what), fmt, ap);
	va_end(ap);
	return row;
}

static void wall_text(const struct res_symptom *w, char *buf, size_t len)
{
	snprintf(buf, len, "at %g (last good %g), %+.1f%%, %s %s", w->level, w->last_good,
		 100 * w->effect, w->class_, w->kind);
}

static const struct res_symptom *find_wall(const struct hx_rep *r, const struct res_symptom *w)
{
	char m[8], mw[8];

	hx_rep_symptom_metric(w, mw, sizeof(mw));
	for (unsigned i = 0; i < r->n_walls; i++) {
		hx_rep_symptom_metric(&r->walls[i], m, sizeof(m));
		if (!strcmp(r->walls[i].verb, w->verb) && !strcmp(m, mw) &&
		    !strcmp(r->walls[i].dimension, w->dimension))
			return &r->walls[i];
	}
	return NULL;
}

static double cv_of(const struct hx_rep *r, const char *verb, const char *metric)
{
	const struct hx_rep_base *b = hx_rep_base_of(r, verb, metric);

	return b && isfinite(b->st.sd) && b->st.mean != 0 ? b->st.sd / fabs(b->st.mean) : 0;
}

static bool wall_moved(const struct hx_rep *a, const struct hx_rep *b,
		       const struct res_symptom *wa, const struct res_symptom *wb)
{
	char m[8];

	hx_rep_symptom_metric(wa, m, sizeof(m));
	double ca = cv_of(a, wa->verb, m), cb = cv_of(b, wb->verb, m);
	double noise = fmax(HX_DIFF_MIN_EFFECT, 3 * sqrt(ca * ca + cb * cb));

	return wa->level != wb->level || strcmp(wa->class_, wb->class_) ||
	       fabs(wb->effect - wa->effect) > noise;
}

/* Walls of FROM missing in TO are KIND (lost, or gained when FROM is B). */
static void walls_only(struct hx_diff *d, const struct hx_rep *from, const struct hx_rep *to,
		       enum hx_diff_kind kind)
{
	for (unsigned i = 0; i < from->n_walls; i++) {
		const struct res_symptom *w = &from->walls[i];
		struct hx_diff_row *row;
		char m[8];

		if (find_wall(to, w))
			continue;
		hx_rep_symptom_metric(w, m, sizeof(m));
		row = add(d, kind, true, "%s %s wall along %s", w->verb, m, w->dimension);
		if (row)
			wall_text(w, kind == HX_DIFF_WALL_LOST ? row->a : row->b, sizeof(row->a));
		d->walls += kind == HX_DIFF_WALL_GAINED;
	}
}

static void diff_walls(struct hx_diff *d, const struct hx_rep *a, const struct hx_rep *b)
{
	for (unsigned i = 0; i < a->n_walls; i++) {
		const struct res_symptom *wa = &a->walls[i], *wb = find_wall(b, wa);
		struct hx_diff_row *row;
		char m[8];

		d->walls++;
		if (!wb || !wall_moved(a, b, wa, wb))
			continue;
		hx_rep_symptom_metric(wa, m, sizeof(m));
		row = add(d, HX_DIFF_WALL_MOVED, true, "%s %s wall along %s", wa->verb, m,
			  wa->dimension);
		if (!row)
			return;
		wall_text(wa, row->a, sizeof(row->a));
		wall_text(wb, row->b, sizeof(row->b));
	}
	walls_only(d, a, b, HX_DIFF_WALL_LOST);
	walls_only(d, b, a, HX_DIFF_WALL_GAINED);
}

static bool has_cause(const struct hx_rep *r, const struct hx_rep_cause *c)
{
	for (unsigned i = 0; i < r->n_causes; i++) {
		const struct hx_rep_cause *o = &r->causes[i];

		if (o->c.supported && !strcmp(o->c.members, c->c.members) &&
		    !strcmp(o->verb, c->verb) && !strcmp(o->metric, c->metric))
			return true;
	}
	return false;
}

static void causes_only(struct hx_diff *d, const struct hx_rep *from, const struct hx_rep *to,
			enum hx_diff_kind kind)
{
	for (unsigned i = 0; i < from->n_causes; i++) {
		const struct hx_rep_cause *c = &from->causes[i];
		struct hx_diff_row *row;

		if (!c->c.supported)
			continue;
		d->causes += kind == HX_DIFF_CAUSE_LOST || !has_cause(to, c);
		if (has_cause(to, c))
			continue;
		row = add(d, kind, true, "cause %s (%s %s)", c->c.members, c->verb, c->metric);
		if (row)
			snprintf(kind == HX_DIFF_CAUSE_LOST ? row->a : row->b, sizeof(row->a),
				 "wall level %g, %+.1f%% [%+.1f%%, %+.1f%%], confidence %.2f",
				 c->c.wall_level, 100 * c->c.effect, 100 * c->c.effect_lo,
				 100 * c->c.effect_hi, c->c.confidence);
	}
}

static void crit_text(const struct res_criterion *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s: ratio %.3f (%s %.3f), %.5g %s", c->pass ? "PASS" : "FAIL",
		 c->ratio, c->op, c->required, c->value, hx_rep_unit(c->metric));
}

static const struct res_criterion *find_crit(const struct hx_rep *r, const char *name)
{
	for (unsigned i = 0; i < r->n_crit; i++)
		if (!strcmp(r->crit[i].name, name))
			return &r->crit[i];
	return NULL;
}

static void diff_criteria(struct hx_diff *d, const struct hx_rep *a, const struct hx_rep *b)
{
	for (unsigned i = 0; i < a->n_crit + b->n_crit; i++) {
		bool in_a = i < a->n_crit;
		const struct res_criterion *c = in_a ? &a->crit[i] : &b->crit[i - a->n_crit];
		const struct res_criterion *ca = find_crit(a, c->name), *cb = find_crit(b, c->name);
		struct hx_diff_row *row;

		if (!in_a && ca)
			continue; /* matched from A's side */
		d->criteria++;
		if (ca && cb && ca->pass == cb->pass)
			continue;
		if (!(row = add(d, HX_DIFF_CRITERION, true, "criterion '%s'", c->name)))
			return;
		if (ca)
			crit_text(ca, row->a, sizeof(row->a));
		if (cb)
			crit_text(cb, row->b, sizeof(row->b));
	}
}

/* Input NAME's value at A's point I: A's own input of that name, else the setting A's
 * model was fitted at (its domain's "fixed"); NAN when A knows neither. */
static double input_at(const struct hx_rep_model *ma, const char *name, unsigned i)
{
	char names[128], *save = NULL;
	struct json_object *dom = json_tokener_parse(ma->m.domain_json), *fixed, *v;
	double x = NAN;
	unsigned k = 0;

	snprintf(names, sizeof(names), "%s", ma->m.inputs);
	for (char *n = strtok_r(names, ",", &save); n && k < 2; n = strtok_r(NULL, ",", &save), k++)
		if (!strcmp(n, name))
			x = ma->x[i][k];
	if (isnan(x) && json_object_object_get_ex(dom, "fixed", &fixed) &&
	    json_object_object_get_ex(fixed, name, &v))
		x = json_object_get_double(v);
	json_object_put(dom);
	return x;
}

/* A's point I in B's inputs (B's names, in B's order) into X; false when A lacks one. */
static bool point_for(const struct hx_rep_model *ma, const struct hx_rep_model *mb, unsigned i,
		      double x[2])
{
	char names[128], *save = NULL;
	unsigned k = 0;

	x[0] = x[1] = 0;
	snprintf(names, sizeof(names), "%s", mb->m.inputs);
	for (char *n = strtok_r(names, ",", &save); n && k < 2; n = strtok_r(NULL, ",", &save))
		if (isnan(x[k++] = input_at(ma, n, i)))
			return false;
	return true;
}

/* B's model against A's at A's measured points (in B's inputs): the largest relative
 * difference, and whether B's prediction left A's 95% prediction interval anywhere. */
static void diff_model(struct hx_diff *d, const struct hx_rep_model *ma,
		       const struct hx_rep_model *mb)
{
	double worst = 0, at[2] = { NAN, NAN }, xb[2];
	unsigned outside = 0, missing = 0;
	struct hx_diff_row *row;

	for (unsigned i = 0; i < ma->n; i++) {
		struct hx_prediction pa, pb;
		struct scn_error e = { 0 };

		if (!point_for(ma, mb, i, xb)) {
			missing++;
			continue;
		}
		if (hx_fit_predict(&ma->m, ma->x[i][0], ma->x[i][1], &pa, &e) < 0 ||
		    hx_fit_predict(&mb->m, xb[0], xb[1], &pb, &e) < 0)
			continue;
		double rel = pa.value != 0 ? fabs(pb.value - pa.value) / fabs(pa.value) : 0;

		outside += isfinite(pa.lo) && (pb.value < pa.lo || pb.value > pa.hi);
		if (rel > worst)
			worst = rel, at[0] = ma->x[i][0], at[1] = ma->x[i][1];
	}
	row = add(d, HX_DIFF_MODEL, outside > 0 || missing > 0, "model %s %s at %u measured points",
		  ma->m.verb, ma->m.metric, ma->n);
	if (!row)
		return;
	snprintf(row->a, sizeof(row->a), "#%lld %s of %.60s", (long long)ma->m.id, ma->m.form,
		 ma->m.inputs);
	if (missing)
		snprintf(row->b, sizeof(row->b), "#%lld %s of %.60s: inputs A's points do not have",
			 (long long)mb->m.id, mb->m.form, mb->m.inputs);
	else if (worst == 0)
		snprintf(row->b, sizeof(row->b), "#%lld %s: the same predictions at every point",
			 (long long)mb->m.id, mb->m.form);
	else
		snprintf(row->b, sizeof(row->b), "#%lld %s: largest change %.1f%% at A's (%g, %g), "
			 "%u points outside A's 95%% interval", (long long)mb->m.id, mb->m.form,
			 100 * worst, at[0], at[1], outside);
}

static void diff_models(struct hx_diff *d, const struct hx_rep *a, const struct hx_rep *b)
{
	for (unsigned i = 0; i < a->n_models; i++)
		for (unsigned k = 0; k < b->n_models; k++)
			if (!strcmp(a->models[i].m.verb, b->models[k].m.verb) &&
			    !strcmp(a->models[i].m.metric, b->models[k].m.metric)) {
				d->models++;
				diff_model(d, &a->models[i], &b->models[k]);
			}
}

static void name_of(const struct hx_rep *r, char *buf, size_t len)
{
	snprintf(buf, len, "campaign %lld (%s, firmware %s)", (long long)r->c.id, r->c.rnic_model,
		 r->c.firmware[0] ? r->c.firmware : "unknown");
}

int hx_diff_compute(struct res_db *da, int64_t a, struct res_db *db, int64_t b,
		    struct hx_diff *out, struct scn_error *err)
{
	struct hx_rep *ra = calloc(1, sizeof(*ra)), *rb = calloc(1, sizeof(*rb));
	int rc = ra && rb ? 0 : scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "diff: out of memory");

	memset(out, 0, sizeof(*out));
	out->a = a, out->b = b;
	if (rc == 0)
		rc = hx_rep_load(da, a, ra, err);
	if (rc == 0)
		rc = hx_rep_load(db, b, rb, err);
	if (rc == 0) {
		name_of(ra, out->a_name, sizeof(out->a_name));
		name_of(rb, out->b_name, sizeof(out->b_name));
		diff_walls(out, ra, rb);
		causes_only(out, ra, rb, HX_DIFF_CAUSE_LOST);
		causes_only(out, rb, ra, HX_DIFF_CAUSE_GAINED);
		diff_criteria(out, ra, rb);
		diff_models(out, ra, rb);
	}
	if (ra)
		hx_rep_free(ra);
	if (rb)
		hx_rep_free(rb);
	free(ra);
	free(rb);
	return rc;
}

void hx_diff_free(struct hx_diff *d)
{
	free(d->rows);
	d->rows = NULL;
	d->n = d->cap = 0;
}

unsigned hx_diff_count(const struct hx_diff *d, enum hx_diff_kind k)
{
	unsigned n = 0;

	for (unsigned i = 0; i < d->n; i++)
		n += d->rows[i].kind == k && d->rows[i].gate;
	return n;
}
