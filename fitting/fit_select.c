/* SPDX-License-Identifier: MIT */
/*
 * fit_select: fit every candidate form and choose one by AICc, with cross-validation as the
 * tie-breaker between forms within 2 AICc units; writes a human-readable reason.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fitting/fit_internal.h"

#define FIT_AICC_TIE 2.0
#define FIT_CV_MARGIN 0.01
/* A candidate whose held-out mean bias is over FIT_CV_VETO times the best candidate's, and
 * FIT_CV_VETO_GAP (absolute) above it, does not predict what it was not fitted on, however
 * well it fits what it was: AICc does not choose it (BlueField-3 send latency: rbf2 at
 * AICc 4.8 below the plane, with a held-out mean bias of 4.5% against the plane's 0.59%
 * and a maximum of 45%). */
#define FIT_CV_VETO 2.0
#define FIT_CV_VETO_GAP 0.01

static bool usable(const struct fit_model *m)
{
	return m->valid && isfinite(m->q.aicc);
}

/* CV error used to break ties; NaN (no CV) counts as worst. */
static double cv_err(const struct fit_model *m)
{
	return isnan(m->q.cv_mean_bias) ? INFINITY : m->q.cv_mean_bias;
}

static size_t collect(size_t n_inputs, const enum fit_form *forms, size_t n_forms,
		      enum fit_form *cand)
{
	size_t nc = 0;

	if (forms) {
		for (size_t i = 0; i < n_forms; i++)
			cand[nc++] = forms[i];
		return nc;
	}
	/* cache2, the spillc forms (one input must be flows), walkc2, capc2 (both inputs on
	 * one host) and pipec2, the forms from cache2 on in the enum: only when asked (fit.h;
	 * the harness lists them) */
	for (unsigned f = 0; f < FIT_FORM_COUNT; f++)
		if (fit_form_get((enum fit_form)f)->n_inputs == n_inputs && f != FIT_CACHE2 &&
		    f < FIT_SPILLC2)
			cand[nc++] = (enum fit_form)f;
	return nc;
}

/* The smallest held-out mean bias of the usable candidates (INFINITY: none has one). */
static double best_cv(const struct fit_selection *s)
{
	double b = INFINITY;

	for (size_t i = 0; i < s->n_models; i++)
		if (usable(&s->models[i]))
			b = fmin(b, cv_err(&s->models[i]));
	return b;
}

/* May model M be chosen: usable, and not vetoed by cross-validation (FIT_CV_VETO) against
 * the best held-out mean bias CV0? */
static bool eligible(const struct fit_model *m, double cv0)
{
	double e = cv_err(m);

	return usable(m) && (!isfinite(cv0) || !(e > FIT_CV_VETO * cv0 && e > cv0 + FIT_CV_VETO_GAP));
}

static void choose(struct fit_selection *s)
{
	size_t best = SIZE_MAX, pick, second = SIZE_MAX;
	double cv0 = best_cv(s);

	for (size_t i = 0; i < s->n_models; i++)
		if (eligible(&s->models[i], cv0) &&
		    (best == SIZE_MAX || s->models[i].q.aicc < s->models[best].q.aicc))
			best = i;
	pick = best;
	for (size_t i = 0; i < s->n_models; i++) {
		const struct fit_model *m = &s->models[i];
		if (i == best || !eligible(m, cv0) ||
		    m->q.aicc - s->models[best].q.aicc > FIT_AICC_TIE)
			continue;
		if (cv_err(m) < cv_err(&s->models[pick]))
			pick = i;
	}
	/* CV errors within FIT_CV_MARGIN (relative) of the AICc winner's count as equal. */
	if (pick != best && !(cv_err(&s->models[pick]) <
			      (1 - FIT_CV_MARGIN) * cv_err(&s->models[best])))
		pick = best;
	s->best = pick;
	s->tie_break = pick != best;
	/* The comparison shown: against the AICc winner when CV overturned it, else the
	 * runner-up by AICc. */
	if (s->tie_break) {
		second = best;
	} else {
		for (size_t i = 0; i < s->n_models; i++)
			if (i != pick && usable(&s->models[i]) &&
			    (second == SIZE_MAX || s->models[i].q.aicc < s->models[second].q.aicc))
				second = i;
	}
	const struct fit_model *w = &s->models[pick];
	if (second == SIZE_MAX) {
		snprintf(s->reason, sizeof(s->reason), "%s won: AICc %.1f (only valid candidate)",
			 fit_form_name(w->form), w->q.aicc);
		return;
	}
	const struct fit_model *o = &s->models[second];
	if (!eligible(o, cv0) && o->q.aicc < w->q.aicc)
		snprintf(s->reason, sizeof(s->reason),
			 "%s won: AICc %.1f; %s (AICc %.1f) left out on cross-validation: held-out "
			 "mean bias %.2f%% vs the best candidate's %.2f%%", fit_form_name(w->form),
			 w->q.aicc, fit_form_name(o->form), o->q.aicc, 100 * o->q.cv_mean_bias,
			 100 * cv0);
	else if (s->tie_break)
		snprintf(s->reason, sizeof(s->reason),
			 "%s won on cross-validation: AICc %.1f vs %s %.1f (delta %.1f < %.0f), "
			 "CV mean bias %.2f%% vs %.2f%%", fit_form_name(w->form), w->q.aicc,
			 fit_form_name(o->form), o->q.aicc, w->q.aicc - o->q.aicc, FIT_AICC_TIE,
			 100 * w->q.cv_mean_bias, 100 * o->q.cv_mean_bias);
	else
		snprintf(s->reason, sizeof(s->reason), "%s won: AICc %.1f vs %s %.1f (delta %.1f)",
			 fit_form_name(w->form), w->q.aicc, fit_form_name(o->form), o->q.aicc,
			 o->q.aicc - w->q.aicc);
}

int fit_select(const struct fit_data *d, size_t n_inputs, const enum fit_form *forms,
	       size_t n_forms, const struct fit_opts *opts, struct fit_selection *out,
	       struct scn_error *err)
{
	enum fit_form cand[FIT_FORM_COUNT];
	size_t nc;
	bool any = false;

	if (!out || !d || (n_inputs != 1 && n_inputs != 2) ||
	    (forms && n_forms > FIT_FORM_COUNT))
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "fit select: need 1 or 2 inputs and <= %d forms",
				     FIT_FORM_COUNT);
	memset(out, 0, sizeof(*out));
	nc = collect(n_inputs, forms, n_forms, cand);
	for (size_t i = 0; i < nc; i++) {
		const struct fit_form_info *fi = fit_form_get(cand[i]);
		if (!fi || fi->n_inputs != n_inputs)
			return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
					     "fit select: form %s does not take %zu input(s)",
					     fit_form_name(cand[i]), n_inputs);
	}
	out->n_models = nc;
	for (size_t i = 0; i < nc; i++) {
		int rc = fit_model_fit(cand[i], d, opts, &out->models[i], NULL);
		if (rc == -ENOMEM)
			return scn_error_set(err, SCN_ERR_INTERNAL, rc, "fit select: out of memory");
		/* -EINVAL (e.g. too few points for this form) leaves the model invalid. */
		any = any || usable(&out->models[i]);
	}
	if (!any) {
		snprintf(out->reason, sizeof(out->reason),
			 "no candidate gave a valid model with a finite AICc (n = %zu)",
			 d->n);
		return scn_error_set(err, SCN_ERR_CONFIG, -EDOM, "fit select: %s", out->reason);
	}
	choose(out);
	return 0;
}
