/* SPDX-License-Identifier: MIT */
/*
 * hx_campaign_ref: a campaign named on the command line of `report` and `diff`: "ID" (in
 * the command's --db), "DB:ID" (campaign ID of database DB) or "DB" (the newest campaign of
 * DB that did not fail). The database is opened read-only.
 */
#ifndef HX_CAMPAIGN_REF_H
#define HX_CAMPAIGN_REF_H

#include <stdint.h>

struct res_db;

struct hx_campaign_ref {
	struct res_db *db; /* owned: hx_campaign_ref_close */
	int64_t id;
	char db_path[512];
};

/* Resolve TEXT for command CMD (DEFAULT_DB: the command's --db). Returns 0 or the exit code
 * after printing the error. */
int hx_campaign_ref_open(const char *cmd, const char *text, const char *default_db,
			 struct hx_campaign_ref *out);
/* Open DB_PATH and take campaign ID (<= 0: the newest). Same returns. */
int hx_campaign_ref_at(const char *db_path, long long id, struct hx_campaign_ref *out);
void hx_campaign_ref_close(struct hx_campaign_ref *r);

#endif
