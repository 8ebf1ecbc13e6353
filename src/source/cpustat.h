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

#endif
