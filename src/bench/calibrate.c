/* calibrate.c - measure what the diagnosis needs and fill a struct calib */
#include "bench/internal.h"

#include <errno.h>
#include <math.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/timeutil.h"

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

/* The parts of a calibration, each measured on its own so a failed check redoes only its own. */
enum cal_part { PART_LAT = 1, PART_BW = 2, PART_LOADED = 4, PART_C2C = 8, PART_QUEUE = 16,
		PART_MIGRATE = 32 };

static unsigned part_of(enum calib_key k)
{
	switch (k) {
	case CAL_LAT_LOCAL_NS: case CAL_LAT_REMOTE_NS:
	case CAL_LAT_L1_NS: case CAL_LAT_L2_NS: case CAL_LAT_LLC_NS:
		return PART_LAT;
	case CAL_PEAK_BW_GBS: case CAL_REMOTE_BW_GBS:
		return PART_BW;
	case CAL_LAT_LOADED_NS: case CAL_BW_KNEE_GBS:
		return PART_LOADED;
	case CAL_LAT_C2C_LOCAL_NS: case CAL_LAT_C2C_REMOTE_NS:
		return PART_C2C;
	case CAL_QUEUE_DEPTH:
		return PART_QUEUE;
	case CAL_MIGRATE_GBS:
		return PART_MIGRATE;
	default:
		return 0;
	}
}

struct cal_work {
	const struct bench_topo *t;
	struct bench_opts so;
	struct lat_result lr;
	struct bw_result br;
	struct sharing_result sr;
	struct queue_result qr;
	double spread_pct;         /* the latency samples' spread of the last latency part */
};

static int part_lat(struct cal_work *w, struct calib *c, double scale, struct vp_err *err)
{
	const struct bench_topo *t = w->t;
	const char *one_node = "one NUMA node: no remote memory to measure";
	int n = c->n_nodes, i, j, ret;

	w->so.matrix = true;
	w->so.time_s = w->so.time_s * 0.3 * scale;
	memset(&w->lr, 0, sizeof(w->lr));
	if ((ret = bench_latency(t, &w->so, &w->lr, err)))
		return ret;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			c->lat_ns[i * n + j] = w->lr.matrix_ns[i * w->lr.n_nodes + j];
	calib_set(c, CAL_LAT_LOCAL_NS, matrix_mean(c->lat_ns, n, true),
		  "the latency matrix has no local cell");
	calib_set(c, CAL_LAT_REMOTE_NS, matrix_mean(c->lat_ns, n, false),
		  n == 1 ? one_node : "no remote cell of the latency matrix was measured");
	level_value(c, CAL_LAT_L1_NS, &w->lr, "L1");
	level_value(c, CAL_LAT_L2_NS, &w->lr, "L2");
	level_value(c, CAL_LAT_LLC_NS, &w->lr, t->llc_bytes > t->l2_bytes ? "L3" : "L2");
	w->spread_pct = w->lr.sample_spread_pct;
	return 0;
}

static int part_bw(struct cal_work *w, struct calib *c, double scale, struct vp_err *err)
{
	const struct bench_topo *t = w->t;
	struct stream_pools pools;
	int n = c->n_nodes, i, j, ret;
	double v = NAN;

	w->so.time_s = w->so.time_s * 0.15 * scale;
	memset(&w->br, 0, sizeof(w->br));
	stream_pools_init(&pools, bench_dram_bytes(t, &w->so) *
			  (size_t)(t->n_llc > 0 ? t->n_llc : 1), w->so.huge);
	ret = bench_bw_matrix(t, &w->so, &w->br, &pools, w->so.time_s / (n * n), 0, 1, err);
	stream_pools_release(&pools);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++)
			c->bw_gbs[i * n + j] = w->br.matrix_gbs[i * w->br.n_nodes + j];
		c->peak_bw_node_gbs[i] = c->bw_gbs[i * n + i];
	}
	for (i = 0; i < n; i++)
		if (!isnan(c->peak_bw_node_gbs[i]) && (isnan(v) || c->peak_bw_node_gbs[i] > v))
			v = c->peak_bw_node_gbs[i];
	calib_set(c, CAL_PEAK_BW_GBS, v, "no node's local bandwidth was measured");
	calib_set(c, CAL_REMOTE_BW_GBS, matrix_mean(c->bw_gbs, n, false),
		  n == 1 ? "one NUMA node: no remote memory to measure" :
		  "no remote cell of the bandwidth matrix was measured");
	return 0;
}

/* The loaded-latency curve; its idle point is the run's idle figure (the latency part's). */
static int part_loaded(struct cal_work *w, struct calib *c, double scale, struct vp_err *err)
{
	const struct bench_topo *t = w->t;
	int i, ret, row = 0;

	for (i = 0; i < c->n_nodes; i++)
		if (c->node_ids[i] == t->cpu_node[0])
			row = i;
	w->so.time_s = w->so.time_s * 0.25 * scale;
	w->so.idle_ns = c->lat_ns[row * c->n_nodes + row];
	memset(&w->br, 0, sizeof(w->br));
	if ((ret = bench_loaded_latency(t, &w->so, &w->br, err)))
		return ret;
	free(c->loaded);
	c->loaded = xcalloc((size_t)w->br.n_loaded + 1, sizeof(*c->loaded));
	c->n_loaded = (size_t)w->br.n_loaded;
	for (i = 0; i < w->br.n_loaded; i++)
		c->loaded[i] = (struct calib_point){ w->br.loaded[i].threads, w->br.loaded[i].bw_gbs,
						     w->br.loaded[i].lat_ns };
	return 0;
}

/* Loaded latency and the knee, from the curve and the one idle figure. */
static void loaded_values(struct calib *c)
{
	double idle = c->n_loaded ? c->loaded[0].lat_ns : NAN;
	size_t i, top = 1;

	if (c->n_loaded < 2) {
		calib_set(c, CAL_LAT_LOADED_NS, NAN, "one CPU: no thread to make load with");
		calib_set(c, CAL_BW_KNEE_GBS, NAN, "one CPU: no thread to make load with");
		return;
	}
	for (i = 2; i < c->n_loaded; i++)
		if (c->loaded[i].bw_gbs > c->loaded[top].bw_gbs)
			top = i;
	calib_set(c, CAL_LAT_LOADED_NS, c->loaded[top].lat_ns, "the chaser measured nothing");
	calib_set(c, CAL_BW_KNEE_GBS, NAN,
		  "loaded latency never rose 50 % over idle on the measured curve");
	for (i = 1; i < c->n_loaded && !isnan(idle); i++) {
		const struct calib_point *a = &c->loaded[i - 1], *b = &c->loaded[i];
		double f = (1.5 * idle - a->lat_ns) / (b->lat_ns - a->lat_ns);
		char why[CALIB_REASON_MAX];

		if (b->lat_ns < 1.5 * idle)
			continue;
		if (i == 1) {   /* between no load and the lightest: not measured, not placed */
			snprintf(why, sizeof(why), "loaded latency had already risen 50 %% over idle "
				 "at the lightest load measured (%.2f GB/s): the knee is below it, "
				 "where the curve has no point", b->bw_gbs);
			calib_set(c, CAL_BW_KNEE_GBS, NAN, why);
		} else {
			calib_set(c, CAL_BW_KNEE_GBS, a->bw_gbs + f * (b->bw_gbs - a->bw_gbs), NULL);
		}
		break;
	}
}

static int part_c2c(struct cal_work *w, struct calib *c, double scale, struct vp_err *err)
{
	int ret;

	w->so.time_s = w->so.time_s * 0.1 * scale;
	memset(&w->sr, 0, sizeof(w->sr));
	if ((ret = bench_c2c(w->t, &w->so, NULL, 0, &w->sr, err)))
		return ret;
	calib_set(c, CAL_LAT_C2C_LOCAL_NS, w->sr.c2c_in_pkg_ns, w->sr.c2c_note);
	calib_set(c, CAL_LAT_C2C_REMOTE_NS, w->sr.c2c_cross_pkg_ns, w->sr.c2c_note);
	return 0;
}

static int part_queue(struct cal_work *w, struct calib *c, double scale, struct vp_err *err)
{
	int ret;

	w->so.time_s = w->so.time_s * 0.2 * scale;
	memset(&w->qr, 0, sizeof(w->qr));
	if ((ret = bench_queue(w->t, &w->so, &w->qr, err)))
		return ret;
	calib_set(c, CAL_QUEUE_DEPTH, w->qr.knee_k >= 0 ? w->qr.knee_k : NAN, w->qr.note);
	return 0;
}

#define MIGRATE_BYTES (64u << 20)   /* 16384 pages of 4 KiB */
#define MIGRATE_ROUNDS 3

/* move_pages of every page of buf to node; how many landed there, -1 with errno. */
static long move_all(void **pages, int *nodes, int *status, size_t n, int node)
{
	size_t i;
	long ok = 0;

	for (i = 0; i < n; i++)
		nodes[i] = node;
	if (move_pages(0, (unsigned long)n, pages, nodes, status, MPOL_MF_MOVE))
		return -1;
	for (i = 0; i < n; i++)
		ok += status[i] == node;
	return ok;
}

/*
 * The page migration rate: 64 MiB of 4 KiB pages (THP off for the buffer),
 * placed on the first node, then moved with move_pages between the first
 * two nodes, MIGRATE_ROUNDS times each way, one thread; the fastest round
 * (the others had more interference).  What migratepages does for a VM's
 * memory, whose guest RAM may be THP (faster) or 4 KiB pages.
 */
static int part_migrate(struct cal_work *w, struct calib *c, double scale, struct vp_err *err)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = MIGRATE_BYTES / pg, i;
	void **pages;
	int *nodes, *status, r;
	char *buf, why[CALIB_REASON_MAX];
	double best = NAN;
	long moved;

	(void)w;
	(void)scale;
	(void)err;
	if (c->n_nodes < 2) {
		calib_set(c, CAL_MIGRATE_GBS, NAN, "one NUMA node: no page to move between nodes");
		return 0;
	}
	buf = mmap(NULL, MIGRATE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		snprintf(why, sizeof(why), "cannot map %u MiB to move: %s", MIGRATE_BYTES >> 20,
			 strerror(errno));
		calib_set(c, CAL_MIGRATE_GBS, NAN, why);
		return 0;
	}
	(void)madvise(buf, MIGRATE_BYTES, MADV_NOHUGEPAGE);
	pages = xcalloc(n, sizeof(*pages));
	nodes = xcalloc(n, sizeof(*nodes));
	status = xcalloc(n, sizeof(*status));
	for (i = 0; i < n; i++) {
		buf[i * pg] = (char)i;
		pages[i] = buf + i * pg;
	}
	moved = move_all(pages, nodes, status, n, c->node_ids[0]);
	for (r = 0; moved >= 0 && r < 2 * MIGRATE_ROUNDS; r++) {
		int to = c->node_ids[(r + 1) % 2];
		uint64_t t0 = vp_now_ns(), dt;

		moved = move_all(pages, nodes, status, n, to);
		dt = vp_now_ns() - t0;
		if (moved < 0)
			break;
		if ((size_t)moved < n * 9 / 10) {   /* not the rate of a whole move */
			snprintf(why, sizeof(why), "move_pages moved only %ld of %zu pages to node %d "
				 "(is its memory free?)", moved, n, to);
			calib_set(c, CAL_MIGRATE_GBS, NAN, why);
			goto out;
		}
		if (dt > 0 && (isnan(best) || (double)moved * (double)pg / (double)dt > best))
			best = (double)moved * (double)pg / (double)dt; /* bytes per ns = GB/s */
	}
	if (moved < 0) {
		snprintf(why, sizeof(why), "move_pages between nodes %d and %d failed: %s",
			 c->node_ids[0], c->node_ids[1], strerror(errno));
		calib_set(c, CAL_MIGRATE_GBS, NAN, why);
	} else {
		calib_set(c, CAL_MIGRATE_GBS, best, "no round of move_pages was timed");
	}
out:
	free(pages);
	free(nodes);
	free(status);
	munmap(buf, MIGRATE_BYTES);
	return 0;
}

int bench_calibrate(const struct bench_topo *t, const struct bench_opts *o, struct calib *c,
		    int max_tries, struct calib_checks *chk, struct vp_err *err)
{
	static int (*const parts[])(struct cal_work *, struct calib *, double, struct vp_err *) = {
		part_lat, part_bw, part_loaded, part_c2c, part_queue, part_migrate,
	};
	struct cal_work *w = xcalloc(1, sizeof(*w));
	unsigned todo = PART_LAT | PART_BW | PART_LOADED | PART_C2C | PART_QUEUE | PART_MIGRATE;
	int n, i, ret = 0, try;
	size_t v;

	calib_init(c);
	c->machine = t->machine;
	n = t->n_nodes < 64 ? t->n_nodes : 64;
	calib_set_nodes(c, n, t->nodes);
	w->t = t;
	w->spread_pct = NAN;
	memset(chk, 0, sizeof(*chk));
	for (try = 1; try <= (max_tries > 0 ? max_tries : 1); try++) {
		/* each retry samples twice as long as the one before */
		double scale = (double)(1u << (try - 1));

		for (i = 0; i < (int)VP_ARRAY_SIZE(parts); i++) {
			if (!(todo & (1u << i)))
				continue;
			w->so = *o;
			if ((ret = parts[i](w, c, scale, err)))
				goto out;
		}
		loaded_values(c);
		if (!calib_check(c, chk) || bench_stopped(o))
			break;
		todo = 0;
		for (v = 0; v < chk->n && v < CALIB_VIOLATION_MAX; v++) {
			todo |= part_of(chk->v[v].key);
			if (chk->v[v].other != CAL_N)
				todo |= part_of(chk->v[v].other);
		}
		if (todo & PART_LAT)   /* the curve's idle point is the latency part's */
			todo |= PART_LOADED;
		if (try < max_tries)
			bench_progress(o, "calibrate", 0, "%zu check%s failed (%s): measuring again, "
				       "sampling %.0fx as long", chk->n, chk->n == 1 ? "" : "s",
				       chk->v[0].why, scale * 2);
	}
	/* quality: the checks, then the samples' spread of the latencies */
	for (i = 0; i < CAL_N; i++) {
		if (isnan(c->val[i]))
			continue;
		if (calib_checks_name(chk, (enum calib_key)i))
			c->quality[i] = CALQ_IMPLAUSIBLE;
		else if (!isnan(w->spread_pct) && w->spread_pct > BENCH_QUIET_PCT &&
			 (part_of((enum calib_key)i) & (PART_LAT | PART_LOADED)))
			c->quality[i] = CALQ_NOISY;
	}
out:
	free(w);
	return ret;
}
