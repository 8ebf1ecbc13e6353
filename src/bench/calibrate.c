/* calibrate.c - measure what the diagnosis needs and fill a struct calib */
#include "bench/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* Mean of the diagonal (local) or off it (remote); NaN when none. */
static double matrix_mean(const double *m, int n, bool diag)
{
	double s = 0;
	int i, j, k = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if ((i == j) == diag && !isnan(m[i * n + j])) {
				s += m[i * n + j];
				k++;
			}
	return k ? s / k : NAN;
}

static void level_value(struct calib *c, enum calib_key k, const struct lat_result *lr,
			const char *name)
{
	int i;

	for (i = 0; i < lr->n_levels; i++)
		if (!strcmp(lr->level_name[i], name)) {
			calib_set(c, k, lr->level[i].lat, NULL);
			return;
		}
	calib_set(c, k, NAN, "no plateau of the latency sweep matched this cache level");
}

int bench_calibrate(const struct bench_topo *t, const struct bench_opts *o, struct calib *c,
		    struct vp_err *err)
{
	struct bench_opts so = *o;
	struct lat_result *lr = xcalloc(1, sizeof(*lr));
	struct bw_result *br = xcalloc(1, sizeof(*br));
	struct sharing_result *sr = xcalloc(1, sizeof(*sr));
	struct queue_result *qr = xcalloc(1, sizeof(*qr));
	struct stream_pools pools;
	int n, i, j, ret;
	double v, idle;
	const char *one_node = "one NUMA node: no remote memory to measure";

	calib_init(c);
	c->machine = t->machine;
	n = t->n_nodes < 64 ? t->n_nodes : 64;
	calib_set_nodes(c, n, t->nodes);

	so.matrix = true;
	so.time_s = o->time_s * 0.3;
	if ((ret = bench_latency(t, &so, lr, err)))
		goto out;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			c->lat_ns[i * n + j] = lr->matrix_ns[i * lr->n_nodes + j];
	v = matrix_mean(c->lat_ns, n, true);
	calib_set(c, CAL_LAT_LOCAL_NS, v, "the latency matrix has no local cell");
	calib_set(c, CAL_LAT_REMOTE_NS, matrix_mean(c->lat_ns, n, false),
		  n == 1 ? one_node : "no remote cell of the latency matrix was measured");
	level_value(c, CAL_LAT_L1_NS, lr, "L1");
	level_value(c, CAL_LAT_L2_NS, lr, "L2");
	level_value(c, CAL_LAT_LLC_NS, lr, t->llc_bytes > t->l2_bytes ? "L3" : "L2");

	so.time_s = o->time_s * 0.15;
	stream_pools_init(&pools, bench_dram_bytes(t, o) * (size_t)(t->n_llc > 0 ? t->n_llc : 1),
			  o->huge);
	ret = bench_bw_matrix(t, &so, br, &pools, so.time_s / (n * n), 0, 1, err);
	stream_pools_release(&pools);
	if (ret)
		goto out;
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++)
			c->bw_gbs[i * n + j] = br->matrix_gbs[i * br->n_nodes + j];
		c->peak_bw_node_gbs[i] = c->bw_gbs[i * n + i];
	}
	v = NAN;
	for (i = 0; i < n; i++)
		if (!isnan(c->peak_bw_node_gbs[i]) && (isnan(v) || c->peak_bw_node_gbs[i] > v))
			v = c->peak_bw_node_gbs[i];
	calib_set(c, CAL_PEAK_BW_GBS, v, "no node's local bandwidth was measured");
	calib_set(c, CAL_REMOTE_BW_GBS, matrix_mean(c->bw_gbs, n, false),
		  n == 1 ? one_node : "no remote cell of the bandwidth matrix was measured");

	so.time_s = o->time_s * 0.25;
	if ((ret = bench_loaded_latency(t, &so, br, err)))
		goto out;
	c->loaded = xcalloc((size_t)br->n_loaded + 1, sizeof(*c->loaded));
	c->n_loaded = (size_t)br->n_loaded;
	for (i = 0; i < br->n_loaded; i++)
		c->loaded[i] = (struct calib_point){ br->loaded[i].threads, br->loaded[i].bw_gbs,
						     br->loaded[i].lat_ns };
	idle = br->idle_ns;
	if (br->n_loaded > 1) {
		int top = 1;

		for (i = 2; i < br->n_loaded; i++)
			if (br->loaded[i].bw_gbs > br->loaded[top].bw_gbs)
				top = i;
		calib_set(c, CAL_LAT_LOADED_NS, br->loaded[top].lat_ns, NULL);
		calib_set(c, CAL_BW_KNEE_GBS, NAN,
			  "loaded latency never rose 50 % over idle on the measured curve");
		for (i = 1; i < br->n_loaded; i++)
			if (br->loaded[i].lat_ns >= 1.5 * idle) {
				const struct loaded_point *a = &br->loaded[i - 1], *b = &br->loaded[i];
				double f = (1.5 * idle - a->lat_ns) / (b->lat_ns - a->lat_ns);

				calib_set(c, CAL_BW_KNEE_GBS, a->bw_gbs + f * (b->bw_gbs - a->bw_gbs),
					  NULL);
				break;
			}
	} else {
		calib_set(c, CAL_LAT_LOADED_NS, NAN, "one CPU: no thread to make load with");
		calib_set(c, CAL_BW_KNEE_GBS, NAN, "one CPU: no thread to make load with");
	}

	so.time_s = o->time_s * 0.1;
	if ((ret = bench_c2c(t, &so, NULL, 0, sr, err)))
		goto out;
	calib_set(c, CAL_LAT_C2C_LOCAL_NS, sr->c2c_in_pkg_ns, sr->c2c_note);
	calib_set(c, CAL_LAT_C2C_REMOTE_NS, sr->c2c_cross_pkg_ns, sr->c2c_note);

	so.time_s = o->time_s * 0.2;
	if ((ret = bench_queue(t, &so, qr, err)))
		goto out;
	calib_set(c, CAL_QUEUE_DEPTH, qr->knee_k >= 0 ? qr->knee_k : NAN, qr->note);
out:
	free(lr);
	free(br);
	free(sr);
	free(qr);
	return ret;
}
