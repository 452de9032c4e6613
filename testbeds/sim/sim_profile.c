/* SPDX-License-Identifier: MIT */
/*
 * sim_profile: read a simulator profile (YAML) into struct sim_profile.
 *
 * Shape: model, firmware, line_rate_gbps, then one mapping per part of the model: link and
 * timing (always on), and one per mechanism (steering, steering_cache, rule_capacity,
 * encap_contexts, rule_programming, qp_cache, uar, traffic_class, noise), each with an
 * `enabled` switch. Every key of an enabled mechanism is required; a disabled one may leave
 * its numbers out (they default to 0 and have no effect). Unknown keys, negative values and
 * missing keys are config errors with file:line:column and the key path (ycfg does that).
 * Assumes ycfg (yamlcfg/ycfg.h) for positions; the table below is the whole schema.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbeds/sim/sim_internal.h"
#include "yamlcfg/ycfg.h"

struct pfield {
	const char *key;
	size_t off;   /* offset of the double in struct sim_profile */
	double min, max;
	bool integer;
};

struct psection {
	const char *name;
	long on_off;  /* offset of the bool switch, or -1 for always-on sections */
	const struct pfield *fields;
};

#define F(sec, k, lo, hi, integ) { #k, offsetof(struct sim_profile, sec.k), lo, hi, integ }
#define BIG 1e12

static const struct pfield link_fields[] = {
	F(link, mtu, 256, 4096, true), F(link, max_mtu, 256, 4096, true),
	F(link, wire_overhead_bytes, 0, 1024, false), F(link, per_packet_ns, 0, BIG, false),
	F(link, per_message_ns, 0, BIG, false), F(link, ack_every_packets, 1, BIG, false),
	F(link, base_latency_us, 0, BIG, false), F(link, lat_per_kib_us, 0, BIG, false),
	F(link, read_extra_us, 0, BIG, false), F(link, p99_ratio, 1, 100, false),
	F(link, rx_overflow_drop, 0, 1, false), F(link, cnp_interval_us, 1e-3, BIG, false),
	F(link, software_gbps, 1e-6, BIG, false), F(link, software_latency_us, 0, BIG, false),
	{ NULL, 0, 0, 0, false } };
static const struct pfield timing_fields[] = {
	F(timing, setup_s, 0, BIG, false), F(timing, settle_s, 0, BIG, false),
	{ NULL, 0, 0, 0, false } };
static const struct pfield steer_fields[] = {
	F(steer, tx_probe_ns, 0, BIG, false), F(steer, rx_probe_ns, 0, BIG, false),
	F(steer, encap_probe_latency_us, 0, BIG, false),
	F(steer, decap_probe_latency_us, 0, BIG, false), { NULL, 0, 0, 0, false } };
static const struct pfield cache_fields[] = {
	F(cache, resident_masks, 0, BIG, true), F(cache, resident_rules, 0, BIG, true),
	F(cache, miss_probe_ns, 0, BIG, false), F(cache, miss_probe_latency_us, 0, BIG, false),
	F(cache, hard_capacity, 0, BIG, true), F(cache, recover_below, 0, BIG, true),
	{ NULL, 0, 0, 0, false } };
static const struct pfield capacity_fields[] = {
	F(capacity, max_rules, 0, BIG, true), F(capacity, max_masks, 0, BIG, true),
	{ NULL, 0, 0, 0, false } };
static const struct pfield encap_fields[] = {
	F(encap, capacity, 0, BIG, true), F(encap, deadline_s, 0, BIG, false),
	{ NULL, 0, 0, 0, false } };
static const struct pfield prog_fields[] = {
	F(prog, rules_per_s, 1e-6, BIG, false), F(prog, apply_overhead_s, 0, BIG, false),
	F(prog, churn_cost, 0, 1, false), { NULL, 0, 0, 0, false } };
static const struct pfield qpc_fields[] = {
	F(qpc, cache_kib, 0, BIG, false), F(qpc, qpc_bytes, 0, BIG, false),
	F(qpc, mtt_bytes, 0, BIG, false), F(qpc, base_miss, 0, 1, false),
	F(qpc, miss_ns, 0, BIG, false), { NULL, 0, 0, 0, false } };
static const struct pfield uar_fields[] = {
	F(uar, pages, 1, BIG, true), F(uar, doorbell_ns, 0, BIG, false),
	F(uar, contention, 0, BIG, false), { NULL, 0, 0, 0, false } };
static const struct pfield tclass_fields[] = {
	F(tclass, gain, 0, 1, false), F(tclass, queue_us_idle, 0, BIG, false),
	F(tclass, queue_us_loaded, 0, BIG, false), { NULL, 0, 0, 0, false } };
static const struct pfield noise_fields[] = {
	F(noise, cv, 0, 0.99, false), F(noise, outlier_p, 0, 1, false),
	F(noise, outlier_factor, 1, 1000, false), { NULL, 0, 0, 0, false } };

#define ON(sec) (long)offsetof(struct sim_profile, sec.on)
static const struct psection sections[] = {
	{ "link", -1, link_fields },
	{ "timing", -1, timing_fields },
	{ "steering", ON(steer), steer_fields },
	{ "steering_cache", ON(cache), cache_fields },
	{ "rule_capacity", ON(capacity), capacity_fields },
	{ "encap_contexts", ON(encap), encap_fields },
	{ "rule_programming", ON(prog), prog_fields },
	{ "qp_cache", ON(qpc), qpc_fields },
	{ "uar", ON(uar), uar_fields },
	{ "traffic_class", ON(tclass), tclass_fields },
	{ "noise", ON(noise), noise_fields },
	{ NULL, -1, NULL },
};

static int read_number(const struct ycfg_node *map, const struct pfield *f, bool required,
		       struct sim_profile *p, struct scn_error *err)
{
	double *dst = (double *)(void *)((char *)p + f->off);
	struct ycfg_node n;
	int64_t iv;
	int rc;

	if (ycfg_get(map, f->key, &n) != 0) {
		*dst = 0;
		return required ? ycfg_require(map, f->key, &n, err) : 0;
	}
	if (f->integer) {
		rc = ycfg_int(&n, (int64_t)f->min, (int64_t)f->max, &iv, err);
		*dst = (double)iv;
	} else {
		rc = ycfg_double(&n, f->min, f->max, dst, err);
	}
	return rc;
}

static int read_section(const struct ycfg_node *root, const struct psection *s,
			struct sim_profile *p, struct scn_error *err)
{
	const char *allowed[20];
	struct ycfg_node map, n;
	size_t k = 0;
	bool on = true;
	int rc;

	if ((rc = ycfg_require(root, s->name, &map, err)) < 0)
		return rc;
	if (s->on_off >= 0)
		allowed[k++] = "enabled";
	if (s->on_off == ON(steer))
		allowed[k++] = "shared_tree";
	for (const struct pfield *f = s->fields; f->key; f++)
		allowed[k++] = f->key;
	allowed[k] = NULL;
	if ((rc = ycfg_check_keys(&map, allowed, err)) < 0)
		return rc;
	if (s->on_off >= 0) {
		if ((rc = ycfg_require(&map, "enabled", &n, err)) < 0 ||
		    (rc = ycfg_bool(&n, &on, err)) < 0)
			return rc;
		*(bool *)(void *)((char *)p + s->on_off) = on;
	}
	for (const struct pfield *f = s->fields; f->key; f++)
		if ((rc = read_number(&map, f, on, p, err)) < 0)
			return rc;
	if (s->on_off == ON(steer))
		return ycfg_opt_bool(&map, "shared_tree", false, &p->steer.shared_tree, err);
	return 0;
}

static bool pow2(double v)
{
	unsigned u = (unsigned)v;

	return u && (u & (u - 1)) == 0;
}

/* Cross-field checks, reported at the offending key. */
static int check_profile(const struct ycfg_node *root, const struct sim_profile *p,
			 struct scn_error *err)
{
	struct ycfg_node sec, n;

	ycfg_get(root, "link", &sec);
	if (!pow2(p->link.mtu) || !pow2(p->link.max_mtu) || p->link.mtu > p->link.max_mtu) {
		ycfg_get(&sec, "mtu", &n);
		return ycfg_error(&n, err, "mtu %g and max_mtu %g must be powers of two with "
				  "mtu <= max_mtu", p->link.mtu, p->link.max_mtu);
	}
	if (p->cache.on && p->cache.recover_below > p->cache.hard_capacity) {
		ycfg_get(root, "steering_cache", &sec);
		ycfg_get(&sec, "recover_below", &n);
		return ycfg_error(&n, err, "recover_below (%g) must not exceed hard_capacity (%g)",
				  p->cache.recover_below, p->cache.hard_capacity);
	}
	return 0;
}

static int read_header(const struct ycfg_node *root, struct sim_profile *p,
		       struct scn_error *err)
{
	static const char *const top[] = { "model", "firmware", "line_rate_gbps", "link",
		"timing", "steering", "steering_cache", "rule_capacity", "encap_contexts",
		"rule_programming", "qp_cache", "uar", "traffic_class", "noise", NULL };
	const char *s;
	int rc;

	if ((rc = ycfg_check_keys(root, top, err)) < 0)
		return rc;
	if ((rc = ycfg_req_str(root, "model", &s, err)) < 0)
		return rc;
	snprintf(p->model, sizeof(p->model), "%s", s);
	if ((rc = ycfg_req_str(root, "firmware", &s, err)) < 0)
		return rc;
	snprintf(p->firmware, sizeof(p->firmware), "%s", s);
	return ycfg_req_double(root, "line_rate_gbps", 1e-3, 1e6, &p->line_rate_gbps, err);
}

/* FNV-1a over the file's bytes: the profile's part of the testbed identity. Read with the
 * loader's bounds (a regular file, YCFG_MAX_FILE_BYTES at most); 0 when it cannot be read. */
static uint64_t file_hash(const char *path)
{
	uint64_t h = 1469598103934665603ull;
	char *text = NULL;
	size_t len = 0;

	if (ycfg_read_file(path, YCFG_MAX_FILE_BYTES, &text, &len, NULL, 0) < 0)
		return 0;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint64_t)(unsigned char)text[i]) * 1099511628211ull;
	free(text);
	return h;
}

int sim_profile_load(const char *path, struct sim_profile *p, uint64_t *text_hash,
		     struct scn_error *err)
{
	struct ycfg_doc *doc = NULL;
	struct ycfg_node root;
	int rc;

	memset(p, 0, sizeof(*p));
	if ((rc = ycfg_load(path, &doc, err)) < 0)
		return rc;
	root = ycfg_root(doc);
	rc = read_header(&root, p, err);
	for (const struct psection *s = sections; rc == 0 && s->name; s++)
		rc = read_section(&root, s, p, err);
	if (rc == 0)
		rc = check_profile(&root, p, err);
	ycfg_free(doc);
	if (rc == 0 && text_hash)
		*text_hash = file_hash(path);
	return rc;
}
