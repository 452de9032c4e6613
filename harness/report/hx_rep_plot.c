/* SPDX-License-Identifier: MIT */
/*
 * hx_rep_plot: the report's plots, drawn by PLplot into SVG files (its svg device: plain
 * SVG 1.1, text as <text>, no font or file outside the image). One PLplot stream per plot,
 * created and ended here; a white page, the same few colours everywhere (palette below).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <plplot.h>

#include "harness/report/hx_rep_priv.h"

enum { C_BG = 0, C_INK, C_BLUE, C_RED, C_BAND, C_GREEN, C_ORANGE, C_GREY, C_COUNT };

static int begin(const struct hx_plot *p, double x0, double x1, double y0, double y1)
{
	static PLINT r[C_COUNT] = { 255, 0, 31, 214, 220, 44, 255, 120 };
	static PLINT g[C_COUNT] = { 255, 0, 119, 39, 220, 160, 127, 120 };
	static PLINT b[C_COUNT] = { 255, 0, 180, 40, 220, 44, 14, 120 };
	char path[1024];
	PLINT strm;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", p->dir, p->name) >= sizeof(path))
		return -ENAMETOOLONG;
	plmkstrm(&strm);
	plsdev("svg");
	plsfnam(path);
	plspage(0, 0, 720, 420, 0, 0);
	plscmap0n(C_COUNT);
	plscmap0(r, g, b, C_COUNT);
	plinit();
	if (!(x1 > x0))
		x0 -= 1, x1 += 1;
	if (!(y1 > y0))
		y0 -= 1, y1 += 1;
	plcol0(C_INK);
	plschr(0, 0.8);
	pladv(0);
	plvsta();
	plwind(x0, x1, y0, y1);
	plbox(p->bars ? "bc" : p->logx ? "bcnstl" : "bcnst", 0, 0, "bcnstv", 0, 0);
	pllab(p->xlabel, p->ylabel, p->title);
	return 0;
}

static void end(void)
{
	plend1();
}

/* Padded range of the finite values of V[0..N) and, when given, W[0..N). */
static void range(const double *v, const double *w, unsigned n, double *lo, double *hi)
{
	*lo = INFINITY, *hi = -INFINITY;
	for (unsigned i = 0; i < n; i++) {
		double a = v[i], b = w ? w[i] : v[i];

		if (isfinite(a))
			*lo = fmin(*lo, a), *hi = fmax(*hi, a);
		if (isfinite(b))
			*lo = fmin(*lo, b), *hi = fmax(*hi, b);
	}
	if (!isfinite(*lo))
		*lo = 0, *hi = 1;
	double pad = 0.08 * (*hi - *lo > 0 ? *hi - *lo : fabs(*hi) + 1);

	*lo -= pad, *hi += pad;
}

static double xval(const struct hx_plot *p, double x)
{
	return p->logx ? log10(x) : x;
}

static void band(double x0, double x1, double lo, double hi)
{
	PLFLT bx[4] = { x0, x1, x1, x0 }, by[4] = { lo, lo, hi, hi };

	plcol0(C_BAND);
	plfill(4, bx, by);
}

static void hline(double x0, double x1, double y, int col, int style)
{
	PLFLT lx[2] = { x0, x1 }, ly[2] = { y, y };

	plcol0(col);
	pllsty(style);
	plline(2, lx, ly);
	pllsty(1);
}

/* A dashed vertical line at X, its LABEL written upwards just right of it (SHIFT: the
 * x distance). */
static void vline(double x, double y0, double y1, int col, const char *label, double shift)
{
	PLFLT lx[2] = { x, x }, ly[2] = { y0, y1 };

	plcol0(col);
	pllsty(2);
	plline(2, lx, ly);
	pllsty(1);
	if (label)
		plptex(x + shift, y0 + 0.95 * (y1 - y0), 0, 1, 1.0, label);
}

int hx_plot_series(const struct hx_plot *p, const struct hx_rep_series *s)
{
	double x[HX_REP_MAX_LEVELS] = { 0 }, y[HX_REP_MAX_LEVELS] = { 0 },
		lo[HX_REP_MAX_LEVELS] = { 0 }, hi[HX_REP_MAX_LEVELS] = { 0 }, x0, x1, y0, y1;
	const struct hx_rep_stat *b = s->base;
	double bsd = b && isfinite(b->sd) ? 2 * b->sd : 0;
	unsigned n = 0;
	char label[64];
	int rc;

	for (unsigned i = 0; i < s->n; i++) {
		if (!isfinite(s->lv[i].mean) || (p->logx && s->lv[i].level <= 0))
			continue;
		x[n] = xval(p, s->lv[i].level);
		y[n] = s->lv[i].mean;
		lo[n] = y[n] - (isfinite(s->lv[i].sd) ? s->lv[i].sd : 0);
		hi[n] = y[n] + (isfinite(s->lv[i].sd) ? s->lv[i].sd : 0);
		n++;
	}
	range(x, NULL, n, &x0, &x1);
	range(lo, hi, n, &y0, &y1);
	if (b && isfinite(b->mean))
		y0 = fmin(y0, b->mean - bsd), y1 = fmax(y1, b->mean + bsd);
	y0 = fmin(y0, 0);
	if ((rc = begin(p, x0, x1, y0, y1)))
		return rc;
	if (b && isfinite(b->mean)) {
		band(x0, x1, b->mean - bsd, b->mean + bsd);
		hline(x0, x1, b->mean, C_GREY, 2);
	}
	plcol0(C_BLUE);
	plline(n, x, y);
	plerry(n, x, lo, hi);
	plpoin(n, x, y, 17);
	if (s->wall && (!p->logx || s->wall->level > 0)) {
		snprintf(label, sizeof(label), "wall %g", s->wall->level);
		vline(xval(p, s->wall->level), y0, y1, C_RED, label, 0.02 * (x1 - x0));
	}
	plcol0(C_INK);
	pllsty(1);
	end();
	return 0;
}

static double member_num(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) && !json_object_is_type(v, json_type_null)
		       ? json_object_get_double(v) : NAN;
}

static void bar(double x, double v, int col)
{
	PLFLT bx[4] = { x - 0.3, x + 0.3, x + 0.3, x - 0.3 }, by[4] = { 0, 0, v, v };

	plcol0(col);
	plfill(4, bx, by);
}

int hx_plot_sensitivity(const struct hx_plot *p, struct json_object *sens)
{
	unsigned n = sens ? (unsigned)json_object_array_length(sens) : 0, k = 0;
	double x[2 * 32], v[2 * 32], lo[2 * 32], hi[2 * 32], y0, y1;
	int rc;

	for (unsigned i = 0; i < n && k < 64; i++, k++) {
		struct json_object *d = json_object_array_get_idx(sens, i);

		x[k] = k + 1;
		v[k] = member_num(d, "sensitivity");
		lo[k] = member_num(d, "lo");
		hi[k] = member_num(d, "hi");
	}
	range(lo, hi, k, &y0, &y1);
	y0 = fmin(y0, 0), y1 = fmax(y1, 0);
	if ((rc = begin(p, 0.4, k + 0.6, y0, y1)))
		return rc;
	plschr(0, 0.6);
	for (unsigned i = 0; i < k; i++) {
		struct json_object *d = json_object_array_get_idx(sens, i), *c = NULL;
		bool cand = json_object_object_get_ex(d, "candidate", &c) && json_object_get_boolean(c);
		char label[96];

		if (isfinite(v[i]))
			bar(x[i], v[i], cand ? C_ORANGE : C_BAND);
		snprintf(label, sizeof(label), "%s %s->%s",
			 json_object_get_string(json_object_object_get(d, "dimension")),
			 json_object_get_string(json_object_object_get(d, "from")),
			 json_object_get_string(json_object_object_get(d, "to")));
		plcol0(C_INK);
		plmtex("b", i % 2 ? 3.6 : 2.4, (x[i] - 0.4) / (k + 0.2), 0.5, label);
	}
	plcol0(C_INK);
	plerry(k, x, lo, hi);
	hline(0.4, k + 0.6, 0, C_INK, 1);
	end();
	return 0;
}

/* The indices of M's points in ascending order of the input that varies. */
static void order_by_input(const struct hx_rep_model *m, unsigned *idx)
{
	for (unsigned i = 0; i < m->n; i++)
		idx[i] = i;
	for (unsigned i = 1; i < m->n; i++)
		for (unsigned j = i; j > 0 && m->x[idx[j]][m->vary] < m->x[idx[j - 1]][m->vary]; j--) {
			unsigned t = idx[j];

			idx[j] = idx[j - 1], idx[j - 1] = t;
		}
}

static int model_curve(const struct hx_plot *p, const struct hx_rep_model *m)
{
	double x[HX_REP_MAX_POINTS], y[HX_REP_MAX_POINTS], f[HX_REP_MAX_POINTS],
		g[HX_REP_MAX_POINTS], x0, x1, y0, y1;
	unsigned idx[HX_REP_MAX_POINTS];
	int rc;

	order_by_input(m, idx);
	for (unsigned i = 0; i < m->n; i++) {
		x[i] = m->x[idx[i]][m->vary];
		y[i] = m->y[idx[i]];
		f[i] = m->pred[idx[i]];
		g[i] = m->base_pred[idx[i]];
	}
	range(x, NULL, m->n, &x0, &x1);
	range(y, f, m->n, &y0, &y1);
	if ((rc = begin(p, x0, x1, y0, y1)))
		return rc;
	plcol0(C_GREEN);
	pllsty(2);
	plline(m->n, x, g);
	pllsty(1);
	plcol0(C_BLUE);
	plline(m->n, x, f);
	plcol0(C_INK);
	plpoin(m->n, x, y, 17);
	end();
	return 0;
}

/* Both inputs vary: predicted against measured, with the diagonal. */
static int model_scatter(const struct hx_plot *p, const struct hx_rep_model *m)
{
	double lo, hi;
	int rc;

	range(m->y, m->pred, m->n, &lo, &hi);
	if ((rc = begin(p, lo, hi, lo, hi)))
		return rc;
	PLFLT dx[2] = { lo, hi };

	plcol0(C_GREY);
	plline(2, dx, dx);
	plcol0(C_GREEN);
	plpoin(m->n, m->y, m->base_pred, 5);
	plcol0(C_BLUE);
	plpoin(m->n, m->y, m->pred, 17);
	end();
	return 0;
}

int hx_plot_model(const struct hx_plot *p, const struct hx_rep_model *m)
{
	return m->vary == 0 || m->vary == 1 ? model_curve(p, m) : model_scatter(p, m);
}

int hx_plot_residuals(const struct hx_plot *p, const struct hx_rep_model *m)
{
	double x[HX_REP_MAX_POINTS], r[HX_REP_MAX_POINTS], lo, hi;
	int rc;

	for (unsigned i = 0; i < m->n; i++) {
		x[i] = i + 1;
		r[i] = m->y[i] - m->pred[i];
	}
	range(r, NULL, m->n, &lo, &hi);
	lo = fmin(lo, 0), hi = fmax(hi, 0);
	if ((rc = begin(p, 0, m->n + 1, lo, hi)))
		return rc;
	hline(0, m->n + 1, 0, C_GREY, 1);
	plcol0(C_BLUE);
	plpoin(m->n, x, r, 17);
	end();
	return 0;
}
