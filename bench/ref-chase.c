/*
 * ref-chase.c - a plain reference pointer chase for bench/bandwidth-vs-peers.sh:
 * the machine's own run-to-run variation of DRAM latency, measured in the same
 * run as `vmmprof bench latency`, with none of the latency scenario's code.
 *
 *   ref-chase MIB SECONDS SEED   -> prints the mean ns per dependent load
 *
 * Pinned to CPU 0; the chase is bench_ref_chase_ns() (src/bench/refchase.c),
 * which `vmmprof verify --bench` runs too: one random cyclic permutation of
 * MIB MiB in 64-byte lines (huge pages advised), one lap to warm up, then a
 * single timed chase of about SECONDS: the mean, as lmbench's lat_mem_rd
 * reports it.
 *
 *   cc -O2 -D_GNU_SOURCE -Isrc -o ref-chase bench/ref-chase.c src/bench/refchase.c -lm
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/peers.h"

int main(int argc, char **argv)
{
	cpu_set_t set;
	double ns;

	if (argc != 4) {
		fprintf(stderr, "usage: ref-chase MIB SECONDS SEED\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	ns = bench_ref_chase_ns((size_t)atol(argv[1]) << 20, atof(argv[2]),
				(uint64_t)atoll(argv[3]));
	if (ns != ns) {
		perror("ref-chase");
		return 1;
	}
	printf("%.2f\n", ns);
	return 0;
}
