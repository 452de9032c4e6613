/* SPDX-License-Identifier: MIT */
/*
 * test-ptkube: the Kubernetes pool (testbeds/perftest/pt_kube.c) on PodList JSON fixtures
 * (tests/fixtures/k8s: written for the tests, not captured, see its README): Running pods
 * with a node and an IP are kept in name order, paired across nodes; each slot's hosts are
 * reached by `kubectl exec` into their pod and container; pods on one node make no slot (a
 * config error saying so); a kind: kubernetes file is read with its selector and template.
 * And the manifest scripts/k8s-perftest-pods prints is YAML of the documented shape (read
 * back with libyaml through yamlcfg): replicas, host network, the RDMA resource, one pod per
 * node. Applying it to a cluster (kubectl apply --dry-run=client) needs an API server and is
 * not done here.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testbeds/perftest/pt_host.h"
#include "testbeds/perftest/pt_slots.h"
#include "yamlcfg/ycfg.h"

static char *fixture(const char *name)
{
	const char *fx = getenv("SCALACN_FIXTURES");
	char path[512];
	FILE *f;
	long n;
	char *text;

	snprintf(path, sizeof(path), "%s/k8s/%s", fx ? fx : "tests/fixtures", name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("missing fixture %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

static struct pt_inventory *kube_inventory(char *dir, size_t len)
{
	struct pt_inventory *inv = NULL;
	struct scn_error err;
	char path[300];
	FILE *f;

	snprintf(dir, len, "/tmp/scalacn-ptkube-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/k8s.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("kind: kubernetes\nname: lab-k8s\neswitch: none\n"
	      "kubernetes: {selector: app=scalacn-perftest, namespace: rdma, context: lab}\n"
	      "ports: {base: 18515, count: 64}\n"
	      "host: {rnic: {device: mlx5_0, ib_port: 1, gid_index: 3}}\n", f);
	fclose(f);
	assert_int_equal(pt_inventory_load(path, &inv, &err), 0);
	unlink(path);
	rmdir(dir);
	return inv;
}

static void test_ptkube_running_pods_in_name_order(void **state)
{
	struct pt_kube_pod pods[8];
	unsigned n = 0, pairs[4][2];
	struct scn_error err;
	char *json = fixture("pods-hostnet.json");

	(void)state;
	assert_int_equal(pt_kube_parse_pods(json, "", pods, 8, &n, &err), 0);
	assert_int_equal(n, 4); /* scalacn-perftest-3 is Pending, without a node or IP */
	assert_string_equal(pods[0].name, "scalacn-perftest-0");
	assert_string_equal(pods[3].name, "scalacn-perftest-4");
	assert_string_equal(pods[0].container, "perftest");
	assert_string_equal(pods[2].node, "node-b");
	assert_string_equal(pods[2].ip, "192.168.50.12");
	/* 0 (node-a) with 2 (node-b); 1 (node-a) with 4 (node-c) */
	assert_int_equal(pt_kube_pair(pods, n, pairs, 4), 2);
	assert_string_equal(pods[pairs[0][0]].name, "scalacn-perftest-0");
	assert_string_equal(pods[pairs[0][1]].name, "scalacn-perftest-2");
	assert_string_equal(pods[pairs[1][0]].name, "scalacn-perftest-1");
	assert_string_equal(pods[pairs[1][1]].name, "scalacn-perftest-4");
	assert_int_equal(pt_kube_pair(pods, n, pairs, 1), 1);
	free(json);
	assert_int_equal(pt_kube_parse_pods("{\"kind\": \"Status\"}", "", pods, 8, &n, &err),
			 -EINVAL);
	assert_non_null(strstr(err.message, "no PodList"));
}

/* Each slot: two hosts reached by kubectl exec into their pods, ports split between slots. */
static void test_ptkube_slots_exec_into_pods(void **state)
{
	struct pt_inventory *inv, *slot[4] = { NULL };
	char dir[64], *json = fixture("pods-hostnet.json"), *cmd[] = { "cat", "/proc/net/tcp", NULL };
	struct pt_argv a;
	struct scn_error err;
	unsigned n = 0;

	(void)state;
	inv = kube_inventory(dir, sizeof(dir));
	assert_true(inv->kube && inv->pool);
	assert_string_equal(inv->kube_selector, "app=scalacn-perftest");
	assert_int_equal(pt_kube_slots_from(inv, json, slot, 4, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(slot[0]->n_hosts, 2);
	assert_string_equal(slot[0]->hosts[1].data_ip, "192.168.50.12"); /* server: pod -2 */
	assert_int_equal(slot[0]->port_base, 18515);
	assert_int_equal(slot[1]->port_base, 18515 + 32);
	assert_int_equal(slot[1]->port_count, 32);
	pt_argv_init(&a);
	assert_int_equal(pt_host_wrap(&slot[1]->hosts[1], cmd, NULL, &a), 0);
	{
		const char *want[] = { "kubectl", "--context", "lab", "exec", "-n", "rdma",
				       "scalacn-perftest-4", "-c", "perftest", "--", "cat",
				       "/proc/net/tcp", NULL };

		for (unsigned i = 0; want[i]; i++)
			assert_string_equal(a.v[i], want[i]);
	}
	pt_argv_free(&a);
	for (unsigned i = 0; i < n; i++)
		pt_inventory_free(slot[i]);
	free(json);
	pt_inventory_free(inv);
}

static void test_ptkube_one_node_makes_no_slot(void **state)
{
	struct pt_inventory *inv, *slot[4] = { NULL };
	char dir[64], *json = fixture("pods-one-node.json");
	struct scn_error err;
	unsigned n = 0;

	(void)state;
	inv = kube_inventory(dir, sizeof(dir));
	assert_int_equal(pt_kube_slots_from(inv, json, slot, 4, &n, &err), -EINVAL);
	assert_int_equal(n, 0);
	assert_int_equal(err.cls, SCN_ERR_CONFIG);
	assert_non_null(strstr(err.message, "2 running pods match 'app=scalacn-perftest': a slot "
				       "needs two pods on different nodes"));
	free(json);
	pt_inventory_free(inv);
}

/* The manifest of 4 host-network pods with an SR-IOV resource, read back as YAML. */
static void test_ptkube_manifest_is_the_documented_yaml(void **state)
{
	const char *src = getenv("SCALACN_SOURCE_ROOT");
	char cmd[700], path[] = "/tmp/scalacn-manifest-XXXXXX";
	struct ycfg_doc *doc = NULL;
	struct ycfg_node root, n, spec, tmpl, pod;
	struct scn_error err;
	const char *s;
	int64_t v;
	bool b;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "'%s/scripts/k8s-perftest-pods' --pods 4 --namespace rdma "
		 "--resource nvidia.com/cx6_vf=1 > '%s'", src ? src : ".", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ycfg_load(path, &doc, &err), 0);
	root = ycfg_root(doc);
	assert_int_equal(ycfg_req_str(&root, "kind", &s, &err), 0);
	assert_string_equal(s, "StatefulSet");
	assert_int_equal(ycfg_require(&root, "spec", &spec, &err), 0);
	assert_int_equal(ycfg_opt_int(&spec, "replicas", 1, 100, 0, &v, &err), 0);
	assert_int_equal(v, 4);
	assert_int_equal(ycfg_require(&spec, "template", &tmpl, &err), 0);
	assert_int_equal(ycfg_require(&tmpl, "spec", &pod, &err), 0);
	assert_int_equal(ycfg_opt_bool(&pod, "hostNetwork", false, &b, &err), 0);
	assert_true(b);
	assert_int_equal(ycfg_require(&pod, "affinity", &n, &err), 0);
	assert_int_equal(ycfg_require(&pod, "containers", &n, &err), 0);
	n = ycfg_seq_at(&n, 0);
	assert_int_equal(ycfg_require(&n, "resources", &n, &err), 0);
	assert_int_equal(ycfg_require(&n, "limits", &n, &err), 0);
	assert_int_equal(ycfg_opt_int(&n, "nvidia.com/cx6_vf", 0, 100, 0, &v, &err), 0);
	assert_int_equal(v, 1);
	ycfg_free(doc);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "'%s/scripts/k8s-perftest-pods' --pods 0 >/dev/null 2>&1",
		 src ? src : ".");
	assert_int_not_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptkube_running_pods_in_name_order),
		cmocka_unit_test(test_ptkube_slots_exec_into_pods),
		cmocka_unit_test(test_ptkube_one_node_makes_no_slot),
		cmocka_unit_test(test_ptkube_manifest_is_the_documented_yaml),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
