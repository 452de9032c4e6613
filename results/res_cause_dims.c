/* SPDX-License-Identifier: MIT */
/*
 * res_cause_dims: the dimensions a campaign's stored causes name for one (verb, metric),
 * strongest first: each member dimension scores the sum over the causes it belongs to of
 * |effect| x confidence; ties go to the name that sorts first. The model phase designs its
 * points over these dimensions and `fit --inputs causes` fits on them, so both read the same
 * ranking from the same rows. A cause's verb and metric are read from its detail text
 * ("verb=write; metric=bw; ...", as harness/causal/hx_analysis.c writes it). A cause with
 * context members (the detail's "contexts=": message size, page size) is left out: it acts
 * only at a setting other than the one the model phase measures at (the baseline's), so its
 * other members would be inputs the model cannot see move. A cause that acts through the
 * flows (the detail's "through=flows": its points need flows past the flows' wall,
 * harness/causal/hx_through.c) is left out too: a model over it sees the flows move.
 */
#include "results/res_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 32

struct ranking {
	const char *verb, *metric;
	char name[MAX_DIMS][64];
	double score[MAX_DIMS];
	unsigned n;
};

static bool detail_says(const char *detail, const char *key, const char *value)
{
	char want[80];

	snprintf(want, sizeof(want), "%s=%s;", key, value);
	return strstr(detail, want) != NULL;
}

static void add_member(struct ranking *k, const char *name, size_t len, double score)
{
	for (unsigned i = 0; i < k->n; i++)
		if (strlen(k->name[i]) == len && !strncmp(k->name[i], name, len)) {
			k->score[i] += score;
			return;
		}
	if (k->n == MAX_DIMS || len == 0 || len >= sizeof(k->name[0]))
		return;
	memcpy(k->name[k->n], name, len);
	k->name[k->n][len] = '\0';
	k->score[k->n++] = score;
}

static int on_cause(const struct res_cause *c, void *ctx)
{
	struct ranking *k = ctx;
	double score = fabs(c->effect) * (c->confidence > 0 ? c->confidence : 0);

	if (!detail_says(c->detail, "verb", k->verb) || !detail_says(c->detail, "metric", k->metric))
		return 0;
	if (strstr(c->detail, "contexts=")) /* it acts at another setting than the models' */
		return 0;
	if (strstr(c->detail, "through=")) /* it acts by moving another dimension */
		return 0;
	for (const char *p = c->members; *p;) {
		size_t len = strcspn(p, ",");

		add_member(k, p, len, isfinite(score) ? score : 0);
		p += len + (p[len] == ',');
	}
	return 0;
}

int res_cause_dimensions(struct res_db *db, int64_t campaign, const char *verb,
			 const char *metric, unsigned max, char (*out)[64], unsigned *n,
			 struct scn_error *err)
{
	struct ranking k = { .verb = verb, .metric = metric };
	int rc = res_cause_each(db, campaign, on_cause, &k, err);

	*n = 0;
	if (rc < 0)
		return rc;
	while (*n < max && *n < k.n) { /* selection of the best remaining */
		unsigned best = 0;

		for (unsigned i = 1; i < k.n; i++)
			if (k.score[i] > k.score[best] ||
			    (k.score[i] == k.score[best] && strcmp(k.name[i], k.name[best]) < 0))
				best = i;
		snprintf(out[(*n)++], 64, "%s", k.name[best]);
		k.score[best] = -INFINITY;
		k.name[best][0] = '\x7f';
	}
	return 0;
}
