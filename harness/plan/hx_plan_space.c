/* SPDX-License-Identifier: MIT */
/*
 * hx_plan_space: the plan's 'components' section -> struct topo_space (topology/topo_enum.h),
 * the component space the architecture-model enumerator walks.
 *
 * Rules (docs/plan-reference.md): no 'components' = topo_space_default(). Otherwise every
 * missing key takes the default's value, except that 'shapes' and 'action_lists', when given,
 * replace the default lists wholesale. max_masks_per_table, when not given, is the default
 * clamped to the number of shapes. Masks are parsed by topo_mask_parse and action kinds by
 * topo_action_parse; topo_space_validate has the last word.
 */
#include "harness/plan/hx_plan_priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int shape_name(const struct ycfg_node *v, const char *key, char *dst, size_t len,
		      struct scn_error *err)
{
	if (!key[0] || strlen(key) >= len)
		return ycfg_error(v, err, "a name needs 1..%zu characters", len - 1);
	snprintf(dst, len, "%s", key);
	return 0;
}

static int shapes(const struct ycfg_node *map, struct topo_space *s, struct scn_error *err)
{
	int rc;

	if (!ycfg_is_map(map) || !ycfg_map_len(map))
		return ycfg_error(map, err, "expected a non-empty mapping of name: mask");
	if (ycfg_map_len(map) > TOPO_MAX_SHAPES)
		return ycfg_error(map, err, "%zu shapes, at most %d allowed", ycfg_map_len(map),
				  TOPO_MAX_SHAPES);
	s->n_shapes = 0;
	for (size_t i = 0; i < ycfg_map_len(map); i++) {
		struct ycfg_node v = ycfg_map_value(map, i);
		struct topo_shape *sh = &s->shapes[s->n_shapes];
		struct scn_error e2;
		const char *text;

		memset(sh, 0, sizeof(*sh));
		if ((rc = shape_name(&v, ycfg_map_key(map, i), sh->name, sizeof(sh->name), err)) < 0 ||
		    (rc = ycfg_str(&v, &text, err)) < 0)
			return rc;
		scn_error_clear(&e2);
		if (topo_mask_parse(text, &sh->mask, &e2) < 0)
			return hx_plan__rehome(&v, NULL, &e2, err);
		for (unsigned j = 0; j < s->n_shapes; j++)
			if (topo_mask_equal(&s->shapes[j].mask, &sh->mask))
				return ycfg_error(&v, err, "same mask as shape '%s'",
						  s->shapes[j].name);
		s->n_shapes++;
	}
	return 0;
}

static int one_template(const struct ycfg_node *v, struct topo_template *tp,
			struct scn_error *err)
{
	char list[200];
	size_t len = 0;
	int rc;

	if (!ycfg_is_seq(v) || !ycfg_seq_len(v))
		return ycfg_error(v, err, "expected a non-empty list of actions");
	if (ycfg_seq_len(v) > TOPO_MAX_ACTIONS)
		return ycfg_error(v, err, "%zu actions, at most %d allowed", ycfg_seq_len(v),
				  TOPO_MAX_ACTIONS);
	for (size_t k = 0; k < ycfg_seq_len(v); k++) {
		struct ycfg_node a = ycfg_seq_at(v, k);
		const char *name;

		if ((rc = ycfg_str(&a, &name, err)) < 0)
			return rc;
		if (topo_action_parse(name, &tp->kinds[k]) == 0)
			continue;
		list[0] = '\0';
		for (int i = 0; i < TOPO_ACT_KIND_COUNT && len < sizeof(list); i++) {
			int w = snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					 topo_action_name((enum topo_action_kind)i));

			len += w > 0 ? (size_t)w : 0;
		}
		return ycfg_error(&a, err, "unknown action '%s' (choices: %s)", name, list);
	}
	tp->n = (uint8_t)ycfg_seq_len(v);
	return 0;
}

static int templates(const struct ycfg_node *map, struct topo_space *s, struct scn_error *err)
{
	int rc;

	if (!ycfg_is_map(map) || !ycfg_map_len(map))
		return ycfg_error(map, err, "expected a non-empty mapping of name: [actions]");
	if (ycfg_map_len(map) > TOPO_MAX_TEMPLATES)
		return ycfg_error(map, err, "%zu action lists, at most %d allowed",
				  ycfg_map_len(map), TOPO_MAX_TEMPLATES);
	s->n_templates = 0;
	for (size_t i = 0; i < ycfg_map_len(map); i++) {
		struct ycfg_node v = ycfg_map_value(map, i);
		struct topo_template *tp = &s->templates[s->n_templates];

		memset(tp, 0, sizeof(*tp));
		if ((rc = shape_name(&v, ycfg_map_key(map, i), tp->name, sizeof(tp->name), err)) < 0 ||
		    (rc = one_template(&v, tp, err)) < 0)
			return rc;
		s->n_templates++;
	}
	return 0;
}

int hx_plan__space(const struct ycfg_node *root, struct topo_space *s, struct scn_error *err)
{
	static const char *const keys[] = { "max_tables", "max_masks_per_table", "subnets",
					    "containers", "shapes", "action_lists", NULL };
	struct ycfg_node c, n;
	struct scn_error e2;
	int64_t v;
	int rc;

	topo_space_default(s);
	if (ycfg_get(root, "components", &c))
		return 0;
	if ((rc = ycfg_check_keys(&c, keys, err)) < 0)
		return rc;
	if ((rc = ycfg_opt_int(&c, "max_tables", 1, TOPO_MAX_TABLES, s->max_tables, &v, err)) < 0)
		return rc;
	s->max_tables = (unsigned)v;
	if ((rc = ycfg_opt_int(&c, "subnets", 1, 4096, s->subnets, &v, err)) < 0)
		return rc;
	s->subnets = (unsigned)v;
	if ((rc = ycfg_opt_int(&c, "containers", 1, 4096, s->containers, &v, err)) < 0)
		return rc;
	s->containers = (unsigned)v;
	if (!ycfg_get(&c, "shapes", &n) && (rc = shapes(&n, s, err)) < 0)
		return rc;
	if (!ycfg_get(&c, "action_lists", &n) && (rc = templates(&n, s, err)) < 0)
		return rc;
	if (s->max_masks_per_table > s->n_shapes)
		s->max_masks_per_table = s->n_shapes;
	if ((rc = ycfg_opt_int(&c, "max_masks_per_table", 1, s->n_shapes, s->max_masks_per_table,
			       &v, err)) < 0)
		return rc;
	s->max_masks_per_table = (unsigned)v;
	scn_error_clear(&e2);
	if (topo_space_validate(s, &e2) < 0)
		return hx_plan__rehome(&c, NULL, &e2, err);
	return 0;
}
