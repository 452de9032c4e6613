/* SPDX-License-Identifier: MIT */
/*
 * test-sim-diff: the simulator's rule diff (testbeds/sim/sim_scan.c, sim_scan_diff): the size
 * of the symmetric difference of two multisets of rule hashes, counted in a table kept from
 * call to call. Calls of different sizes on one table, repeated hashes, colliding hashes,
 * and the generation counter wrapping all give the count a fresh table gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "testbeds/sim/sim_internal.h"

/* The symmetric difference by brute force: each of A's elements takes one equal of B's. */
static int64_t brute(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	bool *used = calloc(nb ? nb : 1, sizeof(*used));
	size_t same = 0;

	assert_non_null(used);
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			if (!used[j] && b[j] == a[i]) {
				used[j] = true;
				same++;
				break;
			}
	free(used);
	return (int64_t)(na + nb - 2 * same);
}

static uint64_t next(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33 | 1; /* never 0, as rule hashes */
}

static void test_diff_matches_brute_force_on_one_table(void **state)
{
	static const size_t sizes[][2] = { { 0, 0 }, { 5, 0 }, { 0, 7 }, { 40, 40 }, { 300, 20 },
					   { 20, 300 }, { 1000, 1000 }, { 3, 3 } };
	struct sim_diff_table t = { 0 };
	uint64_t a[1000], b[1000], x = 1;

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t na = sizes[k][0], nb = sizes[k][1];

		for (size_t i = 0; i < na; i++) /* few distinct values: repeats and collisions */
			a[i] = next(&x) % 37 + 1 + (k % 2 ? 0 : 1024 * (next(&x) % 3));
		for (size_t i = 0; i < nb; i++)
			b[i] = i % 4 == 0 && i < na ? a[i] : next(&x) % 37 + 1;
		assert_int_equal(sim_scan_diff(&t, a, na, b, nb), brute(a, na, b, nb));
		assert_int_equal(sim_scan_diff(&t, b, nb, a, na), brute(a, na, b, nb));
	}
	sim_diff_table_free(&t);
	assert_null(t.slot);
}

static void test_diff_generation_wraps(void **state)
{
	struct sim_diff_table t = { 0 };
	uint64_t a[] = { 1, 2, 2, 3 }, b[] = { 2, 3, 4, 4, 4 };

	(void)state;
	assert_int_equal(sim_scan_diff(&t, a, 4, b, 5), 5); /* {1, 2} and {4, 4, 4} */
	t.gen = UINT32_MAX; /* the next call wraps: slots of old calls must not count */
	assert_int_equal(sim_scan_diff(&t, a, 4, a, 4), 0);
	assert_int_equal(t.gen, 1);
	assert_int_equal(sim_scan_diff(&t, b, 5, a, 4), 5);
	sim_diff_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_matches_brute_force_on_one_table),
		cmocka_unit_test(test_diff_generation_wraps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
