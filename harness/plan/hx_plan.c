/* SPDX-License-Identifier: MIT */
/*
 * hx_plan: loading a campaign plan (see hx_plan.h and docs/plan-reference.md): the top-level
 * keys, verbs and metrics, thresholds, analysis settings, and the plan hash. Dimensions,
 * fixed levels and criteria are in hx_plan_dims.c, the component space in hx_plan_space.c.
 *
 * Assumes yamlcfg has merged includes, so the loader sees one mapping per section. The hash
 * is gen_hash64 over a canonical serialisation of that merged tree (keys sorted, scalars
 * length-prefixed), so comments, formatting, key order and splitting into includes do not
 * change it, while any value change does.
 */
#include "harness/plan/hx_plan_priv.h"

#include <assert.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copy string MAP[KEY] into BUF (absent: DEF); too long is an error. */
static int str_into(const struct ycfg_node *map, const char *key, const char *def, char *buf,
		    size_t len, bool required, struct scn_error *err)
{
	struct ycfg_node n;
	const char *s = def;
	int rc;

	if (ycfg_get(map, key, &n)) {
		if (required)
			return ycfg_require(map, key, &n, err);
	} else if ((rc = ycfg_str(&n, &s, err)) < 0) {
		return rc;
	}
	if (strlen(s) >= len)
		return ycfg_error(&n, err, "longer than %zu characters", len - 1);
	if (required && !s[0])
		return ycfg_error(&n, err, "must not be empty");
	snprintf(buf, len, "%s", s);
	return 0;
}

static int top_scalars(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err)
{
	struct ycfg_node n;
	int64_t v;
	int rc;

	if ((rc = str_into(root, "name", "", p->name, sizeof(p->name), true, err)) < 0 ||
	    (rc = str_into(root, "description", "", p->description, sizeof(p->description),
			   false, err)) < 0)
		return rc;
	if ((rc = ycfg_opt_int(root, "seed", 0, INT64_MAX, 1, &v, err)) < 0)
		return rc;
	p->seed = (uint64_t)v;
	if (!ycfg_get(root, "testbed", &n)) {
		const char *s;

		if ((rc = ycfg_str(&n, &s, err)) < 0)
			return rc;
		ycfg_resolve_path(&n, s, p->testbed, sizeof(p->testbed));
		if (strlen(p->testbed) + 1 >= sizeof(p->testbed))
			return ycfg_error(&n, err, "path too long");
	}
	if ((rc = ycfg_opt_double(root, "budget_hours", 0, 8760, 24, &p->budget_hours, err)) < 0)
		return rc;
	if (p->budget_hours <= 0 && !ycfg_get(root, "budget_hours", &n))
		return ycfg_error(&n, err, "must be > 0");
	if ((rc = ycfg_opt_int(root, "repeats", 1, 100, 3, &v, err)) < 0)
		return rc;
	p->repeats = (unsigned)v;
	/* sequential testing on by default: a point that `repeats` trials cannot decide (one
	 * outlier among three, say) gets more, up to three times as many */
	if ((rc = ycfg_opt_int(root, "max_repeats", v, 100, v * 3 < 100 ? v * 3 : 100, &v, err)) < 0)
		return rc;
	p->max_repeats = (unsigned)v;
	if ((rc = ycfg_opt_int(root, "stop_after_failures", 0, 100, 0, &v, err)) < 0)
		return rc;
	p->stop_after_failures = (unsigned)v;
	return 0;
}

/* A list of distinct names out of NAMES (NULL-terminated); absent: DEF. */
static int name_list(const struct ycfg_node *root, const char *key, const char *const *names,
		     int def, int *out, unsigned max, unsigned *n_out, struct scn_error *err)
{
	struct ycfg_node seq, it;
	int rc;

	*n_out = 0;
	if (ycfg_get(root, key, &seq)) {
		out[(*n_out)++] = def;
		return 0;
	}
	if (!ycfg_is_seq(&seq) || !ycfg_seq_len(&seq))
		return ycfg_error(&seq, err, "expected a non-empty list");
	for (size_t i = 0; i < ycfg_seq_len(&seq); i++) {
		int v;

		it = ycfg_seq_at(&seq, i);
		if ((rc = ycfg_enum(&it, names, &v, err)) < 0)
			return rc;
		for (unsigned k = 0; k < *n_out; k++)
			if (out[k] == v)
				return ycfg_error(&it, err, "'%s' is listed twice", names[v]);
		assert(*n_out < max);
		out[(*n_out)++] = v;
	}
	return 0;
}

static int verbs_metrics(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err)
{
	static const char *const verbs[] = { "send", "write", "read", NULL };
	static const char *const metrics[] = { "bw", "lat", NULL };
	int v[TOPO_VERB_COUNT], m[2], rc;

	if ((rc = name_list(root, "verbs", verbs, TOPO_VERB_WRITE, v, TOPO_VERB_COUNT, &p->n_verbs,
			    err)) < 0 ||
	    (rc = name_list(root, "metrics", metrics, GEN_METRIC_BW, m, 2, &p->n_metrics,
			    err)) < 0)
		return rc;
	for (unsigned i = 0; i < p->n_verbs; i++)
		p->verbs[i] = (enum topo_verb)v[i];
	for (unsigned i = 0; i < p->n_metrics; i++)
		p->metrics[i] = (enum gen_metric)m[i];
	return 0;
}

static int thresholds(const struct ycfg_node *root, struct hx_plan_thresholds *t,
		      struct scn_error *err)
{
	static const char *const keys[] = { "bw_drop", "lat_rise", "significance", "errors",
					    NULL };
	struct ycfg_node n;
	int rc;

	t->bw_drop = 0.10;
	t->lat_rise = 0.20;
	t->significance = 0.05;
	t->errors = true;
	if (ycfg_get(root, "thresholds", &n))
		return 0;
	if ((rc = ycfg_check_keys(&n, keys, err)) < 0 ||
	    (rc = ycfg_opt_double(&n, "bw_drop", 0.001, 0.99, 0.10, &t->bw_drop, err)) < 0 ||
	    (rc = ycfg_opt_double(&n, "lat_rise", 0.001, 100, 0.20, &t->lat_rise, err)) < 0 ||
	    (rc = ycfg_opt_double(&n, "significance", 0.0001, 0.5, 0.05, &t->significance,
				  err)) < 0 ||
	    (rc = ycfg_opt_bool(&n, "errors", true, &t->errors, err)) < 0)
		return rc;
	return 0;
}

static int analysis(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err)
{
	static const char *const keys[] = { "removal_orders", "strategy", "min_confidence", NULL };
	static const char *const strategies[] = { "cct", "brute", "anneal", NULL };
	struct ycfg_node n, s;
	int64_t v;
	int k, rc;

	p->removal_orders = 4;
	p->strategy = HX_STRATEGY_CCT;
	p->min_confidence = 0.75;
	if (ycfg_get(root, "analysis", &n))
		return 0;
	if ((rc = ycfg_check_keys(&n, keys, err)) < 0 ||
	    (rc = ycfg_opt_int(&n, "removal_orders", 1, 64, 4, &v, err)) < 0 ||
	    (rc = ycfg_opt_double(&n, "min_confidence", 0, 1, 0.75, &p->min_confidence,
				  err)) < 0)
		return rc;
	p->removal_orders = (unsigned)v;
	if (!ycfg_get(&n, "strategy", &s)) {
		if ((rc = ycfg_enum(&s, strategies, &k, err)) < 0)
			return rc;
		p->strategy = (enum hx_strategy)k;
	}
	return 0;
}

/* ---- canonical hash ------------------------------------------------------------------- */

struct buf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void put(struct buf *b, const void *data, size_t len)
{
	if (b->oom)
		return;
	if (b->n + len > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;

		while (cap < b->n + len)
			cap *= 2;
		char *np = realloc(b->p, cap);

		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, len);
	b->n += len;
}

static void put_str(struct buf *b, const char *s)
{
	char head[32];
	int w = snprintf(head, sizeof(head), "%zu:", strlen(s));

	put(b, head, (size_t)w);
	put(b, s, strlen(s));
}

static void canon(const struct ycfg_node *n, struct buf *b, int depth)
{
	if (depth > 64) {
		b->oom = true;
		return;
	}
	if (ycfg_is_map(n)) {
		size_t len = ycfg_map_len(n), idx[256], k = 0;

		/* Keys sorted by insertion sort (plans have few keys per mapping). */
		for (size_t i = 0; i < len && k < 256; i++, k++) {
			size_t j = k;

			while (j > 0 && strcmp(ycfg_map_key(n, idx[j - 1]), ycfg_map_key(n, i)) > 0) {
				idx[j] = idx[j - 1];
				j--;
			}
			idx[j] = i;
		}
		put(b, "{", 1);
		for (size_t i = 0; i < k; i++) {
			struct ycfg_node v = ycfg_map_value(n, idx[i]);

			put_str(b, ycfg_map_key(n, idx[i]));
			canon(&v, b, depth + 1);
		}
		put(b, "}", 1);
	} else if (ycfg_is_seq(n)) {
		put(b, "[", 1);
		for (size_t i = 0; i < ycfg_seq_len(n); i++) {
			struct ycfg_node v = ycfg_seq_at(n, i);

			canon(&v, b, depth + 1);
		}
		put(b, "]", 1);
	} else {
		struct scn_error scratch;
		const char *s = "";

		if (ycfg_str(n, &s, &scratch) < 0)
			s = "";
		put(b, "s", 1);
		put_str(b, s);
	}
}

static int plan_hash(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err)
{
	struct buf b = { 0 };

	canon(root, &b, 0);
	if (b.oom) {
		free(b.p);
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory hashing the plan");
	}
	snprintf(p->hash, sizeof(p->hash), "%016" PRIx64, gen_hash64(b.p, b.n, 0));
	free(b.p);
	return 0;
}

/* Sequential testing: a point looks again after every further `repeats` trials up to
 * max_repeats; each look decides at significance / looks (Bonferroni over the looks), so a
 * point's false-symptom rate stays within the plan's significance however often it looks. */
static int sequential(struct hx_plan *p)
{
	p->thresholds.looks = 1 + (p->max_repeats - p->repeats + p->repeats - 1) / p->repeats;
	p->thresholds.alpha = p->thresholds.significance / p->thresholds.looks;
	return 0;
}

/* ---- loading ---------------------------------------------------------------------------- */

static int load_sections(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err)
{
	static const char *const keys[] = { "name", "description", "seed", "testbed",
					    "budget_hours", "repeats", "max_repeats",
					    "stop_after_failures", "verbs",
					    "metrics",
					    "components", "fixed", "dimensions", "thresholds",
					    "criteria", "analysis", "model", NULL };
	int rc;

	if ((rc = ycfg_check_keys(root, keys, err)) < 0 ||
	    (rc = top_scalars(root, p, err)) < 0 ||
	    (rc = verbs_metrics(root, p, err)) < 0 ||
	    (rc = hx_plan__space(root, &p->space, err)) < 0 ||
	    (rc = hx_plan__dims(root, p, err)) < 0 ||
	    (rc = hx_plan__fixed(root, p, err)) < 0 ||
	    (rc = hx_plan__check_base(root, p, err)) < 0 ||
	    (rc = thresholds(root, &p->thresholds, err)) < 0 ||
	    (rc = sequential(p)) < 0 ||
	    (rc = hx_plan__criteria(root, p, err)) < 0 ||
	    (rc = analysis(root, p, err)) < 0 ||
	    (rc = hx_plan__model(root, p, err)) < 0)
		return rc;
	return plan_hash(root, p, err);
}

int hx_plan_load(const char *path, struct hx_plan **out, struct scn_error *err)
{
	struct ycfg_doc *doc = NULL;
	struct ycfg_node root;
	struct hx_plan *p;
	int rc;

	*out = NULL;
	if ((rc = ycfg_load(path, &doc, err)) < 0)
		return rc;
	p = calloc(1, sizeof(*p));
	if (!p) {
		ycfg_free(doc);
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	}
	snprintf(p->path, sizeof(p->path), "%s", path);
	root = ycfg_root(doc);
	rc = load_sections(&root, p, err);
	ycfg_free(doc);
	if (rc < 0) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}
