/* SPDX-License-Identifier: MIT */
/*
 * fuzz-driver: corpus loading, seeded mutation and the run loop shared by the standalone
 * fuzz drivers (fuzz-*-main.c). Assumes the entry LLVMFuzzerTestOneInput is linked in and
 * aborts on a broken invariant; this file only feeds it.
 */
#include <assert.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz-driver.h"

static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static size_t below(uint64_t *s, size_t n)
{
	return n ? (size_t)(next(s) % n) : 0;
}

/* Replace [at, at+del) of B with INS[0..nins). */
static void splice(struct fuzz_buf *b, size_t at, size_t del, const uint8_t *ins, size_t nins)
{
	uint8_t *p;

	if (at > b->n)
		at = b->n;
	if (del > b->n - at)
		del = b->n - at;
	if (b->n - del + nins > FUZZ_MAX_INPUT)
		return;
	p = malloc(b->n - del + nins + 1);
	if (!p)
		abort();
	memcpy(p, b->p, at);
	memcpy(p + at, ins, nins);
	memcpy(p + at + nins, b->p + at + del, b->n - at - del);
	free(b->p);
	b->p = p;
	b->n = b->n - del + nins;
}

static void long_run(struct fuzz_buf *b, size_t at, const struct fuzz_mutator *m, uint64_t *s)
{
	uint8_t tmp[FUZZ_MAX_CHUNK];
	size_t len = m->run_min + below(s, m->run_spread);

	memset(tmp, below(s, 2) ? m->run_a : m->run_b, len);
	splice(b, at, 0, tmp, len);
}

static void mutate_once(struct fuzz_buf *b, const struct fuzz_corpus *c,
			const struct fuzz_mutator *m, uint64_t *s)
{
	uint8_t ch, tmp[FUZZ_MAX_CHUNK];
	size_t at = below(s, b->n + 1), len;
	const struct fuzz_buf *o;

	switch (below(s, m->huge ? 8 : 7)) {
	case 0:
		if (b->n)
			b->p[below(s, b->n)] = (uint8_t)next(s);
		break;
	case 1:
		ch = (uint8_t)m->punct[below(s, strlen(m->punct))];
		splice(b, at, 0, &ch, 1);
		break;
	case 2:
		splice(b, at, 1 + below(s, m->max_delete), (const uint8_t *)"", 0);
		break;
	case 3:
		len = below(s, m->max_dup) + 1;
		if (at + len <= b->n) {
			memcpy(tmp, b->p + at, len);
			splice(b, below(s, b->n + 1), 0, tmp, len);
		}
		break;
	case 4:
		b->n = below(s, b->n + 1);
		break;
	case 5:
		o = &c->v[below(s, c->n)];
		len = below(s, m->max_splice) + 1;
		if (o->n >= len) {
			size_t from = below(s, o->n - len + 1);

			splice(b, at, below(s, m->max_splice_del), o->p + from, len);
		}
		break;
	case 6:
		if (m->huge) {
			splice(b, at, 0, (const uint8_t *)m->huge, strlen(m->huge));
			break;
		}
		long_run(b, at, m, s);
		break;
	default:
		long_run(b, at, m, s);
		break;
	}
}

void fuzz_corpus_add(struct fuzz_corpus *c, struct fuzz_buf b)
{
	struct fuzz_buf *grown = realloc(c->v, (c->n + 1) * sizeof(*c->v));

	if (!grown)
		abort();
	c->v = grown;
	c->v[c->n++] = b;
}

static void add_file(struct fuzz_corpus *c, const char *path)
{
	FILE *f = fopen(path, "rb");
	struct fuzz_buf b = { malloc(FUZZ_MAX_INPUT), 0 };

	if (!f || !b.p) {
		if (f)
			fclose(f);
		free(b.p);
		return;
	}
	b.n = fread(b.p, 1, FUZZ_MAX_INPUT, f);
	fclose(f);
	b.p = realloc(b.p, b.n + 1); /* shrinking: cannot fail in practice */
	if (!b.p)
		abort();
	fuzz_corpus_add(c, b);
}

void fuzz_corpus_add_dir(struct fuzz_corpus *c, const char *dir)
{
	char path[2048];
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			add_file(c, path);
		}
	if (d)
		closedir(d);
}

void fuzz_corpus_free(struct fuzz_corpus *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].p);
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

void fuzz_run(const struct fuzz_corpus *c, const struct fuzz_mutator *m, uint64_t seed,
	      unsigned mutants)
{
	assert(c->n > 0 && m->punct[0] && m->max_dup <= FUZZ_MAX_CHUNK);
	assert(m->run_min + m->run_spread - 1 <= FUZZ_MAX_CHUNK);
	for (size_t i = 0; i < c->n; i++)
		LLVMFuzzerTestOneInput(c->v[i].p, c->v[i].n);
	for (unsigned k = 0; k < mutants; k++) {
		const struct fuzz_buf *base = &c->v[below(&seed, c->n)];
		struct fuzz_buf b = { malloc(base->n + 1), base->n };
		unsigned steps = 1 + (unsigned)below(&seed, m->max_steps);

		if (!b.p)
			abort();
		memcpy(b.p, base->p, base->n);
		while (steps--)
			mutate_once(&b, c, m, &seed);
		LLVMFuzzerTestOneInput(b.p, b.n);
		free(b.p);
	}
}
