/* SPDX-License-Identifier: MIT */
/*
 * hx_evidence: what a cause rests on, kept as a JSON object per cause (hx_cause.evidence) so
 * that `scalacn explain` can show it from the store alone: the stress point and where the
 * cause was isolated, the baseline, each dimension's normalised sensitivity with its interval
 * and whether it became a candidate (and why), each removal order with what each removal did,
 * the points with and without the cause, the replicate, and the trial ids behind each.
 * Building it is the causal room's; printing it is the CLI's.
 *
 * Ownership: hx_cause.evidence belongs to the analysis that holds the cause
 * (hx_analysis_release puts them all); the builders below return new references.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/causal/hx_causal.h"

static struct json_object *num(double x)
{
	return isfinite(x) ? json_object_new_double(x) : NULL;
}

struct json_object *hx_ev_point(const struct hx_plan *p, const struct gen_levels *l)
{
	struct json_object *o = json_object_new_object();
	char v[32];

	for (unsigned i = 0; i < p->n_dims; i++) {
		double x = gen_levels_get(l, p->dims[i].dim);

		if (x != p->dims[i].neutral)
			json_object_object_add(o, p->dims[i].dim->name,
					       json_object_new_string(hx_level_text(p->dims[i].dim, x,
										    v, sizeof(v))));
	}
	return o;
}

struct json_object *hx_ev_result(const struct hx_point_result *r, const struct hx_point_result *base)
{
	struct json_object *o = json_object_new_object(), *ids = json_object_new_array();
	double y0 = base ? base->s.mean : NAN;
	json_object_object_add(o, "mean", num(r->s.mean));
	json_object_object_add(o, "sd", num(r->s.sd));
	json_object_object_add(o, "n", json_object_new_int((int)r->n));
	json_object_object_add(o, "failed", json_object_new_int((int)r->failed));
	if (base)
		json_object_object_add(o, "vs_baseline",
				       num(y0 > 0 ? r->s.mean / y0 - 1 : NAN));
	for (unsigned i = 0; i < r->n; i++)
		if (r->ids[i] > 0)
			json_object_array_add(ids, json_object_new_int64(r->ids[i]));
	json_object_object_add(o, "trial_ids", ids);
	return o;
}

/* Why a move made its dimension a candidate or not. */
static const char *lsa_why(const struct hx_lsa_dim *d)
{
	if (d->candidate)
		return "interval excludes zero";
	if (d->undecided)
		return "estimate beyond the threshold, interval contains zero: more repeats needed";
	return "interval contains zero";
}

struct json_object *hx_ev_lsa(const struct hx_plan *p, const struct hx_lsa *lsa,
			      const struct hx_point_result *base)
{
	struct json_object *a = json_object_new_array();
	char from[32], to[32];

	for (unsigned i = 0; i < lsa->n; i++) {
		const struct hx_lsa_dim *d = &lsa->d[i];
		const struct gen_dimension *dim = p->dims[d->dim].dim;
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "dimension", json_object_new_string(dim->name));
		json_object_object_add(o, "from", json_object_new_string(
						  hx_level_text(dim, d->from, from, sizeof(from))));
		json_object_object_add(o, "to", json_object_new_string(
						hx_level_text(dim, d->to, to, sizeof(to))));
		json_object_object_add(o, "kind", json_object_new_string(
						  d->categorical || !(d->from > 0 && d->to > 0)
							  ? "relative effect per step" : "elasticity"));
		json_object_object_add(o, "sensitivity", num(d->sens));
		json_object_object_add(o, "lo", num(d->lo));
		json_object_object_add(o, "hi", num(d->hi));
		json_object_object_add(o, "candidate", json_object_new_boolean(d->candidate));
		json_object_object_add(o, "why", json_object_new_string(lsa_why(d)));
		if (d->res)
			json_object_object_add(o, "moved", hx_ev_result(d->res, base));
		json_object_array_add(a, o);
	}
	return a;
}

/* The dimensions of bitset BITS, by name. */
struct json_object *hx_ev_dims(const struct hx_plan *p, uint32_t bits)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < p->n_dims; i++)
		if (bits & (1u << i))
			json_object_array_add(a, json_object_new_string(p->dims[i].dim->name));
	return a;
}

void hx_ev_found(struct hx_cause *c, const struct hx_plan *p, const char *strategy,
		 const struct gen_levels *at, const struct hx_point_result *with,
		 const struct hx_point_result *base)
{
	hx_ev_set(c, "strategy", json_object_new_string(strategy));
	hx_ev_set(c, "isolation_point", hx_ev_point(p, at));
	hx_ev_set(c, "baseline", hx_ev_result(base, NULL));
	hx_ev_set(c, "with", hx_ev_result(with, base));
	hx_ev_set(c, "without", hx_ev_result(base, base));
}

void hx_ev_set(struct hx_cause *c, const char *key, struct json_object *v)
{
	if (!c->evidence)
		c->evidence = json_object_new_object();
	json_object_object_add(c->evidence, key, v);
}

void hx_analysis_release(struct hx_analysis *a)
{
	for (unsigned i = 0; i < a->n_causes; i++) {
		json_object_put(a->causes[i].evidence);
		a->causes[i].evidence = NULL;
	}
	for (unsigned i = 0; i < a->n_suspects; i++) {
		json_object_put(a->suspects[i].evidence);
		a->suspects[i].evidence = NULL;
	}
}
