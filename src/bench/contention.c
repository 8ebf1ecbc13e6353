/* contention.c - the llc, imc and queue scenarios: a victim or a node under growing pressure */
#include "bench/internal.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/timeutil.h"

/* Victim latency at ws bytes of b with n co-runners writing on cpus[]. */
static double victim_ns(const struct bench_topo *t, const struct bench_opts *o,
			struct bench_buf *b, size_t ws, struct stream_pools *pools, const int *cpus,
			int n, double budget, struct vp_err *err, int *ret)
{
	struct stream_set set;
	void *start = b->p;
	double lat = NAN;

	chase_build(b->p, ws / LINE, LINE, o->seed + 5);
	*ret = n ? stream_set_start(&set, t, pools, n, cpus, NULL, bw_isa_pick(o->isa), BW_WRITE,
				    0, err) : 0;
	if (!*ret) {
		if (n)
			bench_sleep_s(0.02);
		lat = bench_chase_ns(&start, 1, ws / LINE, budget, n == 0, o);
	}
	if (n)
		stream_set_stop(&set);
	return lat;
}

int bench_llc(const struct bench_topo *t, const struct bench_opts *o, struct llc_result *r,
	      struct vp_err *err)
{
	struct bench_affinity aff;
	struct bench_buf b = { 0 };
	struct stream_pools pools;
	int co[256], nco = 0, i, ret = 0, tries = 0;
	size_t llc = t->llc_bytes ? t->llc_bytes : (8u << 20), ws = llc / 2, big;
	double dram, budget, sx = 0, sy = 0;
	char desc[BENCH_TEXT];

	memset(r, 0, sizeof(*r));
	r->slowdown_per_corunner = NAN;
	stream_pools_init(&pools, 2 * llc, o->huge);
	for (i = 1; i < t->n_cpus && nco < 255; i++)
		if (t->cpu_llc[i] == t->cpu_llc[0])
			co[nco++] = t->cpus[i];
	bench_affinity_save(&aff);
	if ((ret = bench_bind_self(t->cpus[0], err)))
		goto out;
	big = bench_dram_bytes(t, o);
	if ((ret = bench_buf_alloc(&b, big, t->cpu_node[0], o->huge, err)))
		goto out;
	budget = o->time_s / (nco + 4);
	bench_progress(o, "llc", 0, "DRAM latency for reference");
	stream_pools_init(&pools, 2 * llc, o->huge);
	dram = victim_ns(t, o, &b, big, &pools, co, 0, budget / 2, err, &ret);
	/* find a working set the LLC really holds for us: in a VM the share
	 * can be far smaller than the size the CPU reports */
	for (;;) {
		bench_progress(o, "llc", 0.1, "victim alone, %zu KiB", ws >> 10);
		r->alone_ns = victim_ns(t, o, &b, ws, &pools, co, 0, budget / 2, err, &ret);
		if (ret || r->alone_ns < 0.6 * dram || ws / 2 < 2 * t->l2_bytes || ++tries > 6)
			break;
		ws /= 2;
	}
	if (ret)
		goto out;
	r->ws_bytes = (double)ws;
	if (ws < llc / 2)
		snprintf(r->note, sizeof(r->note),
			 "half the LLC (%zu KiB) already ran at DRAM speed alone; the victim uses "
			 "%zu KiB, which the LLC holds for it", (llc / 2) >> 10, ws >> 10);
	if (r->alone_ns >= 0.6 * dram)
		bench_addf(r->note, sizeof(r->note), "%sno working set above twice the L2 stayed in "
			   "the LLC (alone %.0f ns vs DRAM %.0f ns): slowdowns show DRAM contention",
			   *r->note ? "; " : "", r->alone_ns, dram);
	bench_buf_describe(&b, desc, sizeof(desc));
	snprintf(r->bound, sizeof(r->bound), "victim: chaser on CPU %d over %zu KiB of %s; "
		 "co-runners: write streams over slices of %zu MiB (their node) on CPUs sharing "
		 "its LLC:", t->cpus[0], ws >> 10, desc, (2 * llc) >> 20);
	for (i = 0; i < nco; i++)
		bench_addf(r->bound, sizeof(r->bound), " %d", co[i]);
	if (!nco) {
		bench_addf(r->bound, sizeof(r->bound), " none");
		bench_addf(r->note, sizeof(r->note), "%sno other CPU shares the victim's LLC: no "
			   "co-runner can be placed", *r->note ? "; " : "");
	}
	r->corunners[0] = 0;
	r->ns[0] = r->alone_ns;
	r->slowdown[0] = 1;
	r->n_points = 1;
	for (i = 1; i <= nco && r->n_points < BENCH_MAX_POINTS && !bench_stopped(o); i++) {
		double ns;

		bench_progress(o, "llc", 0.1 + 0.9 * i / (nco + 1), "%d co-runner%s", i,
			       i == 1 ? "" : "s");
		ns = victim_ns(t, o, &b, ws, &pools, co, i, budget, err, &ret);
		if (ret)
			goto out;
		r->corunners[r->n_points] = i;
		r->ns[r->n_points] = ns;
		r->slowdown[r->n_points] = ns / r->alone_ns;
		sx += (double)i * i;
		sy += (double)i * (ns / r->alone_ns - 1);
		r->n_points++;
	}
	if (sx > 0)
		r->slowdown_per_corunner = sy / sx;
out:
	stream_pools_release(&pools);
	bench_buf_free(&b);
	bench_affinity_restore(&aff);
	bench_progress(o, "llc", 1, "done");
	return ret;
}

int bench_imc(const struct bench_topo *t, const struct bench_opts *o, struct imc_result *r,
	      struct vp_err *err)
{
	int idx[256], cpus[256], mem[256], n, i, j, isa = bw_isa_pick(o->isa), ret = 0;
	double x[BENCH_MAX_POINTS], window;
	size_t bytes;
	struct stream_pools pools;

	memset(r, 0, sizeof(*r));
	r->knee_threads = -1;
	n = bench_topo_node_cpus(t, t->nodes[0], idx, 256);
	if (n < 1) {
		n = bench_topo_node_cpus(t, t->cpu_node[0], idx, 256);
	}
	for (i = 0; i < n; i++)
		cpus[i] = t->cpus[idx[i]];
	r->n_points = n < BENCH_MAX_POINTS ? n : BENCH_MAX_POINTS;
	window = o->time_s / (r->n_points * (t->n_nodes > 1 ? 2 : 1));
	bytes = bench_dram_bytes(t, o) * (size_t)(t->n_llc > 0 ? t->n_llc : 1);
	stream_pools_init(&pools, bytes, o->huge);
	snprintf(r->bound, sizeof(r->bound),
		 "packed: read streams on CPUs %d.. of node %d, slices of %zu MiB bound there",
		 cpus[0], bench_node_of_cpu(t, cpus[0]), bytes >> 20);
	for (i = 0; i < r->n_points && !bench_stopped(o); i++) {
		r->threads[i] = i + 1;
		x[i] = i + 1;
		bench_progress(o, "imc", (double)i / r->n_points, "%d thread%s on one node", i + 1,
			       i ? "s" : "");
		r->spread_gbs[i] = NAN;
		if ((ret = bench_stream_run(t, &pools, i + 1, cpus, NULL, isa, BW_READ, window,
					    &r->packed_gbs[i], err)))
			goto out;
	}
	if (t->n_nodes > 1) {
		bench_addf(r->bound, sizeof(r->bound),
			   "\nspread: the same thread counts round-robin over nodes, each thread's "
			   "arrays on its own node");
		for (i = 0; i < r->n_points && !bench_stopped(o); i++) {
			int sc[256], k = 0;

			for (j = 0; j <= i; j++) {
				int node = t->nodes[j % t->n_nodes], got[256], m, pick;

				m = bench_topo_node_cpus(t, node, got, 256);
				pick = m ? got[(j / t->n_nodes) % m] : 0;
				sc[k] = t->cpus[pick];
				mem[k] = t->cpu_node[pick];
				k++;
			}
			bench_progress(o, "imc", 0.5 + 0.5 * i / r->n_points,
				       "%d threads spread over nodes", i + 1);
			if ((ret = bench_stream_run(t, &pools, k, sc, mem, isa, BW_READ, window,
						    &r->spread_gbs[i], err)))
				goto out;
		}
	} else {
		snprintf(r->spread_note, sizeof(r->spread_note),
			 "one NUMA node: there is no other memory controller to spread over");
	}
	if (r->n_points < 3) {
		snprintf(r->knee_note, sizeof(r->knee_note),
			 "%d thread count%s on node %d: finding a knee needs at least 3", r->n_points,
			 r->n_points == 1 ? "" : "s", bench_node_of_cpu(t, cpus[0]));
	} else {
		int k = curve_knee(x, r->packed_gbs, r->n_points, 0.05);

		if (k < 0)
			snprintf(r->knee_note, sizeof(r->knee_note),
				 "bandwidth still rises with every thread: the controller did not "
				 "saturate with %d threads", r->n_points);
		else
			r->knee_threads = r->threads[k];
	}
out:
	stream_pools_release(&pools);
	bench_progress(o, "imc", 1, "done");
	return ret;
}

int bench_queue(const struct bench_topo *t, const struct bench_opts *o,
		struct queue_result *r, struct vp_err *err)
{
	static const int ks_full[] = { 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32 };
	static const int ks_quick[] = { 1, 2, 4, 6, 8, 12, 16, 24, 32 };
	const int *ks = o->quick ? ks_quick : ks_full;
	int nk = o->quick ? (int)VP_ARRAY_SIZE(ks_quick) : (int)VP_ARRAY_SIZE(ks_full);
	struct bench_affinity aff;
	struct bench_buf b = { 0 };
	size_t bytes = bench_dram_bytes(t, o), nlines = bytes / LINE;
	double x[BENCH_MAX_POINTS], best = 0;
	void *starts[64], *marks[64];
	int i, j, ret;
	char desc[BENCH_TEXT];

	memset(r, 0, sizeof(*r));
	r->knee_k = -1;
	r->mlp = NAN;
	bench_affinity_save(&aff);
	if ((ret = bench_bind_self(t->cpus[0], err)))
		goto out;
	if ((ret = bench_buf_alloc(&b, bytes, t->cpu_node[0], o->huge, err)))
		goto out;
	chase_build(b.p, nlines, LINE, o->seed + 9);
	bench_chase_marks(b.p, nlines, marks);
	bench_buf_describe(&b, desc, sizeof(desc));
	snprintf(r->bound, sizeof(r->bound), "k chains on CPU %d over %s", t->cpus[0], desc);
	for (i = 0; i < nk && !bench_stopped(o); i++) {
		int k = ks[i];

		bench_progress(o, "queue", (double)i / nk, "%d independent chain%s", k,
			       k == 1 ? "" : "s");
		for (j = 0; j < k; j++)
			starts[j] = marks[j * 64 / k];
		r->k[i] = k;
		x[i] = k;
		r->ns_per_step[i] = bench_chase_ns(starts, k, nlines, o->time_s / nk, true, o);
		r->rate[i] = k / r->ns_per_step[i] * 1000;
		if (r->rate[i] > best)
			best = r->rate[i];
		r->n_points++;
	}
	if (r->n_points)
		r->mlp = best / r->rate[0];
	r->knee_k = curve_knee(x, r->rate, r->n_points, 0.05);
	if (r->knee_k >= 0)
		r->knee_k = r->k[r->knee_k];
	else
		snprintf(r->note, sizeof(r->note), "no knee: the miss rate %s up to k = %d",
			 r->n_points >= 3 && r->rate[r->n_points - 1] >= best ? "still rises" :
			 "does not rise enough", r->n_points ? r->k[r->n_points - 1] : 0);
out:
	bench_buf_free(&b);
	bench_affinity_restore(&aff);
	bench_progress(o, "queue", 1, "done");
	return ret;
}

/* One core of the shared-tracker scenario: k chains walked until told to stop. */
struct qworker {
	int cpu, k;
	void *p[64];
	volatile int *go, *measure, *stop;
	uint64_t steps;            /* between its own start of measuring and the stop */
	uint64_t ns;
	pthread_t th;
	bool started;
};

static void *qworker_main(void *arg)
{
	struct qworker *w = arg;
	uint64_t steps = 0, t0 = 0, s0 = 0;
	bool measuring = false;
	void *volatile sink;

	bench_bind_self(w->cpu, NULL);
	while (!__atomic_load_n(w->go, __ATOMIC_ACQUIRE))
		sched_yield();
	while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED)) {
		if (!measuring && __atomic_load_n(w->measure, __ATOMIC_RELAXED)) {
			measuring = true;
			t0 = vp_now_ns();
			s0 = steps;
		}
		sink = bench_walk_k(w->p, w->k, 1024);
		steps += 1024;
	}
	(void)sink;
	if (measuring) {
		w->ns = vp_now_ns() - t0;
		w->steps = steps - s0;
	}
	return NULL;
}

/* The core counts to try out of n: all up to 8, then every 2 to 16, every 4 to 32,
 * every 8 beyond (and n itself). */
static int core_counts(int n, int *out)
{
	int c, m = 0;

	for (c = 1; c <= n && m < BENCH_MAX_POINTS; c += c < 8 ? 1 : c < 16 ? 2 : c < 32 ? 4 : 8)
		out[m++] = c;
	if (m && out[m - 1] != n && m < BENCH_MAX_POINTS)
		out[m++] = n;
	return m;
}

int bench_queue_cores(const struct bench_topo *t, const struct bench_opts *o,
		      const struct bench_tracker_hook *hook, struct queue_result *r,
		      struct vp_err *err)
{
	int cpus[256], counts[BENCH_MAX_POINTS], n = 0, np, i, j, k, ret = 0;
	struct bench_buf b = { 0 };
	size_t bytes = bench_dram_bytes(t, o), nlines = bytes / LINE;
	struct qworker *w = NULL;
	void **marks = NULL;
	double window;
	char desc[BENCH_TEXT];

	r->knee_cores = -1;
	r->n_core_points = 0;
	r->core_pkg = t->cpu_pkg[0];
	k = r->knee_k > 0 && r->knee_k <= 64 ? r->knee_k : 8;
	r->core_k = k;
	for (i = 0; i < t->n_cpus && n < 256; i++)
		if (t->cpu_pkg[i] == t->cpu_pkg[0])
			cpus[n++] = t->cpus[i];
	np = core_counts(n, counts);
	if (!hook)
		snprintf(r->tracker_note, sizeof(r->tracker_note),
			 "not counted: no model with a tracker-full count for this machine");
	if ((ret = bench_buf_alloc(&b, bytes, t->cpu_node[0], o->huge, err)))
		goto out;
	/* one cycle through the buffer; n x k starting points spread evenly along it,
	 * so no two chains walk the same lines at the same time */
	chase_build(b.p, nlines, LINE, o->seed + 11);
	marks = xcalloc((size_t)n * (size_t)k, sizeof(void *));
	{
		void *p = b.p;
		size_t gap = nlines / ((size_t)n * (size_t)k);

		for (i = 0; i < n * k; i++) {
			marks[i] = p;
			p = chase_walk(p, gap ? gap : 1);
		}
	}
	bench_buf_describe(&b, desc, sizeof(desc));
	snprintf(r->core_bound, sizeof(r->core_bound),
		 "%d chains on each of CPUs", k);
	for (i = 0; i < n; i++)
		bench_addf(r->core_bound, sizeof(r->core_bound), " %d", cpus[i]);
	bench_addf(r->core_bound, sizeof(r->core_bound), " (package %d, in that order; SMT "
		   "siblings count as cores) over one cycle of %s", r->core_pkg, desc);
	window = o->time_s / (np > 0 ? np : 1);
	w = xcalloc((size_t)n, sizeof(*w));
	for (i = 0; i < np && !bench_stopped(o); i++) {
		volatile int go = 0, measure = 0, stop = 0;
		int c = counts[i], started = 0;
		double sum_rate = 0, sum_ns = 0, frac = NAN;
		const char *why = NULL;
		bool hooked = false;

		bench_progress(o, "queue", 0.5 + 0.5 * i / np, "%d core%s with %d chains each", c,
			       c == 1 ? "" : "s", k);
		for (j = 0; j < c; j++) {
			struct qworker *q = &w[j];
			int m;

			memset(q, 0, sizeof(*q));
			q->cpu = cpus[j];
			q->k = k;
			for (m = 0; m < k; m++)
				q->p[m] = marks[j * k + m];
			q->go = &go;
			q->measure = &measure;
			q->stop = &stop;
			if ((ret = pthread_create(&q->th, NULL, qworker_main, q))) {
				ret = vp_err_errno(err, ret, "cannot start a chasing thread");
				break;
			}
			q->started = true;
			started++;
		}
		__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
		if (!ret) {
			/* a fifth of the window to warm up, the rest measured */
			bench_sleep_s(window * 0.2);
			if (hook && hook->start && !hook->start(hook->ctx, &why))
				hooked = true;
			__atomic_store_n(&measure, 1, __ATOMIC_RELAXED);
			bench_sleep_s(window * 0.8);
			if (hooked)
				frac = hook->stop(hook->ctx, &why);
		}
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
		for (j = 0; j < started; j++)
			pthread_join(w[j].th, NULL);
		if (ret)
			goto out;
		for (j = 0; j < c; j++) {
			double ns = w[j].steps ? (double)w[j].ns / (double)w[j].steps : NAN;

			sum_ns += ns;
			sum_rate += k / ns * 1000;
		}
		r->cores[i] = c;
		r->core_ns[i] = sum_ns / c;
		r->core_rate[i] = sum_rate / c;
		r->total_rate[i] = sum_rate;
		r->tracker_full[i] = frac;
		if (hook && isnan(frac) && why && !*r->tracker_note)
			snprintf(r->tracker_note, sizeof(r->tracker_note), "%s", why);
		r->n_core_points++;
	}
	if (r->n_core_points < 3) {
		snprintf(r->core_note, sizeof(r->core_note),
			 "%d core count%s on package %d: finding where the shared trackers saturate "
			 "needs at least 3", r->n_core_points, r->n_core_points == 1 ? "" : "s",
			 r->core_pkg);
	} else {
		int kn = scaling_knee(r->core_rate, r->n_core_points, 0.1);

		if (kn >= 0)
			r->knee_cores = r->cores[kn];
		else
			snprintf(r->core_note, sizeof(r->core_note),
				 "no knee: each core kept within 10 %% of its rate alone up to %d cores",
				 r->cores[r->n_core_points - 1]);
	}
out:
	free(w);
	free(marks);
	bench_buf_free(&b);
	bench_progress(o, "queue", 1, "done");
	return ret;
}
