/* SPDX-License-Identifier: MIT */
/*
 * ag_model: loading the RNIC's model file (signed when a public key is configured),
 * refusing a model fitted on other firmware unless told, and configuring the optimiser
 * so that the model's inputs are fed by name (see ag_agent.h, docs/agent.md).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <scalacn-opt-mirror.h>

#include "agent/ag_agent.h"

/* The firmware this host runs: configured, or read from sysfs. "" when unknown. */
static void host_firmware(const struct ag_config *c, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(buf, len, "%s", c->firmware);
	if (*buf || !*c->rdma_device)
		return;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/fw_ver", c->rdma_device);
	f = fopen(path, "r");
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

static int check_firmware(struct ag_agent *a, char *err, size_t errlen)
{
	const char *fitted = NULL;
	char host[64];

	host_firmware(&a->cfg, host, sizeof(host));
	if (opt_model_firmware(a->model, a->cfg.verb, a->cfg.metric, &fitted) < 0)
		return 0; /* no such row: opt_table_check_model says so */
	if (*host && !strcmp(host, fitted))
		return 0;
	if (a->allow_mismatch || a->cfg.allow_firmware_mismatch) {
		fprintf(a->log, "scalacn-agent: warning: the model was fitted on firmware %s, this "
			"host runs %s (allowed by allow_firmware_mismatch)\n", fitted,
			*host ? host : "an unknown firmware");
		return 0;
	}
	snprintf(err, errlen, "%s: the model was fitted on firmware %s, this host runs %s; refused "
		 "(rnic.allow_firmware_mismatch: true or --allow-firmware-mismatch to use it)",
		 a->cfg.model, fitted, *host ? host : "an unknown firmware (set rnic.firmware or "
		 "rnic.rdma_device)");
	return -EPROTO;
}

/* The model's input of this side (e.g. "server.decap_masks"), else "SIDE.masks". */
static void masks_input(const struct ag_agent *a, char *buf, size_t len)
{
	const char *x = "", *y = "";
	char pre[16];

	snprintf(buf, len, "%s", a->cfg.masks_input);
	if (*buf)
		return;
	snprintf(pre, sizeof(pre), "%s.", a->cfg.side);
	opt_model_inputs(a->model, a->cfg.verb, a->cfg.metric, &x, &y);
	snprintf(buf, len, "%s", !strncmp(x, pre, strlen(pre)) ? x :
		 !strncmp(y, pre, strlen(pre)) ? y : "");
	if (!*buf)
		snprintf(buf, len, "%smasks", pre);
}

static int configure(struct ag_agent *a, char *err, size_t errlen)
{
	struct opt_config *c = &a->oc;
	struct opt_table *t = NULL;
	int rc;

	opt_config_default(c);
	c->degradation_threshold = a->cfg.threshold;
	c->reorder_hysteresis = a->cfg.hysteresis;
	c->update_budget = a->cfg.update_budget;
	c->window_s = a->cfg.window_s;
	c->hyper_capacity = 0;         /* tc counters do not tell a rule's microflow */
	c->idle_mask_s = UINT32_MAX;   /* never delete a prio: tc has no software fallback */
	c->max_masks = 4096;
	snprintf(c->verb, sizeof(c->verb), "%s", a->cfg.verb);
	snprintf(c->metric, sizeof(c->metric), "%s", a->cfg.metric);
	masks_input(a, c->masks_input, sizeof(c->masks_input));
	snprintf(c->flows_input, sizeof(c->flows_input), "%s", a->cfg.flows_input);
	for (unsigned i = 0; i < a->cfg.n_fixed; i++)
		if (opt_config_set_input(c, a->cfg.fixed[i].name, a->cfg.fixed[i].value) < 0) {
			snprintf(err, errlen, "inputs.fixed.%s: not accepted", a->cfg.fixed[i].name);
			return -EINVAL;
		}
	rc = opt_table_new(c, &t);
	if (rc == 0)
		rc = opt_table_check_model(t, a->model, err, errlen);
	else
		snprintf(err, errlen, "optimiser configuration refused");
	opt_table_free(t);
	return rc;
}

int ag_agent_load_model(struct ag_agent *a, char *err, size_t errlen)
{
	struct opt_model *old = a->model;
	const char *rnic = *a->cfg.rnic ? a->cfg.rnic : NULL;
	char why[512] = "";
	int rc;

	a->model = NULL;
	rc = *a->cfg.public_key
		     ? opt_model_load_signed(a->cfg.model, rnic, a->cfg.public_key, &a->model, why,
					     sizeof(why))
		     : opt_model_load(a->cfg.model, rnic, &a->model, why, sizeof(why));
	if (rc < 0)
		snprintf(err, errlen, "%s: %s", a->cfg.model, why);
	if (rc == 0)
		rc = check_firmware(a, err, errlen);
	if (rc == 0 && (rc = configure(a, why, sizeof(why))) < 0)
		snprintf(err, errlen, "%s: %s", a->cfg.model, why);
	if (rc < 0) {
		opt_model_free(a->model);
		a->model = old; /* a failed reload keeps the model in use */
		return rc;
	}
	opt_model_free(old);
	return 0;
}
