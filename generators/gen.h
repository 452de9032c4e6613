/* SPDX-License-Identifier: MIT */
/*
 * generators: from a point (architecture model + dimension levels + seed) to the concrete
 * rule sets of the two hosts and the traffic spec of one trial.
 *
 * The testbed is two hosts, client and server, one RNIC each. The client sends (its VFs'
 * traffic is encapsulated toward the server's VTEP); the server receives (decap, then forward
 * to its VFs). Containers sit in k tenant subnets (VNI = 1000 + subnet) with n per subnet per
 * host. Each host carries encap rules (send path, matched on traffic from its VFs) and decap
 * rules (receive path, matched on VXLAN from the uplink), spread over the requested number of
 * distinct mask shapes per side (masks.{client,server}.{encap,decap}). Flows are container
 * pairs within a subnet; a flow has one encap rule on the client and one decap rule on the
 * server (and the reverse pair for the return direction of reads and acks).
 *
 * Every generator is deterministic for a seed (randomness from the seed passed in only).
 */
#ifndef GEN_H
#define GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/scn_error.h"
#include "topology/topo.h"
#include "topology/topo_enum.h"

enum gen_host { GEN_CLIENT = 0, GEN_SERVER = 1, GEN_HOSTS = 2 };
enum gen_dir { GEN_ENCAP = 0, GEN_DECAP = 1, GEN_DIRS = 2 };
enum gen_popularity { GEN_POP_UNIFORM = 0, GEN_POP_ZIPF };
enum gen_metric { GEN_METRIC_BW = 0, GEN_METRIC_LAT };

/* Every dimension level of a point. Invariants: masks[h][d] <= flows (a mask shape holds at
 * least one rule) unless flows == 0; masks[h][d] == 0 means no rules of that kind. */
struct gen_levels {
	uint32_t masks[GEN_HOSTS][GEN_DIRS]; /* matching masks per host and direction */
	uint32_t flows;          /* offloaded flows (container pairs) */
	uint32_t subnets;        /* tenant subnets k */
	uint32_t encap_contexts; /* distinct VXLAN encap contexts on the sender (0 = one per flow) */
	uint32_t rule_churn;     /* rule updates per second during traffic (0 = static) */
	enum topo_verb verb;
	uint32_t msg_size;       /* bytes */
	uint32_t qps;            /* active queue pairs */
	uint32_t tx_depth;
	uint32_t mtu;            /* 256..4096 */
	uint32_t page_size;      /* bytes of the memory registration's pages (4096, 2 MiB) */
	uint32_t traffic_class;  /* 0..7 */
	uint32_t uar_spread;     /* QPs per UAR page (1 = balanced, high = crowded) */
	uint32_t cores;          /* cores posting work */
	enum gen_popularity popularity;
	double zipf_s;           /* Zipf parameter when popularity == zipf */
	enum gen_metric metric;  /* bw (bandwidth test) or lat (latency test) */
	uint32_t iterations;     /* perftest -n; 0 = use duration */
	double duration_s;       /* perftest -D */
	/* Which of the point's rule layouts (gen_layout.c): 0 = the seed's flow order, k > 0
	 * that order rotated by gen_layout_shift (not a dimension: a replicate of the point,
	 * part of its key when not 0). Shapes the rules only, never the traffic. */
	uint32_t layout;
};

/* The neutral point: every component removed or at its least demanding level. */
void gen_levels_neutral(struct gen_levels *l);

/* The smallest flow count at which L's masks and encap contexts can be built (each needs a
 * flow of its own). gen_levels_repair raises L's flows to it when L asks for fewer (and for
 * some flows at all) and says whether it changed L: the repair `run` makes before measuring a
 * point and `measure` makes unless told not to. */
uint32_t gen_levels_flows_needed(const struct gen_levels *l);
bool gen_levels_repair(struct gen_levels *l);
/* 0 when gen_rules_build can build L's rule sets (subnets and flows in range, masks within
 * the shapes available and no more than the flows, encap contexts no more than the flows);
 * otherwise -EINVAL with ERR (class config) saying "DIMENSION: ...". */
int gen_levels_check(const struct gen_levels *l, struct scn_error *err);

/* What one trial drives (what perftest would be told). */
struct gen_traffic {
	enum topo_verb verb;
	enum gen_metric metric;
	uint32_t msg_size, qps, tx_depth, mtu, page_size, traffic_class, uar_spread, cores;
	uint32_t iterations;
	double duration_s;
	enum gen_popularity popularity;
	double zipf_s;
	uint32_t flows;      /* flows the traffic is spread over */
	uint32_t rule_churn; /* rule updates per second while traffic runs */
};

/* The two hosts' rule sets of a point. Reference counted: the caller owns one reference and
 * drops it with gen_rules_free (NULL ok); gen_rules_ref takes another. A gen_rules from
 * gen_rules_cache_get may share its host rule sets with other gen_rules (and threads): treat
 * it as read-only. One from gen_rules_build shares nothing. */
struct gen_rules {
	struct topo_ruleset *host[GEN_HOSTS];
	uint32_t flows;
	uint32_t subnets;
	uint32_t encap_contexts; /* distinct encap contexts programmed on the client */
};
void gen_rules_free(struct gen_rules *r);
struct gen_rules *gen_rules_ref(struct gen_rules *r); /* returns R */
/* Content id of host H's rule set: nonzero when it is a cache part (immutable; every rule set
 * with the same id has the same content, so a testbed that analysed it once may keep that
 * analysis), 0 when no such promise is made (a plain build its owner may still change). */
uint64_t gen_rules_host_id(const struct gen_rules *r, enum gen_host h);

/* Build the rule sets for MODEL (NULL = the default two-stage model: root table with encap
 * and decap) at levels L with SEED. Errors (class config): impossible levels (more masks
 * than flows, masks beyond the available distinct shapes, ...). */
int gen_rules_build(const struct topo_model *model, const struct topo_space *space,
		    const struct gen_levels *l, uint64_t seed, struct gen_rules **out,
		    struct scn_error *err);

/* ---- Rule-set reuse --------------------------------------------------------------------
 * A cache of built parts keyed by content: a flow table by (flows, subnets, encap_contexts,
 * seed), a host's rule set by that and the host's two mask levels (a host's rules depend on
 * nothing else). gen_rules_cache_get returns what gen_rules_build would for the default model
 * (rule for rule, port for port), built only from the parts it does not hold yet: a point that
 * changes one host's masks rebuilds that host only, a point seen before builds nothing. Parts
 * are immutable once built; the cache is safe to share between threads (one lock around its
 * table, builds outside it). It holds at most MAX_BYTES of parts (least recently used ones
 * are dropped first; a part still held by a gen_rules lives until that is freed). */
struct gen_rules_cache;
#define GEN_RULES_CACHE_DEFAULT_BYTES ((size_t)64 << 20)
/* MAX_BYTES 0 = GEN_RULES_CACHE_DEFAULT_BYTES. NULL on out of memory. */
struct gen_rules_cache *gen_rules_cache_new(size_t max_bytes);
void gen_rules_cache_free(struct gen_rules_cache *c); /* NULL ok; held gen_rules stay valid */
/* gen_rules_build through cache C. MODEL or SPACE not NULL, or C NULL: a plain build. */
int gen_rules_cache_get(struct gen_rules_cache *c, const struct topo_model *model,
			const struct topo_space *space, const struct gen_levels *l,
			uint64_t seed, struct gen_rules **out, struct scn_error *err);
struct gen_rules_cache_stats {
	unsigned long gets;       /* gen_rules_cache_get calls through the cache */
	unsigned long part_hits;  /* parts found (flow tables and hosts) */
	unsigned long part_builds; /* parts built */
	unsigned long evictions;
	size_t bytes, max_bytes;  /* held now, limit */
};
void gen_rules_cache_stats(struct gen_rules_cache *c, struct gen_rules_cache_stats *out);

/* The traffic spec of levels L. */
void gen_traffic_from_levels(const struct gen_levels *l, struct gen_traffic *t);

/* Flow popularity: probability of flow i (0-based) of N under the traffic's popularity.
 * Sums to 1 over i. */
double gen_flow_weight(const struct gen_traffic *t, uint32_t i, uint32_t n);

/* ---- Dimensions ------------------------------------------------------------------------ */

enum gen_dim_kind { GEN_DIM_ORDERED = 0, GEN_DIM_CATEGORICAL };

struct gen_dimension {
	const char *name;        /* "client.decap_masks", "flows", "verb", "msg_size", ... */
	enum gen_dim_kind kind;
	const char *unit;        /* "masks", "bytes", "" */
	const char *help;        /* one line */
	double neutral;          /* level that stands for "component removed" */
	const double *levels;    /* default levels (ordered ascending) */
	unsigned n_levels;
	const char *const *names; /* categorical: names of the levels 0..n-1, else NULL */
};

/* All dimensions, in a stable order. */
unsigned gen_dimension_count(void);
const struct gen_dimension *gen_dimension_at(unsigned i);
const struct gen_dimension *gen_dimension_find(const char *name);
/* Set dimension D to LEVEL in L (categorical: level = index). -EINVAL when out of range. */
int gen_levels_set(struct gen_levels *l, const struct gen_dimension *d, double level,
		   struct scn_error *err);
double gen_levels_get(const struct gen_levels *l, const struct gen_dimension *d);
/* Parse "name=value" (value may be a categorical name, "8K", "2M") and apply it. */
int gen_levels_assign(struct gen_levels *l, const char *assignment, struct scn_error *err);

/* ---- Rule layouts (gen_layout.c) -------------------------------------------------------- */
/* The k-th point of the base-2 van der Corput sequence in [0, 1): 0, 1/2, 1/4, 3/4, 1/8, ... */
double gen_layout_point(uint32_t layout);
/* How many places layout LAYOUT moves each flow of a side with FLOWS flows along the
 * shape-major order of its places: gen_layout_point(LAYOUT) * FLOWS (0 for layout 0). */
uint32_t gen_layout_shift(uint32_t layout, uint32_t flows);

/* ---- Experimental designs --------------------------------------------------------------- */

/* Geometric sweep from LO to HI (inclusive) with ratio R (> 1), rounded to integers, unique.
 * Writes up to MAX levels; returns how many there are in total. */
unsigned gen_sweep_geometric(double lo, double hi, double r, double *out, unsigned max);

/* The deterministic PRNG of every seeded choice in scalacn: GSL's taus2 generator and GSL's
 * distributions (gen_rng.c). The generator's state is held in place, so a gen_rng needs no
 * allocation and copies by value; same seed, same stream on every platform. */
struct gen_rng { unsigned long state[4]; };
/* Its name, stored with each campaign (results' campaigns.rng): a layout can be rebuilt from
 * its seed only by the generator that drew it. */
#define GEN_RNG_NAME "gsl-taus2"
void gen_rng_seed(struct gen_rng *r, uint64_t seed);
uint64_t gen_rng_next(struct gen_rng *r);              /* 64 uniform bits */
double gen_rng_uniform(struct gen_rng *r);             /* [0, 1) */
double gen_rng_normal(struct gen_rng *r);              /* N(0, 1) */
uint32_t gen_rng_below(struct gen_rng *r, uint32_t n); /* uniform in [0, n); 0 when n is 0 */
/* Poisson(MEAN), 0 when MEAN <= 0; above 1e9 (beyond GSL's unsigned int) the normal it tends
 * to, whose relative skew there is under 3e-5. */
uint64_t gen_rng_poisson(struct gen_rng *r, double mean);
double gen_rng_exponential(struct gen_rng *r, double mean);
void gen_rng_shuffle(struct gen_rng *r, void *base, size_t n, size_t size); /* in place */
uint64_t gen_hash64(const void *data, size_t len, uint64_t seed); /* stable, for keys */

#endif
