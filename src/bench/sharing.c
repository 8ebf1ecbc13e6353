/* sharing.c - the sharing scenario: core-to-core ping-pong, true vs false sharing vs padded */
#include "bench/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "util/timeutil.h"

struct pp {
	_Alignas(64) volatile uint64_t flag;    /* the line that bounces */
	_Alignas(64) volatile int quit;         /* the pinger gave up: time is over */
	uint64_t rounds;
	int cpu_b;
	volatile int ready;
};

static void *pong(void *arg)
{
	struct pp *p = arg;
	uint64_t i;

	bench_bind_self(p->cpu_b, NULL);
	__atomic_store_n(&p->ready, 1, __ATOMIC_RELEASE);
	for (i = 0; i < p->rounds; i++) {
		while (__atomic_load_n(&p->flag, __ATOMIC_ACQUIRE) != 2 * i + 1)
			if (__atomic_load_n(&p->quit, __ATOMIC_RELAXED))
				return NULL;
		__atomic_store_n(&p->flag, 2 * i + 2, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * One-way latency between the calling thread's CPU a and CPU b, ns: up to
 * rounds round trips, fewer when max_s runs out (the pair may seldom run
 * at once on an overcommitted host).
 */
static double pingpong(int a, int b, uint64_t rounds, double max_s, struct vp_err *err)
{
	struct pp *p = NULL;
	pthread_t th;
	uint64_t i, t0, dt, limit = (uint64_t)(max_s * 1e9);
	int e;

	if (posix_memalign((void **)&p, 64, sizeof(*p)))
		return NAN;
	memset(p, 0, sizeof(*p));
	p->rounds = rounds;
	p->cpu_b = b;
	if (bench_bind_self(a, err)) {
		free(p);
		return NAN;
	}
	e = pthread_create(&th, NULL, pong, p);
	if (e) {
		vp_err_errno(err, e, "cannot start a ping-pong thread");
		free(p);
		return NAN;
	}
	while (!__atomic_load_n(&p->ready, __ATOMIC_ACQUIRE))
		;
	t0 = vp_now_ns();
	for (i = 0; i < rounds; i++) {
		uint64_t spins = 0;

		__atomic_store_n(&p->flag, 2 * i + 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&p->flag, __ATOMIC_ACQUIRE) != 2 * i + 2)
			if (!(++spins & 0xffff) && vp_now_ns() - t0 > limit)
				break;
		if (__atomic_load_n(&p->flag, __ATOMIC_ACQUIRE) != 2 * i + 2 ||
		    (!(i & 255) && vp_now_ns() - t0 > limit))
			break;
	}
	dt = vp_now_ns() - t0;
	__atomic_store_n(&p->quit, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	free(p);
	return i ? (double)dt / (double)i / 2 : NAN;
}

/* Calibrate the round count on a short run, then the best of three. */
static double c2c_pair(int a, int b, double budget, struct vp_err *err)
{
	double est = pingpong(a, b, 2000, budget / 4, err), best = NAN, v;
	uint64_t rounds;
	int i;

	if (isnan(est))
		return NAN;
	rounds = (uint64_t)(budget / 3 * 1e9 / (2 * fmax(est, 1)));
	if (rounds < 1000)
		rounds = 1000;
	if (rounds > 20000000)
		rounds = 20000000;
	for (i = 0; i < 3; i++) {
		v = pingpong(a, b, rounds, budget / 3, err);
		if (isnan(best) || v < best)
			best = v;
	}
	return best;
}

static int pkg_of(const struct bench_topo *t, int cpu)
{
	int i;

	for (i = 0; i < t->n_cpus; i++)
		if (t->cpus[i] == cpu)
			return t->cpu_pkg[i];
	return -1;
}

int bench_c2c(const struct bench_topo *t, const struct bench_opts *o, const int *cpus, int n,
	      struct sharing_result *r, struct vp_err *err)
{
	struct bench_affinity aff;
	double in[256 * 8], cross[256 * 8], budget;
	int i, j, nin = 0, ncross = 0, pairs, done = 0, ret = 0;

	if (!cpus) {
		cpus = t->cpus;
		n = t->n_cpus;
	}
	if (n > 256)
		n = 256;
	r->n_cpus = n;
	memcpy(r->cpus, cpus, sizeof(int) * (size_t)n);
	for (i = 0; i < n * n; i++)
		r->c2c_ns[i] = NAN;
	r->c2c_in_pkg_ns = r->c2c_cross_pkg_ns = NAN;
	r->c2c_note[0] = 0;
	if (n < 2) {
		snprintf(r->c2c_note, sizeof(r->c2c_note),
			 "one CPU: no pair to measure core-to-core latency on");
		return 0;
	}
	pairs = n * (n - 1) / 2;
	budget = o->time_s / pairs;
	if (budget < 0.005)
		budget = 0.005;
	bench_affinity_save(&aff);
	for (i = 0; i < n && !ret; i++) {
		for (j = i + 1; j < n && !bench_stopped(o); j++) {
			double v;

			bench_progress(o, "sharing", (double)done++ / pairs * 0.7,
				       "core-to-core CPU %d <-> CPU %d", cpus[i], cpus[j]);
			v = c2c_pair(cpus[i], cpus[j], budget, err);
			if (isnan(v) && err && err->code) {
				ret = err->code;
				break;
			}
			r->c2c_ns[i * n + j] = r->c2c_ns[j * n + i] = v;
			if (pkg_of(t, cpus[i]) == pkg_of(t, cpus[j])) {
				if (nin < (int)VP_ARRAY_SIZE(in))
					in[nin++] = v;
			} else if (ncross < (int)VP_ARRAY_SIZE(cross)) {
				cross[ncross++] = v;
			}
		}
	}
	bench_affinity_restore(&aff);
	r->c2c_in_pkg_ns = bench_median(in, nin);
	r->c2c_cross_pkg_ns = bench_median(cross, ncross);
	if (!ncross)
		snprintf(r->c2c_note, sizeof(r->c2c_note),
			 "%s: no pair crosses packages, cross-socket latency cannot be measured here",
			 t->n_pkgs == 1 ? "one package" : "the CPUs used are all in one package");
	if (!nin)
		bench_addf(r->c2c_note, sizeof(r->c2c_note), "%sno two CPUs share a package",
			   *r->c2c_note ? "; " : "");
	return ret;
}

enum share_kind { SH_TRUE, SH_FALSE, SH_PADDED };

struct incr {
	int cpu;
	volatile uint64_t *counter;
	volatile int *go, *stop;
	uint64_t count;
	double ns;
	double share;              /* CPU time / wall time: how much it really ran */
	pthread_t th;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Every kind does the same locked add; only where the counters lie differs.
 * Time is the thread's CPU time: while it is descheduled it makes no adds,
 * and on a shared machine wall time would charge it for other tenants.
 */
static void *incr_main(void *arg)
{
	struct incr *w = arg;
	uint64_t n = 0, t0, t1, w0, w1;
	int i;

	bench_bind_self(w->cpu, NULL);
	while (!__atomic_load_n(w->go, __ATOMIC_ACQUIRE))
		;
	w0 = vp_now_ns();
	t0 = thread_cpu_ns();
	while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED)) {
		for (i = 0; i < 256; i++)
			__atomic_fetch_add(w->counter, 1, __ATOMIC_RELAXED);
		n += 256;
	}
	t1 = thread_cpu_ns();
	w1 = vp_now_ns();
	w->count = n;
	w->ns = n ? (double)(t1 - t0) / (double)n : NAN;
	w->share = w1 > w0 ? (double)(t1 - t0) / (double)(w1 - w0) : NAN;
	return NULL;
}

/* Mean ns per add per thread; *share gets the smallest CPU share of a thread. */
static double share_run(const struct bench_topo *t, int nthr, enum share_kind kind,
			double window, double *share, struct vp_err *err)
{
	uint64_t *mem = NULL;
	struct incr *w = xcalloc((size_t)nthr, sizeof(*w));
	volatile int go = 0, stop = 0;
	double sum = 0;
	int i, started = 0, e = 0;

	*share = NAN;
	if (posix_memalign((void **)&mem, 64, 64 * (size_t)(nthr + 1)))
		abort();
	memset(mem, 0, 64 * (size_t)(nthr + 1));
	for (i = 0; i < nthr; i++) {
		w[i].cpu = t->cpus[i];
		w[i].counter = kind == SH_TRUE ? &mem[0] : kind == SH_FALSE ? &mem[i] : &mem[8 * i];
		w[i].go = &go;
		w[i].stop = &stop;
		if ((e = pthread_create(&w[i].th, NULL, incr_main, &w[i])))
			break;
		started++;
	}
	if (!e) {
		__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
		bench_sleep_s(window);
	}
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < started; i++) {
		pthread_join(w[i].th, NULL);
		sum += w[i].ns;
		if (isnan(*share) || w[i].share < *share)
			*share = w[i].share;
	}
	free(w);
	free(mem);
	if (e) {
		vp_err_errno(err, e, "cannot start a sharing thread");
		return NAN;
	}
	return sum / nthr;
}

int bench_sharing(const struct bench_topo *t, const struct bench_opts *o,
		  struct sharing_result *r, struct vp_err *err)
{
	struct bench_opts co = *o;
	double window, share;
	int ret;

	memset(r, 0, sizeof(*r));
	r->true_ns = r->false_ns = r->padded_ns = NAN;
	r->true_slowdown = r->false_slowdown = r->cpu_share = NAN;
	co.time_s = o->time_s * 0.6;
	if ((ret = bench_c2c(t, &co, NULL, 0, r, err)))
		return ret;
	r->threads = t->n_cpus < 64 ? t->n_cpus : 64;
	snprintf(r->bound, sizeof(r->bound),
		 "ping-pong: one thread per CPU of each pair, pinned; sharing: %d threads on "
		 "CPUs %d..%d, one 64-byte line for true and false sharing, one line each when "
		 "padded", r->threads, t->cpus[0], t->cpus[r->threads - 1]);
	if (r->threads < 2) {
		snprintf(r->note, sizeof(r->note), "one CPU: nothing to share a line with");
		return 0;
	}
	window = o->time_s * 0.4 / 3;
	bench_progress(o, "sharing", 0.7, "padded counters");
	r->padded_ns = share_run(t, r->threads, SH_PADDED, window, &share, err);
	bench_progress(o, "sharing", 0.8, "false sharing");
	r->false_ns = share_run(t, r->threads, SH_FALSE, window, &r->cpu_share, err);
	bench_progress(o, "sharing", 0.9, "true sharing");
	r->true_ns = share_run(t, r->threads, SH_TRUE, window, &share, err);
	r->false_slowdown = r->false_ns / r->padded_ns;
	r->true_slowdown = r->true_ns / r->padded_ns;
	if (r->cpu_share < 0.5)
		snprintf(r->note, sizeof(r->note),
			 "a sharing thread ran only %.0f %% of the time (other tenants): the lines "
			 "bounced less than they would on an idle machine", r->cpu_share * 100);
	bench_progress(o, "sharing", 1, "done");
	return 0;
}
