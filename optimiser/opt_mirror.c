/* SPDX-License-Identifier: MIT */
/*
 * opt_mirror: the scalacn-opt-mirror.h additions (a table mirroring a NIC's real tc prios;
 * the firmware of a model row). Kept in its own file so the core stays untouched.
 */
#include <errno.h>
#include <string.h>

#include "optimiser/opt_model_priv.h"
#include "optimiser/opt_priv.h"
#include "optimiser/scalacn-opt-mirror.h"

int opt_table_set_prios(struct opt_table *t, const uint16_t *prios, size_t n)
{
	if (!t || (!prios && n) || n != t->n_masks)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (prios[i] <= OPT_HYPER_PRIO || (i && prios[i] <= prios[i - 1]))
			return -EINVAL;
	for (size_t i = 0; i < n; i++)
		t->order[i]->prio = prios[i];
	t->generation++;
	return 0;
}

int opt_model_firmware(const struct opt_model *m, const char *verb, const char *metric,
		       const char **firmware)
{
	for (size_t i = 0; m && verb && metric && i < m->n; i++)
		if (!strcmp(m->rows[i].verb, verb) && !strcmp(m->rows[i].metric, metric)) {
			if (firmware)
				*firmware = m->rows[i].firmware;
			return 0;
		}
	return -ENOENT;
}
