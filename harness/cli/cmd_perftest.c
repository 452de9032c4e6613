/* SPDX-License-Identifier: MIT */
/*
 * cmd_perftest: `scalacn perftest parse FILE... [--json] [--gbits]` prints what the parser
 * (testbeds/perftest/pt_parse.h) reads from saved perftest output; `scalacn perftest import
 * FILE... --db DB` stores every row of old logs as a trial. Files whose first non-blank
 * character is '{' are --out_json files (their unit is MiB/s unless --gbits), others stdout.
 * Import: one campaign "perftest-import" per database (reused), one point per row with the
 * levels the log shows (verb, metric, msg_size, qps, tx_depth, mtu, iterations) and, for
 * names following the ScalaCN artifact (cen_X_cde_Y_sen_Z_sde_W_...), the four masks
 * dimensions; the trial key hashes the point and the file name, so importing twice stores
 * nothing new.
 */
#include <errno.h>
#include <json-c/json.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/cli/hx_cli.h"
#include "harness/plan/hx_plan.h"
#include "results/res.h"
#include "testbeds/perftest/pt_parse.h"

struct pt_opts {
	bool json, gbits;
	const char *db, *rnic;
};

static int read_file(const char *path, char **text, size_t *len, struct scn_error *err)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return scn_error_set(err, SCN_ERR_USAGE, -errno, "cannot open %s: %s", path,
				     strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    !(*text = malloc((size_t)n + 1)) || fread(*text, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return scn_error_set(err, SCN_ERR_USAGE, -EIO, "cannot read %s", path);
	}
	(*text)[n] = '\0';
	*len = (size_t)n;
	fclose(f);
	return 0;
}

static int parse_file(const char *path, bool gbits, struct pt_result **r, struct scn_error *err)
{
	char *text = NULL;
	size_t len = 0, i = 0;
	int rc = read_file(path, &text, &len, err);

	if (rc < 0) {
		free(text);
		return rc;
	}
	while (i < len && strchr(" \t\r\n", text[i]))
		i++;
	if (i < len && text[i] == '{')
		rc = pt_parse_json(text, len, gbits ? PT_BW_UNIT_GBPS : PT_BW_UNIT_MIBS, path, r,
				   err);
	else
		rc = pt_parse_text(text, len, path, r, err);
	free(text);
	return rc;
}

static struct json_object *num(double v)
{
	char buf[32];

	if (!isfinite(v)) /* not printed, or perftest's "inf": JSON has neither */
		return NULL;
	snprintf(buf, sizeof(buf), "%.10g", v);
	return json_object_new_double_s(v, buf);
}

static struct json_object *result_json(const char *path, const struct pt_result *r)
{
	struct json_object *o = json_object_new_object(), *f = json_object_new_object();
	struct json_object *rows = json_object_new_array();

	json_object_object_add(o, "file", json_object_new_string(path));
	json_object_object_add(o, "title", json_object_new_string(pt_result_title(r)));
	json_object_object_add(o, "verb", json_object_new_string(pt_verb_name(pt_result_verb(r))));
	json_object_object_add(o, "test", json_object_new_string(pt_kind_name(pt_result_kind(r))));
	json_object_object_add(o, "latency", json_object_new_string(pt_rtt_name(pt_result_rtt_kind(r))));
	json_object_object_add(o, "bw_unit", json_object_new_string(pt_bw_unit_name(pt_result_bw_unit(r))));
	json_object_object_add(o, "form", json_object_new_string(pt_form_name(pt_result_form(r))));
	for (size_t i = 0; i < pt_result_n_fields(r); i++) {
		const struct pt_field *fl = pt_result_field(r, i);

		json_object_object_add(f, fl->label, json_object_new_string(fl->value));
	}
	json_object_object_add(o, "header", f);
	for (size_t i = 0; i < pt_result_n_rows(r); i++) {
		const struct pt_row *w = pt_result_row(r, i);
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "bytes", json_object_new_int64((int64_t)w->bytes));
		json_object_object_add(x, "iterations", json_object_new_int64((int64_t)w->iterations));
		json_object_object_add(x, "bw_avg_gbps", num(w->bw_avg_gbps));
		json_object_object_add(x, "bw_peak", num(w->bw_peak));
		json_object_object_add(x, "bw_avg", num(w->bw_avg));
		json_object_object_add(x, "msg_rate_mpps", num(w->msg_rate_mpps));
		json_object_object_add(x, "lat_min_us", num(w->t_min));
		json_object_object_add(x, "lat_median_us", num(w->t_typical));
		json_object_object_add(x, "lat_avg_us", num(w->t_avg));
		json_object_object_add(x, "lat_max_us", num(w->t_max));
		json_object_object_add(x, "lat_p99_us", num(w->p99));
		json_object_object_add(x, "lat_p999_us", num(w->p999));
		json_object_array_add(rows, x);
	}
	json_object_object_add(o, "rows", rows);
	return o;
}

static void print_text(const char *path, const struct pt_result *r)
{
	bool bw = pt_result_kind(r) == PT_KIND_BW;

	printf("%s: %s\n  verb %s, %s test, latency %s, bandwidth unit %s, table %s\n", path,
	       pt_result_title(r)[0] ? pt_result_title(r) : "(no title)",
	       pt_verb_name(pt_result_verb(r)), pt_kind_name(pt_result_kind(r)),
	       pt_rtt_name(pt_result_rtt_kind(r)), pt_bw_unit_name(pt_result_bw_unit(r)),
	       pt_form_name(pt_result_form(r)));
	for (size_t i = 0; i < pt_result_n_fields(r); i++)
		printf("  %-18s %s\n", pt_result_field(r, i)->label, pt_result_field(r, i)->value);
	if (bw)
		printf("  %10s %11s %12s %12s\n", "bytes", "iterations", "bw_avg_Gb/s", "Mpps");
	else
		printf("  %10s %11s %10s %10s %10s %10s   (usec, %s RTT)\n", "bytes", "iterations",
		       "min", "median", "avg", "p99", pt_rtt_name(pt_result_rtt_kind(r)));
	for (size_t i = 0; i < pt_result_n_rows(r); i++) {
		const struct pt_row *w = pt_result_row(r, i);

		if (bw)
			printf("  %10llu %11llu %12.4f %12.6f\n", (unsigned long long)w->bytes,
			       (unsigned long long)w->iterations, w->bw_avg_gbps, w->msg_rate_mpps);
		else
			printf("  %10llu %11llu %10.2f %10.2f %10.2f %10.2f\n",
			       (unsigned long long)w->bytes, (unsigned long long)w->iterations,
			       w->t_min, isnan(w->t_typical) ? w->t_avg : w->t_typical, w->t_avg,
			       w->p99);
	}
}

static int cmd_parse(const struct pt_opts *o, int n, char **files)
{
	struct json_object *all = json_object_new_array();
	int worst = HX_EXIT_OK;

	for (int i = 0; i < n; i++) {
		struct pt_result *r = NULL;
		struct scn_error err;

		scn_error_clear(&err);
		if (parse_file(files[i], o->gbits, &r, &err) < 0) {
			int code = hx_report_error(&err);

			worst = worst ? worst : (code == HX_EXIT_TESTBED ? HX_EXIT_USAGE : code);
			continue;
		}
		if (o->json)
			json_object_array_add(all, result_json(files[i], r));
		else
			print_text(files[i], r);
		pt_result_free(r);
	}
	if (o->json) {
		struct json_object *doc = hx_json_doc("perftest parse");

		json_object_object_add(doc, "files", all);
		hx_json_emit(doc, stdout);
	} else {
		json_object_put(all);
	}
	return worst;
}

/* Levels a log shows; false when the test has no scalacn verb (atomic). */
static bool levels_of(const char *path, const struct pt_result *r, const struct pt_row *w,
		      struct gen_levels *l)
{
	char *copy = strdup(path), *base = copy ? basename(copy) : NULL;
	const char *v;
	unsigned m[4];

	gen_levels_neutral(l);
	switch (pt_result_verb(r)) {
	case PT_VERB_SEND: l->verb = TOPO_VERB_SEND; break;
	case PT_VERB_WRITE: l->verb = TOPO_VERB_WRITE; break;
	case PT_VERB_READ: l->verb = TOPO_VERB_READ; break;
	default: free(copy); return false;
	}
	l->metric = pt_result_kind(r) == PT_KIND_LAT ? GEN_METRIC_LAT : GEN_METRIC_BW;
	l->msg_size = (uint32_t)w->bytes;
	l->iterations = (uint32_t)w->iterations;
	if ((v = pt_result_field_value(r, "Number of qps")) && atoi(v) > 0)
		l->qps = (uint32_t)atoi(v);
	if ((v = pt_result_field_value(r, "TX depth")) && atoi(v) > 0)
		l->tx_depth = (uint32_t)atoi(v);
	if ((v = pt_result_field_value(r, "Mtu")) && atoi(v) >= 256)
		l->mtu = (uint32_t)atoi(v);
	if (base && sscanf(base, "cen_%u_cde_%u_sen_%u_sde_%u", &m[0], &m[1], &m[2], &m[3]) == 4) {
		l->masks[GEN_CLIENT][GEN_ENCAP] = m[0];
		l->masks[GEN_CLIENT][GEN_DECAP] = m[1];
		l->masks[GEN_SERVER][GEN_ENCAP] = m[2];
		l->masks[GEN_SERVER][GEN_DECAP] = m[3];
	}
	free(copy);
	return true;
}

static int campaign_for_import(struct res_db *db, const struct pt_opts *o, int64_t *id,
			       struct scn_error *err)
{
	struct res_campaign c;
	int rc = res_campaign_find(db, "perftest-import", "perftest-import", &c, err);

	if (rc == 0) {
		*id = c.id;
		return 0;
	}
	if (rc != -ENOENT)
		return rc;
	memset(&c, 0, sizeof(c));
	snprintf(c.plan_path, sizeof(c.plan_path), "(perftest import)");
	snprintf(c.plan_hash, sizeof(c.plan_hash), "perftest-import");
	snprintf(c.testbed, sizeof(c.testbed), "(imported perftest logs)");
	snprintf(c.testbed_identity, sizeof(c.testbed_identity), "perftest-import");
	snprintf(c.rnic_model, sizeof(c.rnic_model), "%s", o->rnic ? o->rnic : "unknown");
	snprintf(c.firmware, sizeof(c.firmware), "unknown");
	snprintf(c.tool_version, sizeof(c.tool_version), "%s", SCALACN_VERSION);
	c.status = RES_DONE;
	snprintf(c.summary, sizeof(c.summary), "perftest logs imported with scalacn perftest "
		 "import");
	if ((rc = res_campaign_insert(db, &c, err)) == 0)
		*id = c.id;
	return rc;
}

static int store_row(struct res_db *db, int64_t campaign, const char *path,
		     const struct pt_result *r, const struct pt_row *w, double when,
		     unsigned *stored, struct scn_error *err)
{
	char levels[4096], pkey[33], ident[300], *copy = strdup(path);
	struct res_trial t = { .campaign = campaign, .started = when, .finished = when };
	struct gen_levels l;
	int rc;

	if (!copy)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
	snprintf(ident, sizeof(ident), "perftest-import:%s", basename(copy));
	free(copy);
	if (!levels_of(path, r, w, &l))
		return 0;
	hx_point_json(&l, levels, sizeof(levels));
	hx_point_key(&l, pkey);
	if ((rc = res_point_upsert(db, campaign, pkey, levels, "", "import", &t.point, err)) < 0)
		return rc;
	hx_trial_key(&l, 0, ident, t.key);
	snprintf(t.verb, sizeof(t.verb), "%s", topo_verb_name(l.verb));
	snprintf(t.metric, sizeof(t.metric), "%s", l.metric == GEN_METRIC_LAT ? "lat" : "bw");
	snprintf(t.sample.status, sizeof(t.sample.status), "ok");
	snprintf(t.sample.counters_json, sizeof(t.sample.counters_json), "{}");
	/* what this test did not measure stays NAN (stored as NULL) */
	t.sample.bw_gbps = t.sample.msg_rate_mpps = NAN;
	t.sample.lat_median_us = t.sample.lat_p99_us = NAN;
	if (l.metric == GEN_METRIC_BW) {
		t.sample.bw_gbps = w->bw_avg_gbps;
		t.sample.msg_rate_mpps = w->msg_rate_mpps;
	} else {
		t.sample.lat_median_us = isnan(w->t_typical) ? w->t_avg : w->t_typical;
		t.sample.lat_p99_us = w->p99;
	}
	rc = res_trial_put(db, &t, err);
	if (rc == -EEXIST)
		return 0;
	*stored += rc == 0;
	return rc;
}

static int cmd_import(const struct pt_opts *o, int n, char **files)
{
	unsigned stored = 0, rows = 0, bad = 0;
	struct res_db *db = NULL;
	struct scn_error err;
	int64_t campaign = 0;
	int rc;

	scn_error_clear(&err);
	if ((rc = res_open(o->db, true, &db, &err)) < 0 ||
	    (rc = campaign_for_import(db, o, &campaign, &err)) < 0) {
		res_close(db);
		return hx_report_error(&err);
	}
	for (int i = 0; i < n && rc == 0; i++) {
		struct pt_result *r = NULL;
		struct stat st;

		if (parse_file(files[i], o->gbits, &r, &err) < 0) {
			hx_report_error(&err);
			bad++;
			continue;
		}
		for (size_t k = 0; k < pt_result_n_rows(r) && rc == 0; k++, rows++)
			rc = store_row(db, campaign, files[i], r, pt_result_row(r, k),
				       stat(files[i], &st) == 0 ? (double)st.st_mtime : 0, &stored,
				       &err);
		pt_result_free(r);
	}
	res_close(db);
	if (rc < 0)
		return hx_report_error(&err);
	printf("imported %u new trials (%u rows) from %d files into %s, campaign %lld%s\n", stored,
	       rows, n - (int)bad, o->db, (long long)campaign, bad ? "; some files were skipped" : "");
	return bad ? HX_EXIT_USAGE : HX_EXIT_OK;
}

int hx_cmd_perftest(int argc, char **argv)
{
	struct pt_opts o = { 0 };
	struct hx_args a;
	const char *sub;
	int c;

	if (argc < 2)
		return hx_usage_error("perftest", "needs 'parse' or 'import'");
	sub = argv[1];
	if (strcmp(sub, "parse") != 0 && strcmp(sub, "import") != 0)
		return hx_usage_error("perftest", "unknown subcommand '%s' (parse, import)", sub);
	/* argv + 1: the subcommand plays argv[0]; GNU getopt moves FILEs after the options */
	argc--;
	argv++;
	a = (struct hx_args)HX_ARGS("perftest", argc, argv);
	while ((c = hx_opt_next(&a)) != -1) {
		switch (c) {
		case 'J': o.json = true; break;
		case 'g': o.gbits = true; break;
		case 'd': o.db = optarg; break;
		case 'r': o.rnic = optarg; break;
		default:
			return hx_bad_option("perftest", argv);
		}
	}
	if (optind >= argc)
		return hx_usage_error("perftest", "%s needs at least one FILE", sub);
	if (!strcmp(sub, "parse"))
		return o.db ? hx_usage_error("perftest", "parse takes no --db") :
			      cmd_parse(&o, argc - optind, argv + optind);
	if (!o.db)
		return hx_usage_error("perftest", "import needs --db DB");
	if (o.json)
		return hx_usage_error("perftest", "--json: 'perftest import' has no JSON output");
	return cmd_import(&o, argc - optind, argv + optind);
}

static const struct hx_opt perftest_opts[] = {
	{ "json", 'J', NULL, "parse: print what was read as JSON (docs/json.md)", NULL, 0 },
	{ "gbits", 'g', NULL, "JSON files were written with --report_gbits", NULL, 0 },
	{ "db", 'd', "DB", "import: the results database to store the rows in", HX_COMPLETE_FILE, 0 },
	{ "rnic", 'r', "MODEL", "import: the RNIC model the logs were measured on", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_perftest = {
	"perftest", "parse or import saved perftest output", "parse|import FILE...", perftest_opts,
	"parse: prints what scalacn reads from saved perftest stdout (or --out_json files):\n"
	"the test, verb, header fields and one row per message size, bandwidth in Gb/s\n"
	"(MiB/s converted), latency in usec as perftest measured it (half the round trip\n"
	"for send/write, the full round trip for read).\n"
	"import: stores every row as a trial of the campaign 'perftest-import' (created once\n"
	"per database) with verb, metric, msg_size, qps, tx_depth, mtu and iterations as\n"
	"levels, plus client/server encap/decap masks when the file name follows the ScalaCN\n"
	"artifact (cen_X_cde_Y_sen_Z_sde_W_...). Importing a file twice stores nothing new.\n",
	NULL, hx_cmd_perftest,
};
