/* SPDX-License-Identifier: MIT */
/*
 * hx_trace_gen: the synthetic flow-trace generator behind `scalacn gen-trace` (model in
 * hx_trace.h: popularity slots, Poisson churn replacing a slot's flow, Poisson packets).
 * Streams one second at a time: memory is O(flows). Deterministic for a seed (gen_rng).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generators/gen.h"
#include "harness/replay/hx_replay.h"

/* A flow segment inside the current second: slot's flow KEY from time T0 to T1. */
struct seg {
	double t0, t1;
	uint64_t key;
	uint32_t mask, slot;
};

/* Invariant: key[i]/mask[i] is the flow in slot i; w[i] sums to 1; segs has room for
 * flows + events of one second. */
struct gen_state {
	const struct hx_trace_gen *g;
	struct gen_rng rng;
	double *w;
	uint64_t *key, next_key;
	uint32_t *mask;
	double *since; /* start of the slot's current segment in this second */
	struct seg *segs;
	size_t n_segs, cap_segs;
};

void hx_trace_gen_default(struct hx_trace_gen *g)
{
	memset(g, 0, sizeof(*g));
	g->flows = 15000;
	g->pop = HX_TRACE_ZIPF;
	g->zipf_s = 1.0;
	g->duration_s = 60;
	g->churn = 50;
	g->masks = 64;
	g->pps = 1e6;
	g->seed = 1;
}

static int check(const struct hx_trace_gen *g, struct scn_error *err)
{
	if (g->flows < 1 || g->flows > (1u << 20))
		return scn_error_set(err, SCN_ERR_USAGE, -EINVAL, "--flows: %u is out of range "
				     "[1, 1048576]", g->flows);
	if (!(g->zipf_s >= 0 && g->zipf_s <= 5))
		return scn_error_set(err, SCN_ERR_USAGE, -EINVAL, "zipf:S: S must be in [0, 5]");
	if (!(g->duration_s >= 1 && g->duration_s <= 86400))
		return scn_error_set(err, SCN_ERR_USAGE, -EINVAL, "--duration: must be in "
				     "[1, 86400] seconds");
	if (!(g->churn >= 0 && g->churn <= 1e6))
		return scn_error_set(err, SCN_ERR_USAGE, -EINVAL, "--churn: must be in "
				     "[0, 1e6] per second");
	if (g->masks < 1 || g->masks > HX_TRACE_MAX_MASKS)
		return scn_error_set(err, SCN_ERR_USAGE, -EINVAL, "--masks: %u is out of range "
				     "[1, %u]", g->masks, HX_TRACE_MAX_MASKS);
	if (!(g->pps > 0 && g->pps <= 1e12))
		return scn_error_set(err, SCN_ERR_USAGE, -EINVAL, "--pps: must be in (0, 1e12]");
	return 0;
}

static int push_seg(struct gen_state *s, uint32_t slot, double t1)
{
	if (s->n_segs == s->cap_segs) {
		size_t cap = 2 * s->cap_segs;
		struct seg *g = realloc(s->segs, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		s->segs = g;
		s->cap_segs = cap;
	}
	s->segs[s->n_segs++] = (struct seg){ s->since[slot], t1, s->key[slot], s->mask[slot],
					     slot };
	return 0;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	/* same time: by key (a seeded permutation), not by popularity slot, so the order masks
	 * first appear in (the static insertion order) does not leak popularity */
	return x->key < y->key ? -1 : x->key > y->key;
}

static int init(struct gen_state *s, const struct hx_trace_gen *g)
{
	uint32_t n = g->flows;
	double sum = 0;

	s->g = g;
	gen_rng_seed(&s->rng, g->seed);
	s->w = malloc(n * sizeof(double));
	s->key = malloc(n * sizeof(uint64_t));
	s->mask = malloc(n * sizeof(uint32_t));
	s->since = malloc(n * sizeof(double));
	s->cap_segs = (size_t)n + 64;
	s->segs = malloc(s->cap_segs * sizeof(struct seg));
	if (!s->w || !s->key || !s->mask || !s->since || !s->segs)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		s->w[i] = g->pop == HX_TRACE_ZIPF ? pow(i + 1.0, -g->zipf_s) : 1.0;
		sum += s->w[i];
	}
	for (uint32_t i = 0; i < n; i++) {
		s->w[i] /= sum;
		s->key[i] = i;
	}
	gen_rng_shuffle(&s->rng, s->key, n, sizeof(*s->key));
	for (uint32_t i = 0; i < n; i++)
		s->mask[i] = gen_rng_below(&s->rng, g->masks);
	s->next_key = n;
	return 0;
}

/* Second SEC: churn events, then one row per segment with packets. *NEXT_EV is the time of
 * the next churn event (carried across seconds). */
static int second(struct gen_state *s, uint32_t sec, double *next_ev, FILE *out,
		  uint64_t *rows)
{
	const struct hx_trace_gen *g = s->g;
	double end = sec + 1.0;
	int rc = 0;

	s->n_segs = 0;
	for (uint32_t i = 0; i < g->flows; i++)
		s->since[i] = sec;
	while (g->churn > 0 && *next_ev < end && rc == 0) {
		uint32_t slot = gen_rng_below(&s->rng, g->flows);

		rc = push_seg(s, slot, *next_ev);
		s->since[slot] = *next_ev;
		s->key[slot] = s->next_key++;
		s->mask[slot] = gen_rng_below(&s->rng, g->masks);
		*next_ev += gen_rng_exponential(&s->rng, 1.0 / g->churn);
	}
	for (uint32_t i = 0; i < g->flows && rc == 0; i++)
		rc = push_seg(s, i, end);
	if (rc)
		return rc;
	qsort(s->segs, s->n_segs, sizeof(struct seg), cmp_seg);
	for (size_t i = 0; i < s->n_segs; i++) {
		const struct seg *q = &s->segs[i];
		uint64_t p = gen_rng_poisson(&s->rng, g->pps * s->w[q->slot] * (q->t1 - q->t0));

		if (p == 0)
			continue;
		if (fprintf(out, "%.6f,%" PRIu64 ",%u,%" PRIu64 "\n", q->t0, q->key, q->mask,
			    p) < 0)
			return -EIO;
		(*rows)++;
	}
	return 0;
}

int hx_trace_generate(const struct hx_trace_gen *g, FILE *out, uint64_t *rows,
		      struct scn_error *err)
{
	struct gen_state s;
	uint64_t n = 0;
	double next_ev;
	int rc = check(g, err);

	if (rc)
		return rc;
	memset(&s, 0, sizeof(s));
	rc = init(&s, g);
	if (rc == 0 && fprintf(out, "time,flow,mask,packets\n") < 0)
		rc = -EIO;
	next_ev = g->churn > 0 ? gen_rng_exponential(&s.rng, 1.0 / g->churn) : 0;
	for (uint32_t sec = 0; rc == 0 && sec < (uint32_t)g->duration_s; sec++)
		rc = second(&s, sec, &next_ev, out, &n);
	if (rc == 0 && fflush(out) != 0)
		rc = -EIO;
	free(s.w);
	free(s.key);
	free(s.mask);
	free(s.since);
	free(s.segs);
	if (rows)
		*rows = n;
	if (rc == -ENOMEM)
		return scn_error_set(err, SCN_ERR_INTERNAL, rc, "gen-trace: out of memory");
	if (rc)
		return scn_error_set(err, SCN_ERR_CONFIG, rc, "gen-trace: write error");
	return 0;
}
