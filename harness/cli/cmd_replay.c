/* SPDX-License-Identifier: MIT */
/*
 * cmd_replay: `scalacn gen-trace` (write a synthetic flow trace) and `scalacn replay`
 * (replay a trace through the runtime optimiser and the baselines; with --testbed, measure
 * each policy's table on the testbed). The work is in hx_trace*.c and hx_replay*.c; this
 * file parses options and prints.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/hx_cli.h"
#include "harness/replay/hx_replay.h"

static int parse_num(const char *cmd, const char *opt, const char *s, double lo, double hi,
		     double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= lo && v <= hi))
		return hx_usage_error(cmd, "%s: '%s' is not a number in [%.15g, %.15g]", opt, s, lo, hi);
	*out = v;
	return 0;
}

static int parse_pop(const char *s, struct hx_trace_gen *g)
{
	char *end;

	if (!strcmp(s, "uniform")) {
		g->pop = HX_TRACE_UNIFORM;
		return 0;
	}
	if (strncmp(s, "zipf:", 5))
		return -EINVAL;
	g->pop = HX_TRACE_ZIPF;
	g->zipf_s = strtod(s + 5, &end);
	return end == s + 5 || *end || !(g->zipf_s >= 0 && g->zipf_s <= 5) ? -EINVAL : 0;
}

int hx_cmd_gen_trace(int argc, char **argv)
{
	struct hx_args a = HX_ARGS("gen-trace", argc, argv);
	const char *cmd = "gen-trace", *path = NULL;
	struct hx_trace_gen g;
	struct scn_error err;
	uint64_t rows = 0;
	double v;
	FILE *out;
	int c, rc;

	hx_trace_gen_default(&g);
	while ((c = hx_opt_next(&a)) != -1) {
		rc = 0;
		if (c == 'f' && !(rc = parse_num(cmd, "--flows", optarg, 1, 1 << 20, &v)))
			g.flows = (uint32_t)v;
		else if (c == 'p' && parse_pop(optarg, &g) < 0)
			return hx_usage_error(cmd, "--popularity: expected zipf:S (0 <= S <= 5) or "
					      "uniform, got '%s'", optarg);
		else if (c == 'd')
			rc = parse_num(cmd, "--duration", optarg, 1, 86400, &g.duration_s);
		else if (c == 'c')
			rc = parse_num(cmd, "--churn", optarg, 0, 1e6, &g.churn);
		else if (c == 's' && !(rc = parse_num(cmd, "--seed", optarg, 0, 1e18, &v)))
			g.seed = (uint64_t)v;
		else if (c == 'm' && !(rc = parse_num(cmd, "--masks", optarg, 1,
						      HX_TRACE_MAX_MASKS, &v)))
			g.masks = (uint32_t)v;
		else if (c == 'r')
			rc = parse_num(cmd, "--pps", optarg, 1, 1e12, &g.pps);
		else if (c == 'o')
			path = optarg;
		else if (c == '?')
			return hx_bad_option(cmd, argv);
		if (rc)
			return rc;
	}
	if (!path || optind < argc)
		return hx_usage_error(cmd, "%s", !path ? "-o FILE is required"
						      : "unexpected argument");
	out = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!out) {
		fprintf(stderr, "scalacn gen-trace: %s: %s\n", path, strerror(errno));
		return HX_EXIT_USAGE;
	}
	rc = hx_trace_generate(&g, out, &rows, &err);
	if (out != stdout && fclose(out) != 0 && rc == 0)
		rc = scn_error_set(&err, SCN_ERR_CONFIG, -EIO, "%s: write error", path);
	if (rc)
		return hx_report_error(&err);
	if (out != stdout)
		fprintf(stderr, "gen-trace: %s: %llu records, %u flows, %.0f s\n", path,
			(unsigned long long)rows, g.flows, g.duration_s);
	return HX_EXIT_OK;
}

struct replay_args {
	const char *model, *rnic, *trace, *testbed;
	bool verb_given, mtu_given, qps_given;
	struct hx_replay_opts ro;
	struct hx_measure_opts mo;
};

/* One of RoCE's path MTUs? */
static bool roce_mtu(double v)
{
	return v == 256 || v == 512 || v == 1024 || v == 2048 || v == 4096;
}

/* --mtu TEXT into *V; a usage error (exit 2) when it is not a RoCE path MTU. */
static int parse_mtu(const char *cmd, const char *text, double *v)
{
	int rc = parse_num(cmd, "--mtu", text, 256, 4096, v);

	if (rc == 0 && !roce_mtu(*v))
		return hx_usage_error(cmd, "--mtu: expected 256, 512, 1024, 2048 or 4096, got '%s'",
				      text);
	return rc;
}

static int replay_opts(int argc, char **argv, struct replay_args *a)
{
	struct hx_args h = HX_ARGS("replay", argc, argv);
	const char *cmd = "replay";
	double v = 0;
	int c, rc;

	while ((c = hx_opt_next(&h)) != -1) {
		rc = 0;
		if (c == 'M')
			a->model = optarg;
		else if (c == 'R')
			a->rnic = optarg;
		else if (c == 't')
			a->trace = optarg;
		else if (c == 'T')
			a->testbed = optarg;
		else if (c == 'm' && !(rc = parse_num(cmd, "--masks", optarg, 1, 4096, &v)))
			a->ro.masks = (uint32_t)v;
		else if (c == 'h' && !(rc = parse_num(cmd, "--hyper", optarg, 0, 1 << 20, &v)))
			a->ro.opt.hyper_capacity = (uint32_t)v;
		else if (c == 'e' && !(rc = parse_num(cmd, "--emc", optarg, 1, 1 << 24, &v)))
			a->ro.emc_entries = (uint32_t)v;
		else if (c == 'U' && !(rc = parse_mtu(cmd, optarg, &v))) {
			a->mo.mtu = (uint32_t)v;
			a->mtu_given = true;
		} else if (c == 'Q' && !(rc = parse_num(cmd, "--qps", optarg, 1, 65536, &v))) {
			a->mo.qps = (uint32_t)v;
			a->qps_given = true;
		}
		else if (c == 'a' && !(rc = parse_num(cmd, "--admission", optarg, 1, 1e12, &v)))
			a->ro.opt.admission_hits = (uint64_t)v;
		else if (c == 'i' && !(rc = parse_num(cmd, "--idle-timeout", optarg, 1, 86400, &v)))
			a->ro.idle_timeout_s = (uint32_t)v;
		else if (c == 's' && !(rc = parse_num(cmd, "--seed", optarg, 0, 1e18, &v))) {
			a->ro.seed = (uint64_t)v;
			a->mo.seed = (uint64_t)v;
		} else if (c == 'v' && topo_verb_parse(optarg, &a->mo.verb) < 0)
			return hx_usage_error(cmd, "--verb: expected send, write or read");
		else if (c == 'v') {
			snprintf(a->ro.opt.verb, sizeof(a->ro.opt.verb), "%s", optarg);
			a->verb_given = true;
		}
		else if (c == '?')
			return hx_bad_option(cmd, argv);
		if (rc)
			return rc;
	}
	if (!a->trace || optind < argc)
		return hx_usage_error(cmd, "%s", !a->trace ? "--trace FILE is required"
							   : "unexpected argument");
	return 0;
}

static void print_policies(const struct hx_replay_summary *s)
{
	printf("%-10s %10s %10s %15s %15s %16s\n", "policy", "masks/pkt", "p99 masks",
	       "rule updates/s", "front-cache hit", "CPU/tick (max)");
	for (int p = 0; p < HX_POL_COUNT; p++) {
		const struct hx_policy_stats *q = &s->pol[p];

		printf("%-10s %10.2f %10.0f %15.1f %14.1f%% %7.3f ms (%.3f)\n",
		       hx_policy_name((enum hx_policy)p), q->mean_probes, q->p99_probes,
		       q->updates_per_s, 100 * q->front_hit_rate, 1e3 * q->cpu_tick_mean_s,
		       1e3 * q->cpu_tick_max_s);
	}
	printf("optimiser: tick CPU %.3f%% of one core at 1 s ticks (all agent calls: %.3f%%); "
	       "memory %.0f bytes per rule (%llu bytes, %u rules)\n",
	       100 * s->pol[HX_POL_OPT].cpu_tick_mean_s, 100 * s->opt_agent_cpu_s,
	       s->opt_rules ? (double)s->opt_bytes / s->opt_rules : 0.0,
	       (unsigned long long)s->opt_bytes, s->opt_rules);
}

static void print_testbed(const struct hx_measure_result *m, const struct hx_measure_opts *mo)
{
	const struct hx_policy_sample *st = &m->pol[HX_POL_STATIC];

	printf("\ntestbed %s: %u flows ranked by the last window's packets, %u masks on the "
	       "server's receive path, popularity %s%.2f (fitted), MTU %u, %u QP%s\n",
	       m->rnic_model, m->flows, m->masks, m->zipf_s > 0 ? "zipf:" : "uniform ", m->zipf_s,
	       mo->mtu, mo->qps, mo->qps == 1 ? "" : "s");
	printf("%-10s %-8s %9s %9s %9s %9s %9s %7s/%s\n", "policy", "status", "bw Gb/s",
	       "vs static", "lat us", "vs static", "p99 us", "rules", "groups");
	for (int p = 0; p < HX_POL_COUNT; p++) {
		const struct hx_policy_sample *q = &m->pol[p];

		printf("%-10s %-8s %9.2f %+8.1f%% %9.3f %+8.1f%% %9.3f %7u/%u\n",
		       hx_policy_name((enum hx_policy)p), tb_status_name(q->bw.status),
		       q->bw.bw_gbps, 100 * (q->bw.bw_gbps / st->bw.bw_gbps - 1),
		       q->lat.lat_median_us, 100 * (q->lat.lat_median_us / st->lat.lat_median_us - 1),
		       q->lat.lat_p99_us, q->server_rules, q->server_groups);
	}
}

/* The verb of the one "VERB/bw" of LIST ("send/bw write/lat"), into OUT; false when there
 * is none or more than one. */
static bool only_bw_verb(const char *list, char *out, size_t len)
{
	const char *bw = strstr(list, "/bw"), *start = bw;

	if (!bw || strstr(bw + 3, "/bw"))
		return false;
	while (start > list && start[-1] != ' ')
		start--;
	snprintf(out, len, "%.*s", (int)(bw - start), start);
	return true;
}

/* Feed input NAME (NULL: none) of the model the level the replayed testbed point holds
 * it at (hx_replay_point), unless the table feeds it (its masks, its rules as flows) or it
 * is no dimension (a host's masks sum, fed from FIXED in feed_model). */
static void feed_point_level(struct opt_config *c, const struct hx_measure_opts *mo,
			     const char *name)
{
	const struct gen_dimension *d = name ? gen_dimension_find(name) : NULL;
	struct gen_levels lv;

	if (!d || !strcmp(name, c->masks_input) || !strcmp(name, c->flows_input))
		return;
	hx_replay_point(1024, 1, mo, 1.0, &lv); /* the levels that do not follow the table */
	opt_config_set_input(c, name, gen_levels_get(&lv, d));
}

/* The replayed table is the server's receive path (hx_replay_layout.c's point: client 1
 * encap mask, server decap masks = the table's, flows = its rules, one encap context per
 * subnet): feed the model's inputs by those names, any other dimension at the point's
 * level. Without --verb, a file with no write/bw but one VERB/bw model uses it. */
static int feed_model(struct replay_args *a, const struct opt_model *m)
{
	static const struct { const char *name; double base; } fixed[] = {
		{ "client.masks", 1 }, { "client.encap_masks", 1 }, { "client.decap_masks", 0 },
		{ "server.encap_masks", 0 },
	};
	struct opt_config *c = &a->ro.opt;
	struct opt_table *t = NULL;
	const char *x = NULL, *y = NULL;
	char list[256], err[512];
	int rc;

	opt_model_list(m, list, sizeof(list));
	if (!a->verb_given && opt_model_inputs(m, c->verb, c->metric, &x, &y) < 0 &&
	    only_bw_verb(list, c->verb, sizeof(c->verb)) &&
	    topo_verb_parse(c->verb, &a->mo.verb) == 0)
		fprintf(stderr, "scalacn replay: the model file has no write/bw model; using its "
			"%s/bw model (it holds %s)\n", c->verb, list);
	if (opt_model_inputs(m, c->verb, c->metric, &x, &y) == 0) {
		for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			opt_config_set_input(c, fixed[i].name, fixed[i].base);
		snprintf(c->masks_input, sizeof(c->masks_input), "%s",
			 strstr(x, "server.") ? x : y && strstr(y, "server.") ? y : "server.masks");
		snprintf(c->flows_input, sizeof(c->flows_input), "flows");
		feed_point_level(c, &a->mo, x);
		feed_point_level(c, &a->mo, y);
	}
	if ((rc = opt_table_new(c, &t)) == 0)
		rc = opt_table_check_model(t, m, err, sizeof(err));
	opt_table_free(t);
	if (rc < 0)
		fprintf(stderr, "scalacn replay: %s: %s\n", a->model, err);
	return rc < 0 ? HX_EXIT_USAGE : 0;
}

/* Append "NAME THEIRS (the replay measures at OURS)" to DIFF (LEN bytes). */
static void add_diff(char *diff, size_t len, const char *name, double theirs, double ours)
{
	size_t l = strlen(diff);

	snprintf(diff + l, len - l, "%s%s %g (the replay measures at %g)", l ? ", " : "", name,
		 theirs, ours);
}

/* The testbed measures the traffic the consulted model describes: its MTU, QPs and (for
 * bandwidth) message size (hx_replay_setting.c), unless --mtu or --qps say otherwise; then
 * a note names where they differ from the model's. */
static void adopt_setting(struct replay_args *a)
{
	struct hx_model_setting s;
	char diff[512] = "";

	hx_replay_model_setting(a->model, a->rnic, a->ro.opt.verb, a->ro.opt.metric, &s);
	if (roce_mtu(s.mtu) && !a->mtu_given)
		a->mo.mtu = (uint32_t)s.mtu;
	else if (isfinite(s.mtu) && s.mtu != a->mo.mtu)
		add_diff(diff, sizeof(diff), "mtu", s.mtu, a->mo.mtu);
	if (s.qps >= 1 && s.qps <= 65536 && !a->qps_given)
		a->mo.qps = (uint32_t)s.qps;
	else if (isfinite(s.qps) && s.qps != a->mo.qps)
		add_diff(diff, sizeof(diff), "qps", s.qps, a->mo.qps);
	if (!strcmp(a->ro.opt.metric, "bw") && s.msg_size >= 1 && s.msg_size <= 1 << 30)
		a->mo.bw_msg_size = (uint32_t)s.msg_size;
	if (diff[0])
		fprintf(stderr, "scalacn replay: note: %s: its %s/%s model was fitted at %s; it "
			"describes other traffic than this measurement, and the optimiser acts on "
			"what it says\n", a->model, a->ro.opt.verb, a->ro.opt.metric, diff);
}

int hx_cmd_replay(int argc, char **argv)
{
	struct replay_args a = { 0 };
	struct opt_model *model = NULL;
	struct hx_trace *tr = NULL;
	struct hx_replay *r = NULL;
	struct hx_measure_result m;
	struct scn_error err;
	char msg[512];
	int rc;

	hx_replay_opts_default(&a.ro);
	hx_measure_opts_default(&a.mo);
	if ((rc = replay_opts(argc, argv, &a)) != 0)
		return rc;
	if (a.model && opt_model_load(a.model, a.rnic, &model, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "scalacn replay: %s: %s\n", a.model, msg);
		return HX_EXIT_USAGE;
	}
	if (model && (rc = feed_model(&a, model)) != 0) {
		opt_model_free(model);
		return rc;
	}
	if (model && a.testbed)
		adopt_setting(&a);
	a.ro.model = model;
	a.ro.opt.always_optimise = model == NULL;
	scn_error_clear(&err);
	rc = hx_trace_read(a.trace, &tr, &err);
	if (rc == 0)
		rc = hx_replay_run(tr, &a.ro, &r, &err);
	if (rc == 0) {
		const struct hx_replay_summary *s = hx_replay_summary(r);

		printf("replay %s: %llu records, %u s, %u flows (%u with rules at the end), %u "
		       "masks, %llu packets\n", a.trace, (unsigned long long)s->records,
		       s->seconds, s->flows_seen, s->flows_final, s->masks_seen,
		       (unsigned long long)s->packets);
		printf("model: %s\n", a.model ? a.model : "none (the optimiser plans every tick)");
		print_policies(s);
	}
	if (rc == 0 && a.testbed) {
		rc = hx_replay_measure(hx_replay_layout(r), a.testbed, &a.mo, &m, &err);
		if (rc == 0)
			print_testbed(&m, &a.mo);
	}
	hx_replay_free(r);
	hx_trace_free(tr);
	opt_model_free(model);
	return rc ? hx_report_error(&err) : HX_EXIT_OK;
}

static const struct hx_opt gen_trace_opts[] = {
	{ "flows", 'f', "N", "concurrent flows (1..1M)", NULL, 0 },
	{ "popularity", 'p', "P", "zipf:S (Zipf rank exponent S, 0..5) or uniform", "uniform zipf:1.0", 0 },
	{ "duration", 'd', "SECONDS", "length of the trace", NULL, 0 },
	{ "churn", 'c', "RATE", "flow replacements per second (a Poisson process)", NULL, 0 },
	{ "seed", 's', "N", "seed (same seed, same file)", NULL, 0 },
	{ "output", 'o', "FILE", "the trace to write (- for stdout)", HX_COMPLETE_FILE, 'o' },
	{ "masks", 'm', "M", "masks new flows are drawn from (default 64)", NULL, 0 },
	{ "pps", 'r', "P", "packets per second shared by the flows (default 1e6)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_gen_trace = {
	"gen-trace", "write a synthetic flow trace", NULL, gen_trace_opts,
	"Writes a flow trace (CSV: time,flow,mask,packets; one row per flow and second, or\n"
	"per flow segment when it arrives or departs inside a second). N concurrent flows\n"
	"share P packets per second by popularity (Zipf rank S, or uniform); RATE flow\n"
	"replacements per second (a random flow departs, a new one arrives in its popularity\n"
	"slot, on a mask drawn from M). It writes a file, so it has no JSON form.\n",
	NULL, hx_cmd_gen_trace,
};

static const struct hx_opt replay_opts_table[] = {
	{ "trace", 't', "FILE", "the flow trace (CSV: time,flow[,mask],packets)", HX_COMPLETE_FILE, 0 },
	{ "model", 'M', "FILE", "model file from 'scalacn export' (without one the optimiser\n"
	  "plans every tick)", HX_COMPLETE_FILE, 0 },
	{ "rnic", 'R', "MODEL", "the RNIC model to pick in the model file", NULL, 0 },
	{ "testbed", 'T', "FILE", "program each policy's final table on this testbed and measure",
	  HX_COMPLETE_FILE, 0 },
	{ "hyper", 'h', "N", "hyper mask capacity (entries)", NULL, 0 },
	{ "admission", 'a', "HITS", "hits a flow needs to enter the hyper mask", NULL, 0 },
	{ "idle-timeout", 'i', "S", "seconds before an idle mask is deleted", NULL, 0 },
	{ "masks", 'm', "M", "masks from the flow keys when the trace has no mask column", NULL, 0 },
	{ "verb", 'v', "V", "the verb measured with --testbed", "send write read", 0 },
	{ "seed", 's', "N", "seed", NULL, 0 },
	{ "mtu", 'U', "N", "path MTU of the --testbed measurement (default: the model's,\n"
	  "else 1024)", "256 512 1024 2048 4096", 0 },
	{ "qps", 'Q', "N", "queue pairs of the --testbed measurement (default: the model's,\n"
	  "else 4)", NULL, 0 },
	{ "emc", 'e', "N", "exact-match cache entries (default 8192; --emc equal to --hyper\n"
	  "compares caches of one capacity)", NULL, 0 },
	HX_OPT_END,
};

const struct hx_command hx_def_replay = {
	"replay", "replay a flow trace through the runtime optimiser and baselines", NULL,
	replay_opts_table,
	"Replays a flow trace second by second through the optimiser and three baselines:\n"
	"static insertion order, OVS-style ranking of masks by hits every 1 s, and an\n"
	"exact-match cache with 1/100 insertion (--emc N entries). Prints per policy the masks\n"
	"probed per packet (mean, 99th percentile), rule updates per second, the front-cache\n"
	"(hyper mask / EMC) hit rate and CPU per tick, and the optimiser's memory per rule. With --testbed each\n"
	"policy's final table (flows of the last 10 s) is programmed on the testbed (server\n"
	"receive path) and its bandwidth and latency are printed side by side, measured at\n"
	"the MTU, QPs and message size the model was fitted at (--mtu and --qps override\n"
	"them, and a note says so). Its report is text only: --json is refused.\n",
	NULL, hx_cmd_replay,
};
