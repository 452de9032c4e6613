/* SPDX-License-Identifier: MIT */
/*
 * cmd_predict_priv: the inputs of `scalacn predict` by the model's input names
 * (cmd_predict_inputs.c), shared with cmd_models.c.
 */
#ifndef SCN_CMD_PREDICT_PRIV_H
#define SCN_CMD_PREDICT_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/cli/cmd_fit_priv.h"
#include "harness/cli/hx_cli.h"
#include "results/res_models.h"

/* A model's inputs (one or two), their names and the values asked for. */
struct predict_inputs {
	char name[2][64];
	double v[2];
	bool has[2];
	size_t n;
};

/* Resolve O's --masks-local / --masks-remote / --at against M's inputs into IN: 0, or the
 * usage error's exit code (the message printed). */
int hx_predict_inputs(const struct res_model *m, const struct fit_cli *o,
		      struct predict_inputs *in);

/* "flows 5000, server.decap_masks 64" into BUF. */
void hx_predict_inputs_text(const struct predict_inputs *in, char *buf, size_t len);

#endif
