/* SPDX-License-Identifier: MIT */
/*
 * hx_plan_dims: the plan sections that name dimensions: 'dimensions' (what the campaign
 * explores), 'fixed' (levels of the dimensions it does not sweep) and 'criteria'
 * (qualification checks at given levels). See docs/plan-reference.md.
 *
 * Assumes the generators' dimension registry (gen_dimension_find, gen_levels_set) is the
 * single authority on names and allowed levels: every level read here is checked by calling
 * gen_levels_set on a scratch struct gen_levels, and its error is re-posted at the YAML node.
 * The verb is not a dimension a plan can sweep or fix: the top-level 'verbs' list chooses it.
 */
#include "harness/plan/hx_plan_priv.h"

#include <assert.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void known_list(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < gen_dimension_count() && n < len; i++) {
		const struct gen_dimension *d = gen_dimension_at(i);

		if (!strcmp(d->name, "verb"))
			continue;
		int w = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", d->name);

		n += w > 0 ? (size_t)w : 0;
	}
}

int hx_plan__dimension(const struct ycfg_node *n, const char *name,
		       const struct gen_dimension **out, struct scn_error *err)
{
	char known[400];

	*out = gen_dimension_find(name);
	if (*out && !strcmp(name, "verb"))
		return ycfg_error(n, err, "'verb' is chosen by the top-level 'verbs' list");
	if (*out)
		return 0;
	known_list(known, sizeof(known));
	return ycfg_error(n, err, "unknown dimension '%s' (known: %s)", name, known);
}

static int category(const struct ycfg_node *n, const struct gen_dimension *d, double *out,
		    struct scn_error *err)
{
	struct scn_error scratch;
	char list[200];
	const char *s;
	size_t len = 0;

	if (ycfg_str(n, &s, &scratch) < 0)
		return 1;
	for (unsigned i = 0; i < d->n_levels; i++) {
		if (!strcmp(d->names[i], s)) {
			*out = i;
			return 0;
		}
	}
	if (!ycfg_double(n, -DBL_MAX, DBL_MAX, out, &scratch))
		return 0;
	list[0] = '\0';
	for (unsigned i = 0; i < d->n_levels && len < sizeof(list); i++) {
		int w = snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
				 d->names[i]);

		len += w > 0 ? (size_t)w : 0;
	}
	return ycfg_error(n, err, "unknown level '%s' of %s (choices: %s)", s, d->name, list);
}

int hx_plan__level(const struct ycfg_node *n, const struct gen_dimension *d, double *out,
		   struct scn_error *err)
{
	struct gen_levels scratch;
	struct scn_error e2;
	double v = 0;
	int rc = 1;

	if (d->kind == GEN_DIM_CATEGORICAL && d->names)
		rc = category(n, d, &v, err);
	if (rc < 0)
		return rc;
	if (rc > 0 && (rc = ycfg_double(n, -DBL_MAX, DBL_MAX, &v, err)) < 0)
		return rc;
	gen_levels_neutral(&scratch);
	scn_error_clear(&e2);
	if (gen_levels_set(&scratch, d, v, &e2) < 0)
		return hx_plan__rehome(n, d->name, &e2, err);
	*out = v;
	return 0;
}

/* ---- dimensions -------------------------------------------------------------------------- */

static int explicit_levels(const struct ycfg_node *lv, struct hx_plan_dim *pd,
			   struct scn_error *err)
{
	int rc;

	if (!ycfg_is_seq(lv) || !ycfg_seq_len(lv))
		return ycfg_error(lv, err, "expected a non-empty list of levels");
	if (ycfg_seq_len(lv) > HX_PLAN_MAX_LEVELS)
		return ycfg_error(lv, err, "%zu levels, at most %d allowed", ycfg_seq_len(lv),
				  HX_PLAN_MAX_LEVELS);
	for (size_t k = 0; k < ycfg_seq_len(lv); k++) {
		struct ycfg_node x = ycfg_seq_at(lv, k);
		double v;

		if ((rc = hx_plan__level(&x, pd->dim, &v, err)) < 0)
			return rc;
		for (unsigned j = 0; j < k && pd->dim->kind == GEN_DIM_CATEGORICAL; j++)
			if (pd->levels[j] == v)
				return ycfg_error(&x, err, "level listed twice");
		if (k && pd->dim->kind == GEN_DIM_ORDERED && v <= pd->levels[k - 1])
			return ycfg_error(&x, err, "levels must be strictly ascending (%g after %g)",
					  v, pd->levels[k - 1]);
		pd->levels[pd->n_levels++] = v;
	}
	pd->from = HX_LEVELS_EXPLICIT;
	return 0;
}

static int sweep_levels(const struct ycfg_node *sw, struct hx_plan_dim *pd,
			struct scn_error *err)
{
	static const char *const keys[] = { "from", "to", "ratio", NULL };
	struct gen_levels scratch;
	struct scn_error e2;
	struct ycfg_node n;
	unsigned total;
	int rc;

	if (pd->dim->kind == GEN_DIM_CATEGORICAL)
		return ycfg_error(sw, err, "%s is categorical: list its levels instead of a sweep",
				  pd->dim->name);
	if ((rc = ycfg_check_keys(sw, keys, err)) < 0 ||
	    (rc = ycfg_req_double(sw, "from", -DBL_MAX, DBL_MAX, &pd->sweep_from, err)) < 0 ||
	    (rc = ycfg_req_double(sw, "to", -DBL_MAX, DBL_MAX, &pd->sweep_to, err)) < 0 ||
	    (rc = ycfg_req_double(sw, "ratio", -DBL_MAX, DBL_MAX, &pd->sweep_ratio, err)) < 0)
		return rc;
	if (pd->sweep_from <= 0 && !ycfg_get(sw, "from", &n))
		return ycfg_error(&n, err, "a geometric sweep starts above 0, not at %g",
				  pd->sweep_from);
	if (pd->sweep_to <= pd->sweep_from && !ycfg_get(sw, "to", &n))
		return ycfg_error(&n, err, "must be greater than from (%g)", pd->sweep_from);
	if (pd->sweep_ratio <= 1 && !ycfg_get(sw, "ratio", &n))
		return ycfg_error(&n, err, "must be greater than 1");
	total = gen_sweep_geometric(pd->sweep_from, pd->sweep_to, pd->sweep_ratio, pd->levels,
				    HX_PLAN_MAX_LEVELS);
	if (total > HX_PLAN_MAX_LEVELS)
		return ycfg_error(sw, err, "the sweep gives %u levels, at most %d allowed", total,
				  HX_PLAN_MAX_LEVELS);
	pd->n_levels = total;
	for (unsigned k = 0; k < total; k++) {
		gen_levels_neutral(&scratch);
		scn_error_clear(&e2);
		if (gen_levels_set(&scratch, pd->dim, pd->levels[k], &e2) < 0) {
			ycfg_get(sw, k ? "to" : "from", &n);
			return hx_plan__rehome(&n, pd->dim->name, &e2, err);
		}
	}
	pd->from = HX_LEVELS_SWEEP;
	return 0;
}

static int one_dim(const struct ycfg_node *it, struct hx_plan *p, struct scn_error *err)
{
	static const char *const keys[] = { "name", "levels", "sweep", "neutral", "scale", NULL };
	struct hx_plan_dim *pd = &p->dims[p->n_dims];
	struct ycfg_node nn, lv, sw, x;
	const char *name;
	bool has_lv, has_sw;
	int rc;

	if ((rc = ycfg_check_keys(it, keys, err)) < 0 ||
	    (rc = ycfg_require(it, "name", &nn, err)) < 0 || (rc = ycfg_str(&nn, &name, err)) < 0 ||
	    (rc = hx_plan__dimension(&nn, name, &pd->dim, err)) < 0)
		return rc;
	for (unsigned i = 0; i < p->n_dims; i++)
		if (p->dims[i].dim == pd->dim)
			return ycfg_error(&nn, err, "dimension '%s' is already listed as "
					  "dimensions[%u]", name, i);
	has_lv = !ycfg_get(it, "levels", &lv);
	has_sw = !ycfg_get(it, "sweep", &sw);
	if (has_lv && has_sw)
		return ycfg_error(&sw, err, "give either 'levels' or 'sweep', not both");
	if (has_lv)
		rc = explicit_levels(&lv, pd, err);
	else if (has_sw)
		rc = sweep_levels(&sw, pd, err);
	else
		for (unsigned k = 0; k < pd->dim->n_levels && k < HX_PLAN_MAX_LEVELS; k++)
			pd->levels[pd->n_levels++] = pd->dim->levels[k];
	if (rc < 0)
		return rc;
	pd->neutral = pd->dim->neutral;
	if (!ycfg_get(it, "neutral", &x) && (rc = hx_plan__level(&x, pd->dim, &pd->neutral, err)) < 0)
		return rc;
	pd->scale = pd->dim->kind == GEN_DIM_ORDERED;
	if (!ycfg_get(it, "scale", &x)) {
		if ((rc = ycfg_bool(&x, &pd->scale, err)) < 0)
			return rc;
		if (pd->scale && pd->dim->kind == GEN_DIM_CATEGORICAL)
			return ycfg_error(&x, err, "%s is categorical: it cannot be a scale dimension",
					  name);
	}
	p->n_dims++;
	return 0;
}

int hx_plan__dims(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err)
{
	struct ycfg_node seq;
	int rc;

	p->n_dims = 0;
	if (ycfg_get(root, "dimensions", &seq))
		return 0;
	if (!ycfg_is_seq(&seq))
		return ycfg_error(&seq, err, "expected a list of dimensions");
	for (size_t i = 0; i < ycfg_seq_len(&seq); i++) {
		struct ycfg_node it = ycfg_seq_at(&seq, i);

		if (i >= HX_PLAN_MAX_DIMS)
			return ycfg_error(&it, err, "more than %d dimensions", HX_PLAN_MAX_DIMS);
		memset(&p->dims[p->n_dims], 0, sizeof(p->dims[0]));
		if ((rc = one_dim(&it, p, err)) < 0)
			return rc;
	}
	return 0;
}

/* ---- fixed ------------------------------------------------------------------------------- */

int hx_plan__fixed(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err)
{
	struct ycfg_node map;
	int rc;

	gen_levels_neutral(&p->fixed);
	if (ycfg_get(root, "fixed", &map))
		return 0;
	if (!ycfg_is_map(&map))
		return ycfg_error(&map, err, "expected a mapping of dimension: level");
	for (size_t i = 0; i < ycfg_map_len(&map); i++) {
		struct ycfg_node v = ycfg_map_value(&map, i);
		const struct gen_dimension *d;
		const char *key = ycfg_map_key(&map, i);
		double level;

		if ((rc = hx_plan__dimension(&v, key, &d, err)) < 0)
			return rc;
		if (hx_plan_find_dim(p, key))
			return ycfg_error(&v, err, "%s is swept (listed in 'dimensions'): it cannot "
					  "also be fixed", key);
		if ((rc = hx_plan__level(&v, d, &level, err)) < 0)
			return rc;
		rc = gen_levels_set(&p->fixed, d, level, NULL);
		assert(rc == 0);
	}
	return 0;
}

/* ---- criteria ---------------------------------------------------------------------------- */

static int crit_at(const struct ycfg_node *at, struct hx_plan_criterion *c, struct scn_error *err)
{
	int rc;

	if (!ycfg_is_map(at))
		return ycfg_error(at, err, "expected a mapping of dimension: level");
	if (ycfg_map_len(at) > HX_PLAN_MAX_AT)
		return ycfg_error(at, err, "%zu levels, at most %d allowed", ycfg_map_len(at),
				  HX_PLAN_MAX_AT);
	for (size_t i = 0; i < ycfg_map_len(at); i++) {
		struct ycfg_node v = ycfg_map_value(at, i);

		if ((rc = hx_plan__dimension(&v, ycfg_map_key(at, i), &c->at_dims[i], err)) < 0 ||
		    (rc = hx_plan__level(&v, c->at_dims[i], &c->at_levels[i], err)) < 0)
			return rc;
		c->n_at++;
	}
	return 0;
}

static int crit_ratio(const struct ycfg_node *it, struct hx_plan_criterion *c,
		      struct scn_error *err)
{
	bool bw = c->metric == GEN_METRIC_BW;
	const char *want = bw ? "min_ratio" : "max_ratio", *other = bw ? "max_ratio" : "min_ratio";
	struct ycfg_node x;

	c->min_ratio = NAN;
	c->max_ratio = NAN;
	if (!ycfg_get(it, other, &x))
		return ycfg_error(&x, err, "metric %s is checked with %s, not %s",
				  hx_metric_name(c->metric), want, other);
	if (bw)
		return ycfg_req_double(it, "min_ratio", 0.01, 1, &c->min_ratio, err);
	return ycfg_req_double(it, "max_ratio", 1, 1000, &c->max_ratio, err);
}

static int plan_has(const struct hx_plan *p, bool verb, int v)
{
	unsigned n = verb ? p->n_verbs : p->n_metrics;

	for (unsigned i = 0; i < n; i++)
		if ((verb ? (int)p->verbs[i] : (int)p->metrics[i]) == v)
			return 1;
	return 0;
}

static int one_criterion(const struct ycfg_node *it, struct hx_plan *p, struct scn_error *err)
{
	static const char *const keys[] = { "name", "verb", "metric", "at", "min_ratio",
					    "max_ratio", NULL };
	static const char *const verbs[] = { "send", "write", "read", NULL };
	static const char *const metrics[] = { "bw", "lat", NULL };
	struct hx_plan_criterion *c = &p->criteria[p->n_criteria];
	struct ycfg_node n;
	const char *s;
	int v, rc;

	memset(c, 0, sizeof(*c));
	if ((rc = ycfg_check_keys(it, keys, err)) < 0 ||
	    (rc = ycfg_require(it, "name", &n, err)) < 0 || (rc = ycfg_str(&n, &s, err)) < 0)
		return rc;
	if (!s[0] || strlen(s) >= sizeof(c->name))
		return ycfg_error(&n, err, "needs 1..%zu characters", sizeof(c->name) - 1);
	for (unsigned i = 0; i < p->n_criteria; i++)
		if (!strcmp(p->criteria[i].name, s))
			return ycfg_error(&n, err, "criteria[%u] has the same name", i);
	snprintf(c->name, sizeof(c->name), "%s", s);
	if ((rc = ycfg_require(it, "verb", &n, err)) < 0 || (rc = ycfg_enum(&n, verbs, &v, err)) < 0)
		return rc;
	if (!plan_has(p, true, v))
		return ycfg_error(&n, err, "verb '%s' is not among the plan's verbs", verbs[v]);
	c->verb = (enum topo_verb)v;
	if ((rc = ycfg_require(it, "metric", &n, err)) < 0 ||
	    (rc = ycfg_enum(&n, metrics, &v, err)) < 0)
		return rc;
	if (!plan_has(p, false, v))
		return ycfg_error(&n, err, "metric '%s' is not among the plan's metrics", metrics[v]);
	c->metric = (enum gen_metric)v;
	if (!ycfg_get(it, "at", &n) && (rc = crit_at(&n, c, err)) < 0)
		return rc;
	if ((rc = crit_ratio(it, c, err)) < 0)
		return rc;
	p->n_criteria++;
	return 0;
}

int hx_plan__criteria(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err)
{
	struct ycfg_node seq;
	int rc;

	p->n_criteria = 0;
	if (ycfg_get(root, "criteria", &seq))
		return 0;
	if (!ycfg_is_seq(&seq))
		return ycfg_error(&seq, err, "expected a list of criteria");
	for (size_t i = 0; i < ycfg_seq_len(&seq); i++) {
		struct ycfg_node it = ycfg_seq_at(&seq, i);

		if (i >= HX_PLAN_MAX_CRITERIA)
			return ycfg_error(&it, err, "more than %d criteria", HX_PLAN_MAX_CRITERIA);
		if ((rc = one_criterion(&it, p, err)) < 0)
			return rc;
	}
	return 0;
}
