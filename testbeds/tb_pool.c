/* SPDX-License-Identifier: MIT */
/*
 * tb_pool: open a testbed file as K slots (tb_pool.h). Backends with open_slots give their
 * slots; any other file is one slot opened with tb_open_opts. The slots are described and
 * checked alike (model, firmware, identity) before the pool is handed out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/tb_pool.h"

struct tb_pool {
	unsigned n;
	struct tb *slot[TB_POOL_MAX];
	struct tb_description desc[TB_POOL_MAX];
};

int tb_pool_check_alike(const char *path, const struct tb_description *d, unsigned n,
			struct scn_error *err)
{
	for (unsigned i = 1; i < n; i++) {
		if (strcmp(d[i].rnic_model, d[0].rnic_model) ||
		    strcmp(d[i].firmware, d[0].firmware))
			return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
					     "%s: slot %u has %s firmware %s, slot 0 has %s firmware "
					     "%s: a pool's slots must be alike", path, i,
					     d[i].rnic_model, d[i].firmware, d[0].rnic_model,
					     d[0].firmware);
		if (strcmp(d[i].identity, d[0].identity))
			return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
					     "%s: slot %u is testbed %s, slot 0 is %s: a pool's "
					     "slots must be one testbed", path, i, d[i].identity,
					     d[0].identity);
	}
	return 0;
}

/* The backend's slots, or the whole file as one. */
static int open_slots(const char *path, const struct tb_open_opts *o, struct tb_pool *p,
		      struct scn_error *err)
{
	const struct tb_ops *ops = NULL;
	int rc = tb_kind_ops(path, &ops, err);

	if (rc < 0)
		return rc;
	if (ops->open_slots && !(o && o->dry_run))
		return ops->open_slots(path, o, p->slot, TB_POOL_MAX, &p->n, err);
	rc = tb_open_opts(path, o, &p->slot[0], err);
	p->n = rc == 0;
	return rc;
}

int tb_pool_open(const char *path, const struct tb_open_opts *o, struct tb_pool **out,
		 struct scn_error *err)
{
	struct tb_pool *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "tb_pool: out of memory");
	rc = open_slots(path, o, p, err);
	for (unsigned i = 0; rc == 0 && i < p->n; i++)
		rc = tb_describe(p->slot[i], &p->desc[i], err);
	if (rc == 0)
		rc = tb_pool_check_alike(path, p->desc, p->n, err);
	if (rc < 0) {
		tb_pool_close(p);
		return rc;
	}
	*out = p;
	return 0;
}

unsigned tb_pool_size(const struct tb_pool *p)
{
	return p ? p->n : 0;
}

struct tb *tb_pool_slot(struct tb_pool *p, unsigned i)
{
	return p && i < p->n ? p->slot[i] : NULL;
}

const struct tb_description *tb_pool_description(const struct tb_pool *p)
{
	return p && p->n ? &p->desc[0] : NULL;
}

void tb_pool_close(struct tb_pool *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->n; i++)
		tb_close(p->slot[i]);
	free(p);
}
