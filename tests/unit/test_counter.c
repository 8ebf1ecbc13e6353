/* test_counter.c - unit tests for the counting engine (src/pmu/counter.h): scaling and delta
 * math by hand, cgroup mount detection on fixtures, explanations, and live software counters */
#include "test.h"

#include <fcntl.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pmu/counter.h"
#include "util/alloc.h"
#include "util/timeutil.h"

/* ---- scaling and deltas, computed by hand ---- */

static const struct {
	int line;
	uint64_t raw, ena, run;
	double scale;
	double value;   /* raw * ena/run * scale */
	double pct;     /* 100 * run/ena */
} scale_rows[] = {
	{ __LINE__, 1000, 1000, 1000, 1.0, 1000.0, 100.0 },
	/* multiplexed a quarter of the time: x4 */
	{ __LINE__, 1000, 800, 200, 1.0, 4000.0, 25.0 },
	/* perf's (62.50%): 5/8 of the time, 500 counted -> 800 */
	{ __LINE__, 500, 8000, 5000, 1.0, 800.0, 62.5 },
	/* sysfs scale: uncore_imc cas_count .scale = 6.103515625e-5 (64 B in MiB) */
	{ __LINE__, 16384, 10, 10, 6.103515625e-5, 1.0, 100.0 },
	{ __LINE__, 16384, 10, 5, 6.103515625e-5, 2.0, 50.0 },
	/* never scheduled: unknown, not zero */
	{ __LINE__, 0, 1000, 0, 1.0, NAN, 0.0 },
	/* not enabled at all (a thread that did not run): exactly 0 */
	{ __LINE__, 0, 0, 0, 1.0, 0.0, NAN },
};

TEST(counter_scale_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(scale_rows); i++) {
		struct cnt_value v = { scale_rows[i].raw, scale_rows[i].ena, scale_rows[i].run, 0, 0 };

		cnt_value_scale(&v, scale_rows[i].scale);
		CHECK_NEAR_AT(scale_rows[i].line, v.value, scale_rows[i].value, 1e-9);
		CHECK_NEAR_AT(scale_rows[i].line, v.pct, scale_rows[i].pct, 1e-9);
	}
}

static const struct {
	int line;
	struct cnt_value cur, prev;
	uint64_t raw, ena, run;
	double value, pct;
} delta_rows[] = {
	/* interval of 1 s fully counted: 500 more */
	{ __LINE__, { 1500, 2000000000, 2000000000, 0, 0 }, { 1000, 1000000000, 1000000000, 0, 0 },
	  500, 1000000000, 1000000000, 500.0, 100.0 },
	/* multiplexed interval: 300 in 250 of 1000 ms -> 1200, 25% */
	{ __LINE__, { 1300, 2000, 1250, 0, 0 }, { 1000, 1000, 1000, 0, 0 },
	  300, 1000, 250, 1200.0, 25.0 },
	/* not scheduled in this interval: NaN, 0% */
	{ __LINE__, { 1000, 2000, 1000, 0, 0 }, { 1000, 1000, 1000, 0, 0 },
	  0, 1000, 0, NAN, 0.0 },
	/* a counter never goes back: a smaller reading is no negative delta */
	{ __LINE__, { 10, 10, 10, 0, 0 }, { 20, 20, 20, 0, 0 }, 0, 0, 0, 0.0, NAN },
};

TEST(counter_delta_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(delta_rows); i++) {
		struct cnt_value d;

		cnt_value_delta(&d, &delta_rows[i].cur, &delta_rows[i].prev);
		CHECK_U64_AT(delta_rows[i].line, d.raw, delta_rows[i].raw);
		CHECK_U64_AT(delta_rows[i].line, d.enabled, delta_rows[i].ena);
		CHECK_U64_AT(delta_rows[i].line, d.running, delta_rows[i].run);
		cnt_value_scale(&d, 1.0);
		CHECK_NEAR_AT(delta_rows[i].line, d.value, delta_rows[i].value, 1e-9);
		CHECK_NEAR_AT(delta_rows[i].line, d.pct, delta_rows[i].pct, 1e-9);
	}
}

/* ---- cgroup hierarchy detection on fixture mount tables ---- */

TEST(counter_cgroup_mount)
{
	char buf[256];
	bool v2 = false;
	struct vp_err err = { 0, "" };

	CHECK_INT(cnt_cgroup_mount(test_data("counter/hybrid"), buf, sizeof(buf), &v2, &err), 0);
	CHECK_STR(buf, "/sys/fs/cgroup/unified");
	CHECK(v2);
	/* a v1 perf_event hierarchy owns the controller; mount names are unescaped */
	CHECK_INT(cnt_cgroup_mount(test_data("counter/v1perf"), buf, sizeof(buf), &v2, &err), 0);
	CHECK_STR(buf, "/sys/fs/cgroup/perf event");
	CHECK(!v2);
	CHECK(cnt_cgroup_mount(test_data("counter/cpu-offline"), buf, sizeof(buf), &v2, &err) < 0);
}

/* ---- explanations ---- */

static struct evdesc fake_ev(const char *name, uint32_t type, uint64_t config)
{
	struct evdesc ev;

	memset(&ev, 0, sizeof(ev));
	ev.spec = (char *)name;
	ev.name = (char *)name;
	snprintf(ev.pmu, sizeof(ev.pmu), "%s", type == PERF_TYPE_SOFTWARE ? "software" :
		 type == PERF_TYPE_TRACEPOINT ? "tracepoint" : "cpu");
	ev.attr.type = type;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.config = config;
	ev.scale = 1.0;
	cpulist_init(&ev.cpus);
	return ev;
}

static const struct {
	int line;
	int errnum;
	uint32_t type;
	bool per_cpu;
	int paranoid;
	bool privileged, core_pmu, in_vm;
	const char *want;
} explain_rows[] = {
	{ __LINE__, ENOENT, PERF_TYPE_HARDWARE, true, 2, true, false, true,
	  "this CPU or VM does not expose 'ev': the hypervisor gives this VM no virtual PMU" },
	{ __LINE__, EOPNOTSUPP, PERF_TYPE_HARDWARE, false, 2, true, false, true,
	  "this CPU or VM does not expose 'ev'" },
	{ __LINE__, EINVAL, PERF_TYPE_RAW, false, 2, true, false, false,
	  "the kernel found no core PMU" },
	{ __LINE__, EACCES, PERF_TYPE_SOFTWARE, true, 2, false, true, false,
	  "needs CAP_PERFMON (or root) while kernel.perf_event_paranoid is 2" },
	{ __LINE__, EACCES, PERF_TYPE_SOFTWARE, false, 3, false, true, false,
	  "kernel.perf_event_paranoid is 3, which refuses every unprivileged" },
	{ __LINE__, EACCES, PERF_TYPE_HARDWARE, false, 2, false, true, false,
	  "count user space only ('ev:u')" },
	{ __LINE__, EPERM, PERF_TYPE_SOFTWARE, true, -1, true, true, false,
	  "a security module" },
	{ __LINE__, EMFILE, PERF_TYPE_SOFTWARE, false, 2, true, true, false,
	  "this request needs 4000 and the limit is 1024" },
	{ __LINE__, ESRCH, PERF_TYPE_SOFTWARE, false, 2, true, true, false,
	  "is gone" },
	{ __LINE__, ENOENT, PERF_TYPE_TRACEPOINT, true, 2, true, true, false,
	  "tracepoint 'ev' does not exist" },
	{ __LINE__, EBUSY, PERF_TYPE_HARDWARE, true, 2, true, true, false,
	  "NMI watchdog" },
};

TEST(counter_explain_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(explain_rows); i++) {
		struct evdesc ev = fake_ev("ev", explain_rows[i].type, 0);
		struct cnt_explain_ctx ctx = { 0 };
		char *msg;

		ctx.paranoid = explain_rows[i].paranoid;
		ctx.privileged = explain_rows[i].privileged;
		ctx.core_pmu = explain_rows[i].core_pmu;
		ctx.in_vm = explain_rows[i].in_vm;
		ctx.fd_limit = 1024;
		ctx.fds_needed = 4000;
		msg = cnt_explain(explain_rows[i].errnum, &ev, explain_rows[i].per_cpu, &ctx);
		CHECK_AT(explain_rows[i].line, strstr(msg, explain_rows[i].want),
			 "'%s' does not contain '%s'", msg, explain_rows[i].want);
		free(msg);
	}
}

TEST(counter_explain_probe_live)
{
	struct cnt_explain_ctx ctx;
	int want;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (!f)
		SKIP("no /proc/sys/kernel/perf_event_paranoid");
	CHECK_INT(fscanf(f, "%d", &want), 1);
	fclose(f);
	cnt_explain_probe(&ctx, "/");
	CHECK_INT(ctx.paranoid, want);
	CHECK(ctx.fd_limit > 0);
}

/* ---- live: software counters on this process ---- */

static void burn_ms(int ms)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int counter_of(const struct cnt_session *s, int ev, int ent)
{
	for (size_t i = 0; i < s->n_counters; i++)
		if (s->counters[i].event == ev && (ent < 0 || s->counters[i].entity == ent))
			return (int)i;
	return -1;
}

TEST(counter_live_thread_group)
{
	struct evdesc ev[3] = {
		fake_ev("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK),
		fake_ev("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS),
		fake_ev("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES),
	};
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct cnt_request req = { 0 };
	struct cnt_session *s = NULL;
	struct cnt_snapshot snap;
	struct vp_err err = { 0, "" };
	double cpu0, cpu1;
	char *mem;
	int i, c;

	for (i = 0; i < 3; i++)
		ev[i].spec_index = i;
	req.events = ev;
	req.n_events = 3;
	req.target.tids = &tid;
	req.target.n_tids = 1;
	if (cnt_session_new(&s, &req, &err))
		SKIP("cannot open software counters here: %s", err.msg);
	/* three software events on one thread: one group, one read */
	CHECK_INT(s->n_grps, 1);
	CHECK_INT(s->n_counters, 3);
	CHECK_INT(s->n_entities, 1);
	CHECK_INT(s->entities[0].kind, CNT_ENT_THREAD);
	CHECK_INT(s->entities[0].tid, tid);
	CHECK_INT(s->entities[0].pid, getpid());
	cnt_snapshot_init(&snap);
	CHECK_INT(cnt_session_enable(s, &err), 0);
	cpu0 = thread_cpu_ns();
	burn_ms(60);
	/* fresh pages from mmap: malloc may hand back pages another test
	 * already faulted in (glibc raises its mmap threshold after big frees) */
	mem = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mem != MAP_FAILED);
	for (i = 0; i < 64 && mem != MAP_FAILED; i++)
		mem[i * 4096] = (char)i;
	usleep(2000);
	cpu1 = thread_cpu_ns();
	CHECK_INT(cnt_session_read(s, &snap, &err), 0);
	if (mem != MAP_FAILED)
		munmap(mem, 64 * 4096);
	c = counter_of(s, 0, 0);
	CHECK(c >= 0);
	/* task-clock (ns) against this thread's CPU time: within 5 % */
	CHECK_NEAR(snap.delta[c].value, cpu1 - cpu0, 0.05 * (cpu1 - cpu0));
	CHECK_NEAR(snap.delta[c].pct, 100.0, 1e-9);
	/* 64 newly mapped pages fault at least 64 times */
	c = counter_of(s, 1, 0);
	CHECK(snap.delta[c].value >= 64);
	/* usleep() switches out at least once */
	c = counter_of(s, 2, 0);
	CHECK(snap.delta[c].value >= 1);
	CHECK_INT(snap.state[c], CNT_SERIES_LIVE);
	/* the second interval is a delta: it does not contain the first */
	burn_ms(20);
	CHECK_INT(cnt_session_read(s, &snap, &err), 0);
	c = counter_of(s, 0, 0);
	CHECK(snap.delta[c].value < 0.8 * (cpu1 - cpu0));
	CHECK(snap.total[c].value >= snap.delta[c].value);
	CHECK(snap.t_ns > snap.prev_ns && snap.prev_ns >= snap.start_ns);
	cnt_snapshot_release(&snap);
	cnt_session_free(s);
}

struct exiter {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pid_t tid;
	int go;
};

static void *exiter_main(void *arg)
{
	struct exiter *x = arg;

	pthread_mutex_lock(&x->mu);
	x->tid = (pid_t)syscall(SYS_gettid);
	pthread_cond_broadcast(&x->cv);
	while (!x->go)
		pthread_cond_wait(&x->cv, &x->mu);
	pthread_mutex_unlock(&x->mu);
	burn_ms(20);
	return NULL;
}

TEST(counter_live_thread_exits_mid_run)
{
	struct evdesc ev = fake_ev("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	struct exiter x = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
	pid_t tids[2];
	struct cnt_request req = { 0 };
	struct cnt_session *s = NULL;
	struct cnt_snapshot snap;
	struct vp_err err = { 0, "" };
	pthread_t th;
	int c, tries, ent = -1;

	pthread_create(&th, NULL, exiter_main, &x);
	pthread_mutex_lock(&x.mu);
	while (!x.tid)
		pthread_cond_wait(&x.cv, &x.mu);
	pthread_mutex_unlock(&x.mu);
	tids[0] = (pid_t)syscall(SYS_gettid);
	tids[1] = x.tid;
	req.events = &ev;
	req.n_events = 1;
	req.target.tids = tids;
	req.target.n_tids = 2;
	if (cnt_session_new(&s, &req, &err)) {
		x.go = 1;
		pthread_cond_broadcast(&x.cv);
		pthread_join(th, NULL);
		SKIP("cannot open software counters here: %s", err.msg);
	}
	cnt_snapshot_init(&snap);
	cnt_session_enable(s, &err);
	CHECK_INT(cnt_session_read(s, &snap, &err), 0);
	CHECK_INT(snap.n_ended_now, 0);
	pthread_mutex_lock(&x.mu);
	x.go = 1;
	pthread_cond_broadcast(&x.cv);
	pthread_mutex_unlock(&x.mu);
	pthread_join(th, NULL);
	/* the kernel releases the thread's /proc entry shortly after join */
	for (tries = 0; tries < 100; tries++) {
		CHECK_INT(cnt_session_read(s, &snap, &err), 0);
		if (snap.n_ended_now)
			break;
		usleep(10000);
	}
	for (size_t i = 0; i < s->n_entities; i++)
		if (s->entities[i].tid == x.tid)
			ent = (int)i;
	CHECK(ent >= 0);
	CHECK_INT(s->entities[ent].state, CNT_ENT_ENDED);
	/* Linux 6.9 on: the exit was found by polling the threads' pidfds (issue 22), the
	   live thread's still open, the ended one's closed */
	{
		long probe = syscall(SYS_pidfd_open, tids[0], O_EXCL /* PIDFD_THREAD */);

		if (probe >= 0) {
			close((int)probe);
			CHECK(s->pidfds != NULL);
			for (size_t i = 0; s->pidfds && i < s->n_entities; i++)
				if (s->entities[i].tid == tids[0])
					CHECK(s->pidfds[i] >= 0);
			if (s->pidfds)
				CHECK_INT(s->pidfds[ent], -1);
		}
	}
	c = counter_of(s, 0, ent);
	CHECK_INT(snap.state[c], CNT_SERIES_ENDED_NOW);
	/* its 20 ms of work counted before it ended (in this or an earlier delta) */
	CHECK(snap.total[c].value >= 15e6);
	/* the run goes on: the other thread still counts, the ended series is NaN */
	CHECK_INT(cnt_session_read(s, &snap, &err), 0);
	CHECK_INT(snap.state[c], CNT_SERIES_ENDED);
	CHECK_NAN(snap.delta[c].value);
	CHECK(snap.total[c].value >= 15e6);
	CHECK_INT(snap.state[counter_of(s, 0, 0)], CNT_SERIES_LIVE);
	cnt_snapshot_release(&snap);
	cnt_session_free(s);
}

/*
 * Threads a scan found (the collector's hub): one that has ended since is
 * left out with skip_gone, the others counted; without it, an error naming
 * it (stat -t TID).  4194305 is one above PID_MAX_LIMIT (include/linux/threads.h),
 * so no thread has it.
 */
TEST(counter_live_gone_thread_skipped)
{
	struct evdesc ev = fake_ev("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	pid_t tids[2] = { (pid_t)syscall(SYS_gettid), 4194305 };
	struct cnt_request req = { 0 };
	struct cnt_session *s = NULL;
	struct vp_err err = { 0, "" };

	req.events = &ev;
	req.n_events = 1;
	req.target.tids = &tids[0];
	req.target.n_tids = 1;
	if (cnt_session_new(&s, &req, &err))
		SKIP("cannot open software counters here: %s", err.msg);
	cnt_session_free(s);
	s = NULL;
	req.target.n_tids = 2;
	CHECK_INT(cnt_session_new(&s, &req, &err), -ESRCH);
	CHECK_CONTAINS(err.msg, "thread 4194305 does not exist");
	CHECK(s == NULL);
	req.target.skip_gone = true;
	CHECK_INT(cnt_session_new(&s, &req, &err), 0);
	if (!s)
		return;
	CHECK_INT(s->n_entities, 1);
	CHECK_INT(s->entities[0].tid, tids[0]);
	CHECK_INT(s->n_counters, 1);
	CHECK_INT(s->events[0].state, CNT_EV_OPEN);
	cnt_session_free(s);
}

TEST(counter_live_offline_and_missing_cpu)
{
	struct evdesc ev = fake_ev("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	struct cnt_request req = { 0 };
	struct cnt_session *s = NULL;
	struct vp_err err = { 0, "" };
	int ret;

	/* the fixture says CPU 1 is possible but offline, CPU 0 online */
	req.events = &ev;
	req.n_events = 1;
	req.root = test_data("counter/cpu-offline");
	cpulist_init(&req.target.cpus);
	cpulist_add(&req.target.cpus, 0);
	cpulist_add(&req.target.cpus, 1);
	ret = cnt_session_new(&s, &req, &err);
	if (ret) {
		cpulist_release(&req.target.cpus);
		SKIP("cannot open CPU-wide software counters here: %s", err.msg);
	}
	CHECK_INT(s->n_entities, 2);
	CHECK_INT(s->entities[0].cpu, 0);
	CHECK_INT(s->entities[0].state, CNT_ENT_LIVE);
	CHECK_INT(s->entities[0].package, 3);  /* from the fixture's topology */
	CHECK_INT(s->entities[1].cpu, 1);
	CHECK_INT(s->entities[1].state, CNT_ENT_OFFLINE);
	CHECK_INT(s->n_counters, 1);
	CHECK_INT(s->events[0].state, CNT_EV_OPEN);
	cnt_session_free(s);

	/* CPU 5 does not exist at all: a clear error */
	cpulist_add(&req.target.cpus, 5);
	CHECK_INT(cnt_session_new(&s, &req, &err), VP_EINVAL);
	CHECK_CONTAINS(err.msg, "CPU 5 does not exist: this machine has CPUs 0-1");
	cpulist_release(&req.target.cpus);
}

TEST(counter_live_uncore_plan_and_package_sum)
{
	/* an "uncore" event stand-in: a software event flagged uncore on cpumask 0 */
	struct evdesc ev = fake_ev("fake_uncore/cpu-clock/", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	struct cnt_request req = { 0 };
	struct cnt_session *s = NULL;
	struct cnt_snapshot snap;
	struct cnt_value sum;
	struct cnt_filter f = CNT_FILTER_ANY;
	struct vp_err err = { 0, "" };

	ev.uncore = true;
	ev.scale = 0.5;
	cpulist_add(&ev.cpus, 0);
	req.events = &ev;
	req.n_events = 1;
	req.root = test_data("counter/cpu-offline");
	req.target.system_wide = true;
	if (cnt_session_new(&s, &req, &err)) {
		cpulist_release(&ev.cpus);
		SKIP("cannot open CPU-wide software counters here: %s", err.msg);
	}
	CHECK_INT(s->n_counters, 1);
	CHECK_INT(s->entities[s->counters[0].entity].cpu, 0);
	cnt_snapshot_init(&snap);
	cnt_session_enable(s, &err);
	usleep(20000);
	cnt_session_read(s, &snap, &err);
	/* cpu-clock counts ns of CPU 0; the scale halves it; package 3 from the fixture */
	f.spec_index = 0;
	f.package = 3;
	CHECK_INT(cnt_sum(s, &snap, true, &f, &sum), 1);
	CHECK_NEAR(sum.value, 0.5 * (double)sum.raw, 1e-6);
	CHECK(sum.raw >= 15000000);
	f.package = 4;
	CHECK_INT(cnt_sum(s, &snap, true, &f, &sum), 0);
	CHECK_NAN(sum.value);
	cnt_snapshot_release(&snap);
	cnt_session_free(s);
	cpulist_release(&ev.cpus);
}

TEST(counter_live_dropped_hardware_event)
{
	struct evdesc ev[2] = {
		fake_ev("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES),
		fake_ev("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK),
	};
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct cnt_request req = { 0 };
	struct cnt_session *s = NULL;
	struct vp_err err = { 0, "" };

	ev[1].spec_index = 1;
	req.events = ev;
	req.n_events = 2;
	req.target.tids = &tid;
	req.target.n_tids = 1;
	if (cnt_session_new(&s, &req, &err))
		SKIP("cannot open software counters here: %s", err.msg);
	if (s->events[0].state == CNT_EV_OPEN) {
		cnt_session_free(s);
		SKIP("this machine has a core PMU: 'cycles' opens");
	}
	CHECK_INT(s->events[0].state, CNT_EV_DROPPED);
	CHECK_INT(s->events[1].state, CNT_EV_OPEN);
	CHECK_CONTAINS(s->events[0].why, "does not expose 'cycles'");
	cnt_session_free(s);

	/* every event failed: the session fails with the explanation */
	req.n_events = 1;
	CHECK(cnt_session_new(&s, &req, &err) < 0);
	CHECK_CONTAINS(err.msg, "does not expose 'cycles'");
}
