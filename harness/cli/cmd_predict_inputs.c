/* SPDX-License-Identifier: MIT */
/*
 * cmd_predict_inputs: where `scalacn predict` is asked to predict, by the names of the
 * model's inputs. A model fitted on "flows,server.decap_masks" is asked with
 * `--at flows=5000 --at server.decap_masks=64`; --masks-local / --masks-remote still give
 * the first and second input (the paper's default inputs: client and server masks). A name
 * the model does not have, an input given twice or one not given is a usage error that
 * names the model's inputs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cmd_predict_priv.h"

/* Split M's input names into IN (one or two). */
static void input_names(const struct res_model *m, struct predict_inputs *in)
{
	const char *s = m->inputs[0] ? m->inputs : "client.masks,server.masks";
	const char *comma = strchr(s, ',');
	size_t n0 = comma ? (size_t)(comma - s) : strlen(s);

	snprintf(in->name[0], sizeof(in->name[0]), "%.*s", (int)n0, s);
	snprintf(in->name[1], sizeof(in->name[1]), "%s", comma ? comma + 1 : "");
	in->n = comma && comma[1] ? 2 : 1;
}

/* Set input I of IN to V, once. */
static int set_input(const struct res_model *m, struct predict_inputs *in, size_t i, double v)
{
	if (in->has[i])
		return hx_usage_error("predict", "input %s of model #%lld is given twice",
				      in->name[i], (long long)m->id);
	in->has[i] = true;
	in->v[i] = v;
	return 0;
}

/* One --at NAME=VALUE. */
static int take_at(const struct res_model *m, const char *arg, struct predict_inputs *in)
{
	const char *eq = strchr(arg, '=');
	char *end;
	double v;

	if (!eq || eq == arg)
		return hx_usage_error("predict", "--at takes NAME=VALUE (an input of the model), "
				      "not '%s'", arg);
	v = strtod(eq + 1, &end);
	if (end == eq + 1 || *end || !isfinite(v))
		return hx_usage_error("predict", "--at %s: '%s' is not a number", arg, eq + 1);
	for (size_t i = 0; i < in->n; i++)
		if (strlen(in->name[i]) == (size_t)(eq - arg) &&
		    !strncmp(in->name[i], arg, (size_t)(eq - arg)))
			return set_input(m, in, i, v);
	return hx_usage_error("predict", "model #%lld has the inputs %s%s%s; --at %.*s names "
			      "none of them", (long long)m->id, in->name[0], in->n > 1 ? ", " : "",
			      in->n > 1 ? in->name[1] : "", (int)(eq - arg), arg);
}

int hx_predict_inputs(const struct res_model *m, const struct fit_cli *o,
		      struct predict_inputs *in)
{
	int rc = 0;

	memset(in, 0, sizeof(*in));
	input_names(m, in);
	if (o->has_x)
		rc = set_input(m, in, 0, o->x);
	if (rc == 0 && o->has_y && in->n > 1)
		rc = set_input(m, in, 1, o->y);
	else if (o->has_y) /* as before --at: a one-input model's second value is not read */
		fprintf(stderr, "scalacn predict: warning: model #%lld has one input (%s): "
			"--masks-remote %g is not used\n", (long long)m->id, in->name[0], o->y);
	for (size_t a = 0; rc == 0 && a < o->n_at; a++)
		rc = take_at(m, o->at[a], in);
	for (size_t i = 0; rc == 0 && i < in->n; i++)
		if (!in->has[i])
			rc = hx_usage_error("predict", "model #%lld needs its input %s: give --at "
					    "%s=VALUE%s", (long long)m->id, in->name[i],
					    in->name[i], i == 0 ? " (or --masks-local)"
							      : " (or --masks-remote)");
	return rc;
}

void hx_predict_inputs_text(const struct predict_inputs *in, char *buf, size_t len)
{
	if (in->n > 1)
		snprintf(buf, len, "%s %g, %s %g", in->name[0], in->v[0], in->name[1], in->v[1]);
	else
		snprintf(buf, len, "%s %g", in->name[0], in->v[0]);
}
