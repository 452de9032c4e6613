/* SPDX-License-Identifier: MIT */
/*
 * hx_plan_util: the small pieces every file of the plan loader and its readers use: names of
 * strategies and metrics, finding a plan dimension, freeing a plan, and re-posting an error
 * at a YAML position. The lowest file of plan/: it calls none of the loader's files.
 */
#include "harness/plan/hx_plan_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *hx_strategy_name(enum hx_strategy s)
{
	static const char *const names[] = { "cct", "brute", "anneal" };

	return (unsigned)s < 3 ? names[s] : "unknown";
}

const char *hx_metric_name(enum gen_metric m)
{
	return m == GEN_METRIC_BW ? "bw" : m == GEN_METRIC_LAT ? "lat" : "unknown";
}

const struct hx_plan_dim *hx_plan_find_dim(const struct hx_plan *plan, const char *name)
{
	for (unsigned i = 0; plan && i < plan->n_dims; i++)
		if (!strcmp(plan->dims[i].dim->name, name))
			return &plan->dims[i];
	return NULL;
}

void hx_plan_free(struct hx_plan *plan)
{
	free(plan);
}

int hx_plan__rehome(const struct ycfg_node *n, const char *prefix, const struct scn_error *src,
		    struct scn_error *err)
{
	const char *msg = src->message;
	size_t pl = prefix ? strlen(prefix) : 0;

	if (pl && !strncmp(msg, prefix, pl) && msg[pl] == ':' && msg[pl + 1] == ' ')
		msg += pl + 2;
	if (src->key[0])
		return ycfg_error(n, err, "%s: %s", src->key, msg);
	return ycfg_error(n, err, "%s", msg);
}
