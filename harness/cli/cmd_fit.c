/* SPDX-License-Identifier: MIT */
/*
 * cmd_fit: `scalacn fit` (fit and store per-RNIC models from the trials in the store) and
 * the option parsing every model command shares (cmd_fit_priv.h; models, predict and export
 * are cmd_models.c). The rules live in hx_fit.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/cli/cmd_fit_priv.h"
#include "harness/cli/hx_cli.h"
#include "harness/fit/hx_fit.h"
#include "optimiser/scalacn-opt.h"

#define MIN_POINTS 4


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

/* Every form's name, comma separated, into BUF. */
static void form_names(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < FIT_FORM_COUNT && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
				       fit_form_get((enum fit_form)i)->name);
}

static int parse_forms(const char *cmd, const char *arg, struct fit_cli *o)
{
	char buf[128], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->n_forms == FIT_FORM_COUNT || fit_form_parse(tok, &o->forms[o->n_forms]) < 0) {
			char names[512];

			form_names(names, sizeof(names));
			return hx_usage_error(cmd, "--form takes forms among %s (comma separated), "
					      "not '%s'", names, tok);
		}
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
	case 'a':
		if (o->n_at >= 2)
			return hx_usage_error(cmd, "--at at most twice (a model has two inputs)");
		o->at[o->n_at++] = optarg;
		return 0;
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

int hx_fit_cli_parse(const char *cmd, int argc, char **argv, struct fit_cli *o)
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

const char *hx_fit_unit(const char *metric)
{
	return !strcmp(metric, "bw") ? "Gb/s" : !strcmp(metric, "lat") ? "us" : "";
}

/* ---- JSON of a stored model (fit --json, models --json) -------------------------------- */

/* A JSON text stored with the model, parsed (null when it does not parse). */
static struct json_object *stored_json(const char *text)
{
	return text && text[0] ? json_tokener_parse(text) : NULL;
}

struct json_object *hx_fit_model_json(const struct res_model *m)
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

/* Where model M misses most when a point is held out (its fold left out of the fit). */
static void print_worst(const struct fit_model *m, const char *unit)
{
	if (!m->q.cv_folds || !m->q.cv_n_worst)
		return;
	printf("  largest held-out misses (x, y: measured, held-out prediction):");
	for (unsigned i = 0; i < m->q.cv_n_worst; i++) {
		const struct fit_cv_point *w = &m->q.cv_worst[i];

		printf("%s %g, %g: %.4g, %.4g %s (%.2f%%)", i ? ";" : "", w->x[0], w->x[1], w->y,
		       w->pred, unit, 100 * w->bias);
	}
	printf("\n");
}

static void print_fit_text(const struct hx_fit_data *d, const struct fit_selection *sel,
			   const struct res_model *row)
{
	const struct fit_model *m = &sel->models[sel->best];
	const struct fit_form_info *fi = fit_form_get(m->form);
	const char *u = hx_fit_unit(d->metric);

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
			printf("  %-3s = %14.6g  (fixed: its input did not vary, no point depends on it, or the others determine it)\n",
			       fi->param_names[i], m->params[i]);
		else
			printf("  %-3s = %14.6g  +- %.3g (standard error)\n", fi->param_names[i],
			       m->params[i], m->se[i]);
	printf("  R^2 %.4f   RMSE %.4g %s   AICc %.1f\n", m->q.r2, m->q.rmse, u, m->q.aicc);
	if (m->q.cv_folds)
		printf("  %u-fold cross-validation, held-out bias: max %.2f%%  mean %.2f%%\n",
		       m->q.cv_folds, 100 * m->q.cv_max_bias, 100 * m->q.cv_mean_bias);
	print_worst(m, u);
	if (sel->baseline.valid && sel->baseline.cv_folds)
		printf("  baseline (degree-%u polynomial in log inputs, least squares): R^2 %.4f, "
		       "held-out bias max %.2f%%  mean %.2f%%\n", sel->baseline.degree,
		       sel->baseline.r2, 100 * sel->baseline.cv_max_bias,
		       100 * sel->baseline.cv_mean_bias);
	if (isfinite(d->point_se_max))
		printf("  the points' own noise over rule layouts (standard error of each point's "
		       "value): max %.2f%%  median %.2f%%\n", 100 * d->point_se_max,
		       100 * d->point_se_median);
	else if (strcmp(d->inputs, HX_FIT_INPUTS))
		printf("  note: no point was measured over several rule layouts: these are the "
		       "other phases' points, one draw each (no model phase, or its budget ran "
		       "out before this design: `run` says which)\n");
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
		json_object_array_add(models, hx_fit_model_json(row));
	} else {
		print_fit_text(d, sel, row);
	}
	free(sel);
	free(row);
	return rc;
}


/* The distinct RNIC model names of a store, quoted: the names a hint lists. */
void hx_names_add(struct known_names *k, const char *name)
{
	char quoted[96];
	size_t n = strlen(k->text);

	snprintf(quoted, sizeof(quoted), "'%s'", name);
	if (!strstr(k->text, quoted) && n + strlen(quoted) + 3 < sizeof(k->text))
		snprintf(k->text + n, sizeof(k->text) - n, "%s%s", n ? ", " : "", quoted);
}


static int add_campaign_rnic(const struct res_campaign *c, void *ctx)
{
	hx_names_add(ctx, c->rnic_model);
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
	int rc = hx_fit_cli_parse("fit", argc, argv, &o);

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

static const struct hx_opt fit_opts[] = {
	FIT_OPT_DB,
	{ "rnic", 'r', "MODEL", "only this RNIC model (as campaigns recorded it)", NULL, 0 },
	{ "verb", 'v', "V", "only this verb", "send write read", 0 },
	{ "metric", 'm', "M", "only bw or lat", "bw lat", 0 },
	{ "form", 'k', "F,...", "candidate forms (those above, or rbf1, line, service, knee,\n"
	  "cap, walk, cache2); a single form is fitted alone, which works with few points\n"
	  "(a plane through 4)", NULL, 0 },
	{ "where", 'w', "D=L", "only trials whose point has dimension D at level L (repeatable;\n"
	  "e.g. --where msg_size=2 for imported perftest -a logs)", NULL, 0 },
	{ "inputs", 'I', "X,Y", "the model's inputs: dimension names, or client.masks /\n"
	  "server.masks (a host's encap + decap masks); default client.masks,server.masks;\n"
	  "'causes': per (verb, metric) the dimensions its newest campaign's causes name\n"
	  "(one such dimension: with the one other its model-phase points moved)", NULL, 0 },
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
	"(x, y) count as one point, their median (over rule layouts: their value with the\n"
	"flows spread evenly over the masks, from the layouts' walks, docs/fitting.md).\n"
	"Candidate forms: rbf2, service2, plane, cap2, cliff2, cliff2y, spill2,\n"
	"spill2y, spillt2, spillt2y, pipec2 (bw); plane, rbf2, service2, walk2, lspill2, lspill2y,\n"
	"lspillt2, lspillt2y (lat); with flows as an input the capacity-cliff forms\n"
	"spillc2(y), spillct2(y), lspillc2(y) and lspillct2(y) (the \"t\" forms: the share past a\n"
	"table's capacity falls as 1/flows), with both inputs one host's masks capc2 (bw);\n"
	"walkc2 (lat); chosen by AICc, cross-validation breaking ties and\n"
	"leaving out a form whose held-out bias is over twice the best one's; a degree-3\n"
	"polynomial baseline beside each.\n"
	"Prints per model: form, parameters with standard errors, R^2, RMSE, held-out bias\n"
	"(max, mean) and the points it misses most, the baseline's, the points' own noise,\n"
	"why the form won, the domain.\n",
	"Exit: 0 models stored, 2 nothing to fit or a fit failed.\n",
	hx_cmd_fit,
};
