/* SPDX-License-Identifier: MIT */
/*
 * hx_fit: collect the data of per-RNIC models from the store (the rules are in hx_fit.h:
 * x and y are the named inputs, by default client masks and server masks; only ok trials,
 * only the most common setting of the other dimensions and firmware).
 *
 * Assumes points' levels_json are JSON objects as the harness writes them (hx_point_json);
 * a trial whose levels are not an object, or whose campaign has no rnic_model, cannot be
 * attributed to a model and is ignored.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/fit/hx_fit.h"
#include "harness/fit/hx_fit_layout.h"

/* What an input name sums: a host's "masks" are its encap plus decap masks; any other name
 * is the one dimension of that name. */
static const struct { const char *name, *keys[2]; } sums[] = {
	{ "client.masks", { "client.encap_masks", "client.decap_masks" } },
	{ "server.masks", { "server.encap_masks", "server.decap_masks" } },
};

struct camp {
	int64_t id;
	uint64_t seed; /* what its rule sets were built with */
	bool rebuildable; /* drawn by this scalacn's generator: its layouts can be rebuilt */
	char rnic[64], firmware[64];
};

/* One usable trial. sig = firmware "\x1f" sorted JSON of the other dimensions (owned). */
struct rec {
	size_t group, idx;
	char *sig;
	double x, y, v, layout; /* layout: the point's rule layout (0 when absent) */
	double in_hw;           /* its tc_in_hw gauge (rules in hardware), NAN when absent */
	int64_t campaign;
	uint64_t seed;          /* its campaign's */
	bool rebuildable;       /* its campaign's */
	struct gen_levels lv;   /* what its rules and traffic were made of (rule_levels) */
};

struct grp {
	char rnic[64], verb[8], metric[8];
	size_t n_ok, n_not_ok;
};

struct collect {
	const char *rnic, *verb, *metric;
	char input[2][64];         /* x and y ("" = none); "X,Y" fits hx_fit_data.inputs */
	const char *keys[2][2];    /* the level keys each input sums (NULL = none) */
	const char *const *where;  /* "dimension=level" filters, NULL-terminated (or NULL) */
	struct camp *camps;
	size_t n_camps, cap_camps;
	struct rec *recs;
	size_t n_recs, cap_recs;
	struct grp *grps;
	size_t n_grps, cap_grps;
	struct hx_layout_memo *memo; /* layouts' covariates, shared (NULL: plain robust mean) */
	int err;                /* -ENOMEM seen inside a callback */
};

struct hx_fit_set {
	struct hx_fit_data *d;
	size_t n;
};

/* Grow *P (element size SZ) so that index N fits. */
static int grow(void **p, size_t *cap, size_t n, size_t sz)
{
	void *np;
	size_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 16;
	np = realloc(*p, nc * sz);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

static int on_campaign(const struct res_campaign *c, void *vctx)
{
	struct collect *k = vctx;
	struct camp *cp;

	if (grow((void **)&k->camps, &k->cap_camps, k->n_camps, sizeof(*k->camps)))
		return -ENOMEM;
	cp = &k->camps[k->n_camps++];
	cp->id = c->id;
	cp->seed = c->seed;
	cp->rebuildable = strcmp(c->rng, GEN_RNG_NAME) == 0;
	snprintf(cp->rnic, sizeof(cp->rnic), "%s", c->rnic_model);
	snprintf(cp->firmware, sizeof(cp->firmware), "%s", c->firmware);
	return 0;
}

static const struct camp *find_camp(const struct collect *k, int64_t id)
{
	for (size_t i = 0; i < k->n_camps; i++)
		if (k->camps[i].id == id)
			return &k->camps[i];
	return NULL;
}

static struct grp *find_grp(struct collect *k, const char *rnic, const char *verb,
			    const char *metric)
{
	struct grp *g;

	for (size_t i = 0; i < k->n_grps; i++) {
		g = &k->grps[i];
		if (!strcmp(g->rnic, rnic) && !strcmp(g->verb, verb) && !strcmp(g->metric, metric))
			return g;
	}
	if (grow((void **)&k->grps, &k->cap_grps, k->n_grps, sizeof(*k->grps)))
		return NULL;
	g = &k->grps[k->n_grps++];
	memset(g, 0, sizeof(*g));
	snprintf(g->rnic, sizeof(g->rnic), "%s", rnic);
	snprintf(g->verb, sizeof(g->verb), "%s", verb);
	snprintf(g->metric, sizeof(g->metric), "%s", metric);
	return g;
}

static bool excluded_key(const struct collect *k, const char *key)
{
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (k->keys[i][j] && !strcmp(key, k->keys[i][j]))
				return true;
	return !strcmp(key, "verb") || !strcmp(key, "metric") || !strcmp(key, "layout");
}

/* INPUTS "X" or "X,Y" (NULL = HX_FIT_INPUTS) into K's names and keys. -EINVAL bad text. */
static int set_inputs(struct collect *k, const char *inputs)
{
	const char *text = inputs ? inputs : HX_FIT_INPUTS, *comma = strchr(text, ',');
	size_t n0 = comma ? (size_t)(comma - text) : strlen(text);

	if (n0 == 0 || n0 >= 63 || (comma && (!comma[1] || strchr(comma + 1, ',') ||
					      strlen(comma + 1) >= 63)))
		return -EINVAL;
	memcpy(k->input[0], text, n0);
	snprintf(k->input[1], sizeof(k->input[1]), "%s", comma ? comma + 1 : "");
	for (int i = 0; i < 2; i++) {
		k->keys[i][0] = k->input[i][0] ? k->input[i] : NULL;
		k->keys[i][1] = NULL;
		for (size_t s = 0; s < sizeof(sums) / sizeof(sums[0]); s++)
			if (!strcmp(k->input[i], sums[s].name)) {
				k->keys[i][0] = sums[s].keys[0];
				k->keys[i][1] = sums[s].keys[1];
			}
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* FIRMWARE "\x1f" {other dimensions, keys sorted}; NULL on no memory. */
static char *signature(const struct collect *k, struct json_object *levels,
		       const char *firmware)
{
	const char *keys[128];
	size_t nk = 0;
	struct json_object *o = json_object_new_object();
	const char *txt;
	char *sig = NULL;

	if (!o)
		return NULL;
	json_object_object_foreach(levels, key, val) {
		(void)val;
		if (!excluded_key(k, key) && nk < sizeof(keys) / sizeof(keys[0]))
			keys[nk++] = key;
	}
	qsort(keys, nk, sizeof(keys[0]), cmp_str);
	for (size_t i = 0; i < nk; i++)
		json_object_object_add(o, keys[i],
				       json_object_get(json_object_object_get(levels, keys[i])));
	txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (txt && asprintf(&sig, "%s\x1f%s", firmware, txt) < 0)
		sig = NULL;
	json_object_put(o);
	return sig;
}

static double level_of(struct json_object *levels, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(levels, key, &v) || !v)
		return 0.0;
	return json_object_get_double(v);
}

static const char *text_of(struct json_object *levels, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(levels, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

/* The levels of LEVELS that a point's rule sets and traffic depend on (the rest neutral). */
static void rule_levels(struct json_object *levels, struct gen_levels *l)
{
	static const char *const mask_key[GEN_HOSTS][GEN_DIRS] = {
		{ "client.encap_masks", "client.decap_masks" },
		{ "server.encap_masks", "server.decap_masks" },
	};

	gen_levels_neutral(l);
	for (int h = 0; h < GEN_HOSTS; h++)
		for (int d = 0; d < GEN_DIRS; d++)
			l->masks[h][d] = (uint32_t)level_of(levels, mask_key[h][d]);
	l->flows = (uint32_t)level_of(levels, "flows");
	l->subnets = (uint32_t)level_of(levels, "subnets");
	l->encap_contexts = (uint32_t)level_of(levels, "encap_contexts");
	l->popularity = strcmp(text_of(levels, "popularity"), "zipf") ? GEN_POP_UNIFORM
								       : GEN_POP_ZIPF;
	l->zipf_s = level_of(levels, "zipf_s");
	l->layout = (uint32_t)level_of(levels, "layout");
}

/* The tc_in_hw gauge of a trial's counters (JSON text), NAN when absent. */
static double in_hw_of(const char *counters_json)
{
	struct json_object *c = counters_json[0] ? json_tokener_parse(counters_json) : NULL;
	struct json_object *v = NULL;
	double out = NAN;

	if (c && json_object_object_get_ex(c, "tc_in_hw", &v) &&
	    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		out = json_object_get_double(v);
	json_object_put(c);
	return out;
}

static int add_rec(struct collect *k, size_t group, struct json_object *lv,
		   const struct camp *cp, double v, const char *counters_json)
{
	struct rec *r;
	char *sig = signature(k, lv, cp->firmware);

	if (!sig || grow((void **)&k->recs, &k->cap_recs, k->n_recs, sizeof(*k->recs))) {
		free(sig);
		return -ENOMEM;
	}
	r = &k->recs[k->n_recs];
	r->group = group;
	r->idx = k->n_recs++;
	r->sig = sig;
	r->x = r->y = 0;
	for (int j = 0; j < 2; j++) {
		if (k->keys[0][j])
			r->x += level_of(lv, k->keys[0][j]);
		if (k->keys[1][j])
			r->y += level_of(lv, k->keys[1][j]);
	}
	r->v = v;
	r->in_hw = in_hw_of(counters_json);
	r->layout = level_of(lv, "layout");
	r->campaign = cp->id;
	r->seed = cp->seed;
	r->rebuildable = cp->rebuildable;
	rule_levels(lv, &r->lv);
	return 0;
}

/* Does LEVELS satisfy every "dimension=level" of WHERE? Numbers compare as numbers
 * (8K = 8192), categorical levels by name. */
static bool matches_where(struct json_object *levels, const char *const *where)
{
	for (; where && *where; where++) {
		const char *eq = strchr(*where, '=');
		struct json_object *v = NULL;
		char key[96];

		if (!eq || (size_t)(eq - *where) >= sizeof(key))
			return false;
		memcpy(key, *where, (size_t)(eq - *where));
		key[eq - *where] = '\0';
		if (!json_object_object_get_ex(levels, key, &v) || !v)
			return false;
		if (json_object_is_type(v, json_type_string)) {
			if (strcmp(json_object_get_string(v), eq + 1))
				return false;
		} else if (json_object_get_double(v) != hx_level_number(eq + 1)) {
			return false;
		}
	}
	return true;
}

static int on_trial(const struct res_trial *t, const char *levels_json, void *vctx)
{
	struct collect *k = vctx;
	const struct camp *cp = find_camp(k, t->campaign);
	struct json_object *lv;
	const char *verb, *metric;
	struct grp *g;
	double v;
	int rc = 0;

	if (!cp || !cp->rnic[0] || !levels_json)
		return 0;
	lv = json_tokener_parse(levels_json);
	if (!lv || !json_object_is_type(lv, json_type_object))
		goto out;
	verb = t->verb[0] ? t->verb : text_of(lv, "verb");
	metric = t->metric[0] ? t->metric : text_of(lv, "metric");
	if ((strcmp(metric, "bw") && strcmp(metric, "lat")) || !verb[0] ||
	    (k->rnic && strcmp(k->rnic, cp->rnic)) || (k->verb && strcmp(k->verb, verb)) ||
	    (k->metric && strcmp(k->metric, metric)) || !matches_where(lv, k->where))
		goto out;
	g = find_grp(k, cp->rnic, verb, metric);
	if (!g) {
		rc = -ENOMEM;
		goto out;
	}
	v = !strcmp(metric, "bw") ? t->sample.bw_gbps : t->sample.lat_median_us;
	if (strcmp(t->sample.status, "ok") || !isfinite(v)) {
		g->n_not_ok++;
		goto out;
	}
	g->n_ok++;
	rc = add_rec(k, (size_t)(g - k->grps), lv, cp, v, t->sample.counters_json);
out:
	json_object_put(lv);
	if (rc)
		k->err = rc;
	return rc;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *p = a, *q = b;
	int c;

	if (p->group != q->group)
		return p->group < q->group ? -1 : 1;
	c = strcmp(p->sig, q->sig);
	if (c)
		return c;
	return p->idx < q->idx ? -1 : p->idx > q->idx;
}

static int cmp_xyv(const void *a, const void *b)
{
	const struct rec *p = a, *q = b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	if (p->y != q->y)
		return p->y < q->y ? -1 : 1;
	if (p->layout != q->layout)
		return p->layout < q->layout ? -1 : 1;
	return p->v < q->v ? -1 : p->v > q->v;
}

/* Median of the values of r[0..n) (sorted by value). */
static double median(const struct rec *r, size_t n)
{
	return n % 2 ? r[n / 2].v : 0.5 * (r[n / 2 - 1].v + r[n / 2].v);
}

/* Mean of V[0..N) (N <= HX_LAYOUT_MAX) without gross outliers, as the harness summarises
 * repeats (hx_layout_screen: with 4 or more values, those farther than 4 MADs and 10% from
 * the median are left out, at least 3 kept). One trial in a hundred runs 1.5x slow; with
 * one trial per layout, it is a whole layout's value. *SE: the standard error of that mean
 * (the kept values' sd over the square root of their number; NAN with fewer than 2). */
static double robust_mean(const double *v, size_t n, double *se)
{
	bool keep[HX_LAYOUT_MAX];
	double sum = 0, ss = 0, mean;
	size_t k = 0;

	hx_layout_screen(v, n, keep);
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			sum += v[i], k++;
	mean = sum / (double)k;
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			ss += (v[i] - mean) * (v[i] - mean);
	*se = k > 1 ? sqrt(ss / (double)(k - 1) / (double)k) : NAN;
	return mean;
}

/* Over the N layouts of values V whose first records are FIRST[0..n): the value with the
 * layouts' covariates as control variates (hx_fit_layout.c), NAN when they do not apply
 * (none varies, a layout's rules cannot be rebuilt: drawn by another generator, or failing
 * to build; too many layouts); what the covariates
 * were into *PW. */
static double covariate_value(const struct collect *k, const struct rec *const *first,
			      const double *v, size_t n, double *se, struct hx_layout_point *pw)
{
	struct hx_layout_obs o[HX_LAYOUT_MAX];

	if (!k->memo || n > HX_LAYOUT_MAX)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		struct gen_layout_cov c;
		struct gen_layout_sw sw;

		if (!first[i]->rebuildable ||
		    hx_layout_cov_of(k->memo, &first[i]->lv, first[i]->seed, first[i]->in_hw, &c,
				     &sw) < 0)
			return NAN;
		o[i] = (struct hx_layout_obs){ v[i], c.walk - c.walk_even, { 0 }, { 0 } };
		for (int h = 0; h < GEN_HOSTS; h++)
			for (int d = 0; d < GEN_DIRS; d++)
				o[i].side[h * GEN_DIRS + d] = c.side[h][d] - c.side_even[h][d];
		for (int p = 0; p < GEN_SW_PATHS; p++) {
			o[i].sw[p] = sw.share[p] - sw.flows[p];
			o[i].sw[GEN_SW_PATHS] += o[i].sw[p];
		}
		pw->dev[0] += o[i].walk / (double)n;
		for (int s = 0; s < HX_LAYOUT_SIDES; s++)
			pw->dev[1 + s] += o[i].side[s] / (double)n;
		for (int s = 0; s < HX_LAYOUT_SW; s++)
			pw->dev[HX_LAYOUT_COV_SW + s] += o[i].sw[s] / (double)n;
	}
	pw->known = true;
	return hx_layout_value(o, n, se, &pw->fit);
}

/* The value of one (x, y) from its records r[0..n) (sorted by layout, then value): over its
 * rule layouts, each layout's median with the layouts' covariates as control variates, else
 * their robust mean (one layout: the median of its trials), and in *SE its relative
 * standard error over the layouts (NAN for one layout). NAN on no memory. */
static double point_value(const struct collect *k, const struct rec *r, size_t n, double *se,
			  struct hx_layout_point *pw)
{
	double *v = malloc(n * sizeof(*v)), out;
	const struct rec **first = malloc(n * sizeof(*first));
	size_t layouts = 0;

	*se = NAN;
	if (!v || !first) {
		free(v);
		free(first);
		return NAN;
	}
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && r[j].layout == r[i].layout; j++)
			;
		first[layouts] = &r[i];
		v[layouts++] = median(r + i, j - i);
	}
	out = layouts == 1 ? v[0] : covariate_value(k, first, v, layouts, se, pw);
	if (layouts > 1 && isnan(out))
		out = robust_mean(v, layouts, se);
	free(first);
	if (layouts > 1)
		*se = fabs(out) > 0 ? *se / fabs(out) : NAN;
	free(v);
	return out;
}

/* D's point_se_max and point_se_median from the relative standard errors SE[0..N) (NAN:
 * a point of one layout, not counted); sorts SE. */
static void point_noise(struct hx_fit_data *d, double *se, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(se[i]))
			se[k++] = se[i];
	d->point_se_max = d->point_se_median = NAN;
	if (!k)
		return;
	d->point_se_median = hx_layout_median(se, k);
	d->point_se_max = se[k - 1];
}

double hx_level_number(const char *text)
{
	char *end;
	double v = strtod(text, &end);

	if (end != text && (*end == 'K' || *end == 'k'))
		v *= 1024, end++;
	else if (end != text && (*end == 'M' || *end == 'm'))
		v *= 1048576, end++;
	return end != text && !*end ? v : NAN;
}

/* Fill D from the N records R of the winning setting of group G (reordered here): one data
 * point per distinct (x, y), the mean over its layouts of each layout's median trial. When
 * some points were measured over several rule layouts, a point of one layout (another
 * phase's: one draw of where the hot flows land, not their mean) is left out (n_other). */
static int fill_data(const struct collect *k, struct hx_fit_data *d, const struct grp *g,
		     struct rec *r, size_t n)
{
	const char *sep = strchr(r[0].sig, '\x1f');
	struct hx_layout_point *pw;
	bool layered = false;
	double *se;

	for (size_t i = 0; i < n && !layered; i++)
		layered = r[i].layout > 0;
	memset(d, 0, sizeof(*d));
	snprintf(d->inputs, sizeof(d->inputs), "%s%s%s", k->input[0], k->input[1][0] ? "," : "",
		 k->input[1]);
	snprintf(d->rnic_model, sizeof(d->rnic_model), "%s", g->rnic);
	snprintf(d->verb, sizeof(d->verb), "%s", g->verb);
	snprintf(d->metric, sizeof(d->metric), "%s", g->metric);
	snprintf(d->firmware, sizeof(d->firmware), "%.*s", (int)(sep - r[0].sig), r[0].sig);
	snprintf(d->fixed_json, sizeof(d->fixed_json), "%s", sep + 1);
	d->n_ok = g->n_ok;
	d->n_trials = n;
	d->n_other = g->n_ok - n;
	d->n_not_ok = g->n_not_ok;
	d->x = malloc(n * sizeof(*d->x));
	d->y = malloc(n * sizeof(*d->y));
	se = malloc(n * sizeof(*se));
	pw = calloc(n, sizeof(*pw));
	if (!d->x || !d->y || !se || !pw) {
		free(se);
		free(pw);
		return -ENOMEM;
	}
	qsort(r, n, sizeof(*r), cmp_xyv);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && r[j].x == r[i].x && r[j].y == r[i].y; j++)
			;
		if (layered && r[j - 1].layout == 0) { /* one layout among points of several */
			d->n_trials -= j - i;
			d->n_other += j - i;
			continue;
		}
		for (size_t t = i; t < j; t++)
			if (r[t].campaign > d->campaign)
				d->campaign = r[t].campaign;
		d->x[d->n][0] = r[i].x;
		d->x[d->n][1] = r[i].y;
		d->y[d->n] = point_value(k, r + i, j - i, &se[d->n], &pw[d->n]);
		if (isnan(d->y[d->n])) {
			free(se);
			free(pw);
			return -ENOMEM;
		}
		d->n++;
	}
	hx_layout_pool(d->y, pw, d->n);
	point_noise(d, se, d->n);
	free(se);
	free(pw);
	return 0;
}

/* Records are sorted by (group, sig): pick the longest run of each group. */
static int build_set(struct collect *k, struct hx_fit_set *s)
{
	size_t i = 0;

	s->d = calloc(k->n_grps ? k->n_grps : 1, sizeof(*s->d));
	if (!s->d)
		return -ENOMEM;
	while (i < k->n_recs) {
		size_t g = k->recs[i].group, best = i, best_n = 0, j = i;

		while (j < k->n_recs && k->recs[j].group == g) {
			size_t run = j;

			while (run < k->n_recs && k->recs[run].group == g &&
			       !strcmp(k->recs[run].sig, k->recs[j].sig))
				run++;
			if (run - j > best_n) {
				best = j;
				best_n = run - j;
			}
			j = run;
		}
		if (fill_data(k, &s->d[s->n++], &k->grps[g], &k->recs[best], best_n))
			return -ENOMEM;
		i = j;
	}
	return 0;
}

static int cmp_data(const void *a, const void *b)
{
	const struct hx_fit_data *p = a, *q = b;
	int c = strcmp(p->rnic_model, q->rnic_model);

	if (!c)
		c = strcmp(p->verb, q->verb);
	return c ? c : strcmp(p->metric, q->metric);
}

static void collect_free(struct collect *k)
{
	for (size_t i = 0; i < k->n_recs; i++)
		free(k->recs[i].sig);
	free(k->recs);
	free(k->camps);
	free(k->grps);
}

int hx_fit_collect(struct res_db *db, const char *rnic, const char *verb, const char *metric,
		   struct hx_fit_set **out, struct scn_error *err)
{
	return hx_fit_collect_where(db, rnic, verb, metric, NULL, out, err);
}

int hx_fit_collect_where(struct res_db *db, const char *rnic, const char *verb,
			 const char *metric, const char *const *where, struct hx_fit_set **out,
			 struct scn_error *err)
{
	return hx_fit_collect_inputs(db, rnic, verb, metric, where, NULL, out, err);
}

int hx_fit_collect_inputs(struct res_db *db, const char *rnic, const char *verb,
			  const char *metric, const char *const *where, const char *inputs,
			  struct hx_fit_set **out, struct scn_error *err)
{
	struct collect k = { .rnic = rnic, .verb = verb, .metric = metric, .where = where };
	struct hx_fit_set *s;
	int rc;

	if (!db || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "hx_fit_collect: NULL");
	*out = NULL;
	if (set_inputs(&k, inputs) < 0)
		return scn_error_set(err, SCN_ERR_USAGE, -EINVAL, "inputs '%s': expected one or two "
				     "dimension names, X or X,Y (e.g. server.decap_masks,flows)",
				     inputs);
	k.memo = hx_layout_memo_shared(); /* NULL: points fitted without covariates */
	rc = res_campaign_each(db, on_campaign, &k, err);
	if (rc == 0)
		rc = res_trial_each(db, 0, on_trial, &k, err);
	if (rc == -ENOMEM || k.err == -ENOMEM) {
		collect_free(&k);
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "collecting trials: out of memory");
	}
	if (rc < 0) {
		collect_free(&k);
		return rc;
	}
	if (k.n_recs)
		qsort(k.recs, k.n_recs, sizeof(*k.recs), cmp_rec);
	s = calloc(1, sizeof(*s));
	rc = s ? build_set(&k, s) : -ENOMEM;
	collect_free(&k);
	if (rc) {
		hx_fit_set_free(s);
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "collecting trials: out of memory");
	}
	if (s->n)
		qsort(s->d, s->n, sizeof(*s->d), cmp_data);
	*out = s;
	return 0;
}

size_t hx_fit_set_count(const struct hx_fit_set *s)
{
	return s ? s->n : 0;
}

const struct hx_fit_data *hx_fit_set_at(const struct hx_fit_set *s, size_t i)
{
	return s && i < s->n ? &s->d[i] : NULL;
}

struct hx_fit_data *hx_fit_set_data(struct hx_fit_set *s, size_t i)
{
	return s && i < s->n ? &s->d[i] : NULL;
}

void hx_fit_set_steal(struct hx_fit_set *s, size_t i)
{
	if (s && i < s->n)
		s->d[i].x = NULL, s->d[i].y = NULL;
}

void hx_fit_set_free(struct hx_fit_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->d[i].x);
		free(s->d[i].y);
	}
	free(s->d);
	free(s);
}
