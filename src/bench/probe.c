/* probe.c - inside a guest: infer shared caches/sockets and remote memory from timings */
#include "bench/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int uf_find(int *parent, int i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

/*
 * Group CPUs whose pairwise latency is below the widest gap (ratio >= 1.3)
 * in the sorted pair latencies (one cut: LLC/socket against the rest).
 */
static void cluster(struct probe_result *r)
{
	int n = r->c2c.n_cpus, i, j, m = 0, parent[256], label[256];
	double v[256 * 16], gap = 1, split = NAN;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n && m < (int)(sizeof(v) / sizeof(v[0])); j++)
			if (!isnan(r->c2c.c2c_ns[i * n + j]))
				v[m++] = r->c2c.c2c_ns[i * n + j];
	bench_median(v, m);   /* sorts */
	for (i = 1; i < m; i++)
		if (v[i - 1] > 0 && v[i] / v[i - 1] > gap) {
			gap = v[i] / v[i - 1];
			split = sqrt(v[i] * v[i - 1]);
		}
	for (i = 0; i < n; i++)
		parent[i] = i;
	r->split_ns = NAN;
	if (m < 2) {
		snprintf(r->group_note, sizeof(r->group_note),
			 "%d vCPU pair%s: no contrast to cluster by; all vCPUs taken as one group",
			 m, m == 1 ? "" : "s");
	} else if (gap < 1.3) {
		snprintf(r->group_note, sizeof(r->group_note),
			 "all pair latencies within %.0f %% of each other (%.0f-%.0f ns): one group, "
			 "no sign of separate LLCs or sockets", (v[m - 1] / v[0] - 1) * 100, v[0],
			 v[m - 1]);
	} else {
		r->split_ns = split;
	}
	for (i = 0; i < n; i++)   /* one group unless a split was found: as the note says */
		for (j = i + 1; j < n; j++)
			if (isnan(r->split_ns) || r->c2c.c2c_ns[i * n + j] < split)
				parent[uf_find(parent, i)] = uf_find(parent, j);
	if (!isnan(r->split_ns)) {
		snprintf(r->group_note, sizeof(r->group_note),
			 "pair latencies split at %.0f ns (a %.1fx gap): pairs below it share an LLC "
			 "or socket", split, gap);
	}
	for (i = 0; i < n; i++)
		label[i] = -1;
	r->n_groups = 0;
	for (i = 0; i < n; i++) {
		int root = uf_find(parent, i);

		if (label[root] < 0)
			label[root] = r->n_groups++;
		r->group_of[i] = label[root];
	}
}

/*
 * A cache line moves between two cores faster than a load from DRAM: a
 * core-to-core figure at or above the fastest DRAM latency measured means
 * the vCPUs did not run at once (time-shared, or the host is busy), and
 * then the groups and remote marks are noise, not layout.
 */
static void noise(struct probe_result *r)
{
	int n = r->c2c.n_cpus, i, j, m, ci = -1, cj = -1;
	double dram = INFINITY, c2c = -INFINITY;

	r->noise[0] = 0;
	for (i = 0; i < n; i++)
		for (m = 0; m < r->n_nodes; m++)
			if (isfinite(r->mem_ns[i * 64 + m]))
				dram = fmin(dram, r->mem_ns[i * 64 + m]);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j && isfinite(r->c2c.c2c_ns[i * n + j]) && r->c2c.c2c_ns[i * n + j] > c2c) {
				c2c = r->c2c.c2c_ns[i * n + j];
				ci = r->c2c.cpus[i];
				cj = r->c2c.cpus[j];
			}
	if (ci >= 0 && isfinite(dram) && c2c >= dram)
		snprintf(r->noise, sizeof(r->noise),
			 "noise: core-to-core latency of vCPUs %d and %d, %.0f ns, is above the DRAM "
			 "latency %.0f ns, which no cache transfer is: the vCPUs did not run at once "
			 "(time-shared, or the host is busy), so the groups and remote marks are not "
			 "evidence and another run will differ", ci, cj, c2c, dram);
}

int bench_probe(const struct bench_topo *t, const struct bench_opts *o,
		struct probe_result *r, struct vp_err *err)
{
	struct bench_opts co = *o;
	struct bench_affinity aff;
	struct bench_buf b = { 0 };
	size_t bytes = bench_dram_bytes(t, o), nlines = bytes / LINE;
	int n, i, m, ret = 0, flagged = 0;
	double budget;

	memset(r, 0, sizeof(*r));
	co.time_s = o->time_s * 0.4;
	if ((ret = bench_c2c(t, &co, NULL, 0, &r->c2c, err)))
		return ret;
	cluster(r);
	n = r->c2c.n_cpus;
	r->n_nodes = t->n_nodes < 64 ? t->n_nodes : 64;
	memcpy(r->nodes, t->nodes, sizeof(int) * (size_t)r->n_nodes);
	budget = o->time_s * 0.6 / (n * r->n_nodes);
	bench_affinity_save(&aff);
	for (m = 0; m < r->n_nodes && !ret; m++) {
		double lo = INFINITY;

		if ((ret = bench_buf_alloc(&b, bytes, r->nodes[m], o->huge, err)))
			break;
		chase_build(b.p, nlines, LINE, o->seed + 31);
		for (i = 0; i < n && !bench_stopped(o); i++) {
			void *start = b.p;

			bench_progress(o, "probe", 0.4 + 0.6 * (m * n + i) / (n * r->n_nodes),
				       "vCPU %d reading node %d memory", r->c2c.cpus[i], r->nodes[m]);
			if ((ret = bench_bind_self(r->c2c.cpus[i], err)))
				break;
			r->mem_ns[i * 64 + m] = bench_chase_ns(&start, 1, nlines, budget, true, o);
			lo = fmin(lo, r->mem_ns[i * 64 + m]);
		}
		for (i = 0; i < n; i++) {
			r->remote[i * 64 + m] = r->mem_ns[i * 64 + m] > 1.25 * lo;
			flagged += r->remote[i * 64 + m];
		}
		bench_buf_free(&b);
	}
	bench_affinity_restore(&aff);
	if (!flagged)
		snprintf(r->mem_note, sizeof(r->mem_note),
			 "every vCPU reads every virtual node's memory within 25 %% of the fastest: "
			 "no vCPU looks remote%s", r->n_nodes == 1 ? " (one virtual node)" : "");
	else
		snprintf(r->mem_note, sizeof(r->mem_note),
			 "%d vCPU/node pair%s slower than 1.25x the fastest vCPU on that memory: "
			 "those vCPUs likely sit on another physical node", flagged,
			 flagged == 1 ? " is" : "s are");
	noise(r);
	bench_progress(o, "probe", 1, "done");
	return ret;
}
