/* SPDX-License-Identifier: MIT */
/*
 * test-gen-dims: unit tests of generators/ (gen.h, gen_packet.h, gen_shapes.h) below the
 * rule sets: PRNG and hash (pinned outputs, distributions), the dimension registry and
 * assignments (values and errors), Zipf weights, geometric sweeps, the mask-shape families.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_rng.h>

#include "generators/gen.h"
#include "generators/gen_packet.h"
#include "generators/gen_shapes.h"

/* ---- rng and hash --------------------------------------------------------------------- */

/* gen_rng_next's first output for seed 0 (GSL taus2 seeded with 1: taus2 maps seed 0 to 1). */
#define PINNED_SEED0 0x2fd9a2acf377581dULL

static void test_generators_rng_deterministic(void **state)
{
	struct gen_rng a, b, c;
	int differ = 0;

	(void)state;
	gen_rng_seed(&a, 42);
	gen_rng_seed(&b, 42);
	gen_rng_seed(&c, 43);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = gen_rng_next(&a);

		assert_true(x == gen_rng_next(&b));
		differ += x != gen_rng_next(&c);
	}
	assert_true(differ > 990);
	/* Pinned outputs: the generator changes only with GEN_RNG_NAME (a stored layout is
	 * rebuilt from its seed only by the generator its campaign names). */
	gen_rng_seed(&a, 0);
	assert_true(gen_rng_next(&a) == PINNED_SEED0);
	assert_string_equal(GEN_RNG_NAME, "gsl-taus2");
	assert_true(gen_hash64("scalacn", 7, 0) == gen_hash64("scalacn", 7, 0));
	assert_true(gen_hash64("scalacn", 7, 0) != gen_hash64("scalacn", 7, 1));
	assert_true(gen_hash64("scalacn", 7, 0) != gen_hash64("scalacm", 7, 0));
	assert_true(gen_hash64("", 0, 0) != gen_hash64("", 0, 1));
}

/* gen_rng is GSL's taus2 (seeded with the 64-bit seed folded to 32 bits); a copy is an
 * independent copy of the stream. */
static void test_generators_rng_is_gsl_taus2(void **state)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_taus2);
	struct gen_rng r, copy;

	(void)state;
	assert_non_null(g);
	gen_rng_seed(&r, 0);
	gsl_rng_set(g, 0);
	for (int i = 0; i < 100; i++) {
		uint64_t hi = gsl_rng_get(g), lo = gsl_rng_get(g);

		assert_true(gen_rng_next(&r) == (hi << 32 | lo));
	}
	copy = r;
	assert_true(gen_rng_next(&copy) == gen_rng_next(&r));
	gsl_rng_free(g);
}

/* GSL's distributions behind gen_rng: Poisson (and its normal limit), exponential, bounded
 * integers, shuffles (a permutation, seeded). */
static void test_generators_rng_gsl_distributions(void **state)
{
	struct gen_rng r;
	double ps = 0, big = 0, ex = 0;
	uint32_t v[64], seen = 0;
	const int n = 20000;

	(void)state;
	gen_rng_seed(&r, 11);
	for (int i = 0; i < n; i++) {
		uint32_t b = gen_rng_below(&r, 5);

		assert_true(b < 5);
		ps += (double)gen_rng_poisson(&r, 3.5);
		big += (double)gen_rng_poisson(&r, 4e12);
		ex += gen_rng_exponential(&r, 2.0);
	}
	assert_true(fabs(ps / n - 3.5) < 0.05);
	assert_true(fabs(big / n / 4e12 - 1) < 1e-6);
	assert_true(fabs(ex / n - 2.0) < 0.06);
	assert_true(gen_rng_poisson(&r, 0) == 0 && gen_rng_poisson(&r, -1) == 0);
	assert_true(gen_rng_below(&r, 0) == 0);
	for (uint32_t i = 0; i < 64; i++)
		v[i] = i;
	gen_rng_shuffle(&r, v, 64, sizeof(v[0]));
	for (uint32_t i = 0; i < 64; i++) {
		assert_true(v[i] < 64);
		seen += v[i] != i;
	}
	assert_true(seen > 32);
	for (uint32_t i = 1; i < 64; i++)
		for (uint32_t j = 0; j < i; j++)
			assert_true(v[i] != v[j]);
}

static void test_generators_rng_distributions(void **state)
{
	struct gen_rng r;
	double sum = 0, sum2 = 0, usum = 0, umin = 1, umax = 0;
	const int n = 200000;

	(void)state;
	gen_rng_seed(&r, 7);
	for (int i = 0; i < n; i++) {
		double u = gen_rng_uniform(&r), z = gen_rng_normal(&r);

		assert_true(u >= 0.0 && u < 1.0);
		usum += u;
		umin = fmin(umin, u);
		umax = fmax(umax, u);
		sum += z;
		sum2 += z * z;
	}
	assert_true(fabs(usum / n - 0.5) < 0.005);
	assert_true(umin < 0.001 && umax > 0.999);
	assert_true(fabs(sum / n) < 0.01);
	assert_true(fabs(sum2 / n - 1.0) < 0.02);
}

/* ---- dimensions ------------------------------------------------------------------------ */

static const char *const dim_names[] = {
	"client.encap_masks", "client.decap_masks", "server.encap_masks", "server.decap_masks",
	"flows", "subnets", "encap_contexts", "rule_churn", "verb", "msg_size", "qps",
	"tx_depth", "mtu", "page_size", "traffic_class", "uar_spread", "cores", "popularity",
	"zipf_s", "iterations", "duration_s",
};

static void test_generators_dims_registry(void **state)
{
	unsigned n = sizeof(dim_names) / sizeof(dim_names[0]);
	struct gen_levels l;
	struct scn_error err;

	(void)state;
	assert_int_equal(gen_dimension_count(), n);
	assert_null(gen_dimension_at(n));
	assert_null(gen_dimension_find("metric"));
	for (unsigned i = 0; i < n; i++) {
		const struct gen_dimension *d = gen_dimension_at(i);

		assert_string_equal(d->name, dim_names[i]);
		assert_ptr_equal(gen_dimension_find(dim_names[i]), d);
		assert_true(d->n_levels >= 2);
		for (unsigned k = 1; k < d->n_levels; k++)
			assert_true(d->levels[k] > d->levels[k - 1]);
		/* every default level and the neutral one are settable, and read back */
		gen_levels_neutral(&l);
		assert_true(gen_levels_get(&l, d) == d->neutral);
		for (unsigned k = 0; k < d->n_levels; k++) {
			assert_int_equal(gen_levels_set(&l, d, d->levels[k], &err), 0);
			assert_true(gen_levels_get(&l, d) == d->levels[k]);
		}
		assert_int_equal(gen_levels_set(&l, d, d->neutral, &err), 0);
		if (d->kind == GEN_DIM_CATEGORICAL)
			assert_int_equal(gen_levels_set(&l, d, d->n_levels, &err), -EINVAL);
	}
	gen_levels_neutral(&l);
	for (int h = 0; h < GEN_HOSTS; h++)
		for (int dd = 0; dd < GEN_DIRS; dd++)
			assert_int_equal(l.masks[h][dd], 0);
	assert_int_equal(l.flows, 16);
	assert_int_equal(l.subnets, 1);
	assert_int_equal(l.encap_contexts, 1);
	assert_int_equal(l.verb, TOPO_VERB_WRITE);
	assert_int_equal(l.msg_size, 65536);
	assert_int_equal(l.mtu, 4096);
	assert_int_equal(l.page_size, 2097152);
	assert_int_equal(l.popularity, GEN_POP_UNIFORM);
	assert_int_equal(l.metric, GEN_METRIC_BW);
	assert_int_equal(l.iterations, 5000);
	assert_true(l.duration_s == 0.0 && l.zipf_s == 1.0);
	assert_int_equal(gen_dimension_find("client.encap_masks")->levels[7], 128);
}

static void assign_ok(struct gen_levels *l, const char *a)
{
	struct scn_error err;

	scn_error_clear(&err);
	if (gen_levels_assign(l, a, &err) != 0)
		fail_msg("%s: %s", a, err.message);
}

static void assign_bad(const char *a, const char *want1, const char *want2)
{
	struct gen_levels l, before;
	struct scn_error err;

	gen_levels_neutral(&l);
	before = l;
	scn_error_clear(&err);
	assert_int_equal(gen_levels_assign(&l, a, &err), -EINVAL);
	assert_int_equal(err.cls, SCN_ERR_CONFIG);
	if (!strstr(err.message, want1) || (want2 && !strstr(err.message, want2)))
		fail_msg("'%s': message '%s' lacks '%s'/'%s'", a, err.message, want1,
			 want2 ? want2 : "");
	assert_memory_equal(&l, &before, sizeof(l));
}

static void test_generators_dims_assign(void **state)
{
	struct gen_levels l;

	(void)state;
	gen_levels_neutral(&l);
	assign_ok(&l, "msg_size=8K");
	assert_int_equal(l.msg_size, 8192);
	assign_ok(&l, "msg_size=8M");
	assert_int_equal(l.msg_size, 8388608);
	assign_ok(&l, " flows = 1k ");
	assert_int_equal(l.flows, 1024);
	assign_ok(&l, "page_size=4096");
	assert_int_equal(l.page_size, 4096);
	assign_ok(&l, "verb=read");
	assert_int_equal(l.verb, TOPO_VERB_READ);
	assign_ok(&l, "verb=SEND");
	assert_int_equal(l.verb, TOPO_VERB_SEND);
	assign_ok(&l, "verb=1");
	assert_int_equal(l.verb, TOPO_VERB_WRITE);
	assign_ok(&l, "popularity=zipf");
	assert_int_equal(l.popularity, GEN_POP_ZIPF);
	assign_ok(&l, "zipf_s=1.25");
	assert_true(l.zipf_s == 1.25);
	assign_ok(&l, "traffic_class=3");
	assert_int_equal(l.traffic_class, 3);
	assign_ok(&l, "server.decap_masks=20");
	assert_int_equal(l.masks[GEN_SERVER][GEN_DECAP], 20);
	assert_int_equal(l.masks[GEN_CLIENT][GEN_DECAP], 0);
	assign_ok(&l, "encap_contexts=64K");
	assert_int_equal(l.encap_contexts, 65536);
	assign_ok(&l, "duration_s=2.5");
	assert_true(l.duration_s == 2.5);

	assign_bad("mtu=1000", "mtu", "256, 512, 1024, 2048, 4096");
	assign_bad("verb=atomic", "atomic", "send, write, read");
	assign_bad("popularity=pareto", "popularity", "uniform, zipf");
	assign_bad("traffic_class=8", "traffic_class", "[0, 7]");
	assign_bad("nosuch=1", "unknown dimension 'nosuch'", "known: client.encap_masks, ");
	assign_bad("flows", "name=value", NULL);
	assign_bad("flows=abc", "flows", "abc");
	assign_bad("flows=0", "flows: 0", "[1, 1048576]");
	assign_bad("flows=1.5", "flows", "not an integer");
	assign_bad("qps=4X", "qps", "4X");
	assign_bad("page_size=5000", "page_size", "power of two");
	assign_bad("encap_contexts=0", "encap_contexts", "[1, ");
	assign_bad("client.encap_masks=769", "client.encap_masks", "769");
	assign_bad("zipf_s=-1", "zipf_s", "[0, 4]");
}

/* ---- traffic --------------------------------------------------------------------------- */

static void test_generators_zipf_weights(void **state)
{
	static const uint32_t ns[] = { 1, 10, 64, 65, 100, 1000, 16384 };
	static const double ss[] = { 0.5, 0.99999999, 1.0, 1.5, 3.0 };
	struct gen_levels l;
	struct gen_traffic t;

	(void)state;
	gen_levels_neutral(&l);
	l.flows = 100;
	gen_traffic_from_levels(&l, &t);
	assert_int_equal(t.flows, 100);
	assert_int_equal(t.msg_size, 65536);
	assert_int_equal(t.verb, TOPO_VERB_WRITE);
	assert_true(gen_flow_weight(&t, 7, 100) == 0.01);
	assert_true(gen_flow_weight(&t, 100, 100) == 0.0);
	t.popularity = GEN_POP_ZIPF;
	for (unsigned a = 0; a < sizeof(ss) / sizeof(ss[0]); a++)
		for (unsigned b = 0; b < sizeof(ns) / sizeof(ns[0]); b++) {
			uint32_t n = ns[b];
			double sum = 0, prev = 2, h = 0;

			t.zipf_s = ss[a];
			for (uint32_t i = 0; i < n; i++) {
				double w = gen_flow_weight(&t, i, n);

				assert_true(w < prev);
				prev = w;
				sum += w;
				h += pow(i + 1.0, -ss[a]);
			}
			assert_true(fabs(sum - 1.0) < 1e-9);
			{
				double *all = malloc(n * sizeof(*all));

				assert_non_null(all);
				gen_flow_weights(&t, n, all);
				for (uint32_t i = 0; i < n; i++)
					assert_true(fabs(all[i] / gen_flow_weight(&t, i, n) - 1) <
						    1e-10);
				free(all);
			}
			/* against the plainly summed normaliser */
			assert_true(fabs(gen_flow_weight(&t, 0, n) * h - 1.0) < 1e-10);
		}
}

static void check_sweep(double lo, double hi, double r, const double *want, unsigned n)
{
	double out[64];

	assert_int_equal(gen_sweep_geometric(lo, hi, r, out, 64), n);
	for (unsigned i = 0; i < n; i++)
		if (out[i] != want[i])
			fail_msg("sweep(%g,%g,%g)[%u] = %g, want %g", lo, hi, r, i, out[i], want[i]);
}

static void test_generators_sweep_geometric(void **state)
{
	static const double a[] = { 1, 2, 4, 8, 16, 32, 64, 128 };
	static const double b[] = { 1, 2, 4, 8, 16, 32, 64, 100 };
	static const double c[] = { 1, 2, 3, 5, 8, 10 };
	static const double d[] = { 16, 64, 256, 1024, 4096, 16384 };
	static const double e[] = { 5 };
	double out[3];

	(void)state;
	check_sweep(1, 128, 2, a, 8);
	check_sweep(1, 100, 2, b, 8);
	check_sweep(1, 10, 1.5, c, 6);
	check_sweep(16, 16384, 4, d, 6);
	check_sweep(5, 5, 2, e, 1);
	assert_int_equal(gen_sweep_geometric(1, 128, 2, out, 3), 8);
	assert_true(out[0] == 1 && out[1] == 2 && out[2] == 4);
	assert_int_equal(gen_sweep_geometric(1, 128, 1, out, 3), 0);
	assert_int_equal(gen_sweep_geometric(10, 1, 2, out, 3), 0);
	assert_int_equal(gen_sweep_geometric(0, 10, 2, out, 3), 0);
}

/* ---- shapes ---------------------------------------------------------------------------- */

static void test_generators_shapes_distinct(void **state)
{
	(void)state;
	assert_true(gen_shape_count(GEN_ENCAP) >= 512 && gen_shape_count(GEN_DECAP) >= 512);
	for (int d = 0; d < GEN_DIRS; d++) {
		unsigned n = gen_shape_count((enum gen_dir)d);
		struct topo_mask *m = calloc(n, sizeof(*m));
		uint32_t tun = (1u << TOPO_F_TUN_ID) | (1u << TOPO_F_TUN_DPORT);

		assert_non_null(m);
		for (unsigned i = 0; i < n; i++) {
			char buf[160];
			struct topo_mask back;

			gen_shape((enum gen_dir)d, i, &m[i]);
			assert_true(topo_mask_has(&m[i], TOPO_F_IN_PORT));
			if (d == GEN_ENCAP)
				assert_true((m[i].fields & tun) == 0);
			else
				assert_true((m[i].fields & tun) == tun);
			/* a real mask: it survives a format/parse round trip */
			topo_mask_format(&m[i], buf, sizeof(buf));
			assert_int_equal(topo_mask_parse(buf, &back, NULL), 0);
			assert_true(topo_mask_equal(&back, &m[i]));
			for (unsigned j = 0; j < i; j++)
				assert_false(topo_mask_equal(&m[i], &m[j]));
		}
		free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generators_rng_deterministic),
		cmocka_unit_test(test_generators_rng_distributions),
		cmocka_unit_test(test_generators_rng_is_gsl_taus2),
		cmocka_unit_test(test_generators_rng_gsl_distributions),
		cmocka_unit_test(test_generators_dims_registry),
		cmocka_unit_test(test_generators_dims_assign),
		cmocka_unit_test(test_generators_zipf_weights),
		cmocka_unit_test(test_generators_sweep_geometric),
		cmocka_unit_test(test_generators_shapes_distinct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
