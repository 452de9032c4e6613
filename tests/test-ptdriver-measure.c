/* SPDX-License-Identifier: MIT */
/*
 * test-ptdriver-measure: the perftest testbed driver's rules and measurements
 * (testbeds/perftest, except the output parser): tc rendering and read-back, device
 * discovery text, counters, each test's command line, the kubectl wrap, the real perftest
 * binary on a host without RDMA device, a full measure against a fake perftest, the dry run
 * and the CLI's parse and import. Needs only loopback networking.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "generators/gen.h"
#include "testbeds/perftest/pt_argv.h"
#include "testbeds/perftest/pt_cmd.h"
#include "testbeds/perftest/pt_counters.h"
#include "testbeds/perftest/pt_device.h"
#include "testbeds/perftest/pt_host.h"
#include "testbeds/perftest/pt_inventory.h"
#include "testbeds/perftest/pt_net.h"
#include "testbeds/perftest/pt_proc.h"
#include "testbeds/perftest/pt_tc.h"
#include "testbeds/perftest/tb_perftest.h"
#include "tests/ptdriver-util.h"

static struct gen_rules *make_rules(uint32_t flows, uint32_t cenc, uint32_t sdec)
{
	struct gen_levels l;
	struct gen_rules *r = NULL;
	struct scn_error err;

	gen_levels_neutral(&l);
	l.flows = flows;
	l.masks[GEN_CLIENT][GEN_ENCAP] = cenc;
	l.masks[GEN_SERVER][GEN_DECAP] = sdec;
	assert_int_equal(gen_rules_build(NULL, NULL, &l, 7, &r, &err), 0);
	return r;
}

static unsigned count_lines(const char *s, const char *prefix)
{
	unsigned n = 0;

	for (const char *p = s; p && *p;) {
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			n++;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return n;
}

static void test_ptdriver_tc_render_one_mask_per_chain_prio(void **state)
{
	static const char reps[2][64] = { "pf0vf0", "pf0vf1" };
	struct pt_tc_devs d = { .uplink = "p0", .vxlan = "vxlan_sys_4789", .reps = reps,
				.n_reps = 2, .vtep_ip = "192.168.50.1",
				.peer_vtep_ip = "192.168.50.2" };
	struct gen_rules *r = make_rules(16, 2, 4);
	struct pt_tc_scope scope;
	struct scn_error err;
	char *batch = NULL, *clean = NULL;
	const struct topo_ruleset *srv = r->host[GEN_SERVER], *cli = r->host[GEN_CLIENT];

	(void)state;
	/* server: decap rules on the VXLAN device, prio per mask group */
	assert_int_equal(pt_tc_render(srv, &d, &batch, &scope, &err), 0);
	assert_int_equal(scope.n_rules, topo_ruleset_n_rules(srv));
	assert_int_equal(count_lines(batch, "filter add dev "), topo_ruleset_n_rules(srv));
	assert_int_equal(count_lines(batch, "qdisc add dev "), scope.n_devs);
	assert_non_null(strstr(batch, "action tunnel_key unset"));
	assert_non_null(strstr(batch, "filter add dev vxlan_sys_4789 ingress"));
	assert_non_null(strstr(batch, "enc_dst_port 4789"));
	/* one (chain, prio) per mask group: for every table, prios 1..groups-in-table appear */
	for (size_t g = 0; g < topo_ruleset_n_groups(srv); g++) {
		const struct topo_group *gr = topo_ruleset_group(srv, g);
		unsigned rank = 0;
		char key[64];

		for (size_t k = 0; k < g; k++)
			rank += topo_ruleset_group(srv, k)->table == gr->table;
		snprintf(key, sizeof(key), "chain %u prio %u flower", gr->table, rank + 1);
		if (gr->n_rules)
			assert_non_null(strstr(batch, key));
	}
	assert_int_equal(pt_tc_render_cleanup(&scope, &clean), 0);
	assert_int_equal(count_lines(clean, "filter del dev "), scope.n_devs * (scope.max_chain + 1));
	free(batch);
	free(clean);
	/* client: encap toward the peer VTEP, redirect to the VXLAN device, on representors */
	assert_int_equal(pt_tc_render(cli, &d, &batch, &scope, &err), 0);
	assert_non_null(strstr(batch, "action tunnel_key set src_ip 192.168.50.1 dst_ip "
				      "192.168.50.2 id 100"));
	assert_non_null(strstr(batch, "mirred egress redirect dev vxlan_sys_4789"));
	assert_non_null(strstr(batch, "filter add dev pf0vf"));
	assert_null(strstr(batch, "skip_sw"));
	free(batch);
	d.skip_sw = true;
	assert_int_equal(pt_tc_render(cli, &d, &batch, &scope, &err), 0);
	assert_int_equal(count_lines(batch, "filter add"), scope.n_rules);
	assert_int_equal(scope.n_rules + scope.n_merged, topo_ruleset_n_rules(cli));
	assert_non_null(strstr(batch, "flower skip_sw"));
	free(batch);
	gen_rules_free(r);
}

/* tc: {tail_counter: true}: after the rules, one catch-all filter per device at the end of
 * chain 0, counted in the scope (the read-back compares it with what tc lists). */
static void test_ptdriver_tc_render_tail_counter(void **state)
{
	struct pt_tc_devs d = { .uplink = "veth1", .vxlan = "veth1", .vtep_ip = "192.168.77.2",
				.peer_vtep_ip = "192.168.77.1" };
	struct gen_rules *r = make_rules(16, 2, 4);
	const struct topo_ruleset *srv = r->host[GEN_SERVER];
	struct pt_tc_scope scope;
	struct scn_error err;
	char *batch = NULL;
	const char *tail;

	(void)state;
	assert_int_equal(pt_tc_render(srv, &d, &batch, &scope, &err), 0);
	assert_null(strstr(batch, "prio 65535"));
	free(batch);
	d.tail_counter = true;
	assert_int_equal(pt_tc_render(srv, &d, &batch, &scope, &err), 0);
	assert_int_equal(scope.n_devs, 1);
	assert_int_equal(count_lines(batch, "filter add dev "), scope.n_rules);
	assert_int_equal(scope.n_rules + scope.n_merged, topo_ruleset_n_rules(srv) + 1);
	tail = strstr(batch, "filter add dev veth1 ingress protocol all chain 0 prio 65535 flower "
			     "action pass\n");
	assert_non_null(tail);
	assert_string_equal(strchr(tail, '\n'), "\n"); /* the last line of the batch */
	free(batch);
	gen_rules_free(r);
}

/* Rules that differ only in in_port collapse onto one device without representors (the
 * rxe-vm testbed, docs/rxe-vm.md): a real kernel refused the copies with "File exists" and
 * every trial became apply_failed. Each distinct filter is rendered once, every mask stays. */
static void test_ptdriver_tc_render_merges_filters_that_collide(void **state)
{
	struct pt_tc_devs d = { .uplink = "veth0", .vxlan = "veth0", .vtep_ip = "192.168.77.1",
				.peer_vtep_ip = "192.168.77.2" };
	struct gen_rules *r = make_rules(64, 4, 2);
	const struct topo_ruleset *cli = r->host[GEN_CLIENT];
	struct pt_tc_scope scope;
	struct scn_error err;
	char *batch = NULL;
	unsigned lines;

	(void)state;
	assert_int_equal(pt_tc_render(cli, &d, &batch, &scope, &err), 0);
	lines = count_lines(batch, "filter add dev veth0 ingress");
	assert_int_equal(lines, scope.n_rules);
	assert_true(scope.n_merged > 0); /* encap rules of VFs sending to the same container */
	assert_int_equal(scope.n_rules + scope.n_merged, topo_ruleset_n_rules(cli));
	/* no two filter lines share their match part (everything before " action") */
	for (const char *p = batch; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *act = strstr(p, " action"), *eol = strchr(p, '\n');
		size_t n = act && act < eol ? (size_t)(act - p) : (size_t)(eol - p);

		for (const char *q = eol + 1; *q; q = strchr(q, '\n') + 1)
			assert_false(strncmp(p, q, n) == 0 && (q[n] == ' ' || q[n] == '\n'));
	}
	/* every mask group keeps its (chain, prio) */
	for (unsigned prio = 1; prio <= 4; prio++) {
		char key[48];

		snprintf(key, sizeof(key), "chain 0 prio %u flower", prio);
		assert_non_null(strstr(batch, key));
	}
	free(batch);
	gen_rules_free(r);
}

static void test_ptdriver_tc_count_fixtures(void **state)
{
	char *j1 = fixture_body("rdma/rxe-qemu/loop__tc_show_json.txt");
	char *j2 = fixture_body("rdma/rxe-qemu/wire__tc_final_veth0_json.txt");
	struct pt_tc_count c = { 0 };
	struct scn_error err;

	(void)state;
	assert_int_equal(pt_tc_count_json(j1, strlen(j1), &c, &err), 0);
	assert_int_equal(c.filters, 3);
	assert_int_equal(c.not_in_hw, 3);
	assert_int_equal(c.in_hw, 0);
	assert_true(c.packets == 5);
	assert_true(c.bytes == 420);
	memset(&c, 0, sizeof(c));
	assert_int_equal(pt_tc_count_json(j2, strlen(j2), &c, &err), 0);
	assert_int_equal(c.filters, 4);
	assert_true(c.packets == 81399.0 + 719002.0 + 91.0);
	assert_int_equal(pt_tc_count_json("", 0, &c, &err), 0); /* no filters: no output */
	assert_int_equal(c.filters, 4);
	assert_int_equal(pt_tc_count_json("RTNETLINK answers", 17, &c, &err), -EINVAL);
	free(j1);
	free(j2);
}

static void test_ptdriver_devinfo_text(void **state)
{
	char *text = fixture_body("rdma/rxe-qemu/loop__ibv_devinfo.txt");
	struct pt_devinfo d;
	struct scn_error err;

	(void)state;
	assert_int_equal(pt_device_parse_devinfo(text, "rxe0", 1, "host q", &d, &err), 0);
	assert_string_equal(d.firmware, "0.0.0");
	assert_int_equal(d.port_state, 4);
	assert_int_equal(d.active_mtu, 1024);
	assert_string_equal(d.link_layer, "Ethernet");
	assert_true(d.line_rate_gbps == 10.0);
	assert_int_equal(d.max_qp, 1048560);
	assert_int_equal(d.vendor_id, 0xffffff);
	/* what was looked for, where, and what the tool said */
	assert_int_equal(pt_device_parse_devinfo(text, "rxe0", 2, "host q", &d, &err), -ENODEV);
	assert_int_equal(err.cls, SCN_ERR_DEVICE);
	assert_non_null(strstr(err.message, "no port 2"));
	assert_int_equal(pt_device_parse_devinfo("Failed to get IB devices list: Function not "
						 "implemented\n", "mlx5_0", 1, "host lab-a (ssh)",
						 &d, &err), -ENODEV);
	assert_int_equal(err.cls, SCN_ERR_DEVICE);
	assert_non_null(strstr(err.message, "mlx5_0"));
	assert_non_null(strstr(err.message, "host lab-a (ssh)"));
	assert_non_null(strstr(err.message, "Function not implemented"));
	assert_string_equal(pt_device_model_name(0x02c9, 4129), "ConnectX-7");
	assert_null(pt_device_model_name(0x1234, 1));
	/* rdma_rxe (Soft-RoCE, the QEMU testbed of docs/rxe-vm.md) reports vendor 0xffffff */
	assert_string_equal(pt_device_model_name(0xffffff, 0), "Soft-RoCE (rxe)");
	/* a port that is down is a device error */
	char *down = strdup(text), *st = strstr(down, "PORT_ACTIVE (4)");
	assert_non_null(st);
	memcpy(st, "PORT_DOWN (1)  ", 15);
	assert_int_equal(pt_device_parse_devinfo(down, "rxe0", 1, "h", &d, &err), -ENETDOWN);
	assert_non_null(strstr(err.message, "DOWN"));
	free(down);
	free(text);
}

static void test_ptdriver_local_discovery_without_device(void **state)
{
	struct pt_devinfo d;
	struct scn_error err;
	struct stat st;

	(void)state;
	if (stat("/sys/class/infiniband", &st) == 0)
		skip(); /* this host has RDMA devices: the no-device path cannot be shown */
	assert_int_equal(pt_device_query_local("mlx5_0", 1, 3, "host local (local)", &d, &err),
			 -ENODEV);
	assert_int_equal(err.cls, SCN_ERR_DEVICE);
	assert_non_null(strstr(err.message, "mlx5_0"));
	assert_non_null(strstr(err.message, "host local (local)"));
}

static void test_ptdriver_counters_text_and_sysfs(void **state)
{
	const char *text =
		"/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data:1000\n"
		"/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:7\n"
		"grep: /sys/class/infiniband/mlx5_0/ports/1/counters/VL15_dropped: Invalid argument\n"
		"/sys/class/infiniband/mlx5_0/ports/1/hw_counters/lifespan:12\n"
		"/etc/passwd:root\n";
	struct pt_counters *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct pt_counters *sum = calloc(1, sizeof(*sum));
	struct tb_sample s = { 0 };
	char dir[256];

	(void)state;
	assert_int_equal(pt_counters_parse(text, a), 3);
	assert_true(pt_counters_get(a, "port_xmit_data") == 1000);
	assert_true(pt_counters_get(a, "out_of_sequence") == 7);
	assert_true(isnan(pt_counters_get(a, "VL15_dropped")));
	/* a fake sysfs tree */
	snprintf(dir, sizeof(dir), "/tmp/ptdrv-sys-%d/dev0/ports/1/hw_counters", (int)getpid());
	char *mk = NULL;
	assert_true(asprintf(&mk, "mkdir -p %s && echo 10 > %s/out_of_sequence && "
			     "echo bad > %s/junk", dir, dir, dir) > 0);
	assert_int_equal(system(mk), 0);
	free(mk);
	snprintf(dir, sizeof(dir), "/tmp/ptdrv-sys-%d", (int)getpid());
	assert_int_equal(pt_counters_read_local(dir, "dev0", 1, b), 0);
	assert_true(pt_counters_get(b, "out_of_sequence") == 10);
	assert_true(isnan(pt_counters_get(b, "junk")));
	assert_int_equal(pt_counters_read_local(dir, "nodev", 1, b), -ENOENT);
	pt_counters_delta(a, b, sum);
	pt_counters_delta(a, b, sum); /* deltas add up over hosts */
	assert_true(pt_counters_get(sum, "out_of_sequence") == 6);
	pt_counters_to_sample(sum, &s, 2);
	assert_true(tb_sample_counter(&s, "out_of_sequence") == 6);
	assert_int_equal(s.n_counters, 1);
	assert_true(asprintf(&mk, "rm -rf %s", dir) > 0);
	assert_int_equal(system(mk), 0);
	free(mk);
	free(a);
	free(b);
	free(sum);
}

static void test_ptdriver_cmd_argv_per_test(void **state)
{
	struct pt_inventory inv = { .run_s = 60 };
	struct pt_host h = { .ib_port = 1, .gid_index = 3 };
	struct gen_levels l;
	struct gen_traffic t;
	struct pt_argv a;
	struct scn_error err;
	char *line;

	(void)state;
	snprintf(inv.bin_dir, sizeof(inv.bin_dir), "/usr/bin");
	snprintf(inv.connection, sizeof(inv.connection), "RC");
	snprintf(h.device, sizeof(h.device), "mlx5_0");
	gen_levels_neutral(&l);
	l.qps = 4;
	gen_traffic_from_levels(&l, &t);
	pt_argv_init(&a);
	assert_int_equal(pt_cmd_argv(&inv, &h, &t, 18515, "192.168.50.2", &a, &err), 0);
	line = pt_sh_join(a.v);
	assert_non_null(strstr(line, "/usr/bin/ib_write_bw -d mlx5_0 -i 1 -x 3 -c RC -p 18515 "
				     "-s 65536"));
	assert_non_null(strstr(line, "--report_gbits -q 4"));
	assert_string_equal(a.v[a.n - 1], "192.168.50.2");
	free(line);
	pt_argv_free(&a);
	/* latency tests take no -q; the server has no peer address */
	t.metric = GEN_METRIC_LAT;
	t.verb = TOPO_VERB_READ;
	assert_int_equal(pt_cmd_argv(&inv, &h, &t, 18516, NULL, &a, &err), 0);
	line = pt_sh_join(a.v);
	assert_non_null(strstr(line, "/usr/bin/ib_read_lat "));
	assert_null(strstr(line, " -q "));
	assert_null(strstr(line, "report_gbits"));
	assert_string_not_equal(a.v[a.n - 1], "192.168.50.2");
	free(line);
	pt_argv_free(&a);
	t.msg_size = 16u << 20;
	assert_int_equal(pt_cmd_argv(&inv, &h, &t, 18516, NULL, &a, &err), -EINVAL);
	assert_int_equal(err.cls, SCN_ERR_CONFIG);
	pt_argv_free(&a);
}

static void test_ptdriver_kubectl_wrap_is_argv(void **state)
{
	struct pt_host h = { .transport = PT_TR_KUBECTL };
	struct pt_wrap w = { .stdin = true, .kill_after_s = 30 };
	struct pt_argv out;
	char *line;

	(void)state;
	snprintf(h.pod, sizeof(h.pod), "perftest-0");
	snprintf(h.ns, sizeof(h.ns), "rdma");
	pt_argv_init(&out);
	assert_int_equal(pt_host_wrap(&h, (char *const[]){ "ib_send_bw", "a b", NULL }, &w, &out), 0);
	line = pt_sh_join(out.v);
	assert_string_equal(line, "kubectl exec -i -n rdma perftest-0 -- timeout -s KILL 30 "
				  "ib_send_bw 'a b'");
	assert_string_equal(out.v[out.n - 1], "a b"); /* one argument, no shell */
	free(line);
	pt_argv_free(&out);
}

static char *loopback_inventory(const char *bin_dir, unsigned port_base, const char *extra)
{
	char *text = NULL, *path;

	assert_true(asprintf(&text,
		"kind: perftest\n"
		"name: test-loop\n"
		"eswitch: none\n"
		"perftest: {bin_dir: %s, run_s: 0.1}\n"
		"timeouts: {setup_s: 1, slack_s: 0.5, listen_s: 5}\n"
		"ports: {base: %u, count: 16}\n"
		"%s"
		"hosts:\n"
		"  - {name: server, transport: local, rnic: {device: mlx5_0, ib_port: 1}}\n"
		"  - {name: client, transport: local, rnic: {device: mlx5_0, ib_port: 1}}\n"
		"pairs: [{client: client, server: server}]\n", bin_dir, port_base, extra) > 0);
	path = write_tmp("loop.yaml", text);
	free(text);
	return path;
}

static void neutral_traffic(struct gen_traffic *t)
{
	struct gen_levels l;

	gen_levels_neutral(&l);
	l.iterations = 1000;
	gen_traffic_from_levels(&l, t);
}

/* No child of ours is left, running or unreaped. */
static void assert_no_children(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char path[300], buf[512], *rp, state;
		int ppid;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || !(f = fopen(path, "r")))
			continue;
		if (fgets(buf, sizeof(buf), f) && (rp = strrchr(buf, ')')) &&
		    sscanf(rp + 2, "%c %d", &state, &ppid) == 2)
			assert_int_not_equal(ppid, (int)getpid());
		fclose(f);
	}
	closedir(d);
}

/* Below the ephemeral range, as ptf_port_base (tests/ptfake.c) says why. */
static unsigned test_port_base(void)
{
	return 10000u + (unsigned)getpid() % 22000u;
}

static void test_ptdriver_real_perftest_without_device(void **state)
{
	struct tb *tb = NULL;
	struct tb_sample s;
	struct gen_traffic t;
	struct scn_error err;
	struct stat st;
	char *inv;
	double t0, el;
	int rc;

	(void)state;
	if (access("/usr/bin/ib_write_bw", X_OK) != 0 || stat("/sys/class/infiniband", &st) == 0)
		skip();
	inv = loopback_inventory("/usr/bin", test_port_base(), "");
	assert_int_equal(tb_perftest_ops.open_opts(inv, NULL, &tb, &err), 0);
	neutral_traffic(&t);
	t0 = pt_now();
	rc = tb_perftest_ops.measure(tb, &t, 1, &s, &err);
	el = pt_now() - t0;
	assert_int_equal(rc, -ENODEV);
	assert_int_equal(err.cls, SCN_ERR_DEVICE);
	/* perftest's own words, and where */
	assert_true(strstr(err.message, "Unable to find the Infiniband/RoCE device") ||
		    strstr(err.message, "Did not detect devices"));
	assert_non_null(strstr(err.message, "mlx5_0"));
	assert_true(el < 1.0); /* acceptance: reported within a second, not at a deadline */
	assert_no_children();
	/* describe says the same thing through rdma-core (or ibv_devinfo) */
	struct tb_description d;
	assert_int_equal(tb_perftest_ops.describe(tb, &d, &err), -ENODEV);
	assert_int_equal(err.cls, SCN_ERR_DEVICE);
	assert_non_null(strstr(err.message, "mlx5_0"));
	tb_perftest_ops.close(tb);
	unlink(inv);
	free(inv);
}

/* A fake perftest: the server accepts one client on -p; the client connects, prints a real
 * client output and exits, or hangs when DIR/hang exists. */
/* A fake TOOL in a fresh directory: a server that accepts one connection, a client that
 * connects and prints OUT (owned by the callee). */
static char *fake_tool_dir(const char *tool, char *out)
{
	char *dir = NULL, *script = NULL;
	FILE *f;

	assert_true(asprintf(&dir, "/tmp/ptdrv-bin-%d", (int)getpid()) > 0);
	mkdir(dir, 0755);
	assert_true(asprintf(&script, "%s/%s", dir, tool) > 0);
	f = fopen(script, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\nport=18515; last=\n"
		"while [ $# -gt 0 ]; do case \"$1\" in -p) port=$2; shift;; esac; last=$1; shift; done\n"
		"case \"$last\" in\n"
		"*.*.*.*) exec bash -c \"exec 3<>/dev/tcp/$last/$port || exit 1; "
		"if [ -e '%s/hang' ]; then sleep 100; fi; cat '%s'\" ;;\n"
		"*) exec python3 -c 'import socket,sys\n"
		"s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
		"s.bind((\"0.0.0.0\", int(sys.argv[1]))); s.listen(1); c, _ = s.accept(); c.recv(1)' "
		"\"$port\" ;;\nesac\n", dir, out);
	fclose(f);
	chmod(script, 0755);
	free(script);
	free(out);
	return dir;
}

static char *fake_perftest_dir(void)
{
	return fake_tool_dir("ib_write_bw", fixture("perftest/rxe-qemu/loop__eth0_write_bw_client.out"));
}

static void test_ptdriver_measure_with_fake_perftest(void **state)
{
	struct tb *tb = NULL;
	struct tb_sample s;
	struct gen_traffic t;
	struct scn_error err;
	char *dir, *inv, *hang = NULL;

	(void)state;
	if (system("command -v python3 >/dev/null && command -v bash >/dev/null") != 0)
		skip();
	dir = fake_perftest_dir();
	inv = loopback_inventory(dir, test_port_base() + 100, "");
	assert_int_equal(tb_perftest_ops.open_opts(inv, NULL, &tb, &err), 0);
	neutral_traffic(&t);
	assert_int_equal(tb_perftest_ops.measure(tb, &t, 1, &s, &err), 0);
	assert_int_equal(s.status, TB_OK);
	/* 16.16 MiB/s average -> 16.16 * 2^20 * 8 / 1e9 Gb/s */
	assert_true(fabs(s.bw_gbps - 16.16 * 1048576.0 * 8 / 1e9) < 1e-9);
	assert_true(fabs(s.msg_rate_mpps - 0.000259) < 1e-12);
	/* not measured by a bandwidth test: NAN (tb.h), NULL in the store */
	assert_true(isnan(s.lat_median_us) && isnan(s.lat_p99_us));
	assert_true(s.cost_s > 0);
	assert_no_children();
	/* a client that never finishes: the deadline makes it a timeout trial, nothing left */
	assert_true(asprintf(&hang, "%s/hang", dir) > 0);
	fclose(fopen(hang, "w"));
	assert_int_equal(tb_perftest_ops.measure(tb, &t, 1, &s, &err), 0);
	assert_int_equal(s.status, TB_TIMEOUT);
	assert_true(s.cost_s >= 1.5 && s.cost_s < 10);
	assert_no_children();
	tb_perftest_ops.close(tb);
	unlink(hang);
	free(hang);
	unlink(inv);
	free(inv);
	char *rm = NULL;
	assert_true(asprintf(&rm, "rm -rf %s", dir) > 0);
	assert_int_equal(system(rm), 0);
	free(rm);
	free(dir);
}

/* perftest under QEMU printed t_typical as "inf" (its cycle clock failed): the median falls
 * back to t_avg instead of storing an infinite latency. */
static void test_ptdriver_measure_latency_inf_falls_back_to_average(void **state)
{
	char *src = fixture("perftest/rxe-qemu/loop__write_lat_x1_client.out"), *body, *p, *rm = NULL;
	char *out = NULL, *dir, *inv;
	size_t len;
	struct tb *tb = NULL;
	struct tb_sample s;
	struct gen_traffic t;
	struct scn_error err;
	FILE *f;

	(void)state;
	if (system("command -v python3 >/dev/null && command -v bash >/dev/null") != 0)
		skip();
	body = slurp(src, &len);
	assert_non_null(p = strstr(body, "44.27"));
	memcpy(p, "  inf", 5);
	assert_true(asprintf(&out, "/tmp/ptdrv-lat-%d.out", (int)getpid()) > 0);
	assert_non_null(f = fopen(out, "w"));
	fputs(body, f);
	fclose(f);
	dir = fake_tool_dir("ib_write_lat", strdup(out));
	inv = loopback_inventory(dir, test_port_base() + 140, "");
	assert_int_equal(tb_perftest_ops.open_opts(inv, NULL, &tb, &err), 0);
	neutral_traffic(&t);
	t.metric = GEN_METRIC_LAT;
	assert_int_equal(tb_perftest_ops.measure(tb, &t, 1, &s, &err), 0);
	assert_int_equal(s.status, TB_OK);
	assert_true(fabs(s.lat_median_us - 51.48) < 1e-9); /* t_avg, not inf */
	assert_true(fabs(s.lat_p99_us - 288.10) < 1e-9);
	assert_true(isnan(s.bw_gbps) && isnan(s.msg_rate_mpps));
	assert_no_children();
	tb_perftest_ops.close(tb);
	unlink(inv);
	unlink(out);
	assert_true(asprintf(&rm, "rm -rf %s", dir) > 0);
	assert_int_equal(system(rm), 0);
	free(rm);
	free(inv);
	free(dir);
	free(out);
	free(body);
	free(src);
}

static void test_ptdriver_dry_run_prints_every_command(void **state)
{
	char *lab = src_path("examples/testbeds/lab-two-hosts.yaml"), *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct tb_open_opts o = { .dry_run = true, .dry_run_out = f };
	struct gen_rules *r = make_rules(16, 2, 4);
	struct tb_description d;
	struct tb *tb = NULL;
	struct tb_sample s;
	struct gen_traffic t;
	struct scn_error err;
	double t0 = pt_now();
	const char *srv, *cli, *before, *after;

	(void)state;
	assert_int_equal(tb_perftest_ops.open_opts(lab, &o, &tb, &err), 0);
	assert_int_equal(tb_perftest_ops.describe(tb, &d, &err), 0);
	assert_string_equal(d.kind, "perftest");
	assert_int_equal(tb_perftest_ops.apply(tb, r, &err), 0);
	neutral_traffic(&t);
	assert_int_equal(tb_perftest_ops.measure(tb, &t, 1, &s, &err), 0);
	assert_int_equal(s.status, TB_OK);
	assert_true(isnan(s.bw_gbps) && isnan(s.lat_median_us) && isnan(s.msg_rate_mpps));
	assert_true(s.cost_s == 0);
	assert_int_equal(tb_perftest_ops.measure(tb, &t, 2, &s, &err), 0);
	tb_perftest_ops.close(tb);
	fclose(f);
	assert_true(pt_now() - t0 < 5); /* nothing was run: the hosts do not exist */
	assert_non_null(strstr(out, "[lab-a] ssh -o BatchMode=yes"));
	assert_non_null(strstr(out, "ibv_devinfo -v -d mlx5_0"));
	assert_non_null(strstr(out, "'sudo -n tc -force -batch -'   # (batch on stdin)"));
	assert_non_null(strstr(out, "tc -s -j filter show dev"));
	assert_non_null(strstr(out, "trial 1: write bw msg_size=65536"));
	assert_non_null(strstr(out, "trial 2: write bw"));
	before = strstr(out, "grep -r . /sys/class/infiniband/mlx5_0/ports/1/counters");
	srv = strstr(out, "[lab-b] ssh");
	srv = srv ? strstr(srv, "/usr/bin/ib_write_bw -d mlx5_0") : NULL;
	cli = strstr(out, "-F --report_gbits -q 1 -t 128 --use_hugepages 192.168.50.2'");
	assert_non_null(before);
	assert_non_null(srv);
	assert_non_null(cli);
	assert_true(before < srv && srv < cli); /* counters, server, then client */
	after = strstr(cli, "grep -r . /sys/class/infiniband");
	assert_non_null(after);
	assert_non_null(strstr(out, "wait until TCP port 18515 is LISTEN on lab-b"));
	assert_non_null(strstr(out, "remove the filters installed on lab-a"));
	free(out);
	free(lab);
	gen_rules_free(r);
}

/* The scalacn binary of this build, or NULL when it was not built. */
static char *scalacn_bin(void)
{
	const char *root = getenv("SCALACN_BUILD_ROOT");
	char *p = NULL;

	assert_true(asprintf(&p, "%s/scalacn", root ? root : ".") > 0);
	if (access(p, X_OK) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

static void test_ptdriver_cli_parse_and_import(void **state)
{
	char *bin = scalacn_bin(), *bw = fixture("perftest/rxe-qemu/loop__eth0_write_bw_client.out");
	char *art = fixture("perftest/scalacn-artifact/cen_0_cde_0_sen_0_sde_20_write_lat_pod.log");
	char *db = NULL, *out, *sql = NULL;
	int code;

	(void)state;
	if (!bin)
		skip();
	out = run_out((char *const[]){ bin, "perftest", "parse", "--json", bw, NULL }, NULL, &code, NULL);
	assert_int_equal(code, 0);
	assert_non_null(strstr(out, "\"verb\":\"write\""));
	assert_non_null(strstr(out, "\"bytes\":65536"));
	assert_non_null(strstr(out, "\"bw_avg_gbps\":0.1355599053")); /* 16.16 MiB/s */
	free(out);
	out = run_out((char *const[]){ bin, "perftest", "parse", art, NULL }, NULL, &code, NULL);
	assert_int_equal(code, 0);
	assert_non_null(strstr(out, "RDMA_Write Latency Test"));
	assert_non_null(strstr(out, "half RTT"));
	free(out);
	assert_true(asprintf(&db, "/tmp/ptdrv-%d.db", (int)getpid()) > 0);
	unlink(db);
	out = run_out((char *const[]){ bin, "perftest", "import", art, bw, "--db", db, NULL }, NULL,
		      &code, NULL);
	assert_int_equal(code, 0);
	assert_non_null(strstr(out, "imported 24 new trials"));
	free(out);
	out = run_out((char *const[]){ bin, "perftest", "import", art, "--db", db, NULL }, NULL,
		      &code, NULL);
	assert_non_null(strstr(out, "imported 0 new trials"));
	free(out);
	/* the artifact's masks became dimensions of the stored points */
	out = run_out((char *const[]){ bin, "trials", "--db", db, "--json", NULL }, NULL, &code, NULL);
	assert_int_equal(code, 0);
	assert_non_null(strstr(out, "\"server.decap_masks\":20"));
	assert_non_null(strstr(out, "\"client.encap_masks\":0"));
	free(out);
	out = run_out((char *const[]){ bin, "perftest", "parse", "/nonexistent.log", NULL }, NULL,
		      &code, NULL);
	assert_int_equal(code, 2);
	free(out);
	unlink(db);
	free(sql);
	free(db);
	free(bw);
	free(art);
	free(bin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptdriver_tc_render_one_mask_per_chain_prio),
		cmocka_unit_test(test_ptdriver_tc_render_tail_counter),
		cmocka_unit_test(test_ptdriver_tc_render_merges_filters_that_collide),
		cmocka_unit_test(test_ptdriver_tc_count_fixtures),
		cmocka_unit_test(test_ptdriver_devinfo_text),
		cmocka_unit_test(test_ptdriver_local_discovery_without_device),
		cmocka_unit_test(test_ptdriver_counters_text_and_sysfs),
		cmocka_unit_test(test_ptdriver_cmd_argv_per_test),
		cmocka_unit_test(test_ptdriver_kubectl_wrap_is_argv),
		cmocka_unit_test(test_ptdriver_real_perftest_without_device),
		cmocka_unit_test(test_ptdriver_measure_with_fake_perftest),
		cmocka_unit_test(test_ptdriver_measure_latency_inf_falls_back_to_average),
		cmocka_unit_test(test_ptdriver_dry_run_prints_every_command),
		cmocka_unit_test(test_ptdriver_cli_parse_and_import),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
