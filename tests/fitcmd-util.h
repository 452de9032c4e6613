/* SPDX-License-Identifier: MIT */
/*
 * fitcmd-util: shared fixture and store builders of the test-fitcmd*.c tests: a temp
 * directory with a results database, campaigns and trials at given masks, the synthetic
 * store (known rbf2 bandwidth and plane latency with seeded noise, plus pollution), and
 * readers of stored models. Helpers fail the running cmocka test on any error.
 */
#ifndef FITCMD_UTIL_H
#define FITCMD_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "harness/fit/hx_fit.h"
#include "results/res.h"
#include "results/res_models.h"

struct fx {
	char dir[256], db_path[320], out[320];
	struct res_db *db;
	struct scn_error err;
	unsigned n_trials; /* makes trial keys unique */
};

int fx_setup(void **state);
int fx_teardown(void **state);

int64_t add_campaign(struct fx *f, const char *rnic, const char *fw);
/* One trial at (client encap, client decap, server encap, server decap) masks. */
struct trial_spec {
	const char *verb, *metric, *status;
	unsigned cen, cde, sen, sde, flows, msg_size;
	double value;
};
void put_trial(struct fx *f, int64_t camp, const struct trial_spec *s);
/* put_trial of rule layout LAYOUT of the point ("layout":LAYOUT in its levels unless 0). */
void put_trial_layout(struct fx *f, int64_t camp, const struct trial_spec *s, unsigned layout);

/* The synthetic grid: x (client masks) x y (server masks). */
#define NX 5
#define NY 6
extern const unsigned grid_x[NX], grid_y[NY];
double syn_bw(double x, double y);  /* 120 exp(-(x^2 + y^2) / (2 30^2)) + 40 */
double syn_lat(double x, double y); /* 2.7 + 0.04 x + 0.09 y */
/* SYN-1 (firmware 1.0): the grid x 3 repeats of send bw (1% noise) and send lat (0.02 us
 * noise) at flows 128, plus 4 ok bw trials at flows 64, 3 timeouts; OTHER: 4 junk trials.
 * Returns SYN-1's campaign id. */
int64_t build_synthetic(struct fx *f);

const struct hx_fit_data *find_group(const struct hx_fit_set *s, const char *rnic,
				     const char *verb, const char *metric);

struct found {
	struct res_model m[16];
	size_t n;
};
int collect_model(const struct res_model *m, void *ctx); /* res_model_each callback */
/* The newest model of (verb, metric) in FD, or NULL. */
const struct res_model *model_of(const struct found *fd, const char *verb, const char *metric);
void params_of(const struct res_model *m, double *p, size_t n);
double quality_of(const struct res_model *m, const char *key);
/* Run a command function with a NULL-terminated argv. */
int run(int (*cmd)(int, char **), char **argv);

#endif
