/* SPDX-License-Identifier: MIT */
/*
 * cmd_trials_priv: what cmd_trials.c and cmd_trials_evidence.c share (`scalacn trials`).
 */
#ifndef CMD_TRIALS_PRIV_H
#define CMD_TRIALS_PRIV_H

#include <stdio.h>

#include "results/res.h"

/* `trials --evidence ID`: trial T (CHANGED: its levels away from the baseline) and what its
 * testbed showed (EVIDENCE: the stored JSON text, NULL when none was recorded) as text. */
void hx_trials_print_evidence(FILE *out, const struct res_trial *t, const char *changed,
			      const char *evidence);

#endif
