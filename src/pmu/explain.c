/* explain.c - why perf_event_open() failed, in words a user can act on (perf's evsel__open_strerror) */
#include "pmu/counter.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util/alloc.h"
#include "util/fs.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

void cnt_explain_probe(struct cnt_explain_ctx *ctx, const char *root)
{
	static const char *const core[] = { "cpu", "cpu_core", "cpu_atom", "armv8_pmuv3",
					    "armv8_pmuv3_0", "armv7_cortex_a15" };
	char *text = NULL, *p;
	struct rlimit rl;
	size_t i;

	memset(ctx, 0, sizeof(*ctx));
	if (vp_read_int(root, "/proc/sys/kernel/perf_event_paranoid", &ctx->paranoid, NULL))
		ctx->paranoid = INT_MIN;
	if (!vp_read_file(root, "/proc/self/status", &text, NULL, NULL) &&
	    (p = strstr(text, "\nCapEff:"))) {
		unsigned long long caps = strtoull(p + 8, NULL, 16);

		ctx->privileged = (caps >> CAP_PERFMON_BIT & 1) || (caps >> CAP_SYS_ADMIN_BIT & 1);
	}
	free(text);
	for (i = 0; i < sizeof(core) / sizeof(core[0]) && !ctx->core_pmu; i++) {
		char path[128];

		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s", core[i]);
		ctx->core_pmu = vp_exists(root, path) == 0;
	}
	text = NULL;
	if (!vp_read_file(root, "/proc/cpuinfo", &text, NULL, NULL))
		ctx->in_vm = strstr(text, " hypervisor") != NULL;
	free(text);
	ctx->fd_limit = getrlimit(RLIMIT_NOFILE, &rl) ? -1 :
			rl.rlim_cur == RLIM_INFINITY ? LONG_MAX : (long)rl.rlim_cur;
}

/* An event of the CPU's core PMU (generic hardware, cache, raw or a cpu/.../ spec). */
static bool is_core_event(const struct evdesc *ev)
{
	return !ev->uncore && (ev->attr.type == PERF_TYPE_HARDWARE ||
			       ev->attr.type == PERF_TYPE_HW_CACHE ||
			       ev->attr.type == PERF_TYPE_RAW ||
			       !strcmp(ev->pmu, "cpu") || !strncmp(ev->pmu, "cpu_", 4) ||
			       !strncmp(ev->pmu, "armv", 4));
}

static char *explain_perm(const struct evdesc *ev, bool per_cpu, const struct cnt_explain_ctx *ctx)
{
	const char *name = ev->name;
	int p = ctx->paranoid;

	if (ctx->privileged)
		return xasprintf("permission denied for '%s' although this process has CAP_PERFMON "
				 "or CAP_SYS_ADMIN: a security module (SELinux, AppArmor, lockdown) or a "
				 "seccomp filter (e.g. a container's) refuses perf_event_open", name);
	if (p == INT_MIN)
		return xasprintf("permission denied for '%s', and kernel.perf_event_paranoid cannot "
				 "be read: run as root or with CAP_PERFMON", name);
	if (p >= 3)
		return xasprintf("permission denied for '%s': kernel.perf_event_paranoid is %d, which "
				 "refuses every unprivileged perf_event_open; run as root, grant "
				 "CAP_PERFMON, or set 'sysctl kernel.perf_event_paranoid=%d'",
				 name, p, per_cpu ? 0 : 2);
	if (per_cpu && p >= 1)
		return xasprintf("permission denied for '%s': counting on whole CPUs or per cgroup "
				 "needs CAP_PERFMON (or root) while kernel.perf_event_paranoid is %d; "
				 "run as root, grant CAP_PERFMON, or set "
				 "'sysctl kernel.perf_event_paranoid=0'", name, p);
	if (p >= 2 && !ev->attr.exclude_kernel)
		return xasprintf("permission denied for '%s': counting kernel code needs CAP_PERFMON "
				 "(or root) while kernel.perf_event_paranoid is %d; count user space "
				 "only ('%s:u') or set 'sysctl kernel.perf_event_paranoid=1'", name, p, name);
	if (ev->attr.type == PERF_TYPE_TRACEPOINT)
		return xasprintf("permission denied for tracepoint '%s' (kernel.perf_event_paranoid "
				 "is %d): tracepoints need CAP_PERFMON or root, or "
				 "'sysctl kernel.perf_event_paranoid=-1'", name, p);
	return xasprintf("permission denied for '%s' (kernel.perf_event_paranoid is %d): run as "
			 "root or grant CAP_PERFMON", name, p);
}

static char *explain_missing(int errnum, const struct evdesc *ev, bool per_cpu,
			     const struct cnt_explain_ctx *ctx)
{
	const char *name = ev->name;

	if (is_core_event(ev) && !ctx->core_pmu)
		return xasprintf("this CPU or VM does not expose '%s': %s", name,
				 ctx->in_vm ? "the hypervisor gives this VM no virtual PMU (no core PMU "
					      "under /sys/bus/event_source/devices)" :
					      "the kernel found no core PMU for this CPU");
	if (is_core_event(ev))
		return xasprintf("this CPU or VM does not expose '%s' (%s from the core PMU '%s')",
				 name, strerror(errnum), ev->pmu[0] ? ev->pmu : "cpu");
	if (ev->uncore && errnum == EINVAL && !per_cpu)
		return xasprintf("'%s' is a per-socket (uncore) event: it counts only system-wide "
				 "(-a), not per process or thread", name);
	if (ev->uncore)
		return xasprintf("the uncore PMU '%s' refused '%s' (%s): check the event encoding "
				 "and that no exclude modifier is set", ev->pmu, name, strerror(errnum));
	if (ev->attr.type == PERF_TYPE_TRACEPOINT && errnum == ENOENT)
		return xasprintf("tracepoint '%s' does not exist in this kernel", name);
	if (ev->attr.type == PERF_TYPE_SOFTWARE && errnum == ENOENT)
		return xasprintf("this kernel does not know the software event '%s'", name);
	if (errnum == EOPNOTSUPP)
		return xasprintf("'%s' cannot be counted in this mode (%s)", name,
				 per_cpu ? "per CPU or per cgroup" : "per thread");
	return xasprintf("the kernel rejected '%s': %s (invalid attribute for this CPU or kernel)",
			 name, strerror(errnum));
}

char *cnt_explain(int errnum, const struct evdesc *ev, bool per_cpu,
		  const struct cnt_explain_ctx *ctx)
{
	const char *name = ev->name;

	switch (errnum) {
	case EACCES:
	case EPERM:
		return explain_perm(ev, per_cpu, ctx);
	case ENOENT:
	case EOPNOTSUPP:
	case EINVAL:
		return explain_missing(errnum, ev, per_cpu, ctx);
	case EMFILE:
	case ENFILE:
		if (ctx->fd_limit > 0)
			return xasprintf("out of file descriptors opening '%s': this request needs %zu "
					 "and the limit is %ld; raise it with 'ulimit -n %zu' or count "
					 "fewer events or threads", name, ctx->fds_needed,
					 ctx->fd_limit, ctx->fds_needed + 64);
		return xasprintf("out of file descriptors opening '%s': this request needs %zu",
				 name, ctx->fds_needed);
	case ESRCH:
		return xasprintf("the process or thread to count '%s' on is gone", name);
	case ENODEV:
		return per_cpu ? xasprintf("no CPU to count '%s' on is online", name) :
				 xasprintf("'%s' is not available here (%s)", name, strerror(errnum));
	case EBUSY:
		return xasprintf("'%s' is busy: another user holds the counter (an exclusive or "
				 "pinned event, another profiler, or the NMI watchdog)", name);
	case E2BIG:
		return xasprintf("the kernel does not accept the attributes of '%s' (perf_event_attr "
				 "too new for this kernel)", name);
	}
	return xasprintf("cannot open '%s': %s", name, strerror(errnum));
}
