/* SPDX-License-Identifier: MIT */
/*
 * test-ptdriver: the perftest testbed driver's processes and names (testbeds/perftest):
 * quoting and validation against hostile names, the inventory, process groups and
 * deadlines, the port allocator against a port we hold, the TCP table. tc, devices,
 * counters, commands and measuring are in test-ptdriver-measure.c. Needs only loopback
 * networking.
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

static const char *const hostile[] = {
	"a b", "it's", "x;touch /tmp/ptdrv-pwned-1", "$(touch /tmp/ptdrv-pwned-2)",
	"`touch /tmp/ptdrv-pwned-3`", "line1\nline2", "", "'", "\"dq\"", "$HOME", "*", "-n",
	"a\\b", "&& echo no", "|cat", "> /tmp/ptdrv-pwned-4", "tab\there", "#comment",
};
#define N_HOSTILE (sizeof(hostile) / sizeof(hostile[0]))

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
