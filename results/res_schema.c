/* SPDX-License-Identifier: MIT */
/*
 * results schema: the forward migrations of the store, one array entry per version step.
 *
 * migrations[i] takes a database from user_version i to i + 1; res_open runs each in its own
 * transaction and sets user_version inside it, so a crash mid-migration leaves the previous
 * version intact. To add a version: append its SQL below and bump RES_SCHEMA_VERSION in
 * res.h (the static assertion keeps the two in step). Never edit a released entry.
 *
 * Conventions of the tables (readers such as the sqlite3 shell or pandas rely on them):
 * times are unix seconds (REAL, 0 = not yet); campaign status is its name ("running", ...);
 * seeds are uint64 stored as the same 64 bits in an INTEGER (may read back negative in SQL);
 * a trial or symptom without a campaign/point stores NULL there; JSON columns hold objects;
 * a trial's number that was not measured is NULL (version 2 on; NAN in struct res_sample);
 * a trial's evidence_json is NULL when its testbed recorded none (version 6 on).
 */
#include "results/res_int.h"

static const char *const migrations[] = {
	/* 0 -> 1: the initial schema. */
	"CREATE TABLE campaigns ("
	"  id INTEGER PRIMARY KEY,"
	"  plan_path TEXT NOT NULL DEFAULT '',"
	"  plan_hash TEXT NOT NULL DEFAULT '',"
	"  testbed TEXT NOT NULL DEFAULT '',"
	"  testbed_identity TEXT NOT NULL DEFAULT '',"
	"  rnic_model TEXT NOT NULL DEFAULT '',"
	"  firmware TEXT NOT NULL DEFAULT '',"
	"  tool_version TEXT NOT NULL DEFAULT '',"
	"  seed INTEGER NOT NULL DEFAULT 0,"
	"  status TEXT NOT NULL DEFAULT 'running'"
	"    CHECK (status IN ('running', 'interrupted', 'done', 'failed')),"
	"  started REAL NOT NULL DEFAULT 0,"
	"  finished REAL NOT NULL DEFAULT 0,"
	"  summary TEXT NOT NULL DEFAULT '');"
	"CREATE INDEX campaigns_plan ON campaigns(plan_hash, testbed_identity);"
	"CREATE TABLE points ("
	"  id INTEGER PRIMARY KEY,"
	"  campaign INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,"
	"  point_key TEXT NOT NULL,"
	"  levels_json TEXT NOT NULL DEFAULT '{}',"
	"  model_text TEXT NOT NULL DEFAULT '',"
	"  phase TEXT NOT NULL DEFAULT '',"
	"  UNIQUE (campaign, point_key));"
	"CREATE INDEX points_campaign ON points(campaign);"
	"CREATE TABLE trials ("
	"  id INTEGER PRIMARY KEY,"
	"  campaign INTEGER REFERENCES campaigns(id) ON DELETE CASCADE,"
	"  point INTEGER REFERENCES points(id) ON DELETE CASCADE,"
	"  key TEXT UNIQUE NOT NULL,"
	"  verb TEXT NOT NULL DEFAULT '',"
	"  metric TEXT NOT NULL DEFAULT '',"
	"  repeat INTEGER NOT NULL DEFAULT 0,"
	"  status TEXT NOT NULL DEFAULT '',"
	"  bw_gbps REAL NOT NULL DEFAULT 0,"
	"  msg_rate_mpps REAL NOT NULL DEFAULT 0,"
	"  lat_median_us REAL NOT NULL DEFAULT 0,"
	"  lat_p99_us REAL NOT NULL DEFAULT 0,"
	"  cost_s REAL NOT NULL DEFAULT 0,"
	"  counters_json TEXT NOT NULL DEFAULT '{}',"
	"  started REAL NOT NULL DEFAULT 0,"
	"  finished REAL NOT NULL DEFAULT 0);"
	"CREATE INDEX trials_campaign ON trials(campaign);"
	"CREATE INDEX trials_point ON trials(point);"
	"CREATE TABLE symptoms ("
	"  id INTEGER PRIMARY KEY,"
	"  campaign INTEGER REFERENCES campaigns(id) ON DELETE CASCADE,"
	"  point INTEGER REFERENCES points(id) ON DELETE SET NULL,"
	"  kind TEXT NOT NULL DEFAULT '',"
	"  class TEXT NOT NULL DEFAULT '',"
	"  verb TEXT NOT NULL DEFAULT '',"
	"  dimension TEXT NOT NULL DEFAULT '',"
	"  level REAL NOT NULL DEFAULT 0,"
	"  last_good REAL NOT NULL DEFAULT 0,"
	"  effect REAL NOT NULL DEFAULT 0,"
	"  p_value REAL NOT NULL DEFAULT 0,"
	"  detail TEXT NOT NULL DEFAULT '');"
	"CREATE INDEX symptoms_campaign ON symptoms(campaign);"
	"CREATE TABLE causes ("
	"  id INTEGER PRIMARY KEY,"
	"  campaign INTEGER REFERENCES campaigns(id) ON DELETE CASCADE,"
	"  symptom INTEGER REFERENCES symptoms(id) ON DELETE CASCADE,"
	"  members TEXT NOT NULL DEFAULT '',"
	"  wall_level REAL NOT NULL DEFAULT 0,"
	"  effect REAL NOT NULL DEFAULT 0,"
	"  effect_lo REAL NOT NULL DEFAULT 0,"
	"  effect_hi REAL NOT NULL DEFAULT 0,"
	"  confidence REAL NOT NULL DEFAULT 0,"
	"  trial_ids TEXT NOT NULL DEFAULT '',"
	"  detail TEXT NOT NULL DEFAULT '');"
	"CREATE INDEX causes_campaign ON causes(campaign);"
	"CREATE INDEX causes_symptom ON causes(symptom);"
	/* Fitted models; written and read by fitting/ through res_sqlite(). */
	"CREATE TABLE models ("
	"  id INTEGER PRIMARY KEY,"
	"  campaign INTEGER REFERENCES campaigns(id) ON DELETE SET NULL,"
	"  rnic_model TEXT NOT NULL DEFAULT '',"
	"  firmware TEXT NOT NULL DEFAULT '',"
	"  verb TEXT NOT NULL DEFAULT '',"
	"  metric TEXT NOT NULL DEFAULT '',"
	"  form TEXT NOT NULL DEFAULT '',"
	"  inputs TEXT NOT NULL DEFAULT '',"
	"  params_json TEXT NOT NULL DEFAULT '{}',"
	"  domain_json TEXT NOT NULL DEFAULT '{}',"
	"  quality_json TEXT NOT NULL DEFAULT '{}',"
	"  valid INTEGER NOT NULL DEFAULT 0,"
	"  created REAL NOT NULL DEFAULT 0);"
	"CREATE INDEX models_rnic ON models(rnic_model, verb, metric);",
	/* 1 -> 2: what a trial did not measure is NULL, not 0 (failed trials: every number;
	 * latency tests: bandwidth; a 0 rate or latency, which version 1 wrote for "not in this
	 * test's output" and no test can measure). SQLite cannot
	 * drop NOT NULL in place, so the table is rebuilt; ids and keys are kept. Campaigns
	 * gain content hashes of the plan and testbed files they ran with. */
	"CREATE TABLE trials_v2 ("
	"  id INTEGER PRIMARY KEY,"
	"  campaign INTEGER REFERENCES campaigns(id) ON DELETE CASCADE,"
	"  point INTEGER REFERENCES points(id) ON DELETE CASCADE,"
	"  key TEXT UNIQUE NOT NULL,"
	"  verb TEXT NOT NULL DEFAULT '',"
	"  metric TEXT NOT NULL DEFAULT '',"
	"  repeat INTEGER NOT NULL DEFAULT 0,"
	"  status TEXT NOT NULL DEFAULT '',"
	"  bw_gbps REAL,"
	"  msg_rate_mpps REAL,"
	"  lat_median_us REAL,"
	"  lat_p99_us REAL,"
	"  cost_s REAL NOT NULL DEFAULT 0,"
	"  counters_json TEXT NOT NULL DEFAULT '{}',"
	"  started REAL NOT NULL DEFAULT 0,"
	"  finished REAL NOT NULL DEFAULT 0);"
	"INSERT INTO trials_v2 SELECT id, campaign, point, key, verb, metric, repeat, status,"
	"  CASE WHEN status = 'ok' AND metric <> 'lat' THEN bw_gbps END,"
	"  CASE WHEN status = 'ok' THEN NULLIF(msg_rate_mpps, 0) END,"
	"  CASE WHEN status = 'ok' THEN NULLIF(lat_median_us, 0) END,"
	"  CASE WHEN status = 'ok' THEN NULLIF(lat_p99_us, 0) END,"
	"  cost_s, counters_json, started, finished FROM trials;"
	"DROP TABLE trials;"
	"ALTER TABLE trials_v2 RENAME TO trials;"
	"CREATE INDEX trials_campaign ON trials(campaign);"
	"CREATE INDEX trials_point ON trials(point);"
	"ALTER TABLE campaigns ADD COLUMN plan_file_hash TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE campaigns ADD COLUMN testbed_file_hash TEXT NOT NULL DEFAULT '';",
	/* 2 -> 3: causes and suspects are kept apart. A row is a cause the evidence supports
	 * (supported = 1) or a suspect (0) with the reasons in `reason`; `evidence_json` holds
	 * what `scalacn explain` shows (stress point, baseline, sensitivities, removal orders,
	 * replicate, trial ids). Rows stored before version 3 were reported as causes: they
	 * read back supported, with no reason and no evidence ('{}'). */
	"ALTER TABLE causes ADD COLUMN supported INTEGER NOT NULL DEFAULT 1"
	"  CHECK (supported IN (0, 1));"
	"ALTER TABLE causes ADD COLUMN reason TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE causes ADD COLUMN evidence_json TEXT NOT NULL DEFAULT '{}';",
	/* 3 -> 4: the verdict of each qualification criterion, with its numbers, so that
	 * reports and `diff` read it from the store. One row per (campaign, criterion name);
	 * numbers not measured are NULL. Campaigns stored before version 4 have none. */
	"CREATE TABLE criteria ("
	"  id INTEGER PRIMARY KEY,"
	"  campaign INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  verb TEXT NOT NULL DEFAULT '',"
	"  metric TEXT NOT NULL DEFAULT '',"
	"  op TEXT NOT NULL DEFAULT '>=',"
	"  required REAL,"
	"  value REAL,"
	"  baseline REAL,"
	"  ratio REAL,"
	"  pass INTEGER NOT NULL DEFAULT 0 CHECK (pass IN (0, 1)),"
	"  status TEXT NOT NULL DEFAULT '',"
	"  drifted INTEGER NOT NULL DEFAULT 0,"
	"  UNIQUE (campaign, name));",
	/* 4 -> 5: a pooled campaign (`run --jobs K` on a testbed of K slots) records which
	 * slot (client/server pair, 0-based) measured each trial. Trials stored before
	 * version 5 ran on the testbed's only pair: they read back as slot 0. */
	"ALTER TABLE trials ADD COLUMN slot INTEGER NOT NULL DEFAULT 0 CHECK (slot >= 0);",
	/* 5 -> 6: the evidence of each trial, failed or not, as a JSON object (docs/json.md,
	 * "trials"): the raw perftest lines that decided it, the completion status, the
	 * counters of each host's device (not summed) and the packets each tc filter counted.
	 * NULL when the testbed showed none (the simulator; every trial stored before 6). */
	"ALTER TABLE trials ADD COLUMN evidence_json TEXT;",
	/* 6 -> 7: the cache forms' walk is the even walk (fitting/fit_forms_spillc.c, model
	 * files of version 4). A cache-form model stored before walked the mean deal: its
	 * parameters mean that walk, which this scalacn no longer evaluates, so it is marked
	 * degenerate with the reason (`models` prints it, `export` refuses it) until `fit` is
	 * run again. Nothing measured changes. */
	"UPDATE models SET quality_json = json_set(CASE WHEN json_valid(quality_json)"
	" THEN quality_json ELSE '{}' END, '$.degenerate', 'fitted by an earlier scalacn"
	" whose cache forms walked the mean deal, which this version does not evaluate: run"
	" scalacn fit again')"
	" WHERE form IN ('spillc2', 'spillc2y', 'lspillc2', 'lspillc2y', 'spillct2',"
	" 'spillct2y', 'lspillct2', 'lspillct2y');",
	/* 7 -> 8: the generator a campaign drew its rule layouts and seeded choices with
	 * (generators/gen_rng.c, GEN_RNG_NAME). Campaigns stored before 8 drew with the
	 * xoshiro256** of earlier scalacn versions: their trials read as before, but their
	 * layouts cannot be rebuilt from their seeds by a scalacn drawing with another
	 * generator (`run --resume` refuses them, `fit` fits them without the layouts'
	 * covariates). */
	"ALTER TABLE campaigns ADD COLUMN rng TEXT NOT NULL DEFAULT 'xoshiro256**';",
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == RES_SCHEMA_VERSION,
	       "one migration per schema version");

const char *res_migration_sql(int from)
{
	if (from < 0 || from >= RES_SCHEMA_VERSION)
		return NULL;
	return migrations[from];
}
