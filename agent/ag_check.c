/* SPDX-License-Identifier: MIT */
/*
 * ag_check: first-match lookups over tc filters and the before/after comparison of the
 * actions (see ag_check.h).
 */
#include <stdio.h>
#include <string.h>

#include "agent/ag_check.h"

void ag_check_packet(const struct ag_filter *f, struct opt_pkt *pkt)
{
	memset(pkt, 0, sizeof(*pkt));
	for (int i = 0; i < OPT_F_COUNT; i++)
		if (f->rule.mask.fields & (1u << i))
			pkt->v[i] = f->rule.v[i];
}

static bool matches(const struct opt_rule *r, const struct opt_pkt *p)
{
	for (int i = 0; i < OPT_F_COUNT; i++) {
		uint64_t want = r->v[i], got = p->v[i];

		if (!(r->mask.fields & (1u << i)))
			continue;
		if (opt_field_is_ip((enum opt_field)i)) {
			unsigned shift = 32u - r->mask.plen[i];

			want = (want & 0xffffffffu) >> shift;
			got = (got & 0xffffffffu) >> shift;
		}
		if (want != got)
			return false;
	}
	return true;
}

long ag_check_lookup(const struct ag_filters *fs, const struct opt_pkt *pkt)
{
	long best = -1;

	for (size_t i = 0; i < fs->n; i++) {
		const struct ag_filter *f = &fs->v[i];

		if (!matches(&f->rule, pkt))
			continue;
		if (best < 0 || f->pref < fs->v[best].pref ||
		    (f->pref == fs->v[best].pref && f->handle < fs->v[best].handle))
			best = (long)i;
	}
	return best;
}

static const char *action_of(const struct ag_filters *fs, long i)
{
	return i < 0 ? "(no filter: default)" : fs->v[i].action_id;
}

void ag_check_tables(const struct ag_filters *before, const struct ag_filters *after,
		     const bool *seen, struct ag_check *out)
{
	for (size_t i = 0; i < before->n; i++) {
		struct opt_pkt pkt;
		const char *a, *b;

		if (!seen[i])
			continue;
		ag_check_packet(&before->v[i], &pkt);
		a = action_of(before, ag_check_lookup(before, &pkt));
		b = action_of(after, ag_check_lookup(after, &pkt));
		out->packets++;
		if (strcmp(a, b) == 0)
			continue;
		if (out->changed++ == 0)
			snprintf(out->first, sizeof(out->first), "the traffic of prio %u handle %u "
				 "went to \"%.60s\", now to \"%.60s\"", before->v[i].pref,
				 before->v[i].handle, a, b);
	}
}
