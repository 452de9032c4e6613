/* SPDX-License-Identifier: MIT */
/*
 * scalacn-opt-mirror.h: additions to libscalacn-opt for an agent that mirrors a table a NIC
 * already holds (scalacn-agent, agent/): the cascade's tc prios set to the ones the NIC
 * uses, and the firmware a model row was fitted on. Additive: nothing in scalacn-opt.h
 * changes. Same conventions (0 or a negative errno; never prints).
 */
#ifndef SCALACN_OPT_MIRROR_H
#define SCALACN_OPT_MIRROR_H

#include "scalacn-opt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Give the N masks of the cascade, in lookup order, the tc prios PRIOS[0..N) (what the NIC
 * holds), so plans move masks between the NIC's real prios. N must equal the number of
 * masks; prios strictly increase, each in 2..65535 (1 is the hyper mask's). Pending plans
 * become stale. -EINVAL otherwise. */
OPT_API int opt_table_set_prios(struct opt_table *t, const uint16_t *prios, size_t n);

/* The firmware the (VERB, METRIC) row of M was fitted on (the model file's firmware column);
 * the pointer lives as long as M. -ENOENT no such row. */
OPT_API int opt_model_firmware(const struct opt_model *m, const char *verb, const char *metric,
			       const char **firmware);

#ifdef __cplusplus
}
#endif
#endif
