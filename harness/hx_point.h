/* SPDX-License-Identifier: MIT */
/*
 * hx_point: a campaign's point (dimension levels of the default architecture model) in the
 * forms the store needs: canonical text, JSON of levels, point and trial keys.
 *
 * Keys are stable across runs and machines: a trial key hashes the canonical point text,
 * the metric, the repeat index and the testbed identity, so a resumed or repeated campaign
 * finds the trials it already has.
 */
#ifndef HX_POINT_H
#define HX_POINT_H

#include <stddef.h>

#include "generators/gen.h"

/* "client.decap_masks=0;client.encap_masks=0;...;metric=bw" (every dimension, fixed order). */
const char *hx_point_text(const struct gen_levels *l, char *buf, size_t len);
/* {"client.decap_masks":0,...,"metric":"bw"} with categorical levels by name. */
const char *hx_point_json(const struct gen_levels *l, char *buf, size_t len);
/* 32 hex digits (two independent 64-bit hashes) of the point text. */
void hx_point_key(const struct gen_levels *l, char out[33]);
void hx_trial_key(const struct gen_levels *l, int repeat, const char *testbed_identity,
		  char out[33]);
/* Format a level of dimension D for people ("8192", "write", "2M"). */
const char *hx_level_text(const struct gen_dimension *d, double level, char *buf, size_t len);

#endif
