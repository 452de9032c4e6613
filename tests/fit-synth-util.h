/* SPDX-License-Identifier: MIT */
/*
 * fit-synth-util: synthetic data for the fitting tests (test-fitting.c, test-fit-walls.c):
 * a form's response at known parameters on a grid, with seeded Gaussian noise (gsl_rng
 * mt19937, fixed seeds), so every number the tests print is reproducible.
 */
#ifndef FIT_SYNTH_UTIL_H
#define FIT_SYNTH_UTIL_H

#include <stddef.h>

#include "fitting/fit.h"

#define MAXPTS 256

struct synth {
	size_t n;
	double x[MAXPTS][2];
	double y[MAXPTS];
};

/* Grid of nx (x nx when two inputs) points from 0 step h, response from form/params plus
 * Gaussian noise with sigma = rel * mean |response| (homoscedastic, as least squares and its
 * standard errors assume). */
void synth_grid(struct synth *s, enum fit_form form, const double *p, size_t nx, double h,
		double rel, unsigned long seed);

/* The grid XS x YS (NX x NY levels) of FORM at P, each response times 1 + N(0, REL)
 * (multiplicative noise, drawn in grid order from SEED). */
void synth_levels(struct synth *s, enum fit_form form, const double *p, const double *xs,
		  size_t nx, const double *ys, size_t ny, double rel, unsigned long seed);

static inline struct fit_data data_of(const struct synth *s)
{
	return (struct fit_data){ .n = s->n, .x = (const double (*)[2])s->x, .y = s->y };
}

#endif
