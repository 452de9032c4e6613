/* SPDX-License-Identifier: MIT */
/*
 * hx_fit_export: write the models of one RNIC model for agents (the optimiser's SQLite model
 * file through opt_model_write, checksum inside) or for people (YAML).
 *
 * Which models: per (verb, metric), the newest valid stored model (of FIRMWARE when given).
 * Form and parameter mapping to the optimiser are documented in hx_fit.h; knee models are
 * skipped (the optimiser's knee is another shape) and reported in info->skipped_text.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/fit/hx_fit.h"
#include "optimiser/scalacn-opt.h"

#define EXPORT_MAX 64

struct pick {
	const char *rnic, *firmware;
	bool force;             /* take the newest model even when it is not valid */
	struct res_model *rows; /* one per (verb, metric), newest valid */
	size_t n;
	size_t n_invalid;       /* models left out because they are not valid */
	char invalid[512];      /* "send/bw #3: why; ..." of the newest ones left out */
};

/* Why a stored model is not exportable: not valid, or quality_json "degenerate". NULL when
 * it is exportable. */
static const char *unexportable(const struct res_model *m, int *len)
{
	const char *k = strstr(m->quality_json, "\"degenerate\":\""), *end;

	*len = 23;
	if (!m->valid)
		return "the fit did not converge";
	if (!k)
		return NULL;
	k += 14;
	end = strchr(k, '"');
	*len = end ? (int)(end - k) : 0;
	return k;
}

static void note_invalid(struct pick *p, const struct res_model *m)
{
	int n;
	const char *why = unexportable(m, &n);
	size_t o = strlen(p->invalid);

	p->n_invalid++;
	if (o >= sizeof(p->invalid) - 1)
		return;
	snprintf(p->invalid + o, sizeof(p->invalid) - o, "%s%s/%s #%lld: %.*s", o ? "; " : "",
		 m->verb, m->metric, (long long)m->id, n, why);
}

static int on_model(const struct res_model *m, void *vctx)
{
	struct pick *p = vctx;

	if (p->firmware && strcmp(p->firmware, m->firmware))
		return 0;
	int n;

	if (unexportable(m, &n) && !(p->force && m->valid)) {
		note_invalid(p, m);
		return 0;
	}
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->rows[i].verb, m->verb) && !strcmp(p->rows[i].metric, m->metric)) {
			p->rows[i] = *m; /* id order: a later row is newer */
			return 0;
		}
	if (p->n == EXPORT_MAX)
		return -E2BIG;
	p->rows[p->n++] = *m;
	return 0;
}

/* fitting form -> optimiser form; -ENOTSUP when the optimiser has no such shape. */
static int opt_form_of(enum fit_form f, enum opt_form *o)
{
	switch (f) {
	case FIT_RBF2: *o = OPT_FORM_RBF2; return 0;
	case FIT_RBF1: *o = OPT_FORM_RBF1; return 0;
	case FIT_PLANE: *o = OPT_FORM_PLANE; return 0;
	case FIT_LINE: *o = OPT_FORM_LINE; return 0;
	case FIT_SERVICE:
	case FIT_SERVICE2: *o = OPT_FORM_SERVICE; return 0;
	case FIT_CAP:
	case FIT_CAP2: *o = OPT_FORM_CAP; return 0;
	case FIT_WALK:
	case FIT_WALK2: *o = OPT_FORM_WALK; return 0;
	case FIT_CLIFF2: *o = OPT_FORM_CLIFF; return 0;
	case FIT_CLIFF2Y: *o = OPT_FORM_CLIFFY; return 0;
	case FIT_SPILL2: *o = OPT_FORM_SPILL; return 0;
	case FIT_SPILL2Y: *o = OPT_FORM_SPILLY; return 0;
	case FIT_LSPILL2: *o = OPT_FORM_LSPILL; return 0;
	case FIT_LSPILL2Y: *o = OPT_FORM_LSPILLY; return 0;
	case FIT_CACHE2: *o = OPT_FORM_CACHE; return 0;
	case FIT_SPILLC2: *o = OPT_FORM_SPILLC; return 0;
	case FIT_SPILLC2Y: *o = OPT_FORM_SPILLCY; return 0;
	case FIT_LSPILLC2: *o = OPT_FORM_LSPILLC; return 0;
	case FIT_LSPILLC2Y: *o = OPT_FORM_LSPILLCY; return 0;
	case FIT_WALKC2: *o = OPT_FORM_WALKC; return 0;
	case FIT_CAPC2: *o = OPT_FORM_CAPC; return 0;
	case FIT_PIPEC2: *o = OPT_FORM_PIPEC; return 0;
	case FIT_SPILLT2: *o = OPT_FORM_SPILLT; return 0;
	case FIT_SPILLT2Y: *o = OPT_FORM_SPILLTY; return 0;
	case FIT_LSPILLT2: *o = OPT_FORM_LSPILLT; return 0;
	case FIT_LSPILLT2Y: *o = OPT_FORM_LSPILLTY; return 0;
	case FIT_SPILLCT2: *o = OPT_FORM_SPILLCT; return 0;
	case FIT_SPILLCT2Y: *o = OPT_FORM_SPILLCTY; return 0;
	case FIT_LSPILLCT2: *o = OPT_FORM_LSPILLCT; return 0;
	case FIT_LSPILLCT2Y: *o = OPT_FORM_LSPILLCTY; return 0;
	default: return -ENOTSUP;
	}
}

/* {"model_id":..,"inputs":..,"fixed":{..},"quality":{stored quality without candidates}} */
static void export_quality(const struct res_model *r, char *buf, size_t cap)
{
	struct json_object *q = json_tokener_parse(r->quality_json);
	struct json_object *dom = json_tokener_parse(r->domain_json), *fixed = NULL;
	struct hx_sb s;

	if (q)
		json_object_object_del(q, "candidates");
	if (dom)
		json_object_object_get_ex(dom, "fixed", &fixed);
	hx_sb_init(&s, buf, cap);
	hx_sb_printf(&s, "{\"model_id\":%lld,\"firmware\":", (long long)r->id);
	hx_sb_str(&s, r->firmware);
	hx_sb_printf(&s, ",\"inputs\":");
	hx_sb_str(&s, r->inputs);
	hx_sb_printf(&s, ",\"fixed\":%s,\"quality\":%s}",
		     fixed ? json_object_to_json_string_ext(fixed, JSON_C_TO_STRING_PLAIN) : "{}",
		     q ? json_object_to_json_string_ext(q, JSON_C_TO_STRING_PLAIN) : "{}");
	json_object_put(q);
	json_object_put(dom);
	if (s.overflow)
		snprintf(buf, cap, "{\"model_id\":%lld}", (long long)r->id);
}

static void note_skip(struct hx_export_info *info, const struct res_model *r, const char *why)
{
	size_t n = strlen(info->skipped_text);

	info->skipped++;
	snprintf(info->skipped_text + n, sizeof(info->skipped_text) - n, "%s%s/%s #%lld %s (%s)",
		 n ? "; " : "", r->verb, r->metric, (long long)r->id, r->form, why);
}

/* Whether the masks of HOST's direction DIR ("encap"/"decap") were above 0 where model R was
 * measured: an input of the model, or a fixed level above 0. -1 when the stored model does
 * not say (a sum input such as "server.masks" leaves how it split unknown). */
static int side_offloaded(const char *inputs, struct json_object *fixed, const char *host,
			  const char *dir)
{
	char name[48];
	struct json_object *v;
	const char *comma = strchr(inputs, ',');
	size_t n0 = comma ? (size_t)(comma - inputs) : strlen(inputs);

	snprintf(name, sizeof(name), "%s.%s_masks", host, dir);
	if ((strlen(name) == n0 && !strncmp(inputs, name, n0)) || (comma && !strcmp(comma + 1, name)))
		return 1;
	if (!fixed || !json_object_object_get_ex(fixed, name, &v))
		return -1;
	return json_object_get_double(v) > 0;
}

/* The rules one flow put on each host where R was measured (O->flow_rules: client, server;
 * 0 when unknown): the campaign's rule generator offloads one rule per flow for each of a
 * host's directions with masks (generators/gen_rules.c), so a flows input stands for
 * flows x that many rules on the host. */
static void flow_rules_of(const struct res_model *r, struct opt_model_row *o)
{
	static const char *const hosts[2] = { "client", "server" };
	struct json_object *dom = json_tokener_parse(r->domain_json), *fixed = NULL;
	const char *inputs = r->inputs[0] ? r->inputs : HX_FIT_INPUTS;

	if (dom)
		json_object_object_get_ex(dom, "fixed", &fixed);
	for (int h = 0; h < 2; h++) {
		int e = side_offloaded(inputs, fixed, hosts[h], "encap");
		int d = side_offloaded(inputs, fixed, hosts[h], "decap");

		o->flow_rules[h] = e < 0 || d < 0 || e + d == 0 ? 0 : e + d;
	}
	json_object_put(dom);
}

/* Fill O from stored row R (strings point into R, quality into QBUF). */
static int to_opt_row(const struct res_model *r, struct opt_model_row *o, char *qbuf,
		      size_t qcap, struct scn_error *err)
{
	struct fit_model m;
	int rc = hx_fit_model_from_row(r, &m, err);

	if (rc)
		return rc;
	memset(o, 0, sizeof(*o));
	if (opt_form_of(m.form, &o->form))
		return -ENOTSUP;
	o->rnic_model = r->rnic_model;
	o->firmware = r->firmware;
	o->verb = r->verb;
	o->metric = r->metric;
	memcpy(o->params, m.params, m.n_params * sizeof(double));
	o->n_params = m.n_params;
	o->n_domain = 2 * m.n_inputs;
	for (size_t j = 0; j < m.n_inputs; j++) {
		o->domain[2 * j] = m.dom_min[j];
		o->domain[2 * j + 1] = m.dom_max[j];
	}
	export_quality(r, qbuf, qcap);
	o->quality_json = qbuf;
	o->inputs = r->inputs[0] ? r->inputs : NULL; /* the names x and y stand for */
	flow_rules_of(r, o);
	return 0;
}

#define QCAP 2048

static int write_sqlite(const struct pick *p, const char *path, struct hx_export_info *info,
			struct scn_error *err)
{
	struct opt_model_row rows[EXPORT_MAX];
	char *quality = malloc((p->n ? p->n : 1) * QCAP), msg[512];
	size_t n = 0;
	int rc = 0;

	if (!quality)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "export: out of memory");
	for (size_t i = 0; i < p->n && rc == 0; i++) {
		rc = to_opt_row(&p->rows[i], &rows[n], quality + n * QCAP, QCAP, err);
		if (rc == -ENOTSUP) {
			note_skip(info, &p->rows[i], "the optimiser has no logistic knee");
			rc = 0;
		} else if (rc == 0) {
			n++;
		}
	}
	if (rc == 0 && n == 0)
		rc = scn_error_set(err, SCN_ERR_USAGE, -ENOENT,
				   "%s: no exportable model (skipped: %s)", p->rnic,
				   info->skipped_text);
	if (rc == 0) {
		rc = opt_model_write(path, rows, n, msg, sizeof(msg));
		if (rc < 0)
			scn_error_set(err, SCN_ERR_STORE, rc, "%s", msg);
		else
			info->exported = n;
	}
	free(quality);
	return rc;
}

/* Add model R's traffic setting ("MTU 4096, 1 QP": its campaign's fixed levels, NAN
 * parts left out) to INFO->setting when it is not there yet. */
static void note_setting(struct hx_export_info *info, const struct res_model *r)
{
	struct json_object *dom = json_tokener_parse(r->domain_json), *fixed = NULL, *v;
	char one[96] = "";
	size_t n = strlen(info->setting);

	if (dom && json_object_object_get_ex(dom, "fixed", &fixed)) {
		if (json_object_object_get_ex(fixed, "mtu", &v))
			snprintf(one, sizeof(one), "MTU %g", json_object_get_double(v));
		if (json_object_object_get_ex(fixed, "qps", &v)) {
			double q = json_object_get_double(v);
			size_t l = strlen(one);

			snprintf(one + l, sizeof(one) - l, "%s%g QP%s", l ? ", " : "", q,
				 q == 1 ? "" : "s");
		}
	}
	json_object_put(dom);
	if (one[0] && !strstr(info->setting, one))
		snprintf(info->setting + n, sizeof(info->setting) - n, "%s%s", n ? "; " : "", one);
}

/* ---- YAML (for people) ---------------------------------------------------------------- */

static void yaml_params(FILE *f, const char *key, const struct fit_model *m, const double *v)
{
	const struct fit_form_info *fi = fit_form_get(m->form);

	fprintf(f, "    %s: {", key);
	for (size_t i = 0; i < m->n_params; i++) {
		if (isfinite(v[i]))
			fprintf(f, "%s%s: %.17g", i ? ", " : "", fi->param_names[i], v[i]);
		else
			fprintf(f, "%s%s: null", i ? ", " : "", fi->param_names[i]);
	}
	fprintf(f, "}\n");
}

static int yaml_model(FILE *f, const struct res_model *r, struct scn_error *err)
{
	struct fit_model m;
	enum opt_form of;
	char q[QCAP], name[96];
	struct hx_sb s;
	int rc = hx_fit_model_from_row(r, &m, err);

	if (rc)
		return rc;
	fprintf(f, "  - id: %lld\n", (long long)r->id);
	hx_sb_init(&s, name, sizeof(name));
	hx_sb_str(&s, r->firmware);
	fprintf(f, "    firmware: %s\n    verb: %s\n    metric: %s\n", name, r->verb, r->metric);
	fprintf(f, "    form: %s\n    formula: \"%s\"\n", r->form, fit_form_get(m.form)->expr);
	fprintf(f, "    exported_to_agents: %s\n", opt_form_of(m.form, &of) ? "false" : "true");
	yaml_params(f, "params", &m, m.params);
	yaml_params(f, "stderr", &m, m.se);
	fprintf(f, "    domain: {x: [%.17g, %.17g], y: [%.17g, %.17g]}\n", m.dom_min[0],
		m.dom_max[0], m.dom_min[1], m.dom_max[1]);
	export_quality(r, q, sizeof(q));
	fprintf(f, "    details: %s\n", q);
	return 0;
}

static int write_yaml(const struct pick *p, const char *path, struct hx_export_info *info,
		      struct scn_error *err)
{
	FILE *f = fopen(path, "w");
	char rnic[160];
	struct hx_sb s;
	int rc = 0;

	if (!f)
		return scn_error_set(err, SCN_ERR_USAGE, -errno, "%s: %s", path, strerror(errno));
	fprintf(f, "# scalacn per-RNIC performance models, rendered for people.\n"
		   "# Agents load the SQLite export (scalacn export --format sqlite), which carries\n"
		   "# a checksum. x = masks on the local (client) host = client.encap_masks +\n"
		   "# client.decap_masks; y = masks on the remote (server) host = server.encap_masks\n"
		   "# + server.decap_masks. bw in Gb/s, lat in microseconds.\n");
	hx_sb_init(&s, rnic, sizeof(rnic));
	hx_sb_str(&s, p->rnic);
	fprintf(f, "format: scalacn-model\nversion: 1\nrnic_model: %s\nmodels:\n", rnic);
	for (size_t i = 0; i < p->n && rc == 0; i++) {
		enum fit_form ff;

		rc = yaml_model(f, &p->rows[i], err);
		if (rc == 0 && fit_form_parse(p->rows[i].form, &ff) == 0 && ff == FIT_KNEE)
			note_skip(info, &p->rows[i], "the optimiser has no logistic knee");
	}
	info->exported = p->n - info->skipped;
	if (fclose(f) != 0 && rc == 0)
		rc = scn_error_set(err, SCN_ERR_USAGE, -EIO, "%s: write failed", path);
	return rc;
}

int hx_fit_export(struct res_db *db, const char *rnic, const char *firmware, bool force,
		  const char *path, enum hx_export_format fmt, struct hx_export_info *info,
		  struct scn_error *err)
{
	struct pick p = { .rnic = rnic, .firmware = firmware, .force = force };
	int rc;

	if (!db || !rnic || !rnic[0] || !path || !info)
		return scn_error_set(err, SCN_ERR_USAGE, -EINVAL, "export: need an RNIC model and a file");
	memset(info, 0, sizeof(*info));
	p.rows = calloc(EXPORT_MAX, sizeof(*p.rows));
	if (!p.rows)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "export: out of memory");
	rc = res_model_each(db, rnic, on_model, &p, err);
	if (rc == -E2BIG)
		rc = scn_error_set(err, SCN_ERR_USAGE, -E2BIG, "%s: more than %d (verb, metric) models",
				   rnic, EXPORT_MAX);
	if (rc == 0 && p.n == 0 && p.n_invalid)
		rc = scn_error_set(err, SCN_ERR_USAGE, -ENOENT,
				   "no exportable model for RNIC model '%s': %s (export --force takes "
				   "degenerate ones anyway)", rnic, p.invalid);
	else if (rc == 0 && p.n == 0)
		rc = scn_error_set(err, SCN_ERR_USAGE, -ENOENT,
				   "no valid model for RNIC model '%s'%s%s (run 'scalacn fit' first)",
				   rnic, firmware ? " firmware " : "", firmware ? firmware : "");
	if (rc == 0)
		rc = fmt == HX_EXPORT_YAML ? write_yaml(&p, path, info, err)
					   : write_sqlite(&p, path, info, err);
	for (size_t i = 0; rc == 0 && i < p.n; i++)
		note_setting(info, &p.rows[i]);
	free(p.rows);
	return rc;
}
