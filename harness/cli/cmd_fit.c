/* SPDX-License-Identifier: MIT */
/*
 * cmd_fit: the model commands of `scalacn`: fit (fit and store per-RNIC models from the
 * trials in the store), models (list them), predict (one prediction with its interval) and
 * export (the optimiser's model file, or YAML for people). The rules live in hx_fit.h.
 */
#include <errno.h>
#include <getopt.h>
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
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },       { "rnic", required_argument, NULL, 'r' },
		{ "verb", required_argument, NULL, 'v' },     { "metric", required_argument, NULL, 'm' },
		{ "form", required_argument, NULL, 'k' },     { "seed", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'J' },           { "model", required_argument, NULL, 'i' },
		{ "masks-local", required_argument, NULL, 'x' },
		{ "masks-remote", required_argument, NULL, 'y' },
		{ "firmware", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'F' },   { "where", required_argument, NULL, 'w' },
		{ "inputs", required_argument, NULL, 'I' },   { "force", no_argument, NULL, 'X' },
		{ "sign", required_argument, NULL, 'S' },     { NULL, 0, NULL, 0 },
	};
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->db = HX_DEFAULT_DB;
	o->seed = 1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:o:", opts, NULL)) != -1) {
		if (c == '?' || c == ':')
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

static void print_model_json(const struct res_model *m, bool first)
{
	char a[160], b[160], c[160];
	struct hx_sb s1, s2, s3;

	hx_sb_init(&s1, a, sizeof(a));
	hx_sb_str(&s1, m->rnic_model);
	hx_sb_init(&s2, b, sizeof(b));
	hx_sb_str(&s2, m->firmware);
	hx_sb_init(&s3, c, sizeof(c));
	hx_sb_str(&s3, m->inputs);
	printf("%s{\"id\":%lld,\"campaign\":%lld,\"rnic_model\":%s,\"firmware\":%s,\"verb\":\"%s\","
	       "\"metric\":\"%s\",\"form\":\"%s\",\"inputs\":%s,\"valid\":%s,\"created\":%.0f,"
	       "\"params\":%s,\"se\":%s,\"domain\":%s,\"quality\":%s}",
	       first ? "" : ",\n", (long long)m->id, (long long)m->campaign, a, b, m->verb,
	       m->metric, m->form, c, m->valid ? "true" : "false", m->created, m->params_json,
	       m->se_json, m->domain_json, m->quality_json);
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
	if (sel->baseline.valid && sel->baseline.cv_folds)
		printf("  baseline (degree-%u polynomial in log inputs, least squares): R^2 %.4f, "
		       "held-out bias max %.2f%%  mean %.2f%%\n", sel->baseline.degree,
		       sel->baseline.r2, 100 * sel->baseline.cv_max_bias,
		       100 * sel->baseline.cv_mean_bias);
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
		     bool *first)
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
	} else if (o->json) {
		print_model_json(row, *first);
		*first = false;
	} else {
		print_fit_text(d, sel, row);
	}
	free(sel);
	free(row);
	return rc;
}

int hx_cmd_fit(int argc, char **argv)
{
	struct fit_cli o;
	struct res_db *db = NULL;
	struct hx_fit_set *set = NULL;
	struct scn_error err;
	size_t stored = 0, failed = 0;
	bool first = true;
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
	if (o.json)
		printf("[\n");
	for (size_t i = 0; i < hx_fit_set_count(set); i++) {
		rc = fit_group(db, hx_fit_set_at(set, i), &o, &first);
		stored += rc == 0;
		failed += rc < 0;
	}
	if (o.json)
		printf("\n]\n");
	hx_fit_set_free(set);
	res_close(db);
	if (stored == 0 && failed == 0) {
		fprintf(stderr, "scalacn fit: no model fitted: no group of ok trials%s%s%s%s%s%s with "
			"varying local and remote masks in %s\n", o.rnic ? " for " : "",
			o.rnic ? o.rnic : "", o.verb ? " verb " : "", o.verb ? o.verb : "",
			o.metric ? " metric " : "", o.metric ? o.metric : "", o.db);
		return HX_EXIT_USAGE;
	}
	return failed ? HX_EXIT_USAGE : HX_EXIT_OK;
}

/* ---- models -------------------------------------------------------------------------------- */

struct models_ctx {
	bool json, first;
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

	if (c->json) {
		print_model_json(m, c->first);
		c->first = false;
		return 0;
	}
	q = json_tokener_parse(m->quality_json);
	printf("%5lld  %-16s %-10s %-5s %-3s %-8s %5s %6.0f %7.4f %8.2f%%  %s\n", (long long)m->id,
	       m->rnic_model, m->firmware, m->verb, m->metric, m->form, m->valid ? "yes" : "no",
	       qnum(q, "n_points"), qnum(q, "r2"), 100 * qnum(q, "cv_max_bias"), m->params_json);
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
	struct models_ctx c = { .first = true };
	struct res_db *db = NULL;
	struct scn_error err;
	int rc = parse_cli("models", argc, argv, &o);

	if (rc || (rc = hx_open_store_ro(o.db, &db)))
		return rc;
	c.json = o.json;
	if (c.json)
		printf("[\n");
	else
		printf("%5s  %-16s %-10s %-5s %-3s %-8s %5s %6s %7s %9s  %s\n", "id", "rnic",
		       "firmware", "verb", "m", "form", "valid", "points", "R^2", "CV maxb",
		       "params");
	rc = res_model_each(db, o.rnic, print_model_line, &c, &err);
	if (c.json)
		printf("\n]\n");
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
	char buf[512];
	struct hx_sb s;

	hx_sb_init(&s, buf, sizeof(buf));
	hx_sb_printf(&s, "{\"model\":%lld,\"verb\":\"%s\",\"metric\":\"%s\",\"masks_local\":",
		     (long long)m->id, m->verb, m->metric);
	hx_sb_num(&s, o->x);
	hx_sb_printf(&s, ",\"masks_remote\":");
	hx_sb_num(&s, o->y);
	hx_sb_printf(&s, ",\"value\":");
	hx_sb_num(&s, p->value);
	hx_sb_printf(&s, ",\"lo\":");
	hx_sb_num(&s, p->lo);
	hx_sb_printf(&s, ",\"hi\":");
	hx_sb_num(&s, p->hi);
	hx_sb_printf(&s, ",\"in_domain\":%s}", p->in_domain ? "true" : "false");
	printf("%s\n", buf);
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
