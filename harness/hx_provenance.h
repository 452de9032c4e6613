/* SPDX-License-Identifier: MIT */
/*
 * hx_provenance: which plan and testbed files a campaign ran with. A campaign records their
 * absolute paths (so `analyze` and `causes` work from any directory) and a hash of each
 * file's bytes (so a later command can say that the file changed since the campaign ran).
 * Campaigns stored before schema 2 have paths as typed and no hashes: nothing to compare.
 */
#ifndef HX_PROVENANCE_H
#define HX_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "results/res.h"

/* Hex 64-bit hash of the bytes of PATH into OUT[17]: 0, or a negative errno (OUT = ""). */
int hx_file_hash(const char *path, char out[17]);
/* Fill C's plan_path, testbed and their hashes from the files as they are now. */
void hx_provenance_record(struct res_campaign *c, const char *plan_path,
			  const char *testbed_path);
/* Whether the plan (TESTBED false) or testbed file of C differs from what the campaign
 * recorded; WHY says how ("changed since campaign 3 ran", "is gone"). False when C recorded
 * no hash. */
bool hx_provenance_changed(const struct res_campaign *c, bool testbed, char *why, size_t len);
/* Print "scalacn CMD: warning: ..." on stderr for each of C's files that changed. */
void hx_provenance_warn(const char *cmd, const struct res_campaign *c);

#endif
