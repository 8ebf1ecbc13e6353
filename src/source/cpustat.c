/* cpustat.c - per-CPU time from /proc/stat, for CPU load per node */
#include "source/cpustat.h"
#include "util/alloc.h"
#include "util/fs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cpustat_parse(const char *text, struct cpustat *out, struct vp_err *err)
{
	const char *p = text;
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	while (p && *p) {
		unsigned long long v[8] = { 0 };
		int cpu, n;

		/* "cpu" alone is the sum line; "cpuN" are the CPUs */
		if (!strncmp(p, "cpu", 3) && p[3] >= '0' && p[3] <= '9') {
			n = sscanf(p + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
				   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
			if (n < 5) {
				cpustat_release(out);
				return vp_err_set(err, VP_EPARSE, "/proc/stat: cannot parse '%.40s'", p);
			}
			VP_GROW(out->cpus, cap, out->n + 1);
			out->cpus[out->n].cpu = cpu;
			/* user nice system idle iowait irq softirq steal */
			out->cpus[out->n].busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
			out->cpus[out->n].total = out->cpus[out->n].busy + v[3] + v[4];
			out->cpus[out->n].steal = v[7];
			out->n++;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

int cpustat_read(const char *root, struct cpustat *out, struct vp_err *err)
{
	char *text;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = vp_read_file(root, "/proc/stat", &text, NULL, err);
	if (ret)
		return ret;
	ret = cpustat_parse(text, out, err);
	free(text);
	return ret;
}

void cpustat_release(struct cpustat *s)
{
	free(s->cpus);
	memset(s, 0, sizeof(*s));
}

static const struct cpu_times *find(const struct cpustat *s, int cpu)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->cpus[i].cpu == cpu)
			return &s->cpus[i];
	return NULL;
}

double cpustat_busy(const struct cpustat *prev, const struct cpustat *now, int cpu)
{
	const struct cpu_times *a = find(prev, cpu), *b = find(now, cpu);

	if (!a || !b || b->total <= a->total || b->busy < a->busy)
		return NAN;
	return (double)(b->busy - a->busy) / (double)(b->total - a->total);
}

double cpustat_steal(const struct cpustat *prev, const struct cpustat *now, int cpu)
{
	const struct cpu_times *a = find(prev, cpu), *b = find(now, cpu);

	if (!a || !b || b->total <= a->total || b->steal < a->steal)
		return NAN;
	return (double)(b->steal - a->steal) / (double)(b->total - a->total);
}

int cpudelay_parse(const char *text, struct cpudelay *out, struct vp_err *err)
{
	const char *p = text;
	size_t cap = 0;
	int version = -1;

	memset(out, 0, sizeof(*out));
	while (p && *p) {
		unsigned long long v[8];
		int cpu;

		if (sscanf(p, "version %d", &version) == 1) {
			if (version < 15 || version > 17) {
				cpudelay_release(out);
				return vp_err_set(err, VP_EUNSUPP, "/proc/schedstat version %d, not "
						  "one of 15-17 (sched-stats.rst)", version);
			}
		} else if (!strncmp(p, "cpu", 3) && p[3] >= '0' && p[3] <= '9') {
			if (sscanf(p + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
				   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9) {
				cpudelay_release(out);
				return vp_err_set(err, VP_EPARSE, "/proc/schedstat: short cpu line "
						  "'%.40s'", p);
			}
			VP_GROW(out->cpus, cap, out->n + 1);
			out->cpus[out->n].cpu = cpu;
			out->cpus[out->n].wait_ns = v[7];
			out->n++;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (version < 0) {
		cpudelay_release(out);
		return vp_err_set(err, VP_EPARSE, "/proc/schedstat has no version line");
	}
	return 0;
}

int cpudelay_read(const char *root, struct cpudelay *out, struct vp_err *err)
{
	char *text;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = vp_read_file(root, "/proc/schedstat", &text, NULL, err);
	if (ret)
		return ret;
	ret = cpudelay_parse(text, out, err);
	free(text);
	return ret;
}

void cpudelay_release(struct cpudelay *d)
{
	free(d->cpus);
	memset(d, 0, sizeof(*d));
}

double cpudelay_queued(const struct cpudelay *prev, const struct cpudelay *now, int cpu,
		       double secs)
{
	const struct cpu_delay *a = NULL, *b = NULL;
	size_t i;

	for (i = 0; i < prev->n; i++)
		if (prev->cpus[i].cpu == cpu)
			a = &prev->cpus[i];
	for (i = 0; i < now->n; i++)
		if (now->cpus[i].cpu == cpu)
			b = &now->cpus[i];
	if (!a || !b || b->wait_ns < a->wait_ns || !(secs > 0))
		return NAN;
	return (double)(b->wait_ns - a->wait_ns) / 1e9 / secs;
}
