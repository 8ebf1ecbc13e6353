/* run.c - timed pointer chases, streaming threads and progress for the scenarios */
#include "bench/internal.h"

#include <errno.h>
#include <sched.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "util/timeutil.h"

void bench_progress(const struct bench_opts *o, const char *scenario, double frac,
		    const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!o->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->progress(o->progress_ctx, scenario, frac, msg);
}

bool bench_stopped(const struct bench_opts *o)
{
	return o->stop && __atomic_load_n(o->stop, __ATOMIC_RELAXED);
}

void bench_addf(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

void bench_sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int bench_node_of_cpu(const struct bench_topo *t, int cpu)
{
	int i;

	for (i = 0; i < t->n_cpus; i++)
		if (t->cpus[i] == cpu)
			return t->cpu_node[i];
	return -1;
}

size_t bench_dram_bytes(const struct bench_topo *t, const struct bench_opts *o)
{
	size_t llc = t->llc_bytes ? t->llc_bytes : (32u << 20), b = llc * (o->quick ? 2 : 4);

	if (o->dram_bytes)
		return o->dram_bytes;
	return b < (64u << 20) ? (64u << 20) : b;
}

void bench_chase_marks(void *buf, size_t nlines, void **marks)
{
	size_t gap = nlines / 64 ? nlines / 64 : 1;
	void *p = buf;
	int i;

	for (i = 0; i < 64; i++) {
		marks[i] = p;
		p = chase_walk(p, gap);
	}
}

/* k chains advanced together (p[] moves on): their loads are independent of each other. */
VP_UNINSTRUMENTED void *bench_walk_k(void **p, int k, uint64_t steps)
{
	uint64_t s;
	int j;

	if (k == 1)
		return p[0] = chase_walk(p[0], steps);
	for (s = 0; s < steps; s++)
		for (j = 0; j < k; j++)
			p[j] = *(void **)p[j];
	return p[0];
}

double bench_chase_ns(void **starts, int k, size_t nlines, double budget_s, bool best,
		      const struct bench_opts *o)
{
	return bench_chase_sampled(starts, k, nlines, budget_s, best, o, NULL);
}

double bench_chase_sampled(void **starts, int k, size_t nlines, double budget_s, bool best,
			   const struct bench_opts *o, double *median)
{
	void *p[64];
	/* best: many short samples, so a preemption spoils few of them */
	int nsamp = best ? 12 : 5, i, n = 0;
	double samples[12], target = budget_s * 1e9 / (nsamp + 2), res;
	uint64_t steps = 256, t0, dt, warm = nlines / (size_t)k, done = 0;
	void *volatile sink;

	if (k < 1 || k > 64)
		return NAN;
	memcpy(p, starts, sizeof(void *) * (size_t)k);
	/* warm up: a lap of the chain, or one sample's time if that is less */
	t0 = vp_now_ns();
	while (done < warm && (double)(vp_now_ns() - t0) < target) {
		uint64_t chunk = warm - done < 65536 ? warm - done : 65536;

		sink = bench_walk_k(p, k, chunk);
		done += chunk;
	}
	/* size a sample to the target from a run of at least a tenth of it */
	for (;;) {
		t0 = vp_now_ns();
		sink = bench_walk_k(p, k, steps);
		dt = vp_now_ns() - t0;
		if ((double)dt >= target / 10 || steps >= (1ull << 34))
			break;
		steps *= 4;
	}
	steps = (uint64_t)((double)steps * target / (double)(dt ? dt : 1));
	if (steps < 64)
		steps = 64;
	for (i = 0; i < nsamp && (i == 0 || !bench_stopped(o)); i++) {
		t0 = vp_now_ns();
		sink = bench_walk_k(p, k, steps);
		dt = vp_now_ns() - t0;
		samples[n++] = (double)dt / (double)steps;
	}
	(void)sink;
	if (median)
		*median = bench_median(samples, n);
	if (best) {
		res = samples[0];
		for (i = 1; i < n; i++)
			res = fmin(res, samples[i]);
		return res;
	}
	return bench_median(samples, n);
}

static void *streamer_main(void *arg)
{
	struct streamer *s = arg;
	size_t block = s->delay_ns > 0 ? (64u << 10) : (1u << 20), off;
	uint64_t bytes = 0, t0, t1, factor = (uint64_t)bw_kernel_bytes_factor(s->kernel);

	if (block > s->len)
		block = s->len & ~(size_t)255;
	bench_bind_self(s->cpu, NULL);
	while (!__atomic_load_n(s->go, __ATOMIC_ACQUIRE))
		;
	t0 = vp_now_ns();
	while (!__atomic_load_n(s->stop, __ATOMIC_RELAXED) && block) {
		for (off = 0; off + block <= s->len; off += block) {
			if (s->kernel == BW_READ)
				s->sink += bw_kernel_run(s->isa, s->kernel, NULL, s->a + off, NULL, block);
			else
				s->sink += bw_kernel_run(s->isa, s->kernel, s->a + off, s->b + off,
							 s->c + off, block);
			bytes += block * factor;
			if (s->delay_ns > 0) {
				uint64_t until = vp_now_ns() + (uint64_t)s->delay_ns;

				while (vp_now_ns() < until)
					;
			}
			if (__atomic_load_n(s->stop, __ATOMIC_RELAXED))
				break;
		}
	}
	t1 = vp_now_ns();
	s->gbs = t1 > t0 ? (double)bytes / (double)(t1 - t0) : NAN;
	return NULL;
}

void stream_pools_init(struct stream_pools *p, size_t bytes, bool huge)
{
	memset(p, 0, sizeof(*p));
	p->bytes = bytes;
	p->huge = huge;
}

void stream_pools_release(struct stream_pools *p)
{
	int i;

	for (i = 0; i < p->n; i++) {
		bench_buf_free(&p->a[i]);
		bench_buf_free(&p->b[i]);
		bench_buf_free(&p->c[i]);
	}
	p->n = 0;
}

void stream_pools_describe(struct stream_pools *p, char *out, size_t size)
{
	char d[BENCH_TEXT];
	int i;

	snprintf(out, size, "arrays of %zu MiB per node, threads take equal slices", p->bytes >> 20);
	for (i = 0; i < p->n; i++) {
		bench_buf_describe(&p->a[i], d, sizeof(d));
		bench_addf(out, size, "; node %d: %s", p->node[i], d);
	}
}

/* The pool arrays on node, made now if kernel needs ones not yet there. */
static int pool_for(struct stream_pools *p, int node, int kernel, int *idx, struct vp_err *err)
{
	int i, ret = 0;

	for (i = 0; i < p->n && p->node[i] != node; i++)
		;
	if (i == p->n) {
		if (p->n >= 64)
			return vp_err_set(err, VP_ERANGE, "too many memory nodes for the stream pools");
		p->node[p->n++] = node;
	}
	*idx = i;
	if (!p->a[i].p && (ret = bench_buf_alloc(&p->a[i], p->bytes, node, p->huge, err)))
		return ret;
	if ((kernel == BW_COPY || kernel == BW_TRIAD) && !p->b[i].p &&
	    (ret = bench_buf_alloc(&p->b[i], p->bytes, node, p->huge, err)))
		return ret;
	if (kernel == BW_TRIAD && !p->c[i].p &&
	    (ret = bench_buf_alloc(&p->c[i], p->bytes, node, p->huge, err)))
		return ret;
	return 0;
}

int stream_set_start(struct stream_set *set, const struct bench_topo *t, struct stream_pools *p,
		     int n, const int *cpus, const int *mem_nodes, int isa, int kernel,
		     double delay_ns, struct vp_err *err)
{
	int i, j, ret = 0;

	set->n = 0;
	set->go = set->stop = 0;
	set->s = xcalloc((size_t)n + 1, sizeof(*set->s));
	for (i = 0; i < n && !ret; i++) {
		struct streamer *s = &set->s[i];
		int node = mem_nodes ? mem_nodes[i] : bench_node_of_cpu(t, cpus[i]);
		int pi = 0, nsame = 0, slot = 0;
		size_t len;

		if ((ret = pool_for(p, node, kernel, &pi, err)))
			break;
		for (j = 0; j < n; j++) {
			int nj = mem_nodes ? mem_nodes[j] : bench_node_of_cpu(t, cpus[j]);

			if (nj == node) {
				if (j < i)
					slot++;
				nsame++;
			}
		}
		len = (p->bytes / (size_t)nsame) & ~(size_t)4095;
		s->cpu = cpus[i];
		s->isa = isa;
		s->kernel = kernel;
		s->a = (char *)p->a[pi].p + (size_t)slot * len;
		s->b = p->b[pi].p ? (char *)p->b[pi].p + (size_t)slot * len : s->a;
		s->c = p->c[pi].p ? (char *)p->c[pi].p + (size_t)slot * len : s->b;
		s->len = len;
		s->delay_ns = delay_ns;
		s->go = &set->go;
		s->stop = &set->stop;
		s->gbs = NAN;
		if ((ret = pthread_create(&s->th, NULL, streamer_main, s))) {
			ret = vp_err_errno(err, ret, "cannot start a streaming thread");
			break;
		}
		s->started = true;
		set->n++;
	}
	__atomic_store_n(&set->go, 1, __ATOMIC_RELEASE);
	return ret;
}

double stream_set_stop(struct stream_set *set)
{
	double total = 0;
	int i;

	__atomic_store_n(&set->go, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&set->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < set->n; i++) {
		if (set->s[i].started)
			pthread_join(set->s[i].th, NULL);
		total += set->s[i].gbs;
	}
	free(set->s);
	set->s = NULL;
	return set->n ? total : NAN;
}

int bench_stream_run(const struct bench_topo *t, struct stream_pools *p, int n,
		     const int *cpus, const int *mem_nodes, int isa, int kernel, double window_s,
		     double *gbs, struct vp_err *err)
{
	struct stream_set set;
	int ret = stream_set_start(&set, t, p, n, cpus, mem_nodes, isa, kernel, 0, err);

	if (!ret)
		bench_sleep_s(window_s);
	*gbs = stream_set_stop(&set);
	if (ret)
		*gbs = NAN;
	return ret;
}

void bench_affinity_save(struct bench_affinity *a)
{
	_Static_assert(sizeof(a->set) >= sizeof(cpu_set_t), "affinity buffer too small");
	a->ok = !pthread_getaffinity_np(pthread_self(), sizeof(cpu_set_t), (cpu_set_t *)a->set);
}

void bench_affinity_restore(const struct bench_affinity *a)
{
	if (a->ok)
		pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), (const cpu_set_t *)a->set);
}
