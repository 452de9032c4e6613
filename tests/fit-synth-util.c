/* SPDX-License-Identifier: MIT */
/*
 * fit-synth-util: synthetic data for the fitting tests (fit-synth-util.h).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "tests/fit-synth-util.h"

/* Grid of nx (x nx when two inputs) points from 0 step h, response from form/params plus
 * Gaussian noise with sigma = rel * mean |response| (homoscedastic, as least squares and its
 * standard errors assume). */
void synth_grid(struct synth *s, enum fit_form form, const double *p, size_t nx, double h,
		double rel, unsigned long seed)
{
	const struct fit_form_info *fi = fit_form_get(form);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t ny = fi->n_inputs == 2 ? nx : 1;

	double mean = 0;

	gsl_rng_set(r, seed);
	s->n = 0;
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++) {
			assert_true(s->n < MAXPTS);
			s->x[s->n][0] = (double)i * h;
			s->x[s->n][1] = (double)j * h;
			s->y[s->n] = fit_form_eval(form, p, s->x[s->n]);
			mean += fabs(s->y[s->n]);
			s->n++;
		}
	mean /= (double)s->n;
	for (size_t i = 0; i < s->n; i++)
		s->y[i] += gsl_ran_gaussian(r, rel * mean);
	gsl_rng_free(r);
}

/* The grid XS x YS (NX x NY levels) of FORM at P, each response times 1 + N(0, REL)
 * (multiplicative noise, drawn in grid order from SEED). */
void synth_levels(struct synth *s, enum fit_form form, const double *p, const double *xs,
		  size_t nx, const double *ys, size_t ny, double rel, unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(r, seed);
	s->n = 0;
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++) {
			assert_true(s->n < MAXPTS);
			s->x[s->n][0] = xs[i];
			s->x[s->n][1] = ys[j];
			s->y[s->n] = fit_form_eval(form, p, s->x[s->n]) *
				     (1 + gsl_ran_gaussian(r, rel));
			s->n++;
		}
	gsl_rng_free(r);
}
