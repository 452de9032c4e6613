/* SPDX-License-Identifier: MIT */
/*
 * test-ptevidence: the evidence a perftest trial keeps, failed or not (pt_evidence.h): the
 * packets each tc filter counted, from captured `tc -s -j filter show` output
 * (fixtures/rdma/rxe-qemu) and its difference over a trial; the JSON it is written as (hosts
 * and devices named, filter lists dropped before the totals when it does not fit); and, on
 * fake perftest tools reached by a fake kubectl (tests/ptfake.h), the raw lines, attempts,
 * completion status and the counters of each host's device apart, read by a fake `grep`
 * standing in for sysfs. Assumes SCALACN_FIXTURES, bash and python3 (skips without them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "generators/gen.h"
#include "testbeds/perftest/pt_evidence.h"
#include "testbeds/tb.h"
#include "tests/ptfake.h"

static char *fixture_json(const char *rel)
{
	const char *root = getenv("SCALACN_FIXTURES");
	char *path = NULL, *all, *body, *rc;
	long n;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", root ? root : "tests/fixtures", rel) > 0);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("missing fixture %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	all = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(all, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	free(path);
	body = strchr(all, '\n'); /* the first line is the command */
	body = strdup(body ? body + 1 : "");
	if ((rc = strstr(body, "[rc=")))
		*rc = '\0';
	free(all);
	return body;
}

/* TEXT with every occurrence of FROM replaced by TO (malloc'd). */
static char *replaced(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out = NULL;

	assert_non_null(at);
	assert_true(asprintf(&out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) > 0);
	return out;
}

static void test_ptevidence_tc_hits_from_captured_output(void **state)
{
	char *j1 = fixture_json("rdma/rxe-qemu/loop__tc_show_json.txt"), *j2;
	struct pt_tc_hits before = { 0 }, after = { 0 };
	struct scn_error err;

	(void)state;
	assert_int_equal(pt_tc_hits_json(j1, strlen(j1), &before, &err), 0);
	assert_int_equal(before.n, 3); /* prio 10 (icmp, 5 pings), 20, 30 on chain 0 */
	assert_int_equal(before.v[0].prio, 10);
	assert_int_equal(before.v[0].chain, 0);
	assert_int_equal(before.v[0].handle, 1);
	assert_true(before.v[0].packets == 5);
	assert_int_equal(before.v[2].prio, 30);
	assert_true(before.v[1].packets == 0 && before.v[2].packets == 0);
	/* the same filters after a trial: 12 pings, and 4791's filter counted 6400 */
	j2 = replaced(j1, "\"packets\":5", "\"packets\":12");
	free(j1);
	j1 = replaced(j2, "\"index\":2,\"ref\":1,\"bind\":1,\"installed\":2,\"last_used\":2,"
		      "\"stats\":{\"bytes\":0,\"packets\":0",
		      "\"index\":2,\"ref\":1,\"bind\":1,\"installed\":2,\"last_used\":2,"
		      "\"stats\":{\"bytes\":0,\"packets\":6400");
	assert_int_equal(pt_tc_hits_json(j1, strlen(j1), &after, &err), 0);
	pt_tc_hits_delta(&before, &after);
	assert_int_equal(after.n, 3);
	assert_true(after.v[0].packets == 7);
	assert_true(after.v[1].packets == 6400);
	assert_true(after.v[2].packets == 0);
	/* a filter installed again since (its count went down) keeps its own count */
	before.v[1].packets = 9000;
	after.v[1].packets = 100;
	pt_tc_hits_delta(&before, &after);
	assert_true(after.v[1].packets == 100);
	/* no filters (tc prints nothing) and text that is not tc's JSON */
	pt_tc_hits_free(&after);
	assert_int_equal(pt_tc_hits_json(" \n", 2, &after, &err), 0);
	assert_int_equal(after.n, 0);
	assert_int_equal(pt_tc_hits_json("{\"a\":1}", 7, &after, &err), -EINVAL);
	assert_int_equal(err.cls, SCN_ERR_TRANSIENT);
	free(j1);
	free(j2);
	pt_tc_hits_free(&before);
	pt_tc_hits_free(&after);
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	return v;
}

/* A testbed of two hosts (server with 300 filters on veth1, client with 1 on veth0) and
 * the evidence of one trial on it, written into a buffer of LEN bytes. */
static struct json_object *written(size_t len, char *buf)
{
	static struct pt_inventory inv;
	static struct tb_perftest t;
	struct pt_evidence *e = calloc(1, sizeof(*e));
	struct json_object *j;

	memset(&inv, 0, sizeof(inv));
	memset(&t, 0, sizeof(t));
	inv.n_hosts = 2;
	snprintf(inv.hosts[0].name, sizeof(inv.hosts[0].name), "server");
	snprintf(inv.hosts[0].device, sizeof(inv.hosts[0].device), "rxe1");
	snprintf(inv.hosts[1].name, sizeof(inv.hosts[1].name), "client");
	snprintf(inv.hosts[1].device, sizeof(inv.hosts[1].device), "rxe0");
	inv.hosts[0].ib_port = inv.hosts[1].ib_port = 1;
	t.inv = &inv;
	snprintf(t.scope[0].devs[0], sizeof(t.scope[0].devs[0]), "veth1");
	snprintf(t.scope[1].devs[0], sizeof(t.scope[1].devs[0]), "veth0");
	t.scope[0].n_devs = t.scope[1].n_devs = 1;
	pt_evidence_reset(e);
	e->attempts = 2;
	pt_evidence_line(e, "client: line 6: 65536 1000 inf inf");
	snprintf(e->completion, sizeof(e->completion), "client: Failed status 12: wr_id 0");
	e->wc_status = 12;
	e->have_dev[0] = e->have_dev[1] = true;
	pt_counters_put(&e->dev[0], "rcvd_pkts", 6400, false);
	pt_counters_put(&e->dev[0], "duplicate_request", 0, false);
	pt_counters_put(&e->dev[1], "sent_pkts", 6500, false);
	pt_counters_put(&e->dev[1], "completer_retry_err", 3, false); /* the client resent */
	e->have_tc[0] = e->have_tc[1] = true;
	for (unsigned i = 0; i < 300; i++) {
		struct pt_tc_hit h = { .chain = 0, .prio = i + 1, .handle = 1, .packets = 0 };

		if (i == 299)
			h.prio = PT_TC_TAIL_PRIO, h.packets = 6400;
		e->after[0][0].v = realloc(e->after[0][0].v, (i + 1) * sizeof(h));
		e->after[0][0].v[e->after[0][0].n++] = h;
	}
	pt_evidence_json(&t, e, buf, len);
	pt_evidence_free(e);
	free(e);
	j = json_tokener_parse(buf);
	assert_non_null(j);
	return j;
}

static void test_ptevidence_json_names_each_device(void **state)
{
	char *buf = malloc(TB_EVIDENCE_JSON_MAX);
	struct json_object *j = written(TB_EVIDENCE_JSON_MAX, buf), *d, *tc, *hits, *last;

	(void)state;
	assert_int_equal(json_object_get_int(member(j, "attempts")), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(member(j, "lines"),
									     0)),
			    "client: line 6: 65536 1000 inf inf");
	assert_int_equal(json_object_get_int(member(member(j, "completion"), "wc_status")), 12);
	d = member(j, "devices");
	assert_int_equal(json_object_array_length(d), 2);
	assert_string_equal(json_object_get_string(member(json_object_array_get_idx(d, 0),
							  "host")), "server");
	assert_string_equal(json_object_get_string(member(json_object_array_get_idx(d, 1),
							  "device")), "rxe0");
	/* not summed: the client's retries are the client's */
	assert_int_equal(json_object_get_int(member(member(json_object_array_get_idx(d, 1),
							   "counters"), "completer_retry_err")), 3);
	assert_int_equal(json_object_get_int(member(member(json_object_array_get_idx(d, 0),
							   "counters"), "rcvd_pkts")), 6400);
	tc = member(j, "tc");
	assert_int_equal(json_object_array_length(tc), 2);
	assert_string_equal(json_object_get_string(member(json_object_array_get_idx(tc, 0),
							  "dev")), "veth1");
	assert_int_equal(json_object_get_int(member(json_object_array_get_idx(tc, 0), "filters")),
			 300);
	assert_int_equal(json_object_get_int(member(json_object_array_get_idx(tc, 0), "packets")),
			 6400);
	hits = member(json_object_array_get_idx(tc, 0), "hits");
	assert_int_equal(json_object_array_length(hits), 300);
	last = json_object_array_get_idx(hits, 299); /* [chain, prio, handle, packets] */
	assert_int_equal(json_object_get_int(json_object_array_get_idx(last, 1)), 65535);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(last, 3)), 6400);
	assert_false(json_object_object_get_ex(j, "hits_dropped", NULL));
	json_object_put(j);
	/* too small for 300 filters: the lists go, the totals stay */
	j = written(2048, buf);
	assert_true(json_object_get_boolean(member(j, "hits_dropped")));
	tc = member(j, "tc");
	assert_false(json_object_object_get_ex(json_object_array_get_idx(tc, 0), "hits", NULL));
	assert_int_equal(json_object_get_int(member(json_object_array_get_idx(tc, 0), "packets")),
			 6400);
	json_object_put(j);
	/* too small even for that: still a JSON object that says so */
	j = written(120, buf);
	assert_true(json_object_get_boolean(member(j, "truncated")));
	assert_int_equal(json_object_get_int(member(j, "attempts")), 2);
	json_object_put(j);
	free(buf);
}

/* A fake grep in DIR: for sysfs RDMA counters it prints sent_pkts and rcvd_pkts of call N
 * (N * N * 10 and N * 10, N counted in DIR/grep.n), anything else goes to the real grep. */
static void fake_grep(const char *dir)
{
	char *text = NULL;

	assert_true(asprintf(&text, "#!/bin/bash\n"
			     "case \"$*\" in *'/sys/class/infiniband/'*) ;; *) exec /bin/grep \"$@\" ;; esac\n"
			     "n=$(cat '%s/grep.n' 2>/dev/null || echo 0); n=$((n + 1)); "
			     "echo $n > '%s/grep.n'\n"
			     "d=/sys/class/infiniband/rxe0/ports/1/hw_counters\n"
			     "echo \"$d/sent_pkts:$((n * n * 10))\"\n"
			     "echo \"$d/rcvd_pkts:$((n * 10))\"\n", dir, dir) > 0);
	free(ptf_write(dir, "grep", text, true));
	free(text);
}

/* Measure once on kubectl fakes in a fresh directory whose client runs CLIENT; the
 * evidence JSON parsed into *EV. */
static int measure_kube(const char *tool, const char *client, enum gen_metric m,
			unsigned retries, unsigned port_off, struct tb_sample *s,
			struct json_object **ev)
{
	char *dir = ptf_dir(), *inv, *frag = ptf_counting(client), *path = NULL;
	const char *old = getenv("PATH");
	char *saved = strdup(old ? old : "/usr/bin:/bin");
	struct gen_traffic t;
	struct gen_levels l;
	struct scn_error err;
	struct tb *tb = NULL;
	int rc;

	ptf_kubectl(dir);
	fake_grep(dir);
	ptf_tool(dir, tool, frag);
	inv = ptf_inventory(dir, dir, "kubectl", ptf_port_base(port_off), retries);
	assert_true(asprintf(&path, "%s:%s", dir, saved) > 0);
	setenv("PATH", path, 1);
	assert_int_equal(tb_open(inv, &tb, &err), 0);
	gen_levels_neutral(&l);
	l.iterations = 1000;
	l.metric = m;
	gen_traffic_from_levels(&l, &t);
	rc = tb_measure(tb, &t, 1, s, &err);
	tb_close(tb);
	setenv("PATH", saved, 1);
	*ev = s->evidence_json[0] ? json_tokener_parse(s->evidence_json) : NULL;
	free(saved);
	free(path);
	free(frag);
	free(inv);
	ptf_rmdir(dir);
	return rc;
}

static double dev_counter(struct json_object *ev, unsigned i, const char *host,
			  const char *name)
{
	struct json_object *d = json_object_array_get_idx(member(ev, "devices"), i);

	assert_string_equal(json_object_get_string(member(d, "host")), host);
	assert_string_equal(json_object_get_string(member(d, "device")), "rxe0");
	return json_object_get_double(member(member(d, "counters"), name));
}

/* The inventory's hosts are server, then client; counters are read before and after each
 * attempt in that order: grep calls 5..8 are the second attempt's. */
static void test_ptevidence_unusable_keeps_lines_and_each_device(void **state)
{
	char *table = ptf_lat_table("inf"), *client = NULL;
	struct json_object *ev = NULL, *lines;
	struct tb_sample s;

	(void)state;
	if (!ptf_usable())
		skip();
	assert_true(asprintf(&client, "cat <<'END'\n%sEND\n", table) > 0);
	assert_int_equal(measure_kube("ib_write_lat", client, GEN_METRIC_LAT, 1, 100, &s, &ev), 0);
	assert_int_equal(s.status, TB_UNUSABLE);
	assert_non_null(ev);
	assert_int_equal(json_object_get_int(member(ev, "attempts")), 2);
	lines = member(ev, "lines");
	assert_int_equal(json_object_array_length(lines), 1);
	assert_non_null(strstr(json_object_get_string(json_object_array_get_idx(lines, 0)),
			       "client: line 6: 65536 1000 inf inf inf inf"));
	assert_true(json_object_get_type(member(ev, "completion")) == json_type_null);
	assert_true(json_object_get_type(member(ev, "tc")) == json_type_null); /* eswitch: none */
	assert_int_equal(json_object_array_length(member(ev, "devices")), 2);
	assert_true(dev_counter(ev, 0, "server", "sent_pkts") == 490 - 250); /* calls 7 - 5 */
	assert_true(dev_counter(ev, 1, "client", "sent_pkts") == 640 - 360); /* calls 8 - 6 */
	assert_true(dev_counter(ev, 0, "server", "rcvd_pkts") == 20);
	/* the sample's counters are the sum, as before */
	assert_true(tb_sample_counter(&s, "sent_pkts") == 240 + 280);
	json_object_put(ev);
	free(client);
	free(table);
}

/* A completion error is a trial status: its stderr line and work completion status are
 * kept, and the counters are read after it as after any trial. */
static void test_ptevidence_completion_error_keeps_status_and_counters(void **state)
{
	const char *client = "echo ' Completion with error at client' >&2\n"
			     "echo ' Failed status 12: wr_id 0 syndrom 0x81' >&2\nexit 1\n";
	struct json_object *ev = NULL, *c;
	struct tb_sample s;

	(void)state;
	if (!ptf_usable())
		skip();
	assert_int_equal(measure_kube("ib_write_bw", client, GEN_METRIC_BW, 0, 120, &s, &ev), 0);
	assert_int_equal(s.status, TB_COMPLETION_ERR);
	assert_non_null(ev);
	assert_int_equal(json_object_get_int(member(ev, "attempts")), 1);
	c = member(ev, "completion");
	assert_int_equal(json_object_get_int(member(c, "wc_status")), 12);
	assert_non_null(strstr(json_object_get_string(member(c, "message")), "client: "));
	assert_non_null(strstr(json_object_get_string(json_object_array_get_idx(
				       member(ev, "lines"), 0)), "client: stderr line"));
	assert_true(dev_counter(ev, 0, "server", "sent_pkts") == 90 - 10);
	assert_true(dev_counter(ev, 1, "client", "sent_pkts") == 160 - 40);
	json_object_put(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptevidence_tc_hits_from_captured_output),
		cmocka_unit_test(test_ptevidence_json_names_each_device),
		cmocka_unit_test(test_ptevidence_unusable_keeps_lines_and_each_device),
		cmocka_unit_test(test_ptevidence_completion_error_keeps_status_and_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
