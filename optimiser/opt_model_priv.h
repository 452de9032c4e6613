/* SPDX-License-Identifier: MIT */
/*
 * Private pieces shared by opt_model.c (write, predict) and opt_model_load.c (load).
 */
#ifndef OPT_MODEL_PRIV_H
#define OPT_MODEL_PRIV_H

#include <sqlite3.h>

#include "optimiser/opt_priv.h"

#define MODEL_MAX_ROWS 4096
#define MODEL_MAX_NAME 63

/* One loaded row; np/nd valid for its form (checked by opt_params_ok on load). */
struct mrow {
	char rnic[MODEL_MAX_NAME + 1], firmware[MODEL_MAX_NAME + 1];
	char verb[MODEL_MAX_NAME + 1], metric[MODEL_MAX_NAME + 1];
	enum opt_form form;
	double p[OPT_MODEL_MAX_PARAMS];
	size_t np;
	double dom[4];
	size_t nd;
	/* dimension names x and y stand for (version 1 files: "client.masks", "server.masks");
	 * y is "" for a one-input form */
	char input[2][MODEL_MAX_NAME + 1];
	/* rules per flow on the client and server hosts where it was measured (0 unknown:
	 * files before version 3, or "[]") */
	double flow_rules[2];
	/* the cached-walk forms walk the mean deal, not the even walk (files before version 4;
	 * scalacn-opt.h) */
	bool deal_walk;
};

/* A loaded model: the rows of one RNIC model. */
struct opt_model {
	struct mrow *rows;
	size_t n;
};

OPT_HIDDEN void opt_seterr(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
OPT_HIDDEN int opt_form_parse(const char *s, enum opt_form *f);
OPT_HIDDEN bool opt_params_ok(enum opt_form f, const double *p, size_t n);
/* Rules per flow on the two hosts: each 0 (unknown) or in
 * 1..16 (not necessarily whole). */
OPT_HIDDEN bool opt_flow_rules_ok(const double v[2]);
/* FNV-1a over the models table in canonical order (see scalacn-opt.h); VERSION 2 includes
 * the inputs column, VERSION 3 the flow_rules column after it. */
OPT_HIDDEN int opt_models_checksum(sqlite3 *db, int version, uint64_t *out, char *err,
				   size_t errlen);
/* The version opt_model_write writes. */
#define OPT_MODEL_VERSION 4
/* What version-1 files' x and y stand for. */
#define OPT_INPUTS_V1 "client.masks,server.masks"
/* "NAME" or "NAME,NAME" (names of [A-Za-z0-9_.], 1..MODEL_MAX_NAME bytes) into OUT (may be
 * NULL: validate only; a missing second name is ""). 0 or -EINVAL. */
OPT_HIDDEN int opt_inputs_parse(const char *text, char out[2][MODEL_MAX_NAME + 1]);
/* X and Y of T's (verb, metric) model with MASKS masks in the table (struct opt_config's
 * feeding). -ENOENT no such model, -EINVAL an input nothing feeds. */
OPT_HIDDEN int opt_inputs_feed(const struct opt_table *t, const struct opt_model *model,
			       double masks, double *x, double *y);
/* What a walk over W masks holding F flows costs past a steering cache of R masks and the
 * rules of Q flows, in probes: P (1 + u m) (spillc, lspillc, spillct, lspillct), P the even
 * walk W, or with DEAL the mean deal's (files before version 4). */
OPT_HIDDEN double opt_cached_walk(double f, double w, double u, double r, double q, bool deal);
/* smax(1, t) = (1 + t^32)^(1/32), t < 0 counted as 0: the wire or a walk, whichever is
 * slower (the cap forms' smooth maximum; fitting/fit.h). */
OPT_HIDDEN double opt_smax1(double t);
/* Is the table share's block [x0, w, q, g, A] usable (opt_model_spillt.c)? */
OPT_HIDDEN bool opt_spillt_block_ok(const double *b);
/* The value of a spill form with the table share (spillt ... lspillcty) at X, Y. */
OPT_HIDDEN double opt_spillt_value(enum opt_form f, const double *p, double x, double y,
				   bool deal);
OPT_HIDDEN const struct mrow *opt_model_row_of(const struct opt_model *m, const char *verb,
					       const char *metric);

#endif
