/* SPDX-License-Identifier: MIT */
/*
 * gen_layout: which of a point's rule layouts is built (gen.h, gen_levels.layout).
 *
 * A side's layout is its seeded flow order (gen_rules.c): the j-th flow of the order gets
 * mask shape j % m and the rules go in shape by shape, so a flow's place decides both which
 * mask it is in and how late its rule is programmed. Under a skewed popularity a few flows
 * carry most packets, and where those few land moves the response by far more than the
 * measurement noise: one layout is one draw of that. Layout k > 0 rotates every side's order
 * by the k-th point u of the base-2 van der Corput sequence (0, 1/2, 1/4, 3/4, 1/8, ...):
 * the rules' insertion order moves by u * F, i.e. every flow's shape by floor(u * m) and its
 * place in the shape by the rest. Over layouts 0..L-1 each flow then visits L places spread
 * evenly over the masks and over the insertion order (a systematic sample, any prefix well
 * spread), so the mean over L layouts estimates the mean over all layouts with an error
 * that falls like 1/L rather than the 1/sqrt(L) of independent draws. Layout 0 is the
 * seed's own order (no rotation): what every point measured before layouts existed.
 */
#include "generators/gen.h"

double gen_layout_point(uint32_t layout)
{
	double u = 0, f = 0.5;

	for (; layout; layout >>= 1, f /= 2)
		if (layout & 1u)
			u += f;
	return u;
}

uint32_t gen_layout_shift(uint32_t layout, uint32_t flows)
{
	return (uint32_t)(gen_layout_point(layout) * flows) % (flows ? flows : 1);
}
