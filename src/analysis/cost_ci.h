/* cost_ci.h - each VM's factor costs over one-second samples: a 95 % interval, and what it accounts for */
#ifndef VP_COST_CI_H
#define VP_COST_CI_H

#include <stdbool.h>
#include <stddef.h>

#include "collect/collect.h"
#include "util/json.h"
#include "util/sbuf.h"
#include "util/vocab.h"

/*
 * What the run says about the counts behind every cost, beyond their
 * spread (docs/method.md "Confidence"):
 *   running     the lowest running/enabled share of the counted events over
 *               the run (0..1]; below 1 the kernel multiplexed them and each
 *               count is extrapolated from that share of the time: the
 *               interval's half-widths are multiplied by 1/sqrt(running),
 *               the standard error of a mean observed over that share of
 *               the samples; NaN: no event counted, nothing widened
 *   residency   where the vCPUs ran per node: "exact" (context switches
 *               traced), "sampled" (once per frame), "unused" or "unknown";
 *               reported, not in the width
 *   calibrated  false: the latencies are the model's defaults, a bias the
 *               interval does not include (reported)
 */
struct cost_ci_ctx {
	double running;
	const char *residency;
	bool calibrated;
	unsigned resamples;          /* bootstrap draws (1000) */
	unsigned long seed;          /* the generator's seed: the same samples give the same interval */
};

struct cost_ci {
	double value;                /* mean of the samples' cost_pct; NaN: none finite */
	double lo, hi;               /* 95 %, lo >= 0 (a cost is not negative); NaN with < 2 samples */
	double half;                 /* the larger of value - lo and hi - value: "18 % ±4" */
	size_t n;                    /* samples with a finite cost */
	double widen;                /* the factor the half-widths were multiplied by (1: none) */
	bool holds_zero;             /* lo <= 0: not distinguishable from no cost */
};

/* The interval of the finite values of v (n) under ctx. */
void cost_ci_compute(const double *v, size_t n, const struct cost_ci_ctx *ctx, struct cost_ci *out);

/* The lowest running/enabled share over f's counted events, 0..1; NaN when none. */
double cost_ci_running(const struct collect_frame *f);

/* Each VM's costs, one value per sample, and their intervals once finished. */
struct cost_ci_set {
	char **names;
	double **v;                  /* per VM: n_s x FACTOR_N */
	size_t n_vms, n_s, cap_s;
	struct cost_ci_ctx ctx;
	struct cost_ci (*ci)[FACTOR_N]; /* per VM, after cost_ci_finish() */
};

/* One sample's frame: a row of cost_pct per VM (NaN for a VM not in it). */
void cost_ci_add(struct cost_ci_set *s, const struct collect_frame *fr);
/* Compute every interval under ctx (copied). */
void cost_ci_finish(struct cost_ci_set *s, const struct cost_ci_ctx *ctx);
/* The interval of VM name's factor f, NULL when none. */
const struct cost_ci *cost_ci_find(const struct cost_ci_set *s, const char *name, int f);
void cost_ci_release(struct cost_ci_set *s);

/* "llc 18.0 % ±4.0" per factor and VM, and what the intervals account for. */
void cost_ci_text(const struct cost_ci_set *s, struct sbuf *out);
/* The "cost_intervals" value of `diagnose --json` (docs/api.md, diagnose). */
void cost_ci_json(const struct cost_ci_set *s, struct jw *w);

#endif
