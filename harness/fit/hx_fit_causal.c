/* SPDX-License-Identifier: MIT */
/*
 * hx_fit_causal: `fit --inputs causes`: each (RNIC model, verb, metric) group is fitted on
 * the dimensions its newest campaign's causes name (res_cause_dimensions, strongest first,
 * at most two), the inputs the model phase designed its points over. A group whose causes
 * name one dimension takes as its second input the one other dimension its model-phase
 * points moved with it (res_model_varied: the flows a repaired point needed for its encap
 * contexts), so those points stay in the model. A group whose campaign stored no cause for
 * it keeps the default inputs (client.masks,server.masks).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/fit/hx_fit.h"

/* Replace group D (owned by its set) with its data on INPUTS; a no-op when they yield none. */
static int refit_group(struct res_db *db, struct hx_fit_data *d, const char *const *where,
		       const char *inputs, struct scn_error *err)
{
	struct hx_fit_set *one = NULL;
	const struct hx_fit_data *nd;
	int rc = hx_fit_collect_inputs(db, d->rnic_model, d->verb, d->metric, where, inputs,
				       &one, err);

	if (rc == 0 && (nd = hx_fit_set_at(one, 0)) != NULL && nd->n > 0) {
		free(d->x);
		free(d->y);
		*d = *nd;
		hx_fit_set_steal(one, 0);
	}
	hx_fit_set_free(one);
	return rc;
}

/* NAMES[1] (*N = 2): the one dimension D's model-phase points moved besides NAMES[0]; *N
 * stays 1 when they moved none or more than one (no input to choose). */
static int second_input(struct res_db *db, const struct hx_fit_data *d, char (*names)[64],
			unsigned *n, struct scn_error *err)
{
	char varied[2][64];
	unsigned k = 0;
	int rc = res_model_varied(db, d->campaign, d->verb, d->metric, names[0], 2, varied, &k,
				  err);

	if (rc == 0 && k == 1) {
		memcpy(names[1], varied[0], sizeof(varied[0]));
		*n = 2;
	}
	return rc;
}

int hx_fit_collect_causal(struct res_db *db, const char *rnic, const char *verb,
			  const char *metric, const char *const *where, struct hx_fit_set **out,
			  struct scn_error *err)
{
	int rc = hx_fit_collect_inputs(db, rnic, verb, metric, where, NULL, out, err);

	for (size_t i = 0; rc == 0 && i < hx_fit_set_count(*out); i++) {
		struct hx_fit_data *d = hx_fit_set_data(*out, i);
		char names[2][64], inputs[130];
		unsigned n = 0;

		rc = res_cause_dimensions(db, d->campaign, d->verb, d->metric, 2, names, &n, err);
		if (rc < 0 || n == 0)
			continue;
		if (n == 1)
			rc = second_input(db, d, names, &n, err);
		if (rc < 0)
			continue;
		snprintf(inputs, sizeof(inputs), "%s%s%s", names[0], n > 1 ? "," : "",
			 n > 1 ? names[1] : "");
		rc = refit_group(db, d, where, inputs, err);
	}
	if (rc < 0) {
		hx_fit_set_free(*out);
		*out = NULL;
	}
	return rc;
}
