/* SPDX-License-Identifier: MIT */
/*
 * hx_trial: look up or measure one trial on a free slot and commit it at once (see
 * hx_trial.h). The pool's mutex is held for the store and the counters, released while a
 * slot applies rules and measures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness/plan/hx_plan.h"
#include "harness/trial/hx_trial.h"

void hx_runner_init(struct hx_runner *r)
{
	memset(r, 0, sizeof(*r));
}

void hx_runner_release(struct hx_runner *r)
{
	hx_pool_free(r->pool);
	r->pool = NULL;
	gen_rules_cache_free(r->rules_cache);
	r->rules_cache = NULL;
}

int hx_runner_slots(struct hx_runner *r, struct tb *const *tb, unsigned n)
{
	if (n == 0 || n > HX_POOL_MAX)
		return -EINVAL;
	hx_pool_free(r->pool);
	r->pool = hx_pool_new(tb, n);
	r->tb = tb[0];
	return r->pool ? 0 : -ENOMEM;
}

/* The runner's pool, made from r->tb the first time (before any thread runs trials). */
static struct hx_pool *pool_of(struct hx_runner *r)
{
	if (!r->pool)
		r->pool = hx_pool_new(&r->tb, 1);
	return r->pool;
}

void hx_runner_forget_rules(struct hx_runner *r)
{
	struct hx_pool *p = pool_of(r);

	for (unsigned i = 0; p && i < p->n; i++) {
		p->slot[i].needs_reset = true;
		p->slot[i].rules_key[0] = '\0';
	}
}

unsigned hx_runner_width(struct hx_runner *r)
{
	struct hx_pool *p = pool_of(r);

	return p ? p->n : 1;
}

void hx_observe_phase(const struct hx_observer *o, const char *phase, unsigned long planned_more)
{
	if (o && o->phase)
		o->phase(o->ctx, phase, planned_more);
}

void hx_observe_more(const struct hx_observer *o, unsigned long more)
{
	if (o && o->more)
		o->more(o->ctx, more);
}

void hx_observe_trial(const struct hx_observer *o, double cost_s, bool cached)
{
	if (o && o->trial)
		o->trial(o->ctx, cost_s, cached);
}

static double wall_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double hx_sample_value(const struct gen_levels *l, const struct res_sample *s)
{
	if (l->metric == GEN_METRIC_LAT)
		return s->lat_median_us;
	return s->bw_gbps;
}

/* Only these levels shape the rule sets; other dimensions reuse what is applied. */
static void rules_key(const struct gen_levels *l, char out[33])
{
	struct gen_levels k;

	gen_levels_neutral(&k);
	memcpy(k.masks, l->masks, sizeof(k.masks));
	k.flows = l->flows;
	k.subnets = l->subnets;
	k.encap_contexts = l->encap_contexts;
	k.layout = l->layout;
	hx_point_key(&k, out);
}

/* Remove every offloaded rule (the neutral point offloads none), so that a NIC that fell
 * back to software recovers before the next point: a measurement must not depend on the
 * points measured before it (nor on whether the campaign was resumed in between). */
static int reset_rules(struct hx_runner *r, struct hx_slot *sl, struct scn_error *err)
{
	struct hx_pool *p = pool_of(r);
	struct hx_rules *empty = NULL;
	struct gen_levels none;
	char key[33];
	int rc;

	gen_levels_neutral(&none);
	rules_key(&none, key);
	rc = hx_pool_rules(p, &r->rules_cache, r->no_rules_cache, &none, key, r->seed, &empty, err);
	if (rc == 0)
		rc = tb_apply(sl->tb, empty->rules, err);
	hx_pool_rules_put(p, empty);
	sl->needs_reset = false;
	return rc;
}

static int ensure_rules(struct hx_runner *r, struct hx_slot *sl, const struct gen_levels *l,
			struct scn_error *err)
{
	struct hx_pool *p = pool_of(r);
	struct hx_rules *rules = NULL;
	char key[33];
	int rc;

	rules_key(l, key);
	if (sl->rules_key[0] && !strcmp(key, sl->rules_key))
		return 0;
	rc = hx_pool_rules(p, &r->rules_cache, r->no_rules_cache, l, key, r->seed, &rules, err);
	if (rc < 0)
		return err && err->cls == SCN_ERR_CONFIG ? -EDOM : rc;
	sl->rules_key[0] = '\0'; /* whatever happens next, the old rules may be gone */
	if (sl->needs_reset)
		rc = reset_rules(r, sl, err);
	if (rc == 0)
		rc = tb_apply(sl->tb, rules->rules, err);
	if (rc < 0) {
		hx_pool_rules_put(p, rules);
		return rc;
	}
	hx_pool_rules_put(p, sl->rules);
	sl->rules = rules;
	memcpy(sl->rules_key, key, sizeof(key));
	return 0;
}

static void counters_json(const struct tb_sample *s, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "{");

	for (unsigned i = 0; i < s->n_counters && n < len; i++)
		if (isfinite(s->counters[i].value)) /* JSON has no inf or nan */
			n += (size_t)snprintf(buf + n, len - n, "%s\"%s\":%.17g", n > 1 ? "," : "",
					      s->counters[i].name, s->counters[i].value);
	if (n < len)
		snprintf(buf + n, len - n, "}");
}

static void to_res_sample(const struct tb_sample *s, struct res_sample *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->status, sizeof(o->status), "%s", tb_status_name(s->status));
	o->bw_gbps = o->msg_rate_mpps = o->lat_median_us = o->lat_p99_us = NAN;
	if (s->status == TB_OK) { /* a failed trial measured nothing, whatever a backend left */
		o->bw_gbps = s->bw_gbps;
		o->msg_rate_mpps = s->msg_rate_mpps;
		o->lat_median_us = s->lat_median_us;
		o->lat_p99_us = s->lat_p99_us;
	}
	o->cost_s = s->cost_s;
	counters_json(s, o->counters_json, sizeof(o->counters_json));
}

/* Apply L's rules on slot SL and measure one trial into S (no lock held). */
static int measure_on(struct hx_runner *r, struct hx_slot *sl, const struct gen_levels *l,
		      const char *key, int repeat, struct tb_sample *s, struct scn_error *err)
{
	struct gen_traffic t;
	int rc = ensure_rules(r, sl, l, err);

	if (rc < 0)
		return rc;
	gen_traffic_from_levels(l, &t);
	rc = tb_measure(sl->tb, &t, gen_hash64(key, strlen(key), r->seed), s, err);
	if (rc < 0) {
		char brief[200];

		scn_error_prefix(err, "trial %s, repeat %d: ",
				 hx_point_brief(l, brief, sizeof(brief)), repeat + 1);
		return rc;
	}
	tb_sample_judge(s, l->metric, NULL);
	if (tb_sample_counter(s, "tc_not_in_hw") > 0)
		sl->needs_reset = true;
	return 0;
}

/* A failure of the slot's testbed (gone, unreachable, hung), not of the point. */
static bool slot_failure(int rc, const struct scn_error *err)
{
	return rc < 0 && rc != -EDOM && err &&
	       (err->cls == SCN_ERR_DEVICE || err->cls == SCN_ERR_TRANSIENT ||
		err->cls == SCN_ERR_TIMEOUT);
}

/* Measure on a free slot (P->mu held, released while measuring). A slot that fails is taken
 * out and the trial runs on another, while one is left; *SLOT is the one that measured,
 * *STARTED when it began. */
static int measure_pooled(struct hx_runner *r, struct hx_pool *p, const struct gen_levels *l,
			  const char *key, int repeat, struct tb_sample *s, unsigned *slot,
			  double *started, struct scn_error *err)
{
	char want[33];

	rules_key(l, want);
	for (;;) {
		int i = hx_pool_take(p, want), rc;
		unsigned alive;

		if (i < 0)
			return scn_error_set(err, SCN_ERR_DEVICE, -ENODEV, "every testbed slot "
					     "failed (the last, %s); repeat %d not measured",
					     p->last_lost, repeat + 1);
		pthread_mutex_unlock(&p->mu);
		*started = wall_clock(); /* on its slot: waiting for one is not the trial's time */
		rc = measure_on(r, &p->slot[i], l, key, repeat, s, err);
		pthread_mutex_lock(&p->mu);
		if (!slot_failure(rc, err) || p->n == 1) {
			hx_pool_give(p, (unsigned)i);
			*slot = (unsigned)i;
			return rc;
		}
		alive = hx_pool_lose(p, (unsigned)i, err->message);
		if (r->observer && r->observer->slot_lost)
			r->observer->slot_lost(r->observer->ctx, (unsigned)i, alive, err->message);
		if (alive == 0)
			return rc;
		scn_error_clear(err);
	}
}

/* The trial and its point (stored with its first trial), one commit. */
static int store_trial(struct hx_runner *r, const struct gen_levels *l, const char *key,
		       const char *phase, int repeat, const struct tb_sample *s, unsigned slot,
		       double started, struct hx_trial_out *out, struct scn_error *err)
{
	char pkey[33], json[4096];
	struct res_point_ref point = { pkey, hx_point_json(l, json, sizeof(json)), "default",
				       phase };
	struct res_trial tr;
	int rc;

	hx_point_key(l, pkey);
	memset(&tr, 0, sizeof(tr));
	tr.started = started;
	tr.finished = wall_clock();
	tr.campaign = r->campaign;
	tr.slot = slot;
	snprintf(tr.key, sizeof(tr.key), "%s", key);
	snprintf(tr.verb, sizeof(tr.verb), "%s", topo_verb_name(l->verb));
	snprintf(tr.metric, sizeof(tr.metric), "%s", l->metric == GEN_METRIC_LAT ? "lat" : "bw");
	tr.repeat = repeat;
	to_res_sample(s, &tr.sample);
	tr.evidence_json = s->evidence_json; /* failed or not */
	rc = res_trial_put_at(r->db, &tr, &point, err);
	if (rc < 0)
		return rc;
	out->id = tr.id;
	out->sample = tr.sample;
	out->cached = false;
	out->slot = slot;
	return 0;
}

/* A trial not in the store (P->mu held): measure on a slot, commit it with its point. */
static int measure_new(struct hx_runner *r, struct hx_pool *p, const struct gen_levels *l,
		       const char *phase, const char *key, int repeat, struct hx_trial_out *out,
		       struct scn_error *err)
{
	struct tb_sample s;
	double started = 0;
	unsigned slot = 0;
	int rc;

	if (r->stop && *r->stop)
		return -EINTR;
	if (r->budget_s > 0 && r->cost_s >= r->budget_s)
		return -EDQUOT;
	rc = measure_pooled(r, p, l, key, repeat, &s, &slot, &started, err);
	if (rc == 0)
		rc = store_trial(r, l, key, phase, repeat, &s, slot, started, out, err);
	if (rc == 0)
		r->measured++;
	return rc;
}

/* A dry run: the testbed prints what it would run; nothing is stored. */
static int dry_trial(struct hx_runner *r, const struct gen_levels *l, const char *key,
		     struct hx_trial_out *out, struct scn_error *err)
{
	struct gen_traffic t;
	struct hx_slot *sl = &pool_of(r)->slot[0];
	struct tb_sample s;
	int rc = ensure_rules(r, sl, l, err);

	if (rc < 0)
		return rc;
	gen_traffic_from_levels(l, &t);
	rc = tb_measure(sl->tb, &t, gen_hash64(key, strlen(key), r->seed), &s, err);
	if (rc < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	to_res_sample(&s, &out->sample);
	r->measured++;
	hx_observe_trial(r->observer, 0, false);
	return 0;
}

int hx_trial(struct hx_runner *r, const struct gen_levels *l, const char *phase, int repeat,
	     struct hx_trial_out *out, struct scn_error *err)
{
	struct hx_pool *p = pool_of(r);
	struct res_trial tr;
	char key[33];
	int rc;

	if (!p)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "trial: out of memory");
	hx_trial_key(l, repeat, r->desc.identity, key);
	if (r->dry_run)
		return dry_trial(r, l, key, out, err);
	pthread_mutex_lock(&p->mu);
	rc = res_trial_get(r->db, key, &tr, err);
	if (rc == 0) {
		out->id = tr.id;
		out->sample = tr.sample;
		out->cached = true;
		out->slot = tr.slot;
		r->cached++;
	} else if (rc == -ENOENT) {
		scn_error_clear(err);
		rc = measure_new(r, p, l, phase, key, repeat, out, err);
	}
	if (rc == 0) {
		r->cost_s += out->sample.cost_s;
		hx_observe_trial(r->observer, out->sample.cost_s, out->cached);
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

int hx_point_run(struct hx_runner *r, const struct gen_levels *l, const char *phase,
		 struct hx_point_result *out, struct scn_error *err)
{
	memset(out, 0, sizeof(*out));
	return hx_point_extend(r, l, phase, 0, r->repeats, out, err);
}
