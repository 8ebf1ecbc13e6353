/* test_schedtrace.c - exact residency from context-switch records: decoding, a live run */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "source/schedtrace.h"
#include "test.h"
#include "util/timeutil.h"

/*
 * The two records the kernel writes for one switch on cpu at t, laid out as
 * include/uapi/linux/perf_event.h describes PERF_RECORD_SWITCH_CPU_WIDE with
 * sample_id_all and sample_type TID|TIME|CPU: header; next_prev pid, tid;
 * then pid, tid (the task the record is about), time, cpu, res.
 */
static void one_pid(struct schedtrace *st, int cpu, uint64_t t, int32_t pid, int32_t tid,
		    int32_t other, bool out);

static void one(struct schedtrace *st, int cpu, uint64_t t, int32_t self, int32_t other, bool out)
{
	one_pid(st, cpu, t, self, self, other, out);
}

static void rec(struct schedtrace *st, int cpu, uint64_t t, int32_t prev, int32_t next)
{
	one(st, cpu, t, prev, next, true);
	one(st, cpu, t, next, prev, false);
}

/* Switches fed by hand; every expected figure is worked out in the comments. */
TEST(schedtrace_decoding)
{
	struct schedtrace *st = schedtrace_new_offline(3);
	const uint64_t *run;
	size_t n;
	struct vp_err err;
	struct perf_event_header lost = { PERF_RECORD_LOST, 0, 8 + 16 + 24 };
	unsigned char shortrec[32] = { 0 }, lostrec[48] = { 0 };
	uint64_t nlost = 7;

	schedtrace_watch(st, 100, 1000, -1);  /* not running when watched */
	schedtrace_watch(st, 200, 1000, -1);  /* running, CPU unknown */
	schedtrace_watch(st, 300, 1000, 0);   /* running on CPU 0 */
	rec(st, 0, 2000, 5, 100);             /* 100 in on CPU 0 at 2000 */
	rec(st, 0, 5000, 100, 5);             /* ... out at 5000: 3000 ns on CPU 0 */
	rec(st, 1, 4000, 200, 7);             /* 200's first switch is out: ran 1000..4000 on CPU 1 */
	rec(st, 1, 6000, 7, 100);             /* 100 in on CPU 1 at 6000 */
	rec(st, 2, 6100, 8, 9);               /* nobody watched: ignored */
	/* a switch record too short for its sample_id, and one claiming more bytes than given */
	{
		struct perf_event_header h = { PERF_RECORD_SWITCH_CPU_WIDE, 0, 32 };
		int32_t tid = 100;

		memcpy(shortrec, &h, 8);
		memcpy(shortrec + 20, &tid, 4);
		schedtrace_feed_record(st, shortrec, sizeof(shortrec));
		h.size = 40;
		memcpy(shortrec, &h, 8);
		schedtrace_feed_record(st, shortrec, sizeof(shortrec));
	}
	CHECK_INT(schedtrace_poll(st, 7000, &err), 0); /* 100 running on CPU 1: +1000; 300: +6000 */
	rec(st, 1, 6500, 100, 7);             /* late record: 100 left CPU 1 at 6500, not 7000: -500 */

	CHECK(schedtrace_run_ns(st, 100, &run, &n));
	CHECK_INT((int)n, 4);
	CHECK_U64(run[0], 3000);
	CHECK_U64(run[1], 500);
	CHECK_U64(run[2], 0);
	CHECK(schedtrace_run_ns(st, 200, &run, &n));
	CHECK_U64(run[1], 3000);
	CHECK_U64(run[0], 0);
	CHECK(schedtrace_run_ns(st, 300, &run, &n));
	CHECK_U64(run[0], 6000);
	CHECK(!schedtrace_run_ns(st, 8, &run, &n));
	CHECK_U64(schedtrace_lost(st), 0);
	/* PERF_RECORD_LOST: header, id, lost (then its sample_id) */
	memcpy(lostrec, &lost, 8);
	memcpy(lostrec + 16, &nlost, 8);
	schedtrace_feed_record(st, lostrec, lost.size);
	CHECK_U64(schedtrace_lost(st), 7);
	/*
	 * Many threads: the table grows and finds every one.  On CPU 3 at time
	 * 2000 + t, thread t hands over to t + 1: thread 1000 ran from its watch
	 * (1000) to 3000; every later one ran 1 ns, from 2000 + t - 1 to 2000 + t.
	 */
	for (int t = 1000; t < 1300; t++)
		schedtrace_watch(st, t, 1000, -1);
	for (int t = 1000; t < 1300; t++)
		rec(st, 3, 2000 + (uint64_t)t, t, t + 1);
	CHECK(schedtrace_run_ns(st, 1000, &run, &n));
	CHECK_U64(run[3], 2000);
	for (int t = 1001; t < 1300; t++) {
		CHECK(schedtrace_run_ns(st, t, &run, &n));
		CHECK_U64_AT(__LINE__, run[3], 1);
	}
	schedtrace_free(st);
}

/*
 * Two holders of one tracer (two views of a collector): a second watch of a
 * thread adds a watcher and keeps its times; the thread is forgotten after
 * the last unwatch, and the others (sharing its probe chain) are still found.
 * The tracer lives until the last holder lets go.
 */
TEST(schedtrace_shared_watchers)
{
	struct schedtrace *st = schedtrace_new_offline(1), *st2;
	const uint64_t *run;
	size_t n;
	int t;

	schedtrace_watch(st, 100, 1000, -1);
	rec(st, 0, 2000, 5, 100);            /* 100 in on CPU 0 at 2000 */
	schedtrace_watch(st, 100, 2500, 1);  /* a second holder: no reset, no CPU change */
	rec(st, 0, 4000, 100, 5);            /* out at 4000: 2000 ns on CPU 0, none on CPU 1 */
	CHECK(schedtrace_run_ns(st, 100, &run, &n));
	CHECK_U64(run[0], 2000);
	CHECK_U64(run[1], 0);
	schedtrace_unwatch(st, 100);         /* one watcher left: still traced */
	rec(st, 1, 5000, 5, 100);
	rec(st, 1, 5300, 100, 5);
	CHECK(schedtrace_run_ns(st, 100, &run, &n));
	CHECK_U64(run[1], 300);
	schedtrace_unwatch(st, 100);         /* the last: forgotten */
	CHECK(!schedtrace_run_ns(st, 100, &run, &n));
	schedtrace_unwatch(st, 100);         /* not watched: nothing */
	/* 40 threads; forgetting every other one leaves the rest findable */
	for (t = 1; t <= 40; t++)
		schedtrace_watch(st, t * 64, 1000, -1);
	for (t = 1; t <= 40; t += 2)
		schedtrace_unwatch(st, t * 64);
	for (t = 1; t <= 40; t++)
		CHECK_AT(__LINE__, schedtrace_run_ns(st, t * 64, &run, &n) == (t % 2 == 0),
			 "thread %d", t * 64);
	st2 = schedtrace_ref(st);
	CHECK(st2 == st);
	schedtrace_free(st);                 /* one holder left: st2 still works */
	rec(st2, 0, 6000, 5, 128);
	rec(st2, 0, 6100, 128, 5);
	CHECK(schedtrace_run_ns(st2, 128, &run, &n));
	CHECK_U64(run[0], 100);
	schedtrace_free(st2);                /* freed (ASan would see a leak or a double free) */
}

struct phases {
	int cpu[2];
	double ns[2];                 /* thread CPU time in each phase, measured by itself */
	volatile int tid;
	volatile int go, done;
};

static double thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *burner(void *arg)
{
	struct phases *ph = arg;
	volatile unsigned long x = 0;

	ph->tid = (int)syscall(SYS_gettid);
	while (!__atomic_load_n(&ph->go, __ATOMIC_ACQUIRE))
		usleep(1000);
	for (int p = 0; p < 2; p++) {
		cpu_set_t set;
		double t0;

		CPU_ZERO(&set);
		CPU_SET(ph->cpu[p], &set);
		sched_setaffinity(0, sizeof(set), &set);
		t0 = thread_ns();
		while (thread_ns() - t0 < 150e6)
			for (int i = 0; i < 10000; i++)
				x += (unsigned long)i;
		ph->ns[p] = thread_ns() - t0;
	}
	__atomic_store_n(&ph->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A tracer on the first two CPUs of this process's affinity (cpus), or NULL
 * with why the test cannot run here (one CPU, no permission to record) or,
 * with *broken, why opening failed otherwise.
 */
static struct schedtrace *open_two_cpus(int cpus[2], char *why, size_t len, bool *broken)
{
	struct schedtrace *st = NULL;
	struct vp_err err = { 0, "" };
	cpu_set_t mine;
	int n = 0, ret;

	if (sched_getaffinity(0, sizeof(mine), &mine)) {
		snprintf(why, len, "cannot read this process's CPU affinity");
		return NULL;
	}
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &mine))
			cpus[n++] = c;
	if (n < 2) {
		snprintf(why, len, "needs two CPUs in this process's affinity");
		return NULL;
	}
	ret = schedtrace_open(&st, "/", cpus, 2, &err);
	if (ret)
		snprintf(why, len, "cannot record context switches here: %s", err.msg);
	/* no permission, no such event here: skipped; anything else is a failure */
	*broken = ret && !(ret == -EACCES || ret == -EPERM || ret == VP_EUNSUPP || ret == -ENOENT ||
			   ret == -EOPNOTSUPP);
	return st;
}

/*
 * Time the kernel took from cpu's tasks so far, ns: steal (the hypervisor ran
 * something else on this vCPU), irq and softirq, from /proc/stat.  A tracer
 * charges it to the task that was switched in; CLOCK_THREAD_CPUTIME_ID does not.
 */
static double stolen_ns(int cpu)
{
	char line[512], want[16];
	unsigned long long v[10] = { 0 };
	double ns = NAN;
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return NAN;
	snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)) &&
		    sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8)
			ns = (double)(v[5] + v[6] + v[7]) * 1e9 / (double)sysconf(_SC_CLK_TCK);
	fclose(f);
	return ns;
}

/*
 * Live: a thread burns 150 ms of CPU pinned to one CPU, then 150 ms pinned
 * to another.  The tracer must charge each CPU the time the thread measured
 * there (CLOCK_THREAD_CPUTIME_ID), which the sampling fallback cannot do.
 */
TEST(schedtrace_live_two_cpus)
{
	struct schedtrace *st = NULL;
	struct phases ph = { { 0, 1 }, { 0, 0 }, 0, 0, 0 };
	int cpus[2];
	char why[VP_ERR_MSG_MAX];
	bool broken;
	struct vp_err err;
	pthread_t th;
	const uint64_t *run;
	size_t nr;
	double st0[2], extra[2];

	if (!(st = open_two_cpus(cpus, why, sizeof(why), &broken))) {
		if (broken)
			test_fail(__FILE__, __LINE__, "%s", why);
		SKIP("%s", why);
	}
	ph.cpu[0] = cpus[0];
	ph.cpu[1] = cpus[1];
	pthread_create(&th, NULL, burner, &ph);
	while (!ph.tid)
		usleep(1000);
	st0[0] = stolen_ns(cpus[0]);
	st0[1] = stolen_ns(cpus[1]);
	schedtrace_watch(st, ph.tid, vp_now_ns(), -1);
	__atomic_store_n(&ph.go, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&ph.done, __ATOMIC_ACQUIRE)) {
		usleep(20000);
		CHECK_INT(schedtrace_poll(st, vp_now_ns(), &err), 0);
	}
	pthread_join(th, NULL);
	CHECK_INT(schedtrace_poll(st, vp_now_ns(), &err), 0);
	for (int p = 0; p < 2; p++) {
		double d = stolen_ns(cpus[p]) - st0[p];

		extra[p] = isnan(d) ? 0 : d + 2e9 / (double)sysconf(_SC_CLK_TCK); /* 2 ticks */
	}
	CHECK(schedtrace_run_ns(st, ph.tid, &run, &nr));
	if (schedtrace_lost(st)) {
		/* a machine switching faster than this test drained the buffers */
		unsigned long long lost = (unsigned long long)schedtrace_lost(st);

		schedtrace_free(st);
		SKIP("%llu context-switch records lost (machine too busy): exactness not checkable", lost);
	}
	/*
	 * each phase within 10 % + 10 ms (the waiting before go and the exit add a
	 * little), and above it by at most what the kernel says was taken from that
	 * CPU meanwhile (steal, irq: on a loaded host tens of ms)
	 */
	for (int p = 0; p < 2; p++)
		CHECK_AT(__LINE__, run[cpus[p]] >= 0.9 * ph.ns[p] - 10e6 &&
			 run[cpus[p]] <= 1.1 * ph.ns[p] + 10e6 + extra[p],
			 "CPU %d: traced %.1f ms, the thread measured %.1f ms, %.1f ms taken from "
			 "the CPU meanwhile", cpus[p], run[cpus[p]] / 1e6, ph.ns[p] / 1e6,
			 extra[p] / 1e6);
	schedtrace_free(st);
}

/* One record about thread tid of process pid; other is the task on the other side of the switch. */
static void one_pid(struct schedtrace *st, int cpu, uint64_t t, int32_t pid, int32_t tid,
		    int32_t other, bool out)
{
	unsigned char r[48];
	struct perf_event_header h = { PERF_RECORD_SWITCH_CPU_WIDE,
				       out ? PERF_RECORD_MISC_SWITCH_OUT : 0, 40 };
	uint32_t c = (uint32_t)cpu, zero = 0;

	memset(r, 0xee, sizeof(r));
	memcpy(r, &h, 8);
	memcpy(r + 8, &other, 4);
	memcpy(r + 12, &other, 4);
	memcpy(r + 16, &pid, 4);
	memcpy(r + 20, &tid, 4);
	memcpy(r + 24, &t, 8);
	memcpy(r + 32, &c, 4);
	memcpy(r + 36, &zero, 4);
	schedtrace_feed_record(st, r, 40);
}

/*
 * Moves between nodes, CPUs 0-1 on node 0 and 2-3 on node 1.  Thread 10,
 * running on CPU 0 when watched, comes onto CPUs 1, 2, 3, 0, 2 at times
 * 100..500: node 0, 1, 1, 0, 1, so 3 moves (0->1 at 200, 1->0 at 400,
 * 0->1 at 500).  The records arrive CPU by CPU, as the rings are read, not
 * in time order.  Thread 20 is not watched.
 */
TEST(schedtrace_node_moves)
{
	static const int nodes[] = { 0, 0, 1, 1 };
	struct schedtrace *st = schedtrace_new_offline(3);
	uint64_t moves = 99;

	CHECK(!schedtrace_node_moves(st, 10, &moves));     /* no node map yet */
	schedtrace_set_nodes(st, nodes, 4);
	schedtrace_watch(st, 10, 1, 0);
	/* CPU 0's ring, then 1, 2, 3 */
	one(st, 0, 400, 10, 0, false);
	one(st, 1, 100, 10, 0, false);
	one(st, 1, 150, 10, 0, true);
	one(st, 2, 200, 10, 0, false);
	one(st, 2, 500, 10, 0, false);
	one(st, 3, 300, 10, 0, false);
	one(st, 3, 250, 20, 0, false);
	CHECK_INT(schedtrace_poll(st, 1000, NULL), 0);
	CHECK(schedtrace_node_moves(st, 10, &moves));
	CHECK_U64(moves, 3);
	CHECK(!schedtrace_node_moves(st, 20, &moves));
	/* a switch-in after the poll's time waits for the next poll (another ring may be behind) */
	one(st, 0, 2000, 10, 0, false);
	CHECK_INT(schedtrace_poll(st, 1500, NULL), 0);
	CHECK(schedtrace_node_moves(st, 10, &moves));
	CHECK_U64(moves, 3);
	one(st, 3, 1800, 10, 0, false);   /* earlier than the waiting one: node 1, then node 0 */
	CHECK_INT(schedtrace_poll(st, 2500, NULL), 0);
	CHECK(schedtrace_node_moves(st, 10, &moves));
	CHECK_U64(moves, 3 + 0 + 1);      /* 2 (node 1) -> 3 (node 1): none; 3 -> 0: one */
	CHECK_U64(schedtrace_node_moves_total(st), 4);
	schedtrace_free(st);
}

/*
 * A thread watched asleep starts where /proc said it last ran
 * (schedtrace_last_cpu); one with no known CPU starts at its first
 * switch-in, which is no move; CPUs of unknown node count no move.
 */
TEST(schedtrace_node_moves_start)
{
	static const int nodes[] = { 0, 1, -1 };
	struct schedtrace *st = schedtrace_new_offline(2);
	uint64_t a = 0, b = 0;

	schedtrace_set_nodes(st, nodes, 3);
	schedtrace_watch(st, 7, 1, -1);
	schedtrace_last_cpu(st, 7, 0);
	schedtrace_watch(st, 8, 1, -1);
	one(st, 1, 10, 7, 0, false);     /* 0 -> 1: a move */
	one(st, 1, 20, 8, 0, false);     /* first seen: no move */
	one(st, 2, 30, 8, 0, false);     /* node unknown: no move */
	one(st, 0, 40, 8, 0, false);     /* 2 (unknown) -> 0: no move */
	CHECK_INT(schedtrace_poll(st, 100, NULL), 0);
	CHECK(schedtrace_node_moves(st, 7, &a) && schedtrace_node_moves(st, 8, &b));
	CHECK_U64(a, 1);
	CHECK_U64(b, 0);
	schedtrace_free(st);
}

/*
 * schedtrace_cpu: the CPU of a thread's latest switch-in by time (the rings are read one
 * CPU after another, so an earlier switch-in can come later), before any the CPU it ran on
 * when watched; -1 unwatched, unknown, or once records were lost.
 */
TEST(schedtrace_cpu_latest)
{
	struct schedtrace *st = schedtrace_new_offline(3);
	struct perf_event_header lost = { PERF_RECORD_LOST, 0, 8 + 16 + 24 };
	unsigned char lostrec[48] = { 0 };
	uint64_t nlost = 1;

	schedtrace_watch(st, 7, 1, 1);   /* running on CPU 1 when watched */
	schedtrace_watch(st, 8, 1, -1);  /* asleep: not known */
	CHECK_INT(schedtrace_cpu(st, 7), 1);
	CHECK_INT(schedtrace_cpu(st, 8), -1);
	CHECK_INT(schedtrace_cpu(st, 9), -1);   /* not watched */
	schedtrace_last_cpu(st, 8, 3);           /* /proc says it last ran on CPU 3 */
	CHECK_INT(schedtrace_cpu(st, 8), 3);
	rec(st, 2, 50, 0, 8);            /* 8 onto CPU 2 at 50 (CPU 2's ring read first) */
	rec(st, 0, 30, 0, 8);            /* ... after CPU 0 at 30 (read later, earlier in time) */
	rec(st, 1, 40, 7, 0);            /* 7 leaves CPU 1: still last on CPU 1 */
	CHECK_INT(schedtrace_poll(st, 100, NULL), 0);
	CHECK_INT(schedtrace_cpu(st, 8), 2);
	CHECK_INT(schedtrace_cpu(st, 7), 1);
	rec(st, 3, 60, 0, 7);            /* 7 onto CPU 3 */
	CHECK_INT(schedtrace_cpu(st, 7), 3);
	memcpy(lostrec, &lost, 8);       /* a lost record: a switch-in may be missing */
	memcpy(lostrec + 16, &nlost, 8);
	schedtrace_feed_record(st, lostrec, lost.size);
	CHECK_INT(schedtrace_cpu(st, 7), -1);
	schedtrace_free(st);
}

/* schedtrace_watch_process: every thread of the process from its first record, others not. */
TEST(schedtrace_watch_process)
{
	static const int nodes[] = { 0, 1 };
	struct schedtrace *st = schedtrace_new_offline(1);
	uint64_t m = 0;

	schedtrace_set_nodes(st, nodes, 2);
	schedtrace_watch_process(st, 500);
	one_pid(st, 0, 10, 500, 501, 0, false);  /* a thread of 500: watched from here */
	one_pid(st, 0, 15, 500, 501, 0, true);
	one_pid(st, 1, 20, 500, 501, 0, false);  /* node 0 -> 1 */
	one_pid(st, 1, 30, 600, 601, 0, false);  /* another process */
	CHECK_INT(schedtrace_poll(st, 100, NULL), 0);
	CHECK(schedtrace_node_moves(st, 501, &m));
	CHECK_U64(m, 1);
	CHECK(!schedtrace_node_moves(st, 601, &m));
	schedtrace_free(st);
}

struct hopper {
	int cpu[2];
	int tid;
	int ready, go, done;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Pinned to cpu[0]; on go, pinned to cpu[1], cpu[0], ... six times, sleeping 2 ms after each. */
static void *hopper_main(void *arg)
{
	struct hopper *h = arg;
	int k;

	pin(h->cpu[0]);
	usleep(5000);
	h->tid = (int)syscall(SYS_gettid);
	__atomic_store_n(&h->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->go, __ATOMIC_ACQUIRE))
		usleep(1000);
	for (k = 1; k <= 6; k++) {
		pin(h->cpu[k % 2]);
		usleep(2000);
	}
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Live: with two CPUs given two nodes, a thread of a watched process
 * (schedtrace_watch_process: it is watched from its first record) that is
 * pinned to the other CPU six times moved between nodes six times, as the
 * kernel's records, read ring by ring and put in time order, tell.
 */
TEST(schedtrace_live_node_moves)
{
	struct schedtrace *st = NULL;
	struct hopper h = { { 0, 1 }, 0, 0, 0, 0 };
	int cpus[2], nodes[CPU_SETSIZE];
	char why[VP_ERR_MSG_MAX];
	bool broken;
	struct vp_err err;
	pthread_t th;
	uint64_t before = 0, after = 0;

	if (!(st = open_two_cpus(cpus, why, sizeof(why), &broken))) {
		if (broken)
			test_fail(__FILE__, __LINE__, "%s", why);
		SKIP("%s", why);
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		nodes[c] = -1;
	nodes[cpus[0]] = 0;
	nodes[cpus[1]] = 1;
	schedtrace_set_nodes(st, nodes, CPU_SETSIZE);
	schedtrace_watch_process(st, (int)getpid());
	h.cpu[0] = cpus[0];
	h.cpu[1] = cpus[1];
	pthread_create(&th, NULL, hopper_main, &h);
	while (!__atomic_load_n(&h.ready, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(2000);
	CHECK_INT(schedtrace_poll(st, vp_now_ns(), &err), 0);
	CHECK(schedtrace_node_moves(st, h.tid, &before));
	__atomic_store_n(&h.go, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h.done, __ATOMIC_ACQUIRE)) {
		usleep(10000);
		CHECK_INT(schedtrace_poll(st, vp_now_ns(), &err), 0);
	}
	pthread_join(th, NULL);
	CHECK_INT(schedtrace_poll(st, vp_now_ns(), &err), 0);
	if (schedtrace_lost(st)) {
		unsigned long long lost = (unsigned long long)schedtrace_lost(st);

		schedtrace_free(st);
		SKIP("%llu context-switch records lost (machine too busy): the count is not checkable", lost);
	}
	CHECK(schedtrace_node_moves(st, h.tid, &after));
	CHECK_U64(after - before, 6);
	schedtrace_free(st);
}
