/* provoke.h - the measuring side of `vmmprof verify`: provoke each factor beside a control run and count it */
#ifndef VP_PROVOKE_H
#define VP_PROVOKE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/verify.h"
#include "bench/bench.h"
#include "pmu/event.h"

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
};

/*
 * Fill c (room for max) with every check, in table order, measuring those
 * that can run here; the others carry their skip reason.  Nothing is judged
 * (verify_judge() does that).  Returns how many checks were written.
 * Never prints.
 */
size_t provoke_checks(const struct provoke_env *e, struct verify_check *c, size_t max);

/*
 * The hardware prerequisites of a check, as the skip reason: "" when all
 * hold.  need_nodes / need_llc_cpus / need_pkgs: at least that many NUMA
 * nodes with memory, CPUs on one LLC, packages.  Pure (tested offline).
 */
void provoke_hw_reason(bool core_pmu, const struct bench_topo *t, int need_nodes,
		       int need_llc_cpus, int need_pkgs, char *out, size_t size);

#endif
