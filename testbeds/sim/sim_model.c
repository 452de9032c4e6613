/* SPDX-License-Identifier: MIT */
/*
 * sim_model: the noiseless performance of one traffic spec on the applied rule sets.
 *
 * The RNIC pair is a pipeline of stages, each with a service time per message; the slowest
 * stage sets the message rate (docs/simulator.md has the derivation):
 *   wire        (size + packets * wire_overhead) * 8 / line rate
 *   NIC message per_message_ns (WQE fetch, completion; calibrated on the perftest artifact)
 *   doorbells   UAR pages: cores sharing a page serialise on it (uar)
 *   tx and rx   per packet: per_packet_ns + steering walk (probes * probe_ns) + steering-cache
 *               misses (probes * miss share * miss_probe_ns) + QP-context/translation misses
 *               (qp_cache); the data path and the control path (acks, read requests) of each
 *               host are separate tx / rx pipelines.
 * Send/write data goes client tx (encap walk) -> server rx (decap walk); acks come back on
 * server tx -> client rx. Read data goes server tx -> client rx; its requests go forward.
 * Flows in software (missing rules, steering-cache fallback) move at the vswitch rate.
 * Latency: half the round trip of a ping-pong for send/write (the sum of the four walks'
 * latencies over two), the full round trip for read, plus the queueing a traffic class cuts.
 * Assumes sim_rules_aggregate() ran for this traffic.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "testbeds/sim/sim_internal.h"

#define DEFAULT_BW_ITERS 5000.0  /* perftest's default -n for BW tests */
#define DEFAULT_LAT_ITERS 1000.0 /* and for latency tests */
#define RETRIES 7.0              /* retry_cnt perftest sets: timeouts per QP = 1 + 7 */

static double maxd(double a, double b)
{
	return a > b ? a : b;
}

/* Share of steering lookups on host H that go to host memory (steering_cache). */
static double steer_miss(const struct tb_sim *s, int h)
{
	const struct sim_profile *p = &s->prof;
	const struct sim_host *sh = &s->host[h];
	double hm = 1, hr = 1;

	if (!p->cache.on)
		return 0;
	if (sh->n_groups > p->cache.resident_masks)
		hm = p->cache.resident_masks / sh->n_groups;
	if (sh->in_hw > p->cache.resident_rules)
		hr = p->cache.resident_rules / sh->in_hw;
	return 1.0 - hm * hr;
}

/* QP context / translation cache miss rate (qp_cache): working set of QP contexts plus the
 * translation entries of each QP's buffer against the cache. */
static double qpc_miss(const struct sim_profile *p, const struct gen_traffic *t)
{
	double page = t->page_size ? t->page_size : 4096.0;
	double qps = t->qps ? t->qps : 1.0, size = t->msg_size ? t->msg_size : 1.0;
	double ws, cap;

	if (!p->qpc.on)
		return 0;
	ws = qps * (p->qpc.qpc_bytes + p->qpc.mtt_bytes * ceil(size / page));
	cap = p->qpc.cache_kib * 1024.0;
	if (ws <= cap || ws <= 0)
		return p->qpc.base_miss;
	return p->qpc.base_miss + (1.0 - p->qpc.base_miss) * (1.0 - cap / ws);
}

/* Per-packet service time of the (h, d) pipeline, ns. */
static double stage_ns(const struct tb_sim *s, int h, int d, double qmiss)
{
	const struct sim_profile *p = &s->prof;
	double probes = s->agg.probes[h][d], t = p->link.per_packet_ns;

	if (p->steer.on)
		t += probes * (d == GEN_ENCAP ? p->steer.tx_probe_ns : p->steer.rx_probe_ns);
	t += probes * steer_miss(s, h) * p->cache.miss_probe_ns;
	if (p->qpc.on)
		t += qmiss * p->qpc.miss_ns;
	return t;
}

/* One-way latency the (h, d) walk adds, us. */
static double walk_us(const struct tb_sim *s, int h, int d, double qmiss)
{
	const struct sim_profile *p = &s->prof;
	double probes = s->agg.probes[h][d], us = 0;

	if (p->steer.on)
		us += probes * (d == GEN_ENCAP ? p->steer.encap_probe_latency_us
					       : p->steer.decap_probe_latency_us);
	us += probes * steer_miss(s, h) * p->cache.miss_probe_latency_us;
	if (p->qpc.on)
		us += qmiss * p->qpc.miss_ns * 1e-3;
	return us;
}

/* Time a posting core needs per message when doorbells are the limit (uar), ns; 0 = none. */
static double doorbell_ns(const struct sim_profile *p, const struct gen_traffic *t)
{
	double qps = t->qps ? t->qps : 1, cores = t->cores ? t->cores : 1;
	double spread = t->uar_spread ? t->uar_spread : 1, qpp, k, pages;

	if (!p->uar.on)
		return 0;
	qpp = maxd(spread, ceil(qps / p->uar.pages)); /* QPs per page */
	if (qpp > qps)
		qpp = qps;
	if (cores > qps)
		cores = qps;
	k = cores < qpp ? cores : qpp;                /* cores contending on one page */
	pages = ceil(cores / k);
	return p->uar.doorbell_ns * (1.0 + p->uar.contention * (k - 1.0)) / pages;
}

/* Bandwidth-test message time (ns) and the rx-boundness of the data path. */
static double msg_time(const struct tb_sim *s, const struct gen_traffic *t, double qmiss,
		       double pkts, double ctrl, double *rx_bound)
{
	const struct sim_profile *p = &s->prof;
	bool rd = t->verb == TOPO_VERB_READ;
	int dh = rd ? GEN_SERVER : GEN_CLIENT, rh = rd ? GEN_CLIENT : GEN_SERVER;
	double size = t->msg_size ? t->msg_size : 1;
	double wire = (size + pkts * p->link.wire_overhead_bytes) * 8.0 / p->line_rate_gbps;
	double tx = pkts * stage_ns(s, dh, GEN_ENCAP, qmiss);
	double rx = pkts * stage_ns(s, rh, GEN_DECAP, qmiss);
	double ctx = ctrl * stage_ns(s, rh, GEN_ENCAP, qmiss);
	double crx = ctrl * stage_ns(s, dh, GEN_DECAP, qmiss);
	double other = maxd(maxd(wire, tx), maxd(maxd(ctx, crx), p->link.per_message_ns));
	double tm = maxd(maxd(other, rx), doorbell_ns(p, t));

	*rx_bound = rx > other ? 1.0 - other / rx : 0.0;
	return tm;
}

/* Unloaded latency: half RTT (send/write) or RTT (read), us. */
static double latency_us(const struct tb_sim *s, const struct gen_traffic *t, double qmiss,
			 bool loaded)
{
	const struct sim_profile *p = &s->prof;
	double walks = 0, size = t->msg_size ? t->msg_size : 1, lat;

	for (int h = 0; h < GEN_HOSTS; h++)
		for (int d = 0; d < GEN_DIRS; d++)
			walks += walk_us(s, h, d, qmiss);
	if (t->verb == TOPO_VERB_READ)
		lat = 2 * p->link.base_latency_us + p->link.read_extra_us + walks;
	else
		lat = p->link.base_latency_us + walks / 2;
	lat += p->link.lat_per_kib_us * size / 1024.0;
	if (p->tclass.on) {
		double q = loaded ? p->tclass.queue_us_loaded : p->tclass.queue_us_idle;
		double tc = t->traffic_class > 7 ? 7 : t->traffic_class;

		lat += q * (1.0 - p->tclass.gain * tc / 7.0);
	}
	return lat;
}

static void timeout_run(const struct tb_sim *s, const struct gen_traffic *t,
			struct sim_perf *o)
{
	o->status = TB_TIMEOUT;
	o->traffic_s = s->prof.encap.deadline_s;
	o->timeouts = (t->qps ? t->qps : 1) * (1.0 + RETRIES);
}

void sim_model_run(const struct tb_sim *s, const struct gen_traffic *t, struct sim_perf *o)
{
	const struct sim_profile *p = &s->prof;
	bool rd = t->verb == TOPO_VERB_READ, bw_test = t->metric == GEN_METRIC_BW;
	double mtu = t->mtu ? fmin(t->mtu, p->link.max_mtu) : p->link.mtu;
	double size = t->msg_size ? t->msg_size : 1, pkts = ceil(size / mtu);
	double ctrl = rd ? 1.0 : ceil(pkts / p->link.ack_every_packets);
	double qmiss = qpc_miss(p, t), sw = rd ? s->agg.sw_rev : s->agg.sw_fwd;
	double lat, tmsg, iters, loss = 0;

	assert(s->agg.valid);
	assert(mtu >= 256 && p->line_rate_gbps > 0 && p->link.ack_every_packets >= 1);
	memset(o, 0, sizeof(*o));
	if (s->apply_failed) {
		o->status = TB_APPLY_FAILED;
		return;
	}
	if (p->encap.on && s->encap_contexts > p->encap.capacity) {
		timeout_run(s, t, o);
		return;
	}
	o->status = TB_OK;
	o->sw_share = sw;
	if (p->prog.on && t->rule_churn > 0)
		loss = p->prog.churn_cost * fmin(1.0, t->rule_churn / p->prog.rules_per_s);
	lat = latency_us(s, t, qmiss, bw_test);
	o->lat_median_us = (1 - sw) * lat + sw * (lat + p->link.software_latency_us);
	o->lat_p99_us = lat * p->link.p99_ratio * (1 + loss) +
			(sw >= 0.01 ? p->link.software_latency_us : 0);
	if (bw_test) {
		double hw = size * 8.0 / msg_time(s, t, qmiss, pkts, ctrl, &o->rx_bound);
		double bw = sw > 0 ? 1.0 / ((1 - sw) / hw + sw / p->link.software_gbps) : hw;

		o->bw_gbps = bw * (1 - loss);
		o->msg_rate_mpps = o->bw_gbps * 1e3 / (size * 8.0);
		tmsg = 1e3 / o->msg_rate_mpps;
		iters = DEFAULT_BW_ITERS;
	} else {
		double rtt_us = rd ? lat : 2 * lat;

		tmsg = (rd ? o->lat_median_us : 2 * o->lat_median_us) * 1e3;
		o->msg_rate_mpps = 1.0 / rtt_us;
		iters = DEFAULT_LAT_ITERS;
	}
	if (t->iterations)
		iters = t->iterations;
	o->traffic_s = t->duration_s > 0 ? t->duration_s : iters * tmsg * 1e-9;
	o->packets = o->traffic_s * o->msg_rate_mpps * 1e6 * pkts;
	o->acks = o->traffic_s * o->msg_rate_mpps * 1e6 * ctrl;
	o->bytes = o->traffic_s * o->msg_rate_mpps * 1e6 *
		   (size + pkts * p->link.wire_overhead_bytes);
	o->steer_missed = o->packets * s->agg.miss[rd ? GEN_CLIENT : GEN_SERVER][GEN_DECAP] +
			  o->acks * s->agg.miss[rd ? GEN_SERVER : GEN_CLIENT][GEN_DECAP];
}
