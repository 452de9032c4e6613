/* SPDX-License-Identifier: MIT */
/*
 * ptparse-util: fixture helpers shared by test-ptparse and the ptparse fuzz driver.
 * Paths are relative to $SCALACN_FIXTURES (tests/meson.build sets it). Everything returned
 * is malloc'd and owned by the caller (free / ptu_list_free).
 */
#ifndef PTPARSE_UTIL_H
#define PTPARSE_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "testbeds/perftest/pt_parse.h"

/* Whole file, NUL-terminated (the NUL is not counted in *len). NULL on error. */
char *ptu_read_path(const char *path, size_t *len);
char *ptu_read_fixture(const char *rel, size_t *len);

/* "reldir" + name for every regular file in $SCALACN_FIXTURES/reldir ending in suffix,
 * sorted. Empty when the directory is missing. */
struct ptu_list {
	char **names;
	size_t n;
};
struct ptu_list ptu_list_fixtures(const char *reldir, const char *suffix);
void ptu_list_free(struct ptu_list *l);

bool ptu_mem_has(const char *s, size_t n, const char *needle);

/* What a rxe-qemu NAME.cmd file says: "argv...\nrc=N\nelapsed_s=S". */
struct ptu_cmd {
	char argv0[64];
	char dev[64];
	int rc;
	int iters; /* -n, 0 when absent */
	int qps;   /* -q, 1 when absent */
	bool rdma_cm, bidir, gbits, duration, all, client;
	enum pt_verb verb;
	enum pt_kind kind;
};
bool ptu_read_cmd(const char *rel, struct ptu_cmd *c);

#endif
