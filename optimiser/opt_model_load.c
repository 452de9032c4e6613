/* SPDX-License-Identifier: MIT */
/*
 * Loading model files (layout in scalacn-opt.h). Assumes the file may be hostile: SQLite is
 * opened read-only in defensive mode with untrusted schema; both tables must be real tables
 * (no views that compute); rows, names and texts are bounded; every parameter array goes
 * through the strict number-array parser; the checksum is verified before any row is used.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include <sqlite3.h>

#include "optimiser/opt_model_priv.h"

#define MODEL_MAX_FILE (64 << 20)

static int meta_get(sqlite3 *db, const char *key, char *out, size_t len)
{
	sqlite3_stmt *st = NULL;
	int rc = -ENOENT;

	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return -EINVAL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT) {
		const unsigned char *v = sqlite3_column_text(st, 0);

		snprintf(out, len, "%s", v ? (const char *)v : "");
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/* One integer from SQL; -EINVAL when the statement fails (not a database, ...). */
static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EINVAL;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -EINVAL;
}

/* Both tables must exist and be ordinary tables (no views: no hostile computation), and the
 * models table small enough that sorting it for the checksum is cheap. */
static int check_schema(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	int64_t n = 0;

	if (query_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
			  " AND name IN ('meta', 'models')", &n) < 0) {
		opt_seterr(err, errlen, "model file %s: not an SQLite database (%s)", path,
			   sqlite3_errmsg(db));
		return -EINVAL;
	}
	if (n != 2) {
		opt_seterr(err, errlen, "model file %s: missing table meta or models", path);
		return -EINVAL;
	}
	if (query_int(db, "SELECT count(*) FROM models", &n) < 0 || n > MODEL_MAX_ROWS) {
		opt_seterr(err, errlen, "model file %s: unreadable or more than %d model rows", path,
			   MODEL_MAX_ROWS);
		return -E2BIG;
	}
	return 0;
}

static int check_meta(sqlite3 *db, const char *path, int *version, char *err, size_t errlen)
{
	char v[80];
	uint64_t want, have;
	char *end;
	int rc;

	if (meta_get(db, "format", v, sizeof(v)) < 0 || strcmp(v, "scalacn-model") != 0) {
		opt_seterr(err, errlen, "model file %s: format is not 'scalacn-model'", path);
		return -EPROTO;
	}
	if (meta_get(db, "version", v, sizeof(v)) < 0 || strlen(v) != 1 || v[0] < '1' ||
	    v[0] > '0' + OPT_MODEL_VERSION) {
		opt_seterr(err, errlen, "model file %s: unsupported version (this library reads 1 "
			   "to %d)", path, OPT_MODEL_VERSION);
		return -EPROTO;
	}
	*version = v[0] - '0';
	if (meta_get(db, "checksum", v, sizeof(v)) < 0 || strlen(v) != 16) {
		opt_seterr(err, errlen, "model file %s: missing or malformed checksum", path);
		return -EBADMSG;
	}
	errno = 0;
	want = strtoull(v, &end, 16);
	if (*end != '\0' || errno != 0 || v[0] == '-' || v[0] == '+' || v[0] == ' ') {
		opt_seterr(err, errlen, "model file %s: malformed checksum", path);
		return -EBADMSG;
	}
	rc = opt_models_checksum(db, *version, &have, err, errlen);
	if (rc < 0)
		return rc;
	if (want != have) {
		opt_seterr(err, errlen, "model file %s: checksum mismatch (stored %016" PRIx64
		       ", computed %016" PRIx64 "): the file is damaged", path, want, have);
		return -EBADMSG;
	}
	return 0;
}

static int copy_name(char *dst, sqlite3_stmt *st, int col)
{
	const unsigned char *v = sqlite3_column_text(st, col);
	int n = sqlite3_column_bytes(st, col);

	if (!v || n <= 0 || n > MODEL_MAX_NAME || memchr(v, '\0', (size_t)n))
		return -EINVAL;
	memcpy(dst, v, (size_t)n);
	dst[n] = '\0';
	return 0;
}

/* Column COL: "[]" (unknown: 0, 0) or "[c,s]", each 0 or in 1..16. */
static int parse_flow_rules(sqlite3_stmt *st, int col, double out[2])
{
	const char *t = (const char *)sqlite3_column_text(st, col);
	size_t n = 0;

	out[0] = out[1] = 0;
	if (!t || opt_parse_number_array(t, (size_t)sqlite3_column_bytes(st, col), out, 2,
					 &n) < 0 || (n != 0 && n != 2) || !opt_flow_rules_ok(out))
		return -EINVAL;
	return 0;
}

static int parse_row(sqlite3_stmt *st, struct mrow *r)
{
	const char *form = (const char *)sqlite3_column_text(st, 4);
	const char *pj = (const char *)sqlite3_column_text(st, 5);
	const char *dj = (const char *)sqlite3_column_text(st, 6);
	int pl = sqlite3_column_bytes(st, 5), dl = sqlite3_column_bytes(st, 6);
	const char *in;

	if (copy_name(r->rnic, st, 0) || copy_name(r->firmware, st, 1) ||
	    copy_name(r->verb, st, 2) || copy_name(r->metric, st, 3) || !form || !pj || !dj ||
	    opt_form_parse(form, &r->form) < 0)
		return -EINVAL;
	if (opt_parse_number_array(pj, (size_t)pl, r->p, OPT_MODEL_MAX_PARAMS, &r->np) < 0 ||
	    !opt_params_ok(r->form, r->p, r->np))
		return -EINVAL;
	if (opt_parse_number_array(dj, (size_t)dl, r->dom, 4, &r->nd) < 0 ||
	    (r->nd != 0 && r->nd != 2 && r->nd != 4))
		return -EINVAL;
	in = sqlite3_column_count(st) > 7 ? (const char *)sqlite3_column_text(st, 7) : NULL;
	if (opt_inputs_parse(in ? in : OPT_INPUTS_V1, r->input) < 0)
		return -EINVAL;
	return sqlite3_column_count(st) > 8 ? parse_flow_rules(st, 8, r->flow_rules) : 0;
}

static int read_rows(sqlite3 *db, int version, const char *rnic, struct opt_model *m,
		     const char *path, char *err, size_t errlen)
{
	static const char *const sql[] = {
		"SELECT rnic_model, firmware, verb, metric, form, params_json, domain_json"
		" FROM models ORDER BY 1, 2, 3, 4, 5, 6, 7",
		"SELECT rnic_model, firmware, verb, metric, form, params_json, domain_json, inputs"
		" FROM models ORDER BY 1, 2, 3, 4, 5, 6, 7, 8",
		"SELECT rnic_model, firmware, verb, metric, form, params_json, domain_json, inputs,"
		" flow_rules FROM models ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9",
	};
	sqlite3_stmt *st = NULL;
	size_t total = 0, cap = 0;
	int rc;

	if (sqlite3_prepare_v2(db, sql[(version < 3 ? version : 3) - 1], -1, &st, NULL) !=
	    SQLITE_OK)
		return -EINVAL;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct mrow *r;

		if (m->n == cap) {
			size_t nc = cap ? cap * 2 : 8;
			struct mrow *nr = realloc(m->rows, nc * sizeof(*nr));

			if (!nr) {
				sqlite3_finalize(st);
				return -ENOMEM;
			}
			m->rows = nr;
			cap = nc;
		}
		r = &m->rows[m->n];
		memset(r, 0, sizeof(*r));
		if (++total > MODEL_MAX_ROWS) {
			opt_seterr(err, errlen, "model file %s: more than %d rows", path, MODEL_MAX_ROWS);
			sqlite3_finalize(st);
			return -E2BIG;
		}
		if (parse_row(st, r) < 0) {
			opt_seterr(err, errlen, "model file %s: row %zu: bad names, form, params_json,"
			       " domain_json, inputs or flow_rules", path, total);
			sqlite3_finalize(st);
			return -EINVAL;
		}
		r->deal_walk = version < 4;
		if (rnic && strcmp(r->rnic, rnic) != 0)
			continue;
		if (!rnic && m->n > 0 && strcmp(r->rnic, m->rows[0].rnic) != 0) {
			opt_seterr(err, errlen, "model file %s: holds several RNIC models; choose one",
			       path);
			sqlite3_finalize(st);
			return -EINVAL;
		}
		m->n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		opt_seterr(err, errlen, "model file %s: %s", path, sqlite3_errmsg(db));
		return -EINVAL;
	}
	if (m->n == 0) {
		opt_seterr(err, errlen, "model file %s: no model rows%s%s", path, rnic ? " for " : "",
		       rnic ? rnic : "");
		return -ENOENT;
	}
	return 0;
}

static int open_ro(const char *path, sqlite3 **db, char *err, size_t errlen)
{
	struct stat sb;

	if (stat(path, &sb) < 0) {
		int e = errno;

		opt_seterr(err, errlen, "model file %s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size > MODEL_MAX_FILE) {
		opt_seterr(err, errlen, "model file %s: not a regular file of at most %d MiB", path,
			   MODEL_MAX_FILE >> 20);
		return -EINVAL;
	}
	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		opt_seterr(err, errlen, "model file %s: cannot open: %s", path,
		       *db ? sqlite3_errmsg(*db) : "no memory");
		return -EINVAL;
	}
	sqlite3_db_config(*db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
	sqlite3_db_config(*db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
#endif
	sqlite3_limit(*db, SQLITE_LIMIT_LENGTH, 1 << 20);
	return 0;
}

int opt_model_load(const char *path, const char *rnic, struct opt_model **out, char *err,
		   size_t errlen)
{
	struct opt_model *m;
	sqlite3 *db = NULL;
	int rc, version = 1;

	if (!path || !out) {
		opt_seterr(err, errlen, "model file: bad arguments");
		return -EINVAL;
	}
	*out = NULL;
	rc = open_ro(path, &db, err, errlen);
	if (rc == 0)
		rc = check_schema(db, path, err, errlen);
	if (rc == 0)
		rc = check_meta(db, path, &version, err, errlen);
	if (rc < 0) {
		sqlite3_close(db);
		return rc;
	}
	m = calloc(1, sizeof(*m));
	rc = m ? read_rows(db, version, rnic, m, path, err, errlen) : -ENOMEM;
	sqlite3_close(db);
	if (rc == -ENOMEM)
		opt_seterr(err, errlen, "model file %s: out of memory", path);
	if (rc < 0) {
		opt_model_free(m);
		return rc;
	}
	*out = m;
	return 0;
}
