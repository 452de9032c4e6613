/* SPDX-License-Identifier: MIT */
/*
 * fuzz-optload-main: a standalone driver for the fuzz-optload entry (model loader, number
 * arrays, trace reader and replay), for compilers without libFuzzer (gcc) and for bounded CI
 * runs. It runs LLVMFuzzerTestOneInput on every file of tests/corpus/optimiser/ (good and
 * damaged traces and model files, under $SCALACN_SOURCE_ROOT) and on N seeded mutations of
 * them (default 1500; argv[1] = seed, argv[2] = N): byte flips, inserted CSV punctuation and
 * digits, deleted / duplicated / spliced ranges, truncation, long runs. Same seed, same
 * inputs. Exit 0 when every input passed; a broken invariant aborts inside the entry.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT (1u << 20)

struct buf {
	uint8_t *p;
	size_t n;
};

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
static void splice(struct buf *b, size_t at, size_t del, const uint8_t *ins, size_t nins)
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

static void mutate_once(struct buf *b, const struct buf *corpus, size_t nc, uint64_t *s)
{
	static const char punct[] = ",\n\r#.0123456789-:/ \"";
	uint8_t c, tmp[600];
	size_t at = below(s, b->n + 1), len;
	const struct buf *o;

	switch (below(s, 7)) {
	case 0:
		if (b->n)
			b->p[below(s, b->n)] = (uint8_t)next(s);
		break;
	case 1:
		c = (uint8_t)punct[below(s, sizeof(punct) - 1)];
		splice(b, at, 0, &c, 1);
		break;
	case 2:
		splice(b, at, 1 + below(s, 32), (const uint8_t *)"", 0);
		break;
	case 3:
		len = below(s, 128) + 1;
		if (at + len <= b->n) {
			memcpy(tmp, b->p + at, len);
			splice(b, below(s, b->n + 1), 0, tmp, len);
		}
		break;
	case 4:
		b->n = below(s, b->n + 1);
		break;
	case 5:
		o = &corpus[below(s, nc)];
		len = below(s, 256) + 1;
		if (o->n >= len) {
			size_t from = below(s, o->n - len + 1);

			splice(b, at, below(s, 16), o->p + from, len);
		}
		break;
	default:
		len = 64 + below(s, 512);
		memset(tmp, below(s, 2) ? '9' : 'k', len);
		splice(b, at, 0, tmp, len);
		break;
	}
}

static void add_file(struct buf **corpus, size_t *nc, const char *path)
{
	FILE *f = fopen(path, "rb");
	struct buf b = { malloc(FUZZ_MAX_INPUT), 0 };
	struct buf *grown;

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
	grown = realloc(*corpus, (*nc + 1) * sizeof(**corpus));
	if (!grown)
		abort();
	*corpus = grown;
	(*corpus)[(*nc)++] = b;
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x0b7a11e5ULL, s0 = seed;
	unsigned mutants = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 1500;
	const char *root = getenv("SCALACN_SOURCE_ROOT");
	char dir[1024], path[2048];
	struct buf *corpus = NULL;
	struct dirent *e;
	size_t nc = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/tests/corpus/optimiser", root ? root : ".");
	d = opendir(dir);
	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			add_file(&corpus, &nc, path);
		}
	if (d)
		closedir(d);
	if (nc < 10) {
		fprintf(stderr, "optload-fuzz-smoke: only %zu corpus files in %s\n", nc, dir);
		return 1;
	}
	for (size_t i = 0; i < nc; i++)
		LLVMFuzzerTestOneInput(corpus[i].p, corpus[i].n);
	for (unsigned m = 0; m < mutants; m++) {
		const struct buf *base = &corpus[below(&seed, nc)];
		struct buf b = { malloc(base->n + 1), base->n };
		unsigned k = 1 + (unsigned)below(&seed, 6);

		if (!b.p)
			abort();
		memcpy(b.p, base->p, base->n);
		while (k--)
			mutate_once(&b, corpus, nc, &seed);
		LLVMFuzzerTestOneInput(b.p, b.n);
		free(b.p);
	}
	printf("optload-fuzz-smoke: %zu corpus files and %u mutants passed (seed %#llx)\n", nc,
	       mutants, (unsigned long long)s0);
	for (size_t i = 0; i < nc; i++)
		free(corpus[i].p);
	free(corpus);
	return 0;
}
