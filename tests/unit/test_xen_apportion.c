/* test_xen_apportion.c - per-pCPU counts shared out to Xen domains by xentrace residency, by hand */
#include "test.h"

#include <math.h>
#include <string.h>

#include "analysis/xen_apportion.h"

/*
 * Three pCPUs, one interval; entities dom0, A and B (every domain that
 * ran).  Worked by hand:
 *   pCPU 0: 1000 events; dom0 ran 0.1 s, A 0.3 s, B 0.1 s (0.5 s in all):
 *           dom0 1000 x 0.1/0.5 = 200, A 1000 x 0.3/0.5 = 600, B 200
 *   pCPU 1: 3000 events; A 0.2 s, B 0.4 s (0.6 s): A 1000, B 2000
 *   pCPU 2: 500 events; nobody ran (idle, or Xen alone): to nobody
 * so dom0 200, A 1600, B 2200, 500 unattributed; 200 + 1600 + 2200 + 500 =
 * 4500, every count once.
 */
TEST(xen_apportion_by_residency_by_hand)
{
	const double count[3] = { 1000, 3000, 500 };
	const double run[3 * 3] = {
		0.1, 0.0, 0.0,     /* dom0 */
		0.3, 0.2, 0.0,     /* A */
		0.1, 0.4, 0.0,     /* B */
	};
	double out[3], un = -1;

	CHECK_INT(xen_apportion_pcpu(count, run, 3, 3, out, &un), 1);
	CHECK_NEAR(out[0], 200, 1e-9);
	CHECK_NEAR(out[1], 1600, 1e-9);
	CHECK_NEAR(out[2], 2200, 1e-9);
	CHECK_NEAR(un, 500, 1e-9);
	CHECK_NEAR(out[0] + out[1] + out[2] + un, 4500, 1e-9);
}

/*
 * An unknown count on pCPU 1 (say a counter that could not be read): A and
 * B ran there, so their totals are unknown (NaN, never a partial sum that
 * looks whole); dom0 ran only on pCPU 0 and keeps its 200.  An unknown run
 * time on pCPU 0 makes every share there unknown.
 */
TEST(xen_apportion_unknowns_stay_unknown)
{
	double count[3] = { 1000, NAN, 500 };
	double run[3 * 3] = {
		0.1, 0.0, 0.0,
		0.3, 0.2, 0.0,
		0.1, 0.4, 0.0,
	};
	double out[3];

	xen_apportion_pcpu(count, run, 3, 3, out, NULL);
	CHECK_NEAR(out[0], 200, 1e-9);
	CHECK_NAN(out[1]);
	CHECK_NAN(out[2]);
	count[1] = 3000;
	run[1 * 3 + 0] = NAN;     /* A's time on pCPU 0 unknown */
	xen_apportion_pcpu(count, run, 3, 3, out, NULL);
	CHECK_NAN(out[0]);
	CHECK_NAN(out[1]);
	CHECK_NAN(out[2]);
}

/* Only pmu_mode 'all' with dom0 pinned 1:1 counts per pCPU; otherwise the reason names the fix. */
TEST(xen_apportion_possible_only_pinned_in_all_mode)
{
	struct platform p;
	char why[1024];

	memset(&p, 0, sizeof(p));
	p.hv.xen_dom0 = true;
	p.topo.from_xen = true;
	p.topo.n_cpus = 4;
	snprintf(p.hv.xen_pmu_mode, sizeof(p.hv.xen_pmu_mode), "self");
	sbuf_set(&p.hv.xen_cmdline, "vpmu=1 dom0_max_vcpus=4 dom0_vcpus_pin");
	cpulist_parse(&p.dom0_topo.online, "0-3", NULL);
	CHECK(!xen_apportion_possible(&p, why, sizeof(why)));
	CHECK_CONTAINS(why, "pmu_mode is 'self'");
	snprintf(p.hv.xen_pmu_mode, sizeof(p.hv.xen_pmu_mode), "all");
	CHECK(xen_apportion_possible(&p, why, sizeof(why)));
	CHECK_CONTAINS(why, "shared out by the time each domain's vCPUs ran on it");
	CHECK(!strstr(why, "msr-relaxed"));
	/* two dom0 vCPUs on four pCPUs: not per pCPU */
	cpulist_release(&p.dom0_topo.online);
	cpulist_parse(&p.dom0_topo.online, "0-1", NULL);
	CHECK(!xen_apportion_possible(&p, why, sizeof(why)));
	CHECK_CONTAINS(why, "dom0_max_vcpus=4 dom0_vcpus_pin");
	/* pinned again, with msr-relaxed: possible, with the warning */
	cpulist_release(&p.dom0_topo.online);
	cpulist_parse(&p.dom0_topo.online, "0-3", NULL);
	sbuf_set(&p.hv.xen_cmdline,
		 "vpmu=1 dom0_max_vcpus=4 dom0_vcpus_pin dom0=pvh,msr-relaxed");
	CHECK(xen_apportion_possible(&p, why, sizeof(why)));
	CHECK_CONTAINS(why, "a zero count is not evidence");
	cpulist_release(&p.dom0_topo.online);
	sbuf_release(&p.hv.xen_cmdline);
}
