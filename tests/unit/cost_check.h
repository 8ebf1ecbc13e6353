/* cost_check.h - the cost stage's invariants, shared by test_cost_invariants.c and tests/fuzz/fuzz_cost.c */
#ifndef VP_TEST_COST_CHECK_H
#define VP_TEST_COST_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/cost.h"

/*
 * A source of numbers: the fuzzer's bytes, or a fixed-seed generator.
 * Each value is drawn from a plausible range, sometimes NaN (an unbound
 * term, an unknown node) and sometimes 0.
 */
struct cc_src {
	const uint8_t *data;   /* NULL: the generator */
	size_t size, pos;
	uint64_t state;
};

static unsigned cc_byte(struct cc_src *s)
{
	if (s->data)
		return s->pos < s->size ? s->data[s->pos++] : 0;
	s->state = s->state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(s->state >> 56);
}

/* 0..max, or NaN / 0 now and then (nan_ok: NaN allowed) */
static double cc_val(struct cc_src *s, double max, int nan_ok)
{
	unsigned k = cc_byte(s), a = cc_byte(s), b = cc_byte(s);

	if (nan_ok && k < 24)
		return NAN;
	if (k < 48)
		return 0;
	return max * (double)(a << 8 | b) / 65535.0;
}

/* Draw a calibration (latencies ordered as physics has them, a curve) and one row. */
static void cc_draw(struct cc_src *s, struct cost_calib *cc, double *curve_u, double *curve_q,
		    struct cost_in *in)
{
	int t;

	memset(cc, 0, sizeof(*cc));
	cc->lat_local = 60 + cc_val(s, 100, 0);
	cc->lat_remote = cc->lat_local + cc_val(s, 150, 1);
	cc->lat_llc = cc_val(s, cc->lat_local * 0.9, 1);
	if (cc->lat_llc == 0)
		cc->lat_llc = NAN;
	cc->c2c_local = cc_val(s, 150, 1);
	cc->c2c_remote = cc_val(s, 300, 1);
	cc->peak_bw = 20 + cc_val(s, 200, 0);
	curve_u[0] = 0;
	curve_q[0] = 0;
	curve_u[1] = 0.5;
	curve_q[1] = cc_val(s, 20, 0);
	curve_u[2] = 0.95;
	curve_q[2] = curve_q[1] + cc_val(s, 200, 0);
	cc->curve_u = curve_u;
	cc->curve_q = curve_q;
	cc->n_curve = cc_byte(s) < 32 ? 0 : 3;
	cc->curve_why = cc->n_curve ? NULL : "no curve";

	memset(in, 0, sizeof(*in));
	in->ghz = 1 + cc_val(s, 4, 0);
	in->cycles = in->ghz * 1e9 * (0.01 + cc_val(s, 1, 0));
	for (t = 0; t < CT_N; t++)
		in->term[t] = NAN;
	in->term[CT_DRAM_LOCAL] = cc_val(s, 5e7, 1);
	in->term[CT_DRAM_REMOTE] = cc_val(s, 5e7, 1);
	in->term[CT_CACHE_REMOTE] = cc_val(s, 1e7, 1);
	in->term[CT_HITM_LOCAL] = cc_val(s, 1e7, 1);
	in->term[CT_L3_HIT] = cc_val(s, 1e8, 1);
	in->term[CT_INSTR] = cc_val(s, 4e9, 1);
	in->term[CT_LLC_MISS] = cc_val(s, 1e8, 1);
	in->term[CT_STALL_L3_MISS] = cc_val(s, in->cycles * 1.2, 1);
	in->term[CT_STALL_L2_MISS] = cc_val(s, in->cycles * 1.2, 1);
	in->term[CT_STALL_MEM] = cc_val(s, in->cycles * 1.2, 1);
	in->term[CT_RD_OCCUPANCY] = cc_val(s, in->cycles * 20, 1);
	in->term[CT_RD_CYCLES] = cc_val(s, in->cycles, 1);
	cost_node_unknown(&in->local);
	cost_node_unknown(&in->remote);
	in->local.q_ns = cc_val(s, 200, 1);
	in->local.t_ns = cc_val(s, 200, 1);
	in->remote.q_ns = cc_val(s, 200, 1);
	in->solo_mpki = cc_val(s, 50, 1);
}

/*
 * Check one row's split.  Returns NULL or what is wrong (static text,
 * details in buf).  eps: a cost of -1e-9 x cycles is a rounding of 0.
 */
static const char *cc_check(const struct cost_in *in, const struct cost_out *o, char *buf,
			    size_t size)
{
	double sum = 0, eps = 1e-9 * (in->cycles > 0 ? in->cycles : 1);
	int f;

	for (f = 0; f < FACTOR_N; f++) {
		if (o->cost[f] < -eps) {
			snprintf(buf, size, "cost %s is negative: %g", factor_name((enum factor_id)f),
				 o->cost[f]);
			return buf;
		}
		if (isinf(o->cost[f])) {
			snprintf(buf, size, "cost %s is infinite", factor_name((enum factor_id)f));
			return buf;
		}
		if (isfinite(o->cost[f]))
			sum += o->cost[f];
		if (isnan(o->cost[f]) && !o->why[f]) {
			snprintf(buf, size, "cost %s is n/a without a reason", factor_name((enum factor_id)f));
			return buf;
		}
	}
	if (o->remainder < -eps) {
		snprintf(buf, size, "the remainder is negative: %g", o->remainder);
		return buf;
	}
	if (isfinite(o->remainder))
		sum += o->remainder;
	if (sum > eps && !(sum <= o->budget * (1 + 1e-9) + eps)) {
		snprintf(buf, size, "costs and remainder %g exceed the budget %g", sum, o->budget);
		return buf;
	}
	if (isfinite(o->budget) && !(o->budget <= in->cycles * (1 + 1e-9))) {
		snprintf(buf, size, "the budget %g exceeds the cycles %g", o->budget, in->cycles);
		return buf;
	}
	/* a factor without its counts is n/a */
	if (isnan(in->term[CT_DRAM_REMOTE]) && !isnan(o->cost[FACTOR_LOCALITY]))
		return "locality has a cost without a remote DRAM count";
	if ((isnan(in->term[CT_LLC_MISS]) || isnan(in->term[CT_INSTR]) || isnan(in->solo_mpki)) &&
	    !isnan(o->cost[FACTOR_LLC]))
		return "LLC contention has a cost without misses, instructions or a solo rate";
	if (isnan(in->term[CT_CACHE_REMOTE]) && isnan(in->term[CT_HITM_LOCAL]) &&
	    !isnan(o->cost[FACTOR_SHARING]))
		return "sharing has a cost without a cache-to-cache count";
	if (isnan(in->local.t_ns) && !isnan(o->cost[FACTOR_QUEUE]))
		return "queue has a cost without a tracker residency";
	if (isnan(in->local.q_ns) && isnan(in->remote.q_ns) && !isnan(o->cost[FACTOR_IMC]))
		return "IMC has a cost without the serving node's queueing";
	return NULL;
}

/* Add n accesses of latency lat_ns to a row the way the physics would: the
 * stall counts grow by their latency at MLP 1.  False when that would take
 * a stall count past the cycles (a saturated row: no stall can be added). */
static int cc_add_accesses(struct cost_in *in, int term, double n, double lat_ns, int llc)
{
	double add = n * lat_ns * in->ghz;
	int t, k;
	static const int stalls[3] = { CT_STALL_L3_MISS, CT_STALL_L2_MISS, CT_STALL_MEM };

	for (k = 0; k < 3; k++) {
		t = stalls[k];
		if (isfinite(in->term[t]) && in->term[t] > 0) {   /* a 0 stays 0: still suspect */
			if (in->term[t] + add > in->cycles)
				return 0;
			in->term[t] += add;
		}
	}
	in->term[term] += n;
	if (llc && isfinite(in->term[CT_LLC_MISS]))
		in->term[CT_LLC_MISS] += n;
	return 1;
}

/*
 * More remote accesses never lower the locality cost; more co-runner
 * misses (LLC misses and the DRAM loads they cause) never lower LLC
 * contention.  The added accesses add their stall, as they would on a
 * machine (holding a measured stall fixed while adding misses is not a
 * physical situation).  Returns NULL or what is wrong.
 */
static const char *cc_check_monotone(const struct cost_calib *cc, const struct cost_in *in,
				     const struct cost_out *o, char *buf, size_t size)
{
	struct cost_in more = *in;
	struct cost_out o2;
	double tol, q = isfinite(in->local.q_ns) ? in->local.q_ns : 0;
	double qr = isfinite(in->remote.q_ns) ? in->remote.q_ns : 0;
	double t = isfinite(in->local.t_ns) ? in->local.t_ns : 0;

	if (isfinite(in->term[CT_DRAM_REMOTE]) &&
	    cc_add_accesses(&more, CT_DRAM_REMOTE, in->term[CT_DRAM_REMOTE] * 0.5 + 1e5,
			    cc->lat_remote + qr + t, 0)) {
		cost_row(cc, &more, &o2);
		tol = 1e-9 * fabs(o->cost[FACTOR_LOCALITY]) + 1e-6;
		if (isfinite(o->cost[FACTOR_LOCALITY]) && isfinite(o2.cost[FACTOR_LOCALITY]) &&
		    o2.cost[FACTOR_LOCALITY] < o->cost[FACTOR_LOCALITY] - tol) {
			snprintf(buf, size, "locality fell from %g to %g with more remote accesses",
				 o->cost[FACTOR_LOCALITY], o2.cost[FACTOR_LOCALITY]);
			return buf;
		}
	}
	/* a saturated row (its stall is all its cycles) has no room for the stall more
	 * misses would add: an estimate clipped to the cycles, like a measured stall
	 * that would pass them, says nothing about more misses (reported: there the
	 * LLC cost can fall as the extra misses' queueing goes to the remainder) */
	if (o->budget >= in->cycles * (1 - 1e-9))
		return NULL;
	more = *in;
	if (isfinite(in->term[CT_LLC_MISS]) && isfinite(in->term[CT_DRAM_LOCAL]) &&
	    cc_add_accesses(&more, CT_DRAM_LOCAL, 1e6, cc->lat_local + q + t, 1)) {
		cost_row(cc, &more, &o2);
		tol = 1e-9 * fabs(o->cost[FACTOR_LLC]) + 1e-6;
		if (o2.budget < in->cycles * (1 - 1e-9) &&
		    isfinite(o->cost[FACTOR_LLC]) && isfinite(o2.cost[FACTOR_LLC]) &&
		    o2.cost[FACTOR_LLC] < o->cost[FACTOR_LLC] - tol) {
			snprintf(buf, size, "LLC contention fell from %g to %g with more co-runner misses",
				 o->cost[FACTOR_LLC], o2.cost[FACTOR_LLC]);
			return buf;
		}
	}
	return NULL;
}

#endif
