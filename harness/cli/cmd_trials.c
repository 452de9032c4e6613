/* SPDX-License-Identifier: MIT */
/*
 * cmd_trials: `scalacn trials`: the trials of a results store, one line each with the levels
 * its point sets away from neutral, filtered by campaign, status, phase and levels
 * (--where DIM=LEVEL); as a table sized to its content or the JSON document of docs/json.md;
 * `--evidence ID` shows what the testbed showed of one trial (cmd_trials_evidence.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "generators/gen.h"
#include "harness/cli/cmd_trials_priv.h"
#include "harness/cli/hx_cli.h"
#include "harness/plan/hx_plan.h"
#include "results/res.h"

#define MAX_WHERE 16

struct trials_opts {
	const char *db, *status, *phase;
	long long campaign, evidence; /* evidence: the trial id of --evidence (0: none) */
	unsigned long limit;
	bool json;
	unsigned n_where;
	const struct gen_dimension *where_dim[MAX_WHERE];
	double where_level[MAX_WHERE];
};

struct trial_row {
	struct res_trial t;
	char changed[512];         /* "flows=8K server.decap_masks=20" ("" at the neutral point) */
	struct json_object *point; /* the levels, parsed */
};

#define MAX_REFS 256

/* What "away from" means: a campaign's first baseline point (the plan's neutral point with
 * its fixed levels), or the dimensions' neutral levels when it has none (imports). */
struct reference {
	int64_t campaign;
	struct json_object *point;
};

struct trials_ctx {
	const struct trials_opts *o;
	unsigned long n, cap;
	struct trial_row *rows;
	unsigned n_refs;
	struct reference refs[MAX_REFS];
};

static int parse_where(struct trials_opts *o, const char *arg)
{
	struct gen_levels l;
	struct scn_error err;
	char name[64];
	const char *eq = strchr(arg, '=');

	if (o->n_where == MAX_WHERE)
		return hx_usage_error("trials", "at most %d --where", MAX_WHERE);
	gen_levels_neutral(&l);
	if (!eq || gen_levels_assign(&l, arg, &err) < 0)
		return hx_usage_error("trials", "--where %s: %s", arg,
				      eq ? err.message : "expected DIMENSION=LEVEL");
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	o->where_dim[o->n_where] = gen_dimension_find(name);
	o->where_level[o->n_where] = gen_levels_get(&l, o->where_dim[o->n_where]);
	o->n_where++;
	return 0;
}

static int parse_opts(int argc, char **argv, struct trials_opts *o)
{
	struct hx_args a = HX_ARGS("trials", argc, argv);
	char *end;
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->db = HX_DEFAULT_DB;
	while ((c = hx_opt_next(&a)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 'J': o->json = true; break;
		case 's': o->status = optarg; break;
		case 'p': o->phase = optarg; break;
		case 'w':
			if ((rc = parse_where(o, optarg)))
				return rc;
			break;
		case 'c':
			if ((rc = hx_parse_id("trials", "--campaign", "campaign", optarg, &o->campaign)))
				return rc;
			break;
		case 'e':
			if ((rc = hx_parse_id("trials", "--evidence", "trial", optarg, &o->evidence)))
				return rc;
			break;
		case 'n':
			o->limit = strtoul(optarg, &end, 10);
			if (*end)
				return hx_usage_error("trials", "--limit takes a number, not '%s'", optarg);
			break;
		default:
			return hx_bad_option("trials", argv);
		}
	}
	return hx_no_operands("trials", argc, argv);
}

/* The level of dimension D in a point's JSON: a number, or a categorical level's name
 * (matched against the names of D's levels and its neutral level). */
static bool level_of(const struct gen_dimension *d, struct json_object *v, double *out)
{
	char lv[32];

	if (json_object_is_type(v, json_type_string)) {
		const char *name = json_object_get_string(v);

		for (unsigned k = 0; k <= d->n_levels; k++) {
			double cand = k < d->n_levels ? d->levels[k] : d->neutral;

			if (!strcmp(hx_level_text(d, cand, lv, sizeof(lv)), name)) {
				*out = cand;
				return true;
			}
		}
		return false;
	}
	*out = json_object_get_double(v);
	return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

static bool matches(const struct trials_opts *o, const struct res_trial *t,
		    struct json_object *point)
{
	if (o->evidence && t->id != o->evidence)
		return false;
	if (o->status && strcmp(o->status, t->sample.status))
		return false;
	if (o->phase && strcmp(o->phase, t->phase))
		return false;
	for (unsigned i = 0; i < o->n_where; i++) {
		struct json_object *v;
		double lv;

		if (!json_object_object_get_ex(point, o->where_dim[i]->name, &v) ||
		    !level_of(o->where_dim[i], v, &lv) || lv != o->where_level[i])
			return false;
	}
	return true;
}

static struct json_object *reference_of(const struct trials_ctx *c, int64_t campaign)
{
	for (unsigned i = 0; i < c->n_refs; i++)
		if (c->refs[i].campaign == campaign)
			return c->refs[i].point;
	return NULL;
}

static void keep_reference(struct trials_ctx *c, const struct res_trial *t,
			   struct json_object *point)
{
	if (strcmp(t->phase, "baseline") || reference_of(c, t->campaign) || c->n_refs == MAX_REFS)
		return;
	c->refs[c->n_refs].campaign = t->campaign;
	c->refs[c->n_refs++].point = json_object_get(point);
}

/* Is V (dimension D's level in a point) the reference's level, or neutral without one? */
static bool at_reference(const struct gen_dimension *d, double v, struct json_object *ref)
{
	struct json_object *rv;
	double r;

	if (ref && json_object_object_get_ex(ref, d->name, &rv) && level_of(d, rv, &r))
		return v == r;
	return v == d->neutral;
}

static void changed_text(struct json_object *point, struct json_object *ref, char *buf,
			 size_t len)
{
	size_t at = 0;
	char lv[32];

	buf[0] = '\0';
	json_object_object_foreach(point, key, val) {
		const struct gen_dimension *d = gen_dimension_find(key);
		double v;

		if (!d || !level_of(d, val, &v) || at_reference(d, v, ref) || at >= len)
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", at ? " " : "", key,
				       hx_level_text(d, v, lv, sizeof(lv)));
	}
}

static int gather_trial(const struct res_trial *t, const char *levels_json, void *ctx)
{
	struct trials_ctx *c = ctx;
	struct json_object *point = json_tokener_parse(levels_json ? levels_json : "{}");
	struct trial_row *r;

	if (!point)
		point = json_object_new_object();
	keep_reference(c, t, point);
	if ((c->o->limit && c->n >= c->o->limit) || !matches(c->o, t, point)) {
		json_object_put(point);
		return c->o->limit && c->n >= c->o->limit;
	}
	if (hx_grow((void **)&c->rows, sizeof(*c->rows), c->n, &c->cap) < 0) {
		json_object_put(point);
		return -ENOMEM;
	}
	r = &c->rows[c->n++];
	r->t = *t;
	r->point = point;
	return 0;
}

/* A measured number, or blanks when the trial did not measure it. */
static const char *cell(double v, int width, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%*.3f", width, v);
	else
		snprintf(buf, len, "%*s", width, "");
	return buf;
}

static void print_table(const struct trials_ctx *c)
{
	int wp = (int)strlen("phase"), ws = (int)strlen("status");
	char b1[40], b2[40];

	for (unsigned long i = 0; i < c->n; i++) {
		int p = (int)strlen(c->rows[i].t.phase), s = (int)strlen(c->rows[i].t.sample.status);

		wp = p > wp ? p : wp;
		ws = s > ws ? s : ws;
	}
	printf("%7s  %8s  %-*s  %-5s  %-6s  %6s  %-*s  %14s  %14s  %13s  %s\n", "trial", "campaign",
	       wp, "phase", "verb", "metric", "repeat", ws, "status", "bandwidth Gb/s",
	       "latency us", "testbed-s", "levels away from the campaign's baseline");
	for (unsigned long i = 0; i < c->n; i++) {
		const struct res_trial *t = &c->rows[i].t;

		printf("%7lld  %8lld  %-*s  %-5s  %-6s  %6d  %-*s  %s  %s  %13.3f  %s\n",
		       (long long)t->id, (long long)t->campaign, wp, t->phase, t->verb, t->metric,
		       t->repeat, ws, t->sample.status, cell(t->sample.bw_gbps, 14, b1, sizeof(b1)),
		       cell(t->sample.lat_median_us, 14, b2, sizeof(b2)), t->sample.cost_s,
		       c->rows[i].changed[0] ? c->rows[i].changed : "(baseline)");
	}
}

/* The trial's evidence (schema 6) as parsed JSON, or null when none was recorded. */
static struct json_object *evidence_of(struct res_db *db, int64_t id)
{
	struct scn_error err;
	struct json_object *e = NULL;
	char *text = NULL;

	if (res_trial_evidence(db, id, &text, &err) == 0 && text)
		e = json_tokener_parse(text);
	free(text);
	return e;
}

static struct json_object *trial_json(struct res_db *db, const struct trial_row *r)
{
	const struct res_trial *t = &r->t;
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "id", json_object_new_int64(t->id));
	json_object_object_add(j, "campaign", json_object_new_int64(t->campaign));
	json_object_object_add(j, "key", json_object_new_string(t->key));
	json_object_object_add(j, "phase", json_object_new_string(t->phase));
	json_object_object_add(j, "verb", json_object_new_string(t->verb));
	json_object_object_add(j, "metric", json_object_new_string(t->metric));
	json_object_object_add(j, "repeat", json_object_new_int(t->repeat));
	json_object_object_add(j, "status", json_object_new_string(t->sample.status));
	json_object_object_add(j, "bw_gbps", hx_json_num(t->sample.bw_gbps));
	json_object_object_add(j, "lat_median_us", hx_json_num(t->sample.lat_median_us));
	json_object_object_add(j, "lat_p99_us", hx_json_num(t->sample.lat_p99_us));
	json_object_object_add(j, "cost_s", json_object_new_double(t->sample.cost_s));
	json_object_object_add(j, "point", json_object_get(r->point));
	json_object_object_add(j, "counters", json_tokener_parse(t->sample.counters_json[0] ?
								 t->sample.counters_json : "{}"));
	json_object_object_add(j, "evidence", evidence_of(db, t->id));
	return j;
}

static void print_json(struct res_db *db, const struct trials_ctx *c)
{
	struct json_object *doc = hx_json_doc("trials"), *arr = json_object_new_array();

	for (unsigned long i = 0; i < c->n; i++)
		json_object_array_add(arr, trial_json(db, &c->rows[i]));
	json_object_object_add(doc, "trials", arr);
	hx_json_emit(doc, stdout);
}

static void print_evidence(struct res_db *db, const struct trials_ctx *c)
{
	struct scn_error err;
	char *text = NULL;

	if (res_trial_evidence(db, c->rows[0].t.id, &text, &err) < 0)
		text = NULL;
	hx_trials_print_evidence(stdout, &c->rows[0].t, c->rows[0].changed, text);
	free(text);
}

int hx_cmd_trials(int argc, char **argv)
{
	struct trials_opts o;
	struct trials_ctx c = { .o = &o };
	struct res_db *db = NULL;
	struct scn_error err;
	int rc = parse_opts(argc, argv, &o);

	if (rc || (rc = hx_open_store_ro(o.db, &db)))
		return rc;
	rc = res_trial_each(db, o.campaign, gather_trial, &c, &err);
	for (unsigned long i = 0; i < c.n; i++)
		changed_text(c.rows[i].point, reference_of(&c, c.rows[i].t.campaign),
			     c.rows[i].changed, sizeof(c.rows[i].changed));
	if (rc >= 0 && o.evidence && c.n == 0)
		rc = scn_error_set(&err, SCN_ERR_USAGE, -ENOENT, "%s: no trial %lld%s", o.db,
				   o.evidence, o.campaign || o.status || o.phase || o.n_where ?
				   " that matches the other filters" : "");
	if (rc >= 0 && o.json)
		print_json(db, &c);
	else if (rc >= 0 && o.evidence)
		print_evidence(db, &c);
	else if (rc >= 0)
		print_table(&c);
	for (unsigned long i = 0; i < c.n; i++)
		json_object_put(c.rows[i].point);
	for (unsigned i = 0; i < c.n_refs; i++)
		json_object_put(c.refs[i].point);
	free(c.rows);
	res_close(db);
	if (rc == -ENOMEM)
		scn_error_set(&err, SCN_ERR_INTERNAL, rc, "out of memory");
	return rc < 0 ? hx_report_error(&err) : HX_EXIT_OK;
}

static const struct hx_opt trials_opts[] = {
	{ "db", 'd', "FILE", "results database (default: scalacn.db)", HX_COMPLETE_FILE, 0 },
	{ "campaign", 'c', "ID", "only this campaign's trials", NULL, 0 },
	{ "status", 's', "STATUS", "only trials that ended so",
	  "ok timeout completion_error apply_failed unusable", 0 },
	{ "phase", 'p', "PHASE", "only trials measured in this phase (the phase column)", NULL, 0 },
	{ "where", 'w', "DIM=LEVEL", "only trials whose point has DIM at LEVEL (repeatable)", NULL, 0 },
	{ "limit", 'n', "N", "at most N trials (after the filters)", NULL, 0 },
	{ "evidence", 'e', "ID", "what the testbed showed of trial ID: raw lines, completion "
	  "status, counters per device, packets per tc filter", NULL, 0 },
	{ "json", 'J', NULL, "the trials as JSON, every level and counter (docs/json.md)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_trials = {
	"trials", "list the trials in a results database", NULL, trials_opts,
	"One line per trial: id, campaign, the phase its point was measured for, verb, metric,\n"
	"repeat, status, bandwidth and median latency (blank when not measured), testbed-\n"
	"seconds, and the levels its point sets away from its campaign's baseline point (the\n"
	"plan's neutral point; the dimensions' neutral levels for imported trials).\n"
	"With --evidence ID: one trial's evidence instead (with --json: its row, evidence\n"
	"included, as every row of --json has it): the raw perftest lines that decided it,\n"
	"the completion status, each host's device counters side by side and the packets\n"
	"each tc filter counted during it. Simulated trials have none.\n",
	NULL, hx_cmd_trials,
};
