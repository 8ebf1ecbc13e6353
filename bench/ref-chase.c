/*
 * ref-chase.c - a plain reference pointer chase for bench/bandwidth-vs-peers.sh:
 * the machine's own run-to-run variation of DRAM latency, measured in the same
 * run as `vmmprof bench latency`, with nothing of vmmprof's code.
 *
 *   ref-chase MIB SECONDS SEED   -> prints the mean ns per dependent load
 *
 * One random cyclic permutation of MIB MiB in 64-byte lines (huge pages
 * advised, pinned to CPU 0), one lap to warm up, then a single timed chase of
 * about SECONDS: the mean, as lmbench's lat_mem_rd reports it.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
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

static uint64_t rnd(uint64_t *s)   /* xorshift64 */
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	size_t len, n, i, *perm;
	double secs, t0, t;
	uint64_t seed, steps = 1 << 20, k, done = 0;
	cpu_set_t set;
	void *q;
	void *volatile sink;
	char *p;

	if (argc != 4) {
		fprintf(stderr, "usage: ref-chase MIB SECONDS SEED\n");
		return 2;
	}
	len = (size_t)atol(argv[1]) << 20;
	secs = atof(argv[2]);
	seed = (uint64_t)atoll(argv[3]) | 1;
	n = len / 64;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	perm = malloc(n * sizeof(*perm));
	if (p == MAP_FAILED || !perm || n < 2) {
		perror("ref-chase");
		return 1;
	}
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0, len);
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		size_t j = (size_t)(rnd(&seed) % (i + 1)), x = perm[i];

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
	printf("%.2f\n", t * 1e9 / (double)done);
	return 0;
}
