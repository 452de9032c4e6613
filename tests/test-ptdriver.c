/* SPDX-License-Identifier: MIT */
/*
 * test-ptdriver: the perftest testbed driver (testbeds/perftest, except the output parser):
 * quoting and validation against hostile names, process groups and deadlines, the port
 * allocator against a port we hold, tc rendering and read-back, device discovery text,
 * counters, the inventory, the real perftest binary on a host without RDMA device, a full
 * measure against a fake perftest, and the dry run. Needs only loopback networking.
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

static const char *const hostile[] = {
	"a b", "it's", "x;touch /tmp/ptdrv-pwned-1", "$(touch /tmp/ptdrv-pwned-2)",
	"`touch /tmp/ptdrv-pwned-3`", "line1\nline2", "", "'", "\"dq\"", "$HOME", "*", "-n",
	"a\\b", "&& echo no", "|cat", "> /tmp/ptdrv-pwned-4", "tab\there", "#comment",
};
#define N_HOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static char *src_path(const char *rel)
{
	const char *root = getenv("SCALACN_SOURCE_ROOT");
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", root ? root : ".", rel) > 0);
	return p;
}

static char *fixture(const char *rel)
{
	const char *root = getenv("SCALACN_FIXTURES");
	char *p = NULL;

	if (!root || !*root)
		fail_msg("SCALACN_FIXTURES is not set (run the tests with `meson test`)");
	assert_true(asprintf(&p, "%s/%s", root, rel) > 0);
	if (access(p, R_OK) != 0)
		fail_msg("missing fixture %s: %s (see tests/fixtures/README.md)", p, strerror(errno));
	return p;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

/* Text after the fixture's "$ command" line, without the trailing "[rc=N]" line. */
static char *fixture_body(const char *rel)
{
	char *path = fixture(rel), *all = slurp(path, NULL), *body, *rc;

	free(path);
	body = strchr(all, '\n');
	body = strdup(body ? body + 1 : "");
	rc = strstr(body, "[rc=");
	if (rc)
		*rc = '\0';
	free(all);
	return body;
}

/* Processes (not zombies) whose process group is PGID. */
static unsigned live_in_group(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char path[300], buf[512], *rp, state;
		int pid, ppid, pgrp;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(buf, sizeof(buf), f) && (rp = strrchr(buf, ')')) &&
		    sscanf(rp + 2, "%c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid &&
		    state != 'Z' && state != 'X')
			n++;
		(void)pid;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* Wait up to 2 s for a killed group to vanish (SIGKILL is delivered asynchronously). */
static unsigned group_left_after_wait(pid_t pgid)
{
	for (int i = 0; i < 200; i++) {
		if (live_in_group(pgid) == 0)
			return 0;
		usleep(10000);
	}
	return live_in_group(pgid);
}

/* Run ARGV (NULL-terminated) and return its stdout (malloc'd), exit code in *code. */
static char *run_out(char *const *argv, const char *in, int *code, size_t *len)
{
	struct pt_spawn s = { .argv = argv, .stdin_data = in, .stdin_len = in ? strlen(in) : 0 };
	struct scn_error err;
	struct pt_proc *p = NULL;
	char *out;
	size_t n;
	const char *o;

	assert_int_equal(pt_proc_run(&s, 10, &p, &err), 0);
	*code = pt_proc_exit_code(p);
	o = pt_proc_out(p, &n);
	out = malloc(n + 1);
	memcpy(out, o, n);
	out[n] = '\0';
	if (len)
		*len = n;
	pt_proc_free(p);
	return out;
}

/* The output of printf '%s\0' ARGS, split back: check it equals hostile[]. */
static void assert_args_intact(const char *out, size_t len)
{
	size_t at = 0;

	for (size_t i = 0; i < N_HOSTILE; i++) {
		assert_true(at < len || (at == len && i == N_HOSTILE));
		assert_string_equal(out + at, hostile[i]);
		at += strlen(hostile[i]) + 1;
	}
	assert_int_equal(at, len);
}

static void assert_not_pwned(void)
{
	for (int i = 1; i <= 4; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/tmp/ptdrv-pwned-%d", i);
		assert_int_equal(access(path, F_OK), -1);
	}
}

static void build_printf_argv(struct pt_argv *a)
{
	pt_argv_init(a);
	assert_int_equal(pt_argv_addl(a, "printf", "%s\\0", NULL), 0);
	for (size_t i = 0; i < N_HOSTILE; i++)
		assert_int_equal(pt_argv_add(a, hostile[i]), 0);
}

static void test_ptdriver_quote_passes_args_intact(void **state)
{
	struct pt_argv a;
	char *line, *out;
	size_t len;
	int code;

	(void)state;
	build_printf_argv(&a);
	/* the argv itself, no shell */
	out = run_out(a.v, NULL, &code, &len);
	assert_int_equal(code, 0);
	assert_args_intact(out, len);
	free(out);
	/* the quoted line through a shell: every word arrives as one argument */
	line = pt_sh_join(a.v);
	assert_non_null(line);
	out = run_out((char *const[]){ "sh", "-c", line, NULL }, NULL, &code, &len);
	assert_int_equal(code, 0);
	assert_args_intact(out, len);
	free(out);
	free(line);
	pt_argv_free(&a);
	assert_not_pwned();
	/* plain words stay readable */
	char buf[64];
	assert_int_equal(pt_sh_quote("mlx5_0", buf, sizeof(buf)), 6);
	assert_string_equal(buf, "mlx5_0");
	pt_sh_quote("it's", buf, sizeof(buf));
	assert_string_equal(buf, "'it'\\''s'");
}

/* ssh's remote command is the last word; run it through sh -c as the remote shell would. */
static void test_ptdriver_ssh_quoting_survives_remote_shell(void **state)
{
	struct pt_host h = { .transport = PT_TR_SSH, .ssh_port = 2222, .sudo = true };
	struct pt_wrap w = { .kill_after_s = 5 };
	struct pt_argv cmd, out;
	char *res;
	size_t len;
	int code;

	(void)state;
	snprintf(h.ssh_host, sizeof(h.ssh_host), "lab-a.example");
	snprintf(h.ssh_user, sizeof(h.ssh_user), "lab");
	build_printf_argv(&cmd);
	pt_argv_init(&out);
	assert_int_equal(pt_host_wrap(&h, cmd.v, &w, &out), 0);
	assert_string_equal(out.v[0], "ssh");
	assert_string_equal(out.v[out.n - 2], "lab-a.example");
	assert_string_equal(out.v[out.n - 3], "--");
	assert_non_null(strstr(out.v[out.n - 1], "timeout -s KILL 5 printf"));
	assert_null(strstr(out.v[out.n - 1], "sudo")); /* sudo is only for tc */
	res = run_out((char *const[]){ "sh", "-c", out.v[out.n - 1], NULL }, NULL, &code, &len);
	assert_int_equal(code, 0);
	assert_args_intact(res, len);
	assert_not_pwned();
	free(res);
	pt_argv_free(&cmd);
	pt_argv_free(&out);
}

static void test_ptdriver_validation_rejects_hostile_names(void **state)
{
	static const char *const bad[] = { "mlx5 0", "a;b", "$(x)", "a\nb", "-d", "it's",
					   "`id`", "", ".hidden", "a/b", "x|y" };
	static const char *const good[] = { "mlx5_0", "enp65s0f0np0", "pf0vf0", "rxe0",
					    "lab-a.example.net", "10.0.0.1" };
	struct scn_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		scn_error_clear(&err);
		assert_int_equal(pt_valid_name("device", bad[i], &err), -EINVAL);
		assert_int_equal(err.cls, SCN_ERR_CONFIG);
		assert_int_equal(pt_valid_host("host", bad[i], NULL), -EINVAL);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(pt_valid_name("device", good[i], NULL), 0);
		assert_int_equal(pt_valid_host("host", good[i], NULL), 0);
	}
	assert_int_equal(pt_valid_path("identity", "~/.ssh/id lab", NULL), 0);
	assert_int_equal(pt_valid_path("identity", "a\nb", NULL), -EINVAL);
	assert_int_equal(pt_valid_path("identity", "-oProxyCommand=x", NULL), -EINVAL);
}

static char *write_tmp(const char *name, const char *text)
{
	char *path = NULL;
	FILE *f;

	assert_true(asprintf(&path, "/tmp/ptdrv-%d-%s", (int)getpid(), name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_ptdriver_inventory_rejects_hostile_device(void **state)
{
	struct pt_inventory *inv = NULL;
	struct scn_error err;
	char *p = write_tmp("bad.yaml",
		"kind: perftest\n"
		"hosts:\n"
		"  - name: a\n"
		"    rnic: {device: \"mlx5_0; reboot\"}\n"
		"pairs: [{client: a, server: a}]\n");

	(void)state;
	assert_int_equal(pt_inventory_load(p, &inv, &err), -EINVAL);
	assert_null(inv);
	assert_int_equal(err.cls, SCN_ERR_CONFIG);
	assert_int_equal(err.line, 4);
	assert_non_null(strstr(err.key, "device"));
	unlink(p);
	free(p);
	/* a host that is client and server at once */
	p = write_tmp("bad2.yaml",
		"kind: perftest\n"
		"hosts:\n"
		"  - {name: a, rnic: {device: mlx5_0}}\n"
		"  - {name: b, rnic: {device: mlx5_0}}\n"
		"pairs: [{client: a, server: b}, {client: b, server: a}]\n");
	assert_int_equal(pt_inventory_load(p, &inv, &err), -EINVAL);
	assert_non_null(strstr(err.message, "ambiguous"));
	unlink(p);
	free(p);
}

static void test_ptdriver_inventory_examples_load(void **state)
{
	char *lab = src_path("examples/testbeds/lab-two-hosts.yaml");
	char *loop = src_path("examples/testbeds/local-loopback.yaml");
	struct pt_inventory *inv = NULL;
	struct scn_error err;

	(void)state;
	assert_int_equal(pt_inventory_load(lab, &inv, &err), 0);
	assert_int_equal(inv->n_hosts, 2);
	assert_int_equal(inv->n_pairs, 1);
	assert_int_equal(inv->eswitch, PT_ESW_TC);
	assert_int_equal(inv->hosts[0].transport, PT_TR_SSH);
	assert_string_equal(inv->hosts[0].ssh_jump, "bastion.example.net");
	assert_int_equal(inv->hosts[1].gid_index, 3);
	assert_int_equal(inv->hosts[1].n_reps, 4);
	assert_int_equal(inv->role[0], PT_ROLE_CLIENT);
	assert_int_equal(inv->role[1], PT_ROLE_SERVER);
	assert_int_equal(inv->port_count, 64);
	pt_inventory_free(inv);
	assert_int_equal(pt_inventory_load(loop, &inv, &err), 0);
	assert_int_equal(inv->hosts[0].transport, PT_TR_LOCAL);
	assert_string_equal(inv->hosts[0].data_ip, "127.0.0.1");
	assert_int_equal(inv->hosts[0].gid_index, -1);
	assert_int_equal(inv->eswitch, PT_ESW_NONE);
	pt_inventory_free(inv);
	free(lab);
	free(loop);
}

static void test_ptdriver_deadline_kills_whole_group(void **state)
{
	char *const argv[] = { "sh", "-c", "sleep 100 & sleep 100", NULL };
	struct pt_spawn s = { .argv = argv };
	struct scn_error err;
	struct pt_proc *p = NULL;
	pid_t pgid;

	(void)state;
	assert_int_equal(pt_proc_spawn(&s, &p, &err), 0);
	pgid = pt_proc_pid(p);
	usleep(100000); /* let the shell start its children */
	assert_true(live_in_group(pgid) >= 2);
	assert_int_equal(pt_proc_wait(p, pt_now() + 0.3), -ETIMEDOUT);
	assert_true(pt_proc_deadline_hit(p));
	assert_int_equal(pt_proc_exit_code(p), 128 + SIGKILL);
	assert_int_equal(group_left_after_wait(pgid), 0);
	pt_proc_free(p);
}

static void test_ptdriver_leader_exit_takes_stragglers(void **state)
{
	char *const argv[] = { "sh", "-c", "sleep 100 & echo started; exit 3", NULL };
	struct scn_error err;
	struct pt_proc *p = NULL;
	pid_t pgid;

	(void)state;
	assert_int_equal(pt_proc_run(&(struct pt_spawn){ .argv = argv }, 10, &p, &err), 0);
	pgid = pt_proc_pid(p);
	assert_int_equal(pt_proc_exit_code(p), 3);
	assert_false(pt_proc_deadline_hit(p));
	assert_string_equal(pt_proc_out(p, NULL), "started\n");
	assert_int_equal(group_left_after_wait(pgid), 0);
	assert_true(pt_proc_seconds(p) < 10);
	pt_proc_free(p);
}

static void test_ptdriver_stdin_and_large_output(void **state)
{
	size_t n = 300000, len;
	char *in = malloc(n + 1), *out;
	int code;

	(void)state;
	for (size_t i = 0; i < n; i++)
		in[i] = (char)('a' + i % 26);
	in[n] = '\0';
	out = run_out((char *const[]){ "cat", NULL }, in, &code, &len);
	assert_int_equal(code, 0);
	assert_int_equal(len, n);
	assert_memory_equal(out, in, n);
	free(out);
	free(in);
}

static void test_ptdriver_spawn_missing_program(void **state)
{
	char *const argv[] = { "/nonexistent/ib_write_bw", NULL };
	struct scn_error err;
	struct pt_proc *p = NULL;

	(void)state;
	assert_int_equal(pt_proc_spawn(&(struct pt_spawn){ .argv = argv }, &p, &err), -ENOENT);
	assert_null(p);
	assert_int_equal(err.cls, SCN_ERR_CONFIG);
	assert_non_null(strstr(err.message, "/nonexistent/ib_write_bw"));
}

/* A listening socket on 127.0.0.1, port chosen by the kernel. */
static int listen_any(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static void test_ptdriver_port_allocator_skips_busy_port(void **state)
{
	struct pt_ports *ports = NULL;
	struct scn_error err;
	unsigned busy, got, got2, got3;
	char *table = NULL;
	int fd = listen_any(&busy);

	(void)state;
	assert_int_equal(pt_tcp_table_local(&table), 0);
	assert_true(pt_tcp_table_has(table, busy, true));
	assert_true(pt_tcp_table_has(table, busy, false));
	assert_int_equal(pt_ports_new(busy, 3, &ports), 0);
	assert_int_equal(pt_ports_get(ports, table, &got, &err), 0);
	assert_int_not_equal(got, busy); /* the allocator moved on */
	assert_true(got > busy && got < busy + 3);
	/* a second pair never gets the same port */
	if (pt_ports_get(ports, table, &got2, &err) == 0) {
		assert_int_not_equal(got2, got);
		assert_int_not_equal(got2, busy);
		/* all taken or busy now */
		assert_int_equal(pt_ports_get(ports, table, &got3, &err), -EADDRINUSE);
		assert_int_equal(err.cls, SCN_ERR_TRANSIENT);
		pt_ports_put(ports, got2);
	}
	pt_ports_put(ports, got);
	/* without the busy socket the allocator may hand its port out */
	close(fd);
	assert_int_equal(pt_ports_get(ports, NULL, &got, &err), 0);
	free(table);
	pt_ports_free(ports);
}

static void test_ptdriver_tcp_table_states(void **state)
{
	const char *t =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt\n"
		"   0: 00000000:4853 00000000:0000 0A 00000000:00000000 00:00000000 00000000\n"
		"   1: 0100007F:4854 0100007F:9C40 01 00000000:00000000 00:00000000 00000000\n"
		"   2: 0100007F:4855 0100007F:9C41 06 00000000:00000000 00:00000000 00000000\n"
		"   0: 00000000000000000000000000000000:4856 00000000000000000000000000000000:0000 0A"
		" 00000000:00000000 00:00000000 00000000\n";

	(void)state;
	assert_true(pt_tcp_table_has(t, 0x4853, true));    /* 18515 LISTEN */
	assert_false(pt_tcp_table_has(t, 0x4854, true));   /* established */
	assert_true(pt_tcp_table_has(t, 0x4854, false));
	assert_false(pt_tcp_table_has(t, 0x4855, false));  /* TIME_WAIT is reusable */
	assert_true(pt_tcp_table_has(t, 0x4856, true));    /* tcp6 */
	assert_false(pt_tcp_table_has(t, 0x4857, false));
}

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
		cmocka_unit_test(test_ptdriver_quote_passes_args_intact),
		cmocka_unit_test(test_ptdriver_ssh_quoting_survives_remote_shell),
		cmocka_unit_test(test_ptdriver_validation_rejects_hostile_names),
		cmocka_unit_test(test_ptdriver_inventory_rejects_hostile_device),
		cmocka_unit_test(test_ptdriver_inventory_examples_load),
		cmocka_unit_test(test_ptdriver_deadline_kills_whole_group),
		cmocka_unit_test(test_ptdriver_leader_exit_takes_stragglers),
		cmocka_unit_test(test_ptdriver_stdin_and_large_output),
		cmocka_unit_test(test_ptdriver_spawn_missing_program),
		cmocka_unit_test(test_ptdriver_port_allocator_skips_busy_port),
		cmocka_unit_test(test_ptdriver_tcp_table_states),
		cmocka_unit_test(test_ptdriver_tc_render_one_mask_per_chain_prio),
		cmocka_unit_test(test_ptdriver_tc_count_fixtures),
		cmocka_unit_test(test_ptdriver_devinfo_text),
		cmocka_unit_test(test_ptdriver_local_discovery_without_device),
		cmocka_unit_test(test_ptdriver_counters_text_and_sysfs),
		cmocka_unit_test(test_ptdriver_cmd_argv_per_test),
		cmocka_unit_test(test_ptdriver_kubectl_wrap_is_argv),
		cmocka_unit_test(test_ptdriver_real_perftest_without_device),
		cmocka_unit_test(test_ptdriver_measure_with_fake_perftest),
		cmocka_unit_test(test_ptdriver_dry_run_prints_every_command),
		cmocka_unit_test(test_ptdriver_cli_parse_and_import),
		cmocka_unit_test(test_ptdriver_tc_render_tail_counter),
		cmocka_unit_test(test_ptdriver_tc_render_merges_filters_that_collide),
		cmocka_unit_test(test_ptdriver_measure_latency_inf_falls_back_to_average),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
