/* SPDX-License-Identifier: MIT */
/*
 * ag_filter: one tc flower filter as scalacn-agent sees it (read from `tc -s -j filter show`,
 * ag_tc_parse.c), with what the agent needs to move it (its match and action arguments,
 * re-rendered by ag_render.c), to model it (an opt_rule for libscalacn-opt) and to check
 * forwarding (its action identity). Actions are referred to by kind and index: a filter
 * re-added at another prio binds the SAME action instances (tc keeps them, and their
 * counters, while any filter is bound), so moving a filter never rebuilds an action.
 */
#ifndef AG_FILTER_H
#define AG_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <scalacn-opt.h>

#define AG_ARGS_MAX 512

struct ag_filter {
	uint16_t pref;             /* tc prio */
	uint32_t handle;
	char proto[16];            /* tc protocol: "ip", "all", ... */
	char match[AG_ARGS_MAX];   /* flower match arguments, e.g. "dst_ip 10.0.0.2 skip_hw" */
	char actions[AG_ARGS_MAX]; /* "action gact pass index 3 action mirred ... index 4" */
	char action_id[128];       /* identity of the action list: "gact/3 mirred/4" */
	struct opt_rule rule;      /* mask and values; id, priority, action set by the mirror */
	uint64_t packets;          /* hits: the first action's packet counter */
};

struct ag_key {
	uint64_t hash; /* of protocol, match and actions */
	size_t i;
};

struct ag_filters {
	struct ag_filter *v;
	size_t n, cap;
	struct ag_key *index; /* sorted by hash when built (ag_filters_index), else NULL */
};

void ag_filters_free(struct ag_filters *fs);
int ag_filters_push(struct ag_filters *fs, const struct ag_filter *f);
/* Sort by (pref, handle): tc's lookup order within one chain. */
void ag_filters_sort(struct ag_filters *fs);
/* Same filter (protocol, match, actions), whatever its prio and handle. */
int ag_filter_same(const struct ag_filter *a, const struct ag_filter *b);
/* Index FS by identity so that ag_filters_find takes O(log n); push and sort drop it. */
int ag_filters_index(struct ag_filters *fs);
/* Index of the filter of FS that is the same as F (ag_filter_same), or -1: a binary search
 * when FS is indexed, else a scan. */
long ag_filters_find(const struct ag_filters *fs, const struct ag_filter *f);

/* Parse the JSON `tc -s -j filter show dev DEV ingress` printed (LEN bytes) into OUT
 * (appended). Only chain 0 is read (other chains are reached through goto actions, which
 * the agent leaves alone). Refuses, naming DEV, prio, handle and key, what it cannot move
 * faithfully: a classifier other than flower in chain 0, a key or action it does not know,
 * a masked MAC, a port range, an IPv6 address. 0 or -EINVAL (ERR says why). */
int ag_tc_parse(const char *json, size_t len, const char *dev, struct ag_filters *out,
		char *err, size_t errlen);

/* The tc -batch line that adds F at prio PREF with HANDLE on DEV's ingress (no newline). */
int ag_render_add(const struct ag_filter *f, const char *dev, uint16_t pref, uint32_t handle,
		  char *buf, size_t len);
/* Make before break, for a mask moving as a whole: add filters FS[IDS[i]] at prio TO with
 * handles 1..N (prios of one mask merge into one: their handles may collide), then delete
 * every prio they were in, as tc -batch lines on OUT; *LINES counts them. -EIO on a write
 * error. */
int ag_render_move(FILE *out, const char *dev, const struct ag_filter *fs, const uint32_t *ids,
		   size_t n, uint16_t to, unsigned *lines);
/* The tc -batch line that deletes filter F (its prio and handle) alone. */
int ag_render_del_one(const struct ag_filter *f, const char *dev, char *buf, size_t len);
/* The tc -batch line that deletes the whole prio PREF (protocol PROTO) of DEV's ingress. */
int ag_render_del(const char *proto, const char *dev, uint16_t pref, char *buf, size_t len);

#endif
