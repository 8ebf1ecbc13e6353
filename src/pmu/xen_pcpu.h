/* xen_pcpu.h - dom0's core counters per pCPU under Xen's pmu_mode 'all' (dom0 pinned 1:1) */
#ifndef VP_XEN_PCPU_H
#define VP_XEN_PCPU_H

#include <stdbool.h>
#include <stddef.h>

#include "pmu/event.h"
#include "util/err.h"

/*
 * With Xen's pmu_mode 'all', counters that dom0 programs on a physical CPU
 * go on counting while other domains' vCPUs run there (xen/arch/x86/cpu/
 * vpmu.c), and with dom0_vcpus_pin and as many dom0 vCPUs as pCPUs, dom0's
 * CPU k is pinned on pCPU k: a counter opened CPU-wide on dom0's CPU k
 * (perf_event_open(pid -1, cpu k)) counts pCPU k for every domain.  These
 * counts are shared out by src/analysis/xen_apportion.h.
 *
 * Only the core PMU's events serve: a software event (task-clock) on
 * dom0's CPU counts dom0's own kernel, not the pCPU
 * (xen_pcpu_event_ok()).
 *
 * Under a fixture root nothing is opened: the N-th read takes
 * ROOT/.vmmprof-fixture/xen-pcpu/N, lines "SPEC COUNT_PCPU0 COUNT_PCPU1
 * ...", cumulative counts; a spec absent there is NaN; past the last file
 * the counts stand still.
 */
struct xen_pcpu;

/* Whether a resolved event counts the pCPU in pmu_mode 'all': a core PMU's
 * hardware event, not a software, tracepoint or per-socket one. */
bool xen_pcpu_event_ok(const struct evdesc *ev);

/*
 * Open specs[i] (n_in long; NULL: input i is not counted) on dom0's CPUs
 * 0 .. n_pcpu-1; live, evl holds the resolved events (spec_index = i).
 * Returns 0 and *out, or an error naming what failed.
 */
int xen_pcpu_open(struct xen_pcpu **out, const char *root, const char *const *specs, size_t n_in,
		  const struct evdesc_list *evl, int n_pcpu, struct vp_err *err);

/* Cumulative counts since open: tot[i * n_pcpu + p], NaN where input i is not counted. */
int xen_pcpu_read(struct xen_pcpu *x, double *tot, struct vp_err *err);
int xen_pcpu_n(const struct xen_pcpu *x);
void xen_pcpu_free(struct xen_pcpu *x);

#endif
