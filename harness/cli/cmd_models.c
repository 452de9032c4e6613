/* SPDX-License-Identifier: MIT */
/*
 * cmd_models: the commands that read fitted models: models (list them), predict (one
 * prediction with its interval) and export (the optimiser's model file, or YAML for people).
 * Their options are parsed as fit's (cmd_fit_priv.h); the rules live in hx_fit.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/cli/cmd_fit_priv.h"
#include "harness/cli/cmd_predict_priv.h"
#include "harness/cli/hx_cli.h"
#include "harness/fit/hx_fit.h"
#include "optimiser/scalacn-opt.h"

static int add_known_name(const struct res_model *m, void *ctx)
{
	hx_names_add(ctx, m->rnic_model);
	return 0;
}

/* ---- models -------------------------------------------------------------------------------- */

struct models_ctx {
	struct json_object *models; /* --json: the array, else NULL */
	int w_rnic, w_fw;           /* table widths (a first pass measures them) */
	bool measure;               /* the first pass */
};

static double qnum(struct json_object *q, const char *key)
{
	struct json_object *v = NULL;

	return q && json_object_object_get_ex(q, key, &v) && v ? json_object_get_double(v) : NAN;
}

static int print_model_line(const struct res_model *m, void *vctx)
{
	struct models_ctx *c = vctx;
	struct json_object *q;

	if (c->models) {
		json_object_array_add(c->models, hx_fit_model_json(m));
		return 0;
	}
	if (c->measure) {
		c->w_rnic = (int)strlen(m->rnic_model) > c->w_rnic ? (int)strlen(m->rnic_model)
								     : c->w_rnic;
		c->w_fw = (int)strlen(m->firmware) > c->w_fw ? (int)strlen(m->firmware) : c->w_fw;
		return 0;
	}
	q = json_tokener_parse(m->quality_json);
	printf("%5lld  %-*s  %-*s  %-5s  %-6s  %-8s  %5s  %6.0f  %7.4f  %15.2f%%  %s\n",
	       (long long)m->id, c->w_rnic, m->rnic_model, c->w_fw, m->firmware, m->verb,
	       m->metric, m->form, m->valid ? "yes" : "no", qnum(q, "n_points"), qnum(q, "r2"),
	       100 * qnum(q, "cv_max_bias"), m->params_json);
	{
		struct json_object *dg = NULL;

		if (json_object_object_get_ex(q, "degenerate", &dg) &&
		    json_object_is_type(dg, json_type_string))
			printf("       not exported to agents (export --force takes it): %s; inputs %s\n",
			       json_object_get_string(dg), m->inputs);
	}
	json_object_put(q);
	return 0;
}

int hx_cmd_models(int argc, char **argv)
{
	struct fit_cli o;
	struct models_ctx c = { .w_rnic = (int)strlen("RNIC model"), .w_fw = (int)strlen("firmware") };
	struct res_db *db = NULL;
	struct json_object *doc = NULL;
	struct scn_error err;
	int rc = hx_fit_cli_parse("models", argc, argv, &o);

	if (rc || (rc = hx_open_store_ro(o.db, &db)))
		return rc;
	if (o.json) {
		doc = hx_json_doc("models");
		c.models = json_object_new_array();
		json_object_object_add(doc, "models", c.models);
	} else {
		c.measure = true;
		rc = res_model_each(db, o.rnic, print_model_line, &c, &err);
		c.measure = false;
		printf("%5s  %-*s  %-*s  %-5s  %-6s  %-8s  %5s  %6s  %7s  %16s  %s\n", "id", c.w_rnic,
		       "RNIC model", c.w_fw, "firmware", "verb", "metric", "form", "valid", "points",
		       "R^2", "held-out max bias", "parameters");
	}
	if (rc == 0)
		rc = res_model_each(db, o.rnic, print_model_line, &c, &err);
	if (rc == 0 && doc)
		hx_json_emit(doc, stdout);
	else
		json_object_put(doc);
	res_close(db);
	return rc < 0 ? hx_report_error(&err) : HX_EXIT_OK;
}

/* ---- predict ------------------------------------------------------------------------------- */

static void warn_domain(const struct res_model *m, const struct predict_inputs *in)
{
	struct fit_model fm;
	char at[200], dom[200];

	if (hx_fit_model_from_row(m, &fm, NULL) < 0)
		return;
	hx_predict_inputs_text(in, at, sizeof(at));
	if (in->n > 1)
		snprintf(dom, sizeof(dom), "%s %g..%g, %s %g..%g", in->name[0], fm.dom_min[0],
			 fm.dom_max[0], in->name[1], fm.dom_min[1], fm.dom_max[1]);
	else
		snprintf(dom, sizeof(dom), "%s %g..%g", in->name[0], fm.dom_min[0], fm.dom_max[0]);
	fprintf(stderr, "scalacn predict: warning: (%s) lies outside the fitted domain of model "
		"#%lld (%s): this is an extrapolation\n", at, (long long)m->id, dom);
}

/* A model `export` refuses (quality_json "degenerate": an input that did not vary, a held-out
 * bias over the limit, a walk this scalacn no longer evaluates) still predicts: say why it
 * is not to be trusted. */
static void warn_degenerate(const struct res_model *m)
{
	struct json_object *q = json_tokener_parse(m->quality_json), *d;

	if (q && json_object_object_get_ex(q, "degenerate", &d) &&
	    json_object_is_type(d, json_type_string))
		fprintf(stderr, "scalacn predict: warning: model #%lld is not exportable: %s\n",
			(long long)m->id, json_object_get_string(d));
	json_object_put(q);
}

static void print_prediction_json(const struct res_model *m, const struct predict_inputs *in,
				  const struct hx_prediction *p)
{
	struct json_object *doc = hx_json_doc("predict"), *at = json_object_new_object();

	json_object_object_add(doc, "model", json_object_new_int64(m->id));
	json_object_object_add(doc, "rnic_model", json_object_new_string(m->rnic_model));
	json_object_object_add(doc, "firmware", json_object_new_string(m->firmware));
	json_object_object_add(doc, "verb", json_object_new_string(m->verb));
	json_object_object_add(doc, "metric", json_object_new_string(m->metric));
	json_object_object_add(doc, "form", json_object_new_string(m->form));
	for (size_t i = 0; i < in->n; i++)
		json_object_object_add(at, in->name[i], hx_json_num(in->v[i]));
	json_object_object_add(doc, "at", at);
	json_object_object_add(doc, "masks_local", hx_json_num(in->v[0]));
	json_object_object_add(doc, "masks_remote", hx_json_num(in->v[1]));
	json_object_object_add(doc, "value", hx_json_num(p->value));
	json_object_object_add(doc, "lo", hx_json_num(p->lo));
	json_object_object_add(doc, "hi", hx_json_num(p->hi));
	json_object_object_add(doc, "in_domain", json_object_new_boolean(p->in_domain));
	hx_json_emit(doc, stdout);
}

static void print_prediction(const struct res_model *m, const struct predict_inputs *in,
			     const struct hx_prediction *p)
{
	char at[200];

	hx_predict_inputs_text(in, at, sizeof(at));
	if (isfinite(p->lo))
		printf("%s %s %s at %s: %.6g %s (95%% prediction interval %.6g .. %.6g; model "
		       "#%lld, %s)\n", m->rnic_model, m->verb, m->metric, at, p->value,
		       hx_fit_unit(m->metric), p->lo, p->hi, (long long)m->id, m->form);
	else
		printf("%s %s %s at %s: %.6g %s (no interval: no residual degrees of freedom; "
		       "model #%lld, %s)\n", m->rnic_model, m->verb, m->metric, at, p->value,
		       hx_fit_unit(m->metric), (long long)m->id, m->form);
}

int hx_cmd_predict(int argc, char **argv)
{
	struct fit_cli o;
	struct res_db *db = NULL;
	struct res_model *m;
	struct hx_prediction p;
	struct predict_inputs in;
	struct scn_error err;
	int rc = hx_fit_cli_parse("predict", argc, argv, &o);

	if (rc)
		return rc;
	if (!o.model)
		return hx_usage_error("predict", "needs --model ID and the model's inputs (--at "
				      "NAME=VALUE, or --masks-local X --masks-remote Y)");
	if ((rc = hx_open_store_ro(o.db, &db)))
		return rc;
	m = calloc(1, sizeof(*m));
	rc = m ? res_model_get(db, o.model, m, &err)
	       : scn_error_set(&err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	res_close(db);
	if (rc < 0) {
		free(m);
		return hx_report_error(&err);
	}
	if ((rc = hx_predict_inputs(m, &o, &in)) == 0 &&
	    (rc = hx_fit_predict(m, in.v[0], in.v[1], &p, &err)) < 0)
		rc = hx_report_error(&err);
	if (rc == 0) {
		if (!p.in_domain)
			warn_domain(m, &in);
		warn_degenerate(m);
		if (o.json)
			print_prediction_json(m, &in, &p);
		else
			print_prediction(m, &in, &p);
	}
	free(m);
	return rc ? rc : HX_EXIT_OK;
}

/* ---- export -------------------------------------------------------------------------------- */

/* export --sign: OUT.sig, an Ed25519 signature made with the secret key in KEY. */
static int sign_export(const char *out, const char *key)
{
	char msg[600];

	if (opt_model_sign(out, key, msg, sizeof(msg)) == 0)
		return 0;
	fprintf(stderr, "scalacn export: %s\n", msg);
	return HX_EXIT_USAGE;
}

/* "no valid model for RNIC model 'X'": add the RNIC models the store has models of. */
static void name_known_models(struct res_db *db, struct scn_error *err)
{
	struct known_names k = { "" };
	size_t n = strlen(err->message);

	res_model_each(db, NULL, add_known_name, &k, NULL);
	if (n + 1 < sizeof(err->message))
		snprintf(err->message + n, sizeof(err->message) - n, "; RNIC models in the store: %.*s",
			 (int)(sizeof(err->message) - n - 1), k.text[0] ? k.text : "none");
}

int hx_cmd_export(int argc, char **argv)
{
	struct fit_cli o;
	struct res_db *db = NULL;
	struct hx_export_info info;
	struct scn_error err;
	enum hx_export_format fmt = HX_EXPORT_SQLITE;
	int rc = hx_fit_cli_parse("export", argc, argv, &o);

	if (rc)
		return rc;
	if (!o.rnic || !o.out)
		return hx_usage_error("export", "needs --rnic MODEL and -o FILE");
	if (o.format && !strcmp(o.format, "yaml"))
		fmt = HX_EXPORT_YAML;
	else if (o.format && strcmp(o.format, "sqlite"))
		return hx_usage_error("export", "--format takes sqlite or yaml, not '%s'", o.format);
	if ((rc = hx_open_store_ro(o.db, &db)))
		return rc;
	rc = hx_fit_export(db, o.rnic, o.firmware, o.force, o.out, fmt, &info, &err);
	if (rc == -ENOENT)
		name_known_models(db, &err);
	res_close(db);
	if (rc < 0)
		return hx_report_error(&err);
	if (o.sign && (rc = sign_export(o.out, o.sign)))
		return rc;
	if (info.skipped)
		fprintf(stderr, "scalacn export: note: not exported to agents: %s\n",
			info.skipped_text);
	printf("wrote %zu model%s of %s to %s (%s)%s%s%s\n", info.exported,
	       info.exported == 1 ? "" : "s", o.rnic, o.out,
	       fmt == HX_EXPORT_YAML ? "YAML, for people" : "SQLite model file, checksum inside",
	       o.sign ? ", signed: " : "", o.sign ? o.out : "", o.sign ? ".sig" : "");
	if (info.setting[0])
		printf("fitted at %s (the campaign's fixed setting): they describe traffic at it, "
		       "and an agent's should match (docs/replay.md)\n", info.setting);
	return HX_EXIT_OK;
}

static const struct hx_opt models_opts[] = {
	FIT_OPT_DB,
	{ "rnic", 'r', "MODEL", "only this RNIC model", NULL, 0 },
	{ "json", 'J', NULL, "the models as JSON (docs/json.md)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_models = {
	"models", "list fitted models", NULL, models_opts,
	"One line per stored model: id, RNIC model, firmware, verb, metric, form, valid (it\n"
	"converged, each input varied, finite standard errors, held-out bias at most 10%),\n"
	"points, R^2, held-out maximum bias and the parameters.\n",
	NULL, hx_cmd_models,
};

static const struct hx_opt predict_opts[] = {
	{ "model", 'i', "ID", "the stored model (see 'scalacn models')", NULL, 0 },
	{ "at", 'a', "NAME=V", "the model's input NAME at V (twice for two inputs; 'scalacn "
	  "models' lists each model's inputs)", NULL, 0 },
	{ "masks-local", 'x', "X", "the model's first input (by default the local (client) "
	  "host's masks)", NULL, 0 },
	{ "masks-remote", 'y', "Y", "its second input (by default the remote (server) host's "
	  "masks)", NULL, 0 },
	FIT_OPT_DB,
	{ "json", 'J', NULL, "the prediction as JSON (docs/json.md)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_predict = {
	"predict", "predict a metric from a fitted model", NULL, predict_opts,
	"Prints the prediction of stored model ID at the values of its inputs, with its 95%\n"
	"prediction interval: --at NAME=V names each input as the model does (e.g. --at\n"
	"flows=5000 --at server.decap_masks=64); --masks-local / --masks-remote give the first\n"
	"and second input (the default inputs: masks on the local and remote hosts). Outside\n"
	"the fitted domain it warns on stderr (an extrapolation) and still exits 0.\n",
	NULL, hx_cmd_predict,
};

static const struct hx_opt export_opts[] = {
	{ "rnic", 'r', "MODEL", "the RNIC model to export (as 'scalacn models' names it)", NULL, 0 },
	{ "output", 'o', "FILE", "the model file to write", HX_COMPLETE_FILE, 'o' },
	FIT_OPT_DB,
	{ "firmware", 'f', "FW", "only models of this firmware", NULL, 0 },
	{ "format", 'F', "F", "sqlite (default: the agents' model file) or yaml (for people)",
	  "sqlite yaml", 0 },
	{ "force", 'X', NULL, "export the newest model even when it is not valid", NULL, 0 },
	{ "sign", 'S', "KEY", "also write FILE.sig, an Ed25519 signature with secret key KEY",
	  HX_COMPLETE_FILE, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_export = {
	"export", "export fitted models for the runtime optimiser", NULL, export_opts,
	"Writes the newest valid model per (verb, metric) of one RNIC model (valid: it converged,\n"
	"each input varied, its standard errors are finite, its held-out bias is at most 10%;\n"
	"'scalacn models' says why one is not; --force exports the newest one anyway; the file\n"
	"names the inputs, which an agent feeds by name). sqlite (default): the\n"
	"self-contained model file agents load with opt_model_load (libscalacn-opt), checksum\n"
	"inside. yaml: a rendering for people. Knee models are not exported to agents (the\n"
	"optimiser's knee is another shape). --sign KEY also writes FILE.sig, an Ed25519\n"
	"signature with the secret key KEY (scalacn keygen): agents that load with\n"
	"opt_model_load_signed and the public key refuse unsigned or altered files. It writes\n"
	"a file, so it has no JSON form.\n",
	NULL, hx_cmd_export,
};
