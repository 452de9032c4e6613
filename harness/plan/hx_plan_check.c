/* SPDX-License-Identifier: MIT */
/*
 * hx_plan_check: checks of a loaded plan as a whole, made at load time so that every command
 * that reads a plan (enumerate, run, run --dry-run, compare, analyze) accepts and refuses the
 * same plans. Today: the baseline point (the 'fixed' levels with every explored dimension at
 * its neutral level) must be buildable, since every campaign measures it first; a plan whose
 * fixed masks need more flows than it fixes fails here with the position of the level that
 * is too high, not later in the middle of a campaign.
 */
#include "harness/plan/hx_plan_priv.h"

#include <stdio.h>
#include <string.h>

/* The node a baseline error about dimension NAME belongs to: its 'fixed' level, else the
 * neutral level of its 'dimensions' entry, else the 'fixed' mapping, else the root. */
static struct ycfg_node blame(const struct ycfg_node *root, const char *name)
{
	struct ycfg_node fixed, dims, at = *root;

	if (!ycfg_get(root, "fixed", &fixed)) {
		if (!ycfg_get(&fixed, name, &at))
			return at;
		at = fixed;
	}
	if (ycfg_get(root, "dimensions", &dims) || !ycfg_is_seq(&dims))
		return at;
	for (size_t i = 0; i < ycfg_seq_len(&dims); i++) {
		struct ycfg_node d = ycfg_seq_at(&dims, i), n;
		struct scn_error scratch;
		const char *s;

		if (ycfg_get(&d, "name", &n) || ycfg_str(&n, &s, &scratch) || strcmp(s, name))
			continue;
		return ycfg_get(&d, "neutral", &n) ? d : n;
	}
	return at;
}

int hx_plan__check_base(const struct ycfg_node *root, const struct hx_plan *p,
			struct scn_error *err)
{
	struct gen_levels l = p->fixed;
	struct scn_error src;
	struct ycfg_node at;
	char name[64];
	size_t n;

	for (unsigned i = 0; i < p->n_dims; i++)
		gen_levels_set(&l, p->dims[i].dim, p->dims[i].neutral, NULL);
	scn_error_clear(&src);
	if (gen_levels_check(&l, &src) == 0)
		return 0;
	n = strcspn(src.message, ":");
	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1),
		 src.message);
	at = blame(root, name);
	snprintf(src.message + strlen(src.message), sizeof(src.message) - strlen(src.message),
		 " at the baseline point (the fixed levels, every dimension at its neutral level)");
	return hx_plan__rehome(&at, name, &src, err);
}
