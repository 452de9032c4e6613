/* SPDX-License-Identifier: MIT */
/*
 * Model files: write, checksum and predict (loading is in opt_model_load.c).
 * The file layout and the parameter order of every form are documented in scalacn-opt.h.
 * Assumes model files may be hostile: SQLite is opened read-only in defensive mode with
 * untrusted schema, both tables must be real tables, sizes are bounded, every parameter
 * array is parsed strictly.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "optimiser/opt_model_priv.h"

static const char *const form_names[] = { "rbf2", "plane", "line", "rbf1", "service", "knee",
					   "cap", "walk", "cliff", "cliffy", "spill", "spilly",
					   "lspill", "lspilly", "cache", "spillc", "spillcy",
					   "lspillc", "lspillcy", "walkc", "capc", "spillt",
					   "spillty", "lspillt", "lspillty", "spillct", "spillcty",
					   "lspillct", "lspillcty", "pipec" };

void opt_seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

const char *opt_form_name(enum opt_form f)
{
	return (unsigned)f < sizeof(form_names) / sizeof(form_names[0]) ? form_names[f] : "?";
}

int opt_form_parse(const char *s, enum opt_form *f)
{
	for (size_t i = 0; i < sizeof(form_names) / sizeof(form_names[0]); i++)
		if (strcmp(s, form_names[i]) == 0) {
			*f = (enum opt_form)i;
			return 0;
		}
	return -EINVAL;
}

/* Is N a valid parameter count for form F, and are the parameters usable? */
bool opt_params_ok(enum opt_form f, const double *p, size_t n)
{
	switch (f) {
	case OPT_FORM_RBF2: return n == 5 && p[3] != 0.0;
	case OPT_FORM_PLANE: return n == 3;
	case OPT_FORM_LINE: return n == 2;
	case OPT_FORM_RBF1: return n == 4 && p[2] != 0.0;
	case OPT_FORM_SERVICE: return n == 2 || n == 3;
	case OPT_FORM_KNEE: return n == 3;
	case OPT_FORM_CAP: return (n == 4 || n == 5) && p[n - 1] > 0.0;
	case OPT_FORM_WALK: return (n == 3 || n == 4) && p[n - 1] > 0.0;
	case OPT_FORM_CLIFF:
	case OPT_FORM_CLIFFY: return n == 6 && p[5] > 0.0;
	/* the spill forms: with or without the slow path's growth g >= 0 (last) */
	case OPT_FORM_SPILL:
	case OPT_FORM_SPILLY: return (n == 7 || (n == 8 && p[7] >= 0.0)) && p[3] > 0.0 &&
				     p[4] > 0.0 && p[5] > 0.0 && p[6] >= 0.0;
	case OPT_FORM_LSPILL:
	case OPT_FORM_LSPILLY: return (n == 6 || (n == 7 && p[6] >= 0.0)) && p[3] > 0.0 &&
				      p[4] > 0.0 && p[5] >= 0.0;
	case OPT_FORM_CACHE: return n == 8 && p[5] >= 0.0 && p[6] >= 0.0 && p[7] > 0.0;
	case OPT_FORM_SPILLC:
	case OPT_FORM_SPILLCY: return (n == 10 || (n == 11 && p[10] >= 0.0)) && p[4] > 0.0 &&
				      p[5] > 0.0 && p[6] > 0.0 && p[7] > 0.0 && p[8] > 0.0 &&
				      p[9] >= 0.0;
	case OPT_FORM_LSPILLC:
	case OPT_FORM_LSPILLCY: return (n == 9 || (n == 10 && p[9] >= 0.0)) && p[3] > 0.0 &&
				       p[4] > 0.0 && p[6] > 0.0 && p[7] > 0.0 && p[8] >= 0.0;
	case OPT_FORM_WALKC: return n == 5 && p[3] >= 0.0 && p[4] > 0.0;
	case OPT_FORM_CAPC:
	case OPT_FORM_PIPEC: return n == 6 && p[4] >= 0.0 && p[5] > 0.0;
	case OPT_FORM_SPILLT:
	case OPT_FORM_SPILLTY: return n == 9 && p[3] > 0.0 && opt_spillt_block_ok(p + 4);
	case OPT_FORM_LSPILLT:
	case OPT_FORM_LSPILLTY: return n == 8 && opt_spillt_block_ok(p + 3);
	case OPT_FORM_SPILLCT:
	case OPT_FORM_SPILLCTY: return n == 12 && p[4] > 0.0 && p[5] > 0.0 && p[6] > 0.0 &&
				       opt_spillt_block_ok(p + 7);
	case OPT_FORM_LSPILLCT:
	case OPT_FORM_LSPILLCTY: return n == 11 && p[3] > 0.0 && p[4] > 0.0 &&
					opt_spillt_block_ok(p + 6);
	}
	return false;
}

bool opt_flow_rules_ok(const double v[2])
{
	for (int i = 0; i < 2; i++)
		if (!(v[i] == 0 || (v[i] >= 1 && v[i] <= 16)))
			return false;
	return true;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Checksum of the models table in canonical order (see the header): version 1 over the
 * first 8 columns, 2 adds inputs, 3 flow_rules. */
int opt_models_checksum(sqlite3 *db, int version, uint64_t *out, char *err, size_t errlen)
{
	static const char *const sql[] = {
		"SELECT rnic_model, firmware, verb, metric, form, params_json, domain_json,"
		" quality_json FROM models ORDER BY 1, 2, 3, 4, 5, 6, 7, 8",
		"SELECT rnic_model, firmware, verb, metric, form, params_json, domain_json,"
		" quality_json, inputs FROM models ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9",
		"SELECT rnic_model, firmware, verb, metric, form, params_json, domain_json,"
		" quality_json, inputs, flow_rules FROM models ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10",
	};
	int v = version < 1 ? 1 : version > 3 ? 3 : version;
	sqlite3_stmt *st = NULL;
	uint64_t h = 0xcbf29ce484222325ULL;
	int rc, cols = 7 + v;

	if (sqlite3_prepare_v2(db, sql[v - 1], -1, &st, NULL) != SQLITE_OK) {
		opt_seterr(err, errlen, "model file: cannot read models table: %s", sqlite3_errmsg(db));
		return -EINVAL;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < cols; c++) {
			const unsigned char *txt = sqlite3_column_text(st, c);
			int len = sqlite3_column_bytes(st, c);

			if (txt)
				h = fnv1a(h, txt, (size_t)len);
			h = fnv1a(h, "\x1f", 1);
		}
		h = fnv1a(h, "\x1e", 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		opt_seterr(err, errlen, "model file: reading models failed: %s", sqlite3_errmsg(db));
		return -EINVAL;
	}
	*out = h;
	return 0;
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		opt_seterr(err, errlen, "model file: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

/* "[a,b,...]" with %.17g: round-trips every double. */
static void fmt_array(char *buf, size_t len, const double *v, size_t n)
{
	size_t o = 0;

	o += (size_t)snprintf(buf + o, len - o, "[");
	for (size_t i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%.17g", i ? "," : "", v[i]);
	if (o < len)
		snprintf(buf + o, len - o, "]");
}

static int insert_row(sqlite3 *db, sqlite3_stmt *st, const struct opt_model_row *r,
		      char *err, size_t errlen)
{
	char params[512], dom[256], rules[64];
	const char *txt[10];

	if (!r->rnic_model || !r->firmware || !r->verb || !r->metric ||
	    !opt_params_ok(r->form, r->params, r->n_params) ||
	    (r->n_domain != 0 && r->n_domain != 2 && r->n_domain != 4)) {
		opt_seterr(err, errlen, "model row: missing name, bad form/params or domain");
		return -EINVAL;
	}
	if (!opt_flow_rules_ok(r->flow_rules)) {
		opt_seterr(err, errlen, "model row: rules per flow must be 0 (unknown) or 1..16");
		return -EINVAL;
	}
	for (size_t i = 0; i < r->n_params; i++)
		if (!isfinite(r->params[i])) {
			opt_seterr(err, errlen, "model row: non-finite parameter");
			return -EINVAL;
		}
	fmt_array(params, sizeof(params), r->params, r->n_params);
	fmt_array(dom, sizeof(dom), r->domain, r->n_domain);
	txt[0] = r->rnic_model; txt[1] = r->firmware; txt[2] = r->verb; txt[3] = r->metric;
	txt[4] = opt_form_name(r->form); txt[5] = params; txt[6] = dom;
	txt[7] = r->quality_json ? r->quality_json : "{}";
	txt[8] = r->inputs ? r->inputs : OPT_INPUTS_V1;
	if (r->flow_rules[0] > 0 || r->flow_rules[1] > 0)
		fmt_array(rules, sizeof(rules), r->flow_rules, 2);
	else
		snprintf(rules, sizeof(rules), "[]");
	txt[9] = rules;
	if (opt_inputs_parse(txt[8], NULL) < 0) {
		opt_seterr(err, errlen, "model row: inputs '%s' is not NAME or NAME,NAME", txt[8]);
		return -EINVAL;
	}
	sqlite3_reset(st);
	for (int c = 0; c < 10; c++)
		sqlite3_bind_text(st, c + 1, txt[c], -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE) {
		opt_seterr(err, errlen, "model file: insert failed: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	return 0;
}

static int write_all(sqlite3 *db, const struct opt_model_row *rows, size_t n, char *err,
		     size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char sql[160];
	uint64_t h;
	int rc;

	rc = exec(db, "BEGIN;"
		  "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
		  "CREATE TABLE models(rnic_model TEXT NOT NULL, firmware TEXT NOT NULL,"
		  " verb TEXT NOT NULL, metric TEXT NOT NULL, form TEXT NOT NULL,"
		  " params_json TEXT NOT NULL, domain_json TEXT NOT NULL,"
		  " quality_json TEXT NOT NULL, inputs TEXT NOT NULL,"
		  " flow_rules TEXT NOT NULL);", err, errlen);
	if (rc < 0)
		return rc;
	if (sqlite3_prepare_v2(db, "INSERT INTO models VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK) {
		opt_seterr(err, errlen, "model file: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = insert_row(db, st, &rows[i], err, errlen);
	sqlite3_finalize(st);
	if (rc == 0)
		rc = opt_models_checksum(db, OPT_MODEL_VERSION, &h, err, errlen);
	if (rc < 0)
		return rc;
	snprintf(sql, sizeof(sql), "INSERT INTO meta VALUES('format','scalacn-model'),"
		 "('version','%d'),('checksum','%016" PRIx64 "');COMMIT;", OPT_MODEL_VERSION, h);
	return exec(db, sql, err, errlen);
}

int opt_model_write(const char *path, const struct opt_model_row *rows, size_t n, char *err,
		    size_t errlen)
{
	sqlite3 *db = NULL;
	int rc;

	if (!path || (n > 0 && !rows) || n > MODEL_MAX_ROWS) {
		opt_seterr(err, errlen, "model file: bad arguments");
		return -EINVAL;
	}
	if (unlink(path) < 0 && errno != ENOENT) {
		opt_seterr(err, errlen, "model file %s: cannot replace: %s", path, strerror(errno));
		return -errno;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		opt_seterr(err, errlen, "model file %s: %s", path, db ? sqlite3_errmsg(db) : "no memory");
		sqlite3_close(db);
		return -EIO;
	}
	rc = write_all(db, rows, n, err, errlen);
	sqlite3_close(db);
	if (rc < 0)
		unlink(path);
	return rc;
}

void opt_model_free(struct opt_model *m)
{
	if (!m)
		return;
	free(m->rows);
	free(m);
}

const struct mrow *opt_model_row_of(const struct opt_model *m, const char *verb,
				    const char *metric)
{
	if (!m || !verb || !metric)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->rows[i].verb, verb) == 0 && strcmp(m->rows[i].metric, metric) == 0)
			return &m->rows[i];
	return NULL;
}

/* Probes of a walk over M masks: the hit probe, then saturating at S (scalacn-opt.h: v). */
static double walk_probes(double m, double s)
{
	return -s * expm1(-m / s) + (m > 0 ? 1.0 : 0.0);
}

/* The smooth maximum (p-norm, exponent 32) of 1 and two stages' times T1, T2 (negative
 * times count as 0). */
static double opt_smax3(double t1, double t2)
{
	double top;

	t1 = t1 > 0 ? t1 : 0;
	t2 = t2 > 0 ? t2 : 0;
	top = fmax(1.0, fmax(t1, t2));
	return top * pow(pow(1.0 / top, 32) + pow(t1 / top, 32) + pow(t2 / top, 32), 1.0 / 32);
}

/* cap [L,c,k1,(k2,)s]: L over the smooth maximum of 1 and the stages. */
static double cap_value(const double *p, size_t np, double x, double y)
{
	double s = p[np - 1], k2 = np == 5 ? p[3] : 0.0;
	double t1 = p[1] + p[2] * walk_probes(x, s), t2 = p[1] + k2 * walk_probes(y, s);

	return p[0] / opt_smax3(t1, t2);
}

double opt_smax1(double t)
{
	double top;

	t = fmax(0.0, t);
	top = fmax(1.0, t);
	return top * pow(pow(1.0 / top, 32) + pow(t / top, 32), 1.0 / 32);
}

/* cliff [L,c,k,h,x0,w]: L / smax(1, c + k*d) * (1 - h / (1 + exp(-(x - x0)/w))), cliff
 * input X, walk input D (scalacn-opt.h; smax as cap's). */
static double cliff_value(const double *p, double x, double d)
{
	double z = (x - p[4]) / p[5];
	double s = z >= 0 ? 1.0 / (1.0 + exp(-z)) : exp(z) / (1.0 + exp(z));
	return p[0] / opt_smax1(p[1] + p[2] * d) * (1.0 - p[3] * s);
}

/* The share that spills to the slow path at C past the capacity E: 1 - (e/c)^pw, else 0. */
static double spill_share(double c, double e, double pw)
{
	return c > e && e > 0.0 ? 1.0 - pow(e / c, pw) : 0.0;
}

/* The slow path's load at C past E: the spilled share times (c/e)^g, the slow path's
 * growth (g = 0 in files written before it: the share alone). */
static double spill_load(double c, double e, double pw, double g)
{
	return c > e && e > 0.0 ? spill_share(c, e, pw) * pow(c / e, g) : 0.0;
}

/* The growth exponent of a spill row of N parameters whose form without it has N0. */
static double spill_growth(const double *p, size_t n, size_t n0)
{
	return n > n0 ? p[n0] : 0.0;
}

/* spill [L,c,k,S,x0,p,q(,g)], spilling input X, walk input D (scalacn-opt.h). */
static double spill_value(const double *p, size_t n, double x, double d)
{
	double e = p[4] - p[6] * d, s = spill_share(x, e, p[5]);
	double l = spill_load(x, e, p[5], spill_growth(p, n, 7));

	return 1.0 / ((1.0 - s) * opt_smax1(p[1] + p[2] * d) / p[0] + l / p[3]);
}

/* lspill [a,b,D,x0,p,q(,g)], spilling input X, other input D (scalacn-opt.h). */
static double lspill_value(const double *p, size_t n, double x, double d)
{
	double e = p[3] - p[5] * d;

	return p[0] + p[1] * d + p[2] * spill_load(x, e, p[4], spill_growth(p, n, 6));
}

/* cache [L,c,k1,k2,u,a,b,s] (scalacn-opt.h; smax as cap's, v as walk's). */
static double cache_value(const double *p, double x, double y)
{
	double m = p[5] * x + p[6] * y, ms = m > 1.0 ? 1.0 - 1.0 / m : 0.0;
	double t1 = fmax(0.0, p[1] + walk_probes(x, p[7]) * (p[2] + p[4] * ms));
	double t2 = fmax(0.0, p[1] + walk_probes(y, p[7]) * (p[3] + p[4] * ms));
	double top = fmax(1.0, fmax(t1, t2));

	return p[0] / (top * pow(pow(1.0 / top, 32) + pow(t1 / top, 32) + pow(t2 / top, 32),
				 1.0 / 32));
}

double opt_cached_walk(double f, double w, double u, double r, double q, bool deal)
{
	double pr = !(f > 0.0) ? 0.0 : deal ? -3.0 * f * expm1(-w / (3.0 * f)) : w;
	double m = 1.0 - (w > r ? r / w : 1.0) * (f > q ? q / f : 1.0);

	return pr * (1.0 + u * m);
}

/* spillc [L,c,k,u,r,Q,S,x0,p,q(,g)], flows F, masks W (scalacn-opt.h; smax as cap's). */
static double spillc_value(const double *p, size_t n, double f, double w, bool deal)
{
	double e = p[7] - p[9] * w, s = spill_share(f, e, p[8]);
	double l = spill_load(f, e, p[8], spill_growth(p, n, 10));
	double m = opt_smax1(p[1] + p[2] * opt_cached_walk(f, w, p[3], p[4], p[5], deal));

	return 1.0 / ((1.0 - s) * m / p[0] + l / p[6]);
}

/* lspillc [a,b,u,r,Q,D,x0,p,q(,g)], flows F, masks W (scalacn-opt.h). */
static double lspillc_value(const double *p, size_t n, double f, double w, bool deal)
{
	return p[0] + p[1] * opt_cached_walk(f, w, p[2], p[3], p[4], deal) +
	       p[5] * spill_load(f, p[6] - p[8] * w, p[7], spill_growth(p, n, 9));
}

/* The share 1 - r/w of a walk over W masks that misses a steering cache of R masks, 0
 * within it (walkc, capc, pipec). */
static double cache_missed(double w, double r)
{
	return w > r ? 1.0 - r / w : 0.0;
}

/* walkc [a,b,c,u,r]: a + b x (1 + u m(x)) + c y (1 + u m(y)), m(w) = 1 - r/w past r. */
static double walkc_value(const double *p, double x, double y)
{
	double mx = cache_missed(x, p[4]), my = cache_missed(y, p[4]);

	return p[0] + p[1] * x * (1.0 + p[3] * mx) + p[2] * y * (1.0 + p[3] * my);
}

/* capc [L,c,k1,k2,u,r]: L / smax(1, c + (k1 x + k2 y)(1 + u m)), m = 1 - r/(x + y) past r
 * (smax as cap's). */
static double capc_value(const double *p, double x, double y)
{
	double m = cache_missed(x + y, p[5]);

	return p[0] / opt_smax1(p[1] + (p[2] * x + p[3] * y) * (1.0 + p[4] * m));
}

/* pipec [L,c,k1,k2,u,r]: L / smax(1, c + k1 x (1 + u m(x)), c + k2 y (1 + u m(y))),
 * m as walkc's (smax as cap's). */
static double pipec_value(const double *p, double x, double y)
{
	double mx = cache_missed(x, p[5]), my = cache_missed(y, p[5]);
	double t1 = p[1] + p[2] * x * (1.0 + p[4] * mx), t2 = p[1] + p[3] * y * (1.0 + p[4] * my);

	return p[0] / opt_smax3(t1, t2);
}

int opt_model_predict(const struct opt_model *m, const char *verb, const char *metric,
		      double x, double y, double *value)
{
	const struct mrow *r = opt_model_row_of(m, verb, metric);
	const double *p;
	double v = NAN, den;

	if (!r)
		return -ENOENT;
	p = r->p;
	switch (r->form) {
	case OPT_FORM_RBF2:
		v = p[0] * exp(-((x - p[1]) * (x - p[1]) + (y - p[2]) * (y - p[2])) /
			       (2.0 * p[3] * p[3])) + p[4];
		break;
	case OPT_FORM_PLANE: v = p[0] * x + p[1] * y + p[2]; break;
	case OPT_FORM_LINE: v = p[0] * x + p[1]; break;
	case OPT_FORM_RBF1:
		v = p[0] * exp(-(x - p[1]) * (x - p[1]) / (2.0 * p[2] * p[2])) + p[3];
		break;
	case OPT_FORM_SERVICE:
		den = 1.0 + p[1] * x + (r->np == 3 ? p[2] * y : 0.0);
		v = den > 0.0 ? p[0] / den : NAN;
		break;
	case OPT_FORM_KNEE: v = x <= p[2] ? p[0] : p[0] + p[1] * (x - p[2]); break;
	case OPT_FORM_CAP: v = cap_value(p, r->np, x, y); break;
	case OPT_FORM_WALK:
		den = p[r->np - 1]; /* s */
		v = p[0] + p[1] * walk_probes(x, den) +
		    (r->np == 4 ? p[2] * walk_probes(y, den) : 0.0);
		break;
	case OPT_FORM_CLIFF: v = cliff_value(p, x, y); break;
	case OPT_FORM_CLIFFY: v = cliff_value(p, y, x); break;
	case OPT_FORM_SPILL: v = spill_value(p, r->np, x, y); break;
	case OPT_FORM_SPILLY: v = spill_value(p, r->np, y, x); break;
	case OPT_FORM_LSPILL: v = lspill_value(p, r->np, x, y); break;
	case OPT_FORM_LSPILLY: v = lspill_value(p, r->np, y, x); break;
	case OPT_FORM_CACHE: v = cache_value(p, x, y); break;
	case OPT_FORM_SPILLC: v = spillc_value(p, r->np, x, y, r->deal_walk); break;
	case OPT_FORM_SPILLCY: v = spillc_value(p, r->np, y, x, r->deal_walk); break;
	case OPT_FORM_LSPILLC: v = lspillc_value(p, r->np, x, y, r->deal_walk); break;
	case OPT_FORM_LSPILLCY: v = lspillc_value(p, r->np, y, x, r->deal_walk); break;
	case OPT_FORM_WALKC: v = walkc_value(p, x, y); break;
	case OPT_FORM_CAPC: v = capc_value(p, x, y); break;
	case OPT_FORM_PIPEC: v = pipec_value(p, x, y); break;
	case OPT_FORM_SPILLT:
	case OPT_FORM_SPILLTY:
	case OPT_FORM_LSPILLT:
	case OPT_FORM_LSPILLTY:
	case OPT_FORM_SPILLCT:
	case OPT_FORM_SPILLCTY:
	case OPT_FORM_LSPILLCT:
	case OPT_FORM_LSPILLCTY: v = opt_spillt_value(r->form, p, x, y, r->deal_walk); break;
	}
	if (!isfinite(v))
		return -EDOM;
	if (value)
		*value = v;
	return 0;
}

int opt_model_in_domain(const struct opt_model *m, const char *verb, const char *metric,
			double x, double y)
{
	const struct mrow *r = opt_model_row_of(m, verb, metric);

	if (!r)
		return -ENOENT;
	if (r->nd >= 2 && (x < r->dom[0] || x > r->dom[1]))
		return 0;
	if (r->nd == 4 && (y < r->dom[2] || y > r->dom[3]))
		return 0;
	return 1;
}
