/* SPDX-License-Identifier: MIT */
/*
 * cmd_explain: `scalacn explain [--db FILE] [--campaign ID] [--json] [CAUSE_INDEX]`: the
 * evidence behind each cause (and suspect) of a campaign, from the store alone: the stress
 * point and the isolation point, the baseline, each dimension's normalised sensitivity with
 * its interval (candidate or not, why), each removal order with what each removal did, the
 * points with and without the cause, the replicate, support, and the trial ids behind each
 * statement: enough for a vendor to rerun it. The evidence is the causes table's
 * evidence_json column (schema 3), written by the causal room (hx_evidence.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness/cli/hx_cli.h"
#include "results/res.h"

struct explain_opts {
	const char *db;
	long long campaign, index; /* index 0: every cause */
	bool json;
};

static int parse_opts(int argc, char **argv, struct explain_opts *o)
{
	struct hx_args a = HX_ARGS("explain", argc, argv);
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->db = HX_DEFAULT_DB;
	while ((c = hx_opt_next(&a)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 'J': o->json = true; break;
		case 'c':
			if ((rc = hx_parse_id("explain", "--campaign", "campaign", optarg, &o->campaign)))
				return rc;
			break;
		default: return hx_bad_option("explain", argv);
		}
	}
	if (optind < argc) {
		if ((rc = hx_parse_id("explain", "CAUSE_INDEX", "cause", argv[optind], &o->index)))
			return rc;
		optind++;
	}
	return hx_no_operands("explain", argc, argv);
}

/* ---- reading the values of the evidence -------------------------------------------------- */

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static double dbl(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v ? json_object_get_double(v) : NAN;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v ? json_object_get_string(v) : "";
}

static void print_ids(struct json_object *ids, FILE *out)
{
	size_t n = ids ? json_object_array_length(ids) : 0;

	fprintf(out, "trials ");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%lld", i ? "," : "",
			(long long)json_object_get_int64(json_object_array_get_idx(ids, i)));
	if (!n)
		fprintf(out, "-");
}

static void print_point(const char *label, struct json_object *pt, FILE *out)
{
	bool any = false;

	fprintf(out, "  %s:", label);
	json_object_object_foreach(pt, k, v) {
		fprintf(out, " %s=%s", k, json_object_get_string(v));
		any = true;
	}
	fprintf(out, "%s\n", any ? "" : " every dimension at neutral");
}

/* "32.516 Gb/s (3 trials, 0 failed, -63.5% vs baseline) trials 10,11,12" */
static void print_result(struct json_object *r, const char *unit, FILE *out)
{
	double vs = dbl(r, "vs_baseline");

	if (isfinite(dbl(r, "mean")))
		fprintf(out, "%.4g %s (%d trials, %d failed", dbl(r, "mean"), unit,
			json_object_get_int(get(r, "n")), json_object_get_int(get(r, "failed")));
	else
		fprintf(out, "no usable value (%d trials, %d failed", json_object_get_int(get(r, "n")),
			json_object_get_int(get(r, "failed")));
	if (isfinite(vs))
		fprintf(out, ", %+.1f%% vs baseline", 100 * vs);
	fprintf(out, ") ");
	print_ids(get(r, "trial_ids"), out);
}

/* ---- the sections ------------------------------------------------------------------------ */

static void print_sensitivity(struct json_object *a, FILE *out)
{
	size_t n = a ? json_object_array_length(a) : 0;

	if (!n)
		return;
	fprintf(out, "  sensitivity at the stress point (normalised: elasticity d ln y / d ln x, or "
		"relative effect per step; 95%% interval):\n");
	for (size_t i = 0; i < n; i++) {
		struct json_object *d = json_object_array_get_idx(a, i);

		fprintf(out, "    %-20s %8s -> %-8s %+8.3f [%+.3f, %+.3f] %-13s %s; ",
			str(d, "dimension"), str(d, "from"), str(d, "to"), dbl(d, "sensitivity"),
			dbl(d, "lo"), dbl(d, "hi"),
			json_object_get_boolean(get(d, "candidate")) ? "candidate" : "not candidate",
			str(d, "why"));
		print_ids(get(get(d, "moved"), "trial_ids"), out);
		fprintf(out, "\n");
	}
}

static void print_names(struct json_object *a, FILE *out)
{
	size_t n = a ? json_object_array_length(a) : 0;

	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? ", " : "", json_object_get_string(json_object_array_get_idx(a, i)));
	if (!n)
		fprintf(out, "none");
}

static void print_orders(struct json_object *a, const char *unit, FILE *out)
{
	size_t n = a ? json_object_array_length(a) : 0;

	if (!n)
		return;
	fprintf(out, "  removal orders (each sets the candidates neutral one by one from the "
		"isolation point; a removal that cures is undone and its dimension kept):\n");
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(a, i), *steps = get(o, "steps");
		size_t ns = steps ? json_object_array_length(steps) : 0;

		fprintf(out, "    order %zu (", i + 1);
		print_names(get(o, "order"), out);
		fprintf(out, "): kept ");
		print_names(get(o, "kept"), out);
		fprintf(out, "\n");
		for (size_t k = 0; k < ns; k++) {
			struct json_object *st = json_object_array_get_idx(steps, k);

			fprintf(out, "      remove %-20s %-22s ", str(st, "remove"), str(st, "result"));
			print_result(st, unit, out);
			fprintf(out, "\n");
		}
	}
}

static void print_replicate(struct json_object *r, const char *unit, FILE *out)
{
	if (!r)
		return;
	fprintf(out, "  replicate (fresh trials): with ");
	print_result(get(r, "with"), unit, out);
	fprintf(out, "\n                            without ");
	print_result(get(r, "without"), unit, out);
	if (isfinite(dbl(r, "effect")))
		fprintf(out, "\n                            change %+.1f%% [%+.1f%%, %+.1f%%]",
			100 * dbl(r, "effect"), 100 * dbl(r, "lo"), 100 * dbl(r, "hi"));
	fprintf(out, ": %s\n", json_object_get_boolean(get(r, "replicated"))
				       ? "replicated" : str(r, "why"));
}

/* ---- one cause --------------------------------------------------------------------------- */

struct row {
	struct res_cause c;
	unsigned index;
};

static void print_header(const struct row *w, FILE *out)
{
	const struct res_cause *c = &w->c;
	char verb[16], metric[16], cls[24], walls[256];

	hx_detail_get(c->detail, "verb=", verb, sizeof(verb));
	hx_detail_get(c->detail, "metric=", metric, sizeof(metric));
	hx_detail_get(c->detail, "class=", cls, sizeof(cls));
	hx_detail_get(c->detail, "walls=", walls, sizeof(walls));
	fprintf(out, "%s %u (id %lld): %s %s %s\n", c->supported ? "Cause" : "Suspect", w->index,
		(long long)c->id, verb, metric, c->members);
	if (strstr(c->detail, "effect: trials failed"))
		fprintf(out, "  effect: none (every trial with it failed)");
	else
		fprintf(out, "  effect %+.1f%% [%+.1f%%, %+.1f%%]", 100 * c->effect,
			100 * c->effect_lo, 100 * c->effect_hi);
	fprintf(out, ", confidence %.2f, class %s, walls %s\n", c->confidence, cls, walls);
	if (c->supported)
		fprintf(out, "  supported: interval excludes zero on the symptom's side, estimate at "
			"the threshold, confidence >= min_confidence, cure replicated\n");
	else
		fprintf(out, "  not a cause: %s\n", c->reason);
}

static void print_one(const struct row *w, struct json_object *ev, FILE *out)
{
	char metric[16];
	const char *unit;

	hx_detail_get(w->c.detail, "metric=", metric, sizeof(metric));
	unit = strcmp(metric, "lat") ? "Gb/s" : "us";
	print_header(w, out);
	if (!get(ev, "baseline")) {
		fprintf(out, "  no evidence stored (stored before schema 3: run 'scalacn analyze')\n\n");
		return;
	}
	fprintf(out, "  found by %s\n  baseline: ", str(ev, "strategy"));
	print_result(get(ev, "baseline"), unit, out);
	fprintf(out, "\n");
	if (get(ev, "stress_point"))
		print_point("stress point", get(ev, "stress_point"), out);
	print_point("isolation point", get(ev, "isolation_point"), out);
	print_sensitivity(get(ev, "sensitivity"), out);
	if (get(ev, "candidates")) {
		fprintf(out, "  candidates: ");
		print_names(get(ev, "candidates"), out);
		fprintf(out, "\n");
	}
	print_orders(get(ev, "orders"), unit, out);
	fprintf(out, "  with the cause:    ");
	print_result(get(ev, "with"), unit, out);
	fprintf(out, "\n  without it:        ");
	print_result(get(ev, "without"), unit, out);
	fprintf(out, "\n");
	print_replicate(get(ev, "replicate"), unit, out);
	fprintf(out, "\n");
}

/* ---- the command ------------------------------------------------------------------------- */

struct rows {
	struct row *v;
	unsigned n, cap;
};

static int collect(const struct res_cause *c, void *ctx)
{
	struct rows *r = ctx;

	if (r->n == r->cap) {
		unsigned cap = r->cap ? 2 * r->cap : 16;
		struct row *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n].c = *c;
	r->v[r->n].index = r->n + 1;
	r->n++;
	return 0;
}

static struct json_object *row_json(const struct row *w, struct json_object *ev)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "index", json_object_new_int((int)w->index));
	json_object_object_add(o, "id", json_object_new_int64(w->c.id));
	json_object_object_add(o, "members", hx_json_list(w->c.members, false));
	json_object_object_add(o, "supported", json_object_new_boolean(w->c.supported));
	if (!w->c.supported)
		json_object_object_add(o, "why", json_object_new_string(w->c.reason));
	json_object_object_add(o, "effect", hx_json_num(w->c.effect));
	json_object_object_add(o, "effect_lo", hx_json_num(w->c.effect_lo));
	json_object_object_add(o, "effect_hi", hx_json_num(w->c.effect_hi));
	json_object_object_add(o, "confidence", hx_json_num(w->c.confidence));
	json_object_object_add(o, "detail", json_object_new_string(w->c.detail));
	json_object_object_add(o, "evidence", ev);
	return o;
}

static int explain(struct res_db *db, const struct res_campaign *c, const struct rows *rows,
		   const struct explain_opts *o, struct scn_error *err)
{
	struct json_object *arr = o->json ? json_object_new_array() : NULL;
	int rc = 0;

	for (unsigned i = 0; i < rows->n && rc == 0; i++) {
		const struct row *w = &rows->v[i];
		struct json_object *ev;
		char *text = NULL;

		if (o->index && w->index != o->index)
			continue;
		if ((rc = res_cause_evidence(db, w->c.id, &text, err)) < 0)
			break;
		ev = json_tokener_parse(text);
		free(text);
		if (arr) {
			json_object_array_add(arr, row_json(w, ev));
		} else {
			print_one(w, ev, stdout);
			json_object_put(ev);
		}
	}
	if (rc == 0 && arr) {
		struct json_object *doc = hx_json_doc("explain");

		json_object_object_add(doc, "campaign", json_object_new_int64(c->id));
		json_object_object_add(doc, "rnic_model", json_object_new_string(c->rnic_model));
		json_object_object_add(doc, "firmware", json_object_new_string(c->firmware));
		json_object_object_add(doc, "causes", arr);
		hx_json_emit(doc, stdout);
		arr = NULL;
	}
	json_object_put(arr);
	return rc;
}

int hx_cmd_explain(int argc, char **argv)
{
	struct explain_opts o;
	struct rows rows = { 0 };
	struct res_campaign c;
	struct res_db *db = NULL;
	struct scn_error err;
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc;
	scn_error_clear(&err);
	if ((rc = hx_open_store(o.db, &db)))
		return rc;
	rc = hx_find_campaign(db, o.campaign, &c, &err);
	if (rc == 0)
		rc = res_cause_each(db, c.id, collect, &rows, &err);
	if (rc == -ENOMEM)
		rc = scn_error_set(&err, SCN_ERR_INTERNAL, -ENOMEM, "explain: out of memory");
	if (rc == 0 && o.index > (long long)rows.n)
		rc = scn_error_set(&err, SCN_ERR_USAGE, -ENOENT,
				   "campaign %lld has %u causes and suspects, not %lld (see 'scalacn "
				   "causes')", (long long)c.id, rows.n, o.index);
	if (rc == 0 && !rows.n && !o.json)
		printf("Campaign %lld: no causes or suspects stored (run 'scalacn analyze' first)\n",
		       (long long)c.id);
	if (rc == 0)
		rc = explain(db, &c, &rows, &o, &err);
	free(rows.v);
	res_close(db);
	return rc < 0 ? hx_report_error(&err) : HX_EXIT_OK;
}

static const struct hx_opt explain_opts[] = {
	{ "db", 'd', "FILE", "results database (default: scalacn.db)", HX_COMPLETE_FILE, 0 },
	{ "campaign", 'c', "ID", "campaign (default: the newest)", NULL, 0 },
	{ "json", 'J', NULL, "the same as JSON (docs/json.md)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_explain = {
	"explain", "show the evidence behind a cause (or every cause of a campaign)",
	"[CAUSE_INDEX]", explain_opts,
	"For each cause of a campaign (or the one numbered CAUSE_INDEX, the # column of\n"
	"'scalacn causes'; suspects included): the stress point and where the cause was\n"
	"isolated, the baseline, each dimension's normalised sensitivity with its 95%\n"
	"interval (candidate or not, and why), each removal order with what each removal did\n"
	"(cured, persisted, no change beyond noise: the numbers), the points with and without\n"
	"the cause, the replicate, whether it is supported and why not, and the trial ids\n"
	"behind each statement. Reads the database only.\n",
	NULL, hx_cmd_explain,
};
