/* calib.h - the machine calibration file: what it holds, writing, loading, checking */
#ifndef VP_CALIB_H
#define VP_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/sbuf.h"

/*
 * A calibration describes how fast this machine's memory system is.
 * `vmmprof calibrate` measures it (src/bench/calibrate.c) and writes it as
 * JSON (format in docs/calibration.md); models read its scalars as cal.NAME
 * (cal.lat_local_ns ...).  Every scalar may be NaN ("not measurable here"),
 * and then carries a reason; NaN is written as null, never as 0.
 */

#define CALIB_FORMAT  "vmmprof-calibration"
#define CALIB_VERSION 1
#define CALIB_REASON_MAX 320

/* The scalars, in file order.  calib_key_name() gives the cal.NAME. */
enum calib_key {
	CAL_LAT_LOCAL_NS,      /* idle DRAM latency, CPU and memory on one node (mean of the diagonal) */
	CAL_LAT_REMOTE_NS,     /* idle DRAM latency, memory on another node (mean off the diagonal) */
	CAL_PEAK_BW_GBS,       /* highest local read bandwidth of any node, all its CPUs, GB/s (1e9 B/s) */
	CAL_REMOTE_BW_GBS,     /* mean read bandwidth with memory on another node */
	CAL_LAT_C2C_LOCAL_NS,  /* core-to-core one-way latency, both CPUs in one package */
	CAL_LAT_C2C_REMOTE_NS, /* the same across packages */
	CAL_QUEUE_DEPTH,       /* effective outstanding misses per core (MLP knee) */
	CAL_LAT_LOADED_NS,     /* DRAM latency at the highest load measured */
	CAL_BW_KNEE_GBS,       /* bandwidth at which loaded latency has risen by half over idle */
	CAL_LAT_L1_NS,         /* load-to-use latency per cache level (dependent loads) */
	CAL_LAT_L2_NS,
	CAL_LAT_LLC_NS,
	CAL_MIGRATE_GBS,       /* page migration rate between two nodes: move_pages of 4 KiB pages,
				  one thread, GB/s (what migratepages does for a VM's memory) */
	CAL_N
};

/*
 * How far a value can be trusted.  calibrate sets it; a file without it
 * (older) reads as unchecked, and calib_check() decides.
 */
enum calib_quality {
	CALQ_UNMEASURED,           /* NaN: not measurable here (its reason says why) */
	CALQ_UNCHECKED,            /* read from a file that did not say */
	CALQ_GOOD,                 /* measured, passed every check, samples quiet */
	CALQ_NOISY,                /* passed the checks, but its samples spread: other work ran */
	CALQ_IMPLAUSIBLE,          /* failed a physical check (only in a --force'd file) */
	CALQ_N
};

struct calib_machine {         /* what a calibration is keyed to */
	char vendor[32];           /* "GenuineIntel", "AuthenticAMD" */
	int family, model;         /* display family / model */
	char model_name[128];
	int n_cpus;                /* online CPUs */
	int n_nodes;
	int n_packages;
	uint64_t llc_bytes;        /* size of one last-level cache */
	int n_llc;                 /* number of last-level caches */
};

struct calib_point {           /* one point of the loaded-latency curve */
	int threads;               /* streaming threads besides the chaser */
	double bw_gbs;             /* bandwidth they reached */
	double lat_ns;             /* the chaser's latency meanwhile */
};

struct calib {
	int version;
	char created[32];          /* UTC, ISO 8601 */
	char tool[32];             /* vmmprof version that wrote it */
	struct calib_machine machine;
	double val[CAL_N];         /* NaN when unknown ... */
	char reason[CAL_N][CALIB_REASON_MAX]; /* ... and then why ("" otherwise) */
	enum calib_quality quality[CAL_N];
	bool forced;               /* written with --force while checks failed */
	int n_nodes;               /* rows of the matrices */
	int *node_ids;             /* n_nodes NUMA node numbers */
	double *lat_ns;            /* n_nodes x n_nodes, [cpu node][memory node], NaN unmeasured */
	double *bw_gbs;            /* ditto, read bandwidth */
	double *peak_bw_node_gbs;  /* n_nodes: local read bandwidth per node */
	struct calib_point *loaded;/* loaded-latency curve, threads ascending */
	size_t n_loaded;
};

/* Empty calibration: every scalar NaN with reason "not measured". */
void calib_init(struct calib *c);
void calib_release(struct calib *c);
/* Size the matrices for n nodes (NaN-filled); node_ids copied. */
void calib_set_nodes(struct calib *c, int n, const int *node_ids);
void calib_set(struct calib *c, enum calib_key k, double v, const char *reason);

/* "lat_local_ns" for CAL_LAT_LOCAL_NS; NULL out of range. */
const char *calib_key_name(enum calib_key k);
/* The key named name (with or without "cal."), or -1. */
int calib_key_lookup(const char *name);
/*
 * Value of cal.NAME for models: the scalar, or NaN.  *reason (may be NULL)
 * gets why it is NaN (a string owned by c, or a static one for an unknown
 * name); "" when the value is known.
 */
double calib_value(const struct calib *c, const char *name, const char **reason);

/* "good", "noisy", ...; NULL out of range. */
const char *calib_quality_name(enum calib_quality q);

/*
 * Physical sanity checks.  Measured values that cannot both be true are a
 * measurement gone wrong (other work on the machine, a too-short sample),
 * and a cost that subtracts one from the other would go negative.
 * Checked, with CALIB_CHECK_TOL of slack for sampling noise where two
 * measurements are compared:
 *   - every latency and bandwidth positive, queue depth >= 1;
 *   - loaded latency >= idle latency;
 *   - remote latency >= local latency (the scalars and each matrix row),
 *     remote bandwidth <= peak local bandwidth;
 *   - the bandwidth knee within the bandwidth range the loaded curve
 *     measured under load, and <= peak bandwidth;
 *   - core-to-core latency below DRAM latency (in-package below local,
 *     cross-package below remote);
 *   - the loaded-latency curve, smoothed by a 3-point running median, never
 *     falls as load grows.
 * NaN values are not checked (they are already unknown).
 */
#define CALIB_CHECK_TOL 0.05
#define CALIB_VIOLATION_MAX 32

struct calib_violation {
	enum calib_key key;        /* the value that cannot be right (the one a cost would misuse) */
	enum calib_key other;      /* the value it contradicts, or CAL_N */
	char why[256];             /* "loaded latency 153.7 ns is below idle latency 216.2 ns" */
};

struct calib_checks {
	size_t n;                  /* violations found; the first CALIB_VIOLATION_MAX are in v */
	struct calib_violation v[CALIB_VIOLATION_MAX];
};

/* Run the checks on c into *out; returns out->n (0: plausible). */
size_t calib_check(const struct calib *c, struct calib_checks *out);
/* 1 when a violation in chk names key k. */
bool calib_checks_name(const struct calib_checks *chk, enum calib_key k);
/*
 * Make c safe to compute with: every value a violation names becomes NaN
 * with the reason "implausible: WHY" and quality CALQ_IMPLAUSIBLE, so a
 * model sees it as unavailable instead of subtracting it.  Returns how many
 * values it took out.
 */
int calib_quarantine(struct calib *c, const struct calib_checks *chk);

/* Serialise as JSON into out (pretty, with a trailing newline). */
void calib_format(const struct calib *c, struct sbuf *out);
/* Write to path (the whole file replaced atomically via path.tmp). */
int calib_save(const struct calib *c, const char *path, struct vp_err *err);

/*
 * Parse JSON text; name labels messages ("FILE:LINE:COL: ...").  A wrong
 * format tag, a newer version, a missing or mistyped field, or a matrix of
 * the wrong size fails with VP_EPARSE or VP_EFORMAT.  *c is initialised
 * either way; release it with calib_release().
 */
int calib_parse(struct calib *c, const char *text, size_t len, const char *name,
		struct vp_err *err);
/* calib_parse() of the file at path (a path, not root-relative: user data). */
/* A calibration file is a regular file of at most CALIB_MAX_BYTES. */
#define CALIB_MAX_BYTES ((size_t)4 << 20)
int calib_load(struct calib *c, const char *path, struct vp_err *err);

struct platform;
/*
 * What a calibration made on p is keyed to: the CPU, online CPUs, the nodes
 * that have memory (at least 1), packages (at least 1), the largest LLC and
 * the number of LLCs (at least 1).  The one definition of "this machine"
 * for calibrate, bench and every command that reads a calibration.
 */
void calib_machine_of(const struct platform *p, struct calib_machine *m);

/*
 * 0 when c was made on a machine like here; otherwise VP_EINVAL with the
 * first difference: "calibration was made on another machine: 64 CPUs
 * there, 2 here".  Callers refuse, or warn when the user insists.
 */
int calib_match(const struct calib *c, const struct calib_machine *here, struct vp_err *err);

/* One-line description: "AuthenticAMD 25/1 'AMD EPYC', 2 CPUs, 1 node, 1 package, LLC 32 MiB x1". */
void calib_machine_format(const struct calib_machine *m, struct sbuf *out);

#endif
