/* SPDX-License-Identifier: MIT */
/*
 * test-agent: scalacn-agent's pieces (agent/): the tc JSON reader on real guest output, the
 * tc lines it renders, the mirror and the plans it turns into tc operations (applied to a
 * stand-in table: the hot RoCE prio moves in front, no packet changes action, a preferred
 * overlapping filter stays in front), the control (a model predicting < 5%: no operation),
 * restore (also through a cycle), the state file, the configuration's errors, the firmware
 * check and the metrics.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent-test-util.h"
#include "agent/ag_agent.h"
#include "agent/ag_state.h"
#include "scalacn-opt-mirror.h"

static void parse_text(const char *json, struct ag_filters *fs, int want_rc, char *err,
		       size_t errlen)
{
	memset(fs, 0, sizeof(*fs));
	assert_int_equal(ag_tc_parse(json, strlen(json), "veth1", fs, err, errlen), want_rc);
	ag_filters_sort(fs);
}

static void test_parse_guest_fixture(void **state)
{
	size_t len = 0;
	char *json = agt_fixture("tc-flower-agent.json", &len), err[256] = "";
	struct ag_filters fs;

	(void)state;
	assert_non_null(json);
	parse_text(json, &fs, 0, err, sizeof(err));
	assert_int_equal(fs.n, 3);
	assert_int_equal(fs.v[0].pref, 3);
	assert_string_equal(fs.v[0].match, "dst_ip 10.0.0.2 src_ip 10.0.0.1 enc_dst_ip "
			    "172.16.0.0/16 enc_key_id 100 enc_dst_port 4789");
	assert_string_equal(fs.v[0].actions, "action tunnel_key unset index 1 action mirred "
			    "egress redirect dev veth1 index 1");
	assert_string_equal(fs.v[0].action_id, "tunnel_key/1 mirred/1");
	assert_int_equal(fs.v[0].rule.v[OPT_F_TUN_DST], 0xac100000u);
	assert_int_equal(fs.v[0].rule.mask.plen[OPT_F_TUN_DST], 16);
	assert_int_equal(fs.v[0].rule.v[OPT_F_ETH_TYPE], 0x0800);
	assert_string_equal(fs.v[1].proto, "all");
	assert_string_equal(fs.v[1].actions, "action tunnel_key set src_ip 172.16.0.1 dst_ip "
			    "172.16.0.2 index 2 action mirred egress redirect dev veth1 index 2");
	assert_int_equal(fs.v[1].rule.v[OPT_F_ETH_DST], 0x020000000001ull);
	assert_int_equal(fs.v[2].pref, 300);
	assert_int_equal(fs.v[2].rule.v[OPT_F_IP_PROTO], 17);
	assert_int_equal(fs.v[2].rule.v[OPT_F_L4_DST], 4791);
	assert_int_equal(fs.v[2].rule.mask.plen[OPT_F_IP_DST], 32);
	ag_filters_free(&fs);
	free(json);
}

static void test_parse_refuses_what_it_cannot_move(void **state)
{
	static const char *const bad[][2] = {
		{ "{\"vlan_id\":5}", "key vlan_id" },
		{ "{\"dst_mac\":\"02:00:00:00:00:01/ff:ff:ff:00:00:00\"}", "key dst_mac" },
		{ "{\"dst_ip\":\"fe80::1\"}", "key dst_ip" },
		{ "{\"dst_port\":\"1-100\"}", "key dst_port" },
	};
	char json[1024], err[256];
	struct ag_filters fs;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(json, sizeof(json), "[{\"protocol\":\"ip\",\"pref\":7,\"kind\":\"flower\","
			 "\"chain\":0,\"options\":{\"handle\":9,\"keys\":%s,\"actions\":[{\"kind\":"
			 "\"gact\",\"control_action\":{\"type\":\"drop\"},\"index\":1}]}}]", bad[i][0]);
		parse_text(json, &fs, -EINVAL, err, sizeof(err));
		assert_non_null(strstr(err, "veth1 ingress prio 7 handle 9"));
		assert_non_null(strstr(err, bad[i][1]));
		ag_filters_free(&fs);
	}
	parse_text("[{\"protocol\":\"ip\",\"pref\":7,\"kind\":\"flower\",\"chain\":0,\"options\":"
		   "{\"handle\":9,\"keys\":{},\"actions\":[{\"kind\":\"pedit\",\"index\":1}]}}]", &fs,
		   -EINVAL, err, sizeof(err));
	assert_non_null(strstr(err, "action pedit"));
	ag_filters_free(&fs);
	parse_text("[{\"protocol\":\"all\",\"pref\":2,\"kind\":\"matchall\",\"chain\":0,"
		   "\"options\":{\"actions\":[]}}]", &fs, -EINVAL, err, sizeof(err));
	assert_non_null(strstr(err, "classifier matchall"));
	ag_filters_free(&fs);
	/* other chains are not managed */
	parse_text("[{\"protocol\":\"all\",\"pref\":2,\"kind\":\"matchall\",\"chain\":5,"
		   "\"options\":{\"actions\":[]}}]", &fs, 0, err, sizeof(err));
	assert_int_equal(fs.n, 0);
	ag_filters_free(&fs);
}

/* The array is read entry by entry (ag_tc_parse.c): empty arrays, whitespace between
 * entries, and the ways a dump can be cut or malformed. */
static void test_parse_array_framing(void **state)
{
	static const char entry[] = "{\"protocol\":\"ip\",\"pref\":7,\"kind\":\"flower\","
		"\"chain\":0,\"options\":{\"handle\":9,\"keys\":{\"ip_proto\":\"udp\"},"
		"\"actions\":[{\"kind\":\"gact\",\"control_action\":{\"type\":\"drop\"},"
		"\"index\":1}]}}";
	static const struct {
		const char *head;
		int entries; /* copies of ENTRY after HEAD, a space between two */
		const char *tail, *want;
	} bad[] = {
		{ "", 0, "", "no JSON array" },     { "{}", 0, "", "no JSON array" },
		{ "[", 1, "", "not closed" },       { "[", 1, ",", "not valid" },
		{ "[", 2, "]", "not closed" },      { "[1]", 0, "", "not a JSON object" },
		{ "[", 1, ",{\"pref\":", "not valid" },
	};
	char json[2048], err[256];
	struct ag_filters fs;

	(void)state;
	parse_text(" [ ] ", &fs, 0, err, sizeof(err));
	assert_int_equal(fs.n, 0);
	ag_filters_free(&fs);
	snprintf(json, sizeof(json), "\n[ %s ,\n\t%s\n]\n", entry, entry);
	parse_text(json, &fs, 0, err, sizeof(err));
	assert_int_equal(fs.n, 2);
	assert_string_equal(fs.v[0].match, "ip_proto udp");
	ag_filters_free(&fs);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(json, sizeof(json), "%s%s%s%s%s", bad[i].head, bad[i].entries ? entry : "",
			 bad[i].entries > 1 ? " " : "", bad[i].entries > 1 ? entry : "", bad[i].tail);
		err[0] = '\0';
		parse_text(json, &fs, -EINVAL, err, sizeof(err));
		assert_non_null(strstr(err, "veth1"));
		assert_non_null(strstr(err, bad[i].want));
		ag_filters_free(&fs);
	}
}

static void test_render_lines(void **state)
{
	char *json = agt_table_json(1, 1, 0), line[1200];
	struct ag_filters fs;
	char err[256];

	(void)state;
	parse_text(json, &fs, 0, err, sizeof(err));
	assert_int_equal(fs.n, 2);
	assert_int_equal(ag_render_add(&fs.v[1], "veth1", 2, 1, line, sizeof(line)), 0);
	assert_string_equal(line, "filter add dev veth1 ingress protocol ip chain 0 prio 2 handle 1 "
			    "flower dst_mac 52:54:00:77:00:02 ip_proto udp dst_ip 192.168.77.2 "
			    "dst_port 4791 action gact pass index 2");
	assert_int_equal(ag_render_del("ip", "veth1", 300, line, sizeof(line)), 0);
	assert_string_equal(line, "filter del dev veth1 ingress protocol ip chain 0 prio 300");
	ag_filters_free(&fs);
	free(json);
}

/* A model file: write bw = L / (1 + K * server.decap_masks). */
static void write_model(const char *path, double k, const char *firmware)
{
	struct opt_model_row row = { "Soft-RoCE (rxe)", firmware, "write", "bw", OPT_FORM_SERVICE,
				     { 25, k }, 2, { 0 }, 0, NULL, "server.decap_masks", { 0 } };
	char err[256];

	assert_int_equal(opt_model_write(path, &row, 1, err, sizeof(err)), 0);
}

struct rig {
	char dir[64], model[128];
	struct ag_agent a;
};

static void rig_init(struct rig *r, double k)
{
	char err[512] = "";

	memset(r, 0, sizeof(*r));
	r->a.dry_run = true; /* nothing runs tc */
	snprintf(r->dir, sizeof(r->dir), "/tmp/test-agent.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	snprintf(r->model, sizeof(r->model), "%s/m.model", r->dir);
	write_model(r->model, k, "0.0.0");
	r->a.log = fopen("/dev/null", "w");
	r->a.ops_out = r->a.log;
	snprintf(r->a.cfg.model, sizeof(r->a.cfg.model), "%s", r->model);
	snprintf(r->a.cfg.verb, sizeof(r->a.cfg.verb), "write");
	snprintf(r->a.cfg.metric, sizeof(r->a.cfg.metric), "bw");
	snprintf(r->a.cfg.side, sizeof(r->a.cfg.side), "server");
	snprintf(r->a.cfg.firmware, sizeof(r->a.cfg.firmware), "0.0.0");
	snprintf(r->a.cfg.state_dir, sizeof(r->a.cfg.state_dir), "%s", r->dir);
	r->a.cfg.threshold = 0.05;
	r->a.cfg.hysteresis = 0.25;
	r->a.cfg.update_budget = 2000;
	r->a.cfg.window_s = 60;
	assert_int_equal(ag_agent_load_model(&r->a, err, sizeof(err)), 0);
}

static void rig_free(struct rig *r)
{
	char cmd[128];

	ag_agent_free(&r->a);
	fclose(r->a.log);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", r->dir);
	assert_int_equal(system(cmd), 0);
}

/* Mirror JSON into device 0 of R; *ORIGINAL keeps the parsed table. */
static void rig_mirror(struct rig *r, const char *json, struct ag_filters *original)
{
	struct ag_filters fs;
	char err[512] = "";

	parse_text(json, &fs, 0, err, sizeof(err));
	parse_text(json, original, 0, err, sizeof(err));
	snprintf(r->a.dev[0].m.dev, sizeof(r->a.dev[0].m.dev), "veth1");
	r->a.n_dev = 1;
	assert_int_equal(ag_agent_mirror(&r->a, &r->a.dev[0], &fs, 1, err, sizeof(err)), 0);
	ag_filters_free(&fs);
}

/* Tick the mirror at NOW with FS's counters; the plan's batch into *BATCH. */
static size_t rig_plan(struct rig *r, const struct ag_filters *fs, uint64_t now, char **batch,
		       struct opt_plan **plan)
{
	struct ag_mirror *m = &r->a.dev[0].m;
	size_t len = 0;
	unsigned lines = 0;
	char err[256];
	FILE *mem = open_memstream(batch, &len);

	ag_mirror_feed(m, fs, now);
	assert_int_equal(opt_table_tick(m->t, now, r->a.model, plan), 0);
	assert_int_equal(ag_mirror_batch(m, *plan, mem, &lines, err, sizeof(err)), 0);
	fclose(mem);
	return lines;
}

static void test_plan_moves_hot_prio_to_front_and_keeps_forwarding(void **state)
{
	struct rig r;
	struct ag_filters orig, table = { 0 }, seen_tbl;
	struct opt_plan *plan = NULL;
	struct opt_plan_info info;
	struct ag_check chk = { 0 };
	char *json = agt_table_json(256, 1, 100000), *batch = NULL, err[256] = "";
	bool *seen;
	size_t lines;

	(void)state;
	rig_init(&r, 0.05); /* 1/(1 + 0.05 * 257): 93% predicted */
	rig_mirror(&r, json, &orig);
	lines = rig_plan(&r, &orig, 2, &batch, &plan);
	opt_plan_info(plan, &info);
	assert_true(info.triggered);
	assert_true(info.degradation > 0.9);
	assert_int_equal(info.masks, 257);
	assert_true(lines >= 2);
	/* make before break: the first line adds, a delete only follows an add of its mask */
	assert_int_equal(strncmp(batch, "filter add dev veth1", 20), 0);
	for (size_t i = 0; i < orig.n; i++)
		assert_int_equal(ag_filters_push(&table, &orig.v[i]), 0);
	assert_int_equal(agt_apply_batch(&table, &orig, batch), 0);
	assert_int_equal(table.n, 257);
	assert_int_equal(table.v[0].rule.v[OPT_F_L4_DST], 4791); /* RoCE first */
	/* the forwarding check: RoCE traffic and every decap filter's traffic, same actions */
	seen = calloc(orig.n, sizeof(*seen));
	for (size_t i = 0; i < orig.n; i++)
		seen[i] = true;
	ag_check_tables(&orig, &table, seen, &chk);
	assert_int_equal(chk.packets, 257);
	assert_int_equal(chk.changed, 0);
	/* the mirror follows: the table tc shows now is the one it mirrors */
	assert_int_equal(opt_plan_apply(r.a.dev[0].m.t, plan), 0);
	ag_mirror_moved(&r.a.dev[0].m, plan);
	parse_text(json, &seen_tbl, 0, err, sizeof(err));
	assert_true(ag_mirror_same(&r.a.dev[0].m, &table));
	assert_false(ag_mirror_same(&r.a.dev[0].m, &seen_tbl));
	opt_plan_free(plan);
	free(batch);
	free(seen);
	ag_filters_free(&seen_tbl);
	ag_filters_free(&table);
	ag_filters_free(&orig);
	free(json);
	rig_free(&r);
}

static void test_control_model_applies_nothing(void **state)
{
	struct rig r;
	struct ag_filters orig;
	struct opt_plan *plan = NULL;
	struct opt_plan_info info;
	char *json = agt_table_json(256, 1, 100000), *batch = NULL;

	(void)state;
	rig_init(&r, 0.0001); /* 1/(1 + 0.0001 * 257): 2.5% */
	rig_mirror(&r, json, &orig);
	for (uint64_t now = 2; now < 10; now++) {
		assert_int_equal(rig_plan(&r, &orig, now, &batch, &plan), 0);
		opt_plan_info(plan, &info);
		assert_false(info.triggered);
		assert_true(info.degradation > 0.02 && info.degradation < 0.05);
		assert_int_equal(opt_plan_count(plan), 0);
		opt_plan_free(plan);
		free(batch);
	}
	ag_filters_free(&orig);
	free(json);
	rig_free(&r);
}

/* A preferred filter (prio 2, src 10.0.0.1, drop) overlaps the hot one (prio 300, dst
 * 192.168.77.2, pass): the hot prio must not overtake it. */
static void test_overlapping_preferred_filter_stays_in_front(void **state)
{
	static const char *json =
		"[{\"protocol\":\"ip\",\"pref\":2,\"kind\":\"flower\",\"chain\":0,\"options\":{"
		"\"handle\":1,\"keys\":{\"eth_type\":\"ipv4\",\"src_ip\":\"10.0.0.1\"},\"actions\":"
		"[{\"kind\":\"gact\",\"control_action\":{\"type\":\"drop\"},\"index\":1,\"stats\":"
		"{\"packets\":0}}]}},"
		"{\"protocol\":\"ip\",\"pref\":3,\"kind\":\"flower\",\"chain\":0,\"options\":{"
		"\"handle\":1,\"keys\":{\"eth_type\":\"ipv4\",\"dst_ip\":\"10.9.0.0/16\",\"ip_proto\":"
		"\"tcp\"},\"actions\":[{\"kind\":\"gact\",\"control_action\":{\"type\":\"drop\"},"
		"\"index\":2,\"stats\":{\"packets\":0}}]}},"
		"{\"protocol\":\"ip\",\"pref\":300,\"kind\":\"flower\",\"chain\":0,\"options\":{"
		"\"handle\":1,\"keys\":{\"eth_type\":\"ipv4\",\"dst_ip\":\"192.168.77.2\"},\"actions\":"
		"[{\"kind\":\"gact\",\"control_action\":{\"type\":\"pass\"},\"index\":3,\"stats\":"
		"{\"packets\":50000}}]}}]";
	struct rig r;
	struct ag_filters orig, table = { 0 };
	struct opt_plan *plan = NULL;
	struct opt_pkt pkt = { { 0 } };
	char *batch = NULL;
	long hit;

	(void)state;
	rig_init(&r, 2.0);
	rig_mirror(&r, json, &orig);
	rig_plan(&r, &orig, 2, &batch, &plan);
	for (size_t i = 0; i < orig.n; i++)
		assert_int_equal(ag_filters_push(&table, &orig.v[i]), 0);
	assert_int_equal(agt_apply_batch(&table, &orig, batch), 0);
	/* the hot prio passed the disjoint tcp filter, not the overlapping one */
	assert_string_equal(table.v[0].action_id, "gact/1");
	assert_string_equal(table.v[1].action_id, "gact/3");
	pkt.v[OPT_F_ETH_TYPE] = 0x0800;
	pkt.v[OPT_F_IP_SRC] = 0x0a000001;
	pkt.v[OPT_F_IP_DST] = 0xc0a84d02;
	hit = ag_check_lookup(&table, &pkt);
	assert_true(hit >= 0);
	assert_string_equal(table.v[hit].action_id, "gact/1"); /* still dropped */
	opt_plan_free(plan);
	free(batch);
	ag_filters_free(&table);
	ag_filters_free(&orig);
	rig_free(&r);
}

static void restore_and_compare(struct ag_filters *orig, struct ag_filters *cur,
				unsigned want_moved);

/* Prios 2 and 4 share a mask (as the generators' shapes can, once rendered): one mask to
 * the optimiser, merged into prio 2 (appended handle) before any plan; forwarding is
 * unchanged, and restore splits them back. */
static void test_prios_sharing_a_mask_merged_then_split_back(void **state)
{
	static const char *json =
		"[{\"protocol\":\"ip\",\"pref\":2,\"kind\":\"flower\",\"chain\":0,\"options\":{"
		"\"handle\":1,\"keys\":{\"eth_type\":\"ipv4\",\"dst_ip\":\"10.0.0.1\"},\"actions\":"
		"[{\"kind\":\"gact\",\"control_action\":{\"type\":\"drop\"},\"index\":1}]}},"
		"{\"protocol\":\"ip\",\"pref\":3,\"kind\":\"flower\",\"chain\":0,\"options\":{"
		"\"handle\":1,\"keys\":{\"eth_type\":\"ipv4\",\"dst_ip\":\"10.0.0.3\",\"ip_proto\":"
		"\"tcp\"},\"actions\":[{\"kind\":\"gact\",\"control_action\":{\"type\":\"drop\"},"
		"\"index\":2}]}},"
		"{\"protocol\":\"ip\",\"pref\":4,\"kind\":\"flower\",\"chain\":0,\"options\":{"
		"\"handle\":1,\"keys\":{\"eth_type\":\"ipv4\",\"dst_ip\":\"10.0.0.2\"},\"actions\":"
		"[{\"kind\":\"gact\",\"control_action\":{\"type\":\"drop\"},\"index\":3}]}},"
		"{\"protocol\":\"ip\",\"pref\":300,\"kind\":\"flower\",\"chain\":0,\"options\":{"
		"\"handle\":1,\"keys\":{\"eth_type\":\"ipv4\",\"ip_proto\":\"udp\",\"dst_ip\":"
		"\"192.168.77.2\",\"dst_port\":4791},\"actions\":[{\"kind\":\"gact\","
		"\"control_action\":{\"type\":\"pass\"},\"index\":4,\"stats\":{\"packets\":9000}}]}}]";
	struct rig r;
	struct ag_filters orig, table = { 0 }, after;
	struct ag_check chk = { 0 };
	bool seen[4] = { true, true, true, true };
	char *batch = NULL;
	size_t len = 0;
	unsigned lines = 0;
	FILE *mem;

	(void)state;
	rig_init(&r, 2.0);
	rig_mirror(&r, json, &orig); /* a dry run: the merge is not applied by the rig */
	assert_int_equal(r.a.dev[0].m.n_prios, 4);
	mem = open_memstream(&batch, &len);
	assert_int_equal(ag_mirror_merge_batch(&r.a.dev[0].m, mem, &lines, &after), 0);
	fclose(mem);
	assert_int_equal(lines, 2); /* add at prio 2, delete prio 4 */
	for (size_t i = 0; i < orig.n; i++)
		assert_int_equal(ag_filters_push(&table, &orig.v[i]), 0);
	assert_int_equal(agt_apply_batch(&table, &orig, batch), 0);
	assert_int_equal(table.n, 4);
	assert_int_equal(table.v[1].pref, 2); /* 10.0.0.2 joined prio 2, handle 2 */
	assert_int_equal(table.v[1].handle, 2);
	assert_string_equal(table.v[1].action_id, "gact/3");
	for (size_t i = 0; i < table.n; i++)
		assert_int_equal(table.v[i].pref, after.v[i].pref);
	ag_check_tables(&orig, &table, seen, &chk);
	assert_int_equal(chk.packets, 4);
	assert_int_equal(chk.changed, 0);
	restore_and_compare(&orig, &table, 1);
	free(batch);
	ag_filters_free(&after);
	ag_filters_free(&table);
	ag_filters_free(&orig);
	rig_free(&r);
}

static void restore_and_compare(struct ag_filters *orig, struct ag_filters *cur,
				unsigned want_moved)
{
	char *batch = NULL, err[256] = "";
	size_t len = 0;
	unsigned lines = 0, moved = 0;
	FILE *mem = open_memstream(&batch, &len);

	assert_int_equal(ag_state_restore_batch(orig, cur, "veth1", mem, &lines, &moved), 0);
	fclose(mem);
	assert_int_equal(moved, want_moved);
	assert_int_equal(agt_apply_batch(cur, orig, batch), 0);
	assert_int_equal(ag_state_equal(orig, cur, err, sizeof(err)), 1);
	free(batch);
}

static void test_restore_returns_original_order(void **state)
{
	struct rig r;
	struct ag_filters orig, table = { 0 };
	struct opt_plan *plan = NULL;
	char *json = agt_table_json(64, 2, 9000), *batch = NULL, err[256] = "";

	(void)state;
	rig_init(&r, 0.05);
	rig_mirror(&r, json, &orig);
	rig_plan(&r, &orig, 2, &batch, &plan);
	for (size_t i = 0; i < orig.n; i++)
		assert_int_equal(ag_filters_push(&table, &orig.v[i]), 0);
	assert_int_equal(agt_apply_batch(&table, &orig, batch), 0);
	assert_int_equal(ag_state_equal(&orig, &table, err, sizeof(err)), 0);
	restore_and_compare(&orig, &table, (unsigned)table.n); /* every prio was re-spread */
	opt_plan_free(plan);
	free(batch);
	ag_filters_free(&table);
	ag_filters_free(&orig);
	free(json);
	rig_free(&r);
}

static void test_restore_breaks_a_cycle(void **state)
{
	char *json = agt_table_json(3, 1, 0), err[256];
	struct ag_filters orig, cur;

	(void)state;
	parse_text(json, &orig, 0, err, sizeof(err));
	parse_text(json, &cur, 0, err, sizeof(err));
	cur.v[0].pref = 3; /* prios 2 and 3 swapped */
	cur.v[1].pref = 2;
	cur.v[2].handle = 7; /* prio 4 in place, but under another handle */
	ag_filters_sort(&cur);
	restore_and_compare(&orig, &cur, 3);
	ag_filters_free(&orig);
	ag_filters_free(&cur);
	free(json);
	/* a plan renumbered a prio's handles: 1 and 2 swapped within prio 2 */
	json = agt_table_json(1, 2, 0);
	parse_text(json, &orig, 0, err, sizeof(err));
	parse_text(json, &cur, 0, err, sizeof(err));
	cur.v[0].handle = 2;
	cur.v[1].handle = 1;
	ag_filters_sort(&cur);
	restore_and_compare(&orig, &cur, 2);
	ag_filters_free(&orig);
	ag_filters_free(&cur);
	free(json);
}

static void test_state_file_round_trip(void **state)
{
	char *json = agt_table_json(4, 3, 7), err[256] = "", dir[] = "/tmp/test-agent-st.XXXXXX";
	char path[128];
	struct ag_filters a, b = { 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	parse_text(json, &a, 0, err, sizeof(err));
	assert_int_equal(ag_state_path(dir, "veth1", path, sizeof(path)), 0);
	assert_int_equal(ag_state_load(path, &b, err, sizeof(err)), -ENOENT);
	assert_int_equal(ag_state_save(path, "veth1", &a, err, sizeof(err)), 0);
	assert_int_equal(ag_state_load(path, &b, err, sizeof(err)), 0);
	assert_int_equal(b.n, 13);
	assert_int_equal(ag_state_equal(&a, &b, err, sizeof(err)), 1);
	assert_int_equal(ag_state_merge(&b, &a), 0);
	unlink(path);
	rmdir(dir);
	ag_filters_free(&a);
	ag_filters_free(&b);
	free(json);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_config_reads_keys_and_names_errors(void **state)
{
	char path[] = "/tmp/test-agent-cfg.XXXXXX", buf[1024];
	struct ag_config c;
	struct scn_error e;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write_file(path, "devices: [veth1, pf0vf0_rep]\n"
				    "model: {file: /m/rxe.model, verb: write, metric: bw}\n"
				    "rnic: {firmware: 0.0.0}\n"
				    "inputs: {side: server, fixed: {client.encap_masks: 1}}\n"
				    "budgets: {updates_per_s: 500, tick_s: 0.5}\n"
				    "metrics: {textfile_dir: /var/lib/x}\n"), 0);
	scn_error_clear(&e);
	assert_int_equal(ag_config_load(path, &c, &e), 0);
	assert_int_equal(c.n_devices, 2);
	assert_string_equal(c.devices[1], "pf0vf0_rep");
	assert_string_equal(c.model, "/m/rxe.model");
	assert_int_equal(c.update_budget, 500);
	assert_true(c.tick_s == 0.5);
	assert_int_equal(c.n_fixed, 1);
	assert_string_equal(c.fixed[0].name, "client.encap_masks");
	assert_int_equal(write_file(path, "devices: [veth1]\nmodel: {file: a.model}\n"
				    "budgets: {updates_per_second: 5}\n"), 0);
	scn_error_clear(&e);
	assert_int_equal(ag_config_load(path, &c, &e), -EINVAL);
	scn_error_format(&e, buf, sizeof(buf));
	assert_non_null(strstr(buf, ":3:"));
	assert_non_null(strstr(buf, "updates_per_second"));
	assert_int_equal(write_file(path, "devices: [\"a b\"]\nmodel: {file: a.model}\n"), 0);
	scn_error_clear(&e);
	assert_int_equal(ag_config_load(path, &c, &e), -EINVAL);
	scn_error_format(&e, buf, sizeof(buf));
	assert_non_null(strstr(buf, "devices[0]"));
	unlink(path);
}

static void test_firmware_mismatch_refused_unless_told(void **state)
{
	struct rig r;
	char err[512] = "";

	(void)state;
	rig_init(&r, 0.05);
	snprintf(r.a.cfg.firmware, sizeof(r.a.cfg.firmware), "1.2.3");
	assert_int_equal(ag_agent_load_model(&r.a, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "fitted on firmware 0.0.0, this host runs 1.2.3"));
	r.a.allow_mismatch = true;
	assert_int_equal(ag_agent_load_model(&r.a, err, sizeof(err)), 0);
	rig_free(&r);
}

static void test_metrics_text(void **state)
{
	struct rig r;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	char err[256];

	(void)state;
	rig_init(&r, 0.05);
	r.a.n_dev = 1;
	snprintf(r.a.dev[0].m.dev, sizeof(r.a.dev[0].m.dev), "veth1");
	r.a.dev[0].st.degradation = 0.25;
	r.a.dev[0].st.rule_ops = 514;
	snprintf(r.a.cfg.metrics_dir, sizeof(r.a.cfg.metrics_dir), "%s", r.dir);
	mem = open_memstream(&text, &len);
	assert_int_equal(ag_agent_metrics(&r.a, mem, err, sizeof(err)), 0);
	fclose(mem);
	assert_non_null(strstr(text, "# TYPE scalacn_agent_rule_operations_total counter\n"));
	assert_non_null(strstr(text, "scalacn_agent_rule_operations_total{device=\"veth1\"} 514\n"));
	assert_non_null(strstr(text, "scalacn_agent_predicted_degradation{device=\"veth1\"} 0.25\n"));
	snprintf(err, sizeof(err), "%s/scalacn_agent.prom", r.dir);
	assert_int_equal(access(err, R_OK), 0);
	free(text);
	rig_free(&r);
}

static void test_mirror_api_refuses_bad_prios(void **state)
{
	struct opt_table *t = NULL;
	struct opt_rule r = { 0 };
	struct opt_model *m = NULL;
	const char *fw = NULL;
	uint16_t prios[2] = { 5, 9 };
	char path[] = "/tmp/test-agent-fw.XXXXXX", err[256];
	int fd = mkstemp(path);

	(void)state;
	assert_int_equal(opt_table_new(NULL, &t), 0);
	for (uint32_t i = 0; i < 2; i++) {
		r.id = i + 1;
		r.mask.fields = 1u << (OPT_F_L4_DST + i);
		assert_int_equal(opt_table_add_rule(t, &r, 0), 0);
	}
	assert_int_equal(opt_table_set_prios(t, prios, 1), -EINVAL); /* n != masks */
	prios[0] = 1;
	assert_int_equal(opt_table_set_prios(t, prios, 2), -EINVAL); /* the hyper prio */
	prios[0] = 9;
	assert_int_equal(opt_table_set_prios(t, prios, 2), -EINVAL); /* not increasing */
	prios[0] = 5;
	assert_int_equal(opt_table_set_prios(t, prios, 2), 0);
	assert_int_equal(opt_table_mask_info(t, 2, NULL, &prios[0], NULL), 0);
	assert_int_equal(prios[0], 9);
	opt_table_free(t);
	close(fd);
	write_model(path, 0.05, "2.3.4");
	assert_int_equal(opt_model_load(path, NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(opt_model_firmware(m, "write", "bw", &fw), 0);
	assert_string_equal(fw, "2.3.4");
	assert_int_equal(opt_model_firmware(m, "read", "bw", &fw), -ENOENT);
	opt_model_free(m);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_guest_fixture),
		cmocka_unit_test(test_parse_refuses_what_it_cannot_move),
		cmocka_unit_test(test_parse_array_framing),
		cmocka_unit_test(test_render_lines),
		cmocka_unit_test(test_plan_moves_hot_prio_to_front_and_keeps_forwarding),
		cmocka_unit_test(test_control_model_applies_nothing),
		cmocka_unit_test(test_overlapping_preferred_filter_stays_in_front),
		cmocka_unit_test(test_restore_returns_original_order),
		cmocka_unit_test(test_prios_sharing_a_mask_merged_then_split_back),
		cmocka_unit_test(test_restore_breaks_a_cycle),
		cmocka_unit_test(test_state_file_round_trip),
		cmocka_unit_test(test_config_reads_keys_and_names_errors),
		cmocka_unit_test(test_firmware_mismatch_refused_unless_told),
		cmocka_unit_test(test_metrics_text),
		cmocka_unit_test(test_mirror_api_refuses_bad_prios),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
