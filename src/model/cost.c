/* cost.c - the cost stage: the latency-weighted, counterfactual split of a row's memory stall */
#include "model/cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static const struct {
	const char *name;
	const char *desc;
} terms[CT_N] = {
	[CT_STALL_MEM] = { "stall_mem", "cycles stalled on memory at any level: the budget" },
	[CT_STALL_L2_MISS] = { "stall_l2_miss", "cycles stalled with an L2 miss outstanding" },
	[CT_STALL_L3_MISS] = { "stall_l3_miss",
			       "cycles stalled with an L3 miss outstanding (the DRAM-bound stall)" },
	[CT_RD_OCCUPANCY] = { "rd_occupancy",
			      "outstanding data reads summed over cycles (for the MLP)" },
	[CT_RD_CYCLES] = { "rd_cycles", "cycles with at least one data read outstanding" },
	[CT_DRAM_LOCAL] = { "dram_local", "loads served by the local node's DRAM" },
	[CT_DRAM_REMOTE] = { "dram_remote", "loads served by another node's DRAM" },
	[CT_CACHE_REMOTE] = { "cache_remote",
			      "loads served by another socket's cache (HITM and forwards)" },
	[CT_HITM_LOCAL] = { "hitm_local",
			    "loads served by a modified line of another core in the socket" },
	[CT_L3_HIT] = { "l3_hit", "loads that hit the L3 without a snoop" },
	[CT_LLC_MISS] = { "llc_miss", "LLC misses (their excess over the solo rate is contention)" },
	[CT_INSTR] = { "instr", "instructions retired" },
	[CT_NODE_BW_GBS] = { "node_bw_gbs", "node rows: the node's DRAM bandwidth, GB/s" },
	[CT_TRACKER_NS] = { "tracker_ns",
			    "node rows: mean residency of a miss in the shared request trackers, ns" },
	[CT_TRACKER_FULL] = { "tracker_full",
			      "node rows: share of time the shared request trackers were full" },
};

const char *cost_term_name(enum cost_term t)
{
	return (unsigned)t < CT_N ? terms[t].name : NULL;
}

const char *cost_term_desc(enum cost_term t)
{
	return (unsigned)t < CT_N ? terms[t].desc : NULL;
}

int cost_term_lookup(const char *name)
{
	int t;

	for (t = 0; t < CT_N; t++)
		if (!strcmp(name, terms[t].name))
			return t;
	return -1;
}

const char *cost_anchor_name(enum cost_anchor a)
{
	switch (a) {
	case ANCHOR_MEASURED: return "measured";
	case ANCHOR_ESTIMATED: return "estimated";
	case ANCHOR_NONE: break;
	}
	return "none";
}

/* ---- calibration ---- */

static bool pos(double v)
{
	return isfinite(v) && v > 0;
}

static bool nonneg(double v)
{
	return isfinite(v) && v >= 0;
}

void cost_calib_init(struct cost_calib *cc, const struct calib *cal)
{
	double idle, peak;
	size_t i, n = 0;

	memset(cc, 0, sizeof(*cc));
	cc->lat_local = cc->lat_remote = cc->lat_llc = NAN;
	cc->c2c_local = cc->c2c_remote = cc->peak_bw = NAN;
	if (!cal) {
		cc->curve_why = "no calibration (run 'vmmprof calibrate')";
		return;
	}
	cc->lat_local = pos(cal->val[CAL_LAT_LOCAL_NS]) ? cal->val[CAL_LAT_LOCAL_NS] : NAN;
	cc->lat_remote = pos(cal->val[CAL_LAT_REMOTE_NS]) ? cal->val[CAL_LAT_REMOTE_NS] : NAN;
	cc->lat_llc = pos(cal->val[CAL_LAT_LLC_NS]) ? cal->val[CAL_LAT_LLC_NS] : NAN;
	cc->c2c_local = pos(cal->val[CAL_LAT_C2C_LOCAL_NS]) ? cal->val[CAL_LAT_C2C_LOCAL_NS] : NAN;
	cc->c2c_remote = pos(cal->val[CAL_LAT_C2C_REMOTE_NS]) ? cal->val[CAL_LAT_C2C_REMOTE_NS] : NAN;
	cc->peak_bw = pos(cal->val[CAL_PEAK_BW_GBS]) ? cal->val[CAL_PEAK_BW_GBS] : NAN;
	/* a latency that is below the one it adds to cannot be true: not used */
	if (isfinite(cc->lat_remote) && isfinite(cc->lat_local) && cc->lat_remote < cc->lat_local)
		cc->lat_remote = NAN;
	if (isfinite(cc->lat_llc) && isfinite(cc->lat_local) && cc->lat_llc >= cc->lat_local)
		cc->lat_llc = NAN;
	idle = cc->lat_local;
	peak = cc->peak_bw;
	if (!isfinite(idle) || !isfinite(peak)) {
		cc->curve_why = !isfinite(idle) ? "the calibration has no idle local latency "
						  "(lat_local_ns)" :
				"the calibration has no peak bandwidth (peak_bw_gbs)";
		return;
	}
	cc->curve_u = xcalloc(cal->n_loaded + 4, sizeof(double));
	cc->curve_q = xcalloc(cal->n_loaded + 4, sizeof(double));
	cc->curve_u[n] = 0;
	cc->curve_q[n++] = 0;
	for (i = 0; i < cal->n_loaded; i++) {
		const struct calib_point *p = &cal->loaded[i];

		if (!nonneg(p->bw_gbs) || !pos(p->lat_ns))
			continue;
		cc->curve_u[n] = p->bw_gbs / peak;
		cc->curve_q[n++] = p->lat_ns - idle;
	}
	if (n == 1) {
		double knee = cal->val[CAL_BW_KNEE_GBS], loaded = cal->val[CAL_LAT_LOADED_NS];

		/* the scalars by their definitions: the knee is where latency rose by
		 * half over idle, lat_loaded the latency at the highest load (~peak) */
		if (pos(knee) && knee < peak) {
			cc->curve_u[n] = knee / peak;
			cc->curve_q[n++] = idle / 2;
		}
		if (pos(loaded)) {
			cc->curve_u[n] = 1;
			cc->curve_q[n++] = loaded - idle;
		}
	}
	/* sort by utilisation (insertion: a handful of points) */
	for (i = 1; i < n; i++) {
		size_t j = i;

		while (j > 0 && cc->curve_u[j - 1] > cc->curve_u[j]) {
			double u = cc->curve_u[j], q = cc->curve_q[j];

			cc->curve_u[j] = cc->curve_u[j - 1];
			cc->curve_q[j] = cc->curve_q[j - 1];
			cc->curve_u[j - 1] = u;
			cc->curve_q[j - 1] = q;
			j--;
		}
	}
	/* queueing never shortens a latency, and more load never lowers it:
	 * clamp at 0, then the running maximum (a noisy point does not dip) */
	for (i = 0; i < n; i++) {
		if (cc->curve_q[i] < 0)
			cc->curve_q[i] = 0;
		if (i > 0 && cc->curve_q[i] < cc->curve_q[i - 1])
			cc->curve_q[i] = cc->curve_q[i - 1];
	}
	cc->n_curve = n;
	if (n < 2) {
		cc->curve_why = "the calibration has no loaded-latency points (run 'vmmprof calibrate')";
		cc->n_curve = 0;
	}
}

void cost_calib_release(struct cost_calib *cc)
{
	free(cc->curve_u);
	free(cc->curve_q);
	memset(cc, 0, sizeof(*cc));
}

double cost_imc_delay(const struct cost_calib *cc, double u)
{
	size_t i;

	if (!cc->n_curve || !isfinite(u))
		return NAN;
	if (u <= cc->curve_u[0])
		return cc->curve_q[0];
	for (i = 1; i < cc->n_curve; i++)
		if (u <= cc->curve_u[i]) {
			double du = cc->curve_u[i] - cc->curve_u[i - 1];
			double w = du > 0 ? (u - cc->curve_u[i - 1]) / du : 1;

			return cc->curve_q[i - 1] + w * (cc->curve_q[i] - cc->curve_q[i - 1]);
		}
	return cc->curve_q[cc->n_curve - 1];
}

void cost_node_unknown(struct cost_node *n)
{
	n->util = n->q_ns = n->t_ns = n->tracker_full = NAN;
}

void cost_node_from_terms(const struct cost_calib *cc, const double *term, double f_rem,
			  struct cost_node *out)
{
	double bw = term[CT_NODE_BW_GBS], res = term[CT_TRACKER_NS];

	cost_node_unknown(out);
	if (nonneg(bw) && pos(cc->peak_bw)) {
		out->util = bw / cc->peak_bw;
		out->q_ns = cost_imc_delay(cc, out->util);
	}
	if (nonneg(term[CT_TRACKER_FULL]))
		out->tracker_full = fmin(1, term[CT_TRACKER_FULL]);
	if (pos(res) && isfinite(cc->lat_local)) {
		/* the residency is the whole miss latency: take away what an idle
		 * machine would show at the same mix, and what the IMC charges */
		double fr = nonneg(f_rem) ? fmin(1, f_rem) : 0;
		double idle = isfinite(cc->lat_remote) ?
			      (1 - fr) * cc->lat_local + fr * cc->lat_remote : NAN;
		double q = isfinite(out->q_ns) ? out->q_ns : 0;

		if (fr == 0)
			idle = cc->lat_local;
		if (isfinite(idle))
			out->t_ns = fmax(0, res - idle - q);
	}
}

/* ---- one row ---- */

void cost_out_zero(struct cost_out *o)
{
	int f;

	memset(o, 0, sizeof(*o));
	for (f = 0; f < FACTOR_N; f++)
		o->cost[f] = 0;
	o->mlp = NAN;
	o->anchor = ANCHOR_NONE;
}

void cost_out_none(struct cost_out *o)
{
	int f;

	memset(o, 0, sizeof(*o));
	for (f = 0; f < FACTOR_N; f++)
		o->cost[f] = NAN;
	o->remainder = o->base = o->llc_base = o->budget = o->cycles = o->mlp = NAN;
	o->anchor = ANCHOR_NONE;
}

static void set_na(struct cost_out *o, int f, const char *why)
{
	o->cost[f] = NAN;
	o->why[f] = why;
}

/* a + b where a NaN contributes nothing, but NaN + NaN stays NaN */
static double add_known(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a + b;
}

void cost_out_add(struct cost_out *a, const struct cost_out *b)
{
	int f;

	for (f = 0; f < FACTOR_N; f++) {
		bool was_nan = isnan(a->cost[f]);

		a->cost[f] = add_known(a->cost[f], b->cost[f]);
		if (was_nan && !isnan(b->cost[f]))
			a->why[f] = NULL;
		else if (isnan(a->cost[f]) && !a->why[f])
			a->why[f] = b->why[f];
	}
	a->remainder = add_known(a->remainder, b->remainder);
	a->base = add_known(a->base, b->base);
	a->llc_base = add_known(a->llc_base, b->llc_base);
	a->budget = add_known(a->budget, b->budget);
	a->cycles = add_known(a->cycles, b->cycles);
	a->suspect |= b->suspect;
	/* the weakest anchor of the parts is the sum's */
	if (b->anchor == ANCHOR_ESTIMATED || a->anchor == ANCHOR_NONE)
		a->anchor = b->anchor == ANCHOR_NONE ? a->anchor : b->anchor;
	if (!a->anchor_why)
		a->anchor_why = b->anchor_why;
}

static double nz(double v) /* an unbound count is no access of that kind */
{
	return nonneg(v) ? v : 0;
}

/*
 * One row's costing, phase to phase (cost_usable() .. cost_split()): the
 * access counts, the calibrated and modelled latencies, the anchor's stall
 * cycles and the rates that turn ns of latency into stall cycles.
 */
struct costing {
	const struct cost_calib *cc;
	const struct cost_in *in;
	struct cost_out *o;
	const double *T;
	double C, ghz;
	double n_loc, n_rem, n_rc, n_hl, n_dram;   /* loads by source */
	double Lloc, Lrem, Lllc;                   /* calibrated latencies, ns */
	double ql, qr, t, dL;                      /* queueing (local, remote), trackers, remote extra */
	double W_D, W_L;                           /* modelled ns: DRAM part, LLC/c2c part */
	double D, L, M;                            /* stall cycles: L3 miss, L2-not-L3, all memory */
	double s, sL;                              /* stall cycles per ns of W_D, of W_L */
	double x, x_loc, x_rem;                    /* extra misses above the solo rate */
};

/* Whether the row can be costed at all; when not, every factor says why. */
static bool cost_usable(struct costing *k)
{
	const double *T = k->T;
	bool have_dram = isfinite(T[CT_DRAM_LOCAL]) || isfinite(T[CT_DRAM_REMOTE]);
	int f;

	if (!pos(k->C) || !pos(k->ghz)) {
		for (f = 0; f < FACTOR_N; f++)
			k->o->why[f] = !pos(k->C) ? "no cycle count for the row" :
				       "no clock rate (cycles per ns) for the row";
		return false;
	}
	if (!have_dram && !(nz(T[CT_CACHE_REMOTE]) > 0) && !(nz(T[CT_HITM_LOCAL]) > 0)) {
		for (f = 0; f < FACTOR_N; f++)
			k->o->why[f] = "the model counts no loads by their source here";
		k->o->budget = isfinite(T[CT_STALL_MEM]) ? fmin(fmax(T[CT_STALL_MEM], 0), k->C) : NAN;
		return false;
	}
	if (!isfinite(k->Lloc)) {
		for (f = 0; f < FACTOR_N; f++)
			k->o->why[f] = "no calibrated idle DRAM latency (run 'vmmprof calibrate')";
		return false;
	}
	return true;
}

/* The anchor: measured stall cycles, unless they cannot be true. */
static void cost_anchor(struct costing *k)
{
	const double *T = k->T;
	struct cost_out *o = k->o;

	k->M = T[CT_STALL_MEM];
	k->D = T[CT_STALL_L3_MISS];
	if (nonneg(T[CT_STALL_L2_MISS]) && nonneg(k->D))
		k->L = fmax(0, T[CT_STALL_L2_MISS] - k->D);
	if (!isfinite(k->M) && isfinite(T[CT_STALL_L2_MISS]))
		k->M = T[CT_STALL_L2_MISS];
	if (!isfinite(k->M) && isfinite(k->D))
		k->M = k->D;
	if (isfinite(k->M) && (k->M <= 0 || (isfinite(k->D) && k->D <= 0)) && k->n_dram > 0) {
		o->suspect = true;
		o->anchor_why = "a stall count of 0 beside DRAM loads cannot be true (an emulated or "
				"partial PMU): the stall is estimated";
		k->M = k->D = k->L = NAN;
	}
	if (isfinite(k->M)) {
		k->M = fmin(fmax(k->M, 0), k->C);
		if (isfinite(k->D))
			k->D = fmin(fmax(k->D, 0), k->M);
		if (isfinite(k->L))
			k->L = fmin(k->L, k->M - (isfinite(k->D) ? k->D : 0));
		o->anchor = ANCHOR_MEASURED;
	} else if (!o->anchor_why) {
		o->anchor_why = "the model counts no stall cycles here: the stall is estimated "
				"from access counts and latencies";
	}
}

/* The modelled latencies, and the ns of latency of each part. */
static void cost_latencies(struct costing *k)
{
	const struct cost_calib *cc = k->cc;

	if (!isfinite(k->Lrem))
		k->Lrem = k->Lloc;                 /* only where no remote access exists */
	if (!isfinite(k->ql))
		k->ql = 0;
	if (!isfinite(k->qr))
		k->qr = 0;
	if (!isfinite(k->t))
		k->t = 0;
	k->dL = k->Lrem - k->Lloc;
	k->W_D = k->n_loc * (k->Lloc + k->ql + k->t) + k->n_rem * (k->Lrem + k->qr + k->t) +
		 k->n_rc * (isfinite(cc->c2c_remote) ? cc->c2c_remote : 0);
	k->W_L = k->n_hl * (isfinite(cc->c2c_local) ? cc->c2c_local : 0) +
		 nz(k->T[CT_L3_HIT]) * (isfinite(k->Lllc) ? k->Lllc : 0);
}

/* Stall cycles per ns of modelled latency: from the anchor, else estimated. */
static void cost_rates(struct costing *k)
{
	struct cost_out *o = k->o;
	double W_D = k->W_D, W_L = k->W_L, ghz = k->ghz;

	if (o->anchor == ANCHOR_MEASURED) {
		double d_part = isfinite(k->D) ? k->D : NAN, l_part = isfinite(k->L) ? k->L : NAN;

		if (!isfinite(d_part) || (!isfinite(l_part) && W_L > 0)) {
			/* the budget is not split: one rate for both parts */
			double rest = isfinite(d_part) ? k->M - d_part : k->M;
			double w = (isfinite(d_part) ? 0 : W_D) + W_L;

			if (!isfinite(d_part))
				k->s = k->sL = w > 0 ? fmin(ghz, rest / w) : 0;
			else {
				k->s = W_D > 0 ? fmin(ghz, d_part / W_D) : 0;
				k->sL = W_L > 0 ? fmin(ghz, rest / W_L) : 0;
			}
		} else {
			k->s = W_D > 0 ? fmin(ghz, d_part / W_D) : 0;
			k->sL = W_L > 0 ? fmin(ghz, (isfinite(l_part) ? l_part : 0) / W_L) : 0;
		}
		o->budget = k->M;
	} else {
		double occ = k->T[CT_RD_OCCUPANCY], cyc = k->T[CT_RD_CYCLES], mlp = 1, est;

		if (pos(occ) && pos(cyc))
			mlp = fmax(1, occ / cyc);
		k->s = k->sL = ghz / mlp;
		est = k->s * (W_D + W_L);
		if (est > k->C) {
			/* more stall than cycles: the misses overlapped at least W / C-fold */
			k->s = k->sL = k->s * k->C / est;
			mlp *= est / k->C;
			est = k->C;
		}
		o->mlp = mlp;
		o->budget = est;
		o->anchor = ANCHOR_ESTIMATED;
	}
}

/* Extra misses above the solo rate, shared out like the DRAM loads. */
static void cost_extra(struct costing *k)
{
	const double *T = k->T;

	if (pos(T[CT_INSTR]) && nonneg(T[CT_LLC_MISS]) && nonneg(k->in->solo_mpki)) {
		k->x = fmax(0, T[CT_LLC_MISS] - k->in->solo_mpki * T[CT_INSTR] / 1000);
		k->x = fmin(k->x, k->n_dram);      /* only a DRAM access can be an extra miss */
		if (k->n_dram > 0) {
			k->x_loc = k->x * k->n_loc / k->n_dram;
			k->x_rem = k->x * k->n_rem / k->n_dram;
		}
	}
}

/* The split: each factor its share of the stall, or n/a with the reason. */
static void cost_split(struct costing *k)
{
	const struct cost_calib *cc = k->cc;
	const struct cost_in *in = k->in;
	struct cost_out *o = k->o;
	const double *T = k->T;
	double x = k->x, s = k->s, Lllc0 = isfinite(k->Lllc) ? k->Lllc : 0, xx;

	if (!isfinite(T[CT_DRAM_REMOTE]))
		set_na(o, FACTOR_LOCALITY, "the model counts no remote DRAM loads here");
	else if (k->n_rem > 0 && !isfinite(cc->lat_remote))
		set_na(o, FACTOR_LOCALITY, "no calibrated remote DRAM latency (run 'vmmprof calibrate' "
		       "on a machine with two nodes)");
	else
		o->cost[FACTOR_LOCALITY] = fmax(0, k->n_rem - k->x_rem) * k->dL * s;

	if (!isfinite(T[CT_LLC_MISS]) || !isfinite(T[CT_INSTR]))
		set_na(o, FACTOR_LLC, "the model counts no LLC misses or instructions here");
	else if (!isfinite(x))
		set_na(o, FACTOR_LLC, in->solo_why ? in->solo_why :
		       "no solo miss rate for this row yet (no interval in which its LLC had no other "
		       "busy tenant)");
	else
		o->cost[FACTOR_LLC] = x * (k->Lloc - Lllc0) * s;

	if (!isfinite(T[CT_CACHE_REMOTE]) && !isfinite(T[CT_HITM_LOCAL]))
		set_na(o, FACTOR_SHARING, "the model counts no cache-to-cache transfers here");
	else if ((k->n_rc > 0 && !isfinite(cc->c2c_remote)) ||
		 (k->n_hl > 0 && !isfinite(cc->c2c_local)))
		set_na(o, FACTOR_SHARING, "no calibrated core-to-core latency (run 'vmmprof calibrate')");
	else
		o->cost[FACTOR_SHARING] = k->n_rc * nz(cc->c2c_remote) * s +
					  k->n_hl * nz(cc->c2c_local) * k->sL;

	if (!isfinite(in->local.q_ns) && !(k->n_rem > 0 && isfinite(in->remote.q_ns)))
		set_na(o, FACTOR_IMC, cc->n_curve ? "no bandwidth count of the serving node (memory "
		       "controller counters)" : cc->curve_why ? cc->curve_why :
		       "no loaded-latency curve in the calibration");
	else
		o->cost[FACTOR_IMC] = (fmax(0, k->n_loc - k->x_loc) * k->ql +
				       fmax(0, k->n_rem - k->x_rem) * k->qr) * s;

	if (!isfinite(in->local.t_ns))
		set_na(o, FACTOR_QUEUE, "no residency of the shared request trackers is counted here "
		       "(uncore tracker occupancy and inserts)");
	else
		o->cost[FACTOR_QUEUE] = fmax(0, k->n_dram - (isfinite(x) ? x : 0)) * k->t * s;

	o->remainder = isfinite(x) ? (k->x_loc * (k->ql + k->t) +
				      k->x_rem * (k->dL + k->qr + k->t)) * s : 0;
	xx = isfinite(x) ? x : 0;
	o->base = ((k->n_dram - xx) * k->Lloc + xx * Lllc0) * s;
	o->llc_base = (k->n_dram - xx) * (k->Lloc - Lllc0) * s;
	/* when the solo rate is unknown, LLC is n/a and every miss stays with the
	 * other factors: no interaction can be told apart */
}

void cost_row(const struct cost_calib *cc, const struct cost_in *in, struct cost_out *o)
{
	const double *T = in->term;
	struct costing k = {
		.cc = cc, .in = in, .o = o, .T = T, .C = in->cycles, .ghz = in->ghz,
		.n_loc = nz(T[CT_DRAM_LOCAL]), .n_rem = nz(T[CT_DRAM_REMOTE]),
		.n_rc = nz(T[CT_CACHE_REMOTE]), .n_hl = nz(T[CT_HITM_LOCAL]),
		.Lloc = cc->lat_local, .Lrem = cc->lat_remote, .Lllc = cc->lat_llc,
		.ql = in->local.q_ns, .qr = in->remote.q_ns, .t = in->local.t_ns,
		.D = NAN, .L = NAN, .M = NAN, .s = NAN, .sL = NAN, .x = NAN,
	};

	k.n_dram = k.n_loc + k.n_rem;
	cost_out_none(o);
	o->cycles = k.C;
	if (!cost_usable(&k))
		return;
	cost_anchor(&k);
	cost_latencies(&k);
	cost_rates(&k);
	cost_extra(&k);
	cost_split(&k);
}
