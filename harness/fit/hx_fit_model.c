/* SPDX-License-Identifier: MIT */
/*
 * hx_fit_model: fit one group of data: the candidate forms per metric, a single forced form,
 * and the one-varying-input case (fit the forms' restrictions, lift them back to two inputs).
 * The rules are documented in hx_fit.h.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/fit/hx_fit.h"

/* ---- Fitting ----------------------------------------------------------------------------- */

size_t hx_fit_default_forms(const char *metric, enum fit_form *forms)
{
	/* cache2 (8 parameters) is not among them: on 30 points of CX-7's send bandwidth
	 * AICc picked it over cap2 at a held-out maximum of 5.7% against cap2's 1.8%
	 * (test-fitcmd-sim); it is fitted when asked for (--form cache2). The spill forms
	 * whose walk misses a steering cache (spillc2 ..., 9-10 parameters) are, and the
	 * latency of walks past a cache (walkc2), and one walk over two inputs of one host
	 * past its cache (capc2). */
	static const enum fit_form bw[] = { FIT_RBF2, FIT_SERVICE2, FIT_PLANE, FIT_CAP2,
					     FIT_CLIFF2, FIT_CLIFF2Y, FIT_SPILL2, FIT_SPILL2Y,
					     FIT_SPILLC2, FIT_SPILLC2Y, FIT_CAPC2, FIT_SPILLT2,
					     FIT_SPILLT2Y, FIT_SPILLCT2, FIT_SPILLCT2Y, FIT_PIPEC2 };
	static const enum fit_form lat[] = { FIT_PLANE, FIT_RBF2, FIT_SERVICE2, FIT_WALK2,
					      FIT_LSPILL2, FIT_LSPILL2Y, FIT_LSPILLC2,
					      FIT_LSPILLC2Y, FIT_WALKC2, FIT_LSPILLT2,
					      FIT_LSPILLT2Y, FIT_LSPILLCT2, FIT_LSPILLCT2Y };
	size_t n = 0;

	if (metric && !strcmp(metric, "bw")) {
		memcpy(forms, bw, sizeof(bw));
		return sizeof(bw) / sizeof(bw[0]);
	}
	if (metric && !strcmp(metric, "lat")) {
		memcpy(forms, lat, sizeof(lat));
		return sizeof(lat) / sizeof(lat[0]);
	}
	for (unsigned f = 0; f < FIT_FORM_COUNT; f++)
		if (fit_form_get((enum fit_form)f)->n_inputs == 2)
			forms[n++] = (enum fit_form)f;
	return n;
}

static int fit_one(const struct hx_fit_data *d, const struct fit_data *fd, enum fit_form form,
		   const struct fit_opts *opts, struct fit_selection *sel, struct scn_error *err)
{
	struct fit_model *m = &sel->models[0];
	int rc;

	sel->n_models = 1;
	rc = fit_model_fit(form, fd, opts, m, err);
	if (rc < 0) {
		scn_error_prefix(err, "%s %s %s: ", d->rnic_model, d->verb, d->metric);
		return rc;
	}
	if (!m->valid)
		return scn_error_set(err, SCN_ERR_CONFIG, -EDOM, "%s %s %s: %s gave no model: %s",
				     d->rnic_model, d->verb, d->metric, fit_form_name(form),
				     m->message);
	sel->best = 0;
	snprintf(sel->reason, sizeof(sel->reason), "%s: the only form asked for",
		 fit_form_name(form));
	return 0;
}

/* ---- One varying input: fit in it alone, lift to the two-input form --------------------- */

/* Two-input form -> its one-input restriction (the other input's term removed). */
static int restrict_form(enum fit_form f, enum fit_form *one)
{
	switch (f) {
	case FIT_PLANE: *one = FIT_LINE; return 0;
	case FIT_RBF2: *one = FIT_RBF1; return 0;
	case FIT_SERVICE2: *one = FIT_SERVICE; return 0;
	case FIT_CAP2: *one = FIT_CAP; return 0;
	case FIT_WALK2: *one = FIT_WALK; return 0;
	default: return -EINVAL;
	}
}

/*
 * Lift a one-input model M fitted in input V (0 = x, 1 = y) to its two-input form, the other
 * input being constant C0: line [a,b] -> plane (a on V, 0 on the other, b); service [L,k] ->
 * service2 (k on V, 0 on the other); rbf1 [a,b,d,e] -> rbf2 (centre b on V, C0 on the other);
 * cap [L,c,k,s] -> cap2 (k on V, 0 on the other); walk [a,b,s] -> walk2 (b on V, 0 on the
 * other). The added parameter is fixed, not estimated: standard error and covariance 0.
 */
static void lift(struct fit_model *m, int v, double c0)
{
	static const struct {
		enum fit_form one, two;
		int map[2][4]; /* one-input parameter i -> two-input parameter, per V */
	} lifts[] = {
		{ FIT_LINE, FIT_PLANE, { { 0, 2 }, { 1, 2 } } },
		{ FIT_SERVICE, FIT_SERVICE2, { { 0, 1 }, { 0, 2 } } },
		{ FIT_RBF1, FIT_RBF2, { { 0, 1, 3, 4 }, { 0, 2, 3, 4 } } },
		{ FIT_CAP, FIT_CAP2, { { 0, 1, 2, 4 }, { 0, 1, 3, 4 } } },
		{ FIT_WALK, FIT_WALK2, { { 0, 1, 3 }, { 0, 2, 3 } } },
	};
	struct fit_model o = *m;
	size_t k = 0;

	while (k < sizeof(lifts) / sizeof(lifts[0]) - 1 && lifts[k].one != m->form)
		k++;
	assert(lifts[k].one == m->form);
	const int *map = lifts[k].map[v];
	enum fit_form two = lifts[k].two;

	m->form = two;
	m->n_params = fit_form_get(two)->n_params;
	m->n_inputs = 2;
	memset(m->params, 0, sizeof(m->params));
	memset(m->se, 0, sizeof(m->se));
	memset(m->cov, 0, sizeof(m->cov));
	for (size_t i = 0; i < o.n_params; i++) {
		m->params[map[i]] = o.params[i];
		m->se[map[i]] = o.se[i];
		for (size_t j = 0; j < o.n_params; j++)
			m->cov[map[i]][map[j]] = o.cov[i][j];
	}
	if (two == FIT_RBF2)
		m->params[2 - v] = c0; /* the centre on the constant input: b (v = 1) or c */
	m->dom_min[v] = o.dom_min[0];
	m->dom_max[v] = o.dom_max[0];
	m->dom_min[1 - v] = c0;
	m->dom_max[1 - v] = c0;
	for (unsigned i = 0; i < m->q.cv_n_worst; i++) {
		m->q.cv_worst[i].x[v] = o.q.cv_worst[i].x[0];
		m->q.cv_worst[i].x[1 - v] = c0;
	}
}

/* 0 = x varies only, 1 = y varies only, -1 = both (or neither) vary. */
static int single_varying(const struct hx_fit_data *d)
{
	bool vx = false, vy = false;

	for (size_t i = 1; i < d->n; i++) {
		vx = vx || d->x[i][0] != d->x[0][0];
		vy = vy || d->x[i][1] != d->x[0][1];
	}
	return vx == vy ? -1 : vx ? 0 : 1;
}

static int fit_single(const struct hx_fit_data *d, int v, const enum fit_form *forms,
		      size_t n_forms, const struct fit_opts *opts, struct fit_selection *sel,
		      struct scn_error *err)
{
	enum fit_form one[FIT_FORM_COUNT];
	double (*x1)[2] = malloc((d->n ? d->n : 1) * sizeof(*x1));
	struct fit_data fd = { d->n, NULL, d->y };
	char why[sizeof(sel->reason)];
	struct hx_sb sb;
	size_t n_one = 0;
	int rc;

	if (!x1)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");

	for (size_t i = 0; i < n_forms; i++) /* a candidate without a restriction drops out */
		if (restrict_form(forms[i], &one[n_one]) == 0)
			n_one++;
		else if (n_forms == 1) {
			free(x1);
			return scn_error_set(err, SCN_ERR_USAGE, -EINVAL,
					     "%s %s %s: only %s varies and form %s has no "
					     "one-input restriction", d->rnic_model, d->verb,
					     d->metric, v ? "y" : "x", fit_form_name(forms[i]));
		}
	n_forms = n_one;
	for (size_t i = 0; i < d->n; i++) {
		x1[i][0] = d->x[i][v];
		x1[i][1] = 0;
	}
	fd.x = (const double(*)[2])x1;
	rc = n_forms == 1 ? fit_one(d, &fd, one[0], opts, sel, err)
			  : fit_select(&fd, 1, one, n_forms, opts, sel, err);
	free(x1);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < sel->n_models; i++)
		if (sel->models[i].valid)
			lift(&sel->models[i], v, d->x[0][1 - v]);
	hx_sb_init(&sb, why, sizeof(why));
	hx_sb_printf(&sb, "%s; fitted in %s alone (%s masks always %g)", sel->reason,
		     v ? "y" : "x", v ? "local" : "remote", d->x[0][1 - v]);
	memcpy(sel->reason, why, sizeof(sel->reason));
	sel->reason[sizeof(sel->reason) - 1] = '\0';
	return 0;
}

/* Is input V (0 = x, 1 = y) of D the flows? The forms whose walk holds flows (spillc2 ...:
 * their probes are a walk over the masks holding that many flows) take no other input. */
static bool input_is_flows(const struct hx_fit_data *d, int v)
{
	const char *comma = strchr(d->inputs, ',');

	if (v == 0)
		return comma ? (size_t)(comma - d->inputs) == 5 && !strncmp(d->inputs, "flows", 5)
			     : !strcmp(d->inputs, "flows");
	return comma && !strcmp(comma + 1, "flows");
}

/* Are both inputs of D masks of one host ("client." or "server." both)? capc2's one walk
 * fills one host's cache with both. */
static bool inputs_one_host(const struct hx_fit_data *d)
{
	const char *comma = strchr(d->inputs, ',');

	return comma && ((!strncmp(d->inputs, "client.", 7) && !strncmp(comma + 1, "client.", 7)) ||
			 (!strncmp(d->inputs, "server.", 7) && !strncmp(comma + 1, "server.", 7)));
}

/* Leave out of FORMS (N of them, in place) the forms whose inputs are not what they
 * describe: the flows forms whose flows input is not, capc2 on inputs of two hosts. */
static size_t keep_meaningful(const struct hx_fit_data *d, enum fit_form *forms, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		bool fx = forms[i] == FIT_SPILLC2 || forms[i] == FIT_LSPILLC2 ||
			  forms[i] == FIT_SPILLCT2 || forms[i] == FIT_LSPILLCT2;
		bool fy = forms[i] == FIT_SPILLC2Y || forms[i] == FIT_LSPILLC2Y ||
			  forms[i] == FIT_SPILLCT2Y || forms[i] == FIT_LSPILLCT2Y;

		if ((!fx || input_is_flows(d, 0)) && (!fy || input_is_flows(d, 1)) &&
		    (forms[i] != FIT_CAPC2 || inputs_one_host(d)))
			forms[k++] = forms[i];
	}
	return k;
}

int hx_fit_group(const struct hx_fit_data *d, const enum fit_form *forms, size_t n_forms,
		 const struct fit_opts *opts, struct fit_selection *sel, struct scn_error *err)
{
	enum fit_form def[FIT_FORM_COUNT];
	struct fit_data fd;
	int rc = 0, v;

	if (!d || !sel)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "hx_fit_group: NULL");
	memset(sel, 0, sizeof(*sel));
	if (!forms || !n_forms) {
		n_forms = keep_meaningful(d, def, hx_fit_default_forms(d->metric, def));
		forms = def;
	}
	for (size_t i = 0; i < n_forms; i++) {
		const struct fit_form_info *fi = fit_form_get(forms[i]);

		if (!fi || fi->n_inputs != 2)
			return scn_error_set(err, SCN_ERR_USAGE, -EINVAL,
					     "form %s takes one input; a masks model takes two "
					     "(x local masks, y remote masks)",
					     fit_form_name(forms[i]));
	}
	fd.n = d->n;
	fd.x = (const double(*)[2])d->x;
	fd.y = d->y;
	v = single_varying(d);
	if (v >= 0)
		rc = fit_single(d, v, forms, n_forms, opts, sel, err);
	else if (n_forms == 1 && (rc = fit_one(d, &fd, forms[0], opts, sel, err)) < 0)
		return rc;
	else if (n_forms > 1)
		rc = fit_select(&fd, 2, forms, n_forms, opts, sel, err);
	if (rc == -EDOM && n_forms > 1)
		scn_error_set(err, SCN_ERR_CONFIG, -EDOM,
			      "%s %s %s: %s (%zu points; selection by AICc needs more points "
			      "than parameters + 2; give one form, e.g. --form plane)",
			      d->rnic_model, d->verb, d->metric, sel->reason, d->n);
	else if (rc < 0 && rc != -EDOM)
		scn_error_prefix(err, "%s %s %s: ", d->rnic_model, d->verb, d->metric);
	if (rc == 0 && fit_baseline_poly(&fd, 2, opts, &sel->baseline) == -ENOMEM)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	return rc;
}
