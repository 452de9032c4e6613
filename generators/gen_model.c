/* SPDX-License-Identifier: MIT */
/*
 * gen_model: placement of encap/decap rules for an architecture model (see gen_model.h).
 */
#include <errno.h>
#include <string.h>

#include "generators/gen_addr.h"
#include "generators/gen_model.h"

static bool template_has(const struct topo_template *t, enum topo_action_kind k)
{
	for (unsigned i = 0; i < t->n && i < TOPO_MAX_ACTIONS; i++)
		if (t->kinds[i] == k)
			return true;
	return false;
}

static uint32_t map_table(int map[TOPO_MAX_TABLES], uint32_t *n_mapped, unsigned t)
{
	if (map[t] < 0)
		map[t] = (int)(*n_mapped)++;
	return (uint32_t)map[t];
}

/* Walk one class's path from table 0; record gotos and the table holding its rules. */
static int walk(const struct topo_model *m, const struct topo_space *s, bool tx,
		int map[TOPO_MAX_TABLES], struct gen_placement *pl, struct scn_error *err)
{
	const char *path = tx ? "send" : "receive";
	enum topo_action_kind want = tx ? TOPO_ACT_ENCAP : TOPO_ACT_DECAP;
	uint32_t visited = 0;
	unsigned t = 0;

	/* each step enters a table not visited before, so at most n_tables - 1 edges */
	while (!(visited & (1u << t))) {
		const struct topo_table_choice *c = &m->t[t];
		unsigned tpl = tx ? c->tx_template : c->rx_template, next;
		uint32_t from;

		visited |= 1u << t;

		if (tpl == TOPO_NONE || tpl >= s->n_templates)
			return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
					     "model: the %s path reaches table %u, which has no "
					     "template for it", path, t);
		from = map_table(map, &pl->n_tables, t);
		if (template_has(&s->templates[tpl], want)) {
			*(tx ? &pl->encap_table : &pl->decap_table) = from;
			return 0;
		}
		next = tx ? c->tx_goto : c->rx_goto;
		if (!template_has(&s->templates[tpl], TOPO_ACT_GOTO) || next >= m->n_tables)
			return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
					     "model: the %s path ends in table %u without %s", path,
					     t, tx ? "encap" : "decap");
		if (tx)
			pl->tx[pl->n_tx++] = (struct gen_edge){ from, 0 };
		else
			pl->rx[pl->n_rx++] = (struct gen_edge){ from, 0 };
		(tx ? &pl->tx[pl->n_tx - 1] : &pl->rx[pl->n_rx - 1])->to =
			map_table(map, &pl->n_tables, next);
		t = next;
	}
	return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "model: the %s path loops", path);
}

int gen_placement_plan(const struct topo_model *model, const struct topo_space *space,
		       struct gen_placement *pl, struct scn_error *err)
{
	int map[TOPO_MAX_TABLES];
	int rc;

	memset(pl, 0, sizeof(*pl));
	pl->n_tables = 1;
	if (!model)
		return 0;
	if (!space || model->n_tables < 1 || model->n_tables > TOPO_MAX_TABLES)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "model: needs a component space and 1..%d tables",
				     TOPO_MAX_TABLES);
	for (unsigned i = 0; i < TOPO_MAX_TABLES; i++)
		map[i] = -1;
	map[0] = 0;
	rc = walk(model, space, true, map, pl, err);
	if (rc == 0)
		rc = walk(model, space, false, map, pl, err);
	return rc;
}

int gen_placement_apply(const struct gen_placement *pl, struct topo_ruleset *rs, uint32_t k,
			uint32_t n)
{
	struct topo_action_list go = { .n = 1 };
	struct topo_match m;

	for (uint32_t t = 1; t < pl->n_tables; t++) {
		int id = topo_ruleset_add_table(rs);

		if (id < 0)
			return id;
		if ((uint32_t)id != t)
			return -EPROTO;
	}
	for (unsigned e = 0; e < pl->n_tx; e++) {
		memset(&m, 0, sizeof(m));
		m.mask.fields = 1u << TOPO_F_IN_PORT;
		go.a[0] = (struct topo_action){ TOPO_ACT_GOTO, pl->tx[e].to };
		for (uint32_t s = 0; s < k; s++)
			for (uint32_t c = 0; c < n; c++) {
				int rc;

				m.value[TOPO_F_IN_PORT] = gen_vf_port(n, s, c);
				rc = topo_ruleset_add_rule(rs, pl->tx[e].from, &m, GEN_PRIO_TX_GOTO,
							   &go, 0);
				if (rc < 0)
					return rc;
			}
	}
	for (unsigned e = 0; e < pl->n_rx; e++) {
		int rc;

		memset(&m, 0, sizeof(m));
		m.mask.fields = (1u << TOPO_F_IN_PORT) | (1u << TOPO_F_TUN_DPORT);
		m.value[TOPO_F_IN_PORT] = GEN_PORT_UPLINK;
		m.value[TOPO_F_TUN_DPORT] = GEN_VXLAN_PORT;
		go.a[0] = (struct topo_action){ TOPO_ACT_GOTO, pl->rx[e].to };
		rc = topo_ruleset_add_rule(rs, pl->rx[e].from, &m, GEN_PRIO_RX_GOTO, &go, 0);
		if (rc < 0)
			return rc;
	}
	return 0;
}
