/* test_cost.c - the cost stage on counts of physically described situations, worked out by hand */
#include "test.h"

#include <math.h>
#include <string.h>

#include "collect/collect.h"
#include "model/cost.h"

/*
 * The calibration of the outside review (REFERENCES.md §5, Skylake Gold
 * 6140): 89 ns local, 143 ns remote, 105 GB/s per node, core-to-core 50 ns
 * in a socket and 114 ns across; L3 hit 20 ns.  Loaded-latency points:
 * 52.5 GB/s (u 0.5) at 100 ns, 94.5 GB/s (u 0.9) at 130 ns, 105 GB/s (u 1)
 * at 200 ns.  A 2.4 GHz core over 1 s: C = 2.4e9 cycles.
 */
#define GHZ 2.4
#define C (2.4e9)

static void skx_calib(struct calib *cal)
{
	static struct calib_point pts[] = { { 4, 52.5, 100 }, { 8, 94.5, 130 }, { 12, 105, 200 } };

	calib_init(cal);
	calib_set(cal, CAL_LAT_LOCAL_NS, 89, NULL);
	calib_set(cal, CAL_LAT_REMOTE_NS, 143, NULL);
	calib_set(cal, CAL_PEAK_BW_GBS, 105, NULL);
	calib_set(cal, CAL_LAT_C2C_LOCAL_NS, 50, NULL);
	calib_set(cal, CAL_LAT_C2C_REMOTE_NS, 114, NULL);
	calib_set(cal, CAL_LAT_LLC_NS, 20, NULL);
	cal->loaded = pts;
	cal->n_loaded = 3;
}

static void cc_init(struct cost_calib *cc)
{
	struct calib cal;

	skx_calib(&cal);
	cost_calib_init(cc, &cal);
	cal.loaded = NULL; /* static */
	cal.n_loaded = 0;
	calib_release(&cal);
}

static void in_init(struct cost_in *in)
{
	int t;

	memset(in, 0, sizeof(*in));
	for (t = 0; t < CT_N; t++)
		in->term[t] = NAN;
	in->cycles = C;
	in->ghz = GHZ;
	cost_node_unknown(&in->local);
	cost_node_unknown(&in->remote);
	in->solo_mpki = NAN;
}

static double pct(double cycles)
{
	return 100 * cycles / C;
}

/* Every row: no negative cost, the parts within the budget, the budget within the cycles. */
static void check_bounds(const struct cost_out *o)
{
	double sum = 0;
	int f;

	for (f = 0; f < FACTOR_N; f++)
		if (isfinite(o->cost[f])) {
			CHECK(o->cost[f] >= 0);
			sum += o->cost[f];
		}
	if (isfinite(o->remainder)) {
		CHECK(o->remainder >= -1e-6);
		sum += o->remainder;
	}
	CHECK(sum <= o->budget * (1 + 1e-12) + 1e-6);
	CHECK(o->budget <= o->cycles * (1 + 1e-12));
}

TEST(cost_imc_curve)
{
	struct cost_calib cc;

	cc_init(&cc);
	/* (0, 0), (0.5, 11), (0.9, 41), (1, 111): extra ns over the 89 ns idle */
	CHECK_INT((int)cc.n_curve, 4);
	CHECK_NEAR(cost_imc_delay(&cc, 0), 0, 1e-12);
	CHECK_NEAR(cost_imc_delay(&cc, 0.25), 5.5, 1e-9);
	/* 0.95: halfway from 41 to 111 = 76 */
	CHECK_NEAR(cost_imc_delay(&cc, 0.95), 76, 1e-9);
	CHECK_NEAR(cost_imc_delay(&cc, 1.5), 111, 1e-9);   /* held at the last point */
	CHECK_NAN(cost_imc_delay(&cc, NAN));
	cost_calib_release(&cc);
}

/* A curve whose loaded points dip below idle (noise) is clamped and made non-decreasing. */
TEST(cost_imc_curve_never_negative)
{
	struct calib cal;
	struct cost_calib cc;
	static struct calib_point pts[] = { { 1, 20, 80 }, { 2, 60, 120 }, { 3, 80, 110 } };

	calib_init(&cal);
	calib_set(&cal, CAL_LAT_LOCAL_NS, 100, NULL);
	calib_set(&cal, CAL_PEAK_BW_GBS, 100, NULL);
	cal.loaded = pts;
	cal.n_loaded = 3;
	cost_calib_init(&cc, &cal);
	CHECK_NEAR(cost_imc_delay(&cc, 0.2), 0, 1e-12);   /* 80 < 100 idle: 0 */
	CHECK_NEAR(cost_imc_delay(&cc, 0.8), 20, 1e-12);  /* 110 after 120: held at 20 */
	cal.loaded = NULL;
	cal.n_loaded = 0;
	calib_release(&cal);
	cost_calib_release(&cc);
}

/*
 * A latency-bound pointer chaser, 60 % of its memory remote, alone on an
 * idle machine (the review's second case).  Serial misses: mean latency
 * 0.4 x 89 + 0.6 x 143 = 121.4 ns, so 1 s holds 1e9 / 121.4 = 8.237e6
 * misses: 3.295e6 local, 4.942e6 remote.  It stalls 98 % of its cycles on
 * them: D = M = 0.98 C.  W = 3.295e6 x 89 + 4.942e6 x 143 = 1e9 ns, so
 * s = 2.352e9 / 1e9 = 2.352 cycles per ns (< 2.4: no overlap, as a chase).
 * locality = 4.942e6 x 54 x 2.352 = 0.2669 x 0.98 C = 26.2 % of C;
 * alone, its miss rate is its solo rate: LLC contention 0; the node runs at
 * 8.237e6 x 64 B = 0.53 GB/s (u 0.005): IMC 0.11 ns x 8.2e6 x 2.35 ~ 0.1 %;
 * no tracker counts: queue n/a.  Locality first, far above LLC.
 */
TEST(cost_remote_chaser_is_locality)
{
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;
	double n = 1e9 / 121.4, n_loc = 0.4 * n, n_rem = 0.6 * n;
	double W = n_loc * 89 + n_rem * 143, s = 0.98 * C / W;

	cc_init(&cc);
	in_init(&in);
	in.term[CT_STALL_MEM] = in.term[CT_STALL_L2_MISS] = in.term[CT_STALL_L3_MISS] = 0.98 * C;
	in.term[CT_DRAM_LOCAL] = n_loc;
	in.term[CT_DRAM_REMOTE] = n_rem;
	in.term[CT_CACHE_REMOTE] = 0;
	in.term[CT_HITM_LOCAL] = 0;
	in.term[CT_LLC_MISS] = n;
	in.term[CT_INSTR] = 5 * n;               /* a chase: a handful of instructions a load */
	in.solo_mpki = 1000 * n / (5 * n);      /* alone: the rate now is the solo rate */
	in.local.util = n * 64 / 1e9 / 105;
	in.local.q_ns = cost_imc_delay(&cc, in.local.util);
	in.remote = in.local;
	cost_row(&cc, &in, &o);
	CHECK_INT(o.anchor, ANCHOR_MEASURED);
	CHECK_NEAR(W, 1e9, 1e6);
	CHECK_NEAR(s, 2.352, 1e-3);
	CHECK_NEAR(pct(o.cost[FACTOR_LOCALITY]), 100 * 0.98 * n_rem * 54 / W, 0.05);
	CHECK_NEAR(pct(o.cost[FACTOR_LOCALITY]), 26.2, 0.1);
	CHECK_NEAR(o.cost[FACTOR_LLC], 0, 1e-6);
	CHECK(pct(o.cost[FACTOR_IMC]) < 0.2);
	CHECK_NAN(o.cost[FACTOR_QUEUE]);
	CHECK(o.why[FACTOR_QUEUE] != NULL);
	CHECK_NEAR(o.cost[FACTOR_SHARING], 0, 1e-9);
	CHECK_NEAR(o.remainder, 0, 1e-6);
	check_bounds(&o);
	cost_calib_release(&cc);
}

/*
 * Streaming 10 GB/s from local DRAM (the review's first case, which cost
 * 1335 % before): 10e9 / 64 = 1.5625e8 lines, all local; the prefetchers
 * overlap them, so the DRAM-bound stall is 30 % of the cycles (D = 0.3 C),
 * M = 0.35 C.  Alone: no LLC contention; no remote access: no locality;
 * node at 10 / 105 = 0.095 of peak: q = 0.095 / 0.5 x 11 = 2.1 ns, IMC =
 * 2.1 / (89 + 2.1) of D = 0.69 % of C.  Whatever it is, nothing above C.
 */
TEST(cost_streaming_local_fits_cycles)
{
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;
	double n = 10e9 / 64, u = 10.0 / 105, q;

	cc_init(&cc);
	in_init(&in);
	in.term[CT_STALL_MEM] = 0.35 * C;
	in.term[CT_STALL_L2_MISS] = in.term[CT_STALL_L3_MISS] = 0.3 * C;
	in.term[CT_DRAM_LOCAL] = n;
	in.term[CT_DRAM_REMOTE] = 0;
	in.term[CT_LLC_MISS] = n;
	in.term[CT_INSTR] = 2.4e9;
	in.solo_mpki = 1000 * n / 2.4e9;
	in.local.util = u;
	in.local.q_ns = q = cost_imc_delay(&cc, u);
	CHECK_NEAR(q, u / 0.5 * 11, 1e-9);
	cost_row(&cc, &in, &o);
	CHECK_NEAR(o.cost[FACTOR_LOCALITY], 0, 1e-6);
	CHECK_NEAR(o.cost[FACTOR_LLC], 0, 1e-6);
	CHECK_NEAR(pct(o.cost[FACTOR_IMC]), 30 * q / (89 + q), 1e-6);
	CHECK(pct(o.cost[FACTOR_IMC]) < 1);
	CHECK_NEAR(o.budget, 0.35 * C, 1);
	check_bounds(&o);
	/* without a solo rate the LLC factor says why instead of counting every miss */
	in.solo_mpki = NAN;
	in.solo_why = "no solo rate in this test";
	cost_row(&cc, &in, &o);
	CHECK_NAN(o.cost[FACTOR_LLC]);
	CHECK_STR(o.why[FACTOR_LLC], "no solo rate in this test");
	check_bounds(&o);
	cost_calib_release(&cc);
}

/*
 * The IMC cost follows the serving node's utilisation, not the row's own
 * bandwidth: a vCPU with 1e7 local DRAM loads (0.64 GB/s of its own) on a
 * node at 90 % of peak (94.5 GB/s): q = 41 ns, each load 89 + 41 = 130 ns,
 * IMC = 41 / 130 of its DRAM stall.  The same vCPU on an idle node: ~0.
 */
TEST(cost_imc_from_serving_node)
{
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;
	double D = 0.5 * C;

	cc_init(&cc);
	in_init(&in);
	in.term[CT_STALL_MEM] = in.term[CT_STALL_L2_MISS] = in.term[CT_STALL_L3_MISS] = D;
	in.term[CT_DRAM_LOCAL] = 1e7;
	in.term[CT_DRAM_REMOTE] = 0;
	in.local.util = 0.9;
	in.local.q_ns = cost_imc_delay(&cc, 0.9);
	CHECK_NEAR(in.local.q_ns, 41, 1e-9);
	cost_row(&cc, &in, &o);
	CHECK_NEAR(o.cost[FACTOR_IMC], D * 41 / 130, 1);
	check_bounds(&o);
	in.local.util = 0;
	in.local.q_ns = cost_imc_delay(&cc, 0);
	cost_row(&cc, &in, &o);
	CHECK_NEAR(o.cost[FACTOR_IMC], 0, 1e-6);
	/* no node bandwidth at all: n/a, with the reason */
	cost_node_unknown(&in.local);
	cost_row(&cc, &in, &o);
	CHECK_NAN(o.cost[FACTOR_IMC]);
	CHECK_CONTAINS(o.why[FACTOR_IMC], "bandwidth");
	cost_calib_release(&cc);
}

/*
 * LLC thrash: a VM whose solo rate is 2 MPKI runs 10 MPKI with co-runners,
 * at 1e9 instructions: 1e7 misses, 8e6 of them extra, all to local DRAM on
 * an idle node.  Each extra miss would have been a 20 ns L3 hit instead of
 * an 89 ns DRAM access: LLC = 8e6 x 69 x s; W = 1e7 x 89 = 8.9e8 ns;
 * D = 0.4 C: s = 0.96e9 / 8.9e8 = 1.0787; LLC = 5.954e8 = 24.8 % of C.
 * The base cost of the 2e6 solo misses is not contention (llc_base).
 * More co-runner misses never lower it.
 */
TEST(cost_llc_only_above_solo_rate)
{
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;
	double D = 0.4 * C, s = D / (1e7 * 89), prev;

	cc_init(&cc);
	in_init(&in);
	in.term[CT_STALL_MEM] = in.term[CT_STALL_L2_MISS] = in.term[CT_STALL_L3_MISS] = D;
	in.term[CT_DRAM_LOCAL] = 1e7;
	in.term[CT_DRAM_REMOTE] = 0;
	in.term[CT_LLC_MISS] = 1e7;
	in.term[CT_INSTR] = 1e9;
	in.solo_mpki = 2;
	in.local.util = in.local.q_ns = 0;
	cost_row(&cc, &in, &o);
	CHECK_NEAR(o.cost[FACTOR_LLC], 8e6 * 69 * s, 1);
	CHECK_NEAR(pct(o.cost[FACTOR_LLC]), 24.8, 0.05);
	CHECK_NEAR(o.llc_base, 2e6 * 69 * s, 1);
	CHECK_NEAR(o.remainder, 0, 1e-6);
	check_bounds(&o);
	/* the same VM alone (rate = solo): no contention at all */
	in.solo_mpki = 10;
	cost_row(&cc, &in, &o);
	CHECK_NEAR(o.cost[FACTOR_LLC], 0, 1e-6);
	/* monotone in the co-runners' extra misses */
	prev = -1;
	for (in.solo_mpki = 10; in.solo_mpki >= 0; in.solo_mpki -= 1) {
		cost_row(&cc, &in, &o);
		CHECK(o.cost[FACTOR_LLC] >= prev);
		prev = o.cost[FACTOR_LLC];
	}
	cost_calib_release(&cc);
}

/*
 * Two factors at once, hand-checked against the counterfactuals: 1e7 DRAM
 * loads, half remote, 4e6 of them extra misses (solo 6 MPKI at 1e9
 * instructions, 10 now), node idle.  x_rem = 2e6 remote extra misses.
 *   locality alone  = 5e6 x 54 = 2.7e8 ns;  LLC alone = 2e6 (89-20) + 2e6 (143-20) = 3.84e8
 *   both at once    = 5e6 x 54 + 4e6 x 89 - 4e6 x 20 ... = 2.7e8 + 4e6 x 69 = 5.46e8
 *   overlap         = 2.7e8 + 3.84e8 - 5.46e8 = 1.08e8 = x_rem x 54: the remainder;
 *   exclusive parts: locality (5e6 - 2e6) x 54 = 1.62e8, LLC 4e6 x 69 = 2.76e8;
 * all times s = D / W, W = 5e6 x 89 + 5e6 x 143 = 1.16e9 ns, D = 0.5 C.
 */
TEST(cost_interaction_is_its_own_remainder)
{
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;
	double D = 0.5 * C, s = D / 1.16e9;

	cc_init(&cc);
	in_init(&in);
	in.term[CT_STALL_MEM] = in.term[CT_STALL_L2_MISS] = in.term[CT_STALL_L3_MISS] = D;
	in.term[CT_DRAM_LOCAL] = 5e6;
	in.term[CT_DRAM_REMOTE] = 5e6;
	in.term[CT_LLC_MISS] = 1e7;
	in.term[CT_INSTR] = 1e9;
	in.solo_mpki = 6;
	in.local.util = in.local.q_ns = 0;
	in.remote = in.local;
	cost_row(&cc, &in, &o);
	CHECK_NEAR(o.cost[FACTOR_LOCALITY], 1.62e8 * s, 1);
	CHECK_NEAR(o.cost[FACTOR_LLC], 2.76e8 * s, 1);
	CHECK_NEAR(o.remainder, 1.08e8 * s, 1);
	/* exclusive parts + remainder = what removing both saves */
	CHECK_NEAR(o.cost[FACTOR_LOCALITY] + o.cost[FACTOR_LLC] + o.remainder, 5.46e8 * s, 1);
	check_bounds(&o);
	cost_calib_release(&cc);
}

/*
 * False sharing across sockets: 1e7 loads a second take a line modified in
 * the other socket (114 ns each), 1e6 in this socket (50 ns, an L3-bound
 * stall): D = 0.4 C over W_D = 1.14e9 ns: s = 0.842; L = 0.05 C over
 * W_L = 1e6 x 50 + 0 L3 hits... = 5e7 ns: s_L = min(2.4, 1.2e8 / 5e7) = 2.4.
 * sharing = 1e7 x 114 x 0.842 + 1e6 x 50 x 2.4 = 0.4 C + 1.2e8 = 45 % of C.
 */
TEST(cost_false_sharing)
{
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;

	cc_init(&cc);
	in_init(&in);
	in.term[CT_STALL_MEM] = 0.5 * C;
	in.term[CT_STALL_L3_MISS] = 0.4 * C;
	in.term[CT_STALL_L2_MISS] = 0.45 * C;
	in.term[CT_DRAM_LOCAL] = 0;
	in.term[CT_DRAM_REMOTE] = 0;
	in.term[CT_CACHE_REMOTE] = 1e7;
	in.term[CT_HITM_LOCAL] = 1e6;
	cost_row(&cc, &in, &o);
	CHECK_NEAR(pct(o.cost[FACTOR_SHARING]), 40 + 100 * 1.2e8 / C, 1e-6);
	CHECK_NEAR(o.cost[FACTOR_LOCALITY], 0, 1e-6);
	check_bounds(&o);
	cost_calib_release(&cc);
}

/*
 * Trackers: the node's TOR residency is 160 ns at a 25 % remote mix on an
 * idle IMC: idle at that mix = 0.75 x 89 + 0.25 x 143 = 102.5 ns, so the
 * trackers add t = 57.5 ns to every miss.  An idle remote-only row (the
 * residency is just the remote latency): t = 0.
 */
TEST(cost_tracker_delay_beyond_the_mix)
{
	struct cost_calib cc;
	struct cost_node n;
	struct cost_in in;
	struct cost_out o;
	double term[CT_N], D = 0.6 * C;
	int t;

	cc_init(&cc);
	for (t = 0; t < CT_N; t++)
		term[t] = NAN;
	term[CT_NODE_BW_GBS] = 0;
	term[CT_TRACKER_NS] = 160;
	cost_node_from_terms(&cc, term, 0.25, &n);
	CHECK_NEAR(n.t_ns, 160 - 102.5, 1e-9);
	CHECK_NEAR(n.q_ns, 0, 1e-12);
	term[CT_TRACKER_NS] = 143;
	cost_node_from_terms(&cc, term, 1.0, &n);
	CHECK_NEAR(n.t_ns, 0, 1e-12);
	/* the row: 1e7 loads, 25 % remote, t = 57.5: queue = 1e7 x 57.5 x s */
	term[CT_TRACKER_NS] = 160;
	cost_node_from_terms(&cc, term, 0.25, &n);
	in_init(&in);
	in.term[CT_STALL_MEM] = in.term[CT_STALL_L2_MISS] = in.term[CT_STALL_L3_MISS] = D;
	in.term[CT_DRAM_LOCAL] = 7.5e6;
	in.term[CT_DRAM_REMOTE] = 2.5e6;
	in.local = in.remote = n;
	cost_row(&cc, &in, &o);
	CHECK_NEAR(o.cost[FACTOR_QUEUE], D * 1e7 * 57.5 / (7.5e6 * 146.5 + 2.5e6 * 200.5), 1);
	/* the queue never re-labels the remote latency: locality takes 2.5e6 x 54 */
	CHECK_NEAR(o.cost[FACTOR_LOCALITY], D * 2.5e6 * 54 / (7.5e6 * 146.5 + 2.5e6 * 200.5), 1);
	check_bounds(&o);
	cost_calib_release(&cc);
}

/*
 * No stall count (a vPMU): count x latency / MLP, labelled estimated.  The
 * example model's counts (test_model.c): 3e6 local, 1e6 remote DRAM loads,
 * 2e6 cross-socket HITM over 2e9 cycles at 2 GHz, MLP unknown (1): W =
 * 2.7e8 + 1.4e8 + 2.28e8 ns; locality = 1e6 x 54 x 2 = 1.08e8 cycles.
 * When count x latency exceeds the cycles, the misses overlapped: the
 * estimate is held to C (MLP >= W x ghz / C).
 */
TEST(cost_estimated_without_anchor)
{
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;

	cc_init(&cc);
	in_init(&in);
	in.cycles = 2e9;
	in.ghz = 2;
	in.term[CT_DRAM_LOCAL] = 3e6;
	in.term[CT_DRAM_REMOTE] = 1e6;
	in.term[CT_CACHE_REMOTE] = 2e6;
	cost_row(&cc, &in, &o);
	CHECK_INT(o.anchor, ANCHOR_ESTIMATED);
	CHECK_NEAR(o.cost[FACTOR_LOCALITY], 1.08e8, 1);
	CHECK_NEAR(o.cost[FACTOR_SHARING], 2e6 * 114 * 2, 1);
	CHECK_NEAR(o.budget, (3e6 * 89 + 1e6 * 143 + 2e6 * 114) * 2, 1);
	CHECK_NEAR(o.mlp, 1, 0);
	/* 1e8 local loads at 89 ns = 8.9 s of latency in 1 s: MLP >= 8.9 */
	in.term[CT_DRAM_LOCAL] = 1e8;
	in.term[CT_DRAM_REMOTE] = 0;
	in.term[CT_CACHE_REMOTE] = 0;
	cost_row(&cc, &in, &o);
	CHECK_NEAR(o.budget, 2e9, 1);
	CHECK_NEAR(o.mlp, 8.9, 1e-9);
	check_bounds(&o);
	/* outstanding-request counts give the MLP: 4 on average */
	in.term[CT_DRAM_LOCAL] = 1e6;
	in.term[CT_RD_OCCUPANCY] = 4e8;
	in.term[CT_RD_CYCLES] = 1e8;
	cost_row(&cc, &in, &o);
	CHECK_NEAR(o.mlp, 4, 1e-12);
	CHECK_NEAR(o.budget, 1e6 * 89 * 2 / 4, 1e-3);
	cost_calib_release(&cc);
}

/*
 * A zero that cannot be true: an emulated PMU lists the stall event and it
 * counts 0 while DRAM loads are counted.  The anchor is treated as missing
 * (estimated, flagged suspect), never as "not memory-bound".
 */
TEST(cost_suspect_zero_stall)
{
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;

	cc_init(&cc);
	in_init(&in);
	in.term[CT_STALL_MEM] = in.term[CT_STALL_L2_MISS] = in.term[CT_STALL_L3_MISS] = 0;
	in.term[CT_DRAM_LOCAL] = 1e6;
	in.term[CT_DRAM_REMOTE] = 1e6;
	cost_row(&cc, &in, &o);
	CHECK(o.suspect);
	CHECK_INT(o.anchor, ANCHOR_ESTIMATED);
	CHECK(o.budget > 0);
	CHECK_NEAR(o.cost[FACTOR_LOCALITY], 1e6 * 54 * GHZ, 1);
	CHECK_CONTAINS(o.anchor_why, "cannot be true");
	/* a real 0: nothing loaded from DRAM, nothing stalled */
	in.term[CT_DRAM_LOCAL] = in.term[CT_DRAM_REMOTE] = 0;
	cost_row(&cc, &in, &o);
	CHECK(!o.suspect);
	CHECK_INT(o.anchor, ANCHOR_MEASURED);
	CHECK_NEAR(o.budget, 0, 0);
	cost_calib_release(&cc);
}

/* More remote accesses never lower the locality cost (at a fixed total and stall). */
TEST(cost_locality_monotone_in_remote)
{
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;
	double prev = -1, r;

	cc_init(&cc);
	in_init(&in);
	in.term[CT_STALL_MEM] = in.term[CT_STALL_L2_MISS] = in.term[CT_STALL_L3_MISS] = 0.5 * C;
	for (r = 0; r <= 1.0001; r += 0.05) {
		in.term[CT_DRAM_LOCAL] = (1 - r) * 1e7;
		in.term[CT_DRAM_REMOTE] = r * 1e7;
		cost_row(&cc, &in, &o);
		CHECK(o.cost[FACTOR_LOCALITY] >= prev - 1e-6);
		prev = o.cost[FACTOR_LOCALITY];
		check_bounds(&o);
	}
	cost_calib_release(&cc);
}

/* What is not there is n/a, with the reason; never 0. */
TEST(cost_missing_inputs_are_na)
{
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;
	int f;

	cc_init(&cc);
	in_init(&in);
	cost_row(&cc, &in, &o);
	for (f = 0; f < FACTOR_N; f++) {
		CHECK_NAN(o.cost[f]);
		CHECK(o.why[f] != NULL);
	}
	in.term[CT_DRAM_LOCAL] = 1e6;
	in.term[CT_DRAM_REMOTE] = 1e6;
	in.cycles = NAN;
	cost_row(&cc, &in, &o);
	CHECK_NAN(o.cost[FACTOR_LOCALITY]);
	CHECK_STR(o.why[FACTOR_LOCALITY], "no cycle count for the row");
	/* no calibration at all */
	cost_calib_release(&cc);
	cost_calib_init(&cc, NULL);
	in.cycles = C;
	cost_row(&cc, &in, &o);
	CHECK_NAN(o.cost[FACTOR_LOCALITY]);
	CHECK_CONTAINS(o.why[FACTOR_LOCALITY], "calibrate");
	cost_calib_release(&cc);
}

/* A VM is the sum of its vCPUs; a factor n/a on one vCPU does not erase the others'. */
TEST(cost_sum_of_vcpus)
{
	struct cost_out a, b, sum;

	cost_out_zero(&sum);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.cost[FACTOR_LOCALITY] = 10;
	b.cost[FACTOR_LOCALITY] = NAN;
	b.why[FACTOR_LOCALITY] = "b has none";
	a.cost[FACTOR_LLC] = NAN;
	a.why[FACTOR_LLC] = "a has none";
	b.cost[FACTOR_LLC] = NAN;
	b.why[FACTOR_LLC] = "b has none";
	a.budget = 50;
	b.budget = 30;
	a.cycles = 100;
	b.cycles = 100;
	a.anchor = ANCHOR_MEASURED;
	b.anchor = ANCHOR_ESTIMATED;
	a.remainder = a.base = a.llc_base = b.remainder = b.base = b.llc_base = 0;
	sum.cost[FACTOR_LLC] = NAN;
	cost_out_add(&sum, &a);
	cost_out_add(&sum, &b);
	CHECK_NEAR(sum.cost[FACTOR_LOCALITY], 10, 0);
	CHECK_NAN(sum.cost[FACTOR_LLC]);
	CHECK_STR(sum.why[FACTOR_LLC], "a has none");
	CHECK_NEAR(sum.budget, 80, 0);
	CHECK_NEAR(sum.cycles, 200, 0);
	CHECK_INT(sum.anchor, ANCHOR_ESTIMATED);
}

/*
 * The solo rate across samples (collect/frame.c): a row alone in its LLC
 * has its own rate as the solo rate; the lowest seen alone is kept by key
 * and used when it shares the LLC later; unknown tenancy without history
 * is n/a with the reason.
 */
TEST(cost_solo_rate_across_samples)
{
	struct cost_solo *solo = cost_solo_new();
	struct collect_frame f;
	struct collect_row r;
	const char *why;
	double mpki;
	int t;

	memset(&f, 0, sizeof(f));
	memset(&r, 0, sizeof(r));
	for (t = 0; t < CT_N; t++)
		r.term[t] = NAN;
	r.kind = ENT_VCPU;
	r.key = "vcpu:kvm:1:0";
	r.solo_mpki = NAN;
	r.term[CT_INSTR] = 1e9;
	r.term[CT_LLC_MISS] = 3e6;          /* 3 MPKI */
	f.rows = &r;
	f.n_rows = 1;
	/* tenancy unknown, nothing seen: n/a */
	cost_solo_lookup(solo, &r, &mpki, &why);
	CHECK_NAN(mpki);
	CHECK_CONTAINS(why, "not known");
	/* alone: its rate now */
	r.llc_alone = 1;
	cost_solo_lookup(solo, &r, &mpki, &why);
	CHECK_NEAR(mpki, 3, 1e-12);
	cost_solo_update(solo, &f);
	r.term[CT_LLC_MISS] = 2e6;          /* alone again at 2 MPKI: the lower is kept */
	cost_solo_update(solo, &f);
	/* shared now at 9 MPKI: the solo rate is the 2 seen alone */
	r.llc_alone = -1;
	r.term[CT_LLC_MISS] = 9e6;
	cost_solo_update(solo, &f);         /* not alone: not remembered */
	cost_solo_lookup(solo, &r, &mpki, &why);
	CHECK_NEAR(mpki, 2, 1e-12);
	/* a row of another key has no history */
	r.key = "vcpu:kvm:1:1";
	cost_solo_lookup(solo, &r, &mpki, &why);
	CHECK_NAN(mpki);
	CHECK_CONTAINS(why, "no interval in which its LLC had no other busy tenant");
	/* the producer's own solo rate wins (model eval) */
	r.solo_mpki = 1.5;
	cost_solo_lookup(solo, &r, &mpki, &why);
	CHECK_NEAR(mpki, 1.5, 0);
	cost_solo_free(solo);
}
