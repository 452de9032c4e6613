/* SPDX-License-Identifier: MIT */
/*
 * cmd_fit: the model commands of `scalacn`: fit (fit and store per-RNIC models from the
 * trials in the store), models (list them), predict (one prediction with its interval) and
 * export (the optimiser's model file, or YAML for people). The rules live in hx_fit.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/cli/hx_cli.h"
#include "harness/fit/hx_fit.h"
#include "optimiser/scalacn-opt.h"

#define MIN_POINTS 4

struct fit_cli {
	const char *db, *rnic, *verb, *metric, *firmware, *out, *format;
	const char *inputs;     /* --inputs X[,Y] (NULL: client.masks,server.masks) */
	const char *sign;       /* export --sign: the secret key file */
	enum fit_form forms[FIT_FORM_COUNT];
	size_t n_forms;
	unsigned long long seed;
	long long model;
	double x, y;
	bool has_x, has_y, json;
	bool force;             /* export: take models that are not valid */
	const char *where[9];   /* --where DIM=LEVEL filters, NULL-terminated */
	size_t n_where;
};

static int add_where(const char *cmd, const char *arg, struct fit_cli *o)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1])
		return hx_usage_error(cmd, "--where takes DIMENSION=LEVEL, not '%s'", arg);
	if (o->n_where + 1 >= sizeof(o->where) / sizeof(o->where[0]))
		return hx_usage_error(cmd, "at most %zu --where filters",
				      sizeof(o->where) / sizeof(o->where[0]) - 1);
	o->where[o->n_where++] = arg;
	return 0;
}

static int parse_forms(const char *cmd, const char *arg, struct fit_cli *o)
{
	char buf[128], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->n_forms == FIT_FORM_COUNT || fit_form_parse(tok, &o->forms[o->n_forms]) < 0)
			return hx_usage_error(cmd, "--form takes forms among rbf2, plane, service2, cap2, walk2 "
					      "(comma separated), not '%s'", tok);
		o->n_forms++;
	}
	return 0;
}

static int parse_num(const char *cmd, const char *opt, const char *arg, double *v)
{
	char *end;

	*v = strtod(arg, &end);
	if (end == arg || *end || !isfinite(*v))
		return hx_usage_error(cmd, "%s takes a number, not '%s'", opt, arg);
	return 0;
}

static int parse_opt(const char *cmd, int c, struct fit_cli *o)
{
	char *end;

	switch (c) {
	case 'd': o->db = optarg; return 0;
	case 'r': o->rnic = optarg; return 0;
	case 'v': o->verb = optarg; return 0;
	case 'f': o->firmware = optarg; return 0;
	case 'o': o->out = optarg; return 0;
	case 'F': o->format = optarg; return 0;
	case 'S': o->sign = optarg; return 0;
	case 'J': o->json = true; return 0;
	case 'k': return parse_forms(cmd, optarg, o);
	case 'w': return add_where(cmd, optarg, o);
	case 'I': o->inputs = optarg; return 0;
	case 'X': o->force = true; return 0;
	case 'x': o->has_x = true; return parse_num(cmd, "--masks-local", optarg, &o->x);
	case 'y': o->has_y = true; return parse_num(cmd, "--masks-remote", optarg, &o->y);
	case 'm':
		if (strcmp(optarg, "bw") && strcmp(optarg, "lat"))
			return hx_usage_error(cmd, "--metric takes bw or lat, not '%s'", optarg);
		o->metric = optarg;
		return 0;
	case 's':
		o->seed = strtoull(optarg, &end, 10);
		return *end || !*optarg ? hx_usage_error(cmd, "--seed takes a number, not '%s'", optarg) : 0;
	case 'i':
		return hx_parse_id(cmd, "--model", "model", optarg, &o->model);
	default:
		return hx_usage_error(cmd, "unknown or incomplete option '%s'", optarg ? optarg : "");
	}
}

static int parse_cli(const char *cmd, int argc, char **argv, struct fit_cli *o)
{
	struct hx_args a = HX_ARGS(cmd, argc, argv);
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->db = HX_DEFAULT_DB;
	o->seed = 1;
	while ((c = hx_opt_next(&a)) != -1) {
		if (c == '?')
			return hx_bad_option(cmd, argv);
		rc = parse_opt(cmd, c, o);
		if (rc)
			return rc;
	}
	return hx_no_operands(cmd, argc, argv);
}

static const char *unit_of(const char *metric)
{
	return !strcmp(metric, "bw") ? "Gb/s" : !strcmp(metric, "lat") ? "us" : "";
}

/* ---- JSON of a stored model (fit --json, models --json) -------------------------------- */

/* A JSON text stored with the model, parsed (null when it does not parse). */
static struct json_object *stored_json(const char *text)
{
	return text && text[0] ? json_tokener_parse(text) : NULL;
}

static struct json_object *model_json(const struct res_model *m)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "id", json_object_new_int64(m->id));
	json_object_object_add(j, "campaign", json_object_new_int64(m->campaign));
	json_object_object_add(j, "rnic_model", json_object_new_string(m->rnic_model));
	json_object_object_add(j, "firmware", json_object_new_string(m->firmware));
	json_object_object_add(j, "verb", json_object_new_string(m->verb));
	json_object_object_add(j, "metric", json_object_new_string(m->metric));
	json_object_object_add(j, "form", json_object_new_string(m->form));
	json_object_object_add(j, "inputs", hx_json_list(m->inputs, false));
	json_object_object_add(j, "valid", json_object_new_boolean(m->valid));
	json_object_object_add(j, "created", json_object_new_double(m->created));
	json_object_object_add(j, "params", stored_json(m->params_json));
	json_object_object_add(j, "se", stored_json(m->se_json));
	json_object_object_add(j, "domain", stored_json(m->domain_json));
	json_object_object_add(j, "quality", stored_json(m->quality_json));
	return j;
}

/* ---- fit ----------------------------------------------------------------------------------- */

static void print_fit_text(const struct hx_fit_data *d, const struct fit_selection *sel,
			   const struct res_model *row)
{
	const struct fit_model *m = &sel->models[sel->best];
	const struct fit_form_info *fi = fit_form_get(m->form);
	const char *u = unit_of(d->metric);

	printf("%s %s %s (firmware %s): model #%lld, %s, %zu points (medians of %zu ok trials;"
	       " left out: %zu ok trials at other settings, %zu not ok)\n", d->rnic_model, d->verb,
	       d->metric, d->firmware[0] ? d->firmware : "?", (long long)row->id, fi->name, d->n,
	       d->n_trials, d->n_other, d->n_not_ok);
	if (!strcmp(d->inputs, HX_FIT_INPUTS))
		printf("  %s = %s   (x = local/client masks, y = remote/server masks)\n", d->metric,
		       fi->expr);
	else
		printf("  %s = %s   (inputs %s)\n", d->metric, fi->expr, d->inputs);
	for (size_t i = 0; i < m->n_params; i++)
		if (m->se[i] == 0)
			printf("  %-3s = %14.6g  (fixed: its input did not vary, or no point depends on it)\n",
			       fi->param_names[i], m->params[i]);
		else
			printf("  %-3s = %14.6g  +- %.3g (standard error)\n", fi->param_names[i],
			       m->params[i], m->se[i]);
	printf("  R^2 %.4f   RMSE %.4g %s   AICc %.1f\n", m->q.r2, m->q.rmse, u, m->q.aicc);
	if (m->q.cv_folds)
		printf("  %u-fold cross-validation, held-out bias: max %.2f%%  mean %.2f%%\n",
		       m->q.cv_folds, 100 * m->q.cv_max_bias, 100 * m->q.cv_mean_bias);
	printf("  why: %s\n", sel->reason);
	printf("  domain: x %g..%g, y %g..%g; other dimensions at %s\n\n", m->dom_min[0],
	       m->dom_max[0], m->dom_min[1], m->dom_max[1], d->fixed_json);
}

/* Enough distinct data for a two-input model? NULL when yes, else why not. */
static const char *why_unfit(const struct hx_fit_data *d)
{
	bool xv = false, yv = false;

	if (d->n < MIN_POINTS)
		return "fewer than 4 distinct (local, remote) mask points at one setting";
	for (size_t i = 1; i < d->n; i++) {
		xv = xv || d->x[i][0] != d->x[0][0];
		yv = yv || d->x[i][1] != d->x[0][1];
	}
	return xv || yv ? NULL : "the masks never vary";
}

/* Fit and store one group; 1 skipped, 0 stored, < 0 failed (printed). */
static int fit_group(struct res_db *db, const struct hx_fit_data *d, const struct fit_cli *o,
		     struct json_object *models)
{
	struct fit_selection *sel = calloc(1, sizeof(*sel));
	struct res_model *row = calloc(1, sizeof(*row));
	struct fit_opts fo;
	struct scn_error err;
	const char *why = why_unfit(d);
	int rc;

	if (!sel || !row) {
		free(sel);
		free(row);
		fprintf(stderr, "scalacn fit: out of memory\n");
		return -ENOMEM;
	}
	if (why) {
		fprintf(stderr, "scalacn fit: note: %s %s %s skipped: %s (%zu points)\n",
			d->rnic_model, d->verb, d->metric, why, d->n);
		free(sel);
		free(row);
		return 1;
	}
	fit_opts_default(&fo);
	fo.seed = o->seed;
	rc = hx_fit_group(d, o->n_forms ? o->forms : NULL, o->n_forms, &fo, sel, &err);
	if (rc == 0)
		rc = hx_fit_row(d, sel, row, &err);
	if (rc == 0)
		rc = res_model_put(db, row, &err);
	if (rc < 0) {
		hx_report_error(&err);
	} else if (models) {
		json_object_array_add(models, model_json(row));
	} else {
		print_fit_text(d, sel, row);
	}
	free(sel);
	free(row);
	return rc;
}

struct known_names {
	char text[512];
};

/* The distinct RNIC model names of a store, quoted: the names a hint lists. */
static void add_name(struct known_names *k, const char *name)
{
	char quoted[96];
	size_t n = strlen(k->text);

	snprintf(quoted, sizeof(quoted), "'%s'", name);
	if (!strstr(k->text, quoted) && n + strlen(quoted) + 3 < sizeof(k->text))
		snprintf(k->text + n, sizeof(k->text) - n, "%s%s", n ? ", " : "", quoted);
}

static int add_known_name(const struct res_model *m, void *ctx)
{
	add_name(ctx, m->rnic_model);
	return 0;
}

static int add_campaign_rnic(const struct res_campaign *c, void *ctx)
{
	add_name(ctx, c->rnic_model);
	return 0;
}

int hx_cmd_fit(int argc, char **argv)
{
	struct fit_cli o;
	struct res_db *db = NULL;
	struct hx_fit_set *set = NULL;
	struct scn_error err;
	size_t stored = 0, failed = 0;
	struct json_object *doc = NULL, *models = NULL;
	int rc = parse_cli("fit", argc, argv, &o);

	if (rc)
		return rc;
	for (size_t i = 0; i < o.n_forms; i++)
		if (fit_form_get(o.forms[i])->n_inputs != 2)
			return hx_usage_error("fit", "form %s takes one input; a masks model takes "
					      "two (rbf2, plane, service2, cap2, walk2)",
					      fit_form_name(o.forms[i]));
	if ((rc = hx_open_store(o.db, &db)))
		return rc;
	if (o.inputs && !strcmp(o.inputs, "causes"))
		rc = hx_fit_collect_causal(db, o.rnic, o.verb, o.metric, o.where, &set, &err);
	else
		rc = hx_fit_collect_inputs(db, o.rnic, o.verb, o.metric, o.where, o.inputs, &set,
					   &err);
	if (rc < 0) {
		res_close(db);
		return hx_report_error(&err);
	}
	if (o.json) {
		doc = hx_json_doc("fit");
		models = json_object_new_array();
		json_object_object_add(doc, "models", models);
	}
	for (size_t i = 0; i < hx_fit_set_count(set); i++) {
		rc = fit_group(db, hx_fit_set_at(set, i), &o, models);
		stored += rc == 0;
		failed += rc < 0;
	}
	if (doc)
		hx_json_emit(doc, stdout);
	hx_fit_set_free(set);
	if (stored == 0 && failed == 0) {
		struct known_names k = { "" };

		res_campaign_each(db, add_campaign_rnic, &k, NULL);
		fprintf(stderr, "scalacn fit: no model fitted: no group of ok trials%s%s%s%s%s%s with "
			"varying local and remote masks in %s (RNIC models of its campaigns: %s)\n",
			o.rnic ? " for " : "", o.rnic ? o.rnic : "", o.verb ? " verb " : "",
			o.verb ? o.verb : "", o.metric ? " metric " : "", o.metric ? o.metric : "",
			o.db, k.text[0] ? k.text : "none");
		res_close(db);
		return HX_EXIT_USAGE;
	}
	res_close(db);
	return failed ? HX_EXIT_USAGE : HX_EXIT_OK;
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
		json_object_array_add(c->models, model_json(m));
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
	int rc = parse_cli("models", argc, argv, &o);

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

static void warn_domain(const struct res_model *m, const struct fit_cli *o)
{
	struct fit_model fm;

	if (hx_fit_model_from_row(m, &fm, NULL) < 0)
		return;
	fprintf(stderr, "scalacn predict: warning: (local %g, remote %g) lies outside the fitted "
		"domain of model #%lld (local %g..%g, remote %g..%g masks): this is an "
		"extrapolation\n", o->x, o->y, (long long)m->id, fm.dom_min[0], fm.dom_max[0],
		fm.dom_min[1], fm.dom_max[1]);
}

static void print_prediction_json(const struct res_model *m, const struct fit_cli *o,
				  const struct hx_prediction *p)
{
	struct json_object *doc = hx_json_doc("predict");

	json_object_object_add(doc, "model", json_object_new_int64(m->id));
	json_object_object_add(doc, "rnic_model", json_object_new_string(m->rnic_model));
	json_object_object_add(doc, "firmware", json_object_new_string(m->firmware));
	json_object_object_add(doc, "verb", json_object_new_string(m->verb));
	json_object_object_add(doc, "metric", json_object_new_string(m->metric));
	json_object_object_add(doc, "form", json_object_new_string(m->form));
	json_object_object_add(doc, "masks_local", hx_json_num(o->x));
	json_object_object_add(doc, "masks_remote", hx_json_num(o->y));
	json_object_object_add(doc, "value", hx_json_num(p->value));
	json_object_object_add(doc, "lo", hx_json_num(p->lo));
	json_object_object_add(doc, "hi", hx_json_num(p->hi));
	json_object_object_add(doc, "in_domain", json_object_new_boolean(p->in_domain));
	hx_json_emit(doc, stdout);
}

int hx_cmd_predict(int argc, char **argv)
{
	struct fit_cli o;
	struct res_db *db = NULL;
	struct res_model *m;
	struct hx_prediction p;
	struct scn_error err;
	int rc = parse_cli("predict", argc, argv, &o);

	if (rc)
		return rc;
	if (!o.model || !o.has_x || !o.has_y)
		return hx_usage_error("predict", "needs --model ID, --masks-local X and --masks-remote Y");
	if ((rc = hx_open_store_ro(o.db, &db)))
		return rc;
	m = calloc(1, sizeof(*m));
	rc = m ? res_model_get(db, o.model, m, &err)
	       : scn_error_set(&err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	if (rc == 0)
		rc = hx_fit_predict(m, o.x, o.y, &p, &err);
	res_close(db);
	if (rc < 0) {
		free(m);
		return hx_report_error(&err);
	}
	if (!p.in_domain)
		warn_domain(m, &o);
	if (o.json)
		print_prediction_json(m, &o, &p);
	else if (isfinite(p.lo))
		printf("%s %s %s at local %g, remote %g masks: %.6g %s (95%% prediction interval "
		       "%.6g .. %.6g; model #%lld, %s)\n", m->rnic_model, m->verb, m->metric, o.x,
		       o.y, p.value, unit_of(m->metric), p.lo, p.hi, (long long)m->id, m->form);
	else
		printf("%s %s %s at local %g, remote %g masks: %.6g %s (no interval: no residual "
		       "degrees of freedom; model #%lld, %s)\n", m->rnic_model, m->verb, m->metric,
		       o.x, o.y, p.value, unit_of(m->metric), (long long)m->id, m->form);
	free(m);
	return HX_EXIT_OK;
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
	int rc = parse_cli("export", argc, argv, &o);

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
	return HX_EXIT_OK;
}

#define FIT_OPT_DB { "db", 'd', "FILE", "results database (default: scalacn.db)", HX_COMPLETE_FILE, 0 }

static const struct hx_opt fit_opts[] = {
	FIT_OPT_DB,
	{ "rnic", 'r', "MODEL", "only this RNIC model (as campaigns recorded it)", NULL, 0 },
	{ "verb", 'v', "V", "only this verb", "send write read", 0 },
	{ "metric", 'm', "M", "only bw or lat", "bw lat", 0 },
	{ "form", 'k', "F,...", "candidate forms (rbf2, plane, service2, cap2, walk2); a single\n"
	  "form is fitted alone, which works with few points (a plane through 4)", NULL, 0 },
	{ "where", 'w', "D=L", "only trials whose point has dimension D at level L (repeatable;\n"
	  "e.g. --where msg_size=2 for imported perftest -a logs)", NULL, 0 },
	{ "inputs", 'I', "X,Y", "the model's inputs: dimension names, or client.masks /\n"
	  "server.masks (a host's encap + decap masks); default client.masks,server.masks;\n"
	  "'causes': per (verb, metric) the dimensions its newest campaign's causes name", NULL, 0 },
	{ "seed", 's', "N", "seed of the fit's starts and cross-validation folds (default 1)", NULL, 0 },
	{ "json", 'J', NULL, "print the stored models as JSON (docs/json.md)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_fit = {
	"fit", "fit per-RNIC performance models from stored trials", NULL, fit_opts,
	"Fits and stores one model per (RNIC model, verb, metric) of the trials in the database.\n"
	"Inputs by default (the ScalaCN paper's): x = masks on the local (client) host =\n"
	"client.encap_masks + client.decap_masks, y = masks on the remote (server) host =\n"
	"server.encap_masks + server.decap_masks; --inputs names others, which the exported\n"
	"model file keeps so that an agent feeds each by name. Only ok trials at the most\n"
	"common setting of the other dimensions and firmware are used; the trials of one\n"
	"(x, y) count as one point, their median. Forms: rbf2, service2, plane, cap2 (bw);\n"
	"plane, rbf2, service2, walk2 (lat); chosen by AICc, cross-validation breaking ties.\n"
	"Prints per model: form, parameters with standard errors, R^2, RMSE, held-out bias\n"
	"(max, mean), why the form won, the domain.\n",
	"Exit: 0 models stored, 2 nothing to fit or a fit failed.\n",
	hx_cmd_fit,
};

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
	{ "masks-local", 'x', "X", "masks on the local (client) host", NULL, 0 },
	{ "masks-remote", 'y', "Y", "masks on the remote (server) host", NULL, 0 },
	FIT_OPT_DB,
	{ "json", 'J', NULL, "the prediction as JSON (docs/json.md)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_predict = {
	"predict", "predict a metric from a fitted model", NULL, predict_opts,
	"Prints the prediction of stored model ID at X masks on the local (client) host and Y on\n"
	"the remote (server) host, with its 95% prediction interval. Outside the fitted domain it\n"
	"warns on stderr (an extrapolation) and still exits 0.\n",
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
