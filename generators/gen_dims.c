/* SPDX-License-Identifier: MIT */
/*
 * gen_dims: the registry of dimensions (see gen.h), their neutral levels, default sweep levels
 * and allowed ranges, and reading/writing them in a struct gen_levels.
 *
 * Choices worth knowing (documented in the help strings too):
 *  - masks: neutral 0 (no rules of that kind), sweep 1..128, allowed 0..the shape family size.
 *  - flows: neutral 16 (a container network always carries some flows), sweep 16..16384 x2.
 *  - encap_contexts: neutral 1, sweep 1..64K; 0 ("one per flow") is not a settable level.
 *  - mtu: only the InfiniBand MTUs 256..4096; page_size: powers of two 4 KiB..1 GiB, neutral
 *    2 MiB (hugepages; smaller pages are more demanding).
 *  - traffic_class: categorical 0..7 without names (values are the class numbers).
 * Assignments ("name=value") accept K/M/G suffixes (x1024) and categorical names. Every error
 * has class config and names the dimension, the value and what is allowed.
 * The table is constant data; nothing here allocates or keeps state.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "generators/gen.h"
#include "generators/gen_shapes.h"

enum dim_type { T_U32 = 0, T_DBL, T_VERB, T_POP };
enum dim_rule { R_INT = 1, R_POW2 = 2, R_LIST = 4 };

/* One dimension: public description, where it lives in struct gen_levels, what is allowed.
 * Invariant: neutral is allowed; levels are allowed and ascending. */
struct dim_def {
	struct gen_dimension pub;
	enum dim_type type;
	size_t off;
	double min, max;
	unsigned rules;
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const double lv_masks[] = { 1, 2, 4, 8, 16, 32, 64, 128 };
static const double lv_flows[] = { 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384 };
static const double lv_subnets[] = { 1, 2, 4, 8, 16, 32, 64 };
static const double lv_ctx[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
				 8192, 16384, 32768, 65536 };
static const double lv_churn[] = { 0, 16, 64, 256, 1024, 4096, 16384 };
static const double lv_verb[] = { 0, 1, 2 };
static const double lv_msg[] = { 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
				 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576,
				 2097152, 4194304, 8388608 };
static const double lv_qps[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024 };
static const double lv_depth[] = { 16, 32, 64, 128, 256, 512, 1024 };
static const double lv_mtu[] = { 256, 512, 1024, 2048, 4096 };
static const double lv_page[] = { 4096, 65536, 2097152 };
static const double lv_tc[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
static const double lv_x64[] = { 1, 2, 4, 8, 16, 32, 64 };
static const double lv_pop[] = { 0, 1 };
static const double lv_zipf[] = { 0.5, 0.75, 1.0, 1.25, 1.5 };
static const double lv_iter[] = { 1000, 5000, 20000, 100000 };
static const double lv_dur[] = { 0, 1, 5, 10, 30 };

static const char *const nm_verb[] = { "send", "write", "read" };
static const char *const nm_pop[] = { "uniform", "zipf" };

#define LV(a) (a), ARRAY_SIZE(a)
#define OFF(m) offsetof(struct gen_levels, m)
#define MASKS(nm, h, d, help)                                                             \
	{ { nm, GEN_DIM_ORDERED, "masks", help, 0, LV(lv_masks), NULL }, T_U32,           \
	  OFF(masks[h][d]), 0, (d) == GEN_ENCAP ? GEN_ENCAP_SHAPES : GEN_DECAP_SHAPES, R_INT }

static const struct dim_def dims[] = {
	MASKS("client.encap_masks", GEN_CLIENT, GEN_ENCAP,
	      "distinct matching masks of the client's encap (send path) rules"),
	MASKS("client.decap_masks", GEN_CLIENT, GEN_DECAP,
	      "distinct matching masks of the client's decap (return path) rules"),
	MASKS("server.encap_masks", GEN_SERVER, GEN_ENCAP,
	      "distinct matching masks of the server's encap (return path) rules"),
	MASKS("server.decap_masks", GEN_SERVER, GEN_DECAP,
	      "distinct matching masks of the server's decap (receive path) rules"),
	{ { "flows", GEN_DIM_ORDERED, "flows", "offloaded flows (container pairs in a subnet)",
	    16, LV(lv_flows), NULL }, T_U32, OFF(flows), 1, 1 << 20, R_INT },
	{ { "subnets", GEN_DIM_ORDERED, "subnets", "tenant subnets (VNIs)", 1, LV(lv_subnets),
	    NULL }, T_U32, OFF(subnets), 1, 256, R_INT },
	{ { "encap_contexts", GEN_DIM_ORDERED, "contexts",
	    "distinct VXLAN encap contexts (VNI, remote VTEP) on the sender", 1, LV(lv_ctx),
	    NULL }, T_U32, OFF(encap_contexts), 1, 1 << 20, R_INT },
	{ { "rule_churn", GEN_DIM_ORDERED, "updates/s", "rule updates per second during traffic",
	    0, LV(lv_churn), NULL }, T_U32, OFF(rule_churn), 0, 1e7, R_INT },
	{ { "verb", GEN_DIM_CATEGORICAL, "", "RDMA verb", 1, LV(lv_verb), nm_verb }, T_VERB,
	  OFF(verb), 0, 2, R_INT },
	{ { "msg_size", GEN_DIM_ORDERED, "bytes", "message size", 65536, LV(lv_msg), NULL },
	  T_U32, OFF(msg_size), 1, 1 << 30, R_INT },
	{ { "qps", GEN_DIM_ORDERED, "qps", "active queue pairs", 1, LV(lv_qps), NULL }, T_U32,
	  OFF(qps), 1, 1 << 20, R_INT },
	{ { "tx_depth", GEN_DIM_ORDERED, "wqes", "send queue depth", 128, LV(lv_depth), NULL },
	  T_U32, OFF(tx_depth), 1, 1 << 16, R_INT },
	{ { "mtu", GEN_DIM_ORDERED, "bytes", "path MTU (256, 512, 1024, 2048, 4096)", 4096,
	    LV(lv_mtu), NULL }, T_U32, OFF(mtu), 256, 4096, R_INT | R_LIST },
	{ { "page_size", GEN_DIM_ORDERED, "bytes",
	    "memory registration page size (smaller is more demanding)", 2097152, LV(lv_page),
	    NULL }, T_U32, OFF(page_size), 4096, 1 << 30, R_INT | R_POW2 },
	{ { "traffic_class", GEN_DIM_CATEGORICAL, "", "traffic class 0..7", 0, LV(lv_tc), NULL },
	  T_U32, OFF(traffic_class), 0, 7, R_INT },
	{ { "uar_spread", GEN_DIM_ORDERED, "qps/page", "QPs per UAR (doorbell) page", 1,
	    LV(lv_x64), NULL }, T_U32, OFF(uar_spread), 1, 1 << 16, R_INT },
	{ { "cores", GEN_DIM_ORDERED, "cores", "cores posting work", 1, LV(lv_x64), NULL }, T_U32,
	  OFF(cores), 1, 1024, R_INT },
	{ { "popularity", GEN_DIM_CATEGORICAL, "", "flow popularity (uniform, zipf)", 0,
	    LV(lv_pop), nm_pop }, T_POP, OFF(popularity), 0, 1, R_INT },
	{ { "zipf_s", GEN_DIM_ORDERED, "", "Zipf exponent when popularity is zipf", 1.0,
	    LV(lv_zipf), NULL }, T_DBL, OFF(zipf_s), 0, 4, 0 },
	{ { "iterations", GEN_DIM_ORDERED, "iterations", "perftest -n (0: use duration_s)", 5000,
	    LV(lv_iter), NULL }, T_U32, OFF(iterations), 0, 1e9, R_INT },
	{ { "duration_s", GEN_DIM_ORDERED, "s", "perftest -D (0: use iterations)", 0, LV(lv_dur),
	    NULL }, T_DBL, OFF(duration_s), 0, 86400, 0 },
};

unsigned gen_dimension_count(void)
{
	return ARRAY_SIZE(dims);
}

const struct gen_dimension *gen_dimension_at(unsigned i)
{
	return i < ARRAY_SIZE(dims) ? &dims[i].pub : NULL;
}

const struct gen_dimension *gen_dimension_find(const char *name)
{
	for (unsigned i = 0; name && i < ARRAY_SIZE(dims); i++)
		if (strcmp(dims[i].pub.name, name) == 0)
			return &dims[i].pub;
	return NULL;
}

static const struct dim_def *def_of(const struct gen_dimension *d)
{
	for (unsigned i = 0; d && i < ARRAY_SIZE(dims); i++)
		if (&dims[i].pub == d)
			return &dims[i];
	return NULL;
}

static void store(struct gen_levels *l, const struct dim_def *dd, double v)
{
	char *p = (char *)l + dd->off;

	switch (dd->type) {
	case T_U32: *(uint32_t *)(void *)p = (uint32_t)v; break;
	case T_DBL: *(double *)(void *)p = v; break;
	case T_VERB: *(enum topo_verb *)(void *)p = (enum topo_verb)(int)v; break;
	case T_POP: *(enum gen_popularity *)(void *)p = (enum gen_popularity)(int)v; break;
	}
}

static double load(const struct gen_levels *l, const struct dim_def *dd)
{
	const char *p = (const char *)l + dd->off;

	switch (dd->type) {
	case T_U32: return *(const uint32_t *)(const void *)p;
	case T_DBL: return *(const double *)(const void *)p;
	case T_VERB: return (double)*(const enum topo_verb *)(const void *)p;
	case T_POP: return (double)*(const enum gen_popularity *)(const void *)p;
	}
	return NAN;
}

void gen_levels_neutral(struct gen_levels *l)
{
	memset(l, 0, sizeof(*l));
	for (unsigned i = 0; i < ARRAY_SIZE(dims); i++)
		store(l, &dims[i], dims[i].pub.neutral);
	l->metric = GEN_METRIC_BW;
}

static int list_error(const struct dim_def *dd, double level, struct scn_error *err)
{
	char allowed[256];
	size_t n = 0;

	allowed[0] = '\0';
	for (unsigned i = 0; i < dd->pub.n_levels && n < sizeof(allowed); i++)
		n += (size_t)snprintf(allowed + n, sizeof(allowed) - n, "%s%.10g", i ? ", " : "",
				      dd->pub.levels[i]);
	return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "%s: %.10g is not one of %s",
			     dd->pub.name, level, allowed);
}

static int check(const struct dim_def *dd, double level, struct scn_error *err)
{
	const char *name = dd->pub.name;

	if (!isfinite(level) || level < dd->min || level > dd->max)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "%s: %.10g is out of range [%.10g, %.10g]", name, level,
				     dd->min, dd->max);
	if ((dd->rules & R_INT) && level != floor(level))
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "%s: %.10g is not an integer (allowed: integers in "
				     "[%.10g, %.10g])", name, level, dd->min, dd->max);
	if ((dd->rules & R_POW2) && ((uint64_t)level & ((uint64_t)level - 1)) != 0)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "%s: %.10g is not a power of two in [%.10g, %.10g]", name,
				     level, dd->min, dd->max);
	if (dd->rules & R_LIST) {
		for (unsigned i = 0; i < dd->pub.n_levels; i++)
			if (dd->pub.levels[i] == level)
				return 0;
		return list_error(dd, level, err);
	}
	return 0;
}

int gen_levels_set(struct gen_levels *l, const struct gen_dimension *d, double level,
		   struct scn_error *err)
{
	const struct dim_def *dd = def_of(d);
	int rc;

	if (!dd)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "unknown dimension %s",
				     d && d->name ? d->name : "(null)");
	rc = check(dd, level, err);
	if (rc)
		return rc;
	store(l, dd, level);
	return 0;
}

double gen_levels_get(const struct gen_levels *l, const struct gen_dimension *d)
{
	const struct dim_def *dd = def_of(d);

	return dd ? load(l, dd) : NAN;
}
