/* SPDX-License-Identifier: MIT */
/*
 * bench-enumerate: what pruning buys. For growing component spaces (more tables, mask shapes
 * and action templates, including invalid templates) it streams every valid architecture
 * model through a counting callback and prints the valid models per second, the brute-force
 * size (log10), the valid count, brute/valid (log10), the partial models the enumerator built
 * and the peak RSS after each space (it stays flat: the enumerator keeps one model). On the
 * default space it also runs the naive reference and prints the speed-up of pruning. Last,
 * the flow paths of 100 subnets x 100 containers: valid (k*n^2) vs unconstrained (log10).
 * Prints figures only; asserts only that both enumerators agree.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench-util.h"
#include "topology/topo.h"
#include "topology/topo_enum.h"

static double now_s(void)
{
	return bench_cpu_s();
}

struct enum_job {
	struct topo_space s;
	bool naive;
	uint64_t seen;
	struct topo_enum_stats st;
};

static int count_cb(const struct topo_model *m, void *ctx);

static void enum_job_run(void *ctx)
{
	struct enum_job *j = ctx;

	j->seen = 0;
	if (j->naive)
		topo_enumerate_naive(&j->s, count_cb, &j->seen, &j->st, NULL);
	else
		topo_enumerate(&j->s, count_cb, &j->seen, &j->st, NULL);
}

static int count_cb(const struct topo_model *m, void *ctx)
{
	uint64_t *n = ctx;

	*n += m->n_tables;
	return 0;
}

static void shape(struct topo_space *s, const char *name, const char *mask)
{
	snprintf(s->shapes[s->n_shapes].name, sizeof(s->shapes[0].name), "%s", name);
	if (topo_mask_parse(mask, &s->shapes[s->n_shapes].mask, NULL) == 0)
		s->n_shapes++;
}

static void tmpl(struct topo_space *s, const char *name, unsigned n, ...)
{
	struct topo_template *t = &s->templates[s->n_templates++];
	va_list ap;

	snprintf(t->name, sizeof(t->name), "%s", name);
	t->n = (uint8_t)n;
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		t->kinds[i] = (enum topo_action_kind)va_arg(ap, int);
	va_end(ap);
}

/* Level 0 is the default space (3 tables); level 1 adds a shape and a template; level 2
 * allows 4 tables; level 3 adds the template again at 4 tables. */
static void grown_space(struct topo_space *s, unsigned level)
{
	topo_space_default(s);
	if (level == 1)
		shape(s, "dst24", "ip_dst/24");
	if (level >= 2)
		s->max_tables = 4;
	if (level == 1 || level == 3)
		tmpl(s, "fwd_vf", 1, TOPO_ACT_FWD_VF);
}

static int run_space(unsigned level)
{
	struct topo_space s;
	struct topo_enum_stats st;
	struct scn_error err;
	uint64_t seen = 0;
	double t0, dt, pruned = 0;
	long rss;
	int rc;

	grown_space(&s, level);
	{
		struct enum_job j = { .s = s };

		rss = bench_child_peak_rss_kib(enum_job_run, &j);
	}
	t0 = now_s();
	rc = topo_enumerate(&s, count_cb, &seen, &st, &err);
	dt = now_s() - t0;
	if (rc < 0) {
		fprintf(stderr, "bench-enumerate: %s\n", err.message);
		return 1;
	}
	for (int r = 0; r < TOPO_R_COUNT; r++)
		pruned += st.pruned[r];
	printf("%5u %6u %6u %6u %10.2f %12llu %9.2f %12.3g %12.3g %10.3f %9ld\n", level,
	       s.max_tables, s.n_shapes, s.n_templates, st.log10_bruteforce,
	       (unsigned long long)st.valid, st.log10_bruteforce - log10((double)st.valid),
	       (double)st.visited, (double)st.valid / dt, dt, rss);
	if (fabs(log10(pruned + (double)st.valid) - st.log10_bruteforce) > 1e-9) {
		fprintf(stderr, "bench-enumerate: valid + pruned does not add up\n");
		return 1;
	}
	return 0;
}

static int compare_naive(void)
{
	struct enum_job a = { .naive = false }, b = { .naive = true };
	struct bench_spread ta, tb;

	topo_space_default(&a.s);
	b.s = a.s;
	bench_repeat(enum_job_run, &a, 5, &ta);
	bench_repeat(enum_job_run, &b, 5, &tb);
	printf("\ndefault space, CPU median of 5 runs [min..max]: pruning %.4f s [%.4f..%.4f] "
	       "(%.3g models built), naive %.4f s [%.4f..%.4f] (%.3g built):\n"
	       "  pruning is %.1fx faster (range %.1fx..%.1fx) and builds %.1fx fewer models\n",
	       ta.median, ta.min, ta.max, (double)a.st.visited, tb.median, tb.min, tb.max,
	       (double)b.st.visited, tb.median / ta.median, tb.min / ta.max, tb.max / ta.min,
	       (double)b.st.visited / (double)a.st.visited);
	if (a.st.valid != b.st.valid || a.seen != b.seen) {
		fprintf(stderr, "bench-enumerate: pruning and naive disagree\n");
		return 1;
	}
	return 0;
}

static void flow_paths(void)
{
	struct topo_space s;
	struct topo_enum_stats st;

	topo_space_default(&s);
	s.max_tables = 1;
	s.subnets = 100;
	s.containers = 100;
	topo_enumerate(&s, NULL, NULL, &st, NULL);
	printf("\nflow paths, %u subnets x %u containers per subnet per host:\n"
	       "  valid (k*n^2)            %.0f (log10 %.2f)\n"
	       "  unconstrained (log10)    %.1f\n"
	       "  unconstrained/valid      10^%.1f\n", s.subnets, s.containers,
	       st.flow_paths_valid, log10(st.flow_paths_valid), st.log10_flow_paths_unconstrained,
	       st.log10_flow_paths_unconstrained - log10(st.flow_paths_valid));
}

int main(void)
{
	int rc = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("level tables shapes tmpls log10_brute        valid log10_b/v "
	       "      built     valid/s     time_s  rss_KiB\n");
	for (unsigned level = 0; level <= 3 && !rc; level++)
		rc = run_space(level);
	if (!rc)
		rc = compare_naive();
	flow_paths();
	return rc;
}
