/* provoke.c - the measuring side of `vmmprof verify`: each factor provoked beside a control, counted */
#include "bench/provoke.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmu/counter.h"
#include "source/numa_maps.h"

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
	return v.running == v.enabled ? (double)v.raw : NAN;
}

static void self_close(struct self_count *sc)
{
	cnt_session_free(sc->s);
	cnt_snapshot_release(&sc->snap);
}

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
	cnt_session_disable(sc.s);
	self_read(&sc);
	for (i = 0; i < e->runs; i++) {
		struct vp_err err = { 0, "" };

		if (cnt_session_enable(sc.s, &err))
			break;
		known_loop(LOOP_CONTROL);
		cnt_session_disable(sc.s);
		x->control[x->n_control++] = self_read(&sc);
		if (cnt_session_enable(sc.s, &err))
			break;
		known_loop(LOOP_N + LOOP_CONTROL);
		cnt_session_disable(sc.s);
		x->treat[x->n_treat++] = self_read(&sc);
	}
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

/* Hardware checks whose prerequisites hold but that this version does not yet provoke. */
#define NOT_PROVOKED \
	"not provoked with counts by this version yet (issue 17 item 1): run the bench scenario under 'vmmprof stat -m MODEL'"

size_t provoke_checks(const struct provoke_env *e, struct verify_check *c, size_t max)
{
	const struct bench_topo *t = e->t;
	struct verify_check *x, *y;
	size_t n = 0;
	int here = t->n_cpus > 0 ? t->cpu_node[0] : 0;
	int far = -1, i;
	static const struct {
		const char *factor, *name, *unit;
		int nodes, llc_cpus, pkgs;
		bool queue;
		const char *how;
	} hw[] = {
		{ "locality", "remote share of DRAM loads, remote vs local binding", "%", 2, 0, 0,
		  false, "a chase over memory bound to a remote node against the same bound locally" },
		{ "locality", "locality cost, remote vs local binding", "% cycles", 2, 0, 0, false,
		  "the same runs, the model's locality cost" },
		{ "llc", "LLC misses above the solo rate, victim with co-runners vs alone",
		  "MPKI", 0, 2, 0, false,
		  "the llc scenario's victim alone against it with 1..N co-runners on its LLC" },
		{ "llc", "LLC contention cost, with co-runners vs alone", "% cycles", 0, 2, 0, false,
		  "the same runs, the model's LLC contention cost" },
		{ "sharing", "HITM/forwards, false sharing vs padded, one LLC", "per s", 0, 2, 0,
		  false, "the sharing scenario's false-sharing threads against padded ones" },
		{ "sharing", "sharing cost, false sharing vs padded, one LLC", "% cycles", 0, 2, 0,
		  false, "the same runs, the model's sharing cost" },
		{ "sharing", "cross-socket HITM/forwards, false sharing vs padded", "per s", 0, 0, 2,
		  false, "the same across two packages" },
		{ "imc", "node bandwidth near the calibrated peak, packed", "GB/s", 2, 0, 0, false,
		  "the imc scenario's threads packed on one node against spread over nodes" },
		{ "imc", "IMC cost, packed vs spread", "% cycles", 2, 0, 0, false,
		  "the same runs, the model's IMC cost (serving node's queueing delay)" },
		{ "queue", "tracker-full fraction past the knee", "%", 0, 0, 0, true,
		  "bench queue's cores scenario: every core of a package against one" },
		{ "queue", "queue cost past the knee", "% cycles", 0, 0, 0, true,
		  "the same scenario, the model's queue cost" },
	};

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
	for (i = 0; i < (int)(sizeof(hw) / sizeof(hw[0])); i++) {
		if (!(x = add(c, max, &n, hw[i].factor, hw[i].name, hw[i].unit, VK_HARDWARE, VX_RISE,
			      NAN)))
			break;
		snprintf(x->note, sizeof(x->note), "%s", hw[i].how);
		if (hw[i].queue && !strcmp(hw[i].name, "tracker-full fraction past the knee")) {
			check_queue(e, x);
			continue;
		}
		provoke_hw_reason(e->core_pmu, t, hw[i].nodes, hw[i].llc_cpus, hw[i].pkgs, x->skip,
				  sizeof(x->skip));
		if (!x->skip[0])
			snprintf(x->skip, sizeof(x->skip), NOT_PROVOKED);
	}
	return n;
}
