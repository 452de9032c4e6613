/* SPDX-License-Identifier: MIT */
/*
 * hx_campaign_ref: resolving "ID", "DB:ID" or "DB" to an open store and a campaign id, for
 * `report --baseline` and `diff` (hx_campaign_ref.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/hx_campaign_ref.h"
#include "harness/cli/hx_cli.h"
#include "results/res.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int hx_campaign_ref_at(const char *db_path, long long id, struct hx_campaign_ref *out)
{
	struct res_campaign c;
	struct scn_error err = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	snprintf(out->db_path, sizeof(out->db_path), "%s", db_path);
	if ((rc = hx_open_store_ro(db_path, &out->db)))
		return rc;
	if (hx_find_campaign(out->db, id, &c, &err) < 0) {
		scn_error_prefix(&err, "%s: ", db_path);
		hx_campaign_ref_close(out);
		return hx_report_error(&err);
	}
	out->id = c.id;
	return 0;
}

int hx_campaign_ref_open(const char *cmd, const char *text, const char *default_db,
			 struct hx_campaign_ref *out)
{
	const char *colon = strrchr(text, ':');
	char path[512];

	if (all_digits(text))
		return hx_campaign_ref_at(default_db, atoll(text), out);
	if (colon && all_digits(colon + 1)) {
		if ((size_t)(colon - text) >= sizeof(path))
			return hx_usage_error(cmd, "database path too long: '%s'", text);
		snprintf(path, sizeof(path), "%.*s", (int)(colon - text), text);
		if (atoll(colon + 1) < 1)
			return hx_usage_error(cmd, "campaign ids start at 1, not '%s'", colon + 1);
		return hx_campaign_ref_at(path, atoll(colon + 1), out);
	}
	return hx_campaign_ref_at(text, 0, out);
}

void hx_campaign_ref_close(struct hx_campaign_ref *r)
{
	res_close(r->db);
	r->db = NULL;
}
