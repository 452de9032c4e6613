/* SPDX-License-Identifier: MIT */
/*
 * topo_space: the component space of the enumerator: scalacn's default components, their
 * validation, the per-table choice lists (mask subsets, template options) both enumerators
 * walk in the same order, and the brute-force and flow-path counts (kept as log10).
 */
#include "topology/topo.h"
#include "topology/topo_enum.h"
#include "topology/topo_internal.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void add_shape(struct topo_space *s, const char *name, const char *mask)
{
	struct topo_shape *sh = &s->shapes[s->n_shapes++];
	int rc;

	snprintf(sh->name, sizeof(sh->name), "%s", name);
	rc = topo_mask_parse(mask, &sh->mask, NULL);
	(void)rc;
	assert(rc == 0);
}

static void add_template(struct topo_space *s, const char *name, unsigned n,
			 const enum topo_action_kind *kinds)
{
	struct topo_template *tp = &s->templates[s->n_templates++];

	snprintf(tp->name, sizeof(tp->name), "%s", name);
	tp->n = (uint8_t)n;
	memcpy(tp->kinds, kinds, n * sizeof(*kinds));
}

#define TEMPLATE(s, name, ...)                                                            \
	do {                                                                               \
		static const enum topo_action_kind k_[] = { __VA_ARGS__ };                 \
		add_template(s, name, sizeof(k_) / sizeof(k_[0]), k_);                     \
	} while (0)

/* scalacn's default components (docs/plan-reference.md): 3 tables, one of two mask shapes per
 * table, and seven action lists of which three are invalid on purpose (encap_vf,
 * fwd_vf_other, drop_count) so that pruning has work. About 8e6 brute-force models: small
 * enough for the naive reference to enumerate in well under a second. */
void topo_space_default(struct topo_space *s)
{
	memset(s, 0, sizeof(*s));
	s->max_tables = 3;
	s->max_masks_per_table = 1;
	s->subnets = 4;
	s->containers = 8;
	add_shape(s, "dst32", "ip_dst/32");
	add_shape(s, "vni_dst", "tun_id,ip_dst/32");
	TEMPLATE(s, "encap_up", TOPO_ACT_ENCAP, TOPO_ACT_FWD_UPLINK);
	TEMPLATE(s, "decap_vf", TOPO_ACT_DECAP, TOPO_ACT_FWD_VF);
	TEMPLATE(s, "count_goto", TOPO_ACT_COUNT, TOPO_ACT_GOTO);
	TEMPLATE(s, "drop", TOPO_ACT_DROP);
	TEMPLATE(s, "encap_vf", TOPO_ACT_ENCAP, TOPO_ACT_FWD_VF);   /* encap_not_uplink */
	TEMPLATE(s, "fwd_vf_other", TOPO_ACT_FWD_VF_OTHER);         /* cross_subnet */
	TEMPLATE(s, "drop_count", TOPO_ACT_DROP, TOPO_ACT_COUNT);   /* after_terminal */
}

/* Is NAME a non-empty, NUL-terminated name of at most LEN - 1 bytes? */
static bool name_ok(const char *name, size_t len)
{
	return name[0] && memchr(name, '\0', len);
}

static int validate_shapes(const struct topo_space *s, struct scn_error *err)
{
	char key[64];

	for (unsigned i = 0; i < s->n_shapes; i++) {
		const struct topo_shape *sh = &s->shapes[i];

		snprintf(key, sizeof(key), "shapes[%u]", i);
		if (!name_ok(sh->name, sizeof(sh->name)))
			return scn_error_at(err, NULL, 0, 0, key, -EINVAL,
					    "a mask shape needs a name of 1..31 characters");
		if (!sh->mask.fields || !topo__mask_valid(&sh->mask))
			return scn_error_at(err, NULL, 0, 0, key, -EINVAL,
					    "mask shape '%s' must match at least one field, with "
					    "prefix lengths 1..32 on IP fields only", sh->name);
		for (unsigned j = 0; j < i; j++) {
			if (strcmp(s->shapes[j].name, sh->name) == 0)
				return scn_error_at(err, NULL, 0, 0, key, -EINVAL,
						    "mask shape name '%s' is used twice", sh->name);
			if (topo_mask_equal(&s->shapes[j].mask, &sh->mask))
				return scn_error_at(err, NULL, 0, 0, key, -EINVAL,
						    "mask shapes '%s' and '%s' have the same mask",
						    s->shapes[j].name, sh->name);
		}
	}
	return 0;
}

static int validate_templates(const struct topo_space *s, struct scn_error *err)
{
	char key[64];

	for (unsigned i = 0; i < s->n_templates; i++) {
		const struct topo_template *tp = &s->templates[i];

		snprintf(key, sizeof(key), "templates[%u]", i);
		if (!name_ok(tp->name, sizeof(tp->name)))
			return scn_error_at(err, NULL, 0, 0, key, -EINVAL,
					    "an action template needs a name of 1..31 characters");
		if (tp->n < 1 || tp->n > TOPO_MAX_ACTIONS)
			return scn_error_at(err, NULL, 0, 0, key, -EINVAL,
					    "action template '%s' must hold 1..%d actions, not %u",
					    tp->name, TOPO_MAX_ACTIONS, tp->n);
		for (unsigned k = 0; k < tp->n; k++)
			if ((unsigned)tp->kinds[k] >= TOPO_ACT_KIND_COUNT)
				return scn_error_at(err, NULL, 0, 0, key, -EINVAL,
						    "action template '%s': action %u is not a "
						    "known action", tp->name, k + 1);
		for (unsigned j = 0; j < i; j++)
			if (strcmp(s->templates[j].name, tp->name) == 0)
				return scn_error_at(err, NULL, 0, 0, key, -EINVAL,
						    "action template name '%s' is used twice",
						    tp->name);
	}
	return 0;
}

int topo_space_validate(const struct topo_space *s, struct scn_error *err)
{
	int rc;

	if (!s)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "no component space");
	if (s->max_tables < 1 || s->max_tables > TOPO_MAX_TABLES)
		return scn_error_at(err, NULL, 0, 0, "max_tables", -EINVAL,
				    "max_tables must be 1..%d, not %u", TOPO_MAX_TABLES,
				    s->max_tables);
	if (s->n_shapes < 1 || s->n_shapes > TOPO_MAX_SHAPES)
		return scn_error_at(err, NULL, 0, 0, "shapes", -EINVAL,
				    "the space needs 1..%d mask shapes, not %u", TOPO_MAX_SHAPES,
				    s->n_shapes);
	if (s->max_masks_per_table < 1 || s->max_masks_per_table > s->n_shapes)
		return scn_error_at(err, NULL, 0, 0, "max_masks_per_table", -EINVAL,
				    "max_masks_per_table must be 1..%u (the number of shapes), "
				    "not %u", s->n_shapes, s->max_masks_per_table);
	if (s->n_templates < 1 || s->n_templates > TOPO_MAX_TEMPLATES)
		return scn_error_at(err, NULL, 0, 0, "templates", -EINVAL,
				    "the space needs 1..%d action templates, not %u",
				    TOPO_MAX_TEMPLATES, s->n_templates);
	if (s->subnets < 1)
		return scn_error_at(err, NULL, 0, 0, "subnets", -EINVAL,
				    "subnets must be at least 1");
	if (s->containers < 1)
		return scn_error_at(err, NULL, 0, 0, "containers", -EINVAL,
				    "containers (per subnet per host) must be at least 1");
	rc = validate_shapes(s, err);
	if (rc == 0)
		rc = validate_templates(s, err);
	return rc;
}

uint16_t topo__next_subset(const struct topo_space *s, unsigned v)
{
	for (v++; v < (1u << s->n_shapes); v++)
		if (topo__popcount(v) <= s->max_masks_per_table)
			return (uint16_t)v;
	return 0;
}

unsigned topo__options(const struct topo_space *s, unsigned n_tables, struct topo__opt *out)
{
	unsigned n = 0;

	out[n++] = (struct topo__opt){ TOPO_NONE, TOPO_NONE };
	for (unsigned i = 0; i < s->n_templates; i++) {
		if (!topo__template_has_goto(&s->templates[i])) {
			out[n++] = (struct topo__opt){ (uint8_t)i, TOPO_NONE };
			continue;
		}
		for (unsigned g = 0; g < n_tables; g++)
			out[n++] = (struct topo__opt){ (uint8_t)i, (uint8_t)g };
	}
	return n;
}

/* Number of mask subsets without listing them: sum of C(shapes, k), k = 1..max. */
static double subset_count(const struct topo_space *s)
{
	double n = 0, c = 1;

	for (unsigned k = 1; k <= s->max_masks_per_table && k <= s->n_shapes; k++) {
		c = c * (double)(s->n_shapes - k + 1) / (double)k;
		n += c;
	}
	return n;
}

double topo__choices(const struct topo_space *s, unsigned n_tables)
{
	double opts = 1;

	for (unsigned i = 0; i < s->n_templates; i++)
		opts += topo__template_has_goto(&s->templates[i]) ? (double)n_tables : 1.0;
	return subset_count(s) * opts * opts;
}

double topo_space_log10_size(const struct topo_space *s)
{
	double terms[TOPO_MAX_TABLES], top = -INFINITY, sum = 0;
	unsigned n = s->max_tables > TOPO_MAX_TABLES ? TOPO_MAX_TABLES : s->max_tables;

	for (unsigned t = 1; t <= n; t++) {
		terms[t - 1] = (double)t * log10(topo__choices(s, t));
		if (terms[t - 1] > top)
			top = terms[t - 1];
	}
	if (!n)
		return -INFINITY;
	for (unsigned t = 0; t < n; t++)
		sum += pow(10.0, terms[t] - top);
	return top + log10(sum);
}

void topo__stats_init(const struct topo_space *s, struct topo_enum_stats *st)
{
	double kn = (double)s->subnets * (double)s->containers;

	memset(st, 0, sizeof(*st));
	st->log10_bruteforce = topo_space_log10_size(s);
	st->flow_paths_valid = (double)s->subnets * (double)s->containers * (double)s->containers;
	st->log10_flow_paths_unconstrained = kn * log10(kn + 1.0);
}
