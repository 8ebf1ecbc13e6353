/* cpustat.h - per-CPU time from /proc/stat, for CPU load per node */
#ifndef VP_CPUSTAT_H
#define VP_CPUSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* One "cpuN" line, in clock ticks. */
struct cpu_times {
	int cpu;
	uint64_t busy;   /* user + nice + system + irq + softirq + steal */
	uint64_t total;  /* busy + idle + iowait */
	uint64_t steal;  /* of busy: time the hypervisor ran something else while this
			    (virtual) CPU wanted to run; 0 on bare metal and old kernels */
};

/* Owned by the caller: cpustat_read() ... cpustat_release(). */
struct cpustat {
	struct cpu_times *cpus;  /* ascending cpu */
	size_t n;
};

int cpustat_read(const char *root, struct cpustat *out, struct vp_err *err);
int cpustat_parse(const char *text, struct cpustat *out, struct vp_err *err);
void cpustat_release(struct cpustat *s);

/* Busy fraction of cpu between two reads; NaN when it is missing or no time passed. */
double cpustat_busy(const struct cpustat *prev, const struct cpustat *now, int cpu);
/*
 * Stolen fraction of cpu between two reads (steal over all its time, so
 * cpustat_busy() less this is what the CPU ran itself); NaN as above.
 */
double cpustat_steal(const struct cpustat *prev, const struct cpustat *now, int cpu);

/*
 * Each CPU's run-queue wait, the 8th field after "cpuN" in /proc/schedstat
 * (versions 15-17, Documentation/scheduler/sched-stats.rst: the time tasks
 * waited to run on this CPU, ns), ascending cpu.  A kernel without
 * CONFIG_SCHEDSTATS has no file: an error, the waits unknown.
 */
struct cpu_delay {
	int cpu;
	uint64_t wait_ns;
};
struct cpudelay {
	struct cpu_delay *cpus;
	size_t n;
};
int cpudelay_read(const char *root, struct cpudelay *out, struct vp_err *err);
int cpudelay_parse(const char *text, struct cpudelay *out, struct vp_err *err);
void cpudelay_release(struct cpudelay *d);
/* CPUs' worth of waiting on cpu over secs seconds between two reads; NaN unknown. */
double cpudelay_queued(const struct cpudelay *prev, const struct cpudelay *now, int cpu,
		       double secs);

#endif
