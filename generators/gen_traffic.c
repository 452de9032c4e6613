/* SPDX-License-Identifier: MIT */
/*
 * gen_traffic: the traffic spec of a point, flow popularity, and geometric sweeps (gen.h).
 *
 * Zipf popularity: flow i (0-based) has weight (i+1)^-s / H(n,s), H(n,s) = sum_{k=1..n} k^-s.
 * Nothing is cached between calls (no globals), so H is computed per call in O(1): the first
 * 16 terms exactly, the rest by Euler-Maclaurin with three Bernoulli corrections (relative
 * error below 1e-13 for 0 <= s <= 4). s = 0 gives the uniform distribution.
 * gen_flow_weights (gen_packet.h) fills all n weights in O(n) with one exact normaliser.
 */
#include <math.h>

#include "generators/gen.h"
#include "generators/gen_packet.h"

void gen_traffic_from_levels(const struct gen_levels *l, struct gen_traffic *t)
{
	t->verb = l->verb;
	t->metric = l->metric;
	t->msg_size = l->msg_size;
	t->qps = l->qps;
	t->tx_depth = l->tx_depth;
	t->mtu = l->mtu;
	t->page_size = l->page_size;
	t->traffic_class = l->traffic_class;
	t->uar_spread = l->uar_spread;
	t->cores = l->cores;
	t->iterations = l->iterations;
	t->duration_s = l->duration_s;
	t->popularity = l->popularity;
	t->zipf_s = l->zipf_s;
	t->flows = l->flows;
	t->rule_churn = l->rule_churn;
}

#define EXACT_TERMS 16u

/* sum_{k=a..b} k^-s for b > a >= EXACT_TERMS, by Euler-Maclaurin. */
static double zipf_tail(double a, double b, double s)
{
	double integral, la = log(a), lb = log(b);
	double fa = exp(-s * la), fb = exp(-s * lb);
	double d1a = -s * fa / a, d1b = -s * fb / b;
	double c3 = -s * (s + 1) * (s + 2);
	double d3a = c3 * fa / (a * a * a), d3b = c3 * fb / (b * b * b);
	double c5 = c3 * (s + 3) * (s + 4);
	double d5a = c5 * fa / pow(a, 5), d5b = c5 * fb / pow(b, 5);

	if (fabs(1.0 - s) < 1e-12)
		integral = lb - la;
	else
		integral = exp((1.0 - s) * la) * expm1((1.0 - s) * (lb - la)) / (1.0 - s);
	return integral + (fa + fb) / 2 + (d1b - d1a) / 12.0 - (d3b - d3a) / 720.0 +
	       (d5b - d5a) / 30240.0;
}

static double zipf_norm(uint32_t n, double s)
{
	double h = 0;
	uint32_t exact = n < EXACT_TERMS ? n : EXACT_TERMS;

	for (uint32_t k = 1; k <= exact; k++)
		h += pow((double)k, -s);
	if (n > EXACT_TERMS)
		h += zipf_tail(EXACT_TERMS + 1.0, (double)n, s);
	return h;
}

double gen_flow_weight(const struct gen_traffic *t, uint32_t i, uint32_t n)
{
	if (n == 0 || i >= n)
		return 0.0;
	if (t->popularity != GEN_POP_ZIPF || t->zipf_s == 0.0)
		return 1.0 / n;
	return pow((double)i + 1.0, -t->zipf_s) / zipf_norm(n, t->zipf_s);
}

void gen_flow_weights(const struct gen_traffic *t, uint32_t n, double *out)
{
	double sum = 0;

	if (n == 0)
		return;
	if (t->popularity != GEN_POP_ZIPF || t->zipf_s == 0.0) {
		for (uint32_t i = 0; i < n; i++)
			out[i] = 1.0 / n;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		out[i] = pow((double)i + 1.0, -t->zipf_s);
		sum += out[i];
	}
	for (uint32_t i = 0; i < n; i++)
		out[i] /= sum;
}

unsigned gen_sweep_geometric(double lo, double hi, double r, double *out, unsigned max)
{
	unsigned n = 0;
	double last = -1, top;

	if (!(lo > 0) || !(hi >= lo) || !(r > 1) || !isfinite(hi) || !isfinite(r))
		return 0;
	top = round(hi);
	for (unsigned k = 0; k < 100000; k++) {
		double v = round(lo * pow(r, k));

		if (v > top)
			break;
		if (v > last) {
			if (n < max)
				out[n] = v;
			n++;
			last = v;
		}
	}
	if (top > last) {
		if (n < max)
			out[n] = top;
		n++;
	}
	return n;
}
