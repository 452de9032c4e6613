/* SPDX-License-Identifier: MIT */
/*
 * pt_measure: one trial on real hosts (pt_tb.h): for every pair at once, a port from the
 * allocator, counters before, the perftest server, a wait for its LISTEN state (read from
 * /proc/net/tcp, never by connecting), the client, a deadline (setup + traffic + slack) that
 * kills process groups, counters after, then stderr classification and output parsing.
 * Transient failures (port busy, refused connection, peer gone) and unusable output (a
 * bandwidth or latency of 0, below 0 or "inf", output that does not parse) are retried up
 * to the inventory's retries with fresh ports; unusable output on the last attempt is the
 * trial's status (TB_UNUSABLE, the raw line as evidence), not an error; device and config
 * failures are returned, with the number of attempts in the message.
 * Several pairs: bandwidth and message rate are summed, latency medians averaged, p99 is the
 * worst pair's. Latency is what perftest prints (one-way for send/write, RTT for read).
 * Every trial that ran, failed or not, keeps its evidence (pt_evidence.h): the counters and
 * the tc filters' packets are read after the traffic whatever its outcome.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testbeds/perftest/pt_cmd.h"
#include "testbeds/perftest/pt_evidence.h"
#include "testbeds/perftest/pt_parse.h"
#include "testbeds/perftest/pt_tb.h"

struct side {
	struct pt_proc *srv, *cli;
	unsigned port;
	bool listening;
};

struct attempt {
	struct tb_perftest *t;
	const struct gen_traffic *tr;
	struct side s[PT_MAX_PAIRS];
	struct pt_counters before[PT_MAX_HOSTS];
	double run_s;
	struct pt_evidence ev;
};

static void release(struct attempt *a)
{
	for (unsigned i = 0; i < a->t->inv->n_pairs; i++) {
		pt_proc_free(a->s[i].cli);
		pt_proc_free(a->s[i].srv);
		pt_ports_put(a->t->ports, a->s[i].port);
		a->s[i] = (struct side){ 0 };
	}
}

static int take_ports(struct attempt *a, struct scn_error *err)
{
	for (unsigned i = 0; i < a->t->inv->n_pairs; i++) {
		char *table = NULL;
		int rc = pt_tb_tcp_table(a->t, a->t->inv->pairs[i].server, &table, err);

		if (rc == 0)
			rc = pt_ports_get(a->t->ports, table, &a->s[i].port, err);
		free(table);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int start(struct attempt *a, unsigned i, bool client, struct scn_error *err)
{
	const struct pt_inventory *inv = a->t->inv;
	unsigned h = client ? inv->pairs[i].client : inv->pairs[i].server;
	struct pt_wrap w = { .kill_after_s = inv->setup_s + a->run_s + inv->slack_s };
	struct pt_argv argv;
	int rc;

	pt_argv_init(&argv);
	rc = pt_cmd_argv(inv, &inv->hosts[h], a->tr, a->s[i].port,
			 client ? inv->hosts[inv->pairs[i].server].data_ip : NULL, &argv, err);
	if (rc == 0)
		rc = pt_tb_spawn(a->t, h, argv.v, &w, client ? &a->s[i].cli : &a->s[i].srv, err);
	pt_argv_free(&argv);
	return rc;
}

/* Error from a side that failed: the more specific stderr of client or server. */
static int side_error(struct attempt *a, unsigned i, enum pt_err *which, struct scn_error *err)
{
	struct pt_diag dc = { 0 }, ds = { 0 }, *d;
	const struct pt_inventory *inv = a->t->inv;
	size_t len;
	const char *e;
	unsigned h;

	if (a->s[i].cli) {
		e = pt_proc_err(a->s[i].cli, &len);
		pt_classify_stderr(e, len, &dc);
	}
	if (a->s[i].srv) {
		e = pt_proc_err(a->s[i].srv, &len);
		pt_classify_stderr(e, len, &ds);
	}
	d = (ds.err != PT_ERR_NONE && (dc.err == PT_ERR_NONE || ds.err < dc.err)) ? &ds : &dc;
	h = d == &ds ? inv->pairs[i].server : inv->pairs[i].client;
	if (which)
		*which = d->err;
	if (d->err != PT_ERR_NONE)
		pt_evidence_line(&a->ev, "%.48s: stderr line %u: %.180s", inv->hosts[h].name,
				 d->line, d->message);
	if (d->err == PT_ERR_COMPLETION) {
		snprintf(a->ev.completion, sizeof(a->ev.completion), "%.48s: %.200s",
			 inv->hosts[h].name, d->message);
		a->ev.wc_status = d->wc_status;
	}
	if (d->err == PT_ERR_NONE)
		return scn_error_set(err, SCN_ERR_TRANSIENT, -EIO, "perftest on %s (port %u) "
				     "failed without a message on stderr", inv->hosts[h].name,
				     a->s[i].port);
	return scn_error_set(err, pt_err_class(d->err), d->err == PT_ERR_NO_DEVICE ||
			     d->err == PT_ERR_PORT_DOWN ? -ENODEV : -EIO,
			     "perftest on %s (device %s, port %u): %s: %s", inv->hosts[h].name,
			     inv->hosts[h].device, a->s[i].port, pt_err_name(d->err), d->message);
}

static bool listening(struct attempt *a, unsigned i)
{
	char *table = NULL;
	struct scn_error e;
	bool yes;

	if (pt_tb_tcp_table(a->t, a->t->inv->pairs[i].server, &table, &e) < 0)
		return false;
	yes = table && pt_tcp_table_has(table, a->s[i].port, true);
	free(table);
	return yes;
}

static int wait_listen(struct attempt *a, struct scn_error *err)
{
	double deadline = pt_now() + a->t->inv->listen_s;
	unsigned n = a->t->inv->n_pairs, left = n;

	while (left) {
		left = 0;
		for (unsigned i = 0; i < n; i++) {
			if (a->s[i].listening)
				continue;
			pt_proc_poll(&a->s[i].srv, 1, 0);
			if (!pt_proc_running(a->s[i].srv))
				return side_error(a, i, NULL, err);
			a->s[i].listening = listening(a, i);
			left += !a->s[i].listening;
		}
		if (left && pt_now() > deadline)
			return scn_error_set(err, SCN_ERR_TRANSIENT, -ETIMEDOUT, "perftest server "
					     "not listening after %.1f s", a->t->inv->listen_s);
		if (left) /* remote tables cost an ssh round trip each */
			usleep(a->t->inv->hosts[a->t->inv->pairs[0].server].transport == PT_TR_LOCAL ?
			       10000 : 200000);
	}
	return 0;
}

/* Wait for every process; the deadline kills what is left. true when a client was killed. */
static bool wait_all(struct attempt *a, double deadline)
{
	struct pt_proc *all[2 * PT_MAX_PAIRS];
	unsigned n = a->t->inv->n_pairs;
	bool killed = false;

	for (unsigned i = 0; i < n; i++) {
		all[2 * i] = a->s[i].srv;
		all[2 * i + 1] = a->s[i].cli;
	}
	while (pt_proc_poll(all, 2 * n, 20) > 0 && pt_now() < deadline) {
		bool clients_done = true;

		for (unsigned i = 0; i < n; i++)
			clients_done &= !pt_proc_running(a->s[i].cli);
		/* a server whose client is gone gets a little longer, not the whole deadline */
		if (clients_done && deadline > pt_now() + 2)
			deadline = pt_now() + 2;
	}
	for (unsigned i = 0; i < 2 * n; i++)
		if (pt_proc_running(all[i])) {
			killed |= i % 2 == 1;
			pt_proc_kill(all[i]);
		}
	return killed;
}

/* Line LINE (1-based) of TEXT, spaces squeezed, into BUF. */
static void raw_line(const char *text, size_t len, unsigned line, char *buf, size_t blen)
{
	size_t i = 0, n = 0;
	bool space = false;

	for (unsigned l = 1; i < len && l < line; i++)
		l += text[i] == '\n';
	while (i < len && (text[i] == ' ' || text[i] == '\t'))
		i++;
	for (; i < len && text[i] != '\n' && n + 1 < blen; i++) {
		bool sp = text[i] == ' ' || text[i] == '\t' || text[i] == '\r';

		if (!sp && space && n + 2 < blen)
			buf[n++] = ' ';
		if (!sp)
			buf[n++] = text[i];
		space = sp;
	}
	buf[n] = '\0';
}

/* The trial is unusable: the test ran but its output gives no number to keep. */
static int unusable(struct tb_sample *out, const char *host, const char *what)
{
	out->status = TB_UNUSABLE;
	out->bw_gbps = out->msg_rate_mpps = out->lat_median_us = out->lat_p99_us = NAN;
	snprintf(out->evidence, sizeof(out->evidence), "%.48s: %.200s", host, what);
	return 0;
}

/* Pair I's row into the sums: bandwidth and rate add up, latency medians average. */
static int fill_pair(struct attempt *a, unsigned i, struct tb_sample *out, double *lat,
		     unsigned *nlat)
{
	const struct gen_traffic *tr = a->tr;
	const char *host = a->t->inv->hosts[a->t->inv->pairs[i].client].name;
	struct pt_result *r = NULL;
	const struct pt_row *row;
	struct scn_error perr;
	char line[200];
	size_t len;
	const char *text = pt_proc_out(a->s[i].cli, &len);

	if (pt_parse_text(text, len, "perftest client output", &r, &perr) < 0) {
		scn_error_format(&perr, line, sizeof(line));
		return unusable(out, host, line);
	}
	row = pt_result_row_for_bytes(r, tr->msg_size);
	if (!row)
		row = pt_result_row(r, pt_result_n_rows(r) - 1);
	snprintf(line, sizeof(line), "line %u: ", row->line);
	raw_line(text, len, row->line, line + strlen(line), sizeof(line) - strlen(line));
	if (tr->metric == GEN_METRIC_BW) {
		/* 0, negative or not finite: perftest prints "inf" when its clock failed */
		if (!(isfinite(row->bw_avg_gbps) && row->bw_avg_gbps > 0) ||
		    !(isnan(row->msg_rate_mpps) || (isfinite(row->msg_rate_mpps) &&
						    row->msg_rate_mpps >= 0))) {
			pt_result_free(r);
			return unusable(out, host, line);
		}
		out->bw_gbps += row->bw_avg_gbps;
		out->msg_rate_mpps += isnan(row->msg_rate_mpps) ? 0 : row->msg_rate_mpps;
	} else {
		double med = isfinite(row->t_typical) ? row->t_typical : row->t_avg;

		if (!(isfinite(med) && med > 0)) { /* "inf" (seen under QEMU) or 0 */
			pt_result_free(r);
			return unusable(out, host, line);
		}
		*lat += med;
		(*nlat)++;
		if (isfinite(row->p99) && row->p99 > 0 &&
		    (isnan(out->lat_p99_us) || row->p99 > out->lat_p99_us))
			out->lat_p99_us = row->p99;
	}
	pt_result_free(r);
	if (!out->evidence[0])
		snprintf(out->evidence, sizeof(out->evidence), "%.48s: %.200s", host, line);
	return 0;
}

/* Pair I's row (or why there is none) as a line of the trial's evidence. */
static int fill_pair_noted(struct attempt *a, unsigned i, struct tb_sample *out, double *lat,
			   unsigned *nlat)
{
	char before[sizeof(out->evidence)];
	int rc;

	snprintf(before, sizeof(before), "%s", out->evidence);
	out->evidence[0] = '\0';
	rc = fill_pair(a, i, out, lat, nlat);
	pt_evidence_line(&a->ev, "%s", out->evidence);
	if (before[0] && out->status == TB_OK) /* the first pair's line stays the message */
		snprintf(out->evidence, sizeof(out->evidence), "%s", before);
	return rc;
}

/* The last non-empty line of TEXT into BUF ("" when none). */
static void last_line(const char *text, size_t len, char *buf, size_t blen)
{
	unsigned lines = 1, last = 0;

	for (size_t i = 0; i < len; i++) {
		if (text[i] != '\n' && text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
			last = lines;
		lines += text[i] == '\n';
	}
	buf[0] = '\0';
	if (last)
		raw_line(text, len, last, buf, blen);
}

/* A trial that timed out: what each client printed last, the raw lines that show how far it
 * got. */
static void note_timeout(struct attempt *a)
{
	for (unsigned i = 0; i < a->t->inv->n_pairs; i++) {
		const char *host = a->t->inv->hosts[a->t->inv->pairs[i].client].name;
		char line[200];
		size_t len;
		const char *text = a->s[i].cli ? pt_proc_out(a->s[i].cli, &len) : NULL;

		if (text)
			last_line(text, len, line, sizeof(line));
		pt_evidence_line(&a->ev, "%.48s: killed at the deadline; last output: %.160s",
				 host, text && line[0] ? line : "(none)");
	}
}

/* Numbers of every pair; a pair whose output cannot be used makes the trial unusable (a
 * status, with the raw line as evidence), never an error of the call. */
static int fill(struct attempt *a, struct tb_sample *out, struct scn_error *err)
{
	const struct gen_traffic *tr = a->tr;
	unsigned n = a->t->inv->n_pairs, nlat = 0;
	double lat = 0;

	(void)err;
	/* what the test does not measure is NAN (tb.h); the store keeps it as NULL */
	out->bw_gbps = out->msg_rate_mpps = tr->metric == GEN_METRIC_BW ? 0 : NAN;
	out->lat_median_us = out->lat_p99_us = NAN;
	for (unsigned i = 0; i < n && out->status == TB_OK; i++)
		fill_pair_noted(a, i, out, &lat, &nlat);
	if (out->status != TB_OK)
		return 0;
	if (nlat)
		out->lat_median_us = lat / nlat;
	if (tr->metric == GEN_METRIC_LAT && isnan(out->lat_p99_us)) /* no percentile column */
		out->lat_p99_us = out->lat_median_us;
	if (!tb_sample_judge(out, tr->metric, NULL))
		out->evidence[0] = '\0'; /* an ok trial keeps no evidence */
	return 0;
}

static void counters(struct attempt *a, struct tb_sample *out)
{
	struct pt_counters *after = malloc(sizeof(*after)), *sum = calloc(1, sizeof(*sum));

	for (unsigned h = 0; after && sum && h < a->t->inv->n_hosts; h++)
		if (pt_tb_host_used(a->t, h)) {
			pt_tb_counters(a->t, h, after);
			pt_counters_delta(&a->before[h], after, sum);
			/* each host apart too: which side retransmitted? */
			pt_counters_delta(&a->before[h], after, &a->ev.dev[h]);
			a->ev.have_dev[h] = true;
		}
	if (sum)
		pt_counters_to_sample(sum, out, 2);
	free(after);
	free(sum);
}

/* The tc filters of every host with rules, before (AFTER false) or after the traffic. */
static void tc_hits(struct attempt *a, bool after)
{
	struct tb_perftest *t = a->t;

	for (unsigned h = 0; t->have_tc && h < t->inv->n_hosts; h++) {
		if (!t->installed[h] || !t->scope[h].n_devs)
			continue;
		if (!after) {
			a->ev.have_tc[h] = pt_evidence_tc(t, h, a->ev.before[h]);
			continue;
		}
		if (a->ev.have_tc[h] && (a->ev.have_tc[h] = pt_evidence_tc(t, h, a->ev.after[h])))
			for (unsigned i = 0; i < t->scope[h].n_devs; i++)
				pt_tc_hits_delta(&a->ev.before[h][i], &a->ev.after[h][i]);
	}
}

/* What the trial left to read, whatever its outcome: counters, then tc. */
static void after_traffic(struct attempt *a, struct tb_sample *out)
{
	counters(a, out);
	tc_hits(a, true);
}

static int once(struct attempt *a, struct tb_sample *out, struct scn_error *err)
{
	const struct pt_inventory *inv = a->t->inv;
	enum pt_err which = PT_ERR_NONE;
	int rc;

	if ((rc = take_ports(a, err)) < 0)
		return rc;
	for (unsigned h = 0; h < inv->n_hosts; h++)
		if (pt_tb_host_used(a->t, h))
			pt_tb_counters(a->t, h, &a->before[h]);
	if (!a->t->dry_run)
		tc_hits(a, false);
	for (unsigned i = 0; i < inv->n_pairs; i++)
		if ((rc = start(a, i, false, err)) < 0)
			return rc;
	if (a->t->dry_run)
		for (unsigned i = 0; i < inv->n_pairs; i++)
			fprintf(a->t->dry, "  # wait until TCP port %u is LISTEN on %s "
				"(/proc/net/tcp, at most %.0f s)\n", a->s[i].port,
				inv->hosts[inv->pairs[i].server].name, inv->listen_s);
	else if ((rc = wait_listen(a, err)) < 0)
		return rc;
	for (unsigned i = 0; i < inv->n_pairs; i++)
		if ((rc = start(a, i, true, err)) < 0)
			return rc;
	if (a->t->dry_run) {
		counters(a, out);
		return 0;
	}
	if (wait_all(a, pt_now() + inv->setup_s + a->run_s + inv->slack_s)) {
		out->status = TB_TIMEOUT;
		note_timeout(a);
		after_traffic(a, out);
		return 0;
	}
	for (unsigned i = 0; i < inv->n_pairs; i++)
		/* a server we killed after its client finished well is no failure */
		if (pt_proc_exit_code(a->s[i].cli) != 0 ||
		    (pt_proc_exit_code(a->s[i].srv) != 0 &&
		     pt_proc_exit_code(a->s[i].srv) != 128 + SIGKILL)) {
			rc = side_error(a, i, &which, err);
			if (which == PT_ERR_COMPLETION) {
				out->status = TB_COMPLETION_ERR;
				after_traffic(a, out);
				return 0;
			}
			return rc;
		}
	if ((rc = fill(a, out, err)) < 0)
		return rc;
	after_traffic(a, out);
	return 0;
}

static void dry_header(struct tb_perftest *t, const struct gen_traffic *tr)
{
	fprintf(t->dry, "trial %u: %s %s msg_size=%u qps=%u tx_depth=%u mtu=%u iterations=%u "
		"duration_s=%g\n", ++t->dry_trial, topo_verb_name(tr->verb),
		tr->metric == GEN_METRIC_BW ? "bw" : "lat", tr->msg_size, tr->qps, tr->tx_depth,
		tr->mtu, tr->iterations, tr->duration_s);
}

/* Run the trial up to 1 + retries times: again after a transient error or unusable output
 * (fresh ports each time). The last attempt's unusable output is the trial's status; the
 * last transient error is returned with the number of attempts in front. */
static int attempts(struct attempt *a, struct tb_sample *out, struct scn_error *err)
{
	const struct tb_perftest *t = a->t;
	unsigned k;
	int rc = 0;

	for (k = 0; k <= t->inv->retries; k++) {
		memset(out, 0, sizeof(*out));
		pt_evidence_reset(&a->ev);
		rc = once(a, out, err);
		release(a);
		if (t->dry_run || (rc == 0 && out->status != TB_UNUSABLE) ||
		    (rc < 0 && (!err || err->cls != SCN_ERR_TRANSIENT)))
			break;
		if (k < t->inv->retries)
			usleep(100000u * (k + 1));
	}
	k += k <= t->inv->retries; /* attempts made */
	a->ev.attempts = k;
	if (rc < 0 && !t->dry_run)
		scn_error_prefix(err, "after %u attempt%s: ", k, k == 1 ? "" : "s");
	return rc;
}

int pt_tb_measure(struct tb *tb, const struct gen_traffic *tr, uint64_t seed,
		  struct tb_sample *out, struct scn_error *err)
{
	struct tb_perftest *t = pt_tb_of(tb);
	struct attempt *a;
	double t0 = pt_now();
	int rc = 0;

	(void)seed; /* real hardware brings its own noise */
	memset(out, 0, sizeof(*out));
	if (t->dry_run)
		dry_header(t, tr);
	if (t->refused) {
		out->status = TB_APPLY_FAILED;
	} else {
		if (!(a = calloc(1, sizeof(*a))))
			return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "out of memory");
		a->t = t;
		a->tr = tr;
		a->run_s = pt_cmd_run_seconds(t->inv, tr);
		rc = attempts(a, out, err);
		if (rc == 0 && !t->dry_run)
			pt_evidence_json(t, &a->ev, out->evidence_json, sizeof(out->evidence_json));
		pt_evidence_free(&a->ev);
		free(a);
	}
	if (t->have_tc) {
		tb_sample_add_counter(out, "tc_in_hw", t->tc.in_hw);
		tb_sample_add_counter(out, "tc_not_in_hw", t->tc.not_in_hw);
	}
	if (t->dry_run) {
		out->bw_gbps = out->msg_rate_mpps = out->lat_median_us = out->lat_p99_us = NAN;
		out->n_counters = 0;
		return rc;
	}
	out->cost_s = pt_now() - t0 + t->pending_cost_s;
	t->pending_cost_s = 0;
	return rc;
}
