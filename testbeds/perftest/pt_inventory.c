/* SPDX-License-Identifier: MIT */
/*
 * pt_inventory: loading the perftest testbed file (pt_inventory.h) with ycfg, so every error
 * carries file:line:column and the key path. Assumes names are validated here once and can
 * be put on command lines by the other pt_* files without further checks.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/perftest/pt_argv.h"
#include "testbeds/perftest/pt_inventory.h"
#include "yamlcfg/ycfg.h"

enum check { CK_NAME, CK_HOST, CK_PATH, CK_IPV4, CK_NODES, CK_SELECTOR, CK_ANY };

/* A label selector ("app=perftest,tier in (rdma)"): it reaches kubectl as one argv word. */
static int valid_selector(const char *s, struct scn_error *err)
{
	if (!s[0] || s[0] == '-' ||
	    s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:,/=!()- ")])
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "not a label selector "
				     "(letters, digits, '_.:,/=!()- ', not starting with '-')");
	return 0;
}

/* A Slurm node list ("n[01-04],gpu7"): it reaches scontrol as one argv word. */
static int valid_nodes(const char *s, struct scn_error *err)
{
	if (s[0] == '-' || s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_.:,[]-")] != '\0')
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "not a Slurm node list "
				     "(letters, digits, '_.:,[]-', not starting with '-')");
	return 0;
}

const char *pt_transport_name(enum pt_transport t)
{
	static const char *const names[] = { "local", "ssh", "kubectl", "srun" };

	return (unsigned)t < 4 ? names[t] : "unknown";
}

/* Read MAP[KEY] (optional unless REQ) into BUF after the check. */
static int get_str(const struct ycfg_node *map, const char *key, bool req, enum check ck,
		   char *buf, size_t len, struct scn_error *err)
{
	struct ycfg_node n;
	struct in_addr a;
	const char *s;
	int rc = 0;

	if (ycfg_get(map, key, &n) < 0)
		return req ? ycfg_require(map, key, &n, err) : 0;
	if ((rc = ycfg_str(&n, &s, err)) < 0)
		return rc;
	if (strlen(s) >= len)
		return ycfg_error(&n, err, "longer than %zu characters", len - 1);
	switch (ck) {
	case CK_NAME: rc = pt_valid_name(key, s, err); break;
	case CK_HOST: rc = pt_valid_host(key, s, err); break;
	case CK_PATH: rc = pt_valid_path(key, s, err); break;
	case CK_IPV4: rc = inet_pton(AF_INET, s, &a) == 1 ? 0 : -EINVAL; break;
	case CK_NODES: rc = valid_nodes(s, err); break;
	case CK_SELECTOR: rc = valid_selector(s, err); break;
	case CK_ANY: break;
	}
	if (rc < 0) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", ck == CK_IPV4 ? "not an IPv4 address" :
			 err ? err->message : "invalid");
		return ycfg_error(&n, err, "%s", msg);
	}
	snprintf(buf, len, "%s", s);
	return 0;
}

static int read_ssh(const struct ycfg_node *h, struct pt_host *o, struct scn_error *err)
{
	static const char *const keys[] = { "host", "user", "port", "jump", "identity", NULL };
	struct ycfg_node n;
	int64_t v;
	int rc;

	if ((rc = ycfg_require(h, "ssh", &n, err)) < 0 || (rc = ycfg_check_keys(&n, keys, err)) < 0 ||
	    (rc = get_str(&n, "host", true, CK_HOST, o->ssh_host, sizeof(o->ssh_host), err)) < 0 ||
	    (rc = get_str(&n, "user", false, CK_NAME, o->ssh_user, sizeof(o->ssh_user), err)) < 0 ||
	    (rc = get_str(&n, "jump", false, CK_HOST, o->ssh_jump, sizeof(o->ssh_jump), err)) < 0 ||
	    (rc = get_str(&n, "identity", false, CK_PATH, o->ssh_identity,
			  sizeof(o->ssh_identity), err)) < 0 ||
	    (rc = ycfg_opt_int(&n, "port", 0, 65535, 0, &v, err)) < 0)
		return rc;
	o->ssh_port = (unsigned)v;
	return 0;
}

static int read_kubectl(const struct ycfg_node *h, struct pt_host *o, struct scn_error *err)
{
	static const char *const keys[] = { "pod", "namespace", "container", "context", NULL };
	struct ycfg_node n;
	int rc;

	if ((rc = ycfg_require(h, "kubectl", &n, err)) < 0 ||
	    (rc = ycfg_check_keys(&n, keys, err)) < 0 ||
	    (rc = get_str(&n, "pod", true, CK_NAME, o->pod, sizeof(o->pod), err)) < 0 ||
	    (rc = get_str(&n, "namespace", false, CK_NAME, o->ns, sizeof(o->ns), err)) < 0 ||
	    (rc = get_str(&n, "container", false, CK_NAME, o->container, sizeof(o->container),
			  err)) < 0)
		return rc;
	return get_str(&n, "context", false, CK_NAME, o->kcontext, sizeof(o->kcontext), err);
}

static int read_srun(const struct ycfg_node *h, struct pt_host *o, struct scn_error *err)
{
	static const char *const keys[] = { "node", NULL };
	struct ycfg_node n;
	int rc;

	if ((rc = ycfg_require(h, "srun", &n, err)) < 0 || (rc = ycfg_check_keys(&n, keys, err)) < 0)
		return rc;
	return get_str(&n, "node", true, CK_HOST, o->node, sizeof(o->node), err);
}

static int read_rnic(const struct ycfg_node *h, struct pt_host *o, struct scn_error *err)
{
	static const char *const keys[] = { "device", "ib_port", "gid_index", "netdev", NULL };
	struct ycfg_node n;
	int64_t v;
	int rc;

	if ((rc = ycfg_require(h, "rnic", &n, err)) < 0 || (rc = ycfg_check_keys(&n, keys, err)) < 0 ||
	    (rc = get_str(&n, "device", true, CK_NAME, o->device, sizeof(o->device), err)) < 0 ||
	    (rc = get_str(&n, "netdev", false, CK_NAME, o->netdev, sizeof(o->netdev), err)) < 0 ||
	    (rc = ycfg_opt_int(&n, "ib_port", 1, 255, 1, &v, err)) < 0)
		return rc;
	o->ib_port = (unsigned)v;
	if ((rc = ycfg_opt_int(&n, "gid_index", -1, 4095, -1, &v, err)) < 0)
		return rc;
	o->gid_index = (int)v;
	return 0;
}

static int read_esw(const struct ycfg_node *h, struct pt_host *o, struct scn_error *err)
{
	static const char *const keys[] = { "uplink", "vxlan", "vtep_ip", "representors", NULL };
	struct ycfg_node n, reps;
	int rc;

	if (ycfg_get(h, "eswitch", &n) < 0)
		return 0;
	snprintf(o->vxlan, sizeof(o->vxlan), "vxlan_sys_4789");
	if ((rc = ycfg_check_keys(&n, keys, err)) < 0 ||
	    (rc = get_str(&n, "uplink", true, CK_NAME, o->uplink, sizeof(o->uplink), err)) < 0 ||
	    (rc = get_str(&n, "vxlan", false, CK_NAME, o->vxlan, sizeof(o->vxlan), err)) < 0 ||
	    (rc = get_str(&n, "vtep_ip", false, CK_IPV4, o->vtep_ip, sizeof(o->vtep_ip), err)) < 0)
		return rc;
	if (ycfg_get(&n, "representors", &reps) < 0)
		return 0;
	if (!ycfg_is_seq(&reps) || ycfg_seq_len(&reps) > PT_MAX_REPS)
		return ycfg_error(&reps, err, "a list of at most %d netdev names", PT_MAX_REPS);
	for (size_t i = 0; i < ycfg_seq_len(&reps); i++) {
		struct ycfg_node r = ycfg_seq_at(&reps, i);
		const char *s;

		if ((rc = ycfg_str(&r, &s, err)) < 0)
			return rc;
		if (pt_valid_name("representor", s, NULL) < 0)
			return ycfg_error(&r, err, "not a valid netdev name ([A-Za-z0-9_.:-])");
		snprintf(o->reps[o->n_reps++], sizeof(o->reps[0]), "%s", s);
	}
	return 0;
}

/* What every host has, whatever reaches it: sudo, the RNIC, the eSwitch. */
static int read_host_body(const struct ycfg_node *h, struct pt_host *o, struct scn_error *err)
{
	int rc;

	if ((rc = ycfg_opt_bool(h, "sudo", false, &o->sudo, err)) < 0 ||
	    (rc = read_rnic(h, o, err)) < 0 || (rc = read_esw(h, o, err)) < 0)
		return rc;
	return 0;
}

static int read_host(const struct ycfg_node *h, struct pt_host *o, struct scn_error *err)
{
	static const char *const keys[] = { "name", "transport", "ssh", "kubectl", "srun", "sudo",
					    "data_ip", "rnic", "eswitch", NULL };
	static const char *const tr[] = { "local", "ssh", "kubectl", "srun", NULL };
	struct ycfg_node n;
	int rc, t = 0;

	memset(o, 0, sizeof(*o));
	if ((rc = ycfg_check_keys(h, keys, err)) < 0 ||
	    (rc = get_str(h, "name", true, CK_NAME, o->name, sizeof(o->name), err)) < 0)
		return rc;
	if (ycfg_get(h, "transport", &n) == 0 && (rc = ycfg_enum(&n, tr, &t, err)) < 0)
		return rc;
	o->transport = (enum pt_transport)t;
	if ((t == PT_TR_SSH && (rc = read_ssh(h, o, err)) < 0) ||
	    (t == PT_TR_KUBECTL && (rc = read_kubectl(h, o, err)) < 0) ||
	    (t == PT_TR_SRUN && (rc = read_srun(h, o, err)) < 0) ||
	    (rc = get_str(h, "data_ip", t != PT_TR_LOCAL, CK_IPV4, o->data_ip, sizeof(o->data_ip),
			  err)) < 0 ||
	    (rc = read_host_body(h, o, err)) < 0)
		return rc;
	if (!o->data_ip[0])
		snprintf(o->data_ip, sizeof(o->data_ip), "127.0.0.1");
	if (!o->vtep_ip[0])
		memcpy(o->vtep_ip, o->data_ip, sizeof(o->vtep_ip));
	return 0;
}

static int find_host(const struct pt_inventory *inv, const struct ycfg_node *p, const char *key,
		     unsigned *idx, struct scn_error *err)
{
	char name[64] = "";
	struct ycfg_node n;
	int rc;

	if ((rc = get_str(p, key, true, CK_NAME, name, sizeof(name), err)) < 0)
		return rc;
	for (unsigned i = 0; i < inv->n_hosts; i++)
		if (strcmp(inv->hosts[i].name, name) == 0) {
			*idx = i;
			return 0;
		}
	ycfg_get(p, key, &n);
	return ycfg_error(&n, err, "no host named '%s' in hosts", name);
}

static int set_role(struct pt_inventory *inv, const struct ycfg_node *p, unsigned h,
		    enum pt_role r, struct scn_error *err)
{
	if (inv->role[h] != PT_ROLE_NONE && inv->role[h] != r)
		return ycfg_error(p, err, "host '%s' is a client in one pair and a server in "
				  "another; its rule set would be ambiguous", inv->hosts[h].name);
	inv->role[h] = r;
	return 0;
}

static int read_lists(const struct ycfg_node *root, struct pt_inventory *inv,
		      struct scn_error *err)
{
	static const char *const pkeys[] = { "client", "server", NULL };
	struct ycfg_node hosts, pairs;
	int rc;

	if ((rc = ycfg_require(root, "hosts", &hosts, err)) < 0)
		return rc;
	if (!ycfg_is_seq(&hosts) || !ycfg_seq_len(&hosts) || ycfg_seq_len(&hosts) > PT_MAX_HOSTS)
		return ycfg_error(&hosts, err, "a list of 1..%d hosts", PT_MAX_HOSTS);
	for (size_t i = 0; i < ycfg_seq_len(&hosts); i++) {
		struct ycfg_node h = ycfg_seq_at(&hosts, i);

		if ((rc = read_host(&h, &inv->hosts[inv->n_hosts++], err)) < 0)
			return rc;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(inv->hosts[j].name, inv->hosts[i].name))
				return ycfg_error(&h, err, "host name '%s' used twice",
						  inv->hosts[i].name);
	}
	if ((rc = ycfg_require(root, "pairs", &pairs, err)) < 0)
		return rc;
	if (!ycfg_is_seq(&pairs) || !ycfg_seq_len(&pairs) || ycfg_seq_len(&pairs) > PT_MAX_PAIRS)
		return ycfg_error(&pairs, err, "a list of 1..%d pairs", PT_MAX_PAIRS);
	for (size_t i = 0; i < ycfg_seq_len(&pairs); i++) {
		struct ycfg_node p = ycfg_seq_at(&pairs, i);
		struct pt_pair *pp = &inv->pairs[inv->n_pairs++];

		if ((rc = ycfg_check_keys(&p, pkeys, err)) < 0 ||
		    (rc = find_host(inv, &p, "client", &pp->client, err)) < 0 ||
		    (rc = find_host(inv, &p, "server", &pp->server, err)) < 0 ||
		    (rc = set_role(inv, &p, pp->client, PT_ROLE_CLIENT, err)) < 0 ||
		    (rc = set_role(inv, &p, pp->server, PT_ROLE_SERVER, err)) < 0)
			return rc;
	}
	return 0;
}

static int read_opts(const struct ycfg_node *root, struct pt_inventory *inv,
		     struct scn_error *err)
{
	static const char *const pk[] = { "bin_dir", "connection", "rdma_cm", "run_s", NULL };
	static const char *const tk[] = { "setup_s", "slack_s", "listen_s", "tc_s", "command_s",
					   NULL };
	static const char *const portk[] = { "base", "count", NULL };
	static const char *const conns[] = { "RC", "UC", "UD", "XRC", "DC", NULL };
	struct ycfg_node n, e;
	int64_t v, c;
	int rc, ci = 0;

	snprintf(inv->bin_dir, sizeof(inv->bin_dir), "/usr/bin");
	if (ycfg_get(root, "perftest", &n) == 0 &&
	    ((rc = ycfg_check_keys(&n, pk, err)) < 0 ||
	     (rc = get_str(&n, "bin_dir", false, CK_PATH, inv->bin_dir, sizeof(inv->bin_dir),
			   err)) < 0 ||
	     (ycfg_get(&n, "connection", &e) == 0 && (rc = ycfg_enum(&e, conns, &ci, err)) < 0) ||
	     (rc = ycfg_opt_bool(&n, "rdma_cm", false, &inv->rdma_cm, err)) < 0 ||
	     (rc = ycfg_opt_double(&n, "run_s", 0.1, 86400, 60, &inv->run_s, err)) < 0))
		return rc;
	if (inv->run_s == 0)
		inv->run_s = 60;
	snprintf(inv->connection, sizeof(inv->connection), "%s", conns[ci]);
	inv->setup_s = 10, inv->slack_s = 10, inv->listen_s = 10, inv->tc_s = 120;
	inv->command_s = 30;
	if (ycfg_get(root, "timeouts", &n) == 0 &&
	    ((rc = ycfg_check_keys(&n, tk, err)) < 0 ||
	     (rc = ycfg_opt_double(&n, "setup_s", 0, 3600, 10, &inv->setup_s, err)) < 0 ||
	     (rc = ycfg_opt_double(&n, "slack_s", 0, 3600, 10, &inv->slack_s, err)) < 0 ||
	     (rc = ycfg_opt_double(&n, "listen_s", 0.1, 3600, 10, &inv->listen_s, err)) < 0 ||
	     (rc = ycfg_opt_double(&n, "tc_s", 1, 36000, 120, &inv->tc_s, err)) < 0 ||
	     (rc = ycfg_opt_double(&n, "command_s", 1, 3600, 30, &inv->command_s, err)) < 0))
		return rc;
	if ((rc = ycfg_opt_int(root, "retries", 0, 20, 2, &v, err)) < 0)
		return rc;
	inv->retries = (unsigned)v;
	v = 18515, c = 256;
	if (ycfg_get(root, "ports", &n) == 0 &&
	    ((rc = ycfg_check_keys(&n, portk, err)) < 0 ||
	     (rc = ycfg_opt_int(&n, "base", 1024, 65535, 18515, &v, err)) < 0 ||
	     (rc = ycfg_opt_int(&n, "count", 1, 4096, 256, &c, err)) < 0))
		return rc;
	if (v + c > 65536)
		return ycfg_error(&n, err, "ports base + count must stay below 65536");
	inv->port_base = (unsigned)v, inv->port_count = (unsigned)c;
	return ycfg_opt_bool(root, "dry_run", false, &inv->dry_run, err);
}

/* `host:` of kind slurm and kubernetes: what every node or pod has (sudo, RNIC, eSwitch). */
static int read_template(const struct ycfg_node *root, struct pt_host *t, struct scn_error *err)
{
	static const char *const hk[] = { "sudo", "rnic", "eswitch", NULL };
	struct ycfg_node n;
	int rc;

	if ((rc = ycfg_require(root, "host", &n, err)) < 0 || (rc = ycfg_check_keys(&n, hk, err)) < 0)
		return rc;
	return read_host_body(&n, t, err);
}

/* kind slurm: the node list, the pairing and the host template (no hosts, no pairs). */
static int read_slurm(const struct ycfg_node *root, struct pt_inventory *inv,
		      struct scn_error *err)
{
	static const char *const sk[] = { "nodes", "pairing", NULL };
	static const char *const pairings[] = { "nodes", "loopback", NULL };
	struct ycfg_node n, e;
	int rc, pairing = 0;

	inv->slurm = inv->pool = true;
	if (ycfg_get(root, "slurm", &n) == 0 &&
	    ((rc = ycfg_check_keys(&n, sk, err)) < 0 ||
	     (rc = get_str(&n, "nodes", false, CK_NODES, inv->slurm_nodes,
			   sizeof(inv->slurm_nodes), err)) < 0 ||
	     (ycfg_get(&n, "pairing", &e) == 0 && (rc = ycfg_enum(&e, pairings, &pairing, err)) < 0)))
		return rc;
	inv->slurm_loopback = pairing == 1;
	return read_template(root, &inv->tmpl, err);
}

/* kind kubernetes: the label selector, where the pods are and the host template. */
static int read_kube(const struct ycfg_node *root, struct pt_inventory *inv,
		     struct scn_error *err)
{
	static const char *const kk[] = { "selector", "namespace", "container", "context", NULL };
	struct pt_host *t = &inv->tmpl;
	struct ycfg_node n;
	int rc;

	inv->kube = inv->pool = true;
	if ((rc = ycfg_require(root, "kubernetes", &n, err)) < 0 ||
	    (rc = ycfg_check_keys(&n, kk, err)) < 0 ||
	    (rc = get_str(&n, "selector", true, CK_SELECTOR, inv->kube_selector,
			  sizeof(inv->kube_selector), err)) < 0 ||
	    (rc = get_str(&n, "namespace", false, CK_NAME, t->ns, sizeof(t->ns), err)) < 0 ||
	    (rc = get_str(&n, "container", false, CK_NAME, t->container, sizeof(t->container),
			  err)) < 0 ||
	    (rc = get_str(&n, "context", false, CK_NAME, t->kcontext, sizeof(t->kcontext),
			  err)) < 0)
		return rc;
	return read_template(root, t, err);
}

static int read_esw_mode(const struct ycfg_node *root, struct pt_inventory *inv,
			 struct scn_error *err)
{
	static const char *const modes[] = { "none", "tc", NULL };
	static const char *const tk[] = { "skip_sw", "tail_counter", NULL };
	struct ycfg_node n;
	int rc, m = 0;

	if (ycfg_get(root, "eswitch", &n) == 0 && (rc = ycfg_enum(&n, modes, &m, err)) < 0)
		return rc;
	inv->eswitch = (enum pt_eswitch)m;
	if (ycfg_get(root, "tc", &n) == 0 &&
	    ((rc = ycfg_check_keys(&n, tk, err)) < 0 ||
	     (rc = ycfg_opt_bool(&n, "skip_sw", false, &inv->tc_skip_sw, err)) < 0 ||
	     (rc = ycfg_opt_bool(&n, "tail_counter", false, &inv->tc_tail_counter, err)) < 0))
		return rc;
	if (m == PT_ESW_TC && (inv->slurm || inv->kube) && !inv->tmpl.uplink[0])
		return ycfg_error(root, err, "eswitch: tc needs an 'eswitch:' block with an uplink "
				  "in host");
	for (unsigned i = 0; m == PT_ESW_TC && i < inv->n_hosts; i++)
		if (inv->role[i] != PT_ROLE_NONE && !inv->hosts[i].uplink[0])
			return ycfg_error(root, err, "eswitch: tc needs an 'eswitch:' block with an "
					  "uplink on host '%s'", inv->hosts[i].name);
	return 0;
}

int pt_inventory_load(const char *path, struct pt_inventory **out, struct scn_error *err)
{
	static const char *const keys[] = { "kind", "name", "description", "eswitch", "tc",
					    "perftest", "timeouts", "retries", "ports", "dry_run",
					    "hosts", "pairs", "pool", NULL };
	static const char *const slurm_keys[] = { "kind", "name", "description", "eswitch", "tc",
						  "perftest", "timeouts", "retries", "ports",
						  "dry_run", "slurm", "host", NULL };
	static const char *const kube_keys[] = { "kind", "name", "description", "eswitch", "tc",
						 "perftest", "timeouts", "retries", "ports",
						 "dry_run", "kubernetes", "host", NULL };
	struct pt_inventory *inv;
	struct ycfg_doc *doc = NULL;
	struct ycfg_node root, n;
	const char *kind;
	int rc;

	*out = NULL;
	if ((rc = ycfg_load(path, &doc, err)) < 0)
		return rc;
	inv = calloc(1, sizeof(*inv));
	if (!inv) {
		ycfg_free(doc);
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "perftest: out of memory");
	}
	snprintf(inv->file, sizeof(inv->file), "%s", path);
	root = ycfg_root(doc);
	if ((rc = ycfg_req_str(&root, "kind", &kind, err)) < 0)
		goto out;
	if (strcmp(kind, "perftest") && strcmp(kind, "slurm") && strcmp(kind, "kubernetes")) {
		ycfg_get(&root, "kind", &n);
		rc = ycfg_error(&n, err, "kind '%s' is not 'perftest', 'slurm' or 'kubernetes'", kind);
		goto out;
	}
	inv->slurm = strcmp(kind, "slurm") == 0;
	inv->kube = strcmp(kind, "kubernetes") == 0;
	if ((rc = ycfg_check_keys(&root, inv->slurm ? slurm_keys : inv->kube ? kube_keys : keys,
				  err)) < 0 ||
	    (rc = get_str(&root, "name", false, CK_NAME, inv->name, sizeof(inv->name), err)) < 0 ||
	    (rc = inv->slurm  ? read_slurm(&root, inv, err)
		  : inv->kube ? read_kube(&root, inv, err)
			      : read_lists(&root, inv, err)) < 0 ||
	    (rc = read_opts(&root, inv, err)) < 0 || (rc = read_esw_mode(&root, inv, err)) < 0 ||
	    (rc = ycfg_opt_bool(&root, "pool", inv->pool, &inv->pool, err)) < 0)
		goto out;
out:
	ycfg_free(doc);
	if (rc < 0)
		free(inv);
	else
		*out = inv;
	return rc;
}

void pt_inventory_free(struct pt_inventory *inv)
{
	free(inv);
}
