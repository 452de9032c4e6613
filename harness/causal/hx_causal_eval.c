/* SPDX-License-Identifier: MIT */
/*
 * hx_causal_eval: the evaluator every analysis strategy asks for points (a memo over
 * hx_point_run that counts what the strategy requested), the symptom judgement with its
 * "more repeats needed" flag, degradation, and dimension axes (see hx_causal.h).
 *
 * The memo is an open-addressing hash table keyed by two independent 64-bit hashes of the
 * canonical point text; entries own a copy of the point result.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness/causal/hx_causal.h"
#include "harness/plan/hx_plan.h"

struct eval_entry {
	uint64_t k1, k2;
	struct hx_point_result *r; /* NULL: empty slot */
	bool capped;               /* still undecided at max_repeats (counted once) */
};

/* Invariants: cap is a power of two; used <= cap / 2; every used slot has r != NULL. */
struct hx_eval {
	struct hx_runner *runner;
	hx_eval_fn fn;
	void *ctx;
	struct eval_entry *slots;
	size_t cap, used;
	unsigned long points, trials; /* distinct points (replicates not counted), trials */
	double cost_s;
	struct hx_seq seq;            /* what sequential testing added */
};

static int runner_point(void *ctx, const struct gen_levels *l, const char *phase, int first,
			unsigned repeats, struct hx_point_result *out, double *cost_s,
			struct scn_error *err)
{
	struct hx_runner *r = ctx;
	double before = r->cost_s;
	int rc = hx_point_extend(r, l, phase, first, repeats ? repeats : r->repeats, out, err);

	*cost_s = r->cost_s - before;
	return rc;
}

int hx_eval_new(struct hx_runner *r, hx_eval_fn fn, void *ctx, struct hx_eval **out)
{
	struct hx_eval *e = calloc(1, sizeof(*e));

	*out = NULL;
	if (!e)
		return -ENOMEM;
	e->cap = 1024;
	e->slots = calloc(e->cap, sizeof(*e->slots));
	if (!e->slots) {
		free(e);
		return -ENOMEM;
	}
	e->runner = r;
	e->fn = fn ? fn : runner_point;
	e->ctx = fn ? ctx : r;
	*out = e;
	return 0;
}

void hx_eval_free(struct hx_eval *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->cap; i++)
		free(e->slots[i].r);
	free(e->slots);
	free(e);
}

unsigned long hx_eval_points(const struct hx_eval *e)
{
	return e->points;
}

unsigned long hx_eval_trials(const struct hx_eval *e)
{
	return e->trials;
}

double hx_eval_cost(const struct hx_eval *e)
{
	return e->cost_s;
}

static struct eval_entry *slot_of(struct hx_eval *e, uint64_t k1, uint64_t k2)
{
	size_t i = (size_t)k1 & (e->cap - 1);

	while (e->slots[i].r && (e->slots[i].k1 != k1 || e->slots[i].k2 != k2))
		i = (i + 1) & (e->cap - 1);
	return &e->slots[i];
}

static int grow(struct hx_eval *e)
{
	struct eval_entry *old = e->slots;
	size_t ocap = e->cap;

	e->slots = calloc(ocap * 2, sizeof(*e->slots));
	if (!e->slots) {
		e->slots = old;
		return -ENOMEM;
	}
	e->cap = ocap * 2;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].r)
			*slot_of(e, old[i].k1, old[i].k2) = old[i];
	free(old);
	return 0;
}

/* The memo slot of L (repaired into *RL) measured from repeat FIRST on; *FOUND when it holds
 * a result already. */
static int slot_for(struct hx_eval *e, const struct gen_levels *l, int first,
		    struct gen_levels *rl, struct eval_entry **out, struct scn_error *err)
{
	char text[4096];
	uint64_t k1, k2;
	size_t len;

	*rl = *l;
	gen_levels_repair(rl);
	hx_point_text(rl, text, sizeof(text));
	len = strlen(text);
	snprintf(text + len, sizeof(text) - len, "#%d", first);
	len = strlen(text);
	k1 = gen_hash64(text, len, 0x5ca1ab1eULL);
	k2 = gen_hash64(text, len, 0xc0ffee11ULL);
	*out = slot_of(e, k1, k2);
	if ((*out)->r)
		return 0;
	if ((e->used + 1) * 2 > e->cap) {
		if (grow(e) < 0)
			return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "analysis: out of memory");
		*out = slot_of(e, k1, k2);
	}
	(*out)->k1 = k1;
	(*out)->k2 = k2;
	return 0;
}

/* Grow the result in slot S to REPEATS (0: the plan's) through the evaluation function. */
static int measure(struct hx_eval *e, struct eval_entry *s, const struct gen_levels *rl,
		   const char *phase, int first, unsigned repeats, struct scn_error *err)
{
	bool fresh = !s->r;
	unsigned before;
	double cost = 0;
	int rc;

	if (fresh && !(s->r = calloc(1, sizeof(*s->r))))
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "analysis: out of memory");
	before = s->r->n;
	rc = e->fn(e->ctx, rl, phase, first, repeats, s->r, &cost, err);
	if (rc < 0 && fresh) {
		free(s->r);
		s->r = NULL;
	}
	if (rc < 0)
		return rc;
	e->used += fresh;
	e->points += fresh && first == 0;
	e->trials += s->r->n - before;
	e->cost_s += cost;
	assert(e->used * 2 <= e->cap);
	return 0;
}

static int eval_at(struct hx_eval *e, const struct gen_levels *l, const char *phase, int first,
		   unsigned repeats, const struct hx_point_result **out, struct scn_error *err)
{
	struct gen_levels rl;
	struct eval_entry *s;
	int rc = slot_for(e, l, first, &rl, &s, err);

	if (rc == 0 && (!s->r || (repeats && s->r->n < repeats)))
		rc = measure(e, s, &rl, phase, first, repeats, err);
	if (rc == 0)
		*out = s->r;
	return rc;
}

int hx_eval_point(struct hx_eval *e, const struct gen_levels *l, const char *phase,
		  const struct hx_point_result **out, struct scn_error *err)
{
	return eval_at(e, l, phase, 0, 0, out, err);
}

/* One point of a prefetch, measured by its own thread. */
struct fetch_job {
	struct hx_runner *r;
	struct gen_levels rl;
	const char *phase;
	struct eval_entry *s;
	struct scn_error err;
	int rc;
	bool threaded;
	pthread_t th;
};

static void *fetch_thread(void *arg)
{
	struct fetch_job *j = arg;

	scn_error_clear(&j->err);
	j->rc = hx_point_run(j->r, &j->rl, j->phase, j->s->r, &j->err);
	return NULL;
}

/* Memo entries (allocated, counted used) for the points of L[] not yet in the memo. */
static int fetch_entries(struct hx_eval *e, const struct gen_levels *l, unsigned n,
			 const char *phase, struct fetch_job *job, unsigned *nj,
			 struct scn_error *err)
{
	*nj = 0;
	while ((e->used + n + 1) * 2 > e->cap) /* no growing below: entries stay put */
		if (grow(e) < 0)
			return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "analysis: out of memory");
	for (unsigned i = 0; i < n; i++) {
		struct fetch_job *j = &job[*nj];
		int rc = slot_for(e, &l[i], 0, &j->rl, &j->s, err);

		if (rc < 0)
			return rc;
		if (j->s->r)
			continue;
		if (!(j->s->r = calloc(1, sizeof(*j->s->r))))
			return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "analysis: out of memory");
		e->used++;
		j->r = e->runner;
		j->phase = phase;
		(*nj)++;
	}
	return 0;
}

int hx_eval_prefetch(struct hx_eval *e, const struct gen_levels *l, unsigned n,
		     const char *phase, struct scn_error *err)
{
	struct fetch_job *job;
	double before;
	unsigned nj = 0;
	int rc;

	if (e->fn != runner_point || n < 2 || e->runner->dry_run || hx_runner_width(e->runner) < 2)
		return 0; /* one slot (or a custom evaluator): measured when asked */
	if (!(job = calloc(n, sizeof(*job))))
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "analysis: out of memory");
	before = e->runner->cost_s;
	rc = fetch_entries(e, l, n, phase, job, &nj, err);
	for (unsigned i = 0; i < nj; i++) {
		if (rc < 0) { /* no entry may stay empty in the memo */
			job[i].rc = rc;
			continue;
		}
		job[i].threaded = pthread_create(&job[i].th, NULL, fetch_thread, &job[i]) == 0;
		if (!job[i].threaded)
			fetch_thread(&job[i]);
	}
	for (unsigned i = 0; i < nj; i++) {
		struct fetch_job *j = &job[i];

		if (j->threaded)
			pthread_join(j->th, NULL);
		if (j->rc < 0) { /* not memoised: the campaign stops with the first error */
			if (rc == 0)
				*err = j->err;
			rc = rc ? rc : j->rc;
			free(j->s->r);
			j->s->r = NULL;
			e->used--;
			continue;
		}
		e->points++; /* its summary is robust already (hx_point_finish) */
		e->trials += j->s->r->n;
	}
	e->cost_s += e->runner->cost_s - before;
	free(job);
	return rc;
}

int hx_eval_judge(struct hx_eval *e, const struct hx_plan *p, const struct hx_point_result *base,
		  const struct gen_levels *l, const char *phase, const struct hx_point_result **out,
		  struct hx_symptom *s, struct scn_error *err)
{
	struct gen_levels rl;
	struct eval_entry *slot;
	unsigned next, before;
	int rc = eval_at(e, l, phase, 0, 0, out, err);

	if (rc < 0)
		return rc;
	before = (*out)->n;
	hx_causal_judge(p, l->metric, base, *out, s, NULL);
	while ((s->undecided || s->straddles) && (next = hx_seq_next(p, (*out)->n))) {
		if ((rc = eval_at(e, l, phase, 0, next, out, err)) < 0)
			return rc;
		hx_causal_judge(p, l->metric, base, *out, s, NULL);
	}
	if ((*out)->n > before && before <= p->repeats) {
		e->seq.points++;
		e->seq.max_n = (*out)->n > e->seq.max_n ? (*out)->n : e->seq.max_n;
	}
	e->seq.trials += (*out)->n - before;
	if ((s->undecided || s->straddles) && p->max_repeats > p->repeats &&
	    slot_for(e, l, 0, &rl, &slot, err) == 0 &&
	    slot->r && !slot->capped) {
		slot->capped = true;
		e->seq.undecided++;
	}
	return 0;
}

const struct hx_seq *hx_eval_seq(const struct hx_eval *e)
{
	return &e->seq;
}

int hx_eval_extend(struct hx_eval *e, const struct gen_levels *l, const char *phase,
		   unsigned repeats, const struct hx_point_result **out, struct scn_error *err)
{
	return eval_at(e, l, phase, 0, repeats, out, err);
}

int hx_eval_replicate(struct hx_eval *e, const struct gen_levels *l, const char *phase,
		      const struct hx_point_result **out, struct scn_error *err)
{
	return eval_at(e, l, phase, HX_REPLICATE_REPEAT, 0, out, err);
}

int hx_eval_replicate_extend(struct hx_eval *e, const struct gen_levels *l, const char *phase,
			     unsigned repeats, const struct hx_point_result **out,
			     struct scn_error *err)
{
	return eval_at(e, l, phase, HX_REPLICATE_REPEAT, repeats, out, err);
}

void hx_causal_judge(const struct hx_plan *p, enum gen_metric m, const struct hx_point_result *base,
		     const struct hx_point_result *point, struct hx_symptom *sym, bool *undecided)
{
	hx_symptom_judge(&p->thresholds, m, base, point, sym);
	if (undecided)
		*undecided = sym->undecided;
}

double hx_causal_degradation(enum gen_metric m, const struct hx_point_result *base,
			     const struct hx_point_result *point)
{
	double y = point->s.mean, y0 = base->s.mean, share;

	share = point->n ? (double)point->failed / (double)point->n : 0;
	if (m == GEN_METRIC_BW)
		return y0 > 0 && isfinite(y) ? share + (1.0 - share) * (1.0 - y / y0) : 1.0;
	if (!(y0 > 0) || !isfinite(y))
		return 10.0;
	return y / y0 - 1.0 + 10.0 * share;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

unsigned hx_causal_axis(const struct hx_plan_dim *d, double *axis)
{
	unsigned n = 0, j = 0;

	if (d->dim->kind == GEN_DIM_CATEGORICAL) {
		axis[n++] = d->neutral;
		for (unsigned i = 0; i < d->n_levels; i++)
			if (d->levels[i] != d->neutral)
				axis[n++] = d->levels[i];
		return n;
	}
	for (unsigned i = 0; i < d->n_levels; i++)
		axis[n++] = d->levels[i];
	axis[n++] = d->neutral;
	qsort(axis, n, sizeof(*axis), cmp_double);
	for (unsigned i = 0; i < n; i++)
		if (j == 0 || axis[i] != axis[j - 1])
			axis[j++] = axis[i];
	return j;
}

double hx_level_distance(const struct hx_plan_dim *d, double level)
{
	return level > 0 && d->neutral > 0 ? fabs(log(level / d->neutral))
					   : fabs(level - d->neutral);
}

double hx_causal_extreme(const struct hx_plan_dim *d)
{
	double best = d->neutral;

	if (!d->scale || d->dim->kind == GEN_DIM_CATEGORICAL)
		return d->neutral;
	for (unsigned i = 0; i < d->n_levels; i++) {
		double far = hx_level_distance(d, d->levels[i]), now = hx_level_distance(d, best);

		if (far > now || (far == now && d->levels[i] > best))
			best = d->levels[i];
	}
	return best;
}
