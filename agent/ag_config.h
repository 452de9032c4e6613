/* SPDX-License-Identifier: MIT */
/*
 * ag_config: scalacn-agent's YAML configuration (docs/agent.md "Configuration"), read with
 * yamlcfg (positions kept: every error is "file:line:column: key.path: message").
 */
#ifndef AG_CONFIG_H
#define AG_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/scn_error.h"

#define AG_MAX_DEVICES 16
#define AG_MAX_FIXED 8

struct ag_config {
	char file[PATH_MAX];
	char devices[AG_MAX_DEVICES][16];
	unsigned n_devices;
	/* model: */
	char model[PATH_MAX], public_key[PATH_MAX]; /* public_key "" = unsigned models */
	char rnic[64];                 /* RNIC model name in the file ("" = the only one) */
	char verb[32], metric[32];
	/* rnic: the firmware this host runs, given or read from sysfs */
	char firmware[64], rdma_device[64];
	bool allow_firmware_mismatch;
	/* inputs: how the model's inputs are fed (struct opt_config) */
	char side[8];                  /* "server" or "client": whose masks the table holds */
	char masks_input[64], flows_input[64];
	struct { char name[64]; double value; } fixed[AG_MAX_FIXED];
	unsigned n_fixed;
	/* optimiser and budgets */
	double threshold, hysteresis;
	uint32_t update_budget, window_s;
	double tick_s;
	/* files */
	char state_dir[PATH_MAX], metrics_dir[PATH_MAX], tc[PATH_MAX];
};

/* Defaults (docs/agent.md), then PATH's keys. -EINVAL with ERR set (class config). */
int ag_config_load(const char *path, struct ag_config *cfg, struct scn_error *err);

#endif
