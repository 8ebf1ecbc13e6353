/* cost_ci.h - each VM's factor costs over one-second samples: a 95 % interval, and what it accounts for */
#ifndef VP_COST_CI_H
#define VP_COST_CI_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/diagnose.h"
#include "collect/collect.h"
#include "model/model.h"
#include "util/json.h"
#include "util/jsonread.h"
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
	/*
	 * Each factor's own running share: the lowest over the events its
	 * cost reads (cost_ci_running_factor()); a factor's half-widths are
	 * widened by its own, NaN ones fall back to running.
	 */
	double running_f[FACTOR_N];
	const char *running_why;     /* running NaN: why ("not in the recording"); NULL none */
	const char *samples;         /* what a sample is: "one-second samples" (NULL) or
					"recorded intervals" */
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
/*
 * The same over the events factor fac's cost reads (m's cost terms that the
 * split of docs/method.md uses for it, and the cycles, through the metrics
 * they name): a factor whose events were never multiplexed is not widened
 * for another's.  NaN when none of them was counted.
 */
double cost_ci_running_factor(const struct model *m, const struct collect_frame *f, int fac);
/*
 * The context of a run whose whole-run frame is f (live, a daemon's session
 * or a recording's total alike): its running shares (cost_ci_ctx_running()),
 * residency, calibration, 1000 draws, seed 1.
 */
void cost_ci_ctx_init(struct cost_ci_ctx *ctx, const struct model *m,
		      const struct collect_frame *f, bool calibrated);
/* ctx's running and running_f from frame f (the whole run's). */
void cost_ci_ctx_running(struct cost_ci_ctx *ctx, const struct model *m,
			 const struct collect_frame *f);

/*
 * Each VM's, vCPU's and node's costs, one value per sample, and their
 * intervals once finished.  A VM is its name; a vCPU (or a process's
 * thread) its VM's name and number; a node its id, with the costs of the
 * threads that ran there in % of their cycles (frame_node_cost_pct()).
 */
enum cost_ci_kind { CCI_VM, CCI_VCPU, CCI_NODE };

struct cost_ci_set {
	char **names;                /* the VM's name (VM and vCPU entities); "" for nodes */
	enum cost_ci_kind *kind;
	int *id;                     /* vCPU number, node id; -1 for a VM */
	double **v;                  /* per entity: n_s x FACTOR_N */
	size_t n_ent, n_s, cap_s;
	size_t max_s;                /* keep the newest max_s samples (0: all): a daemon's
					session runs for weeks */
	bool skip_vcpus;             /* VMs and nodes only (the daemon: max_s samples per
					vCPU of a thousand would be its largest memory) */
	struct cost_ci_ctx ctx;
	struct cost_ci (*ci)[FACTOR_N]; /* per entity, after cost_ci_finish() */
};

/* One sample's frame: a row of cost_pct per entity (NaN for one not in it). */
void cost_ci_add(struct cost_ci_set *s, const struct collect_frame *fr);
/* Compute every interval under ctx (copied). */
void cost_ci_finish(struct cost_ci_set *s, const struct cost_ci_ctx *ctx);
/* The interval of VM name's factor f, NULL when none. */
const struct cost_ci *cost_ci_find(const struct cost_ci_set *s, const char *name, int f);
/* The same for vCPU index of VM vm, and for node id. */
const struct cost_ci *cost_ci_find_vcpu(const struct cost_ci_set *s, const char *vm, int index,
					int f);
const struct cost_ci *cost_ci_find_node(const struct cost_ci_set *s, int id, int f);
/*
 * Each finding of r its interval (diag_bottleneck.ci_lo, ci_hi, ci_holds_zero)
 * from s: a VM's, vCPU's or node's, of its factor; none for CPU contention.
 */
void cost_ci_attach(const struct cost_ci_set *s, const struct diag_input *in,
		    struct diag_result *r);
void cost_ci_release(struct cost_ci_set *s);

/* "llc 18.0 % ±4.0" per factor and VM, and what the intervals account for. */
void cost_ci_text(const struct cost_ci_set *s, struct sbuf *out);
/* The "cost_intervals" value of `diagnose --json` (docs/api.md, diagnose). */
void cost_ci_json(const struct cost_ci_set *s, struct jw *w);
/*
 * That value read back (the remote client prints what the daemon or a remote
 * diagnose computed): the intervals and what they account for, no samples;
 * the strings point into v's document, which must outlive s.  0, or -1 when
 * v is not such a value.  cost_ci_release() in any case.
 */
int cost_ci_from_json(struct cost_ci_set *s, const struct jv *v);

#endif
