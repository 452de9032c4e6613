/* SPDX-License-Identifier: MIT */
/*
 * pt_json_fill: a parsed perftest --out_json object -> struct pt_result.
 *
 * Layout (6.06 and later): { "test_info": { "test": "RDMA_Write_BW_Test", "Mtu": 1024, ... },
 * "results": { "MsgSize": 65536, "n_iterations": 5000, "BW_peak": ..., "BW_average": ...,
 * "MsgRate": ... } } for BW; LAT has t_min .. percentile_99.9; LAT with -D has t_avg and
 * tps_average. Only the last report survives in the file (it is rewritten per size), so a
 * JSON result has one row. Numbers come from json-c; a numeric string is converted by json-c.
 */
#include "testbeds/perftest/pt_internal.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

/* 1: found and numeric, 0: absent, -1: present but not a number. */
static int jnum(json_object *o, const char *const *keys, double *out)
{
	for (; *keys; keys++) {
		json_object *v;
		double d;

		if (!json_object_object_get_ex(o, *keys, &v))
			continue;
		switch (json_object_get_type(v)) {
		case json_type_double:
		case json_type_int:
			*out = json_object_get_double(v);
			return 1;
		case json_type_string:
			errno = 0;
			d = json_object_get_double(v);
			if (errno)
				return -1;
			*out = d;
			return 1;
		default:
			return -1;
		}
	}
	return 0;
}

static int juint(json_object *o, const char *key, uint64_t *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (json_object_get_type(v) != json_type_int || json_object_get_int64(v) < 0)
		return -1;
	*out = json_object_get_uint64(v);
	return 1;
}

struct col {
	const char *keys[3];
	size_t off; /* offsetof the double in struct pt_row */
	bool required;
};

#define COL(k1, k2, member, req) { { k1, k2, NULL }, offsetof(struct pt_row, member), req }

static const struct col bw_cols[] = {
	COL("BW_peak", "bw_peak", bw_peak, true),
	COL("BW_average", "bw_avg", bw_avg, true),
	COL("MsgRate", "msgRate_avg", msg_rate_mpps, true),
	COL("CPU_util", "CPU_Util", cpu_util, false),
};

static const struct col lat_cols[] = {
	COL("t_min", NULL, t_min, true),
	COL("t_max", NULL, t_max, true),
	COL("t_typical", NULL, t_typical, true),
	COL("t_avg", NULL, t_avg, true),
	COL("t_stdev", NULL, t_stdev, true),
	COL("percentile_99", NULL, p99, true),
	COL("percentile_99.9", NULL, p999, true),
	COL("CPU_util", "CPU_Util", cpu_util, false),
};

static const struct col dur_cols[] = {
	COL("t_avg", NULL, t_avg, true),
	COL("tps_average", "tps average", tps_avg, true),
	COL("CPU_util", "CPU_Util", cpu_util, false),
};

static int read_cols(json_object *res, const struct col *cols, size_t n, struct pt_row *row,
		     const char *name, struct scn_error *err)
{
	for (size_t i = 0; i < n; i++) {
		double *dst = (double *)(void *)((char *)row + cols[i].off);
		int got = jnum(res, cols[i].keys, dst);

		if (got < 0)
			return pt_fail(err, name, 0, 0, -EINVAL, "\"results\".\"%s\" is not a number",
				       cols[i].keys[0]);
		if (got == 0 && cols[i].required)
			return pt_fail(err, name, 0, 0, -EINVAL, "\"results\" lacks \"%s\"",
				       cols[i].keys[0]);
	}
	return 0;
}

static bool has(json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

static int fill_row(struct pt_result *r, json_object *res, enum pt_bw_unit unit,
		    const char *name, struct scn_error *err)
{
	struct pt_row row;
	int rc;

	pt_row_init(&row);
	if (juint(res, "MsgSize", &row.bytes) != 1 ||
	    juint(res, "n_iterations", &row.iterations) != 1)
		return pt_fail(err, name, 0, 0, -EINVAL,
			       "\"results\" needs unsigned integers \"MsgSize\" and \"n_iterations\"");
	if (has(res, "t_min")) {
		r->form = PT_FORM_LAT;
		rc = read_cols(res, lat_cols, sizeof(lat_cols) / sizeof(lat_cols[0]), &row, name, err);
	} else if (has(res, "BW_average") || has(res, "bw_avg")) {
		r->form = PT_FORM_BW;
		r->unit = unit;
		rc = read_cols(res, bw_cols, sizeof(bw_cols) / sizeof(bw_cols[0]), &row, name, err);
		row.bw_avg_gbps = pt_bw_to_gbps(row.bw_avg, unit);
	} else if (has(res, "tps_average") || has(res, "tps average")) {
		r->form = PT_FORM_LAT_DUR;
		rc = read_cols(res, dur_cols, sizeof(dur_cols) / sizeof(dur_cols[0]), &row, name, err);
	} else {
		return pt_fail(err, name, 0, 0, -EINVAL, "\"results\" has no BW or latency columns");
	}
	if (rc)
		return rc;
	if (pt_result_add_row(r, &row))
		return pt_fail(err, name, 0, 0, -ENOMEM, "out of memory");
	return 0;
}

static int fill_info(struct pt_result *r, json_object *info, const char *name,
		     struct scn_error *err)
{
	json_object_object_foreach(info, key, val)
	{
		const char *s;

		if (json_object_get_type(val) == json_type_string)
			s = json_object_get_string(val);
		else
			s = json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN);
		if (strcmp(key, "test") == 0) {
			pt_result_set_title(r, s ? s : "");
			continue;
		}
		if (pt_result_add_field(r, key, s ? s : "", 0))
			return pt_fail(err, name, 0, 0, -ENOMEM, "out of memory");
	}
	return 0;
}

int pt_json_fill(struct json_object *root, enum pt_bw_unit unit, enum pt_json_form form,
		 const char *name, struct pt_result **out, struct scn_error *err)
{
	json_object *info, *res;
	struct pt_result *r;
	int rc = 0;

	if (!json_object_is_type(root, json_type_object))
		return pt_fail(err, name, 0, 0, -EINVAL, "JSON top level is not an object");
	if (!json_object_object_get_ex(root, "results", &res) ||
	    !json_object_is_type(res, json_type_object))
		return pt_fail(err, name, 0, 0, -EINVAL, "JSON has no \"results\" object");
	r = pt_result_new();
	if (!r)
		return pt_fail(err, name, 0, 0, -ENOMEM, "out of memory");
	r->json_form = form;
	if (json_object_object_get_ex(root, "test_info", &info) &&
	    json_object_is_type(info, json_type_object))
		rc = fill_info(r, info, name, err);
	if (!rc)
		rc = fill_row(r, res, unit, name, err);
	if (!rc)
		rc = pt_result_finish(r, name, 0, err);
	if (rc) {
		pt_result_free(r);
		return rc;
	}
	*out = r;
	return 0;
}
