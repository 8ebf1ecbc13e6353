/* internal.h - what the scenario files share: progress, timed chases, streaming threads */
#ifndef VP_BENCH_INTERNAL_H
#define VP_BENCH_INTERNAL_H

#include <pthread.h>

#include "bench/bench.h"

#define LINE 64

/*
 * The timed loops are not instrumented in sanitizer builds: a shadow-memory
 * check on every load would be measured instead of the memory system.
 */
#define VP_UNINSTRUMENTED __attribute__((no_sanitize("address")))

void bench_progress(const struct bench_opts *o, const char *scenario, double frac,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool bench_stopped(const struct bench_opts *o);

/*
 * Nanoseconds per dependent load of the chain at start, after a warm-up
 * (a lap of nlines, at most one sample's time): the fastest of 12 short
 * samples when best (idle figures: other tenants only ever add time), else
 * the median of 5 (figures under a load we make ourselves).  Every sample
 * goes on along the chain where the last one stopped.
 * k > 1 walks k chains at once (starts[0..k-1]) and returns ns per step of
 * all k (so k / result is the miss rate).
 */
double bench_chase_ns(void **starts, int k, size_t nlines, double budget_s, bool best,
		      const struct bench_opts *o);
/* The same, and the median of its samples in *median (how far the best stands out). */
double bench_chase_sampled(void **starts, int k, size_t nlines, double budget_s, bool best,
			   const struct bench_opts *o, double *median);
/*
 * 64 points spread evenly along the single cycle at buf (one lap): k chains
 * far apart start at marks[i * 64 / k].
 */
void bench_chase_marks(void *buf, size_t nlines, void **marks);

/* k chains advanced together steps times (p[] moves on); returns p[0]. */
void *bench_walk_k(void **p, int k, uint64_t steps);

/* The working set that is surely DRAM: 4x the LLC (2x quick), at least 64 MiB;
 * o->dram_bytes when set (small emulated guests). */
size_t bench_dram_bytes(const struct bench_topo *t, const struct bench_opts *o);

/* Arrays for streaming threads, one set per memory node, made on first use
 * and reused by every run of a scenario (faulting in is slow). */
struct stream_pools {
	size_t bytes;              /* each array on each node; threads take slices */
	bool huge;
	int n;
	int node[64];
	struct bench_buf a[64], b[64], c[64];
};
void stream_pools_init(struct stream_pools *p, size_t bytes, bool huge);
void stream_pools_release(struct stream_pools *p);
/* "arrays of 128 MiB per node bound with mbind; node 0: <where its pages are>" */
void stream_pools_describe(struct stream_pools *p, char *out, size_t size);

struct streamer {
	int cpu;
	int isa, kernel;
	char *a;                   /* written (or read, for the read kernel) */
	const char *b, *c;         /* read by copy and triad */
	size_t len;
	double delay_ns;           /* busy pause per 64 KiB block; 0 flat out */
	volatile int *go, *stop;
	pthread_t th;
	bool started;
	double gbs;                /* result */
	uint64_t sink;
};

/* n streamers running at once. */
struct stream_set {
	int n;
	struct streamer *s;
	volatile int go, stop;
};

/*
 * Start n streamers on cpus[] with their memory on mem_nodes[] (NULL: the
 * node of each CPU), each on its slice of that node's pool arrays.  They
 * start streaming when this returns 0; stop them with stream_set_stop(),
 * also after a failure.
 */
int stream_set_start(struct stream_set *set, const struct bench_topo *t, struct stream_pools *p,
		     int n, const int *cpus, const int *mem_nodes, int isa, int kernel,
		     double delay_ns, struct vp_err *err);
/* Stop and join; their total GB/s (NaN when none ran). */
double stream_set_stop(struct stream_set *set);
/* start, window_s, stop: total GB/s into *gbs; 0 or a negative code. */
int bench_stream_run(const struct bench_topo *t, struct stream_pools *p, int n,
		     const int *cpus, const int *mem_nodes, int isa, int kernel, double window_s,
		     double *gbs, struct vp_err *err);

/* The node x node read matrix of r (window seconds a cell), progress frac0..frac1. */
int bench_bw_matrix(const struct bench_topo *t, const struct bench_opts *o, struct bw_result *r,
		    struct stream_pools *pools, double window, double frac0, double frac1,
		    struct vp_err *err);

void bench_sleep_s(double s);
int bench_node_of_cpu(const struct bench_topo *t, int cpu);
/* Append to a fixed text buffer. */
void bench_addf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Save the calling thread's affinity, to be put back after pinning it. */
struct bench_affinity { unsigned char set[128]; bool ok; };
void bench_affinity_save(struct bench_affinity *a);
void bench_affinity_restore(const struct bench_affinity *a);

#endif
