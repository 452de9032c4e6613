/* SPDX-License-Identifier: MIT */
/*
 * results: the SQLite store that is the spine of scalacn (DESIGN.md "Data flow").
 *
 * One database file holds campaigns, points, trials, symptoms, causes and models. WAL mode,
 * so the sqlite3 shell or pandas can read while a campaign writes. The schema is versioned
 * with PRAGMA user_version and migrated forward on open (res_open never downgrades; a newer
 * file than this build knows is refused with a clear error).
 *
 * Trials are committed one transaction each, the moment they finish (res_trial_put). A
 * trial's key is a hash of (point, traffic, repeat, testbed identity) computed by the caller;
 * the key is UNIQUE, so a resumed or repeated campaign never stores the same trial twice:
 * res_trial_put on an existing key returns -EEXIST and leaves the stored trial untouched.
 *
 * This module does not know about testbeds or generators: samples arrive as struct
 * res_sample (plain numbers + counters as a JSON object text), points as JSON text.
 * Ownership: res_open returns a handle closed by res_close (NULL ok). Strings in structs
 * filled by queries are copied into fixed buffers owned by the caller's struct.
 */
#ifndef RES_H
#define RES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/scn_error.h"

#define RES_SCHEMA_VERSION 8

struct res_db;

/* Open (creating when missing) and migrate. -ENOENT when CREATE is false and it is missing. */
int res_open(const char *path, bool create, struct res_db **out, struct scn_error *err);
/* Open an existing database read-only (URI "file:PATH?mode=ro"; with "&immutable=1" when
 * even the WAL index cannot be created, as on a read-only mount): for commands that only
 * read. Writes through it fail with -EROFS. A database of an older schema is migrated
 * through res_open first (which needs write access; the error says so). -ENOENT when
 * missing, as res_open. */
int res_open_ro(const char *path, struct res_db **out, struct scn_error *err);
void res_close(struct res_db *db);
int res_schema_version(struct res_db *db); /* PRAGMA user_version */
/* The raw handle, for modules that add their own queries (fitting export, analysis). */
struct sqlite3 *res_sqlite(struct res_db *db);

/* ---- One writer per database ----------------------------------------------------------- */
/*
 * Commands that write campaigns (run, compare, analyze) hold the database's writer lock for
 * as long as they run: an flock() on the sidecar file "DB_PATH.lock" that the kernel drops
 * when the holder's process ends, however it ends. A second writer is refused at once
 * (-EBUSY, class store) with a message naming the holder ("scalacn run, pid 1234 on lab-a,
 * since ..."). Readers take no lock (WAL: they never block a writer). ":memory:" takes none.
 * WHAT names the holder's command in that message. Release with res_unlock (NULL ok).
 */
struct res_lock;
int res_lock_writer(const char *db_path, const char *what, struct res_lock **out,
		    struct scn_error *err);
void res_unlock(struct res_lock *l);

/* How long a statement waits for another connection's write lock before it fails with
 * -EBUSY: long enough that a busy database (a reader's long checkpoint, someone holding
 * BEGIN IMMEDIATE in the sqlite3 shell) never costs a campaign the trial it just measured. */
#define RES_BUSY_PATIENCE_S 300

/* ---- Campaigns ------------------------------------------------------------------------- */
enum res_campaign_status { RES_RUNNING = 0, RES_INTERRUPTED, RES_DONE, RES_FAILED };
const char *res_campaign_status_name(enum res_campaign_status s);

struct res_campaign {
	int64_t id;
	char plan_path[256];    /* absolute from schema 2 on; older campaigns: as typed */
	char plan_hash[65];     /* hex SHA-256 or 64-bit hash of the plan text */
	char testbed[256];      /* testbed file path (absolute from schema 2 on) */
	char testbed_identity[160];
	char rnic_model[64];
	char firmware[64];
	char tool_version[32];
	uint64_t seed;
	enum res_campaign_status status;
	double started, finished; /* unix seconds; 0 = not yet */
	char summary[1024];       /* what the campaign concluded (free text / JSON) */
	char plan_file_hash[17];    /* hex 64-bit hash of the plan file's bytes ("" = unknown) */
	char testbed_file_hash[17]; /* the same of the testbed file */
	char rng[24];               /* the generator its layouts were drawn with (GEN_RNG_NAME
				     * when it ran; schema 8); "xoshiro256**" before schema 8 */
};

/* Insert a new campaign (id filled in). */
int res_campaign_insert(struct res_db *db, struct res_campaign *c, struct scn_error *err);
/* The newest campaign with this plan hash and testbed identity, if any (0 found, -ENOENT). */
int res_campaign_find(struct res_db *db, const char *plan_hash, const char *testbed_identity,
		      struct res_campaign *out, struct scn_error *err);
int res_campaign_get(struct res_db *db, int64_t id, struct res_campaign *out,
		     struct scn_error *err);
int res_campaign_set_status(struct res_db *db, int64_t id, enum res_campaign_status st,
			    const char *summary, struct scn_error *err);
/* The campaign a read command shows when none is named: the newest whose status is done,
 * interrupted or running. A failed campaign never is (a testbed error, a refused or broken
 * run); -ENOENT (class usage) when there is none, saying how many failed. */
int res_campaign_default(struct res_db *db, struct res_campaign *out, struct scn_error *err);
/* Call CB for every campaign, newest first. */
typedef int (*res_campaign_cb)(const struct res_campaign *c, void *ctx);
int res_campaign_each(struct res_db *db, res_campaign_cb cb, void *ctx, struct scn_error *err);

/* ---- Points ---------------------------------------------------------------------------- */
/* A point is stored once per campaign by its key (hash of its levels + model); LEVELS_JSON is
 * a JSON object {"dimension": level, ...}; PHASE names why it was measured ("baseline",
 * "sweep", "bisect", "lsa", "removal", ...). Returns the existing id when already there. */
int res_point_upsert(struct res_db *db, int64_t campaign, const char *point_key,
		     const char *levels_json, const char *model_text, const char *phase,
		     int64_t *id, struct scn_error *err);

/* ---- Trials ---------------------------------------------------------------------------- */
struct res_sample {
	char status[24];         /* tb_status_name: "ok", "timeout", "completion_error",
				  * "apply_failed", "unusable" */
	/* NAN = not measured: stored as NULL, read back as NAN (failed trials: all four;
	 * latency tests: bw; whatever else a testbed's test did not report) */
	double bw_gbps, msg_rate_mpps, lat_median_us, lat_p99_us;
	double cost_s;
	char counters_json[2048]; /* {"name": value, ...} */
};

struct res_trial {
	int64_t id;
	int64_t campaign, point;
	char key[33];            /* hex of a 128-bit (or 64-bit) hash */
	char verb[8];
	char metric[8];          /* "bw" or "lat" */
	int repeat;
	unsigned slot;           /* the testbed slot (host pair) that measured it, 0-based */
	struct res_sample sample;
	double started, finished;
	char phase[16];          /* why its point was measured (res_point_upsert's PHASE); filled
				  * by res_trial_each only, "" when the trial has no point */
	/* res_trial_put only: what the testbed showed of the trial, as a JSON object text
	 * (borrowed; NULL or "" = none: stored as NULL). Queries leave it NULL: read it with
	 * res_trial_evidence. Schema 6; docs/json.md "trials" describes its members. */
	const char *evidence_json;
};

/* Commit one trial in its own transaction. -EEXIST when KEY is already stored. */
int res_trial_put(struct res_db *db, struct res_trial *t, struct scn_error *err);
/* The point a trial is stored with (res_point_upsert's arguments). */
struct res_point_ref {
	const char *key, *levels_json, *model_text, *phase;
};
/* res_trial_put with the trial's point upserted in the same transaction (one commit for
 * both; t->point is set to the point's id): the trial runner stores a point only with its
 * first trial. */
int res_trial_put_at(struct res_db *db, struct res_trial *t, const struct res_point_ref *p,
		     struct scn_error *err);
/* Look a trial up by key: 0 and *out filled when stored, -ENOENT otherwise. */
int res_trial_get(struct res_db *db, const char *key, struct res_trial *out,
		  struct scn_error *err);
/* Trials of a campaign (campaign <= 0: all), in id order. */
typedef int (*res_trial_cb)(const struct res_trial *t, const char *levels_json, void *ctx);
int res_trial_each(struct res_db *db, int64_t campaign, res_trial_cb cb, void *ctx,
		   struct scn_error *err);
/* The evidence JSON text of trial ID into *OUT (malloc'd, the caller frees it; NULL when the
 * testbed recorded none: the simulator, trials stored before schema 6). -ENOENT (class
 * usage) when there is no such trial. */
int res_trial_evidence(struct res_db *db, int64_t id, char **out, struct scn_error *err);
int res_trial_count(struct res_db *db, int64_t campaign, int64_t *n, double *cost_s,
		    struct scn_error *err);
/* What the trials measured under testbed IDENTITY cost (every campaign recorded with it):
 * each stored trial once, as a testbed running them alone would have paid. */
struct res_cost {
	int64_t trials;
	double cost_s;     /* testbed-seconds */
	double timeout_s;  /* of which in trials that timed out */
};
int res_identity_cost(struct res_db *db, const char *identity, struct res_cost *out,
		      struct scn_error *err);

/* ---- Symptoms (walls) and causes -------------------------------------------------------- */
struct res_symptom {
	int64_t id, campaign, point;
	char kind[16];         /* "bw_drop", "lat_rise", "errors", "timeout", "sw_fallback" */
	char class_[16];       /* "S6", "S8", ..., "unclassified" */
	char verb[8];
	char dimension[64];    /* the dimension swept when the wall appeared */
	double level;          /* the wall's level (first symptomatic level) */
	double last_good;      /* the last level without the symptom */
	double effect;         /* relative change vs baseline (-0.47 = 47% drop) */
	double p_value;
	char detail[512];
};
int res_symptom_put(struct res_db *db, struct res_symptom *s, struct scn_error *err);
typedef int (*res_symptom_cb)(const struct res_symptom *s, void *ctx);
int res_symptom_each(struct res_db *db, int64_t campaign, res_symptom_cb cb, void *ctx,
		     struct scn_error *err);

/* A cause the evidence supports, or a suspect (supported false, reason says why not). */
struct res_cause {
	int64_t id, campaign, symptom;
	char members[256];     /* dimensions, comma separated ("server.decap_masks,flows") */
	double wall_level;
	double effect, effect_lo, effect_hi;
	double confidence;     /* share of removal orders that kept it */
	char trial_ids[1024];  /* comma separated evidence */
	char detail[512];
	bool supported;        /* schema 3: false = a suspect (rows stored before: true) */
	char reason[256];      /* a suspect's reasons */
	/* res_cause_put only: the evidence as a JSON object text (borrowed; NULL = "{}");
	 * queries leave it NULL (read it with res_cause_evidence) */
	const char *evidence_json;
};
int res_cause_put(struct res_db *db, struct res_cause *c, struct scn_error *err);
/* The evidence JSON text of cause ID into *OUT (malloc'd, the caller frees it; "{}" when
 * none was stored). -ENOENT when there is no such cause. */
int res_cause_evidence(struct res_db *db, int64_t id, char **out, struct scn_error *err);
typedef int (*res_cause_cb)(const struct res_cause *c, void *ctx);
int res_cause_each(struct res_db *db, int64_t campaign, res_cause_cb cb, void *ctx,
		   struct scn_error *err);
/* The dimensions CAMPAIGN's causes of (VERB, METRIC) name, strongest first (sum of
 * |effect| x confidence over the causes a dimension belongs to), at most MAX into OUT[*N]. */
int res_cause_dimensions(struct res_db *db, int64_t campaign, const char *verb,
			 const char *metric, unsigned max, char (*out)[64], unsigned *n,
			 struct scn_error *err);
/* The dimensions other than DESIGNED that CAMPAIGN's model-phase points of (VERB, METRIC)
 * take more than one level of (a design point repaired: its flows raised to hold its encap
 * contexts), by name, at most MAX into OUT[*N]; *N = 0 when none or no model phase. */
int res_model_varied(struct res_db *db, int64_t campaign, const char *verb, const char *metric,
		     const char *designed, unsigned max, char (*out)[64], unsigned *n,
		     struct scn_error *err);
/* Remove symptoms and causes of a campaign (re-analysis). */
int res_analysis_clear(struct res_db *db, int64_t campaign, struct scn_error *err);

/* ---- Criteria (schema 4) --------------------------------------------------------------- */
/* The verdict of one qualification criterion: the measured value against the baseline,
 * ratio = value / baseline, required OP (">=" bw, "<=" lat) REQUIRED. NAN = not measured. */
struct res_criterion {
	int64_t id, campaign;
	char name[128];
	char verb[8], metric[8];
	char op[4];
	double required, value, baseline, ratio;
	bool pass, drifted;
	char status[24];       /* the criterion point's trial status, or "not measured" */
};
/* Store C's verdict (replacing the campaign's row of the same name). */
int res_criterion_put(struct res_db *db, struct res_criterion *c, struct scn_error *err);
typedef int (*res_criterion_cb)(const struct res_criterion *c, void *ctx);
/* Criteria of CAMPAIGN in the order they were stored; a non-zero CB return stops. */
int res_criterion_each(struct res_db *db, int64_t campaign, res_criterion_cb cb, void *ctx,
		       struct scn_error *err);

/* ---- Cost per phase ---------------------------------------------------------------------- */
/* Trials and testbed-seconds of CAMPAIGN per phase of their points ("baseline", "sweep",
 * "bisect", "lsa", ...), in order of first appearance. */
typedef int (*res_phase_cb)(const char *phase, int64_t trials, double cost_s, void *ctx);
int res_phase_each(struct res_db *db, int64_t campaign, res_phase_cb cb, void *ctx,
		   struct scn_error *err);

/* The points of CAMPAIGN stored with PHASE (id and levels JSON), in id order. */
typedef int (*res_levels_cb)(int64_t point, const char *levels_json, void *ctx);
int res_phase_points(struct res_db *db, int64_t campaign, const char *phase,
		     res_levels_cb cb, void *ctx, struct scn_error *err);

/* ---- Export ---------------------------------------------------------------------------- */
/* CSV of all trials of a campaign (<= 0: all) with one column per dimension seen. */
int res_export_csv(struct res_db *db, int64_t campaign, FILE *out, struct scn_error *err);

#endif
