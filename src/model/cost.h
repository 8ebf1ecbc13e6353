/* cost.h - the cost stage: a row's memory-stall budget split, without overlap, into the five factors */
#ifndef VP_MODEL_COST_H
#define VP_MODEL_COST_H

#include <stdbool.h>
#include <stddef.h>

#include "calib/calib.h"
#include "model/model.h"

/*
 * Every cost vmmprof prints comes from here (docs/method.md, "Costs").  A
 * factor's cost is a counterfactual: the stall cycles that would go away
 * if that factor alone were removed.  The row's DRAM-side stall is split
 * by latency-weighted access counts (Top-down's memory-bound subtree):
 *
 *   W_D = n_loc (L_loc + q_loc + t) + n_rem (L_rem + q_rem + t) + n_rc c2c_rem    [ns]
 *
 * with L the calibrated idle latencies, q the memory controller's queueing
 * delay at the serving node's utilisation (the calibrated loaded-latency
 * curve), t the delay added by full shared request trackers, n_rc the
 * lines taken from another socket's cache.  The DRAM-bound stall D (a
 * measured count where the PMU has one) gives the stall cycles per ns of
 * modelled latency, s = min(ghz, D / W_D): the memory-level-parallelism
 * correction.  With x extra LLC misses above the row's solo rate (split
 * x_loc, x_rem by the local/remote mix), the exclusive parts are
 *
 *   locality = (n_rem - x_rem) (L_rem - L_loc)            s
 *   llc      = x (L_loc - L_llc)                          s
 *   imc      = (n_loc - x_loc) q_loc + (n_rem - x_rem) q_rem   s
 *   queue    = (n_loc + n_rem - x) t                      s
 *   sharing  = n_rc c2c_rem s  +  n_hl c2c_loc s_L   (in-socket HITM lives in the
 *              L3-bound stall L = stall_l2_miss - stall_l3_miss, s_L = min(ghz, L / W_L))
 *   interaction (the remainder) = x_loc (q_loc + t) + x_rem (L_rem - L_loc + q_rem + t)   s
 *
 * and the rest of W_D is the base cost of reaching memory at all.  The
 * five and the remainder add up to what removing every factor at once
 * would save, never more than the budget (the memory-bound stall), never
 * more than the row's cycles.  In a scenario where only one factor is
 * present the others and the remainder are 0, and that factor's cost is
 * its exact counterfactual: no proportional fitting.
 *
 * Where no stall count exists (a vPMU, some Arm cores) or it cannot be
 * true (0 beside DRAM loads: an emulated PMU), s = ghz / MLP with MLP from
 * outstanding-request counts (1 without them: an upper bound), bounded so
 * that the modelled stall never exceeds the cycles (MLP >= W / C); those
 * costs are labelled estimates.
 */

/* Where a row's budget comes from. */
enum cost_anchor {
	ANCHOR_NONE,         /* no costs at all (no access counts, no cycles) */
	ANCHOR_MEASURED,     /* the PMU's stall cycles */
	ANCHOR_ESTIMATED,    /* count x latency / MLP: no (trustworthy) stall count */
};

/* "none", "measured", "estimated". */
const char *cost_anchor_name(enum cost_anchor a);

/* The calibration as the stage uses it: latencies in ns, the IMC curve. */
struct cost_calib {
	double lat_local, lat_remote;      /* idle DRAM, ns */
	double lat_llc;                    /* L3 hit, ns (NaN: taken as 0, an upper bound) */
	double c2c_local, c2c_remote;      /* core-to-core line transfer, ns */
	double peak_bw;                    /* GB/s of one node */
	/* loaded-latency curve: utilisation (bw / peak) ascending -> extra ns over idle */
	double *curve_u, *curve_q;
	size_t n_curve;
	const char *curve_why;             /* NULL or why there is no curve (static text: a
					      reason in a cost_out outlives this struct) */
};

/*
 * From a calibration (NULL: every value NaN).  The curve is the loaded
 * points (bandwidth, latency) made relative to cal.peak_bw_gbs and
 * lat_local_ns, smoothed to be non-decreasing; without points, the
 * scalars' own definitions: (0, 0), (knee, L/2), (1, loaded - L).
 * Release with cost_calib_release().
 */
void cost_calib_init(struct cost_calib *cc, const struct calib *cal);
void cost_calib_release(struct cost_calib *cc);

/* The memory controller's queueing delay (ns over idle) at utilisation u
 * (bandwidth / peak), interpolated on the curve, held at its last point
 * beyond it; NaN without a curve or for NaN u. */
double cost_imc_delay(const struct cost_calib *cc, double u);

/* The state of the node a row's memory is served by. */
struct cost_node {
	double util;                       /* bandwidth / peak, NaN unknown */
	double q_ns;                       /* queueing delay at util, NaN unknown */
	double t_ns;                       /* tracker delay beyond DRAM + queueing, NaN unknown */
	double tracker_full;               /* share of time full, NaN unknown */
};

/* One row's inputs. */
struct cost_in {
	double term[CT_N];                 /* the model's cost terms on this row; NaN unbound */
	double cycles;                     /* the row's cycles (the model's `cycles`) */
	double ghz;                        /* cycles per ns while it ran */
	struct cost_node local;            /* the node it runs on */
	struct cost_node remote;           /* the nodes its remote accesses go to */
	double solo_mpki;                  /* LLC misses per kilo-instruction alone; NaN unknown */
	const char *solo_why;              /* why solo_mpki is NaN (NULL: "unknown") */
};

struct cost_out {
	double cost[FACTOR_N];             /* stall cycles, NaN: n/a (why[f] says why) */
	double remainder;                  /* the factors' interaction, cycles */
	double base;                       /* reaching memory at all: not a factor, cycles */
	double llc_base;                   /* the misses at the solo rate against hits, cycles */
	double budget;                     /* memory-bound stall cycles M (measured or estimated) */
	double cycles;
	enum cost_anchor anchor;
	bool suspect;                      /* a stall count of 0 beside DRAM loads was ignored */
	double mlp;                        /* the MLP the estimate used, NaN when anchored */
	const char *why[FACTOR_N];         /* static text, NULL when cost[f] is a number */
	const char *anchor_why;            /* static text: why the anchor is missing, or NULL */
};

/*
 * Split one row's stall (docs/method.md).  Pure: the same inputs give the
 * same costs, live, on recordings and in `model eval`.
 */
void cost_row(const struct cost_calib *cc, const struct cost_in *in, struct cost_out *out);

/* Sum b into a (a VM's costs from its vCPUs): NaN + x = x when the other
 * is known, reasons kept from a when both are NaN. */
void cost_out_add(struct cost_out *a, const struct cost_out *b);

/* An empty sum: every cost 0, anchor NONE (for cost_out_add()). */
void cost_out_zero(struct cost_out *o);
/* Nothing known: every figure NaN, anchor NONE (a sum of no parts is n/a,
 * and cost_out_add() onto it keeps what its parts know). */
void cost_out_none(struct cost_out *o);

/*
 * A node's state from its node row's terms (bandwidth, tracker residency
 * and full share) and the DRAM mix of the requests it served (remote share
 * f_rem of the rows that ran there; NaN unknown): util, q at util, and the
 * trackers' delay beyond the idle latency at that mix and the queueing,
 * t = max(0, residency - ((1 - f_rem) L_loc + f_rem L_rem) - q).
 */
void cost_node_from_terms(const struct cost_calib *cc, const double *term, double f_rem,
			  struct cost_node *out);

/* A node with nothing known. */
void cost_node_unknown(struct cost_node *n);

#endif
