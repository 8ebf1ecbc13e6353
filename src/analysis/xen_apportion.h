/* xen_apportion.h - per-pCPU counts shared out to Xen domains or vCPUs by their xentrace residency */
#ifndef VP_XEN_APPORTION_H
#define VP_XEN_APPORTION_H

#include <stdbool.h>
#include <stddef.h>

#include "platform/platform.h"

/*
 * With Xen's pmu_mode 'all' and one dom0 vCPU pinned on every pCPU, dom0's
 * perf counts per pCPU, and a pCPU's count over an interval covers
 * whoever ran there.  Xen's scheduler trace (xentrace) says how long each
 * domain's (or vCPU's) vCPUs ran on each pCPU in that interval, so:
 *
 *     share(e, p) = run[e][p] / sum over e' of run[e'][p]
 *     out[e]      = sum over p of count[p] x share(e, p)
 *
 * run[e * n_pcpu + p] is entity e's run time on pCPU p (seconds, or any
 * one unit; NaN unknown) and the entities must be every one that ran
 * (every domain with dom0, or every vCPU): Xen's own work inside a run is
 * charged to the run, and counts on a pCPU where no entity ran (idle, Xen
 * alone) go to nobody and are added to *unattributed (may be NULL).  out[e]
 * is NaN when a pCPU e ran on has a NaN count or some NaN run time, and 0
 * when e ran nowhere.  It is an estimate, labelled apportioned: a run's
 * count is its share of time, not its events (a domain that runs a cache-
 * hungry loop for half the interval beside an idle one gets half).
 * Returns how many pCPUs with a count had no run time.
 */
int xen_apportion_pcpu(const double *count, const double *run, size_t n_ent, size_t n_pcpu,
		       double *out, double *unattributed);

/* The method in one line, for the reasons and notes that label the values. */
#define XEN_APPORTION_METHOD "apportioned: each pCPU's count over the interval shared out by " \
	"the time each domain's vCPUs ran on it (Xen's scheduler trace, xentrace)"

/*
 * Whether dom0 can count per pCPU for the domains here: Xen's pmu_mode is
 * 'all' and dom0 has one vCPU pinned on every pCPU (dom0_vcpus_pin, as many
 * dom0 vCPUs as pCPUs).  false with the reason (platform_xen_pmu_why());
 * true with what holds, and the dom0=msr-relaxed warning when it applies.
 */
bool xen_apportion_possible(const struct platform *p, char *why, size_t size);

#endif
