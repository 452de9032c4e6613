/* SPDX-License-Identifier: MIT */
/*
 * ag_config: reading scalacn-agent's configuration file (see ag_config.h, docs/agent.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/ag_config.h"
#include "yamlcfg/ycfg.h"

static void defaults(struct ag_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->verb, sizeof(c->verb), "write");
	snprintf(c->metric, sizeof(c->metric), "bw");
	snprintf(c->side, sizeof(c->side), "server");
	snprintf(c->flows_input, sizeof(c->flows_input), "flows");
	snprintf(c->state_dir, sizeof(c->state_dir), "/var/lib/scalacn-agent");
	snprintf(c->tc, sizeof(c->tc), "tc");
	c->threshold = 0.05;
	c->hysteresis = 0.25;
	c->update_budget = 2000;
	c->window_s = 60;
	c->tick_s = 1.0;
}

/* MAP[KEY] (optional) into BUF; PATHLIKE resolves it against the config file's folder. */
static int opt_text(const struct ycfg_node *map, const char *key, char *buf, size_t len,
		    bool pathlike, struct scn_error *err)
{
	struct ycfg_node n;
	const char *s;

	if (ycfg_get(map, key, &n) < 0)
		return 0;
	if (ycfg_str(&n, &s, err) < 0)
		return -EINVAL;
	if (!*s || strlen(s) >= len)
		return ycfg_error(&n, err, "must be 1 to %zu characters", len - 1);
	if (pathlike)
		ycfg_resolve_path(&n, s, buf, len);
	else
		snprintf(buf, len, "%s", s);
	return 0;
}

static int read_devices(const struct ycfg_node *root, struct ag_config *c,
			struct scn_error *err)
{
	struct ycfg_node seq;

	if (ycfg_require(root, "devices", &seq, err) < 0)
		return -EINVAL;
	if (!ycfg_is_seq(&seq) || ycfg_seq_len(&seq) == 0 ||
	    ycfg_seq_len(&seq) > AG_MAX_DEVICES)
		return ycfg_error(&seq, err, "a list of 1 to %d network devices", AG_MAX_DEVICES);
	for (size_t i = 0; i < ycfg_seq_len(&seq); i++) {
		struct ycfg_node n = ycfg_seq_at(&seq, i);
		const char *s;

		if (ycfg_str(&n, &s, err) < 0)
			return -EINVAL;
		if (!*s || strlen(s) >= sizeof(c->devices[0]) || strpbrk(s, " /\t\n"))
			return ycfg_error(&n, err, "\"%s\" is not a network device name", s);
		snprintf(c->devices[c->n_devices++], sizeof(c->devices[0]), "%s", s);
	}
	return 0;
}

static int read_model(const struct ycfg_node *root, struct ag_config *c,
		      struct scn_error *err)
{
	static const char *const keys[] = { "file", "rnic", "public_key", "verb", "metric",
					    NULL };
	struct ycfg_node m, f;

	if (ycfg_require(root, "model", &m, err) < 0 || ycfg_check_keys(&m, keys, err) < 0 ||
	    ycfg_require(&m, "file", &f, err) < 0)
		return -EINVAL;
	return opt_text(&m, "file", c->model, sizeof(c->model), true, err) ||
	       opt_text(&m, "public_key", c->public_key, sizeof(c->public_key), true, err) ||
	       opt_text(&m, "rnic", c->rnic, sizeof(c->rnic), false, err) ||
	       opt_text(&m, "verb", c->verb, sizeof(c->verb), false, err) ||
	       opt_text(&m, "metric", c->metric, sizeof(c->metric), false, err) ? -EINVAL : 0;
}

static int read_rnic(const struct ycfg_node *root, struct ag_config *c, struct scn_error *err)
{
	static const char *const keys[] = { "firmware", "rdma_device",
					    "allow_firmware_mismatch", NULL };
	struct ycfg_node r;

	if (ycfg_get(root, "rnic", &r) < 0)
		return 0;
	if (ycfg_check_keys(&r, keys, err) < 0 ||
	    opt_text(&r, "firmware", c->firmware, sizeof(c->firmware), false, err) ||
	    opt_text(&r, "rdma_device", c->rdma_device, sizeof(c->rdma_device), false, err) ||
	    ycfg_opt_bool(&r, "allow_firmware_mismatch", false, &c->allow_firmware_mismatch,
			  err) < 0)
		return -EINVAL;
	return 0;
}

static int read_fixed(const struct ycfg_node *in, struct ag_config *c, struct scn_error *err)
{
	struct ycfg_node fx;

	if (ycfg_get(in, "fixed", &fx) < 0)
		return 0;
	if (!ycfg_is_map(&fx) || ycfg_map_len(&fx) > AG_MAX_FIXED)
		return ycfg_error(&fx, err, "a mapping of at most %d input names to values",
				  AG_MAX_FIXED);
	for (size_t i = 0; i < ycfg_map_len(&fx); i++) {
		struct ycfg_node v = ycfg_map_value(&fx, i);
		const char *name = ycfg_map_key(&fx, i);

		if (strlen(name) >= sizeof(c->fixed[0].name))
			return ycfg_error(&v, err, "input name too long");
		if (ycfg_double(&v, -1e12, 1e12, &c->fixed[c->n_fixed].value, err) < 0)
			return -EINVAL;
		snprintf(c->fixed[c->n_fixed++].name, sizeof(c->fixed[0].name), "%s", name);
	}
	return 0;
}

static int read_inputs(const struct ycfg_node *root, struct ag_config *c,
		       struct scn_error *err)
{
	static const char *const keys[] = { "side", "masks", "flows", "fixed", NULL };
	static const char *const sides[] = { "server", "client", NULL };
	struct ycfg_node in, s;
	int side;

	if (ycfg_get(root, "inputs", &in) < 0)
		return 0;
	if (ycfg_check_keys(&in, keys, err) < 0)
		return -EINVAL;
	if (ycfg_get(&in, "side", &s) == 0) {
		if (ycfg_enum(&s, sides, &side, err) < 0)
			return -EINVAL;
		snprintf(c->side, sizeof(c->side), "%s", sides[side]);
	}
	if (opt_text(&in, "masks", c->masks_input, sizeof(c->masks_input), false, err) ||
	    opt_text(&in, "flows", c->flows_input, sizeof(c->flows_input), false, err))
		return -EINVAL;
	return read_fixed(&in, c, err);
}

static int read_numbers(const struct ycfg_node *root, struct ag_config *c,
			struct scn_error *err)
{
	static const char *const bkeys[] = { "updates_per_s", "tick_s", NULL };
	static const char *const okeys[] = { "threshold", "window_s", "hysteresis", NULL };
	struct ycfg_node b, o;
	int64_t v = c->update_budget, w = c->window_s;

	if (ycfg_get(root, "budgets", &b) == 0 &&
	    (ycfg_check_keys(&b, bkeys, err) < 0 ||
	     ycfg_opt_int(&b, "updates_per_s", 1, 1000000, v, &v, err) < 0 ||
	     ycfg_opt_double(&b, "tick_s", 0.01, 3600, c->tick_s, &c->tick_s, err) < 0))
		return -EINVAL;
	if (ycfg_get(root, "optimiser", &o) == 0 &&
	    (ycfg_check_keys(&o, okeys, err) < 0 ||
	     ycfg_opt_double(&o, "threshold", 0, 1, c->threshold, &c->threshold, err) < 0 ||
	     ycfg_opt_int(&o, "window_s", 1, 3600, w, &w, err) < 0 ||
	     ycfg_opt_double(&o, "hysteresis", 0, 100, c->hysteresis, &c->hysteresis, err) < 0))
		return -EINVAL;
	c->update_budget = (uint32_t)v;
	c->window_s = (uint32_t)w;
	return 0;
}

static int read_files(const struct ycfg_node *root, struct ag_config *c, struct scn_error *err)
{
	static const char *const mkeys[] = { "textfile_dir", NULL };
	struct ycfg_node m;

	if (opt_text(root, "state_dir", c->state_dir, sizeof(c->state_dir), true, err) ||
	    opt_text(root, "tc", c->tc, sizeof(c->tc), false, err))
		return -EINVAL;
	if (ycfg_get(root, "metrics", &m) < 0)
		return 0;
	if (ycfg_check_keys(&m, mkeys, err) < 0)
		return -EINVAL;
	return opt_text(&m, "textfile_dir", c->metrics_dir, sizeof(c->metrics_dir), true, err);
}

int ag_config_load(const char *path, struct ag_config *cfg, struct scn_error *err)
{
	static const char *const keys[] = { "devices", "model", "rnic", "inputs", "budgets",
					    "optimiser", "state_dir", "metrics", "tc", NULL };
	struct ycfg_doc *doc = NULL;
	struct ycfg_node root;
	int rc;

	defaults(cfg);
	snprintf(cfg->file, sizeof(cfg->file), "%s", path);
	if (ycfg_load(path, &doc, err) < 0)
		return -EINVAL;
	root = ycfg_root(doc);
	if (!ycfg_is_map(&root))
		rc = ycfg_error(&root, err, "the configuration must be a mapping");
	else
		rc = ycfg_check_keys(&root, keys, err) || read_devices(&root, cfg, err) ||
		     read_model(&root, cfg, err) || read_rnic(&root, cfg, err) ||
		     read_inputs(&root, cfg, err) || read_numbers(&root, cfg, err) ||
		     read_files(&root, cfg, err) ? -EINVAL : 0;
	ycfg_free(doc);
	return rc;
}
