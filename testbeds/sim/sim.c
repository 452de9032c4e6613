/* SPDX-License-Identifier: MIT */
/*
 * sim: the simulated testbed's ops table (tb_sim.h): open a testbed file of kind sim, load
 * its profile, and run apply / measure through sim_rules, sim_model and sim_sample.
 *
 * A bare profile name ("cx6": no slash, no .yaml) is looked up in SCALACN_PROFILE_DIR (the
 * source tree's testbeds/sim/profiles, set by meson); anything else is a path relative to
 * the testbed file. describe() shows only what a real testbed would: model, firmware, line
 * rate and counter names; the profile's parameters stay in struct tb_sim.
 *
 * `pace: F` in the testbed file makes measure() sleep F real seconds per testbed-second a
 * trial costs, so a simulated campaign takes real time (demos, rehearsing a long campaign,
 * interrupting one in tests). `delay_s: D` adds D real seconds to every trial (a testbed's
 * fixed per-trial overhead, for the pooling benchmark). `slots: K` makes the file a pool of
 * K identical simulated pairs (tb_pool.h), one trial at a time each. None of the three
 * changes a number or is part of the identity.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testbeds/sim/sim_internal.h"
#include "testbeds/sim/tb_sim.h"
#include "testbeds/tb_pool.h"
#include "yamlcfg/ycfg.h"

#ifndef SCALACN_PROFILE_DIR
#define SCALACN_PROFILE_DIR "testbeds/sim/profiles"
#endif

static struct tb_sim *sim_of(struct tb *tb)
{
	return (struct tb_sim *)(void *)tb;
}

static int profile_path(const struct ycfg_node *n, const char *name, char *buf, size_t len,
			struct scn_error *err)
{
	if (!strchr(name, '/') && !strstr(name, ".yaml") && !strstr(name, ".yml"))
		snprintf(buf, len, "%s/%s.yaml", SCALACN_PROFILE_DIR, name);
	else
		ycfg_resolve_path(n, name, buf, len);
	if (access(buf, R_OK) != 0)
		return ycfg_error(n, err, "profile '%s' not found (looked for %s)", name, buf);
	return 0;
}

/* What a sim testbed file says (read_testbed). */
struct sim_file {
	char prof[1024], name[64];
	double pace, delay_s;
	unsigned slots;
};

static int read_timing(const struct ycfg_node *root, struct sim_file *f, struct scn_error *err)
{
	int64_t slots = 1;
	int rc = ycfg_opt_double(root, "pace", 0.0, 1.0, 0.0, &f->pace, err);

	if (rc == 0)
		rc = ycfg_opt_double(root, "delay_s", 0.0, 60.0, 0.0, &f->delay_s, err);
	if (rc == 0)
		rc = ycfg_opt_int(root, "slots", 1, TB_POOL_MAX, 1, &slots, err);
	f->slots = (unsigned)slots;
	return rc;
}

/* Read the testbed file: kind, profile, name, pace, delay_s, slots. */
static int read_testbed(const char *path, struct sim_file *f, struct scn_error *err)
{
	static const char *const keys[] = { "kind", "profile", "name", "description", "pace",
					    "delay_s", "slots", NULL };
	struct ycfg_doc *doc = NULL;
	struct ycfg_node root, n;
	const char *s;
	int rc;

	memset(f, 0, sizeof(*f));
	if ((rc = ycfg_load(path, &doc, err)) < 0)
		return rc;
	root = ycfg_root(doc);
	if ((rc = ycfg_check_keys(&root, keys, err)) < 0 ||
	    (rc = ycfg_req_str(&root, "kind", &s, err)) < 0)
		goto out;
	if (strcmp(s, "sim") != 0) {
		ycfg_get(&root, "kind", &n);
		rc = ycfg_error(&n, err, "kind '%s' is not 'sim'", s);
		goto out;
	}
	if ((rc = ycfg_require(&root, "profile", &n, err)) < 0 ||
	    (rc = ycfg_str(&n, &s, err)) < 0 ||
	    (rc = profile_path(&n, s, f->prof, sizeof(f->prof), err)) < 0)
		goto out;
	rc = ycfg_opt_str(&root, "name", "", &s, err);
	if (rc == 0)
		snprintf(f->name, sizeof(f->name), "%s", s);
	if (rc == 0)
		rc = read_timing(&root, f, err);
out:
	ycfg_free(doc);
	return rc;
}

/* One simulated RNIC pair of the file F. */
static int sim_new(const struct sim_file *f, struct tb **out, struct scn_error *err)
{
	uint64_t hash = 0;
	struct tb_sim *s;
	int rc;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "sim: out of memory");
	s->base.ops = &tb_sim_ops;
	sim_memo_init(&s->memo, SIM_MEMO_DEFAULT_BYTES);
	s->pace = f->pace;
	s->delay_s = f->delay_s;
	if ((rc = sim_profile_load(f->prof, &s->prof, &hash, err)) < 0) {
		free(s);
		return rc;
	}
	snprintf(s->identity, sizeof(s->identity), "sim:%s%s%s:%016llx", s->prof.model,
		 f->name[0] ? ":" : "", f->name, (unsigned long long)hash);
	*out = &s->base;
	return 0;
}

static int sim_open(const char *path, struct tb **out, struct scn_error *err)
{
	struct sim_file f;
	int rc;

	*out = NULL;
	if ((rc = read_testbed(path, &f, err)) < 0)
		return rc;
	return sim_new(&f, out, err);
}

/* `slots: K`: K identical simulated pairs, one testbed (the same identity). */
static int sim_open_slots(const char *path, const struct tb_open_opts *o, struct tb **out,
			  unsigned max, unsigned *n, struct scn_error *err)
{
	struct sim_file f;
	int rc;

	(void)o;
	*n = 0;
	if ((rc = read_testbed(path, &f, err)) < 0)
		return rc;
	while (rc == 0 && *n < f.slots && *n < max)
		if ((rc = sim_new(&f, &out[*n], err)) == 0)
			(*n)++;
	return rc;
}

static int sim_describe(struct tb *tb, struct tb_description *d, struct scn_error *err)
{
	const struct tb_sim *s = sim_of(tb);
	const char *const *names;
	unsigned n = sim_counter_names(&names);

	(void)err;
	memset(d, 0, sizeof(*d));
	snprintf(d->kind, sizeof(d->kind), "sim");
	snprintf(d->rnic_model, sizeof(d->rnic_model), "%s", s->prof.model);
	snprintf(d->firmware, sizeof(d->firmware), "%s", s->prof.firmware);
	snprintf(d->identity, sizeof(d->identity), "%s", s->identity);
	d->line_rate_gbps = s->prof.line_rate_gbps;
	for (unsigned i = 0; i < n && i < TB_MAX_COUNTERS; i++)
		snprintf(d->counter_names[d->n_counter_names++], sizeof(d->counter_names[0]),
			 "%s", names[i]);
	return 0;
}

static int sim_apply(struct tb *tb, const struct gen_rules *rules, struct scn_error *err)
{
	return sim_rules_apply(sim_of(tb), rules, err);
}

static void pace_sleep(double seconds)
{
	struct timespec ts = { .tv_sec = (time_t)seconds,
			       .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9) };

	if (seconds > 0)
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
}

static int sim_measure(struct tb *tb, const struct gen_traffic *t, uint64_t seed,
		       struct tb_sample *out, struct scn_error *err)
{
	struct tb_sim *s = sim_of(tb);
	struct sim_perf perf;

	if (!t || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "sim: measure without "
				     "traffic or sample");
	if (sim_rules_aggregate(s, t) < 0)
		return scn_error_set(err, SCN_ERR_INTERNAL, -ENOMEM, "sim: out of memory");
	sim_model_run(s, t, &perf);
	sim_sample_fill(s, t, seed, &perf, out);
	out->cost_s += s->pending_cost_s;
	s->pending_cost_s = 0;
	pace_sleep(s->pace * out->cost_s + s->delay_s);
	return 0;
}

static void sim_close(struct tb *tb)
{
	struct tb_sim *s;

	if (!tb)
		return;
	s = sim_of(tb);
	sim_rules_release(s);
	free(s);
}

const struct tb_ops tb_sim_ops = {
	.kind = "sim",
	.open = sim_open,
	.describe = sim_describe,
	.apply = sim_apply,
	.measure = sim_measure,
	.close = sim_close,
	.open_slots = sim_open_slots,
};

long tb_sim_test_probes(const struct tb *tb, enum gen_host h, enum gen_dir d, uint32_t flow)
{
	const struct tb_sim *s = (const struct tb_sim *)(const void *)tb;

	if (!tb || tb->ops != &tb_sim_ops || (unsigned)h >= GEN_HOSTS ||
	    (unsigned)d >= GEN_DIRS || flow >= s->n_flows)
		return -1;
	return (long)s->host[h].probes[d][flow];
}
