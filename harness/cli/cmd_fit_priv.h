/* SPDX-License-Identifier: MIT */
/*
 * cmd_fit_priv: what the model commands share inside cli/ (cmd_fit.c: fit and the shared
 * option parsing; cmd_models.c: models, predict, export): their options, a model as JSON,
 * the names a hint lists.
 */
#ifndef CMD_FIT_PRIV_H
#define CMD_FIT_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/fit/hx_fit.h"
#include "harness/cli/hx_cli.h"
#include "results/res.h"

struct fit_cli {
	const char *db, *rnic, *verb, *metric, *firmware, *out, *format;
	const char *inputs;     /* --inputs X[,Y] (NULL: client.masks,server.masks) */
	const char *sign;       /* export --sign: the secret key file */
	enum fit_form forms[FIT_FORM_COUNT];
	size_t n_forms;
	unsigned long long seed;
	long long model;
	double x, y;
	bool has_x, has_y, json;
	bool force;             /* export: take models that are not valid */
	const char *at[2];      /* predict --at NAME=VALUE: the model's inputs by name */
	size_t n_at;
	const char *where[9];   /* --where DIM=LEVEL filters, NULL-terminated */
	size_t n_where;
};

/* Parse ARGV by CMD's option table into O (defaults: scalacn.db, seed 1). 0 or an exit code. */
int hx_fit_cli_parse(const char *cmd, int argc, char **argv, struct fit_cli *o);
/* "Gb/s" for bw, "us" for lat. */
const char *hx_fit_unit(const char *metric);
/* A stored model as the JSON of docs/json.md (the caller owns it). */
struct json_object *hx_fit_model_json(const struct res_model *m);

/* Distinct names, quoted and comma-separated, for a hint ("RNIC models in the store: ..."). */
struct known_names {
	char text[512];
};
void hx_names_add(struct known_names *k, const char *name);

#define FIT_OPT_DB { "db", 'd', "FILE", "results database (default: scalacn.db)", HX_COMPLETE_FILE, 0 }

#endif
