/* SPDX-License-Identifier: MIT */
/*
 * agent: a minimal production agent built only against the installed libscalacn-opt
 * (pkg-config scalacn-opt; see Makefile). It shows the whole loop an agent runs:
 *
 *   load the RNIC's model file (written by `scalacn export --rnic MODEL -o FILE`)
 *   -> mirror the offloaded rules into an opt_table
 *   -> every second: feed the counter deltas read from the NIC, tick, render the plan as a
 *      tc batch (what the agent would pipe to `tc -batch -`), apply the plan to the table.
 *
 * Here the NIC is imaginary: RULES flows over MASKS masks with Zipf(1) popularity, counters
 * made up from a seed. The table is this host's (SIDE client, the default, or server): the
 * model's inputs are fed by name: its input of this side ("client.masks", or e.g.
 * "server.decap_masks") gets the table's masks, "flows" its rules, the other side's masks a
 * fixed 1. Usage: agent MODEL_FILE [RNIC] [SECONDS] [VERB] [SIDE]. With SCALACN_MODEL_KEY set
 * to a public key file (`scalacn keygen`), only a model file signed with its secret key
 * (`scalacn export --sign KEY`) is loaded (opt_model_load_signed). Prints one line per tick
 * and the first plan's tc batch; exits 0 when the optimiser cut the mean masks probed per
 * packet, 1 otherwise, 2 on errors (with the reason on stderr).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scalacn-opt.h>

#define RULES 2000
#define MASKS 16
#define PPS 1000000.0

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Rule I: in_port + ip_dst/32 (distinct) + optional fields from the bits of its mask. */
static void make_rule(uint32_t i, uint64_t *s, struct opt_rule *r, struct opt_pkt *p)
{
	static const enum opt_field opt[4] = { OPT_F_ETH_TYPE, OPT_F_IP_PROTO, OPT_F_L4_DST,
					       OPT_F_TUN_ID };
	uint32_t m = (uint32_t)(rng(s) % MASKS);

	memset(r, 0, sizeof(*r));
	r->id = i + 1;
	r->priority = 10;
	r->action = i;
	r->mask.fields = 1u << OPT_F_IN_PORT | 1u << OPT_F_IP_DST;
	r->mask.plen[OPT_F_IP_DST] = 32;
	for (int b = 0; b < 4; b++)
		if (m & (1u << b))
			r->mask.fields |= 1u << opt[b];
	for (int f = 0; f < OPT_F_COUNT; f++)
		p->v[f] = opt_field_is_ip((enum opt_field)f) ? rng(s) & 0xffffffffu : rng(s) & 0xffff;
	p->v[OPT_F_ETH_TYPE] = 0x0800;
	p->v[OPT_F_IP_PROTO] = 17;         /* RoCEv2: UDP to 4791 */
	p->v[OPT_F_L4_DST] = 4791;
	p->v[OPT_F_TUN_ID] = 1000 + i % 16; /* VXLAN VNI of the tenant */
	p->v[OPT_F_TUN_DPORT] = 4789;
	p->v[OPT_F_IP_DST] = 0x0a000000u + i;
	memcpy(r->v, p->v, sizeof(r->v));
}

/* Mean masks probed per packet under the table's current layout. */
static double mean_probes(struct opt_table *t, const struct opt_pkt *pkts, const double *w)
{
	double sum = 0;

	for (uint32_t i = 0; i < RULES; i++) {
		uint32_t id = 0, probes = 0;

		if (opt_table_classify(t, &pkts[i], &id, &probes) == 0)
			sum += w[i] * probes;
	}
	return sum;
}

static int run(struct opt_table *t, const struct opt_model *model, unsigned seconds,
	       const struct opt_pkt *pkts, const double *w)
{
	for (unsigned now = 1; now <= seconds; now++) {
		struct opt_plan *plan = NULL;
		struct opt_plan_info info;

		for (uint32_t i = 0; i < RULES; i++) /* counter deltas read from the NIC */
			opt_table_record_flow(t, i + 1, &pkts[i], (uint64_t)(PPS * w[i]), now);
		int rc = opt_table_tick(t, now, model, &plan);

		if (rc < 0) {
			fprintf(stderr, "agent: tick %u failed: %s\n", now, strerror(-rc));
			return -1;
		}
		opt_plan_info(plan, &info);
		printf("tick %2u: predicted degradation %5.1f%% at %u masks, %zu ops, cost %u, "
		       "deferred %u\n", now, 100 * info.degradation, info.masks,
		       opt_plan_count(plan), info.cost, info.deferred);
		if (now == 1 && opt_plan_count(plan) > 0) {
			printf("--- tc batch of tick 1 (first 8 lines) ---\n");
			{
				char *buf = NULL;
				size_t len = 0, lines = 0;
				FILE *mem = open_memstream(&buf, &len);

				if (mem && opt_plan_render_tc(plan, t, "pf0vf0_rep", mem) == 0) {
					fclose(mem);
					for (char *p = buf; p && *p && lines < 8; p++) {
						putchar(*p);
						lines += *p == '\n';
					}
				} else if (mem) {
					fclose(mem);
				}
				free(buf);
			}
			printf("---\n");
		}
		if (opt_plan_apply(t, plan) < 0) {
			opt_plan_free(plan);
			return -1;
		}
		opt_plan_free(plan);
	}
	return 0;
}

/* The table's config for MODEL: VERB's bandwidth model, its inputs fed by name for a table
 * of SIDE ("client" or "server"). */
static int configure(const struct opt_model *model, const char *verb, const char *side,
		     struct opt_config *c, char *err, size_t errlen)
{
	const char *other = strcmp(side, "server") ? "server" : "client";
	const char *x = "", *y = "";
	struct opt_table *t = NULL;
	char name[64];
	int rc;

	opt_config_default(c);
	snprintf(c->verb, sizeof(c->verb), "%s", verb);
	if (opt_model_inputs(model, c->verb, c->metric, &x, &y) == 0) {
		snprintf(name, sizeof(name), "%s.", side);
		snprintf(c->masks_input, sizeof(c->masks_input), "%s",
			 !strncmp(x, name, strlen(name)) ? x :
			 !strncmp(y, name, strlen(name)) ? y : strcat(name, "masks"));
		snprintf(c->flows_input, sizeof(c->flows_input), "flows");
		snprintf(name, sizeof(name), "%s.masks", other);
		opt_config_set_input(c, name, 1);
		snprintf(name, sizeof(name), "%s.encap_masks", other);
		opt_config_set_input(c, name, 1);
		snprintf(name, sizeof(name), "%s.decap_masks", other);
		opt_config_set_input(c, name, 0);
	}
	rc = opt_table_new(c, &t);
	if (rc == 0)
		rc = opt_table_check_model(t, model, err, errlen);
	else
		snprintf(err, errlen, "bad table configuration");
	opt_table_free(t);
	return rc;
}

int main(int argc, char **argv)
{
	struct opt_pkt *pkts = calloc(RULES, sizeof(*pkts));
	double *w = calloc(RULES, sizeof(*w)), h = 0, before, after;
	unsigned seconds = argc > 3 ? (unsigned)atoi(argv[3]) : 10;
	struct opt_model *model = NULL;
	struct opt_table *t = NULL;
	struct opt_config cfg;
	struct opt_table_stats st;
	uint64_t s = 1;
	const char *key;
	char err[512];
	int rc = 2;

	if (argc < 2 || !pkts || !w) {
		fprintf(stderr, "usage: agent MODEL_FILE [RNIC] [SECONDS] [VERB] [SIDE]\n");
		goto out;
	}
	key = getenv("SCALACN_MODEL_KEY");
	if ((key && *key ? opt_model_load_signed(argv[1], argc > 2 ? argv[2] : NULL, key, &model,
						 err, sizeof(err))
			 : opt_model_load(argv[1], argc > 2 ? argv[2] : NULL, &model, err,
					  sizeof(err))) < 0) {
		fprintf(stderr, "agent: %s: %s\n", argv[1], err);
		goto out;
	}
	if (configure(model, argc > 4 ? argv[4] : "write", argc > 5 ? argv[5] : "client", &cfg,
		      err, sizeof(err)) < 0) {
		fprintf(stderr, "agent: %s: %s\n", argv[1], err);
		goto out;
	}
	if (opt_table_new(&cfg, &t) < 0)
		goto out;
	for (uint32_t i = 0; i < RULES; i++)
		h += 1.0 / (i + 1);
	for (uint32_t i = 0; i < RULES; i++) {
		struct opt_rule r;

		make_rule(i, &s, &r, &pkts[i]);
		w[i] = 1.0 / ((i + 1) * h);
		if (opt_table_add_rule(t, &r, 0) < 0)
			goto out;
	}
	before = mean_probes(t, pkts, w);
	if (run(t, model, seconds, pkts, w) < 0)
		goto out;
	after = mean_probes(t, pkts, w);
	opt_table_stats(t, &st);
	printf("mean masks probed per packet: %.2f -> %.2f; %u rules, %u masks, %u hyper "
	       "entries, %.0f bytes per rule\n", before, after, st.rules, st.masks,
	       st.hyper_entries, (double)st.bytes / st.rules);
	rc = after < before ? 0 : 1;
out:
	opt_table_free(t);
	opt_model_free(model);
	free(pkts);
	free(w);
	return rc;
}
