/* SPDX-License-Identifier: MIT */
/*
 * opt_inputs: a model's inputs by name, and feeding them from a table (scalacn-opt.h,
 * struct opt_config). A model fitted on "server.decap_masks,flows" must be fed the table's
 * masks in its first input and the table's rule count in its second; a model fitted on
 * "client.masks,server.masks" by a table of the server's receive path needs the table's
 * masks in y and the client's in x. The agent says which of its quantities is which input;
 * an input nothing feeds is an error, never a silent 0. A flows input stands for the rules
 * the model's flows put on the host (two per flow where both directions were offloaded):
 * it is fed the host's rules over the file's rules per flow there.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "optimiser/opt_model_priv.h"

static int name_ok(const char *s, size_t n)
{
	if (n == 0 || n > MODEL_MAX_NAME)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
			return 0;
	return 1;
}

int opt_inputs_parse(const char *text, char out[2][MODEL_MAX_NAME + 1])
{
	const char *comma = text ? strchr(text, ',') : NULL;
	size_t n0 = comma ? (size_t)(comma - text) : (text ? strlen(text) : 0);
	size_t n1 = comma ? strlen(comma + 1) : 0;

	if (!text || !name_ok(text, n0) || (comma && !name_ok(comma + 1, n1)))
		return -EINVAL;
	if (out) {
		memcpy(out[0], text, n0);
		out[0][n0] = '\0';
		memcpy(out[1], comma ? comma + 1 : "", n1);
		out[1][n1] = '\0';
	}
	return 0;
}

int opt_model_inputs(const struct opt_model *m, const char *verb, const char *metric,
		     const char **x, const char **y)
{
	const struct mrow *r = opt_model_row_of(m, verb, metric);

	if (!r)
		return -ENOENT;
	if (x)
		*x = r->input[0];
	if (y)
		*y = r->input[1];
	return 0;
}

const char *opt_model_list(const struct opt_model *m, char *buf, size_t len)
{
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; m && i < m->n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s/%s", i ? " " : "", m->rows[i].verb,
				      m->rows[i].metric);
	return buf;
}

int opt_config_set_input(struct opt_config *cfg, const char *name, double value)
{
	size_t n = name ? strlen(name) : 0;

	if (!cfg || n == 0 || n >= sizeof(cfg->fixed[0].name))
		return -EINVAL;
	for (unsigned i = 0; i < cfg->n_fixed; i++)
		if (!strcmp(cfg->fixed[i].name, name)) {
			cfg->fixed[i].value = value;
			return 0;
		}
	if (cfg->n_fixed >= sizeof(cfg->fixed) / sizeof(cfg->fixed[0]))
		return -ENOSPC;
	memcpy(cfg->fixed[cfg->n_fixed].name, name, n + 1);
	cfg->fixed[cfg->n_fixed++].value = value;
	return 0;
}

static const struct opt_input *fixed_of(const struct opt_config *c, const char *name)
{
	for (unsigned i = 0; i < c->n_fixed && i < 8; i++)
		if (!strcmp(c->fixed[i].name, name))
			return &c->fixed[i];
	return NULL;
}

/* Rules one flow put on the table's host where row R was measured (1 when unknown): the
 * host is the one the masks input names ("client." or else the server). */
static double host_flow_rules(const struct opt_table *t, const struct mrow *r)
{
	double v = r->flow_rules[strncmp(t->cfg.masks_input, "client.", 7) ? 1 : 0];

	return v > 0 ? v : 1;
}

/* The value of input NAME of row R with MASKS masks in the table: 0, or -EINVAL nothing
 * feeds it. A flows input is fed the host's rules (the table's, every rule being in by_id,
 * plus the fixed value's) in the flows of the model that put as many rules there. */
static int feed_one(const struct opt_table *t, const struct mrow *r, const char *name,
		    double masks, double *out)
{
	const struct opt_config *c = &t->cfg;
	const struct opt_input *f = fixed_of(c, name);

	if (!strcmp(name, c->masks_input))
		*out = masks + (f ? f->value : 0);
	else if (c->flows_input[0] && !strcmp(name, c->flows_input))
		*out = ((double)t->by_id.n + (f ? f->value : 0)) / host_flow_rules(t, r);
	else if (f)
		*out = f->value;
	else
		return -EINVAL;
	return 0;
}

int opt_inputs_feed(const struct opt_table *t, const struct opt_model *model, double masks,
		    double *x, double *y)
{
	const struct mrow *r = opt_model_row_of(model, t->cfg.verb, t->cfg.metric);
	int rc;

	if (!r)
		return -ENOENT;
	if (!t->cfg.masks_input[0]) { /* version-1 feeding */
		*x = masks;
		*y = t->cfg.remote_masks;
		return 0;
	}
	*y = 0;
	rc = feed_one(t, r, r->input[0], masks, x);
	if (rc == 0 && r->input[1][0])
		rc = feed_one(t, r, r->input[1], masks, y);
	return rc;
}

int opt_table_check_model(const struct opt_table *t, const struct opt_model *model,
			  char *err, size_t errlen)
{
	const struct mrow *r = t && model ? opt_model_row_of(model, t->cfg.verb, t->cfg.metric)
					  : NULL;
	char list[512];
	double x, y;

	if (!t || !model) {
		opt_seterr(err, errlen, "no table or no model");
		return -EINVAL;
	}
	if (!r) {
		opt_seterr(err, errlen, "the model file has no %s/%s model; it holds %s",
			   t->cfg.verb, t->cfg.metric, opt_model_list(model, list, sizeof(list)));
		return -ENOENT;
	}
	if (opt_inputs_feed(t, model, 0, &x, &y) < 0) {
		const char *bad = r->input[0];

		if (feed_one(t, r, bad, 0, &x) == 0)
			bad = r->input[1];
		opt_seterr(err, errlen, "the %s/%s model's input '%s' is not fed by this table "
			   "(it feeds masks to '%s'%s%s; give other inputs a fixed value)",
			   t->cfg.verb, t->cfg.metric, bad, t->cfg.masks_input,
			   t->cfg.flows_input[0] ? " and rules to " : "", t->cfg.flows_input);
		return -EINVAL;
	}
	return 0;
}
