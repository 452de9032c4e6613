/* SPDX-License-Identifier: MIT */
/*
 * hx_removal: permutation removal (DESIGN.md "Causal testing" 5).
 *
 * A walk takes the candidates in one order and sets each to its neutral level in turn: when
 * the symptom persists without it, it stays removed; when removing it cures the symptom, it is
 * restored and kept (a "cure" must also change the metric significantly against the point before
 * the removal: a borderline symptom that noise alone flips does not make a dimension needed).
 * What is kept is 1-minimal when the symptom is monotone in removals
 * (removing more never brings it back): removing any kept dimension from the final point
 * cures the symptom. "Persists" counts an undecided point (beyond the threshold, not
 * significant) as persisting, so noise never makes a dimension look necessary.
 * Orders: ascending sensitivity (least sensitive removed first), its reverse, then seeded
 * random permutations. Confidence of a dimension = share of orders that keep it; the most
 * frequent kept set is the walk's answer. Two dimensions needed together are both kept by
 * every order: one cause with two members.
 */
#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/causal/hx_causal.h"

static bool persists(const struct hx_symptom *s)
{
	return s->present || s->undecided;
}

/* Did removing a dimension change the metric beyond noise: a change in failed trials, a move
 * of at least half the plan's threshold (relative to the baseline), or a significant one
 * (Welch at the plan's significance)? An outlier among the repeats inflates the variance, so
 * the size of the move counts on its own. */
static bool changed(const struct hx_plan *p, enum gen_metric m, const struct hx_point_result *base,
		    const struct hx_point_result *a, const struct hx_point_result *b)
{
	double thr = m == GEN_METRIC_BW ? p->thresholds.bw_drop : p->thresholds.lat_rise;

	if (a->failed != b->failed)
		return true;
	if (base->s.mean > 0 && fabs(a->s.mean - b->s.mean) / base->s.mean >= thr / 2)
		return true;
	return hx_welch_p(&a->s, &b->s) < p->thresholds.significance;
}

static void add_ids(struct hx_removal *ev, const struct hx_point_result *r)
{
	for (unsigned i = 0; ev && i < r->n && ev->n_ids < HX_CAUSE_MAX_IDS; i++) {
		bool dup = false;

		for (unsigned j = 0; j < ev->n_ids && !dup; j++)
			dup = ev->ids[j] == r->ids[i];
		if (!dup && r->ids[i] > 0)
			ev->ids[ev->n_ids++] = r->ids[i];
	}
}

/* Evidence: what removing NAME did (cured: the symptom went and the metric moved beyond
 * noise; persisted; no change beyond noise), with the numbers and trials. */
static void log_step(struct json_object *steps, const char *name, const struct hx_symptom *s,
		     const struct hx_point_result *base, const struct hx_point_result *before,
		     const struct hx_point_result *r, const struct hx_plan *p, enum gen_metric m)
{
	struct json_object *o = hx_ev_result(r, base);
	const char *what = persists(s) ? (s->present ? "persisted" : "persisted (undecided)")
			   : changed(p, m, base, before, r) ? "cured"
							    : "no change beyond noise";
	double pv = hx_welch_p(&before->s, &r->s);

	json_object_object_add(o, "remove", json_object_new_string(name));
	json_object_object_add(o, "result", json_object_new_string(what));
	json_object_object_add(o, "p_vs_before", isfinite(pv) ? json_object_new_double(pv) : NULL);
	json_object_array_add(steps, o);
}

int hx_removal_walk(struct hx_eval *e, const struct hx_plan *p,
		    const struct hx_point_result *base, const struct gen_levels *at,
		    const unsigned *order, unsigned n, uint32_t *kept, struct gen_levels *final,
		    struct hx_removal *ev, struct scn_error *err)
{
	struct gen_levels cur = *at;
	const struct hx_point_result *r_cur;
	int rc = hx_eval_point(e, at, "removal", &r_cur, err);

	if (rc < 0)
		return rc;
	*kept = 0;
	for (unsigned k = 0; k < n; k++) {
		const struct hx_plan_dim *d = &p->dims[order[k]];
		const struct hx_point_result *r;
		struct gen_levels l = cur;
		struct hx_symptom s;

		if (gen_levels_get(&cur, d->dim) == d->neutral)
			continue;
		gen_levels_set(&l, d->dim, d->neutral, NULL);
		rc = hx_eval_judge(e, p, base, &l, "removal", &r, &s, err);
		if (rc < 0)
			return rc;
		if (ev && ev->steps)
			log_step(ev->steps, d->dim->name, &s, base, r_cur, r, p, at->metric);
		if (persists(&s) || !changed(p, at->metric, base, r_cur, r)) {
			cur = l;
			r_cur = r;
		} else {
			*kept |= 1u << order[k];
			add_ids(ev, r);
		}
	}
	if (final)
		*final = cur;
	return 0;
}

void hx_removal_order(const uint32_t cand, const double *sens, unsigned k, uint64_t seed,
		      unsigned *order, unsigned *n)
{
	struct gen_rng rng;

	*n = 0;
	for (unsigned i = 0; i < HX_PLAN_MAX_DIMS; i++)
		if (cand & (1u << i))
			order[(*n)++] = i;
	if (k <= 1) {
		for (unsigned i = 1; i < *n; i++)       /* insertion sort: ascending |sens| */
			for (unsigned j = i; j > 0 && sens[order[j - 1]] > sens[order[j]]; j--) {
				unsigned t = order[j];

				order[j] = order[j - 1];
				order[j - 1] = t;
			}
		if (k == 1)
			for (unsigned i = 0; i < *n / 2; i++) {
				unsigned t = order[i];

				order[i] = order[*n - 1 - i];
				order[*n - 1 - i] = t;
			}
		return;
	}
	gen_rng_seed(&rng, seed ^ (0x9e3779b97f4a7c15ull * k));
	gen_rng_shuffle(&rng, order, *n, sizeof(*order));
}

int hx_removal_run(struct hx_eval *e, const struct hx_plan *p, const struct hx_point_result *base,
		   const struct gen_levels *at, uint32_t cand, const double *sens,
		   unsigned n_orders, uint64_t seed, struct hx_removal *out, struct scn_error *err)
{
	unsigned order[HX_PLAN_MAX_DIMS], n;

	memset(out, 0, sizeof(*out));
	if (n_orders < 1)
		n_orders = 1;
	if (n_orders > 64)
		n_orders = 64;
	out->orders = json_object_new_array();
	for (unsigned k = 0; k < n_orders; k++) {
		struct json_object *o = json_object_new_object(), *names = json_object_new_array();
		int rc;

		hx_removal_order(cand, sens, k, seed, order, &n);
		for (unsigned i = 0; i < n; i++)
			json_object_array_add(names, json_object_new_string(p->dims[order[i]].dim->name));
		json_object_object_add(o, "order", names);
		out->steps = json_object_new_array();
		json_object_object_add(o, "steps", out->steps);
		json_object_array_add(out->orders, o);
		rc = hx_removal_walk(e, p, base, at, order, n, &out->kept[k], NULL, out, err);
		out->steps = NULL;
		json_object_object_add(o, "kept", hx_ev_dims(p, out->kept[k]));
		if (rc < 0)
			return rc;
		out->n_orders++;
		for (unsigned i = 0; i < p->n_dims; i++)
			if (out->kept[k] & (1u << i))
				out->confidence[i] += 1.0;
	}
	for (unsigned i = 0; i < p->n_dims; i++)
		out->confidence[i] /= out->n_orders;
	for (unsigned k = 0; k < out->n_orders; k++) {
		unsigned c = 0;

		for (unsigned j = 0; j < out->n_orders; j++)
			c += out->kept[j] == out->kept[k];
		if (c > out->mode_count) {
			out->mode_count = c;
			out->mode = out->kept[k];
		}
	}
	return 0;
}

void hx_removal_release(struct hx_removal *r)
{
	json_object_put(r->orders);
	r->orders = NULL;
}
