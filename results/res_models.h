/* SPDX-License-Identifier: MIT */
/*
 * res_models: fitted per-RNIC performance models in the results store (table `models` of
 * schema v1, see res_schema.c).
 *
 * A row is one fitted function of one (RNIC model, firmware, verb, metric): the form's name,
 * the names of its inputs ("client.masks,server.masks"), its parameters and their standard
 * errors as JSON text, the domain it was fitted on and its quality. This module does not
 * know the fitting forms: it stores and returns the texts the caller gives (harness/fit/hx_fit
 * decides what they hold), checking only that they are valid JSON.
 *
 * Storage of the standard errors (schema v1 has no se_json column): the `params_json`
 * column holds the object {"params": <params_json>, "se": <se_json>}, built and split by
 * SQLite's JSON functions, which keep number texts byte for byte (so "%.17g" numbers round
 * trip exactly). A row written by something else whose params_json is not such an object
 * reads back with that text as params_json and "{}" as se_json.
 *
 * Ownership: structs are plain values owned by the caller; strings are copied into their
 * fixed buffers (a text longer than its buffer is refused by res_model_put with -E2BIG, and
 * truncated on read only if a foreign writer stored something longer).
 */
#ifndef RES_MODELS_H
#define RES_MODELS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/scn_error.h"
#include "results/res.h"

/*
 * One stored model. Invariants (of rows written by res_model_put): every *_json member is
 * valid JSON text; rnic_model, verb, metric and form are not empty.
 */
struct res_model {
	int64_t id;             /* filled by res_model_put */
	int64_t campaign;       /* newest campaign whose trials were used; <= 0 = none */
	char rnic_model[64];
	char firmware[64];
	char verb[8];
	char metric[8];         /* "bw", "lat" */
	char form[16];          /* "rbf2", "plane", ... (fitting/fit.h names) */
	char inputs[128];       /* comma separated input names, in parameter-formula order */
	char params_json[1024];
	char se_json[4096];     /* standard errors (and whatever else the writer needs) */
	char domain_json[1024];
	char quality_json[4096];
	bool valid;
	double created;         /* unix seconds; res_model_put sets it when 0 */
};

/* Insert M (M->id and, when 0, M->created are filled in). -EINVAL empty names or invalid
 * JSON, -E2BIG a text fills its whole buffer (not terminated), store errors otherwise. */
int res_model_put(struct res_db *db, struct res_model *m, struct scn_error *err);
/* The model with this id: 0, or -ENOENT. */
int res_model_get(struct res_db *db, int64_t id, struct res_model *out, struct scn_error *err);

/* Call CB for every model, in id order; RNIC (NULL or "" = all) restricts to one RNIC model.
 * A non-zero return of CB stops the walk and is returned. */
typedef int (*res_model_cb)(const struct res_model *m, void *ctx);
int res_model_each(struct res_db *db, const char *rnic, res_model_cb cb, void *ctx,
		   struct scn_error *err);

/* The newest valid model of (RNIC, VERB, METRIC), FIRMWARE NULL = any: 0, or -ENOENT. */
int res_model_latest(struct res_db *db, const char *rnic, const char *firmware,
		     const char *verb, const char *metric, struct res_model *out,
		     struct scn_error *err);

#endif
