/* SPDX-License-Identifier: MIT */
/*
 * hx_plan_priv: helpers shared by the plan loader's files (hx_plan.c: top level, thresholds,
 * analysis, hash; hx_plan_dims.c: dimensions, fixed levels, criteria; hx_plan_space.c: the
 * component space). Not for other modules.
 */
#ifndef HX_PLAN_PRIV_H
#define HX_PLAN_PRIV_H

#include "harness/plan/hx_plan.h"
#include "yamlcfg/ycfg.h"

/* Re-post an error produced without a position (topology, generators) at node N. A leading
 * "PREFIX: " in the message (the dimension name that the key path already shows) is
 * dropped when PREFIX is not NULL. Returns -EINVAL. */
int hx_plan__rehome(const struct ycfg_node *n, const char *prefix, const struct scn_error *src,
		    struct scn_error *err);

/* Read a level of dimension D from scalar N (a number with optional K/M/G suffix, or the
 * name of a categorical level) and check it with gen_levels_set. */
int hx_plan__level(const struct ycfg_node *n, const struct gen_dimension *d, double *out,
		   struct scn_error *err);

/* A known dimension named by the scalar N (its position is used for errors); 'verb' is
 * refused (the top-level 'verbs' list chooses verbs). */
int hx_plan__dimension(const struct ycfg_node *n, const char *name,
		       const struct gen_dimension **out, struct scn_error *err);

int hx_plan__space(const struct ycfg_node *root, struct topo_space *s, struct scn_error *err);
int hx_plan__dims(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err);
int hx_plan__fixed(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err);
int hx_plan__criteria(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err);
int hx_plan__model(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err);
/* The baseline point of P (fixed + neutral levels) can be built (hx_plan_check.c). */
int hx_plan__check_base(const struct ycfg_node *root, const struct hx_plan *p,
			struct scn_error *err);

#endif
