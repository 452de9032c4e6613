/* SPDX-License-Identifier: MIT */
/*
 * hx_rep: writing a report folder: gather the campaign (hx_rep_data.c), draw its plots
 * (hx_rep_plot.c), compare it with a baseline campaign when asked (hx_diff.c) and write the
 * page in the format asked (hx_rep_html.c, hx_rep_md.c, hx_rep_json.c). Also the small text
 * helpers the writers share.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <json-c/json.h>

#include "harness/report/hx_rep_priv.h"

int hx_rep_format_parse(const char *name)
{
	static const char *const names[] = { "html", "md", "json" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

void hx_rep_xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		const char *esc = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;"
			: *s == '"' ? "&quot;" : *s == '\'' ? "&#39;" : NULL;

		if (esc)
			fputs(esc, f);
		else if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
			fputc(*s, f);
	}
}

const char *hx_rep_time(double t, char *buf, size_t len)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (t <= 0 || !gmtime_r(&s, &tm))
		snprintf(buf, len, "not yet");
	else
		strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
	return buf;
}

const char *hx_rep_num(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

/* The file name of plot I of a kind ("wall" -> "wall-3.svg"), counted. */
static void name_plot(char *name, size_t len, const char *kind, unsigned i, unsigned *images)
{
	snprintf(name, len, "%s-%u.svg", kind, i + 1);
	++*images;
}

static int plot_walls(struct hx_rep *r, const char *dir, unsigned *images)
{
	char title[192], ylabel[64];
	int rc = 0;

	for (unsigned i = 0; rc == 0 && i < r->n_series; i++) {
		struct hx_rep_series *s = &r->series[i];
		struct hx_plot p = { dir, s->image, title, s->dim, ylabel, false, false };

		name_plot(s->image, sizeof(s->image), "wall", i, images);
		p.logx = s->n && s->lv[0].level > 0 && s->lv[s->n - 1].level / s->lv[0].level >= 16;
		snprintf(title, sizeof(title), "%s %s along %s", s->verb, s->metric, s->dim);
		snprintf(ylabel, sizeof(ylabel), "%s (%s)", s->metric, hx_rep_unit(s->metric));
		rc = hx_plot_series(&p, s);
	}
	return rc;
}

static int plot_causes(struct hx_rep *r, const char *dir, unsigned *images)
{
	char title[320];
	int rc = 0;

	for (unsigned i = 0; rc == 0 && i < r->n_causes; i++) {
		struct hx_rep_cause *c = &r->causes[i];
		struct json_object *sens = NULL;
		struct hx_plot p = { dir, c->image, title, "", "normalised sensitivity", false,
				      true };

		if (!c->ev || !json_object_object_get_ex(c->ev, "sensitivity", &sens) ||
		    !json_object_array_length(sens))
			continue;
		name_plot(c->image, sizeof(c->image), "sensitivity", i, images);
		snprintf(title, sizeof(title), "%s %d: %s", c->c.supported ? "cause" : "suspect",
			 (int)i + 1, c->c.members);
		rc = hx_plot_sensitivity(&p, sens);
	}
	return rc;
}

/* The x axis of a model's plot: the input that varies, or "measured" (both vary). */
static void input_name(const struct hx_rep_model *m, char *buf, size_t len)
{
	const char *comma = strchr(m->m.inputs, ',');

	if (m->vary == 0)
		snprintf(buf, len, "%.*s", comma ? (int)(comma - m->m.inputs) : (int)strlen(m->m.inputs),
			 m->m.inputs);
	else if (m->vary == 1 && comma)
		snprintf(buf, len, "%s", comma + 1);
	else
		snprintf(buf, len, "%s", m->vary == 2 ? "measured" : "point");
}

static int plot_models(struct hx_rep *r, const char *dir, unsigned *images)
{
	char title[192], ylabel[64], xlabel[128];
	int rc = 0;

	for (unsigned i = 0; rc == 0 && i < r->n_models; i++) {
		struct hx_rep_model *m = &r->models[i];
		struct hx_plot p = { dir, m->image, title, "", ylabel, false, false };

		if (!m->n)
			continue;
		input_name(m, xlabel, sizeof(xlabel));
		p.xlabel = xlabel;
		name_plot(m->image, sizeof(m->image), "model", i, images);
		snprintf(title, sizeof(title), "%s %s: %s (blue), %s (green dashed)", m->m.verb,
			 m->m.metric, m->m.form, m->base_form[0] ? m->base_form : "no baseline");
		snprintf(ylabel, sizeof(ylabel), "%s (%s)", m->vary == 2 ? "predicted" : m->m.metric,
			 hx_rep_unit(m->m.metric));
		rc = hx_plot_model(&p, m);
		if (rc)
			break;
		p.name = m->resid_image;
		p.xlabel = "point";
		name_plot(m->resid_image, sizeof(m->resid_image), "residuals", i, images);
		snprintf(title, sizeof(title), "%s %s: residuals (measured - %s)", m->m.verb,
			 m->m.metric, m->m.form);
		rc = hx_plot_residuals(&p, m);
	}
	return rc;
}

int hx_rep_plots(struct hx_rep *r, const char *dir, unsigned *images, struct scn_error *err)
{
	int rc = plot_walls(r, dir, images);

	if (rc == 0)
		rc = plot_causes(r, dir, images);
	if (rc == 0)
		rc = plot_models(r, dir, images);
	if (rc)
		return scn_error_set(err, SCN_ERR_USAGE, rc, "cannot draw the plots in %s: %s", dir,
				     strerror(-rc));
	return 0;
}

static int make_dir(const char *dir, struct scn_error *err)
{
	struct stat st;

	if (mkdir(dir, 0777) == 0 || (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
		return 0;
	return scn_error_set(err, SCN_ERR_USAGE, errno == EEXIST ? -ENOTDIR : -errno,
			     "cannot make the report folder %s: %s", dir,
			     strerror(errno == EEXIST ? ENOTDIR : errno));
}

static int write_page(const struct hx_rep *r, const struct hx_rep_opts *o,
		      struct hx_rep_info *info, struct scn_error *err)
{
	static const char *const pages[] = { "index.html", "report.md", "report.json" };
	static int (*const writers[])(const struct hx_rep *, FILE *) = { hx_rep_html, hx_rep_md,
									 hx_rep_json };
	FILE *f;
	int rc;

	snprintf(info->page, sizeof(info->page), "%s/%s", o->dir, pages[o->format]);
	if (!(f = fopen(info->page, "w")))
		return scn_error_set(err, SCN_ERR_USAGE, -errno, "cannot write %s: %s", info->page,
				     strerror(errno));
	rc = writers[o->format](r, f);
	if (fclose(f) != 0 || rc < 0)
		return scn_error_set(err, SCN_ERR_USAGE, -EIO, "cannot write %s", info->page);
	return 0;
}

static int diff_section(struct hx_rep *r, const struct hx_rep_opts *o, struct scn_error *err)
{
	if (!o->base_db)
		return 0;
	r->diff = calloc(1, sizeof(*r->diff));
	if (!r->diff)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "report: out of memory");
	return hx_diff_compute(o->base_db, o->base_campaign, o->db, o->campaign, r->diff, err);
}

int hx_rep_write(const struct hx_rep_opts *o, struct hx_rep_info *info, struct scn_error *err)
{
	struct hx_rep *r = calloc(1, sizeof(*r));
	int rc;

	memset(info, 0, sizeof(*info));
	if (!r)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "report: out of memory");
	rc = make_dir(o->dir, err);
	if (rc == 0)
		rc = hx_rep_load(o->db, o->campaign, r, err);
	if (rc == 0)
		rc = diff_section(r, o, err);
	if (rc == 0 && o->format != HX_REP_JSON)
		rc = hx_rep_plots(r, o->dir, &info->images, err);
	if (rc == 0)
		rc = write_page(r, o, info, err);
	info->missing = r->n_notes;
	if (r->diff)
		hx_diff_free(r->diff);
	free(r->diff);
	hx_rep_free(r);
	free(r);
	return rc;
}
