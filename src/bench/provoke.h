/* provoke.h - the measuring side of `vmmprof verify`: provoke each factor beside a control run and count it */
#ifndef VP_PROVOKE_H
#define VP_PROVOKE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/verify.h"
#include "bench/bench.h"
#include "pmu/event.h"
#include "util/vocab.h"

/*
 * What the chosen model counted over one run of a scenario (a front end's
 * counter: the library does not choose a model).  NaN: not counted.
 */
struct provoke_reading {
	double score[FACTOR_N];       /* the row's factor scores (the model's metric) */
	double cost_pct[FACTOR_N];    /* the row's factor costs, % of its cycles */
	double cycles;                /* the row's cycles: the companion of a suspect zero */
	double remote;                /* the placement estimate of the remote share, 0..1 */
	double node_score[FACTOR_N];  /* the node row's scores (node asked for, else NaN) */
};

/*
 * Counts the chosen model's inputs on this process around a scenario:
 * start() before the scenario runs (the scenario's threads exist and wait),
 * stop() after it: the row of thread tid (0: the whole process) and of
 * node (-1: none).  Both 0, or -1 with why filled.  factor_why(): why the
 * model has no value for factor f here (static or ctx-owned), NULL when it
 * has one.  end() (may be NULL): the factor scenarios are over, give the
 * PMU's counters back (the queue check's own counting needs them); start()
 * may take them again.
 */
struct provoke_counter {
	int (*start)(void *ctx, char *why, size_t size);
	int (*stop)(void *ctx, int tid, int node, struct provoke_reading *r, char *why,
		    size_t size);
	const char *(*factor_why)(void *ctx, int f);
	void (*end)(void *ctx);
	const char *model;            /* its name, for the notes */
	void *ctx;
};

/* What the checks may use on this machine. */
struct provoke_env {
	const struct bench_topo *t;
	struct pmu_db *db;            /* resolves the counted events */
	bool core_pmu;                /* the platform probe found a core PMU */
	const char *core_pmu_why;     /* when not: the probe's reason ("" none known) */
	int runs;                     /* control and treatment runs of each check (2..VERIFY_MAX_RUNS) */
	/*
	 * Counts the shared trackers' full share around each point of the
	 * queue scenario (bench_queue_cores()); NULL: the queue check is
	 * skipped with tracker_why.
	 */
	const struct bench_tracker_hook *tracker;
	const char *tracker_why;
	volatile int *stop;           /* set non-zero to end early; may be NULL */
	/*
	 * Counts the model around the factor scenarios (locality, llc,
	 * sharing, imc); NULL: those checks are skipped with counter_why.
	 */
	const struct provoke_counter *counter;
	const char *counter_why;
	double window_s;              /* each scenario run's counted window (0: 0.3 s) */
	size_t chase_bytes;           /* the locality chase's buffer (0: 32 MiB) */
	/*
	 * Also the benchmark's own figures against references: DRAM latency
	 * against a plain chase, bandwidth against mbw, sysbench and
	 * stress-ng where installed (factor "benchmark"; verify --bench).
	 */
	bool bench_refs;
};

/*
 * Fill c (room for max) with every check, in table order, measuring those
 * that can run here; the others carry their skip reason.  Nothing is judged
 * (verify_judge() does that).  Returns how many checks were written.
 * Never prints.
 */
size_t provoke_checks(const struct provoke_env *e, struct verify_check *c, size_t max);

/* Which value of a reading a check takes. */
enum provoke_value { PV_SCORE, PV_COST, PV_NODE_SCORE, PV_REMOTE };

/*
 * Fill check x's runs from the readings of the control and treatment runs:
 * the value `what` (of factor f for scores and costs) times scale, and the
 * treatment's median cycles as the companion of a suspect zero.  A run
 * whose value is NaN makes x skipped with nan_why (the model's reason).
 * x NULL or already skipped: nothing.  Pure (tested on injected readings).
 */
void provoke_fill(struct verify_check *x, enum provoke_value what, int f, double scale,
		  const struct provoke_reading *ctl, int n_ctl, const struct provoke_reading *trt,
		  int n_trt, const char *nan_why);

/*
 * The hardware prerequisites of a check, as the skip reason: "" when all
 * hold.  need_nodes / need_llc_cpus / need_pkgs: at least that many NUMA
 * nodes with memory, CPUs on one LLC, packages.  Pure (tested offline).
 */
void provoke_hw_reason(bool core_pmu, const struct bench_topo *t, int need_nodes,
		       int need_llc_cpus, int need_pkgs, char *out, size_t size);

#endif
