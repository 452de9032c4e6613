/* SPDX-License-Identifier: MIT */
/*
 * tb: the testbed dispatcher (tb.h). tb_open reads the testbed file's `kind:` and hands the
 * file to that backend's open; the other calls go through the ops table every backend's
 * struct tb starts with. Also the sample helpers and status names. Assumes backends fill
 * struct scn_error themselves; the dispatcher only adds errors of its own.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testbeds/perftest/tb_perftest.h"
#include "testbeds/sim/tb_sim.h"
#include "testbeds/tb.h"
#include "yamlcfg/ycfg.h"

static const char *const status_names[TB_STATUS_COUNT] = {
	"ok", "timeout", "completion_error", "apply_failed", "unusable",
};

const char *tb_status_name(enum tb_status s)
{
	return (unsigned)s < TB_STATUS_COUNT ? status_names[s] : "unknown";
}

int tb_status_parse(const char *s, enum tb_status *out)
{
	for (unsigned i = 0; s && i < TB_STATUS_COUNT; i++)
		if (strcmp(s, status_names[i]) == 0) {
			*out = (enum tb_status)i;
			return 0;
		}
	return -EINVAL;
}

double tb_sample_counter(const struct tb_sample *s, const char *name)
{
	for (unsigned i = 0; s && name && i < s->n_counters && i < TB_MAX_COUNTERS; i++)
		if (strcmp(s->counters[i].name, name) == 0)
			return s->counters[i].value;
	return NAN;
}

int tb_sample_add_counter(struct tb_sample *s, const char *name, double value)
{
	if (!s || !name || strlen(name) >= sizeof(s->counters[0].name))
		return -EINVAL;
	for (unsigned i = 0; i < s->n_counters; i++)
		if (strcmp(s->counters[i].name, name) == 0) {
			s->counters[i].value = value;
			return 0;
		}
	if (s->n_counters >= TB_MAX_COUNTERS)
		return -ENOSPC;
	snprintf(s->counters[s->n_counters].name, sizeof(s->counters[0].name), "%s", name);
	s->counters[s->n_counters++].value = value;
	return 0;
}

static bool usable_other(double v)
{
	return isnan(v) || (isfinite(v) && v >= 0);
}

bool tb_sample_judge(struct tb_sample *s, enum gen_metric metric, const char *evidence)
{
	double main = metric == GEN_METRIC_LAT ? s->lat_median_us : s->bw_gbps;

	if (s->status != TB_OK)
		return false;
	if (isfinite(main) && main > 0 && usable_other(s->bw_gbps) &&
	    usable_other(s->msg_rate_mpps) && usable_other(s->lat_median_us) &&
	    usable_other(s->lat_p99_us))
		return false;
	s->status = TB_UNUSABLE;
	s->bw_gbps = s->msg_rate_mpps = s->lat_median_us = s->lat_p99_us = NAN;
	if (evidence)
		snprintf(s->evidence, sizeof(s->evidence), "%s", evidence);
	return true;
}

/* Backends built into this version, and kinds known but not built. */
static const struct tb_ops *const backends[] = { &tb_sim_ops, &tb_perftest_ops, &tb_slurm_ops,
						 &tb_kube_ops };
static const char *const not_built[] = { "vm" };

static int read_kind(const char *path, char *kind, size_t len, struct scn_error *err)
{
	struct ycfg_doc *doc = NULL;
	struct ycfg_node root, n;
	const char *s;
	int rc;

	if ((rc = ycfg_load(path, &doc, err)) < 0)
		return rc;
	root = ycfg_root(doc);
	if ((rc = ycfg_require(&root, "kind", &n, err)) < 0 || (rc = ycfg_str(&n, &s, err)) < 0)
		goto out;
	snprintf(kind, len, "%s", s);
	for (size_t i = 0; i < sizeof(not_built) / sizeof(not_built[0]); i++)
		if (strcmp(s, not_built[i]) == 0) {
			rc = ycfg_error(&n, err, "testbed kind '%s' is not built yet in this "
					"version", s);
			goto out;
		}
	rc = -ENOENT;
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(s, backends[i]->kind) == 0)
			rc = 0;
	if (rc)
		rc = ycfg_error(&n, err, "unknown testbed kind '%s' (known: sim, perftest, slurm, kubernetes; not "
				"built yet: vm)", s);
out:
	ycfg_free(doc);
	return rc;
}

int tb_kind_ops(const char *path, const struct tb_ops **ops, struct scn_error *err)
{
	char kind[64];
	int rc = read_kind(path, kind, sizeof(kind), err);

	*ops = NULL;
	for (size_t i = 0; rc == 0 && i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(kind, backends[i]->kind) == 0)
			*ops = backends[i];
	return rc;
}

int tb_open(const char *path, struct tb **out, struct scn_error *err)
{
	return tb_open_opts(path, NULL, out, err);
}

int tb_open_opts(const char *path, const struct tb_open_opts *o, struct tb **out,
		 struct scn_error *err)
{
	char kind[64];
	int rc;

	if (!out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "tb_open: no output");
	*out = NULL;
	if ((rc = read_kind(path, kind, sizeof(kind), err)) < 0)
		return rc;
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		const struct tb_ops *ops = backends[i];

		if (strcmp(kind, ops->kind) != 0)
			continue;
		if (o && ops->open_opts)
			return ops->open_opts(path, o, out, err);
		if (o && o->dry_run)
			return scn_error_set(err, SCN_ERR_CONFIG, -ENOTSUP, "%s: testbed kind '%s' "
					     "has no dry run", path, kind);
		return ops->open(path, out, err);
	}
	return scn_error_set(err, SCN_ERR_INTERNAL, -ENOENT, "testbed kind '%s' vanished", kind);
}

int tb_describe(struct tb *tb, struct tb_description *d, struct scn_error *err)
{
	if (!tb || !d)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "tb_describe: NULL argument");
	return tb->ops->describe(tb, d, err);
}

int tb_apply(struct tb *tb, const struct gen_rules *rules, struct scn_error *err)
{
	if (!tb)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "tb_apply: no testbed");
	return tb->ops->apply(tb, rules, err);
}

int tb_measure(struct tb *tb, const struct gen_traffic *t, uint64_t seed, struct tb_sample *out,
	       struct scn_error *err)
{
	if (!tb || !t || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "tb_measure: NULL argument");
	out->evidence_json[0] = '\0'; /* a backend that shows none leaves it so */
	return tb->ops->measure(tb, t, seed, out, err);
}

void tb_close(struct tb *tb)
{
	if (tb)
		tb->ops->close(tb);
}
