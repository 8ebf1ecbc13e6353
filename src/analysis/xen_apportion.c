/* xen_apportion.c - per-pCPU counts shared out to Xen domains or vCPUs by their xentrace residency */
#include "analysis/xen_apportion.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int xen_apportion_pcpu(const double *count, const double *run, size_t n_ent, size_t n_pcpu,
		       double *out, double *unattributed)
{
	size_t e, p;
	int idle = 0;

	for (e = 0; e < n_ent; e++)
		out[e] = 0;
	if (unattributed)
		*unattributed = 0;
	for (p = 0; p < n_pcpu; p++) {
		double all = 0;
		bool unknown = false;

		for (e = 0; e < n_ent; e++) {
			double r = run[e * n_pcpu + p];

			if (isnan(r))
				unknown = true;
			else if (r > 0)
				all += r;
		}
		if (unknown || isnan(count[p])) {
			/* who ran here cannot be charged a known share */
			for (e = 0; e < n_ent; e++)
				if (isnan(run[e * n_pcpu + p]) || run[e * n_pcpu + p] > 0)
					out[e] = NAN;
			continue;
		}
		if (all <= 0) {
			if (count[p] != 0) {
				idle++;
				if (unattributed)
					*unattributed += count[p];
			}
			continue;
		}
		for (e = 0; e < n_ent; e++) {
			double r = run[e * n_pcpu + p];

			if (r > 0)
				out[e] += count[p] * r / all;
		}
	}
	return idle;
}

bool xen_apportion_possible(const struct platform *p, char *why, size_t size)
{
	const struct hypervisor *h = &p->hv;
	int n = p->topo.from_xen ? p->topo.n_cpus : 0;
	int k = (int)platform_local_topo(p)->online.n;
	char d0[96] = "";

	if (!h->xen_dom0 || strcmp(h->xen_pmu_mode, "all") || n <= 0 || k != n ||
	    !platform_xen_option(h, "dom0_vcpus_pin", NULL, 0)) {
		platform_xen_pmu_why(p, why, size);
		return false;
	}
	platform_xen_option(h, "dom0", d0, sizeof(d0));
	snprintf(why, size, "pmu_mode is 'all' and dom0 has one vCPU pinned on each of the %d "
		 "pCPUs: %s%s", n, XEN_APPORTION_METHOD, strstr(d0, "msr-relaxed") ?
		 "; Xen's command line has dom0=msr-relaxed: dom0's reads of MSRs Xen does not "
		 "handle return 0, so a zero count is not evidence" : "");
	return true;
}
