/* latency.c - the latency scenario: working-set sweep with cache levels, node x node matrix */
#include "bench/internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * Name each plateau after the smallest cache larger than its smallest
 * working set; a plateau at half the DRAM latency or more is DRAM whatever
 * its size (mostly misses: a VM may get less of the LLC than it reports).  Adjacent
 * plateaus with one name merge, keeping the faster latency: a later cache
 * plateau carries TLB misses on top of the same cache, a slower DRAM one
 * other tenants' noise.
 */
static void name_levels(const struct bench_topo *t, struct lat_result *r)
{
	int i, m = 0, cache = 0;

	for (i = 0; i < r->n_levels; i++) {
		double from = r->level[i].from;
		char name[24];

		if (!isnan(r->dram_ns) && r->level[i].lat >= r->dram_ns / 2)
			snprintf(name, sizeof(name), "DRAM");
		else if (t->l1d_bytes && from < (double)t->l1d_bytes)
			snprintf(name, sizeof(name), "L1");
		else if (t->l2_bytes && from < (double)t->l2_bytes)
			snprintf(name, sizeof(name), "L2");
		else if (t->llc_bytes && from < (double)t->llc_bytes && t->llc_bytes > t->l2_bytes)
			snprintf(name, sizeof(name), "L3");
		else
			snprintf(name, sizeof(name), "level %d", ++cache);
		if (m > 0 && !strcmp(r->level_name[m - 1], name)) {
			r->level[m - 1].to = r->level[i].to;
			r->level[m - 1].last = r->level[i].last;
			if (!strcmp(name, "DRAM"))   /* the higher one is noise, not memory */
				r->level[m - 1].lat = fmin(r->level[m - 1].lat, r->level[i].lat);
			continue;
		}
		r->level[m] = r->level[i];
		snprintf(r->level_name[m], sizeof(r->level_name[m]), "%s", name);
		m++;
	}
	r->n_levels = m;
	for (i = 0; i < m; i++)
		if (!strcmp(r->level_name[i], "DRAM") && t->llc_bytes &&
		    r->level[i].from < (double)t->llc_bytes)
			snprintf(r->dram_reason, sizeof(r->dram_reason),
				 "working sets from %.0f KiB on already see DRAM latency: this "
				 "machine gets less of its %llu KiB LLC than it reports (shared or "
				 "partitioned)", r->level[i].from / 1024,
				 (unsigned long long)(t->llc_bytes >> 10));
}

/* One chase over bytes of buf from the calling thread; NaN when stopped. */
static double chase_size(struct bench_buf *b, size_t bytes, double budget,
			 const struct bench_opts *o, uint64_t seed, double *median)
{
	size_t nlines = bytes / LINE;
	void *start = b->p;

	*median = NAN;
	if (nlines < 2 || bench_stopped(o))
		return NAN;
	chase_build(b->p, nlines, LINE, seed);
	return bench_chase_sampled(&start, 1, nlines, budget, true, o, median);
}

/*
 * One cell of the CPU-node x memory-node matrix from the calling thread:
 * max bytes on memory node `node` (the j-th of the machine's nodes, which
 * seeds its chain), chased for budget; its best and median ns.
 */
static int dram_cell(struct bench_buf *b, size_t max, int node, int j, double budget,
		     const struct bench_opts *o, double *best, double *median, struct vp_err *err)
{
	int ret = bench_buf_alloc(b, max, node, o->huge, err);

	if (!ret)
		*best = chase_size(b, max, budget, o, o->seed + 1000u + (uint64_t)j, median);
	return ret;
}

int bench_latency(const struct bench_topo *t, const struct bench_opts *o,
		  struct lat_result *r, struct vp_err *err)
{
	struct bench_affinity aff;
	struct bench_buf b = { 0 };
	size_t max = bench_dram_bytes(t, o);
	double x[BENCH_MAX_POINTS], y[BENCH_MAX_POINTS], step = o->quick ? 2.0 : sqrt(2.0);
	double dram[BENCH_MAX_POINTS], size, budget, sweep_share = o->matrix ? 0.6 : 1.0;
	double spread[BENCH_MAX_POINTS + 64 * 64];
	int cpu = t->cpus[0], node = t->cpu_node[0], i, j, ret, nd = 0, ns = 0;
	char desc[BENCH_TEXT];

	memset(r, 0, sizeof(*r));
	r->dram_ns = NAN;
	r->sample_spread_pct = NAN;
	bench_affinity_save(&aff);
	if ((ret = bench_bind_self(cpu, err)))
		goto out;
	if ((ret = bench_buf_alloc(&b, max, node, o->huge, err)))
		goto out;
	bench_buf_describe(&b, desc, sizeof(desc));
	snprintf(r->bound, sizeof(r->bound), "sweep: chaser on CPU %d (node %d); memory %s",
		 cpu, node, desc);
	for (size = 4096; size <= (double)max * 1.001 && r->n_points < BENCH_MAX_POINTS; size *= step)
		r->n_points++;
	budget = o->time_s * sweep_share / r->n_points;
	for (i = 0, size = 4096; i < r->n_points; i++, size *= step) {
		size_t bytes = ((size_t)size + LINE - 1) / LINE * LINE;

		bench_progress(o, "latency", (double)i / r->n_points * sweep_share,
			       "working set %zu KiB", bytes >> 10);
		r->pt[i].bytes = (double)bytes;
		r->pt[i].ns = chase_size(&b, bytes, budget, o, o->seed + (uint64_t)i, &r->pt[i].median_ns);
		x[i] = r->pt[i].bytes;
		y[i] = r->pt[i].ns;
		if (t->llc_bytes && r->pt[i].bytes >= 2.0 * (double)t->llc_bytes && !isnan(y[i])) {
			spread[ns++] = (r->pt[i].median_ns / y[i] - 1) * 100;
			dram[nd++] = y[i];
		}
	}
	if (nd)
		r->dram_ns = bench_median(dram, nd);
	else
		snprintf(r->dram_reason, sizeof(r->dram_reason), "%s",
			 t->llc_bytes ? "the sweep did not reach twice the LLC size"
				      : "the LLC size is unknown");
	/* a median of three drops a lone spike (another tenant ran) and keeps
	 * the steps of a staircase: the plateaus are found on that */
	for (i = 0; i < r->n_points; i++) {
		double w[3];
		int k = 0;

		for (j = i - 1; j <= i + 1; j++)
			if (j >= 0 && j < r->n_points)
				w[k++] = r->pt[j].ns;
		y[i] = k == 3 ? bench_median(w, 3) : r->pt[i].ns;
	}
	r->n_levels = curve_levels(x, y, r->n_points, 0.25, r->level, 8);
	name_levels(t, r);

	/* the CPU-node x memory-node matrix */
	r->n_nodes = t->n_nodes < 64 ? t->n_nodes : 64;
	memcpy(r->nodes, t->nodes, sizeof(int) * (size_t)r->n_nodes);
	for (i = 0; i < r->n_nodes * r->n_nodes; i++)
		r->matrix_ns[i] = r->matrix_median_ns[i] = NAN;
	if (!o->matrix)
		goto out;
	if (t->n_nodes == 1)
		snprintf(r->matrix_note, sizeof(r->matrix_note),
			 "this machine has one NUMA node: the matrix is the one pair (%d,%d); "
			 "remote latency cannot be measured here", t->nodes[0], t->nodes[0]);
	bench_buf_free(&b);
	budget = o->time_s * (1 - sweep_share) / (r->n_nodes * r->n_nodes);
	for (i = 0; i < r->n_nodes; i++) {
		int idx[1];

		if (bench_topo_node_cpus(t, r->nodes[i], idx, 1) < 1) {
			bench_addf(r->matrix_note, sizeof(r->matrix_note),
				   "%snode %d has no CPU we may use", *r->matrix_note ? "; " : "",
				   r->nodes[i]);
			continue;
		}
		if ((ret = bench_bind_self(t->cpus[idx[0]], err)))
			goto out;
		for (j = 0; j < r->n_nodes; j++) {
			bench_progress(o, "latency", sweep_share + (1 - sweep_share) *
				       (i * r->n_nodes + j) / (r->n_nodes * r->n_nodes),
				       "matrix CPU node %d, memory node %d", r->nodes[i], r->nodes[j]);
			if ((ret = dram_cell(&b, max, r->nodes[j], j, budget, o,
					     &r->matrix_ns[i * r->n_nodes + j],
					     &r->matrix_median_ns[i * r->n_nodes + j], err)))
				goto out;
			if (!isnan(r->matrix_ns[i * r->n_nodes + j]))
				spread[ns++] = (r->matrix_median_ns[i * r->n_nodes + j] /
						r->matrix_ns[i * r->n_nodes + j] - 1) * 100;
			bench_buf_describe(&b, desc, sizeof(desc));
			bench_addf(r->bound, sizeof(r->bound),
				   "\nmatrix (%d,%d): chaser on CPU %d; memory %s", r->nodes[i],
				   r->nodes[j], t->cpus[idx[0]], desc);
			bench_buf_free(&b);
		}
	}
out:
	if (ns)
		r->sample_spread_pct = bench_median(spread, ns);
	bench_buf_free(&b);
	bench_affinity_restore(&aff);
	bench_progress(o, "latency", 1, "done");
	return ret;
}

double bench_idle_of(const struct bench_topo *t, const struct lat_result *r)
{
	int i;

	for (i = 0; i < r->n_nodes; i++)
		if (r->nodes[i] == t->cpu_node[0] && !isnan(r->matrix_ns[i * r->n_nodes + i]))
			return r->matrix_ns[i * r->n_nodes + i];
	return r->dram_ns;
}

void bench_opts_default(struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->time_s = 10;
	o->huge = true;
	o->isa = -1;
	o->seed = 0x5eed;
	o->idle_ns = NAN;
}

double bench_dram_chase_ns(const struct bench_topo *t, const struct bench_opts *o, double budget_s,
			   double *median, size_t *bytes, struct vp_err *err)
{
	struct bench_affinity aff;
	struct bench_buf b = { 0 };
	size_t max = bench_dram_bytes(t, o);
	double best = NAN;
	int j;

	*median = NAN;
	*bytes = max;
	for (j = 0; j < t->n_nodes - 1 && t->nodes[j] != t->cpu_node[0]; j++)
		;
	bench_affinity_save(&aff);
	if (!bench_bind_self(t->cpus[0], err))
		dram_cell(&b, max, t->cpu_node[0], j, budget_s, o, &best, median, err);
	bench_buf_free(&b);
	bench_affinity_restore(&aff);
	return best;
}
