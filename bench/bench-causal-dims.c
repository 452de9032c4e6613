/* SPDX-License-Identifier: MIT */
/*
 * bench-causal-dims: how the causal analysis scales with the number of plan dimensions.
 * The first 6, 8, 10 and 12 dimensions of tests/plans/many-dims/plan.yaml, on a simulated
 * profile with planted causes (testbeds/sim/profiles/test-mixed.yaml: decap masks, flows, and
 * qps x page_size only together); the dimensions beyond the first six carry no planted cause. Each size runs
 * `scalacn compare --json` (every strategy alone, on its own trials) and prints, in one run,
 * the trials of cct and brute force, their ratio, and each one's recall of the planted
 * causes, plus cct's agreement with brute force and its confident causes that are neither
 * planted nor brute force's. Counts, not times: nothing here depends on the machine's load.
 *
 * Usage: bench-causal-dims SCALACN SOURCE_ROOT (meson passes both).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

/* The planted causes, members sorted by name and joined with ','. */
static const char *const planted[] = { "server.decap_masks", "flows", "page_size,qps" };
#define N_PLANTED (sizeof(planted) / sizeof(planted[0]))

struct strategy_result {
	long trials;
	unsigned n;
	char causes[16][160]; /* sorted member lists */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Members of cause C, sorted and joined into OUT. */
static void members_key(struct json_object *c, char *out, size_t len)
{
	struct json_object *m;
	const char *names[8];
	size_t n = 0, used = 0;

	out[0] = '\0';
	if (!json_object_object_get_ex(c, "members", &m))
		return;
	for (size_t i = 0; i < json_object_array_length(m) && n < 8; i++)
		names[n++] = json_object_get_string(json_object_array_get_idx(m, i));
	qsort(names, n, sizeof(names[0]), by_name);
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? "," : "", names[i]);
}

static bool has(const struct strategy_result *r, const char *key)
{
	for (unsigned i = 0; i < r->n; i++)
		if (!strcmp(r->causes[i], key))
			return true;
	return false;
}

static bool is_planted(const char *key)
{
	for (size_t i = 0; i < N_PLANTED; i++)
		if (!strcmp(planted[i], key))
			return true;
	return false;
}

static void read_strategy(struct json_object *s, struct strategy_result *r)
{
	struct json_object *v, *causes;

	memset(r, 0, sizeof(*r));
	if (json_object_object_get_ex(s, "trials", &v))
		r->trials = (long)json_object_get_int64(v);
	if (!json_object_object_get_ex(s, "causes", &causes))
		return;
	for (size_t i = 0; i < json_object_array_length(causes) && r->n < 16; i++)
		members_key(json_object_array_get_idx(causes, i), r->causes[r->n++],
			    sizeof(r->causes[0]));
}

/* Write PLAN_TEXT cut after its first N dimensions (one "  - name:" entry each) into DIR,
 * its testbed made absolute (TB); the path into PLAN. */
static int write_plan(const char *dir, const char *plan_text, const char *tb, unsigned n,
		      char *plan, size_t len)
{
	const char *cut = plan_text, *dims = strstr(plan_text, "\ndimensions:\n");
	FILE *f;

	if (!dims)
		return -1;
	cut = dims + 1;
	for (unsigned i = 0; i <= n && cut; i++)
		cut = strstr(cut + 1, "\n  - name:");
	snprintf(plan, len, "%s/dims%u.yaml", dir, n);
	if (!(f = fopen(plan, "w")))
		return -1;
	for (const char *l = plan_text; l < (cut ? cut + 1 : plan_text + strlen(plan_text));) {
		const char *nl = strchr(l, '\n');
		size_t k = nl ? (size_t)(nl - l) + 1 : strlen(l);

		if (!strncmp(l, "testbed:", 8))
			fprintf(f, "testbed: %s\n", tb);
		else if (!strncmp(l, "name:", 5))
			fprintf(f, "name: dims%u\n", n);
		else
			fwrite(l, 1, k, f);
		l += k;
	}
	fclose(f);
	return 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = f ? calloc(1, 1 << 16) : NULL;

	if (buf && fread(buf, 1, (1 << 16) - 1, f) == 0) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

/* Run compare on PLAN; fill BRUTE and CCT. */
static int run_compare(const char *scalacn, const char *dir, const char *plan, unsigned n,
		       struct strategy_result *brute, struct strategy_result *cct)
{
	char cmd[1024], *out = NULL;
	size_t cap = 0, len = 0, got;
	struct json_object *root, *arr;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' compare --json --db '%s/dims%u.db' '%s'", scalacn,
		 dir, n, plan);
	if (!(p = popen(cmd, "r")))
		return -1;
	do {
		if (len + 4096 + 1 > cap && !(out = realloc(out, cap = 2 * cap + 8192)))
			break;
		got = fread(out + len, 1, 4096, p);
		len += got;
	} while (got > 0);
	if (pclose(p) != 0 || !out) {
		free(out);
		return -1;
	}
	out[len] = '\0';
	root = json_tokener_parse(out);
	free(out);
	if (!root || !json_object_object_get_ex(root, "strategies", &arr)) {
		json_object_put(root);
		return -1;
	}
	for (size_t k = 0; k < json_object_array_length(arr); k++) {
		struct json_object *s = json_object_array_get_idx(arr, k), *name;

		json_object_object_get_ex(s, "strategy", &name);
		if (!strcmp(json_object_get_string(name), "brute"))
			read_strategy(s, brute);
		else if (!strcmp(json_object_get_string(name), "cct"))
			read_strategy(s, cct);
	}
	json_object_put(root);
	return 0;
}

static unsigned recall(const struct strategy_result *r)
{
	unsigned n = 0;

	for (size_t i = 0; i < N_PLANTED; i++)
		n += has(r, planted[i]);
	return n;
}

static void print_row(unsigned n, const struct strategy_result *b,
		      const struct strategy_result *c)
{
	unsigned agree = 0, wrong = 0;

	for (unsigned i = 0; i < b->n; i++)
		agree += has(c, b->causes[i]);
	for (unsigned i = 0; i < c->n; i++)
		wrong += !is_planted(c->causes[i]) && !has(b, c->causes[i]);
	printf("  %4u %12ld %10ld %9.1fx %9u/%zu %9u/%zu %10u/%u %8u\n", n, b->trials, c->trials,
	       c->trials ? (double)b->trials / (double)c->trials : 0, recall(b), N_PLANTED,
	       recall(c), N_PLANTED, agree, b->n, wrong);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/bench-causal-dims.XXXXXX", path[512], plan[512], tb[512], *text;
	static const unsigned sizes[] = { 6, 8, 10, 12 };

	if (argc != 3) {
		fprintf(stderr, "usage: %s SCALACN SOURCE_ROOT\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/tests/plans/many-dims/plan.yaml", argv[2]);
	snprintf(tb, sizeof(tb), "%s/tests/plans/many-dims/tb.yaml", argv[2]);
	if (!(text = slurp(path)) || !mkdtemp(dir)) {
		fprintf(stderr, "bench-causal-dims: cannot read %s\n", path);
		return 1;
	}
	printf("Causal analysis vs plan dimensions (tests/plans/many-dims: 3 planted causes, one "
	       "of them {qps, page_size}; write bw, 2 levels per dimension, 3 repeats):\n");
	printf("  %4s %12s %10s %10s %11s %11s %12s %8s\n", "dims", "brute trials", "cct trials",
	       "ratio", "brute recall", "cct recall", "cct=brute", "cct false");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct strategy_result b, c;

		if (write_plan(dir, text, tb, sizes[i], plan, sizeof(plan)) < 0 ||
		    run_compare(argv[1], dir, plan, sizes[i], &b, &c) < 0) {
			fprintf(stderr, "bench-causal-dims: compare failed at %u dimensions (%s)\n",
				sizes[i], dir);
			return 1;
		}
		print_row(sizes[i], &b, &c);
	}
	printf("(recall: planted causes found with exactly their members; cct=brute: brute force's "
	       "causes cct also names; cct false: cct causes neither planted nor brute force's)\n");
	free(text);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	return system(path) == 0 ? 0 : 1;
}
