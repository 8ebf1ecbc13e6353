/*
 * test_host_span.c - a recording's diagnosis with the host's CPUs read
 * around it (frame_host_cpus(), what `diagnose --apply` does): stacked
 * vCPUs are moved only to a CPU where they would wait less, as a live
 * diagnosis decides.  Found live in the libvirt tier: the recording kept no
 * CPU load and no online list, so --apply moved a vCPU waiting 47 % of the
 * time onto a CPU saturated by other work, and its wait rose to 86 %.
 */
#include "test.h"

#include <math.h>
#include <string.h>

#include "analysis/diagnose.h"
#include "collect/collect.h"
#include "record/synth.h"
#include "source/cpustat.h"

/*
 * Two always-runnable vCPUs of one VM on CPU 1 (a 2-CPU host, one node:
 * rec_synth_platform(), which like a recording has no online list), each
 * ran 500 ms and waited 500 ms of the 1 s frame: 50 % each.  CPU 0's load
 * over the frame comes from two /proc/stat reads 100 ticks apart:
 * busy0 ticks of 100.  Returns the rule of the first advice for vCPU 1 and
 * its target CPU (to_cpu) in *to; n_cpus: how many host CPUs the
 * diagnosis saw.
 */
static const char *advise(int busy0, bool read_host, int *to, size_t *n_cpus)
{
	static char rule[32];
	struct model *m = NULL;
	struct platform plat;
	struct collect_frame f;
	struct diag_input in;
	struct diag_result r;
	struct cpustat a, b;
	struct vp_err err;
	bool ok[FACTOR_N] = { false };
	char now[256];
	size_t i;

	rule[0] = '\0';
	*to = -2;
	CHECK_INT(rec_synth_model(&m, &err), 0);
	rec_synth_platform(&plat);
	rec_synth_frame(&f, 2);
	for (i = 1; i < f.n_rows; i++) {
		f.rows[i].cpu = 1;
		f.rows[i].sched_run_ns = 500e6;
		f.rows[i].sched_wait_ns = 500e6;
	}
	/* user nice system idle iowait irq softirq steal: CPU 1 busy all 100 ticks */
	CHECK_INT(cpustat_parse("cpu0 0 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0 0 0\n", &a, NULL), 0);
	snprintf(now, sizeof(now), "cpu0 %d 0 0 %d 0 0 0 0 0 0\ncpu1 100 0 0 0 0 0 0 0 0 0\n",
		 busy0, 100 - busy0);
	CHECK_INT(cpustat_parse(now, &b, NULL), 0);
	if (read_host)
		frame_host_cpus(&f, &a, &b, NULL, NULL, 1.0);
	frame_diag_input(m, ok, &plat.topo, NULL, &f, &in);
	*n_cpus = in.n_cpus;
	CHECK_INT(diagnose(&in, &r, &err), 0);
	for (i = 0; i < r.n_a; i++)
		if (r.a[i].vcpu == 1) {
			snprintf(rule, sizeof(rule), "%s", r.a[i].rule);
			*to = r.a[i].to_cpu;
			break;
		}
	diag_result_release(&r);
	collect_diag_release(&in);
	cpustat_release(&a);
	cpustat_release(&b);
	collect_frame_release(&f);
	platform_release(&plat);
	model_free(m);
	return rule;
}

/*
 * CPU 0 idle: vCPU 1 moves there (its wait, 50 %, falls to what CPU 0
 * allows, 0).  CPU 0 busy 100 % with other work: a newcomer would wait
 * there 1 / (1 + 1) = 50 %, no less than now: no move, the node is
 * overcommitted.  CPU 0 busy 30 %: 0.3 / 1.3 = 23 % < 50 %: the move.
 */
TEST(host_span_decides_unstack)
{
	size_t n;
	int to;

	CHECK_STR(advise(0, true, &to, &n), "unstack-vcpus");
	CHECK_INT(to, 0);
	CHECK_INT((int)n, 2);
	CHECK_STR(advise(100, true, &to, &n), "cpu-overcommit");
	CHECK_STR(advise(30, true, &to, &n), "unstack-vcpus");
	CHECK_INT(to, 0);
}

/* Without the host's reads a recording's diagnosis is as before: no host CPUs known. */
TEST(host_span_unread_recording_unchanged)
{
	size_t n;
	int to;

	CHECK_STR(advise(100, false, &to, &n), "unstack-vcpus");
	CHECK_INT((int)n, 0);
}
