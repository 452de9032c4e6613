/* SPDX-License-Identifier: MIT */
/*
 * test-ptparse.h: the cmocka tests of test-ptparse-synth.c (synthetic perftest text, stderr
 * and JSON), run by the main() in test-ptparse.c.
 */
#ifndef TEST_PTPARSE_H
#define TEST_PTPARSE_H

void test_ptparse_notes_samples(void **state);
void test_ptparse_malformed_input(void **state);
void test_ptparse_stderr_fixtures(void **state);
void test_ptparse_stderr_errors(void **state);
void test_ptparse_json_forms_agree(void **state);
void test_ptparse_json_repair(void **state);
void test_ptparse_json_bad(void **state);

#endif
