/* SPDX-License-Identifier: MIT */
/*
 * fit_spill_path: the slow path of the spill forms (fit_forms_spill.c, fit_forms_spillc.c):
 * past a corner e = x0 - q d in the spilling input c (d the other input), which share s of
 * the load goes to the slow path and the load l it puts there. Two shapes of the share:
 *
 *   power  s = 1 - (e/c)^p                 block [x0, p, q, g]      l = s (c/e)^g
 *          continuous at the corner, never complete: a spill whose popular flows stay
 *          in the fast path longest (p: how fast the rest follow).
 *   table  s = 1 - clip(A (w/c - 1), 0, 1)  block [x0, w, q, g, A]   l = s (c/w)^g
 *          the share of flows whose rules come after what the table keeps: linear in 1/c
 *          (the traffic share equals the flow share when popularity does not depend on a
 *          rule's place in the insertion order), complete at c = w, and a jump at the
 *          corner when A (w/e - 1) < 1 (a table that keeps fewer rules once it overflows).
 *          The corner only says where the share starts; it takes no part in its shape, so
 *          a fit does not slide it inside the gap between two measured levels.
 *
 * g >= 0: the slow path slows as it fills. Both give the share, the load and their
 * derivatives in the block's parameters (a share's derivative in g is 0).
 */
#include <math.h>
#include <string.h>

#include "fitting/fit_internal.h"

static void power_path(double c, double d, const double *p, struct fit_spill_path *o)
{
	double e = p[0] - p[2] * d, r, w, t, lr;

	if (!(c > e) || !(e > 0))
		return;
	r = e / c;
	w = pow(r, p[1]);
	o->s = 1 - w;
	o->gs[0] = -p[1] * w / e;
	o->gs[1] = -w * log(r);
	o->gs[2] = -o->gs[0] * d;
	lr = log(c / e);
	t = exp(p[3] * lr);
	o->l = o->s * t;
	o->gl[0] = o->gs[0] * t - o->s * t * p[3] / e;
	o->gl[1] = o->gs[1] * t;
	o->gl[2] = o->gs[2] * t + o->s * t * p[3] * d / e;
	o->gl[3] = o->s * t * lr;
}

static void table_path(double c, double d, const double *p, struct fit_spill_path *o)
{
	double e = p[0] - p[2] * d, w = p[1], a = p[4], kept, lr, t;

	if (!(c > e) || !(e > 0) || !(w > 0))
		return;
	kept = a * (w / c - 1);
	o->s = kept >= 1 ? 0 : kept <= 0 ? 1 : 1 - kept;
	if (kept > 0 && kept < 1) {
		o->gs[1] = -a / c;
		o->gs[4] = -(w / c - 1);
	}
	lr = log(c / w);
	t = exp(p[3] * lr);
	o->l = o->s * t;
	o->gl[1] = o->gs[1] * t - o->l * p[3] / w;
	o->gl[3] = o->l * lr;
	o->gl[4] = o->gs[4] * t;
}

void fit_spill_path(bool table, double c, double d, const double *p, struct fit_spill_path *o)
{
	memset(o, 0, sizeof(*o));
	o->n = table ? 5 : 4;
	if (table)
		table_path(c, d, p, o);
	else
		power_path(c, d, p, o);
}
