/* refchase.c - a plain reference pointer chase, none of the latency scenario's code (bench_ref_chase_ns) */
#include "bench/peers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

double bench_ref_chase_ns(size_t bytes, double secs, uint64_t seed)
{
	size_t n = bytes / 64, i, *perm;
	uint64_t steps = 1 << 18, k, done = 0;
	double t0, t;
	void *q, *volatile sink;
	char *p;

	if (n < 2)
		return NAN;
	seed |= 1;
	p = mmap(NULL, n * 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NAN;
	perm = malloc(n * sizeof(*perm));
	if (!perm) {
		munmap(p, n * 64);
		return NAN;
	}
#ifdef MADV_HUGEPAGE
	madvise(p, n * 64, MADV_HUGEPAGE);
#endif
	memset(p, 0, n * 64);
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {   /* Fisher-Yates, then the cycle perm[0] -> perm[1] -> ... */
		size_t j = (size_t)(xorshift(&seed) % (i + 1)), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	for (i = 0; i < n; i++)
		*(void **)(p + perm[i] * 64) = p + perm[(i + 1) % n] * 64;
	free(perm);
	for (q = p, i = 0; i < n; i++)
		q = *(void **)q;
	t0 = now_s();
	do {
		for (k = 0; k < steps; k++)
			q = *(void **)q;
		done += steps;
		t = now_s() - t0;
	} while (t < secs);
	sink = q;
	(void)sink;
	munmap(p, n * 64);
	return t * 1e9 / (double)done;
}

