/* SPDX-License-Identifier: MIT */
/*
 * bench-store: what the results store costs a campaign. Inserts 10,000 trials into a fresh
 * database in a temp directory, each in its own transaction as a campaign does, then looks
 * each one up by key with 10K in the store, then checkpoints and measures the file size.
 * For scale it repeats 1,000 inserts with synchronous=FULL (an fsync per commit) and prints
 * the ratio. Prints figures only; asserts nothing about time.
 *
 * Assumes TMPDIR (or /tmp) is a local file system; the numbers are those of this machine.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results/res.h"

#define N_TRIALS 10000
#define N_FULL 1000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A 128-bit hex key per index, as the harness would hash (point, traffic, repeat, testbed). */
static void trial_key(uint64_t i, char key[33])
{
	uint64_t s = i * 2654435761ULL + 17, a = splitmix64(&s), b = splitmix64(&s);

	snprintf(key, 33, "%016" PRIx64 "%016" PRIx64, a, b);
}

static void fill_trial(struct res_trial *t, int64_t campaign, int64_t point, uint64_t i)
{
	memset(t, 0, sizeof(*t));
	t->campaign = campaign;
	t->point = point;
	trial_key(i, t->key);
	snprintf(t->verb, sizeof(t->verb), "write");
	snprintf(t->metric, sizeof(t->metric), "bw");
	t->repeat = (int)(i % 5);
	snprintf(t->sample.status, sizeof(t->sample.status), "ok");
	t->sample.bw_gbps = 90.0 + (double)(i % 97) * 0.1;
	t->sample.msg_rate_mpps = 2.7;
	t->sample.lat_median_us = 1.9;
	t->sample.lat_p99_us = 3.1;
	t->sample.cost_s = 2.5;
	snprintf(t->sample.counters_json, sizeof(t->sample.counters_json),
		 "{\"rx_steer_missed_packets\": %" PRIu64 ", \"tx_packets\": 12000000, "
		 "\"rx_packets\": 11999870, \"out_of_buffer\": 0, \"tc_in_hw\": 4096, "
		 "\"tc_not_in_hw\": 0}", i * 13 % 1000);
	t->started = 1700000000.0 + (double)i * 2.5;
	t->finished = t->started + 2.5;
}

static int die(const char *what, const struct scn_error *err)
{
	char buf[1024];

	fprintf(stderr, "bench-store: %s: %s\n", what, scn_error_format(err, buf, sizeof(buf)));
	return 1;
}

/* Insert N trials (one transaction each) into a fresh DB at PATH; seconds per trial. */
static int insert_run(const char *path, int n, bool full_sync, struct res_db **keep,
		      double *per_trial)
{
	struct res_campaign c = { .seed = 1, .status = RES_RUNNING };
	struct scn_error err;
	struct res_db *db;
	struct res_trial t;
	int64_t point;
	double t0;

	if (res_open(path, true, &db, &err))
		return die("open", &err);
	if (full_sync && sqlite3_exec(res_sqlite(db), "PRAGMA synchronous=FULL", 0, 0, 0)) {
		res_close(db);
		return 1;
	}
	if (res_campaign_insert(db, &c, &err) ||
	    res_point_upsert(db, c.id, "p0", "{\"flows\": 1024, \"server.decap_masks\": 8}",
			     "model", "sweep", &point, &err)) {
		res_close(db);
		return die("setup", &err);
	}
	t0 = now_s();
	for (int i = 0; i < n; i++) {
		fill_trial(&t, c.id, point, (uint64_t)i);
		if (res_trial_put(db, &t, &err)) {
			res_close(db);
			return die("insert", &err);
		}
	}
	*per_trial = (now_s() - t0) / n;
	if (keep)
		*keep = db;
	else
		res_close(db);
	return 0;
}

static int lookup_run(struct res_db *db, double *per_lookup)
{
	uint64_t s = 42;
	struct scn_error err;
	struct res_trial t;
	char key[33];
	double t0 = now_s();

	for (int i = 0; i < N_TRIALS; i++) {
		trial_key(splitmix64(&s) % N_TRIALS, key);
		if (res_trial_get(db, key, &t, &err))
			return die("lookup", &err);
	}
	*per_lookup = (now_s() - t0) / N_TRIALS;
	return 0;
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

static void remove_db(const char *path)
{
	char p[600];

	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[256], path[300], path_full[300], wal[320];
	double ins = 0, ins_full = 0, look = 0;
	struct res_db *db = NULL;
	long long bytes;
	int rc;

	snprintf(dir, sizeof(dir), "%s/scn-bench-store-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("bench-store: mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/store.db", dir);
	snprintf(path_full, sizeof(path_full), "%s/store-full.db", dir);
	snprintf(wal, sizeof(wal), "%s-wal", path);

	rc = insert_run(path, N_TRIALS, false, &db, &ins);
	if (!rc)
		rc = lookup_run(db, &look);
	if (!rc && sqlite3_wal_checkpoint_v2(res_sqlite(db), NULL, SQLITE_CHECKPOINT_TRUNCATE,
					     NULL, NULL) != SQLITE_OK)
		rc = 1;
	bytes = file_size(path) + file_size(wal);
	res_close(db);
	if (!rc)
		rc = insert_run(path_full, N_FULL, true, NULL, &ins_full);
	remove_db(path);
	remove_db(path_full);
	rmdir(dir);
	if (rc)
		return rc;

	printf("store: %d trials, one transaction each (WAL, synchronous=NORMAL)\n", N_TRIALS);
	printf("  insert per trial:            %8.1f us\n", ins * 1e6);
	printf("  lookup by key (10K stored):  %8.1f us\n", look * 1e6);
	printf("  lookup / insert:             %8.3f\n", look / ins);
	printf("  store size per trial:        %8.0f bytes (db + wal after checkpoint)\n",
	       (double)bytes / N_TRIALS);
	printf("  insert per trial, sync=FULL: %8.1f us (%d trials)\n", ins_full * 1e6, N_FULL);
	printf("  FULL / NORMAL insert:        %8.2f\n", ins_full / ins);
	printf("  store share of a 1 s trial:  %8.5f %%\n", ins * 100.0);
	return 0;
}
