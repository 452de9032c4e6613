/* SPDX-License-Identifier: MIT */
/*
 * pt_kube: the slots of a testbed file of kind kubernetes (pt_slots.h). The pods are
 * `kubectl [--context C] get pods [-n NS] -l SELECTOR -o json` (a v1 PodList, read with
 * json-c); a pod counts when its phase is Running and it has a node and an IPv4 pod IP.
 * Pods are taken in name order and paired across nodes: each pod is the client of the next
 * unpaired pod on another node (its server), so a pair never shares a node's NIC. Every
 * host is reached by `kubectl exec` (pt_host.h); the server's data address is its pod IP
 * (the node's address with hostNetwork: true, see docs/scale-out.md).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "testbeds/perftest/pt_argv.h"
#include "testbeds/perftest/pt_proc.h"
#include "testbeds/perftest/pt_slots.h"

static const char *jstr(struct json_object *o, const char *a, const char *b)
{
	struct json_object *x, *y;

	if (!json_object_object_get_ex(o, a, &x) || !json_object_object_get_ex(x, b, &y) ||
	    !json_object_is_type(y, json_type_string))
		return "";
	return json_object_get_string(y);
}

/* The pod ITEM as a pod (false when it is not usable: not Running, no node, no IPv4). */
static bool pod_of(struct json_object *item, const char *want_container, struct pt_kube_pod *p)
{
	struct json_object *spec, *cs, *c0, *nm;
	struct in_addr a;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", jstr(item, "metadata", "name"));
	snprintf(p->ns, sizeof(p->ns), "%s", jstr(item, "metadata", "namespace"));
	snprintf(p->node, sizeof(p->node), "%s", jstr(item, "spec", "nodeName"));
	snprintf(p->ip, sizeof(p->ip), "%s", jstr(item, "status", "podIP"));
	if (want_container[0])
		snprintf(p->container, sizeof(p->container), "%s", want_container);
	else if (json_object_object_get_ex(item, "spec", &spec) &&
		 json_object_object_get_ex(spec, "containers", &cs) &&
		 (c0 = json_object_array_get_idx(cs, 0)) &&
		 json_object_object_get_ex(c0, "name", &nm))
		snprintf(p->container, sizeof(p->container), "%s", json_object_get_string(nm));
	return !strcmp(jstr(item, "status", "phase"), "Running") && p->node[0] &&
	       inet_pton(AF_INET, p->ip, &a) == 1 && pt_valid_name("pod", p->name, NULL) == 0 &&
	       (!p->ns[0] || pt_valid_name("namespace", p->ns, NULL) == 0) &&
	       (!p->container[0] || pt_valid_name("container", p->container, NULL) == 0);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct pt_kube_pod *)a)->name, ((const struct pt_kube_pod *)b)->name);
}

int pt_kube_parse_pods(const char *json, const char *container, struct pt_kube_pod *pods,
		       unsigned max, unsigned *n, struct scn_error *err)
{
	struct json_object *root = json_tokener_parse(json), *items;

	*n = 0;
	if (!root || !json_object_object_get_ex(root, "items", &items) ||
	    !json_object_is_type(items, json_type_array)) {
		json_object_put(root);
		return scn_error_set(err, SCN_ERR_DEVICE, -EINVAL, "kubernetes: kubectl get pods "
				     "gave no PodList (no \"items\" array)");
	}
	for (size_t i = 0; i < json_object_array_length(items) && *n < max; i++)
		*n += pod_of(json_object_array_get_idx(items, i), container, &pods[*n]);
	json_object_put(root);
	qsort(pods, *n, sizeof(*pods), by_name);
	return 0;
}

unsigned pt_kube_pair(const struct pt_kube_pod *pods, unsigned n, unsigned (*pairs)[2],
		      unsigned max)
{
	bool used[PT_KUBE_MAX_PODS] = { false };
	unsigned k = 0;

	for (unsigned i = 0; i < n && i < PT_KUBE_MAX_PODS && k < max; i++) {
		if (used[i])
			continue;
		for (unsigned j = i + 1; j < n && j < PT_KUBE_MAX_PODS; j++)
			if (!used[j] && strcmp(pods[i].node, pods[j].node)) {
				used[i] = used[j] = true;
				pairs[k][0] = i;
				pairs[k++][1] = j;
				break;
			}
	}
	return k;
}

/* `kubectl get pods -l SELECTOR -o json` of INV. Malloc'd output into *OUT. */
static int get_pods(const struct pt_inventory *inv, char **out, struct scn_error *err)
{
	char *argv[12];
	unsigned a = 0;
	struct pt_spawn sp = { .argv = argv };
	struct pt_proc *p = NULL;
	int rc;

	argv[a++] = "kubectl";
	if (inv->tmpl.kcontext[0])
		argv[a++] = "--context", argv[a++] = (char *)inv->tmpl.kcontext;
	argv[a++] = "get", argv[a++] = "pods";
	if (inv->tmpl.ns[0])
		argv[a++] = "-n", argv[a++] = (char *)inv->tmpl.ns;
	argv[a++] = "-l", argv[a++] = (char *)inv->kube_selector;
	argv[a++] = "-o", argv[a++] = "json";
	argv[a] = NULL;
	rc = pt_proc_run(&sp, inv->command_s, &p, err);
	if (rc == 0 && pt_proc_exit_code(p) != 0)
		rc = scn_error_set(err, SCN_ERR_DEVICE, -EIO, "kubernetes: kubectl get pods -l %s "
				   "failed: %.300s", inv->kube_selector, pt_proc_err(p, NULL));
	if (rc == 0 && !(*out = strdup(pt_proc_out(p, NULL))))
		rc = scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "kubernetes: out of memory");
	pt_proc_free(p);
	return rc;
}

static void pod_host(const struct pt_inventory *inv, const struct pt_kube_pod *pod,
		     const char *role, struct pt_host *h)
{
	*h = inv->tmpl;
	snprintf(h->name, sizeof(h->name), "%.50s-%s", pod->name, role);
	h->transport = PT_TR_KUBECTL;
	snprintf(h->pod, sizeof(h->pod), "%s", pod->name);
	if (pod->ns[0])
		snprintf(h->ns, sizeof(h->ns), "%s", pod->ns);
	snprintf(h->container, sizeof(h->container), "%s", pod->container);
	snprintf(h->data_ip, sizeof(h->data_ip), "%s", pod->ip);
	if (!h->vtep_ip[0])
		memcpy(h->vtep_ip, h->data_ip, sizeof(h->vtep_ip));
}

int pt_kube_slots_from(const struct pt_inventory *inv, const char *json,
		       struct pt_inventory **out, unsigned max, unsigned *n, struct scn_error *err)
{
	struct pt_kube_pod *pods = calloc(PT_KUBE_MAX_PODS, sizeof(*pods));
	unsigned np = 0, pairs[PT_KUBE_MAX_PODS / 2][2], k = 0;
	int rc;

	*n = 0;
	if (!pods)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "kubernetes: out of memory");
	rc = pt_kube_parse_pods(json, inv->tmpl.container, pods, PT_KUBE_MAX_PODS, &np, err);
	if (rc == 0)
		k = pt_kube_pair(pods, np, pairs, max < PT_KUBE_MAX_PODS / 2 ? max : PT_KUBE_MAX_PODS / 2);
	if (rc == 0 && k == 0)
		rc = scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "%s: %u running pod%s match "
				   "'%s': a slot needs two pods on different nodes", inv->file, np,
				   np == 1 ? "" : "s", inv->kube_selector);
	for (unsigned i = 0; rc == 0 && i < k; i++) {
		struct pt_host c, s;

		pod_host(inv, &pods[pairs[i][0]], "client", &c);
		pod_host(inv, &pods[pairs[i][1]], "server", &s);
		if ((rc = pt_slot_new(inv, &c, &s, i, k, &out[i], err)) == 0)
			(*n)++;
	}
	free(pods);
	return rc;
}

int pt_kube_slots(const struct pt_inventory *inv, struct pt_inventory **out, unsigned max,
		  unsigned *n, struct scn_error *err)
{
	char *json = NULL;
	int rc = get_pods(inv, &json, err);

	*n = 0;
	if (rc == 0)
		rc = pt_kube_slots_from(inv, json, out, max, n, err);
	free(json);
	return rc;
}
