/* peers.h - the benchmark's figures against references: a plain pointer chase and peer tools */
#ifndef VP_BENCH_PEERS_H
#define VP_BENCH_PEERS_H

#include <stddef.h>
#include <stdint.h>

/*
 * A plain pointer chase, none of the latency scenario's code: one random
 * cyclic permutation of `bytes` in 64-byte lines (huge pages advised), one
 * lap to warm up, then one timed chase of about secs on the calling thread.
 * Returns the mean ns per dependent load, as lmbench's lat_mem_rd reports
 * it; NaN when the buffer cannot be had.  bench/ref-chase.c is this
 * function (src/bench/refchase.c) as a program, for bench/bandwidth-vs-peers.sh.
 */
double bench_ref_chase_ns(size_t bytes, double secs, uint64_t seed);

/*
 * The peer tools bench/bandwidth-vs-peers.sh measures against, one
 * operation each (Debian packages; none is a dependency of vmmprof).
 */
enum bench_peer {
	PEER_MBW_COPY,        /* mbw -t0: glibc's memcpy, one thread; bytes copied once */
	PEER_SYSBENCH_READ,   /* sysbench memory read, a buffer per thread; bytes read */
	PEER_STRESSNG_TRIAD,  /* stress-ng --stream: a triad; MB read + MB written */
	PEER_N
};

/* The tool's command name (also its Debian package's). */
const char *bench_peer_tool(enum bench_peer p);

/*
 * The peer's figure in GB/s (10^9 B/s), counted as our kernels count
 * (read + write for the triad; bytes copied once for mbw, so the caller
 * halves our copy), from the tool's whole output.  Pure: unit-tested on
 * captured output.  Returns 0, or -1 when the output has no figure.
 */
int bench_peer_parse(enum bench_peer p, const char *out, double *gbs);

/*
 * Run the peer with `threads` threads over arrays of array_mib MiB for
 * about secs (vp_run(): PATH searched, SIGTERM if vmmprof ends first), and
 * parse it.  0 and *gbs, or -1 with why filled ("mbw: not installed
 * (Debian package mbw)", how it failed, no figure in its output).
 * stress-ng runs at least 8 s (shorter runs often give no rate).
 */
int bench_peer_run(enum bench_peer p, int threads, double secs, unsigned array_mib,
		   double *gbs, char *why, size_t why_size);

#endif
