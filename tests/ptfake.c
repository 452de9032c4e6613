/* SPDX-License-Identifier: MIT */
/*
 * ptfake: fake perftest tools, inventories and result tables for tests (see ptfake.h).
 */
#include "tests/ptfake.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool ptf_usable(void)
{
	return system("command -v python3 >/dev/null && command -v bash >/dev/null") == 0;
}

char *ptf_dir(void)
{
	static int n;
	char *dir = NULL;

	if (asprintf(&dir, "/tmp/ptfake-%d-%d", (int)getpid(), n++) < 0)
		abort();
	mkdir(dir, 0755);
	return dir;
}

void ptf_rmdir(char *dir)
{
	char *cmd = NULL;

	if (dir && !strncmp(dir, "/tmp/ptfake-", 12) && asprintf(&cmd, "rm -rf '%s'", dir) > 0 &&
	    system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	free(cmd);
	free(dir);
}

char *ptf_write(const char *dir, const char *name, const char *text, bool exec)
{
	char *path = NULL;
	FILE *f;

	if (asprintf(&path, "%s/%s", dir, name) < 0 || !(f = fopen(path, "w")))
		abort();
	fputs(text, f);
	fclose(f);
	chmod(path, exec ? 0755 : 0644);
	return path;
}

void ptf_tool(const char *dir, const char *tool, const char *client)
{
	char *script = NULL, *name = NULL;

	if (asprintf(&name, "%s.client", tool) < 0 ||
	    asprintf(&script, "#!/bin/bash\ndir='%s'\nport=18515; last=\n"
		     "while [ $# -gt 0 ]; do case \"$1\" in -p) port=$2; shift;; esac; "
		     "last=$1; shift; done\n"
		     "case \"$last\" in\n"
		     "*.*.*.*) exec 3<>/dev/tcp/$last/$port || exit 1; . \"$dir/%s\" ;;\n"
		     "*) echo $$ > \"$dir/server.pid\"; exec python3 -c 'import socket,sys\n"
		     "s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
		     "s.bind((\"0.0.0.0\", int(sys.argv[1]))); s.listen(1); c, _ = s.accept(); "
		     "c.recv(1)' \"$port\" ;;\nesac\n", dir, name) < 0)
		abort();
	free(ptf_write(dir, tool, script, true));
	free(ptf_write(dir, name, client, false));
	free(script);
	free(name);
}

char *ptf_inventory(const char *dir, const char *bin_dir, const char *transport,
		    unsigned port_base, unsigned retries)
{
	char *text = NULL, *path, how[64];

	snprintf(how, sizeof(how), "transport: %s%s", transport,
		 strcmp(transport, "kubectl") ? "" : ", kubectl: {pod: p}");
	if (asprintf(&text,
		     "kind: perftest\nname: fake\neswitch: none\n"
		     "perftest: {bin_dir: %s, run_s: 0.1}\n"
		     "timeouts: {setup_s: 1, slack_s: 0.5, listen_s: 5}\n"
		     "retries: %u\nports: {base: %u, count: 16}\n"
		     "hosts:\n"
		     "  - {name: server, %s, data_ip: 127.0.0.1, rnic: {device: rxe0, ib_port: 1}}\n"
		     "  - {name: client, %s, data_ip: 127.0.0.1, rnic: {device: rxe0, ib_port: 1}}\n"
		     "pairs: [{client: client, server: server}]\n",
		     bin_dir, retries, port_base, how, how) < 0)
		abort();
	path = ptf_write(dir, "testbed.yaml", text, false);
	free(text);
	return path;
}

/* Below the kernel's ephemeral range (32768..60999 by default): a port in it can be taken
 * between the free-port check and the fake server's bind by any outgoing connection, the
 * fake clients' own included ("Address already in use" on a loaded host). */
unsigned ptf_port_base(unsigned offset)
{
	return 10000u + ((unsigned)getpid() * 37u + offset) % 22000u;
}

char *ptf_counting(const char *body)
{
	char *t = NULL;

	if (asprintf(&t, "n=$(cat \"$dir/n\" 2>/dev/null || echo 0); n=$((n+1)); "
		     "echo $n > \"$dir/n\"\n%s", body) < 0)
		abort();
	return t;
}

void ptf_kubectl(const char *dir)
{
	const char *fx = getenv("SCALACN_FIXTURES");
	char *devinfo = NULL;

	free(ptf_write(dir, "kubectl", "#!/bin/bash\n# kubectl [options] exec ... -- CMD: run CMD here\n"
		       "while [ $# -gt 0 ] && [ \"$1\" != \"--\" ]; do shift; done\n"
		       "shift\nexec \"$@\"\n", true));
	if (asprintf(&devinfo, "#!/bin/bash\nsed 1d '%s/rdma/rxe-qemu/loop__ibv_devinfo.txt'\n",
		     fx ? fx : "tests/fixtures") < 0)
		abort();
	free(ptf_write(dir, "ibv_devinfo", devinfo, true));
	free(devinfo);
}

char *ptf_lat_table(const char *median)
{
	char *t = NULL;

	if (asprintf(&t,
		     "---------------------------------------------------------------------------------------\n"
		     "                    RDMA_Write Latency Test\n"
		     " Dual-port       : OFF\t\tDevice         : rxe0\n"
		     "---------------------------------------------------------------------------------------\n"
		     " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
		     "t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec] \n"
		     " 65536   1000          %s          %s       %s    \t       %s       \t36.03  "
		     "\t\t%s  \t\t%s \n"
		     "---------------------------------------------------------------------------------------\n",
		     median, median, median, median, median, median) < 0)
		abort();
	return t;
}
