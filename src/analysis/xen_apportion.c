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
	struct sbuf how = SBUF_INIT;

	if (!p->hv.xen_dom0) {
		snprintf(why, size, "not a Xen dom0");
		return false;
	}
	if (!platform_xen_pmu_why(p, &how)) {
		snprintf(why, size, "%s", sbuf_str(&how));
		sbuf_release(&how);
		return false;
	}
	snprintf(why, size, "%s; %s", sbuf_str(&how), XEN_APPORTION_METHOD);
	sbuf_release(&how);
	return true;
}
