/* SPDX-License-Identifier: MIT */
/*
 * sim_sample: from the model's noiseless numbers to the sample the harness sees.
 *
 * Noise is multiplicative and lognormal with mean 1 and the profile's CV, drawn separately
 * for throughput and latency from a generator seeded with the trial's seed only (same seed,
 * bit-identical sample); with probability outlier_p a trial is an outlier (throughput divided
 * and latency multiplied by outlier_factor). The draws happen in a fixed order whether or not
 * a mechanism is on, so switching noise off changes nothing else.
 *
 * Counters carry what a real mlx5 port and driver would show, summed over both hosts where
 * both have one: port counters (port_*_data in octets / 4, as sysfs has them), vport RDMA
 * counters (ethtool), hw_counters errors, congestion (CNPs), steering misses
 * (rx_steer_missed_packets) and the tc offload gauges (tc_in_hw / tc_not_in_hw). There is no
 * steering-cache-miss counter: no upstream driver exposes one.
 */
#include <math.h>
#include <string.h>

#include "testbeds/sim/sim_internal.h"

#define ACK_BYTES 62.0 /* RoCEv2 ACK on the wire: Eth + IP + UDP + BTH + AETH + ICRC */

static const char *const counter_names[] = {
	"port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets",
	"rx_vport_rdma_unicast_packets", "rx_vport_rdma_unicast_bytes",
	"tx_vport_rdma_unicast_packets", "tx_vport_rdma_unicast_bytes",
	"rx_steer_missed_packets", "out_of_buffer", "out_of_sequence", "packet_seq_err",
	"local_ack_timeout_err", "rnr_nak_retry_err", "np_cnp_sent", "rp_cnp_handled",
	"tc_in_hw", "tc_not_in_hw",
};
#define N_COUNTERS (sizeof(counter_names) / sizeof(counter_names[0]))

unsigned sim_counter_names(const char *const **names)
{
	*names = counter_names;
	return (unsigned)N_COUNTERS;
}

struct noise {
	double bw, lat, p99;
};

static void draw_noise(const struct sim_profile *p, uint64_t seed, struct noise *n)
{
	struct gen_rng rng;
	double cv = p->noise.cv, sigma = sqrt(log1p(cv * cv)), mu = -sigma * sigma / 2;
	double z_bw, z_lat, z_tail, u_out;

	gen_rng_seed(&rng, seed ^ 0x73696d6e6f697365ull);
	z_bw = gen_rng_normal(&rng);
	z_lat = gen_rng_normal(&rng);
	z_tail = gen_rng_normal(&rng);
	u_out = gen_rng_uniform(&rng);
	n->bw = n->lat = n->p99 = 1.0;
	if (!p->noise.on)
		return;
	n->bw = exp(mu + sigma * z_bw);
	n->lat = exp(mu + sigma * z_lat);
	n->p99 = n->lat * (1.0 + cv * fabs(z_tail));
	if (u_out < p->noise.outlier_p) {
		n->bw /= p->noise.outlier_factor;
		n->lat *= p->noise.outlier_factor;
		n->p99 *= p->noise.outlier_factor;
	}
}

static void add(struct tb_sample *o, const char *name, double v)
{
	tb_sample_add_counter(o, name, v);
}

static void fill_counters(const struct tb_sim *s, const struct gen_traffic *t,
			  const struct sim_perf *f, double scale, struct tb_sample *o)
{
	double pk = f->packets * scale, acks = f->acks * scale, bytes = f->bytes * scale;
	double drops = pk * s->prof.link.rx_overflow_drop * f->rx_bound;
	double cnp = f->rx_bound > 0 ? f->traffic_s * 1e6 / s->prof.link.cnp_interval_us *
					       (t->qps ? t->qps : 1) * f->rx_bound : 0;
	double wire = bytes + acks * ACK_BYTES;
	double in_hw = (double)s->host[0].in_hw + s->host[1].in_hw;
	double not_hw = (double)s->host[0].not_in_hw + s->host[1].not_in_hw;

	add(o, "port_xmit_data", floor(wire / 4));
	add(o, "port_rcv_data", floor((wire - drops * (bytes / fmax(pk, 1))) / 4));
	add(o, "port_xmit_packets", floor(pk + acks));
	add(o, "port_rcv_packets", floor(pk + acks - drops));
	add(o, "rx_vport_rdma_unicast_packets", floor(pk + acks - drops));
	add(o, "rx_vport_rdma_unicast_bytes", floor(wire));
	add(o, "tx_vport_rdma_unicast_packets", floor(pk + acks));
	add(o, "tx_vport_rdma_unicast_bytes", floor(wire));
	add(o, "rx_steer_missed_packets", floor(f->steer_missed * scale));
	add(o, "out_of_buffer", 0);
	add(o, "out_of_sequence", floor(drops));
	add(o, "packet_seq_err", floor(drops));
	add(o, "local_ack_timeout_err", f->timeouts);
	add(o, "rnr_nak_retry_err", 0);
	add(o, "np_cnp_sent", floor(cnp));
	add(o, "rp_cnp_handled", floor(cnp));
	add(o, "tc_in_hw", in_hw);
	add(o, "tc_not_in_hw", not_hw);
}

void sim_sample_fill(const struct tb_sim *s, const struct gen_traffic *t, uint64_t seed,
		     const struct sim_perf *perf, struct tb_sample *out)
{
	const struct sim_profile *p = &s->prof;
	struct noise n;
	double scale = 1;

	memset(out, 0, sizeof(*out));
	draw_noise(p, seed, &n);
	out->status = perf->status;
	out->cost_s = p->timing.setup_s + perf->traffic_s + p->timing.settle_s;
	/* not measured (NAN): every number of a failed trial, the bandwidth of a latency test;
	 * a bandwidth test reports its loaded latency too (what perftest -a shows per size) */
	out->bw_gbps = out->msg_rate_mpps = out->lat_median_us = out->lat_p99_us = NAN;
	if (perf->status == TB_OK) {
		out->msg_rate_mpps = perf->msg_rate_mpps * n.bw;
		out->lat_median_us = perf->lat_median_us * n.lat;
		out->lat_p99_us = fmax(perf->lat_p99_us * n.p99, out->lat_median_us);
		if (t->metric == GEN_METRIC_BW) {
			out->bw_gbps = perf->bw_gbps * n.bw;
			scale = n.bw;
		} else {
			out->msg_rate_mpps = perf->msg_rate_mpps / n.lat;
		}
	}
	fill_counters(s, t, perf, scale, out);
}
