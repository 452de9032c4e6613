/* SPDX-License-Identifier: MIT */
/*
 * res_model_dims: the dimensions a campaign's model-phase points of one (verb, metric) vary
 * besides the inputs the phase designed them over. A design point that cannot be built as
 * asked gets what it needs (gen_levels_repair: 2,048 encap contexts need 2,048 flows), so a
 * design over one dimension can move another with it; `fit --inputs causes` fits on both,
 * or the points the repair moved fall outside its one setting of the other dimensions.
 * Bookkeeping keys (the rule layout, the verb and the metric) do not count.
 */
#include "results/res_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char varied_sql[] =
	"SELECT j.key FROM points p, json_each(p.levels_json) j"
	" WHERE p.campaign = ?1 AND p.phase = 'model'"
	" AND json_extract(p.levels_json, '$.verb') = ?2"
	" AND json_extract(p.levels_json, '$.metric') = ?3"
	" AND j.key NOT IN ('layout', 'verb', 'metric', ?4)"
	" GROUP BY j.key HAVING COUNT(DISTINCT j.value) > 1 ORDER BY j.key";

int res_model_varied(struct res_db *db, int64_t campaign, const char *verb, const char *metric,
		     const char *designed, unsigned max, char (*out)[64], unsigned *n,
		     struct scn_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = res_prepare(db, varied_sql, &st, err);

	*n = 0;
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, campaign);
	sqlite3_bind_text(st, 2, verb, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, metric, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, designed, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (*n < max)
			res_col_buf(st, 0, out[(*n)++], 64);
	rc = rc == SQLITE_DONE ? 0 : res_sqlerr(db, rc, err, "model-phase dimensions");
	sqlite3_finalize(st);
	return rc;
}
