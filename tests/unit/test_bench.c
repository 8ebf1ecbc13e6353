/* test_bench.c - unit tests for the benchmark's pure parts: chains, curves, kernels */
#include "test.h"

#include <math.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "bench/peers.h"
#include "platform/platform.h"
#include "util/alloc.h"

/* Follow the chain from line 0: every line once, back at the start after n steps. */
static void check_cycle(int line, size_t n, size_t stride, uint64_t seed)
{
	char *buf = xcalloc(n, stride), *p = buf;
	char *seen = xcalloc(n, 1);
	size_t i, visited = 0;

	chase_build(buf, n, stride, seed);
	for (i = 0; i < n; i++) {
		size_t off = (size_t)(p - buf);

		CHECK_AT(line, off % stride == 0 && off / stride < n, "pointer %zu off the lines", off);
		if (off % stride || off / stride >= n)
			break;
		CHECK_AT(line, !seen[off / stride], "line %zu visited twice (n %zu)", off / stride, n);
		visited += !seen[off / stride];
		seen[off / stride] = 1;
		p = *(char **)p;
	}
	CHECK_AT(line, p == buf, "not back at the start after %zu steps", n);
	CHECK_AT(line, visited == n, "visited %zu of %zu lines", visited, n);
	CHECK_AT(line, chase_walk(buf, n) == buf, "chase_walk(n) does not come back");
	free(buf);
	free(seen);
}

static const struct { int line; size_t n, stride; uint64_t seed; } cycle_rows[] = {
	{ __LINE__, 1, 64, 1 },
	{ __LINE__, 2, 64, 1 },
	{ __LINE__, 3, 64, 7 },
	{ __LINE__, 64, 64, 42 },
	{ __LINE__, 1000, 64, 3 },
	{ __LINE__, 4097, 128, 99 },
	{ __LINE__, 65536, 64, 0 },
};

TEST(chase_single_cycle)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(cycle_rows); i++)
		check_cycle(cycle_rows[i].line, cycle_rows[i].n, cycle_rows[i].stride,
			    cycle_rows[i].seed);
}

TEST(chase_is_random_and_deterministic)
{
	enum { N = 4096 };
	char *a = xcalloc(N, 64), *b = xcalloc(N, 64), *c = xcalloc(N, 64);
	size_t i, seq = 0, same_ab = 1, same_ac = 1;

	chase_build(a, N, 64, 5);
	chase_build(b, N, 64, 5);
	chase_build(c, N, 64, 6);
	for (i = 0; i < N; i++) {
		char *na = *(char **)(a + i * 64);

		same_ab &= (size_t)(na - a) == (size_t)(*(char **)(b + i * 64) - b);
		same_ac &= (size_t)(na - a) == (size_t)(*(char **)(c + i * 64) - c);
		seq += na == a + ((i + 1) % N) * 64;   /* next line in memory order */
	}
	CHECK(same_ab);
	CHECK(!same_ac);
	/* a random order has about one sequential link in N; a prefetcher-friendly one has N */
	CHECK_AT(__LINE__, seq < 16, "%zu of %d links go to the next line", seq, N);
	free(a);
	free(b);
	free(c);
}

TEST(median)
{
	double a[] = { 5, 1, 3 }, b[] = { 4, 1, 3, 2 };

	CHECK_NEAR(bench_median(a, 3), 3, 0);
	CHECK_NEAR(bench_median(b, 4), 2.5, 0);
	CHECK_NAN(bench_median(a, 0));
}

/* Knees worked out by hand: where a min(x, K) curve turns flat is x = K;
 * for 1 - exp(-x/4) on x = 1..32 the Kneedle distance
 * (f(x) - f(1)) / (f(32) - f(1)) - (x - 1) / 31 peaks where
 * f'(x) = (f(32) - f(1)) / 31, i.e. x = -4 ln(4 (e^-1/4 - e^-8) / 31) = 9.19,
 * and d(9) = 0.6070 > d(10) = 0.6047, so x = 9. */
TEST(knee_synthetic)
{
	double x[32], y[32];
	int i, k;

	for (i = 0; i < 32; i++) {
		x[i] = i + 1;
		y[i] = fmin(x[i], 8);
	}
	k = curve_knee(x, y, 32, 0.05);
	CHECK_INT(k >= 0 ? x[k] : -1, 8);

	for (i = 0; i < 32; i++)   /* the same with a noisy plateau */
		y[i] = fmin(x[i], 8) + (i % 3 - 1) * 0.1;
	k = curve_knee(x, y, 32, 0.05);
	CHECK_INT(k >= 0 ? x[k] : -1, 8);

	for (i = 0; i < 32; i++)
		y[i] = 1 - exp(-x[i] / 4);
	k = curve_knee(x, y, 32, 0.05);
	CHECK_INT(k >= 0 ? x[k] : -1, 9);

	for (i = 0; i < 32; i++)   /* still rising: no knee */
		y[i] = 3 * x[i];
	CHECK_INT(curve_knee(x, y, 32, 0.05), -1);

	for (i = 0; i < 32; i++)   /* flat within 2 %: no knee */
		y[i] = 5 + (i % 2) * 0.1;
	CHECK_INT(curve_knee(x, y, 32, 0.05), -1);

	CHECK_INT(curve_knee(x, y, 2, 0.05), -1);
}

TEST(knee_uneven_steps)
{
	/* the queue scenario's k values; misses in flight saturate at 12 */
	double x[] = { 1, 2, 4, 6, 8, 12, 16, 24, 32 }, y[9];
	int i, k;

	for (i = 0; i < 9; i++)
		y[i] = 3 * fmin(x[i], 12);
	k = curve_knee(x, y, 9, 0.05);
	CHECK_INT(k >= 0 ? x[k] : -1, 12);
}

/* The shared-tracker scenario: per-core miss rate against the number of cores
 * running at once.  Up to the knee each core keeps its rate alone (10 misses/us);
 * past it the cores share a fixed capacity (60 misses/us), so one core gets 60 / c. */
static double capped(int c, int knee)
{
	return c <= knee ? 10 : 10.0 * knee / c;
}

TEST(scaling_knee_hand_placed)
{
	double y[16];
	int i, k;

	for (i = 0; i < 16; i++)   /* cores 1..16, knee placed at 6 */
		y[i] = capped(i + 1, 6);
	k = scaling_knee(y, 16, 0.1);
	/* at 7 cores each gets 60 / 7 = 8.57 < 9 (10 % below its rate alone), and
	 * every later point is lower still: the last core count that scaled is 6 */
	CHECK_INT(k >= 0 ? k + 1 : -1, 6);

	for (i = 0; i < 16; i++)   /* knee at the first point: 2 cores already share */
		y[i] = capped(i + 1, 1);
	k = scaling_knee(y, 16, 0.1);
	CHECK_INT(k >= 0 ? k + 1 : -1, 1);

	for (i = 0; i < 16; i++)   /* a gradual fall of 2 % per added core crosses 10 % after 6 */
		y[i] = 10 * (1 - 0.02 * i);
	k = scaling_knee(y, 16, 0.1);
	CHECK_INT(k >= 0 ? k + 1 : -1, 6);
}

TEST(scaling_knee_uneven_counts)
{
	/* bench_queue_cores' counts on a 24-CPU package; the trackers fill at 10 cores */
	int c[] = { 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24 };
	double y[14];
	int i, k;

	for (i = 0; i < 14; i++)
		y[i] = capped(c[i], 10);
	k = scaling_knee(y, 14, 0.1);
	CHECK_INT(k >= 0 ? c[k] : -1, 10);
}

TEST(scaling_knee_noisy)
{
	double y[16];
	int i, k;

	/* +-3 % alternating noise on every point, a single sample that dipped to 70 %
	 * at 3 cores (a preemption), and a single one back at its full rate at 11
	 * cores: neither moves the knee from 6 */
	for (i = 0; i < 16; i++)
		y[i] = capped(i + 1, 6) * (1 + (i % 2 ? 0.03 : -0.03));
	y[0] = 10;
	y[2] = 7;
	y[10] = 10;
	k = scaling_knee(y, 16, 0.1);
	CHECK_INT(k >= 0 ? k + 1 : -1, 6);
}

TEST(scaling_knee_none)
{
	double y[16];
	int i;

	for (i = 0; i < 16; i++)   /* every core keeps its rate, within 5 %: no knee */
		y[i] = 10 * (1 - 0.05 * (i % 2));
	CHECK_INT(scaling_knee(y, 16, 0.1), -1);

	for (i = 0; i < 16; i++)   /* falls to half at the very last point only: one sample */
		y[i] = 10;         /* cannot tell a knee from noise, so no knee */
	y[15] = 5;
	CHECK_INT(scaling_knee(y, 16, 0.1), -1);

	for (i = 0; i < 16; i++)   /* it dips, then recovers: no knee */
		y[i] = i >= 4 && i < 8 ? 8 : 10;
	CHECK_INT(scaling_knee(y, 16, 0.1), -1);

	y[0] = 10, y[1] = 5, y[2] = 3;
	CHECK_INT(scaling_knee(y, 2, 0.1), -1);   /* too few points */
	y[0] = 0;
	CHECK_INT(scaling_knee(y, 3, 0.1), -1);   /* no reference rate */
	y[0] = NAN;
	CHECK_INT(scaling_knee(y, 3, 0.1), -1);
}

TEST(levels_staircase)
{
	/* 4 KiB .. 128 MiB doubling: 1 ns to 32 KiB, 4 ns to 512 KiB, one
	 * transition point, 15 ns to 16 MiB, one transition, then 100 ns */
	double x[16], y[16];
	struct curve_level lv[8];
	int i, n;

	for (i = 0; i < 16; i++) {
		x[i] = 4096.0 * (1 << i);
		y[i] = x[i] <= 32768 ? 1 : x[i] <= 524288 ? 4 : x[i] == 1048576 ? 9 :
		       x[i] <= 16777216 ? 15 : x[i] == 33554432 ? 50 : 100;
	}
	n = curve_levels(x, y, 16, 0.25, lv, 8);
	CHECK_INT(n, 4);
	if (n != 4)
		return;
	CHECK_NEAR(lv[0].lat, 1, 0);
	CHECK_NEAR(lv[0].to, 32768, 0);
	CHECK_NEAR(lv[1].lat, 4, 0);
	CHECK_NEAR(lv[1].from, 65536, 0);
	CHECK_NEAR(lv[1].to, 524288, 0);
	CHECK_NEAR(lv[2].lat, 15, 0);
	CHECK_NEAR(lv[2].from, 2097152, 0);
	CHECK_NEAR(lv[3].lat, 100, 0);
	CHECK_NEAR(lv[3].from, 67108864, 0);
	CHECK_INT(lv[3].last, 15);
}

TEST(levels_ramp_has_none)
{
	double x[12], y[12];
	struct curve_level lv[8];
	int i;

	for (i = 0; i < 12; i++) {
		x[i] = 4096.0 * (1 << i);
		y[i] = pow(1.5, i);   /* every step 50 % up: no plateau */
	}
	CHECK_INT(curve_levels(x, y, 12, 0.25, lv, 8), 0);
}

TEST(kernel_names)
{
	CHECK_INT(bw_kernel_lookup("triad"), BW_TRIAD);
	CHECK_INT(bw_kernel_lookup("nope"), -1);
	CHECK_INT(bw_isa_lookup("avx2"), BW_ISA_AVX2);
	CHECK_STR(bw_kernel_name(BW_WRITE_NT), "write-nt");
	CHECK_INT(bw_kernel_bytes_factor(BW_COPY), 2);
	CHECK_INT(bw_kernel_bytes_factor(BW_TRIAD), 3);
	CHECK_INT(bw_isa_pick(BW_ISA_SCALAR), BW_ISA_SCALAR);
}

/*
 * Every kernel of one ISA computes what its definition says; one test per
 * ISA, skipped with the reason where this CPU or build lacks it.  The read
 * kernel's checksum is the sum of the words modulo 2^64: the data make every
 * lane's sum pass 2^63 (doubles' bit patterns, then all-ones words), which
 * a signed reduction would overflow (undefined; UBSan aborts the SAN tier).
 */
static void kernels_check(int isa)
{
	enum { N = 64 * 1024 };
	double *a, *b, *c;
	uint64_t want = 0;
	unsigned __int128 wide = 0;
	int i;

	if (bw_isa_pick(isa) != isa)
		SKIP("this CPU or build has no %s (%s)", bw_isa_name(isa),
		     isa == BW_ISA_SSE2 ? "not an x86 build" : isa == BW_ISA_AVX2 ?
		     "cpuid: no avx2" : "cpuid: no avx512f");
	if (posix_memalign((void **)&a, 64, N) || posix_memalign((void **)&b, 64, N) ||
	    posix_memalign((void **)&c, 64, N))
		abort();
	for (i = 0; i < N / 8; i++) {
		b[i] = i * 0.5;
		c[i] = i + 1.0;
	}
	for (i = 0; i < N / 8; i++) {
		want += ((uint64_t *)b)[i];
		wide += ((uint64_t *)b)[i];
	}
	CHECK_AT(__LINE__, wide >> 64, "the data should carry the sum past 2^64");
	CHECK_U64_AT(__LINE__, bw_kernel_run(isa, BW_READ, NULL, b, NULL, N), want);
	/* all ones: each word is 2^64 - 1, so the sum is -(N / 8) modulo 2^64 */
	memset(a, 0xff, N);
	CHECK_U64_AT(__LINE__, bw_kernel_run(isa, BW_READ, NULL, a, NULL, N),
		     (uint64_t)0 - (uint64_t)(N / 8));
	memset(a, 0, N);
	bw_kernel_run(isa, BW_COPY, a, b, NULL, N);
	CHECK_AT(__LINE__, !memcmp(a, b, N), "%s copy differs", bw_isa_name(isa));
	memset(a, 0, N);
	bw_kernel_run(isa, BW_TRIAD, a, b, c, N);
	for (i = 0; i < N / 8; i++)
		if (a[i] != b[i] + 3.0 * c[i])
			break;
	CHECK_AT(__LINE__, i == N / 8, "%s triad wrong at %d", bw_isa_name(isa), i);
	memset(a, 0, N);
	bw_kernel_run(isa, BW_WRITE, a, NULL, NULL, N);
	CHECK_AT(__LINE__, ((uint64_t *)a)[N / 8 - 1] != 0, "%s write left zeros",
		 bw_isa_name(isa));
	memset(a, 0, N);
	bw_kernel_run(isa, BW_WRITE_NT, a, NULL, NULL, N);
	CHECK_AT(__LINE__, ((uint64_t *)a)[N / 8 - 1] != 0, "%s write-nt left zeros",
		 bw_isa_name(isa));
	free(a);
	free(b);
	free(c);
}

TEST(kernels_scalar_compute_their_definition) { kernels_check(BW_ISA_SCALAR); }
TEST(kernels_sse2_compute_their_definition) { kernels_check(BW_ISA_SSE2); }
TEST(kernels_avx2_compute_their_definition) { kernels_check(BW_ISA_AVX2); }
TEST(kernels_avx512_compute_their_definition) { kernels_check(BW_ISA_AVX512); }

/*
 * The benchmark's view of a probed platform: the skx-2s fixture
 * (tests/data/root/skx-2s/README.md): 2 sockets x 4 cores x 2 threads,
 * socket s core k is CPU 4s+k and its sibling 8+4s+k; node0 = 0-3,8-11;
 * L1d 32K, L2 1024K per core, L3 28160K per socket; GenuineIntel 6/85.
 */
TEST(bench_topo_from_fixture)
{
	struct platform p;
	struct bench_topo t;
	struct vp_err err = { 0, "" };
	int i, llc0 = -1, llc4 = -1, llc8 = -1;

	if (platform_probe(&p, test_data("root/skx-2s"), &err)) {
		test_fail(__FILE__, __LINE__, "probe: %s", err.msg);
		return;
	}
	CHECK_INT(bench_topo_from_platform(&t, &p, NULL, &err), 0);
	CHECK_INT(t.n_cpus, 16);
	CHECK_INT(t.n_nodes, 2);
	CHECK_INT(t.n_pkgs, 2);
	CHECK_INT(t.n_llc, 2);
	CHECK_U64(t.llc_bytes, 28160u * 1024);
	CHECK_U64(t.l1d_bytes, 32u * 1024);
	CHECK_U64(t.l2_bytes, 1024u * 1024);
	for (i = 0; i < t.n_cpus; i++) {
		if (t.cpus[i] == 0)
			llc0 = t.cpu_llc[i];
		if (t.cpus[i] == 4) {
			llc4 = t.cpu_llc[i];
			CHECK_INT(t.cpu_node[i], 1);
			CHECK_INT(t.cpu_pkg[i], 1);
		}
		if (t.cpus[i] == 8) {
			llc8 = t.cpu_llc[i];
			CHECK_INT(t.cpu_node[i], 0);
		}
	}
	CHECK(llc0 >= 0 && llc0 == llc8 && llc0 != llc4);
	CHECK_STR(t.machine.vendor, "GenuineIntel");
	CHECK_INT(t.machine.family, 6);
	CHECK_INT(t.machine.model, 85);
	CHECK_INT(t.machine.n_cpus, 16);
	bench_topo_release(&t);
	platform_release(&p);
}

/*
 * The peer tools' output as they print it (mbw 1.2.2, sysbench 1.0.20,
 * stress-ng's stream stressor, one "memory rate" line per instance); the
 * figures by hand: MiB = 2^20 bytes, MB = 10^6 bytes, GB/s = 10^9 bytes/s.
 */
TEST(bench_peer_parse_outputs)
{
	const char *mbw = "0\tMethod: MEMCPY\tElapsed: 0.02604\tMiB: 256.00000\tCopy: 9831.337 MiB/s\n"
			  "AVG\tMethod: MEMCPY\tElapsed: 0.02627\tMiB: 256.00000\tCopy: 9744.711 MiB/s\n";
	const char *sysb = "Total operations: 62 ( 61.35 per second)\n\n"
			   "3968.00 MiB transferred (3895.61 MiB/sec)\n";
	const char *sng = "stress-ng: info:  [6785] stream: Using CPU cache size of 65536K\n"
			  "stress-ng: info:  [6785] stream: memory rate: 1234.50 MB read/sec, "
			  "617.25 MB write/sec, 154.31 double precision Mflop/sec (instance 0)\n"
			  "stress-ng: info:  [6786] stream: memory rate: 1000.00 MB read/sec, "
			  "500.00 MB write/sec, 125.00 double precision Mflop/sec (instance 1)\n";
	double g = -1;

	CHECK(bench_peer_parse(PEER_MBW_COPY, mbw, &g) == 0);
	CHECK_NEAR(g, 9744.711 * 1048576 / 1e9, 1e-9);   /* the AVG line, not run 0 */
	CHECK(bench_peer_parse(PEER_SYSBENCH_READ, sysb, &g) == 0);
	CHECK_NEAR(g, 3895.61 * 1048576 / 1e9, 1e-9);
	CHECK(bench_peer_parse(PEER_STRESSNG_TRIAD, sng, &g) == 0);
	CHECK_NEAR(g, (1234.50 + 617.25 + 1000.00 + 500.00) / 1000, 1e-9);
	/* no figure: never a zero */
	g = -1;
	CHECK(bench_peer_parse(PEER_MBW_COPY, "0\tMethod: MEMCPY\tCopy: 9831.337 MiB/s\n", &g) == -1);
	CHECK(bench_peer_parse(PEER_STRESSNG_TRIAD, "stress-ng: info:  [55] stream: run duration "
			       "too short to determine memory rate\n", &g) == -1);
	CHECK(bench_peer_parse(PEER_SYSBENCH_READ, "", &g) == -1);
	CHECK_NEAR(g, -1, 0);
}

/* A chase of 64 KiB stays in the caches: a dependent load is one to a few
 * dozen ns on any CPU this runs on; under 2 lines there is no chase. */
TEST(bench_ref_chase_bounds)
{
	double ns = bench_ref_chase_ns(64 << 10, 0.02, 7);

	CHECK(isnan(bench_ref_chase_ns(64, 0.01, 1)));
	CHECK(ns > 0.1 && ns < 200);
}
