/* bench.h - the five-factor benchmark: scenarios that provoke each factor, as structs */
#ifndef VP_BENCH_H
#define VP_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calib/calib.h"
#include "util/err.h"

/*
 * Every scenario runs live on this machine, binds its threads and memory
 * itself, stays within opts->time_s (roughly), reports progress through a
 * callback, and returns its figures in a caller-owned struct with a
 * `bound` text that says which thread ran where and where its pages landed.
 * Figures that cannot be measured are NaN with a reason.
 */

#define BENCH_TEXT 512
#define BENCH_MAX_POINTS 64

/* What the benchmark needs to know of the machine. */
struct bench_topo {
	int n_cpus;                /* CPUs we may run on (online and in our affinity) */
	int *cpus;                 /* n_cpus CPU numbers, ascending */
	int *cpu_node;             /* NUMA node of cpus[i] */
	int *cpu_pkg;              /* package of cpus[i] */
	int *cpu_llc;              /* index of the LLC of cpus[i] */
	int n_nodes;               /* nodes with memory */
	int *nodes;                /* their ids, ascending */
	int n_pkgs;
	int n_llc;
	uint64_t l1d_bytes, l2_bytes, llc_bytes; /* one instance of each; 0 unknown */
	bool thp;                  /* transparent huge pages usable with madvise */
	char thp_mode[32];         /* /sys/kernel/mm/transparent_hugepage/enabled choice */
	bool avx2, avx512;         /* CPU features for the bandwidth kernels */
	struct calib_machine machine;
};

/* Fill t from platform_probe() of this machine, limited to our CPU affinity.
 * Release with bench_topo_release(). */
int bench_topo_probe(struct bench_topo *t, struct vp_err *err);
struct platform;
/* The same from a probed platform (any root: fixture trees in tests);
 * allowed (a cpu_set_t *, may be NULL) limits the CPUs. */
int bench_topo_from_platform(struct bench_topo *t, const struct platform *p,
			     const void *allowed, struct vp_err *err);
void bench_topo_release(struct bench_topo *t);
/* CPUs of node id (indexes into t->cpus written to out, at most max); count returned. */
int bench_topo_node_cpus(const struct bench_topo *t, int node, int *out, int max);

typedef void (*bench_progress_fn)(void *ctx, const char *scenario, double frac,
				  const char *what);

struct bench_opts {
	double time_s;             /* budget for one scenario, seconds */
	bool quick;                /* fewer points, smaller sweeps */
	bool huge;                 /* madvise(MADV_HUGEPAGE) the buffers */
	bool matrix;               /* latency: also the CPU-node x memory-node matrix */
	int isa;                   /* enum bw_isa, or -1 for the best the CPU has */
	uint64_t seed;
	bench_progress_fn progress; /* may be NULL */
	void *progress_ctx;
	volatile int *stop;        /* set non-zero (e.g. by SIGINT) to end early; may be NULL */
	size_t dram_bytes;         /* working set that stands for DRAM; 0: 4x the LLC (2x quick) */
	/*
	 * The run's one idle DRAM latency (BENCH_IDLE_DEFINITION) when an
	 * earlier scenario of the same run measured it; NaN: a scenario that
	 * needs it measures it itself, the same way.
	 */
	double idle_ns;
};

/*
 * Idle DRAM latency, the one definition of bench, calibrate and probe: the
 * fastest of 12 samples of a dependent random pointer chase over the DRAM
 * working set (bench_dram_bytes()), CPU and memory on one node (other
 * tenants only ever add time).  Its noise is how far the median of the
 * samples sits above that best: above BENCH_QUIET_PCT per cent, the run's
 * figures are noise-bound and a next run will differ by about as much.
 */
#define BENCH_IDLE_DEFINITION "fastest of 12 samples of a dependent random chase over the DRAM working set, CPU and memory on one node"
#define BENCH_QUIET_PCT 3

void bench_opts_default(struct bench_opts *o);

/* --- pure parts (tested offline) --- */

/*
 * Lay a random single cycle through nlines lines of stride bytes in buf:
 * the first word of each line points to the next line.  The lines are
 * put in a random order (Fisher-Yates) and linked in that order, last to
 * first, so every line is visited once per lap.  Deterministic in seed.
 */
void chase_build(void *buf, size_t nlines, size_t stride, uint64_t seed);
/* Follow the chain steps times from p; returns where it ended. */
void *chase_walk(void *p, uint64_t steps);

/* One plateau of a latency curve. */
struct curve_level {
	double lat;                /* median of the plateau, ns */
	double from, to;           /* first and last working-set size on it, bytes */
	int first, last;           /* point indexes */
};

/*
 * Plateaus of a latency-vs-size curve (x ascending): runs of >= 2 points
 * whose max/min <= 1 + tol, adjacent ones merged when within tol.  Returns
 * how many were written to out (at most max).
 */
int curve_levels(const double *x, const double *y, int n, double tol,
		 struct curve_level *out, int max);

/*
 * Knee of a rising-then-flat curve (x ascending) by the Kneedle method:
 * the point farthest above the chord from the first point to the highest.
 * When no point stands out (normalised distance < min_dist: a straight
 * rise), the highest point is the knee if the curve flattens after it.
 * Returns its index, or -1 when the curve has < 3 points, rises less than
 * 10 % overall, or is still rising at its end.
 */
int curve_knee(const double *x, const double *y, int n, double min_dist);

/*
 * The knee of a scaling curve: y[i] is the per-core throughput with the
 * i-th core count running at once (ascending; y[0] the fewest, best one).
 * While the shared trackers have room each added core keeps the rate it
 * has alone; past the knee the cores share a fixed capacity and each one's
 * rate falls.  Efficiency e[i] = y[i] / y[0], smoothed by a three-point
 * median (the ends by the median of the first / last three), so a single
 * noisy sample moves nothing; the knee is the last point before e falls
 * below 1 - tol and stays below to the end.  Returns its index, or -1 when
 * there are fewer than 3 points, y[0] is not a positive number, or the
 * efficiency never stays below 1 - tol (still scaling: no knee).
 */
int scaling_knee(const double *y, int n, double tol);

/* Median of n values (array reordered); NaN for n = 0. */
double bench_median(double *v, int n);

/* --- bandwidth kernels --- */

enum bw_isa { BW_ISA_SCALAR, BW_ISA_SSE2, BW_ISA_AVX2, BW_ISA_AVX512, BW_ISA_N };
enum bw_kernel { BW_READ, BW_WRITE, BW_WRITE_NT, BW_COPY, BW_TRIAD, BW_KERNEL_N };

const char *bw_isa_name(int isa);
const char *bw_kernel_name(int k);
int bw_isa_lookup(const char *name);          /* -1 unknown */
int bw_kernel_lookup(const char *name);       /* -1 unknown */
/* Best ISA the CPU runs (and this build has); the chosen one when isa >= 0 and usable, else -1. */
int bw_isa_pick(int isa);
/* Bytes the kernel moves per element byte of one array (read 1, copy 2, triad 3). */
int bw_kernel_bytes_factor(int k);
/*
 * Run kernel k once over n bytes (a multiple of 256; arrays 64-byte
 * aligned).  a is written (write, copy dst, triad dst); b, c are read.
 * Returns a checksum for read so the loads are not optimised away.
 */
uint64_t bw_kernel_run(int isa, int k, void *a, const void *b, const void *c, size_t n);

/* --- memory and threads --- */

struct bench_buf {
	void *p;
	size_t len;
	int node;                  /* bound node, -1 default policy */
	bool huge_advised;         /* madvise(MADV_HUGEPAGE) succeeded */
};

/* mmap len bytes, bind them to node (mbind MPOL_BIND; -1 none), advise huge pages, fault them in. */
int bench_buf_alloc(struct bench_buf *b, size_t len, int node, bool huge, struct vp_err *err);
void bench_buf_free(struct bench_buf *b);
/*
 * Where the pages of b are (move_pages query, sampled): counts per node id
 * into per_node[0..max_node] and the number sampled; 0 or negative code.
 */
int bench_buf_where(const struct bench_buf *b, int *per_node, int max_node, int *sampled,
		    struct vp_err *err);
/* Bytes of b backed by transparent huge pages (from /proc/self/smaps), -1 unknown. */
long long bench_buf_huge_bytes(const struct bench_buf *b);
/* "memory bound to node 0 (mbind), 512/512 sampled pages on node 0, 128 MiB in huge pages" */
void bench_buf_describe(const struct bench_buf *b, char *out, size_t size);
/* Pin the calling thread to cpu. */
int bench_bind_self(int cpu, struct vp_err *err);

/* --- scenarios --- */

struct lat_point {
	double bytes;              /* working set */
	double ns;                 /* per dependent load, the best of its samples */
	double median_ns;          /* the median of the same samples */
};

struct lat_result {
	int n_points;
	struct lat_point pt[BENCH_MAX_POINTS];
	int n_levels;
	struct curve_level level[8];
	char level_name[8][24];    /* "L1", "L2", "L3", "DRAM" */
	double dram_ns;            /* the last plateau beyond the LLC; NaN if none */
	char dram_reason[BENCH_TEXT]; /* why NaN, or a note on what the curve shows */
	/* matrix: [cpu node][memory node], when opts->matrix */
	int n_nodes;
	int nodes[64];
	double matrix_ns[64 * 64];
	double matrix_median_ns[64 * 64]; /* the median of each cell's samples */
	char matrix_note[BENCH_TEXT];  /* why only one pair, or "" */
	/*
	 * How far the samples of the DRAM figures (sweep points beyond twice the
	 * LLC, matrix cells) sit above their best: the median over those figures
	 * of (median / best - 1) x 100.  A quiet machine keeps it to a few per cent;
	 * more says other work moved the figures in this run, and a next run
	 * will differ by about as much.  NaN without a DRAM figure.
	 */
	double sample_spread_pct;
	char bound[BENCH_TEXT * 4];
};
int bench_latency(const struct bench_topo *t, const struct bench_opts *o,
		  struct lat_result *r, struct vp_err *err);
/*
 * The run's idle DRAM latency (BENCH_IDLE_DEFINITION) from a latency
 * result: the matrix cell of CPU 0's node when the matrix was measured,
 * else the DRAM plateau of the sweep; NaN when neither.
 */
double bench_idle_of(const struct bench_topo *t, const struct lat_result *r);

struct bw_cell { int threads; double gbs[BW_KERNEL_N]; };
struct loaded_point {
	int threads;               /* streaming threads */
	double delay_ns;           /* pause per 64 KiB block of each streamer (0 = flat out) */
	double bw_gbs;             /* their bandwidth */
	double lat_ns;             /* the chaser's latency meanwhile */
};
struct bw_result {
	int isa;
	size_t bytes_per_thread;
	int n_sweep;
	struct bw_cell sweep[BENCH_MAX_POINTS]; /* threads 1..n on node of CPU 0 */
	int n_nodes;
	int nodes[64];
	double matrix_gbs[64 * 64]; /* read, all CPUs of the CPU node, memory on the memory node */
	char matrix_note[BENCH_TEXT];
	int n_loaded;
	struct loaded_point loaded[BENCH_MAX_POINTS];
	double idle_ns;
	bool idle_from_run;        /* idle_ns is the run's figure (bench_opts.idle_ns), not measured here */
	char bound[BENCH_TEXT * 4];
};
int bench_bandwidth(const struct bench_topo *t, const struct bench_opts *o,
		    struct bw_result *r, struct vp_err *err);
/*
 * One kernel of the sweep alone: nthr threads on the first CPUs of the first
 * node, for window_s; its GB/s (counted as the sweep counts) and each
 * thread's array bytes.  For `verify`, beside a peer tool.
 */
int bench_kernel_gbs(const struct bench_topo *t, const struct bench_opts *o, int kernel, int nthr,
		     double window_s, double *gbs, size_t *array_bytes, struct vp_err *err);
/*
 * The matrix's own-node DRAM cell alone: the chaser on the first CPU, its
 * node's memory, budget_s; the best of the samples (the figure), their
 * median in *median, the buffer in *bytes.  NaN on failure (err set).
 */
double bench_dram_chase_ns(const struct bench_topo *t, const struct bench_opts *o, double budget_s,
			   double *median, size_t *bytes, struct vp_err *err);
/* Loaded latency only (used by calibrate). */
int bench_loaded_latency(const struct bench_topo *t, const struct bench_opts *o,
			 struct bw_result *r, struct vp_err *err);

struct llc_result {
	double ws_bytes;           /* the victim's working set */
	double alone_ns;
	int n_points;
	int corunners[BENCH_MAX_POINTS];
	double ns[BENCH_MAX_POINTS];
	double slowdown[BENCH_MAX_POINTS]; /* ns / alone_ns */
	double slowdown_per_corunner;      /* slope of slowdown - 1 over co-runners; NaN if none */
	char note[BENCH_TEXT];
	char bound[BENCH_TEXT * 2];
};
int bench_llc(const struct bench_topo *t, const struct bench_opts *o, struct llc_result *r,
	      struct vp_err *err);

struct sharing_result {
	int n_cpus;
	int cpus[256];
	double c2c_ns[256 * 256];  /* one-way, round trip / 2; NaN on the diagonal */
	double c2c_in_pkg_ns;      /* median over pairs in one package, NaN none */
	double c2c_cross_pkg_ns;   /* across packages, NaN none */
	char c2c_note[BENCH_TEXT];
	int threads;               /* for the sharing kinds */
	double true_ns, false_ns, padded_ns; /* per increment per thread */
	double false_slowdown, true_slowdown; /* vs padded */
	double cpu_share;          /* false sharing: least CPU time / wall time of a thread */
	char note[BENCH_TEXT];
	char bound[BENCH_TEXT];
};
int bench_sharing(const struct bench_topo *t, const struct bench_opts *o,
		  struct sharing_result *r, struct vp_err *err);
/* Core-to-core part only (probe, calibrate); cpus NULL = all. */
int bench_c2c(const struct bench_topo *t, const struct bench_opts *o, const int *cpus, int n,
	      struct sharing_result *r, struct vp_err *err);

struct imc_result {
	int n_points;
	int threads[BENCH_MAX_POINTS];
	double packed_gbs[BENCH_MAX_POINTS];   /* total, all threads on node nodes[0] */
	double spread_gbs[BENCH_MAX_POINTS];   /* total, threads round-robin over nodes */
	int knee_threads;          /* -1 none */
	char knee_note[BENCH_TEXT];
	char spread_note[BENCH_TEXT];
	char bound[BENCH_TEXT * 2];
};
int bench_imc(const struct bench_topo *t, const struct bench_opts *o, struct imc_result *r,
	      struct vp_err *err);

struct queue_result {
	int n_points;
	int k[BENCH_MAX_POINTS];
	double ns_per_step[BENCH_MAX_POINTS];  /* time per lap of the k chains */
	double rate[BENCH_MAX_POINTS];         /* misses per microsecond */
	int knee_k;                /* -1 none */
	double mlp;                /* highest rate / rate at k = 1 */
	char note[BENCH_TEXT];
	char bound[BENCH_TEXT * 2];
	/* the shared-tracker scenario (bench_queue_cores): core_k chains on each
	 * of 1..n CPUs of one package at once, memory on their node */
	int core_k;                /* chains per core; 0: the scenario did not run */
	int core_pkg;              /* the package */
	int n_core_points;
	int cores[BENCH_MAX_POINTS];
	double core_rate[BENCH_MAX_POINTS];    /* misses per microsecond of one core, mean */
	double core_ns[BENCH_MAX_POINTS];      /* one miss's latency (ns per step), mean */
	double total_rate[BENCH_MAX_POINTS];   /* misses per microsecond of all of them */
	double tracker_full[BENCH_MAX_POINTS]; /* share of time full, NaN: not counted */
	int knee_cores;            /* the last core count that still scaled; -1 none */
	char core_note[BENCH_TEXT];
	char tracker_note[BENCH_TEXT];         /* why tracker_full is n/a */
	char core_bound[BENCH_TEXT * 2];
};
int bench_queue(const struct bench_topo *t, const struct bench_opts *o,
		struct queue_result *r, struct vp_err *err);

/*
 * Counts taken around each point of the shared-tracker scenario (a front
 * end's: the library does not choose a model).  start() before the cores
 * run (0, or -1 with *why set: nothing counted at that point), stop() after:
 * the share of time the shared trackers were full over that window, or NaN
 * with *why set (static or ctx-owned text).
 */
struct bench_tracker_hook {
	int (*start)(void *ctx, const char **why);
	double (*stop)(void *ctx, const char **why);
	void *ctx;
};

/*
 * The shared-tracker scenario: k chains (r->knee_k from bench_queue when it
 * found one, else 8) on each of 1, 2, ... CPUs of the package of the first
 * CPU, at once, their chains spread over one cycle in DRAM of that CPU's
 * node.  Per-core miss rate and latency at each core count; the knee
 * (scaling_knee) is where the shared trackers stop taking more misses.
 * hook may be NULL (tracker_full n/a, tracker_note says so).
 */
int bench_queue_cores(const struct bench_topo *t, const struct bench_opts *o,
		      const struct bench_tracker_hook *hook, struct queue_result *r,
		      struct vp_err *err);

/* Guest probe: what the hypervisor hides, inferred. */
struct probe_result {
	struct sharing_result c2c;
	int n_groups;              /* vCPU clusters by core-to-core latency */
	int group_of[256];         /* indexed like c2c.cpus */
	double split_ns;           /* the latency gap that separates groups; NaN one group */
	char group_note[BENCH_TEXT];
	int n_nodes;               /* virtual nodes with memory */
	int nodes[64];
	double mem_ns[256 * 64];   /* [vCPU index][virtual memory node] */
	bool remote[256 * 64];     /* this vCPU looks remote from that node's memory */
	char mem_note[BENCH_TEXT];
	char noise[BENCH_TEXT];    /* why these figures are noise, or "" */
};
int bench_probe(const struct bench_topo *t, const struct bench_opts *o,
		struct probe_result *r, struct vp_err *err);

/*
 * Fill c from measurements; created/tool are the caller's (CLI) to set.
 * The result is checked (calib_check()); the parts whose values fail are
 * measured again, each try sampling twice as long as the one before, up to
 * max_tries in all.  *chk holds what still fails after the last try (n = 0:
 * plausible); those values have quality CALQ_IMPLAUSIBLE, latencies whose
 * samples spread over BENCH_QUIET_PCT CALQ_NOISY.  0 or a negative code
 * (a measurement could not run).
 */
int bench_calibrate(const struct bench_topo *t, const struct bench_opts *o, struct calib *c,
		    int max_tries, struct calib_checks *chk, struct vp_err *err);

#endif
