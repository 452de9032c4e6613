/* SPDX-License-Identifier: MIT */
/*
 * hx_plan_model: the plan's optional `model:` section (docs/plan-reference.md): after the
 * causal analysis, measure a design over the dimensions the causes name so that `fit`
 * models each (verb, metric) on them.
 *   model:
 *     levels: 6        # levels per input, spread geometrically over the plan's range (2..12)
 *     max_inputs: 2    # causal dimensions per model (1..2), the strongest causes first
 *     layouts: 8       # most rule layouts per point (1..64; hx_model.c says how many)
 *     refine: 0        # most rounds of levels added where neighbours differ (0..8;
 *                      # hx_model_refine.c)
 *     max_layouts: 8   # most layouts a point gets from budget left after the grids and
 *                      # refinement (layouts..64, default layouts: none; hx_model_tighten.c)
 * Absent: no model phase (levels = 0).
 */
#include "harness/plan/hx_plan_priv.h"

#include <stdint.h>

int hx_plan__model(const struct ycfg_node *root, struct hx_plan *p, struct scn_error *err)
{
	static const char *const keys[] = { "levels", "max_inputs", "layouts", "refine",
					      "max_layouts", NULL };
	struct ycfg_node n;
	int64_t v;
	int rc;

	p->model_levels = 0;
	p->model_inputs = 2;
	p->model_layouts = 1;
	p->model_refine = 0;
	p->model_max_layouts = 1;
	if (ycfg_get(root, "model", &n))
		return 0;
	if ((rc = ycfg_check_keys(&n, keys, err)) < 0 ||
	    (rc = ycfg_opt_int(&n, "levels", 2, 12, 6, &v, err)) < 0)
		return rc;
	p->model_levels = (unsigned)v;
	if ((rc = ycfg_opt_int(&n, "max_inputs", 1, 2, 2, &v, err)) < 0)
		return rc;
	p->model_inputs = (unsigned)v;
	if ((rc = ycfg_opt_int(&n, "layouts", 1, HX_MAX_LAYOUTS, 8, &v, err)) < 0)
		return rc;
	p->model_layouts = (unsigned)v;
	if ((rc = ycfg_opt_int(&n, "refine", 0, 8, 0, &v, err)) < 0)
		return rc;
	p->model_refine = (unsigned)v;
	if ((rc = ycfg_opt_int(&n, "max_layouts", p->model_layouts, HX_MAX_LAYOUTS,
			       p->model_layouts, &v, err)) < 0)
		return rc;
	p->model_max_layouts = (unsigned)v;
	if (p->model_max_layouts > p->model_layouts && p->model_layouts < 2) {
		struct ycfg_node k;

		ycfg_get(&n, "max_layouts", &k);
		return ycfg_error(&k, err, "needs model.layouts of 2 or more (a point's "
					   "spread over layouts says which are short)");
	}
	return 0;
}
