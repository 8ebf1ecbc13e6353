/* provoke.c - the measuring side of `vmmprof verify`: each factor provoked beside a control, counted */
#include "bench/provoke.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench/internal.h"
#include "bench/peers.h"
#include "pmu/counter.h"
#include "source/numa_maps.h"
#include "util/timeutil.h"

/* Loop iterations of the counting check and of its control. */
#define LOOP_N 10000000ull
#define LOOP_CONTROL 1000ull
/* Fresh pages touched by the software counting check, and by its control. */
#define FAULT_PAGES 2048
#define FAULT_CONTROL 16
/* The placement checks' buffer (small: the checks ask the kernel, not the memory). */
#define PLACE_BYTES (8u << 20)

static void add_reason(char *out, size_t size, const char *fmt, int a, int b)
{
	size_t len = strlen(out);

	snprintf(out + len, size - len, "%s", len ? "; " : "");
	len = strlen(out);
	snprintf(out + len, size - len, fmt, a, b);
}

void provoke_hw_reason(bool core_pmu, const struct bench_topo *t, int need_nodes,
		       int need_llc_cpus, int need_pkgs, char *out, size_t size)
{
	int best = 0, i, j;

	out[0] = '\0';
	if (!core_pmu)
		snprintf(out, size, "no core PMU");
	if (need_nodes > 1 && t->n_nodes < need_nodes)
		add_reason(out, size, "needs %d NUMA nodes, this machine has %d", need_nodes,
			   t->n_nodes);
	if (need_llc_cpus > 1) {
		for (i = 0; i < t->n_cpus; i++) {
			int n = 0;

			for (j = 0; j < t->n_cpus; j++)
				n += t->cpu_llc[j] == t->cpu_llc[i];
			if (n > best)
				best = n;
		}
		if (best < need_llc_cpus)
			add_reason(out, size, "needs %d CPUs on one LLC, this machine has %d",
				   need_llc_cpus, best);
	}
	if (need_pkgs > 1 && t->n_pkgs < need_pkgs)
		add_reason(out, size, "needs %d packages, this machine has %d", need_pkgs, t->n_pkgs);
}

static struct verify_check *add(struct verify_check *c, size_t max, size_t *n, const char *factor,
				const char *name, const char *unit, enum verify_kind kind,
				enum verify_expect expect, double expected)
{
	struct verify_check *x;

	if (*n >= max)
		return NULL;
	x = &c[(*n)++];
	memset(x, 0, sizeof(*x));
	x->factor = factor;
	x->name = name;
	x->unit = unit;
	x->kind = kind;
	x->expect = expect;
	x->expected = expected;
	x->companion = NAN;
	return x;
}

/* --- counting --- */

/* A loop that retires exactly 2 user instructions per iteration (n > 0). */
static bool known_loop_available(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
	return true;
#else
	return false;
#endif
}

__attribute__((noinline)) static void known_loop(uint64_t n)
{
#if defined(__x86_64__)
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#elif defined(__aarch64__)
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
	(void)n;
#endif
}

/* One counter on the calling thread: event spec counted around fn(arg). */
struct self_count {
	struct cnt_session *s;
	struct cnt_snapshot snap;
	double ran_pct;               /* the lowest running share of a read (100: never multiplexed) */
};

static int self_open(struct self_count *sc, struct pmu_db *db, const char *spec, char *why,
		     size_t size)
{
	struct evdesc_list l;
	struct cnt_request req;
	struct vp_err err = { 0, "" };
	pid_t tid = (pid_t)syscall(SYS_gettid);
	int ret;

	memset(sc, 0, sizeof(*sc));
	sc->ran_pct = 100;
	cnt_snapshot_init(&sc->snap);
	evdesc_list_init(&l);
	if ((ret = event_resolve(db, spec, 0, &l, &err))) {
		snprintf(why, size, "cannot resolve '%s': %s", spec, err.msg);
		goto out;
	}
	memset(&req, 0, sizeof(req));
	req.events = l.v;
	req.n_events = l.n;
	req.target.tids = &tid;
	req.target.n_tids = 1;
	req.root = "/";
	if ((ret = cnt_session_new(&sc->s, &req, &err))) {
		snprintf(why, size, "cannot count '%s': %s", spec, err.msg);
		goto out;
	}
	if (sc->s->events[0].state != CNT_EV_OPEN) {
		snprintf(why, size, "cannot count '%s': %s", spec,
			 sc->s->events[0].why ? sc->s->events[0].why : "not opened");
		ret = -1;
		goto out;
	}
	if ((ret = cnt_session_enable(sc->s, &err)) ||
	    (ret = cnt_session_read(sc->s, &sc->snap, &err)))
		snprintf(why, size, "cannot count '%s': %s", spec, err.msg);
out:
	evdesc_list_release(&l);
	return ret;
}

/* The count since the previous read (NaN when it could not be read). */
static double self_read(struct self_count *sc)
{
	struct vp_err err = { 0, "" };
	struct cnt_filter f = CNT_FILTER_ANY;
	struct cnt_value v;

	if (cnt_session_read(sc->s, &sc->snap, &err))
		return NAN;
	if (cnt_sum(sc->s, &sc->snap, false, &f, &v) < 1)
		return NAN;
	/* a counter that was multiplexed is scaled, so no longer an exact count */
	if (v.running != v.enabled) {
		double pct = v.enabled ? 100.0 * (double)v.running / (double)v.enabled : 0;

		if (pct < sc->ran_pct)
			sc->ran_pct = pct;
		return NAN;
	}
	return (double)v.raw;
}

/* Why a self-counted check has no exact count: the counter was multiplexed. */
static void self_mux_why(const struct self_count *sc, const char *spec, char *why, size_t size)
{
	if (sc->ran_pct < 100)
		snprintf(why, size, "'%s' was multiplexed (it counted %.0f%% of the time it was "
			 "enabled: other counters held the PMU), so no exact count", spec,
			 sc->ran_pct);
}

static void self_close(struct self_count *sc)
{
	cnt_session_free(sc->s);
	cnt_snapshot_release(&sc->snap);
}

/* The control's and the treatment's iterations, read at run time (see below). */
static volatile uint64_t loop_iters[2] = { LOOP_CONTROL, LOOP_N + LOOP_CONTROL };

static void check_instructions(const struct provoke_env *e, struct verify_check *x)
{
	struct self_count sc;
	int i;

	snprintf(x->note, sizeof(x->note),
		 "a loop of 2 instructions per iteration, %llu iterations against %llu, "
		 "counted as 'instructions:u' on this thread",
		 (unsigned long long)(LOOP_N + LOOP_CONTROL), (unsigned long long)LOOP_CONTROL);
	provoke_hw_reason(e->core_pmu, e->t, 0, 0, 0, x->skip, sizeof(x->skip));
	if (x->skip[0])
		return;
	if (!known_loop_available()) {
		snprintf(x->skip, sizeof(x->skip), "no loop of known length for this architecture");
		return;
	}
	if (self_open(&sc, e->db, "instructions:u", x->skip, sizeof(x->skip)))
		return;
	/*
	 * Counting only from enable to disable: what a read does with the
	 * values it read depends on them, so counting from read to read adds
	 * a few instructions that differ between a short and a long loop
	 * (-4 on the testbed's Neoverse N1 guest); enabling and disabling
	 * run the same instructions whatever the loop did.
	 */
	/*
	 * Both sides run the same instructions around the loop: the count is
	 * read from memory before enabling, so no side materialises its own
	 * constant inside the window (1000 is one aarch64 mov, 10001000 a mov
	 * and a movk: +1 on the testbed's N1 guest once the compiler moved it).
	 */
	cnt_session_disable(sc.s);
	self_read(&sc);
	for (i = 0; i < 2 * e->runs; i++) {
		struct vp_err err = { 0, "" };
		uint64_t n = loop_iters[i % 2];

		if (cnt_session_enable(sc.s, &err))
			break;
		known_loop(n);
		cnt_session_disable(sc.s);
		if (i % 2)
			x->treat[x->n_treat++] = self_read(&sc);
		else
			x->control[x->n_control++] = self_read(&sc);
	}
	self_mux_why(&sc, "instructions:u", x->skip, sizeof(x->skip));
	self_close(&sc);
}

/*
 * Touch n fresh pages of an anonymous mapping without huge pages; the count
 * read after.  Not instrumented by ASan: its shadow reads would fault too.
 */
__attribute__((no_sanitize_address)) static void touch(volatile char *p, size_t n, size_t page)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i * page] = 1;
}

static double touch_fresh(struct self_count *sc, size_t n, size_t page)
{
	struct vp_err err = { 0, "" };
	volatile char *p;
	double v;

	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NAN;
#ifdef MADV_NOHUGEPAGE
	madvise((void *)p, n * page, MADV_NOHUGEPAGE);
#endif
	cnt_session_disable(sc->s);
	self_read(sc);
	if (cnt_session_enable(sc->s, &err)) {
		munmap((void *)p, n * page);
		return NAN;
	}
	touch(p, n, page);
	cnt_session_disable(sc->s);
	v = self_read(sc);
	munmap((void *)p, n * page);
	return v;
}

static void check_faults(const struct provoke_env *e, struct verify_check *x)
{
	struct self_count sc;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int i;

	snprintf(x->note, sizeof(x->note),
		 "first writes to %d fresh anonymous pages (no huge pages) against %d, "
		 "counted as 'page-faults:u' on this thread: one fault per page",
		 FAULT_PAGES + FAULT_CONTROL, FAULT_CONTROL);
	if (self_open(&sc, e->db, "page-faults:u", x->skip, sizeof(x->skip)))
		return;
	for (i = 0; i < e->runs; i++) {
		x->control[x->n_control++] = touch_fresh(&sc, FAULT_CONTROL, page);
		x->treat[x->n_treat++] = touch_fresh(&sc, FAULT_PAGES + FAULT_CONTROL, page);
	}
	self_mux_why(&sc, "page-faults:u", x->skip, sizeof(x->skip));
	self_close(&sc);
}

/* --- locality: placement --- */

/* Per cent of b's sampled pages on b->node (move_pages), NaN when unknown. */
static double share_on_node(const struct bench_buf *b)
{
	int per_node[1024] = { 0 }, sampled = 0;
	struct vp_err err = { 0, "" };

	if (b->node < 0 || b->node >= 1024 ||
	    bench_buf_where(b, per_node, 1023, &sampled, &err) || sampled <= 0)
		return NAN;
	return 100.0 * per_node[b->node] / sampled;
}

/* Per cent of b's resident pages on b->node in /proc/self/numa_maps, NaN when unknown. */
static double share_in_numa_maps(const struct bench_buf *b)
{
	struct numa_maps m;
	struct vp_err err = { 0, "" };
	double share = NAN;
	size_t i;
	int k;

	memset(&m, 0, sizeof(m));
	if (numa_maps_read("/", getpid(), &m, &err))
		return NAN;
	for (i = 0; i < m.n; i++) {
		uint64_t all = 0;

		if (m.maps[i].start != (uint64_t)(uintptr_t)b->p)
			continue;
		for (k = 0; k < m.maps[i].n_nodes; k++)
			all += m.maps[i].node_pages[k];
		if (all && b->node < m.maps[i].n_nodes)
			share = 100.0 * (double)m.maps[i].node_pages[b->node] / (double)all;
		else if (all)
			share = 0;
		break;
	}
	numa_maps_release(&m);
	return share;
}

/* Bind memory to node from a CPU of cpu_node, runs times: where the kernel put it. */
static void check_placement(const struct provoke_env *e, struct verify_check *place,
			    struct verify_check *maps, int cpu_node, int node)
{
	struct vp_err err = { 0, "" };
	int cpus[1], i;

	snprintf(place->note, sizeof(place->note),
		 "%u MiB bound to node %d (mbind) and faulted in from a CPU of node %d, "
		 "%d times; pages located with move_pages", PLACE_BYTES >> 20, node, cpu_node,
		 e->runs);
	snprintf(maps->note, sizeof(maps->note),
		 "the same buffers as /proc/self/numa_maps shows them (the software model's "
		 "source of the remote share)");
	if (bench_topo_node_cpus(e->t, cpu_node, cpus, 1) < 1 ||
	    bench_bind_self(e->t->cpus[cpus[0]], &err)) {
		snprintf(place->skip, sizeof(place->skip), "cannot run on node %d: %s", cpu_node,
			 err.msg[0] ? err.msg : "no CPU of it is ours");
		memcpy(maps->skip, place->skip, sizeof(maps->skip));
		return;
	}
	for (i = 0; i < e->runs; i++) {
		struct bench_buf b;

		if (bench_buf_alloc(&b, PLACE_BYTES, node, false, &err)) {
			snprintf(place->skip, sizeof(place->skip), "%s", err.msg);
			snprintf(maps->skip, sizeof(maps->skip), "%s", err.msg);
			return;
		}
		place->treat[place->n_treat++] = share_on_node(&b);
		maps->treat[maps->n_treat++] = share_in_numa_maps(&b);
		bench_buf_free(&b);
	}
}

/*
 * The shared trackers: bench queue's cores scenario (k chains on each of 1..n
 * CPUs of one package at once), the trackers' full share at one core (the
 * control, below the knee) against all of them (past it), in %.
 */
static void check_queue(const struct provoke_env *e, struct verify_check *x)
{
	const struct bench_topo *t = e->t;
	struct queue_result *r;
	struct bench_opts o;
	int i, same = 0;

	for (i = 0; i < t->n_cpus; i++)
		same += t->cpu_pkg[i] == t->cpu_pkg[0];
	provoke_hw_reason(e->core_pmu, t, 0, 0, 0, x->skip, sizeof(x->skip));
	if (same < 2)
		add_reason(x->skip, sizeof(x->skip), "needs %d CPUs on one package, this machine "
			   "has %d", 2, same);
	if (x->skip[0])
		return;
	if (!e->tracker) {
		snprintf(x->skip, sizeof(x->skip), "%.600s", e->tracker_why && *e->tracker_why ?
			 e->tracker_why : "the trackers' full share is not counted here");
		return;
	}
	bench_opts_default(&o);
	o.quick = true;
	o.time_s = 4;
	o.stop = e->stop;
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(x->skip, sizeof(x->skip), "out of memory");
		return;
	}
	for (i = 0; i < e->runs; i++) {
		struct vp_err err = { 0, "" };
		int last;

		memset(r, 0, sizeof(*r));
		r->knee_k = -1;   /* bench_queue_cores' own chain count */
		if (bench_queue_cores(t, &o, e->tracker, r, &err)) {
			snprintf(x->skip, sizeof(x->skip), "the queue scenario failed: %s", err.msg);
			break;
		}
		if (r->n_core_points < 2) {
			snprintf(x->skip, sizeof(x->skip), "the queue scenario measured %d core count%s, "
				 "not a control and a treatment", r->n_core_points,
				 r->n_core_points == 1 ? "" : "s");
			break;
		}
		last = r->n_core_points - 1;
		if (isnan(r->tracker_full[0]) || isnan(r->tracker_full[last])) {
			snprintf(x->skip, sizeof(x->skip), "%.600s", r->tracker_note[0] ? r->tracker_note :
				 "the trackers' full share was not counted");
			break;
		}
		x->control[x->n_control++] = 100 * r->tracker_full[0];
		x->treat[x->n_treat++] = 100 * r->tracker_full[last];
		snprintf(x->note, sizeof(x->note), "bench queue's cores scenario, %d chains on each "
			 "core of package %d: 1 core against %d", r->core_k, r->core_pkg, r->cores[last]);
	}
	free(r);
}

/* --- the factor scenarios, counted with the chosen model --- */

static int n_nonzero(const struct verify_check *x)
{
	int i, n = 0;

	for (i = 0; i < x->n_control; i++)
		n += x->control[i] != 0;
	for (i = 0; i < x->n_treat; i++)
		n += x->treat[i] != 0;
	return n;
}

void provoke_fill(struct verify_check *x, enum provoke_value what, int f, double scale,
		  const struct provoke_reading *ctl, int n_ctl, const struct provoke_reading *trt,
		  int n_trt, const char *nan_why)
{
	double cyc[VERIFY_MAX_RUNS];
	int i, n_nan = 0, n_cyc = 0;

	if (!x || x->skip[0])
		return;
	x->n_control = x->n_treat = 0;
	for (i = 0; i < n_ctl + n_trt; i++) {
		const struct provoke_reading *r = i < n_ctl ? &ctl[i] : &trt[i - n_ctl];
		double v = what == PV_SCORE ? r->score[f] : what == PV_COST ? r->cost_pct[f] :
			   what == PV_NODE_SCORE ? r->node_score[f] : r->remote;

		v *= scale;
		n_nan += !isfinite(v);
		if (i < n_ctl && x->n_control < VERIFY_MAX_RUNS)
			x->control[x->n_control++] = v;
		else if (i >= n_ctl && x->n_treat < VERIFY_MAX_RUNS)
			x->treat[x->n_treat++] = v;
		if (i >= n_ctl && isfinite(r->cycles) && n_cyc < VERIFY_MAX_RUNS)
			cyc[n_cyc++] = r->cycles;
	}
	/* the companion of a suspect zero: the cycles the treatment ran */
	x->companion = n_cyc ? verify_median(cyc, n_cyc) : NAN;
	x->companion_name = "cycles";
	if (n_nan && nan_why && *nan_why)
		snprintf(x->skip, sizeof(x->skip), "%.600s", nan_why);
	else if (n_ctl + n_trt == 0)
		snprintf(x->skip, sizeof(x->skip), "no run was counted");
	else if (x->kind == VK_HARDWARE && !n_cyc && !n_nonzero(x))
		/* the judge's suspect zero needs the cycles; without them a 0 is no evidence */
		snprintf(x->skip, sizeof(x->skip), "counted 0 in every run of both sides and no "
			 "cycles beside it to tell a real 0 from an emulated or partial PMU's: not "
			 "a measurement");
}

/* A worker that increments one word until told to stop (the sharing scenario). */
struct incr {
	int cpu;
	volatile uint64_t *word;
	volatile int *go, *stop;
	pthread_t th;
	bool started;
};

static void *incr_main(void *arg)
{
	struct incr *w = arg;
	struct vp_err err = { 0, "" };
	int i;

	bench_bind_self(w->cpu, &err);
	while (!__atomic_load_n(w->go, __ATOMIC_ACQUIRE))
		sched_yield();
	while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED))
		for (i = 0; i < 1024; i++)
			(*w->word)++;
	return NULL;
}

/*
 * Follow a chase for window_s seconds, or 10^7 steps a second of it,
 * whichever ends first: a dependent load that misses the caches takes
 * 60 ns or more on hardware, so the steps bound only an emulator, where
 * they would take far longer than their guest time (QEMU's -icount makes
 * a second of guest time a billion instructions: minutes of random loads).
 */
static void chase_for(void *start, double window_s)
{
	uint64_t end = vp_now_ns() + (uint64_t)(window_s * 1e9);
	uint64_t steps = (uint64_t)(window_s * 1e7), done = 0;
	void *p = start;

	while (vp_now_ns() < end && done < steps) {
		p = chase_walk(p, 4096);
		done += 4096;
	}
	__asm__ volatile("" : : "r"(p) : "memory");
}

static double window_of(const struct provoke_env *e)
{
	return e->window_s > 0 ? e->window_s : 0.3;
}

/* Count one run: the scenario's threads are running or waiting (go); body runs the window. */
static int counted(const struct provoke_env *e, int tid, int node, volatile int *go, void *chase,
		   struct provoke_reading *r, char *why, size_t size)
{
	int i;

	for (i = 0; i < FACTOR_N; i++)
		r->score[i] = r->cost_pct[i] = r->node_score[i] = NAN;
	r->cycles = r->remote = NAN;
	if (e->counter->start(e->counter->ctx, why, size))
		return -1;
	if (go)
		__atomic_store_n(go, 1, __ATOMIC_RELEASE);
	if (chase)
		chase_for(chase, window_of(e));
	else
		bench_sleep_s(window_of(e));
	return e->counter->stop(e->counter->ctx, tid, node, r, why, size);
}

/* Skip every check of xs (NULL entries ignored) that is not skipped yet, with why. */
static void skip_all(struct verify_check **xs, int n, const char *why)
{
	int i;

	for (i = 0; i < n; i++)
		if (xs[i] && !xs[i]->skip[0])
			snprintf(xs[i]->skip, sizeof(xs[i]->skip), "%.600s", why);
}

static bool any_open(struct verify_check **xs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (xs[i] && !xs[i]->skip[0])
			return true;
	return false;
}

static const char *nan_why(const struct provoke_env *e, int f, char *buf, size_t size)
{
	const char *w = e->counter->factor_why ? e->counter->factor_why(e->counter->ctx, f) : NULL;

	snprintf(buf, size, "model %s has no %s value here: %.500s", e->counter->model,
		 factor_name((enum factor_id)f), w ? w : "a run was not counted (n/a)");
	return buf;
}

/*
 * A factor the model has no value for whatever runs (its "unavailable"
 * binding): its checks are skipped with the reason before the scenario
 * runs for nothing.
 */
static void skip_unmodelled(const struct provoke_env *e, struct verify_check **xs, int n, int f)
{
	const char *w;
	char buf[VERIFY_TEXT];

	if (!any_open(xs, n) || !e->counter || !e->counter->factor_why ||
	    !(w = e->counter->factor_why(e->counter->ctx, f)))
		return;
	snprintf(buf, sizeof(buf), "model %s has no %s value here: %.500s", e->counter->model,
		 factor_name((enum factor_id)f), w);
	skip_all(xs, n, buf);
}

/*
 * locality: a chase over memory bound to node far against the same bound to
 * node here, this thread on a CPU of here.  hw_share, hw_cost: the model's
 * remote share and locality cost (hardware); place: the placement estimate.
 */
static void check_locality(const struct provoke_env *e, struct verify_check *hw_share,
			   struct verify_check *hw_cost, struct verify_check *place, int here,
			   int far)
{
	struct verify_check *xs[3] = { hw_share, hw_cost, place };
	struct provoke_reading ctl[VERIFY_MAX_RUNS], trt[VERIFY_MAX_RUNS];
	struct bench_affinity aff;
	struct vp_err err = { 0, "" };
	size_t bytes = e->chase_bytes ? e->chase_bytes : (32u << 20);
	char why[VERIFY_TEXT];
	int cpus[1], i, side, n_ctl = 0, n_trt = 0;

	if (!any_open(xs, 3))
		return;
	if (bench_topo_node_cpus(e->t, here, cpus, 1) < 1) {
		skip_all(xs, 3, "no CPU of the first node is ours");
		return;
	}
	bench_affinity_save(&aff);
	if (bench_bind_self(e->t->cpus[cpus[0]], &err)) {
		skip_all(xs, 3, err.msg);
		return;
	}
	why[0] = '\0';
	for (i = 0; i < e->runs && !why[0]; i++)
		for (side = 0; side < 2 && !why[0]; side++) {
			struct bench_buf b;
			struct provoke_reading *r = side ? &trt[n_trt] : &ctl[n_ctl];

			if (bench_buf_alloc(&b, bytes, side ? far : here, false, &err)) {
				snprintf(why, sizeof(why), "%s", err.msg);
				break;
			}
			chase_build(b.p, b.len / LINE, LINE, 0x5eed + (uint64_t)i);
			if (!counted(e, 0, -1, NULL, b.p, r, why, sizeof(why)))
				side ? n_trt++ : n_ctl++;
			bench_buf_free(&b);
		}
	bench_affinity_restore(&aff);
	if (why[0]) {
		skip_all(xs, 3, why);
		return;
	}
	provoke_fill(hw_share, PV_SCORE, FACTOR_LOCALITY, 100, ctl, n_ctl, trt, n_trt,
		     nan_why(e, FACTOR_LOCALITY, why, sizeof(why)));
	provoke_fill(hw_cost, PV_COST, FACTOR_LOCALITY, 1, ctl, n_ctl, trt, n_trt,
		     nan_why(e, FACTOR_LOCALITY, why, sizeof(why)));
	provoke_fill(place, PV_REMOTE, 0, 100, ctl, n_ctl, trt, n_trt,
		     "the placement estimate was not available (memory per node unknown)");
}

/* CPUs of the LLC with the most of them: into out (at most max), how many. */
static int llc_cpus(const struct bench_topo *t, int *out, int max)
{
	int best = -1, best_n = 0, i, j, n;

	for (i = 0; i < t->n_cpus; i++) {
		for (n = 0, j = 0; j < t->n_cpus; j++)
			n += t->cpu_llc[j] == t->cpu_llc[i];
		if (n > best_n) {
			best_n = n;
			best = t->cpu_llc[i];
		}
	}
	for (n = 0, i = 0; i < t->n_cpus && n < max; i++)
		if (t->cpu_llc[i] == best)
			out[n++] = t->cpus[i];
	return n;
}

/* llc: a victim chasing half the LLC alone against it with co-runners streaming on its LLC. */
static void check_llc(const struct provoke_env *e, struct verify_check *mpki,
		      struct verify_check *cost)
{
	struct verify_check *xs[2] = { mpki, cost };
	struct provoke_reading ctl[VERIFY_MAX_RUNS], trt[VERIFY_MAX_RUNS];
	struct bench_affinity aff;
	struct stream_pools pools;
	struct bench_buf b;
	struct vp_err err = { 0, "" };
	size_t llc = e->t->llc_bytes ? e->t->llc_bytes : (8u << 20);
	int cpus[5], n, i, side, n_ctl = 0, n_trt = 0, tid = (int)syscall(SYS_gettid);
	char why[VERIFY_TEXT];

	if (!any_open(xs, 2))
		return;
	n = llc_cpus(e->t, cpus, 5);
	bench_affinity_save(&aff);
	if (bench_bind_self(cpus[0], &err) ||
	    bench_buf_alloc(&b, llc / 2, bench_node_of_cpu(e->t, cpus[0]), false, &err)) {
		bench_affinity_restore(&aff);
		skip_all(xs, 2, err.msg);
		return;
	}
	chase_build(b.p, b.len / LINE, LINE, 0x11c);
	stream_pools_init(&pools, llc * 4 > (64u << 20) ? llc * 4 : (64u << 20), false);
	why[0] = '\0';
	for (i = 0; i < e->runs && !why[0]; i++)
		for (side = 0; side < 2 && !why[0]; side++) {
			struct stream_set set = { 0 };
			struct provoke_reading *r = side ? &trt[n_trt] : &ctl[n_ctl];

			if (side && stream_set_start(&set, e->t, &pools, n - 1, cpus + 1, NULL,
						     BW_ISA_SCALAR, BW_READ, 0, &err)) {
				snprintf(why, sizeof(why), "cannot start the co-runners: %s", err.msg);
				stream_set_stop(&set);
				break;
			}
			chase_walk(b.p, b.len / LINE);   /* warm: the victim's lines in the LLC */
			if (!counted(e, tid, -1, NULL, b.p, r, why, sizeof(why)))
				side ? n_trt++ : n_ctl++;
			if (side)
				stream_set_stop(&set);
		}
	stream_pools_release(&pools);
	bench_buf_free(&b);
	bench_affinity_restore(&aff);
	snprintf(mpki->note, sizeof(mpki->note), "a chase over %zu KiB (half the LLC) on CPU %d "
		 "alone against it with %d co-runners streaming on its LLC (CPUs %d..), counted "
		 "with model %s on the victim's thread", b.len >> 10, cpus[0], n - 1,
		 n > 1 ? cpus[1] : -1, e->counter->model);
	if (why[0]) {
		skip_all(xs, 2, why);
		return;
	}
	provoke_fill(mpki, PV_SCORE, FACTOR_LLC, 1, ctl, n_ctl, trt, n_trt,
		     nan_why(e, FACTOR_LLC, why, sizeof(why)));
	provoke_fill(cost, PV_COST, FACTOR_LLC, 1, ctl, n_ctl, trt, n_trt,
		     nan_why(e, FACTOR_LLC, why, sizeof(why)));
}

/*
 * sharing: two threads on CPUs a and b incrementing words 8 bytes apart
 * (false sharing: one line) against 128 bytes apart (padded).
 */
static void check_sharing(const struct provoke_env *e, struct verify_check *hitm,
			  struct verify_check *cost, int a, int b)
{
	struct verify_check *xs[2] = { hitm, cost };
	struct provoke_reading ctl[VERIFY_MAX_RUNS], trt[VERIFY_MAX_RUNS];
	uint64_t *words;
	char why[VERIFY_TEXT];
	int i, side, k, n_ctl = 0, n_trt = 0;

	if (!any_open(xs, 2))
		return;
	if (posix_memalign((void **)&words, 128, 256)) {
		skip_all(xs, 2, "out of memory");
		return;
	}
	memset(words, 0, 256);
	why[0] = '\0';
	for (i = 0; i < e->runs && !why[0]; i++)
		for (side = 0; side < 2 && !why[0]; side++) {
			volatile int go = 0, stop = 0;
			struct incr w[2];
			struct provoke_reading *r = side ? &trt[n_trt] : &ctl[n_ctl];
			int rc;

			for (k = 0; k < 2; k++) {
				w[k].cpu = k ? b : a;
				/* treatment: words 0 and 1 (one line); control: words 0 and 16 */
				w[k].word = &words[k * (side ? 1 : 16)];
				w[k].go = &go;
				w[k].stop = &stop;
				w[k].started = !pthread_create(&w[k].th, NULL, incr_main, &w[k]);
			}
			if (!w[0].started || !w[1].started) {
				snprintf(why, sizeof(why), "cannot start the sharing threads");
				rc = -1;
			} else {
				rc = counted(e, 0, -1, &go, NULL, r, why, sizeof(why));
			}
			__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
			for (k = 0; k < 2; k++)
				if (w[k].started)
					pthread_join(w[k].th, NULL);
			if (!rc)
				side ? n_trt++ : n_ctl++;
		}
	free(words);
	snprintf(hitm->note, sizeof(hitm->note), "two threads on CPUs %d and %d incrementing words "
		 "8 bytes apart (one line) against 128 bytes apart, counted with model %s", a, b,
		 e->counter->model);
	if (why[0]) {
		skip_all(xs, 2, why);
		return;
	}
	provoke_fill(hitm, PV_SCORE, FACTOR_SHARING, 1, ctl, n_ctl, trt, n_trt,
		     nan_why(e, FACTOR_SHARING, why, sizeof(why)));
	provoke_fill(cost, PV_COST, FACTOR_SHARING, 1, ctl, n_ctl, trt, n_trt,
		     nan_why(e, FACTOR_SHARING, why, sizeof(why)));
}

/* imc: the CPUs of node here streaming from it (packed) against as many spread over the nodes. */
static void check_imc(const struct provoke_env *e, struct verify_check *bw,
		      struct verify_check *cost, int here)
{
	struct verify_check *xs[2] = { bw, cost };
	struct provoke_reading ctl[VERIFY_MAX_RUNS], trt[VERIFY_MAX_RUNS];
	struct stream_pools pools;
	struct vp_err err = { 0, "" };
	int packed[16], spread[16], n, m = 0, i, j, side, n_ctl = 0, n_trt = 0;
	char why[VERIFY_TEXT];

	if (!any_open(xs, 2))
		return;
	n = bench_topo_node_cpus(e->t, here, packed, 16);
	for (i = 0; i < n; i++)
		packed[i] = e->t->cpus[packed[i]];
	/* spread: round-robin over the nodes, as many threads as packed */
	for (i = 0; m < n && i < e->t->n_cpus; i++)
		for (j = 0; j < e->t->n_nodes && m < n; j++) {
			int c[16], k = bench_topo_node_cpus(e->t, e->t->nodes[j], c, 16);

			if (i < k)
				spread[m++] = e->t->cpus[c[i]];
		}
	stream_pools_init(&pools, 64u << 20, false);
	why[0] = '\0';
	for (i = 0; i < e->runs && !why[0]; i++)
		for (side = 0; side < 2 && !why[0]; side++) {
			struct stream_set set = { 0 };
			struct provoke_reading *r = side ? &trt[n_trt] : &ctl[n_ctl];

			if (stream_set_start(&set, e->t, &pools, n, side ? packed : spread, NULL,
					     BW_ISA_SCALAR, BW_READ, 0, &err)) {
				snprintf(why, sizeof(why), "cannot start the streamers: %s", err.msg);
				stream_set_stop(&set);
				break;
			}
			if (!counted(e, 0, here, NULL, NULL, r, why, sizeof(why)))
				side ? n_trt++ : n_ctl++;
			stream_set_stop(&set);
		}
	stream_pools_release(&pools);
	snprintf(bw->note, sizeof(bw->note), "%d threads streaming (read) on the CPUs of node %d "
		 "from its memory against %d spread over the nodes, each from its own node; node "
		 "%d's bandwidth against the calibrated peak, counted with model %s", n, here, n,
		 here, e->counter->model);
	if (why[0]) {
		skip_all(xs, 2, why);
		return;
	}
	provoke_fill(bw, PV_NODE_SCORE, FACTOR_IMC, 100, ctl, n_ctl, trt, n_trt,
		     nan_why(e, FACTOR_IMC, why, sizeof(why)));
	provoke_fill(cost, PV_COST, FACTOR_IMC, 1, ctl, n_ctl, trt, n_trt,
		     nan_why(e, FACTOR_IMC, why, sizeof(why)));
}

/* Two CPUs of one LLC (cross false) or of two packages (cross true); false when there are none. */
static bool cpu_pair(const struct bench_topo *t, bool cross, int *a, int *b)
{
	int i, j;

	for (i = 0; i < t->n_cpus; i++)
		for (j = i + 1; j < t->n_cpus; j++)
			if (cross ? t->cpu_pkg[i] != t->cpu_pkg[j] : t->cpu_llc[i] == t->cpu_llc[j]) {
				*a = t->cpus[i];
				*b = t->cpus[j];
				return true;
			}
	return false;
}

/* The prerequisites of a factor check and, when they hold, the counter's. */
static void prereq(const struct provoke_env *e, struct verify_check *x, bool hw, int nodes,
		   int llc_cpus, int pkgs)
{
	if (!x)
		return;
	provoke_hw_reason(hw ? e->core_pmu : true, e->t, nodes, llc_cpus, pkgs, x->skip,
			  sizeof(x->skip));
	if (!x->skip[0] && !e->counter)
		snprintf(x->skip, sizeof(x->skip), "%.600s", e->counter_why && *e->counter_why ?
			 e->counter_why : "no model counts here");
}

/* --- the benchmark's own figures against references (verify --bench) --- */

#define REF_WINDOW_S 1.0
#define PEER_MIN_MIB 256u

/*
 * DRAM latency: the samples' median of the latency scenario's own-node DRAM
 * cell (the figure bench reports is their best) against the mean of a plain
 * chase of the same size on the same CPU; each run one of each, interleaved.
 */
static void check_latency_ref(const struct provoke_env *e, struct verify_check *x)
{
	struct bench_opts o;
	struct vp_err err = { 0, "" };
	size_t bytes = 0;
	double best = NAN, med;
	int i;

	bench_opts_default(&o);
	o.stop = e->stop;
	for (i = 0; i < e->runs && !x->skip[0]; i++) {
		double b = bench_dram_chase_ns(e->t, &o, 0.6 * REF_WINDOW_S, &med, &bytes, &err);

		if (isnan(b) || isnan(med)) {
			snprintf(x->skip, sizeof(x->skip), "the latency scenario did not run: %.500s",
				 err.msg[0] ? err.msg : "stopped");
			break;
		}
		best = i ? fmin(best, b) : b;
		x->treat[x->n_treat++] = med;
		if (bench_bind_self(e->t->cpus[0], &err)) {
			snprintf(x->skip, sizeof(x->skip), "%.600s", err.msg);
			break;
		}
		x->control[x->n_control++] = bench_ref_chase_ns(bytes, 0.4 * REF_WINDOW_S,
								 (uint64_t)i + 1);
	}
	snprintf(x->note, sizeof(x->note), "bench latency's own-node DRAM cell (%zu MiB, CPU %d; "
		 "the figure is the best of its samples, %.1f ns here) against a plain chase "
		 "of the same size and CPU (bench/ref-chase.c's mean, as lmbench's lat_mem_rd)",
		 bytes >> 20, e->t->cpus[0], best);
}

/* Our kernel / the peer's figure, one pair a run, interleaved. */
static void check_peer(const struct provoke_env *e, struct verify_check *x, enum bench_peer p,
		       int kernel, int nthr, double ours_scale)
{
	struct bench_opts o;
	struct vp_err err = { 0, "" };
	size_t bytes = 0;
	unsigned mib;
	double ours, peer;
	char why[256];
	int i;

	bench_opts_default(&o);
	o.stop = e->stop;
	for (i = 0; i < e->runs; i++) {
		if (bench_kernel_gbs(e->t, &o, kernel, nthr, REF_WINDOW_S, &ours, &bytes, &err)) {
			snprintf(x->skip, sizeof(x->skip), "our %s kernel did not run: %.500s",
				 bw_kernel_name(kernel), err.msg);
			return;
		}
		mib = (unsigned)(bytes >> 20) > PEER_MIN_MIB ? (unsigned)(bytes >> 20) : PEER_MIN_MIB;
		if (bench_peer_run(p, nthr, REF_WINDOW_S, mib, &peer, why, sizeof(why))) {
			snprintf(x->skip, sizeof(x->skip), "%s", why);
			x->n_treat = 0;
			return;
		}
		x->treat[x->n_treat++] = peer > 0 ? ours * ours_scale / peer : NAN;
	}
	snprintf(x->note, sizeof(x->note), "our %s kernel (%s, %d thread%s, %zu MiB a thread%s) "
		 "against %s, run after it, %d pairs; the ratio ours / theirs", bw_kernel_name(kernel),
		 bw_isa_name(bw_isa_pick(-1)), nthr, nthr == 1 ? "" : "s", bytes >> 20,
		 ours_scale != 1 ? ", bytes copied once, as mbw counts" : "", bench_peer_tool(p),
		 e->runs);
}

static size_t bench_checks(const struct provoke_env *e, struct verify_check *c, size_t max,
			   size_t n)
{
	struct verify_check *x;
	int idx[256], ncpu = bench_topo_node_cpus(e->t, e->t->cpu_node[0], idx, 256);

	if ((x = add(c, max, &n, "benchmark", "DRAM latency: samples' median vs a plain chase's "
		     "mean", "ns", VK_SOFTWARE, VX_EXACT, 0)))
		check_latency_ref(e, x);
	if ((x = add(c, max, &n, "benchmark", "copy bandwidth vs mbw (memcpy), 1 thread", "ratio",
		     VK_SOFTWARE, VX_AT_LEAST, 1.0)))
		check_peer(e, x, PEER_MBW_COPY, BW_COPY, 1, 0.5);
	if ((x = add(c, max, &n, "benchmark", "read bandwidth vs sysbench memory, all CPUs of a "
		     "node", "ratio", VK_SOFTWARE, VX_AT_LEAST, 1.0)))
		check_peer(e, x, PEER_SYSBENCH_READ, BW_READ, ncpu, 1);
	if ((x = add(c, max, &n, "benchmark", "triad bandwidth vs stress-ng --stream, all CPUs of "
		     "a node", "ratio", VK_SOFTWARE, VX_AT_LEAST, 1.0)))
		check_peer(e, x, PEER_STRESSNG_TRIAD, BW_TRIAD, ncpu, 1);
	return n;
}

size_t provoke_checks(const struct provoke_env *e, struct verify_check *c, size_t max)
{
	const struct bench_topo *t = e->t;
	struct verify_check *x, *y, *z;
	size_t n = 0;
	int here = t->n_cpus > 0 ? t->cpu_node[0] : 0;
	int far = -1, i, a = -1, b = -1;
	struct bench_affinity aff;

	/* the checks pin this thread; the caller gets its affinity back */
	bench_affinity_save(&aff);
	for (i = 0; i < t->n_nodes; i++)
		if (t->nodes[i] != here) {
			far = t->nodes[i];
			break;
		}
	/* counting first: the other checks' counts are only as good as it */
	if ((x = add(c, max, &n, "counting", "instructions of a loop of known length",
		     "instructions", VK_HARDWARE, VX_EXACT, 2.0 * LOOP_N)))
		check_instructions(e, x);
	if ((x = add(c, max, &n, "counting", "page faults of fresh pages", "faults", VK_SOFTWARE,
		     VX_EXACT, FAULT_PAGES)))
		check_faults(e, x);
	x = add(c, max, &n, "locality", "pages where bound, local node", "%", VK_PLACEMENT,
		VX_AT_LEAST, 100);
	y = add(c, max, &n, "locality", "numa_maps sees them there, local node", "%",
		VK_PLACEMENT, VX_AT_LEAST, 100);
	if (x && y)
		check_placement(e, x, y, here, here);
	x = add(c, max, &n, "locality", "pages where bound, remote node", "%", VK_PLACEMENT,
		VX_AT_LEAST, 100);
	y = add(c, max, &n, "locality", "numa_maps sees them there, remote node", "%",
		VK_PLACEMENT, VX_AT_LEAST, 100);
	if (x && y) {
		if (far < 0) {
			snprintf(x->skip, sizeof(x->skip),
				 "needs 2 NUMA nodes, this machine has %d", t->n_nodes);
			memcpy(y->skip, x->skip, sizeof(y->skip));
		} else {
			check_placement(e, x, y, here, far);
		}
	}

	/* locality: one chase, remote-bound against local-bound, counted three ways */
	z = add(c, max, &n, "locality", "model's remote share from placement, remote vs local binding",
		"%", VK_PLACEMENT, VX_RISE, NAN);
	x = add(c, max, &n, "locality", "remote share of DRAM loads, remote vs local binding", "%",
		VK_HARDWARE, VX_RISE, NAN);
	y = add(c, max, &n, "locality", "locality cost, remote vs local binding", "% cycles",
		VK_HARDWARE, VX_RISE, NAN);
	prereq(e, z, false, 2, 0, 0);
	prereq(e, x, true, 2, 0, 0);
	prereq(e, y, true, 2, 0, 0);
	if (z && far >= 0)
		snprintf(z->note, sizeof(z->note), "a chase over %zu MiB bound to node %d against the "
			 "same bound to node %d, from a CPU of node %d: the placement estimate "
			 "(run time per node x memory not on it) of this process",
			 (e->chase_bytes ? e->chase_bytes : (32u << 20)) >> 20, far, here, here);
	else if (z)
		snprintf(z->note, sizeof(z->note), "a chase over memory bound to a remote node "
			 "against the same bound locally: the placement estimate of this process");
	if (x)
		snprintf(x->note, sizeof(x->note), "the same runs, the model's remote share (its "
			 "locality score)");
	if (y)
		snprintf(y->note, sizeof(y->note), "the same runs, the model's locality cost");
	if (far >= 0 && e->counter) {
		struct verify_check *hw[2] = { x, y };

		skip_unmodelled(e, hw, 2, FACTOR_LOCALITY);
		check_locality(e, x, y, z, here, far);
	}

	x = add(c, max, &n, "llc", "LLC misses above the solo rate, victim with co-runners vs alone",
		"MPKI", VK_HARDWARE, VX_RISE, NAN);
	y = add(c, max, &n, "llc", "LLC contention cost, with co-runners vs alone", "% cycles",
		VK_HARDWARE, VX_RISE, NAN);
	prereq(e, x, true, 0, 2, 0);
	prereq(e, y, true, 0, 2, 0);
	if (y)
		snprintf(y->note, sizeof(y->note), "the same runs, the model's LLC contention cost");
	if (x && !x->skip[0]) {
		struct verify_check *hw[2] = { x, y };

		skip_unmodelled(e, hw, 2, FACTOR_LLC);
		check_llc(e, x, y);
	}
	else if (x)
		snprintf(x->note, sizeof(x->note), "a chase over half the LLC alone against it with "
			 "co-runners streaming on its LLC");

	x = add(c, max, &n, "sharing", "HITM/forwards, false sharing vs padded, one LLC", "PKI",
		VK_HARDWARE, VX_RISE, NAN);
	y = add(c, max, &n, "sharing", "sharing cost, false sharing vs padded, one LLC", "% cycles",
		VK_HARDWARE, VX_RISE, NAN);
	prereq(e, x, true, 0, 2, 0);
	prereq(e, y, true, 0, 2, 0);
	if (y)
		snprintf(y->note, sizeof(y->note), "the same runs, the model's sharing cost");
	if (x && !x->skip[0] && cpu_pair(t, false, &a, &b)) {
		struct verify_check *hw[2] = { x, y };

		skip_unmodelled(e, hw, 2, FACTOR_SHARING);
		check_sharing(e, x, y, a, b);
	}
	else if (x)
		snprintf(x->note, sizeof(x->note), "two threads incrementing words of one line "
			 "against words 128 bytes apart, on one LLC");
	x = add(c, max, &n, "sharing", "cross-socket HITM/forwards, false sharing vs padded", "PKI",
		VK_HARDWARE, VX_RISE, NAN);
	prereq(e, x, true, 0, 0, 2);
	if (x && !x->skip[0] && cpu_pair(t, true, &a, &b)) {
		skip_unmodelled(e, &x, 1, FACTOR_SHARING);
		check_sharing(e, x, NULL, a, b);
	}
	else if (x)
		snprintf(x->note, sizeof(x->note), "the same across two packages");

	x = add(c, max, &n, "imc", "node bandwidth near the calibrated peak, packed",
		"% of peak", VK_HARDWARE, VX_RISE, NAN);
	y = add(c, max, &n, "imc", "IMC cost, packed vs spread", "% cycles", VK_HARDWARE, VX_RISE,
		NAN);
	prereq(e, x, true, 2, 0, 0);
	prereq(e, y, true, 2, 0, 0);
	if (y)
		snprintf(y->note, sizeof(y->note), "the same runs, the model's IMC cost (serving "
			 "node's queueing delay)");
	if (x && !x->skip[0]) {
		struct verify_check *hw[2] = { x, y };

		skip_unmodelled(e, hw, 2, FACTOR_IMC);
		check_imc(e, x, y, here);
	}
	else if (x)
		snprintf(x->note, sizeof(x->note), "threads streaming packed on one node against "
			 "spread over nodes");

	/* the queue check counts with its own collector: the model's counters go back first */
	if (e->counter && e->counter->end)
		e->counter->end(e->counter->ctx);
	if ((x = add(c, max, &n, "queue", "tracker-full fraction past the knee", "%", VK_HARDWARE,
		     VX_RISE, NAN))) {
		snprintf(x->note, sizeof(x->note), "bench queue's cores scenario: every core of a "
			 "package against one");
		check_queue(e, x);
	}
	if ((x = add(c, max, &n, "queue", "queue cost past the knee", "% cycles", VK_HARDWARE,
		     VX_RISE, NAN))) {
		snprintf(x->note, sizeof(x->note), "the same scenario, the model's queue cost");
		provoke_hw_reason(e->core_pmu, t, 0, 0, 0, x->skip, sizeof(x->skip));
		if (!x->skip[0])
			snprintf(x->skip, sizeof(x->skip), "not counted by this version yet: the "
				 "queue scenario counts the trackers' full share only, not the "
				 "model's queue cost");
	}
	if (e->bench_refs)
		n = bench_checks(e, c, max, n);
	bench_affinity_restore(&aff);
	return n;
}
