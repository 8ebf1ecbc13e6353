/* bandwidth.c - the bandwidth scenario: kernels x threads, node x node matrix, loaded latency */
#include "bench/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* Each array on each node: 4x all the LLCs together (2x quick). */
static size_t pool_bytes(const struct bench_topo *t, const struct bench_opts *o)
{
	return bench_dram_bytes(t, o) * (size_t)(t->n_llc > 0 ? t->n_llc : 1);
}

int bench_loaded_latency(const struct bench_topo *t, const struct bench_opts *o,
			 struct bw_result *r, struct vp_err *err)
{
	static const double delays[] = { 30000, 9000, 3000, 1000, 0 };
	struct bench_affinity aff;
	struct bench_buf chase = { 0 };
	size_t bytes = bench_dram_bytes(t, o), nlines = bytes / LINE;
	int ncpu = t->n_cpus, others = ncpu - 1, i, ret = 0, npts;
	double budget;
	void *start;
	char desc[BENCH_TEXT];
	struct stream_pools pools;
	int mem[256];

	stream_pools_init(&pools, pool_bytes(t, o), o->huge);
	for (i = 0; i < 256; i++)
		mem[i] = t->cpu_node[0];
	r->isa = bw_isa_pick(o->isa);
	r->n_loaded = 0;
	r->idle_ns = NAN;
	bench_affinity_save(&aff);
	if ((ret = bench_bind_self(t->cpus[0], err)))
		goto out;
	if ((ret = bench_buf_alloc(&chase, bytes, t->cpu_node[0], o->huge, err)))
		goto out;
	chase_build(chase.p, nlines, LINE, o->seed + 77);
	start = chase.p;
	npts = 1 + (others > 0 ? (int)VP_ARRAY_SIZE(delays) + (others > 1 ? others - 1 : 0) : 0);
	if (npts > BENCH_MAX_POINTS)
		npts = BENCH_MAX_POINTS;
	budget = o->time_s / npts;
	if (!isnan(o->idle_ns)) {   /* the run's one idle figure */
		r->idle_ns = o->idle_ns;
		r->idle_from_run = true;
	} else {
		bench_progress(o, "loaded-latency", 0, "idle latency");
		r->idle_ns = bench_chase_ns(&start, 1, nlines, budget * 0.8, true, o);
	}
	r->loaded[r->n_loaded++] = (struct loaded_point){ 0, NAN, 0, r->idle_ns };
	bench_buf_describe(&chase, desc, sizeof(desc));
	bench_addf(r->bound, sizeof(r->bound), "%sloaded latency: chaser on CPU %d, memory %s",
		   *r->bound ? "\n" : "", t->cpus[0], desc);
	if (others < 1) {
		bench_addf(r->bound, sizeof(r->bound),
			   "; one CPU only: no streaming threads, the curve has the idle point alone");
		goto out;
	}
	bench_addf(r->bound, sizeof(r->bound), "; streamers (read) on CPUs");
	for (i = 1; i < ncpu; i++)
		bench_addf(r->bound, sizeof(r->bound), " %d", t->cpus[i]);
	bench_addf(r->bound, sizeof(r->bound), ", memory on the chaser's node, %zu MiB in all",
		   pools.bytes >> 20);
	/* the load rises first by shorter pauses with every other CPU streaming,
	 * then (with more than two CPUs) by more threads flat out */
	for (i = 0; r->n_loaded < npts && !bench_stopped(o); i++) {
		int nthr = i < (int)VP_ARRAY_SIZE(delays) ? others : i - (int)VP_ARRAY_SIZE(delays) + 1;
		double delay = i < (int)VP_ARRAY_SIZE(delays) ? delays[i] : 0;
		struct stream_set set;
		double lat = NAN, bw;

		if (i >= (int)VP_ARRAY_SIZE(delays) && nthr >= others)
			break;
		bench_progress(o, "loaded-latency", (double)r->n_loaded / npts,
			       "%d streamer%s, pause %.0f ns per 64 KiB", nthr, nthr == 1 ? "" : "s",
			       delay);
		ret = stream_set_start(&set, t, &pools, nthr, t->cpus + 1, mem, r->isa, BW_READ,
				       delay, err);
		if (!ret) {
			bench_sleep_s(0.02);
			lat = bench_chase_ns(&start, 1, nlines, budget * 0.8, false, o);
		}
		bw = stream_set_stop(&set);
		if (ret)
			goto out;
		r->loaded[r->n_loaded++] = (struct loaded_point){ nthr, delay, bw, lat };
	}
out:
	stream_pools_release(&pools);
	bench_buf_free(&chase);
	bench_affinity_restore(&aff);
	return ret;
}

int bench_bw_matrix(const struct bench_topo *t, const struct bench_opts *o, struct bw_result *r,
		    struct stream_pools *pools, double window, double frac0, double frac1,
		    struct vp_err *err)
{
	int cpus[256], idx[256], i, j, k, done = 0, ret = 0;

	r->isa = bw_isa_pick(o->isa);
	r->n_nodes = t->n_nodes < 64 ? t->n_nodes : 64;
	memcpy(r->nodes, t->nodes, sizeof(int) * (size_t)r->n_nodes);
	for (i = 0; i < r->n_nodes * r->n_nodes; i++)
		r->matrix_gbs[i] = NAN;
	if (t->n_nodes == 1)
		snprintf(r->matrix_note, sizeof(r->matrix_note),
			 "this machine has one NUMA node: the matrix is the one pair (%d,%d); "
			 "remote bandwidth cannot be measured here", t->nodes[0], t->nodes[0]);
	for (i = 0; i < r->n_nodes && !ret; i++) {
		int mem[256], nc = bench_topo_node_cpus(t, r->nodes[i], idx, 256);

		for (j = 0; j < nc; j++)
			cpus[j] = t->cpus[idx[j]];
		for (j = 0; j < r->n_nodes && !ret; j++) {
			bench_progress(o, "bandwidth", frac0 + (frac1 - frac0) * done++ /
				       (r->n_nodes * r->n_nodes),
				       "matrix CPU node %d, memory node %d", r->nodes[i], r->nodes[j]);
			if (nc < 1)
				continue;
			for (k = 0; k < nc; k++)
				mem[k] = r->nodes[j];
			ret = bench_stream_run(t, pools, nc, cpus, mem, r->isa, BW_READ, window,
					       &r->matrix_gbs[i * r->n_nodes + j], err);
		}
	}
	bench_addf(r->bound, sizeof(r->bound),
		   "\nmatrix: read kernel, one thread per CPU of the CPU node, arrays bound "
		   "(mbind) to the memory node");
	return ret;
}

int bench_bandwidth(const struct bench_topo *t, const struct bench_opts *o,
		    struct bw_result *r, struct vp_err *err)
{
	int cpus[256], idx[256], n, i, k, ret = 0, nkern = BW_KERNEL_N, steps, done = 0;
	double window;
	struct bench_opts lo = *o;
	struct stream_pools pools;
	char desc[BENCH_TEXT * 2];

	memset(r, 0, sizeof(*r));
	r->isa = bw_isa_pick(o->isa);
	if (r->isa < 0)
		return vp_err_set(err, VP_EUNSUPP, "this CPU cannot run the '%s' kernels",
				  bw_isa_name(o->isa));
	stream_pools_init(&pools, pool_bytes(t, o), o->huge);
	n = bench_topo_node_cpus(t, t->cpu_node[0], idx, 256);
	for (i = 0; i < n; i++)
		cpus[i] = t->cpus[idx[i]];
	r->n_sweep = n < BENCH_MAX_POINTS ? n : BENCH_MAX_POINTS;
	r->n_nodes = t->n_nodes < 64 ? t->n_nodes : 64;
	memcpy(r->nodes, t->nodes, sizeof(int) * (size_t)r->n_nodes);
	steps = r->n_sweep * nkern + r->n_nodes * r->n_nodes;
	window = o->time_s * 0.6 / steps;
	r->bytes_per_thread = pools.bytes;
	for (i = 0; i < r->n_sweep && !ret; i++) {
		int nthr = i + 1;

		r->sweep[i].threads = nthr;
		for (k = 0; k < nkern && !ret && !bench_stopped(o); k++) {
			bench_progress(o, "bandwidth", 0.6 * done++ / steps, "%s, %d thread%s",
				       bw_kernel_name(k), nthr, nthr == 1 ? "" : "s");
			ret = bench_stream_run(t, &pools, nthr, cpus, NULL, r->isa, k, window,
					       &r->sweep[i].gbs[k], err);
		}
	}
	if (ret)
		goto out;
	stream_pools_describe(&pools, desc, sizeof(desc));
	snprintf(r->bound, sizeof(r->bound),
		 "sweep: %s kernels, n threads on the first n CPUs %d.. of node %d, one per CPU; %s",
		 bw_isa_name(r->isa), cpus[0], t->cpu_node[0], desc);
	if ((ret = bench_bw_matrix(t, o, r, &pools, window, 0.6 * done / steps, 0.6, err)))
		goto out;
	stream_pools_release(&pools);
	lo.time_s = o->time_s * 0.4;
	lo.progress = NULL;
	bench_progress(o, "bandwidth", 0.6, "loaded latency");
	ret = bench_loaded_latency(t, &lo, r, err);
	bench_progress(o, "bandwidth", 1, "done");
out:
	stream_pools_release(&pools);
	return ret;
}

int bench_kernel_gbs(const struct bench_topo *t, const struct bench_opts *o, int kernel, int nthr,
		     double window_s, double *gbs, size_t *array_bytes, struct vp_err *err)
{
	int cpus[256], idx[256], n, i, isa = bw_isa_pick(o->isa), ret;
	struct stream_pools pools;

	if (isa < 0)
		return vp_err_set(err, VP_EUNSUPP, "this CPU cannot run the '%s' kernels",
				  bw_isa_name(o->isa));
	n = bench_topo_node_cpus(t, t->cpu_node[0], idx, 256);
	if (nthr < 1 || nthr > n)
		return vp_err_set(err, VP_EINVAL, "%d threads: node %d has %d CPUs", nthr,
				  t->cpu_node[0], n);
	for (i = 0; i < nthr; i++)
		cpus[i] = t->cpus[idx[i]];
	stream_pools_init(&pools, pool_bytes(t, o), o->huge);
	if (array_bytes)
		*array_bytes = pools.bytes;
	ret = bench_stream_run(t, &pools, nthr, cpus, NULL, isa, kernel, window_s, gbs, err);
	stream_pools_release(&pools);
	return ret;
}
